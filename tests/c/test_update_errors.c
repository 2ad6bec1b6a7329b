/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_update_errors.c - every error code of the Muon update (core/math/update.c): bad
 * tensors, options and states, the momentum left as it was; a CUDA back end asked for that
 * cannot load.  The update's results: test_update.c.
 */
#define _POSIX_C_SOURCE 200112L   // setenv, unsetenv
#include <stdint.h>

#include "harness.h"
#include "muon.h"
#include "update_fixture.h"

//---- errors ---------------------------------------------------------------------------------

static void test_errors (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  double g[N], m[N] = { 0 }, u[N], big[2 * N];
  fill (g, N, 3u);
  muon_tensor G = muon_tensor_matrix (MUON_F64, g, R, C),
              M = muon_tensor_matrix (MUON_F64, m, R, C),
              U = muon_tensor_matrix (MUON_F64, u, R, C), T;
  muon_update_opts o = fp64_opts (), b;

  T_EQ_INT (muon_update (NULL, &G, &M, &U, &o), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_update (ctx, NULL, &M, &U, &o), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_update (ctx, &G, NULL, &U, &o), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_update (ctx, &G, &M, NULL, &o), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_update (ctx, &G, &M, &U, NULL), MUON_ERR_NULLPTR);
  T = M; T.data = NULL;
  T_EQ_INT (muon_update (ctx, &G, &T, &U, &o), MUON_ERR_NULLPTR);
  T = G; T.dtype = (muon_dtype) 5;
  T_EQ_INT (muon_update (ctx, &T, &M, &U, &o), MUON_ERR_BADTYPE);
  T = U; T.device = MUON_DEVICE_CUDA;
  T_EQ_INT (muon_update (ctx, &G, &M, &T, &o), MUON_ERR_UNSUPPORTED);
  T = G; T.rows = 0;
  T_EQ_INT (muon_update (ctx, &T, &M, &U, &o), MUON_ERR_BADSHAPE);
  T = M; T.cols = C - 1;
  T_EQ_INT (muon_update (ctx, &G, &T, &U, &o), MUON_ERR_BADSHAPE);
  T_ASSERT (strstr (muon_ctx_last_error (ctx), "M must be 6 x 10 x 1 like G") != NULL);
  T = U; T.rows = R - 1;
  T_EQ_INT (muon_update (ctx, &G, &M, &T, &o), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_update (ctx, &G, &G, &U, &o), MUON_ERR_BADARG);    // M over G
  T_EQ_STR (muon_ctx_last_error (ctx), "G, M and U must not overlap");
  T_EQ_INT (muon_update (ctx, &G, &M, &M, &o), MUON_ERR_BADARG);    // U over M
  muon_tensor M1 = muon_tensor_matrix (MUON_F64, big, R, C),
              U1 = muon_tensor_matrix (MUON_F64, big + N - 1, R, C); // one element shared
  T_EQ_INT (muon_update (ctx, &G, &M1, &U1, &o), MUON_ERR_BADARG);
  U1.data = big + N;                                                 // adjacent: fine
  memset (big, 0, sizeof big);
  T_EQ_INT (muon_update (ctx, &G, &M1, &U1, &o), MUON_OK);

  b = o; b.beta = 1;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "beta must be in [0, 1)");
  b = o; b.beta = -0.5;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
  b = o; b.beta = NAN;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
  b = o; b.nesterov = 2;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
  b = o; b.form = (muon_momentum_form) 2;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
  b = o; b.scale = (muon_scale_rule) 5;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
  b = o; b.scale_factor = 0;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
  b = o; b.scale_factor = INFINITY;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
  b = o; b.scale_rows = 3;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
  size_t split[3] = { 2, 0, 4 };
  b = o; b.nsplit = 2;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_NULLPTR);
  b.split_rows = split;
  b.nsplit = MUON_MAX_SPLITS + 1;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
  b.nsplit = 3;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADSHAPE);   // empty block
  split[1] = 1;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADSHAPE);   // sum 7 != 6
  T_EQ_STR (muon_ctx_last_error (ctx), "the row blocks sum to 7, not to the 6 rows");
  split[2] = 3;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_OK);
  b = o; b.ns.steps = -1;                                            // muon_ns's own check
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
  // bad Newton-Schulz options are refused before the momentum moves (a retry would
  // otherwise apply it twice)
  {
    double m0[sizeof m / sizeof m[0]];
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
      m[i] = m0[i] = 0.25 * (double) i;
    b = o; b.ns.steps = 5000;
    T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
    b = o; b.ns.precision = (muon_precision) 17;
    T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
    b = o; b.ns.normalize_first = 7;
    T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADARG);
    size_t wrap[2] = { SIZE_MAX, 4 };
    b = o; b.split_rows = wrap; b.nsplit = 2;
    T_EQ_INT (muon_update (ctx, &G, &M, &U, &b), MUON_ERR_BADSHAPE);
    T_EQ_STR (muon_ctx_last_error (ctx), "the row blocks sum to more than the 6 rows");
    T_ASSERT (memcmp (m, m0, sizeof m) == 0);
  }
  b = o; b.ns.device = MUON_DEVICE_CUDA;                            // CPU tensors, GPU NS
  double mc[sizeof m / sizeof m[0]];
  memcpy (mc, m, sizeof m);
  muon_status s = muon_update (ctx, &G, &M, &U, &b);
  T_ASSERT_MSG (s == MUON_OK || s == MUON_ERR_NOTBUILT || s == MUON_ERR_NODEVICE,
                "cuda device: %d", (int) s);
  T_ASSERT (s == MUON_OK || memcmp (m, mc, sizeof m) == 0);         // refused: M as it was

  // a non-finite momentum: warning, non-finite update
  memset (m, 0, sizeof m);
  m[7] = NAN;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &o), MUON_WARN_NONFINITE);
  T_ASSERT (isnan (u[0]));

  // out of memory for the fp64 Nesterov buffer (descriptions only: no element is read)
  size_t huge = (size_t) 1 << 22, bytes = huge * huge * sizeof (double);
  muon_tensor Gh = { MUON_F64, MUON_DEVICE_CPU, huge, huge, 1, huge, huge * huge,
                     (void *) (uintptr_t) 4096 };
  muon_tensor Mh = Gh, Uh = Gh;
  Mh.data = (void *) (uintptr_t) (4096 + bytes);
  Uh.data = (void *) (uintptr_t) (4096 + 2 * bytes);
  T_EQ_INT (muon_update (ctx, &Gh, &Mh, &Uh, &o), MUON_ERR_NOMEM);
  T_ASSERT (strstr (muon_ctx_last_error (ctx), "out of memory") != NULL);
  // element count past SIZE_MAX: refused before anything is allocated or read
  Gh.cols = Mh.cols = Uh.cols = 3;
  Gh.batch = Mh.batch = Uh.batch = SIZE_MAX / 8;
  Gh.ld = Mh.ld = Uh.ld = huge;
  Gh.stride = Mh.stride = Uh.stride = 3 * huge;
  Mh.data = (void *) (uintptr_t) 8192;
  Uh.data = (void *) (uintptr_t) 16384;
  T_ASSERT (muon_update (ctx, &Gh, &Mh, &Uh, &o) < 0);
  muon_ctx_destroy (&ctx);
}

// A trace (o.ns.trace) that does not fit a block's muon_ns call is refused before the
// momentum moves, with muon_ns's status and message (it was refused by muon_ns, after M was
// written): too few pages, another shape, a batch of pages, split row blocks of another
// shape (the second block's too: the first fits).  One that fits every block runs.
// 'onednn' in a build without oneDNN (the c-nodnnl layer) is refused before M is written;
// with oneDNN the call runs
static void test_provider_refused (void)
{
  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  double g[N], m[N], m0[N], u[N];
  fill (g, N, 7u);
  fill (m0, N, 8u);
  memcpy (m, m0, sizeof m);
  muon_update_opts o = fp64_opts ();
  o.ns.precision = MUON_PREC_SINGLE;
  o.ns.gemm = MUON_GEMM_ONEDNN;
  muon_tensor G = muon_tensor_matrix (MUON_F64, g, R, C), M = muon_tensor_matrix (MUON_F64, m, R, C),
              U = muon_tensor_matrix (MUON_F64, u, R, C);
  muon_status s = muon_update (ctx, &G, &M, &U, &o);
  T_ASSERT_MSG (s == MUON_OK || s == MUON_ERR_NOTBUILT, "status %d", (int) s);
  if (s == MUON_ERR_NOTBUILT)
    T_ASSERT_MSG (memcmp (m, m0, sizeof m) == 0, "M changed by a refused call");
  else
    T_ASSERT_MSG (memcmp (m, m0, sizeof m) != 0, "M not stepped");
  muon_ctx_destroy (&ctx);
}

static void test_trace_refused (void)
{
  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  double g[2 * N], m[2 * N], m0[2 * N], u[2 * N], x[6 * N];
  fill (g, 2 * N, 7u);
  fill (m0, 2 * N, 8u);
  muon_update_opts o = fp64_opts ();
  o.ns.steps = 5;                                   // 6 pages
  muon_ns_trace tr;
  size_t two_four[] = { 2, 4 }, three[] = { 3, 3 };
  const struct { size_t n, m, batch; int cap; const size_t *split; const char *msg; } k[] = {
    { R, C, 1, 5, NULL, "the trace holds 5 pages, 5 steps need 6" },
    { C, R, 1, 6, NULL, "the trace is sized for 10 x 6, the page iterates as 6 x 10" },
    { R, C, 2, 6, NULL, "a trace records one page, not 2" },
    { R, C, 1, 6, two_four, "the trace is sized for 6 x 10, the page iterates as 2 x 10" },
    { 2, C, 1, 6, two_four, "the trace is sized for 2 x 10, the page iterates as 4 x 10" },
    { R, C, 1, 6, NULL, NULL },
    { 3, C, 1, 6, three, NULL },                    // each block fits (the last one's stays)
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
  {
    memcpy (m, m0, sizeof m);
    memset (&tr, 0, sizeof tr);
    tr.n = k[i].n;
    tr.m = k[i].m;
    tr.cap = k[i].cap;
    tr.x = x;
    o.ns.trace = &tr;
    o.split_rows = k[i].split;
    o.nsplit = k[i].split ? 2 : 0;
    muon_tensor G = muon_tensor_batch (MUON_F64, g, R, C, k[i].batch),
                M = muon_tensor_batch (MUON_F64, m, R, C, k[i].batch),
                U = muon_tensor_batch (MUON_F64, u, R, C, k[i].batch);
    muon_status s = muon_update (ctx, &G, &M, &U, &o);
    if (k[i].msg)
    {
      T_EQ_INT (s, MUON_ERR_BADSHAPE);
      T_EQ_STR (muon_ctx_last_error (ctx), k[i].msg);
      T_ASSERT_MSG (memcmp (m, m0, sizeof m) == 0, "case %zu: M changed by a refused call", i);
    }
    else
    {
      T_EQ_INT (s, MUON_OK);
      T_EQ_INT (tr.steps, 5);
    }
  }
  muon_ctx_destroy (&ctx);
}

// A CUDA back end asked for (o.ns.device) that cannot load is refused before the momentum
// moves (MUON_CUDA_LIB names a library that is not there: NOTBUILT on any machine, with or
// without a GPU); the device arrays' update, whose Newton-Schulz runs where the arrays are,
// does not ask for it.  A library that loads but is no back end is named as MUON_CUDA_LIB
// gave it.
static void test_missing_backend (void)
{
  const char *was = getenv ("MUON_CUDA_LIB");
  char keep[4096] = "";
  if (was)
    snprintf (keep, sizeof keep, "%s", was);
  setenv ("MUON_CUDA_LIB", "/nonexistent/libmuon_cuda.so", 1);
  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);              // loads on first use: after setenv
  double g[N], m[N], m0[N], u[N];
  fill (g, N, 5u);
  fill (m0, N, 6u);
  memcpy (m, m0, sizeof m);
  muon_tensor G = muon_tensor_matrix (MUON_F64, g, R, C),
              M = muon_tensor_matrix (MUON_F64, m, R, C),
              U = muon_tensor_matrix (MUON_F64, u, R, C);
  muon_update_opts o = fp64_opts ();
  o.ns.device = MUON_DEVICE_CUDA;
  for (int nesterov = 0; nesterov <= 1; nesterov++)
  {
    o.nesterov = nesterov;
    T_EQ_INT (muon_update (ctx, &G, &M, &U, &o), MUON_ERR_NOTBUILT);
    T_ASSERT (strstr (muon_ctx_last_error (ctx), "/nonexistent/libmuon_cuda.so") != NULL);
    T_ASSERT_MSG (memcmp (m, m0, sizeof m) == 0, "nesterov %d: M changed by a refused call",
                  nesterov);
  }
  // on the CPU stand-in device: o.ns.device is ignored, the update runs
  muon_darray *dg = NULL, *dm = NULL, *du = NULL;
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, R, C, 1, &dg), MUON_OK);
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, R, C, 1, &dm), MUON_OK);
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, R, C, 1, &du), MUON_OK);
  T_EQ_INT (muon_darray_upload (ctx, dg, &G), MUON_OK);
  T_EQ_INT (muon_darray_upload (ctx, dm, &M), MUON_OK);
  T_EQ_INT (muon_darray_update (ctx, dg, dm, du, &o, 1), MUON_OK);
  muon_darray_destroy (ctx, &dg);
  muon_darray_destroy (ctx, &dm);
  muon_darray_destroy (ctx, &du);
  muon_ctx_destroy (&ctx);
  // a library that loads but is no back end: the message names that file, not the default
  setenv ("MUON_CUDA_LIB", "libm.so.6", 1);
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &o), MUON_ERR_NOTBUILT);
  T_ASSERT_MSG (strstr (muon_ctx_last_error (ctx), "libm.so.6 does not provide") != NULL, "%s",
                muon_ctx_last_error (ctx));
  muon_ctx_destroy (&ctx);
  if (was)
    setenv ("MUON_CUDA_LIB", keep, 1);
  else
    unsetenv ("MUON_CUDA_LIB");
}

int main (int argc, char **argv)
{
  (void) argc;
  T_RUN (test_errors);
  T_RUN (test_missing_backend);
  T_RUN (test_trace_refused);
  T_RUN (test_provider_refused);
  return T_DONE (argv[0]);
}
