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

int muon_default_threads (void)
{
  const char *env = getenv ("OMP_NUM_THREADS");
  int n = env ? atoi (env) : 0;
  if (n > 0)
    return n < MUON_MAX_THREADS ? n : MUON_MAX_THREADS;
  const char *local = getenv ("OMPI_COMM_WORLD_LOCAL_SIZE");     // Open MPI
  if (local == NULL)
    local = getenv ("MPI_LOCALNRANKS");                          // MPICH (Hydra)
  int ranks = local ? atoi (local) : 1;
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
