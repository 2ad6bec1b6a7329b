/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_ns_threads.c - muon_ns called at once from two threads, each with its own context
 * (core/gemm/gemm.c: OpenBLAS's thread count is one setting for the whole process, held at
 * one thread while any call runs its tiles).  Every result must be bit-equal to the same
 * call run alone, and OpenBLAS's count must be back where it was once all calls are done.
 *
 * The reference is the serial run of the same calls: OpenBLAS's own threads may change the
 * bits of a tile (tests/c/test_gemm.c), so a call whose tiles ran while another thread's
 * call had put OpenBLAS's count back would differ from it.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "muon.h"

#ifndef CALLS
#define CALLS 12               // long calls per precision
#endif

// Thread 0 makes CALLS long calls (ROWS x COLS) per precision; thread 1 makes short ones
// (SROWS x SCOLS) back to back until thread 0 is done, so that thread 0's calls mostly begin
// while one of thread 1's is in flight and go on after it has finished: the window where a
// finishing call used to put OpenBLAS's count back under a running one.
#define ROWS 300
#define COLS 600
#define SROWS 24
#define SCOLS 40

static const muon_precision precs[] = { MUON_PREC_DOUBLE, MUON_PREC_FP16 };
#define NPREC ((int) (sizeof precs / sizeof precs[0]))

static double g_long[ROWS * COLS], g_short[SROWS * SCOLS];
static double ref_long[NPREC][ROWS * COLS], ref_short[NPREC][SROWS * SCOLS];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int long_done;

typedef struct {
  int id;                      // 0: long calls, 1: short calls
  int calls;                   // calls made
  int errors;                  // calls that did not return MUON_OK
  int differ[NPREC];           // calls whose result was not bit-equal to the serial one
} job;

static muon_status one_call (muon_ctx *ctx, int id, muon_precision p, double *x)
{
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.precision = p;
  o.threads = 2;
  muon_tensor G = id == 0 ? muon_tensor_matrix (MUON_F64, g_long, ROWS, COLS)
                          : muon_tensor_matrix (MUON_F64, g_short, SROWS, SCOLS);
  muon_tensor X = id == 0 ? muon_tensor_matrix (MUON_F64, x, ROWS, COLS)
                          : muon_tensor_matrix (MUON_F64, x, SROWS, SCOLS);
  return muon_ns (ctx, &G, &X, &o);
}

static int stop (void)
{
  pthread_mutex_lock (&lock);
  int done = long_done;
  pthread_mutex_unlock (&lock);
  return done;
}

static void *run (void *arg)
{
  job *J = arg;
  muon_ctx *ctx = NULL;
  size_t size = J->id == 0 ? sizeof ref_long[0] : sizeof ref_short[0];
  double *x = malloc (size);
  if (muon_ctx_create (&ctx) == MUON_OK && x != NULL)
    for (int it = 0; J->id == 0 ? it < CALLS : !stop (); it++)
      for (int k = 0; k < NPREC; k++)
      {
        J->calls++;
        if (one_call (ctx, J->id, precs[k], x) != MUON_OK)
          J->errors++;
        else if (memcmp (x, J->id == 0 ? ref_long[k] : ref_short[k], size) != 0)
          J->differ[k]++;
      }
  else
    J->errors++;
  if (J->id == 0)
  {
    pthread_mutex_lock (&lock);
    long_done = 1;
    pthread_mutex_unlock (&lock);
  }
  free (x);
  muon_ctx_destroy (&ctx);
  return NULL;
}

static double next (uint64_t *r)                            // xorshift64, uniform in [-1, 1)
{
  *r ^= *r << 13;
  *r ^= *r >> 7;
  *r ^= *r << 17;
  return (double) (*r >> 11) / 9007199254740992.0 * 2 - 1;
}

static void test_two_contexts_same_bits (void)
{
  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  uint64_t r = 88172645463325252ULL;
  for (size_t i = 0; i < (size_t) ROWS * COLS; i++)
    g_long[i] = next (&r);
  for (size_t i = 0; i < (size_t) SROWS * SCOLS; i++)
    g_short[i] = next (&r);
  // OpenBLAS on 2 threads outside the calls, whatever OPENBLAS_NUM_THREADS says: the count a
  // finishing call must not put back while the other thread's call still runs its tiles
  int before = 0, now = 0;
  muon_status s = muon_gemm_blas_threads (ctx, 2, &before);
  if (s == MUON_ERR_UNSUPPORTED)
  {
    printf ("  (the BLAS is not OpenBLAS: its own threading; nothing to test)\n");
    muon_ctx_destroy (&ctx);
    return;
  }
  T_EQ_INT (s, MUON_OK);
  for (int k = 0; k < NPREC; k++)                          // the serial references
  {
    T_EQ_INT (one_call (ctx, 0, precs[k], ref_long[k]), MUON_OK);
    T_EQ_INT (one_call (ctx, 1, precs[k], ref_short[k]), MUON_OK);
  }
  job J[2];
  pthread_t t[2];
  memset (J, 0, sizeof J);
  for (int id = 0; id < 2; id++)
  {
    J[id].id = id;
    T_EQ_INT (pthread_create (&t[id], NULL, run, &J[id]), 0);
  }
  for (int id = 0; id < 2; id++)
    T_EQ_INT (pthread_join (t[id], NULL), 0);
  for (int id = 0; id < 2; id++)
  {
    T_EQ_INT (J[id].errors, 0);
    for (int k = 0; k < NPREC; k++)
      T_ASSERT_MSG (J[id].differ[k] == 0, "thread %d, precision %d: %d of %d results differ "
                    "from the serial run", id, (int) precs[k], J[id].differ[k],
                    J[id].calls / NPREC);
  }
  // all calls done: OpenBLAS's count is the one set before them
  T_EQ_INT (muon_gemm_blas_threads (ctx, before, &now), MUON_OK);
  T_EQ_INT (now, 2);
  muon_ctx_destroy (&ctx);
}

int main (int argc, char **argv)
{
  (void) argc;
  T_RUN (test_two_contexts_same_bits);
  return T_DONE (argv[0]);
}
