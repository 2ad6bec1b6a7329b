/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm_nccl_core.h - what test_comm_nccl_core.c and test_comm_nccl_faults.c share: the core's
 * NCCL communicator (core/comm/comm_nccl.c, in libmuon.a) through the public API over
 * libmuon_nccl.so built against the host stand-ins of the CUDA runtime (cuda_mock.cc) and
 * NCCL (nccl_mock.cc, one rank), found with MUON_NCCL_LIB.  cuda_mock.cc's control
 * functions, the context, a test counted case by case, the communicators (nccl, sim), the
 * collectives of muon_comm.h run on buffers filled with known values (run_op, fill), the
 * counters compared; test_start / test_finish: main's start (the plug-in from MUON_NCCL_LIB)
 * and end (the counts, and "gpu-mock N M" to MUON_RESULTS when set).  The including file
 * defines _POSIX_C_SOURCE 200809L (setenv) before it.
 */
#ifndef MUON_COMM_NCCL_CORE_H
#define MUON_COMM_NCCL_CORE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "harness.h"
#include "muon.h"

// cuda_mock.cc's control functions
void mock_fail_at (long k);
long mock_calls (void);
const char *mock_last_hit (void);
void mock_count_all (int on);
long mock_pending (void);

static muon_ctx *ctx;
static char plugin[4096];          // the mock-built libmuon_nccl.so ($MUON_NCCL_LIB at start)

// one test: its assertions all hold (harness.h's case counters, named when it begins)
static const char *case_what;
static inline void case_begin (const char *what) { t_case_begin (); case_what = what; }
static inline void case_end (void) { t_case_end (case_what); }

static inline const char *msg (void)
{
  const char *m = muon_ctx_last_error (ctx);
  return m ? m : "";
}
static inline int has (const char *s, const char *part) { return s && strstr (s, part) != NULL; }

static inline size_t esize (muon_dtype t) { return t == MUON_F32 ? 4 : 8; }

static inline void use_plugin (const char *path) { setenv ("MUON_NCCL_LIB", path, 1); }

static inline muon_comm *nccl (muon_comm *boot, int library)
{
  muon_comm *c = NULL;
  mock_fail_at (0);
  muon_status st = muon_comm_nccl_create (ctx, boot, library, &c);
  T_ASSERT_MSG (st == MUON_OK && c != NULL, "nccl create: status %d (%s)", (int) st, msg ());
  return c;
}

static inline muon_comm *sim (void)
{
  muon_comm *c = NULL;
  muon_status st = muon_comm_sim_create (ctx, 1, &c);
  T_ASSERT_MSG (st == MUON_OK && c != NULL, "sim create: status %d (%s)", (int) st, msg ());
  return c;
}

enum { ALLREDUCE, REDUCE_SCATTER, ALL_GATHER, BROADCAST, BARRIER, ALL_TO_ALL, NOPS };
static const char *op_name[NOPS] = { "allreduce", "reduce_scatter", "all_gather", "broadcast",
                                     "barrier", "all_to_all" };

static inline double value (size_t i)
{
  return (double) ((i * 7919u) % 1013u) / 7.0 - 61.0 + 1e-9 * (double) i;
}

// layouts of a call's buffers within one allocation of 2 n + 1 elements
enum { APART, IN_PLACE, OVERLAP, NLAYOUTS };

// One collective on c, its buffers inside buf (2 n + 1 elements of e bytes, filled by the
// caller): send at 0, recv at n + 1 (apart), 0 (in place) or 1 (overlapping).
static inline muon_status run_op (muon_comm *c, int op, char *buf, size_t n, muon_dtype t,
                                  muon_reduce_op rop, int layout)
{
  size_t e = esize (t);
  const void *send[1] = { buf };
  void *recv[1] = { buf + (layout == APART ? n + 1 : layout == IN_PLACE ? 0 : 1) * e };
  size_t counts[1] = { n };
  switch (op)
  {
    case ALLREDUCE: return muon_comm_allreduce (ctx, c, send, recv, n, t, rop);
    case REDUCE_SCATTER: return muon_comm_reduce_scatter (ctx, c, send, recv, n, t, rop);
    case ALL_GATHER: return muon_comm_all_gather (ctx, c, send, recv, n, t);
    case BROADCAST: return muon_comm_broadcast (ctx, c, recv, n, t, 0);
    case BARRIER: return muon_comm_barrier (ctx, c);
    default: return muon_comm_all_to_all (ctx, c, send, counts, recv, counts, t);
  }
}

static inline void fill (char *buf, size_t n, muon_dtype t)
{
  for (size_t i = 0; i < 2 * n + 1; i++)
    if (t == MUON_F64)
      ((double *) buf)[i] = i <= n ? value (i) : -999.0;
    else
      ((float *) buf)[i] = i <= n ? (float) value (i) : -999.0f;
}

static inline int same_counters (const muon_comm *a, const muon_comm *b)
{
  muon_comm_counters x, y;
  memset (&x, 0, sizeof x);
  memset (&y, 1, sizeof y);
  return muon_comm_counters_get (ctx, a, 0, &x) == MUON_OK
         && muon_comm_counters_get (ctx, b, 0, &y) == MUON_OK && memcmp (&x, &y, sizeof x) == 0;
}

// main's start: the context, the plug-in's path (MUON_NCCL_LIB, kept in plugin) and every
// CUDA call counted; 0 when MUON_NCCL_LIB is not set or the context cannot be made.
static inline int test_start (const char *name)
{
  const char *lib = getenv ("MUON_NCCL_LIB");
  if (lib == NULL || *lib == '\0' || muon_ctx_create (&ctx) != MUON_OK)
  {
    printf ("%s: set MUON_NCCL_LIB to the mock-built libmuon_nccl.so\n", name);
    return 0;
  }
  snprintf (plugin, sizeof plugin, "%s", lib);
  mock_count_all (1);                          // cudaSetDevice and friends can fail too
  return 1;
}

// main's end: the counts (harness.h), and "gpu-mock N M" to MUON_RESULTS when set (a line of
// make check's gpu-mock layer); the exit status.
static inline int test_finish (const char *argv0)
{
  muon_ctx_destroy (&ctx);
  return t_done_results (argv0, "gpu-mock");
}

#endif
