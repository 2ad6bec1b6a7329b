/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* threads.c - the thread policy (DESIGN.md 3, "same input, same bits"): how many threads a
 * call gets when it does not say.  A constant of the machine and the launch: OMP_NUM_THREADS
 * when set, else this process's cores shared out among the MPI ranks on its machine; never
 * the load.  The GEMM layer runs its tiles and the elementwise passes on that many threads
 * (core/gemm/gemm.c), and muon_info reports it.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "muon_internal.h"

int muon_core_count (void)
{
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return CPU_COUNT (&set);
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int) n : 1;
}

// The positive count an environment variable starts with, as libgomp reads
// OMP_NUM_THREADS: digits (after blanks), then the end, blanks or a ',' (a list's first
// level); at most `cap` (larger values, overflow included, are cap).  0 when unset or not
// such a number ("abc", "1e3", "-2", "0").
int muon_env_count (const char *var, long cap)
{
  const char *env = getenv (var), *p = env;
  if (env == NULL)
    return 0;
  while (*p == ' ' || *p == '\t')
    p++;
  long n = 0;
  const char *digits = p;
  for (; *p >= '0' && *p <= '9'; p++)
    n = n < cap ? n * 10 + (*p - '0') : cap;         // saturates: no overflow
  while (*p == ' ' || *p == '\t')
    p++;
  if (p == digits || (*p != '\0' && *p != ','))
    return 0;
  return (int) (n < cap ? n : cap);
}

int muon_default_threads (void)
{
  int n = muon_env_count ("OMP_NUM_THREADS", MUON_MAX_THREADS);
  if (n > 0)
    return n;
  int ranks = muon_env_count ("OMPI_COMM_WORLD_LOCAL_SIZE", 1L << 20);      // Open MPI
  if (ranks == 0)
    ranks = muon_env_count ("MPI_LOCALNRANKS", 1L << 20);                  // MPICH (Hydra)
  n = muon_core_count () / (ranks > 1 ? ranks : 1);
  return n > 1 ? n : 1;
}

// A thread's stack as OpenMP sizes it: OMP_STACKSIZE (a number with an optional B, K, M or
// G suffix; K without one), else the process's stack limit, else 8 MiB.
static double stack_bytes (void)
{
  const char *env = getenv ("OMP_STACKSIZE");
  if (env == NULL)
    env = getenv ("GOMP_STACKSIZE");
  if (env != NULL)
  {
    char *end;
    double v = strtod (env, &end);
    while (*end == ' ')
      end++;
    double unit = *end == 'B' || *end == 'b' ? 1 : *end == 'M' || *end == 'm' ? 1048576
                  : *end == 'G' || *end == 'g' ? 1073741824.0 : 1024;
    if (v > 0)
      return v * unit;
  }
  struct rlimit r;
  if (getrlimit (RLIMIT_STACK, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur > 0)
    return (double) r.rlim_cur;
  return 8.0 * 1048576;
}

// The address space glibc's malloc may reserve for n threads: a thread that finds the
// arenas busy gets one of its own, 64 MiB reserved whether or not it is touched, up to 8
// per core (M_ARENA_MAX's default; MALLOC_ARENA_MAX sets it).  How many it makes depends
// on how the threads happen to contend, i.e. on the machine's load, so all are counted.
static double arena_bytes (int n)
{
  const char *env = getenv ("MALLOC_ARENA_MAX");
  long cap = env != NULL ? strtol (env, NULL, 10) : 0;
  if (cap <= 0)
    cap = 8L * muon_core_count ();
  return (double) (n < cap ? n : cap) * 64.0 * 1048576;
}

int muon_threads_that_fit (int n)
{
  struct rlimit r;
  if (n <= 1 || getrlimit (RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
    return n;
  double vm = 0;                                   // the address space in use (statm: pages)
  FILE *f = fopen ("/proc/self/statm", "r");
  if (f != NULL)
  {
    if (fscanf (f, "%lf", &vm) != 1)
      vm = 0;
    fclose (f);
  }
  double left = (double) r.rlim_cur - vm * (double) sysconf (_SC_PAGESIZE) - arena_bytes (n);
  double fit = left / 2 / (stack_bytes () + 65536);   // half of it, a guard page per stack
  return fit >= n ? n : fit >= 1 ? (int) fit : 1;
}

double muon_memory_bytes (void)
{
  long pages = sysconf (_SC_PHYS_PAGES), size = sysconf (_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double) pages * (double) size : 0;
}
