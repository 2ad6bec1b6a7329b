/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_ns_edges.c - Newton-Schulz on the CPU (core/math/ns.c) at its edges: all-zero pages,
 * the cast-first fp16 overflow, non-finite inputs through AOL, every error code of muon_ns
 * and muon_ns_trace, and the trace's pages.  The closed-form accuracy tests: test_ns.c.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "muon.h"
#include "muon_precision.h"

static muon_ctx *ctx;

//---- zero pages, non-finite results ---------------------------------------------------------

static void test_zero_pages (void)
{
  for (int prec = 0; prec < 4; prec++)
    for (int method = 0; method < 2; method++)
      for (int e0 = 0; e0 < 2; e0++)
      {
        double g[4 * 9 * 2], x[4 * 9 * 2];
        memset (g, 0, sizeof g);
        g[36 + 5] = -0.0;                               // a negative zero is still zero
        for (int i = 0; i < 72; i++) x[i] = NAN;
        muon_ns_opts o;
        muon_ns_opts_default (&o);
        o.precision = (muon_precision) prec;
        o.method = (muon_ns_method) method;
        if (e0) o.eps = 0;
        muon_tensor tg = muon_tensor_batch (MUON_F64, g, 4, 9, 2), tx = muon_tensor_batch (MUON_F64, x, 4, 9, 2);
        T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_OK);
        long bad = 0;
        for (int i = 0; i < 72; i++) bad += x[i] != 0 || isnan (x[i]);
        T_ASSERT_MSG (bad == 0, "%s %s eps %g: zero input gave %ld non-zero outputs",
                      muon_names (MUON_LIST_PRECISION, o.precision), method ? "gram" : "standard", o.eps, bad);
        float xf[72];
        muon_tensor tf = muon_tensor_batch (MUON_F32, xf, 4, 9, 2);
        T_EQ_INT (muon_ns (ctx, &tg, &tf, &o), MUON_OK);
        bad = 0;
        for (int i = 0; i < 72; i++) bad += xf[i] != 0;
        T_EQ_INT (bad, 0);
      }
}

// DESIGN.md 4 / MUON_FACTS 1.3 (DeepSpeed PR 8533): casting to fp16 before normalizing turns
// entries past 65504 into Inf and the result into NaN; normalizing first stays finite.
static void test_cast_first_overflow (void)
{
  enum { R = 8, C = 16 };
  double g[R * C], x[R * C];
  t_rng = 99;
  for (int i = 0; i < R * C; i++) g[i] = 1e5 * (t_urand () >= 0 ? 1 : -1) * (0.6 + 0.4 * fabs (t_urand ()));
  for (int method = 0; method < 2; method++)
  {
    muon_ns_opts o;
    muon_ns_opts_default (&o);
    o.precision = MUON_PREC_FP16;
    o.method = (muon_ns_method) method;
    muon_tensor tg = muon_tensor_matrix (MUON_F64, g, R, C), tx = muon_tensor_matrix (MUON_F64, x, R, C);
    T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_OK);
    long nonfinite = 0;
    for (int i = 0; i < R * C; i++) nonfinite += !isfinite (x[i]);
    T_EQ_INT (nonfinite, 0);
    o.normalize_first = 0;
    T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_WARN_NONFINITE);
    T_EQ_INT (muon_ctx_last_status (ctx), MUON_WARN_NONFINITE);
    T_ASSERT (*muon_ctx_last_error (ctx) != 0);
    nonfinite = 0;
    for (int i = 0; i < R * C; i++) nonfinite += !isfinite (x[i]);
    T_ASSERT_MSG (nonfinite > 0, "cast-first fp16 of 1e5 entries must give non-finite output");
    // bf16 has fp32's range: cast-first is harmless there
    o.precision = MUON_PREC_BF16;
    T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_OK);
  }
  // a finite double result past single's range, stored into a single X, is counted as stored
  {
    float gs[4] = { 1, 0, 0, 1 }, xs[4];
    const double big[3] = { 1e30, 0, 0 };
    muon_ns_opts o;
    muon_ns_opts_default (&o);
    o.precision = MUON_PREC_DOUBLE;
    o.coeffs = big;
    o.ncoeffs = 1;
    o.steps = 2;
    o.eps = 0;
    muon_tensor tg = muon_tensor_matrix (MUON_F32, gs, 2, 2), tx = muon_tensor_matrix (MUON_F32, xs, 2, 2);
    T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_WARN_NONFINITE);
    T_ASSERT (isinf (xs[0]) && isinf (xs[3]) && xs[1] == 0 && xs[2] == 0);
    o.steps = 1;                                   // 1e30 / sqrt (2): fits single
    T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_OK);
  }
  // 'double' casts nothing: the cast-first order of a huge page is the normalize-first one,
  // scaled as well (it gave all zeros and no warning)
  {
    double gh[R * C], x1[R * C], x2[R * C], nrm = 0;
    for (int i = 0; i < R * C; i++) gh[i] = 1e300 * sin (i + 1.0);
    muon_ns_opts o;
    muon_ns_opts_default (&o);
    o.precision = MUON_PREC_DOUBLE;
    o.eps = 0;
    muon_tensor th = muon_tensor_matrix (MUON_F64, gh, R, C);
    muon_tensor t1 = muon_tensor_matrix (MUON_F64, x1, R, C), t2 = muon_tensor_matrix (MUON_F64, x2, R, C);
    T_EQ_INT (muon_ns (ctx, &th, &t1, &o), MUON_OK);
    o.normalize_first = 0;
    T_EQ_INT (muon_ns (ctx, &th, &t2, &o), MUON_OK);
    T_ASSERT (memcmp (x1, x2, sizeof x1) == 0);
    for (int i = 0; i < R * C; i++) nrm += x2[i] * x2[i];
    T_ASSERT_MSG (nrm > 1, "cast-first double of 1e300: ||X||^2 = %g", nrm);
  }
  // non-finite input: non-finite output and the warning, in every precision
  for (int prec = 0; prec < 4; prec++)
  {
    g[3] = NAN;
    muon_ns_opts o;
    muon_ns_opts_default (&o);
    o.precision = (muon_precision) prec;
    muon_tensor tg = muon_tensor_matrix (MUON_F64, g, R, C), tx = muon_tensor_matrix (MUON_F64, x, R, C);
    T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_WARN_NONFINITE);
    g[3] = INFINITY;
    T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_WARN_NONFINITE);
    g[3] = 1;
  }
}

//---- errors ---------------------------------------------------------------------------------

static void expect_err (muon_status got, muon_status want, const char *what, int line)
{
  t_check (got == want, __FILE__, line, "%s: status %d (%s), expected %d (%s)", what, (int) got,
           muon_status_string (got), (int) want, muon_status_string (want));
  if (want < 0)
  {
    t_check (muon_ctx_last_status (ctx) == want, __FILE__, line, "%s: last status %d", what,
             (int) muon_ctx_last_status (ctx));
    t_check (*muon_ctx_last_error (ctx) != 0, __FILE__, line, "%s: no message", what);
  }
  muon_ctx_set_error (ctx, MUON_OK, "%s", "");
}
#define T_NS_ERR(o, want, what) expect_err (muon_ns (ctx, &tg, &tx, &(o)), (want), (what), __LINE__)

static void test_errors (void)
{
  double g[24], x[24], y[24];
  for (int i = 0; i < 24; i++) g[i] = i + 1;
  muon_tensor tg = muon_tensor_matrix (MUON_F64, g, 4, 6), tx = muon_tensor_matrix (MUON_F64, x, 4, 6);
  muon_ns_opts d, o;
  muon_ns_opts_default (&d);
  o = d;
  T_NS_ERR (o, MUON_OK, "valid");
  T_EQ_INT (muon_ns (NULL, &tg, &tx, &d), MUON_ERR_NULLPTR);
  expect_err (muon_ns (ctx, NULL, &tx, &d), MUON_ERR_NULLPTR, "NULL G", __LINE__);
  expect_err (muon_ns (ctx, &tg, NULL, &d), MUON_ERR_NULLPTR, "NULL X", __LINE__);
  expect_err (muon_ns (ctx, &tg, &tx, NULL), MUON_ERR_NULLPTR, "NULL opts", __LINE__);
  // shapes
  muon_tensor bad = muon_tensor_matrix (MUON_F64, y, 6, 4);
  expect_err (muon_ns (ctx, &tg, &bad, &d), MUON_ERR_BADSHAPE, "X transposed shape", __LINE__);
  bad = muon_tensor_matrix (MUON_F64, y, 4, 5);
  expect_err (muon_ns (ctx, &tg, &bad, &d), MUON_ERR_BADSHAPE, "X fewer columns", __LINE__);
  bad = muon_tensor_batch (MUON_F64, y, 2, 6, 2);
  expect_err (muon_ns (ctx, &tg, &bad, &d), MUON_ERR_BADSHAPE, "X other batch", __LINE__);
  bad = tx; bad.data = NULL;
  expect_err (muon_ns (ctx, &tg, &bad, &d), MUON_ERR_NULLPTR, "X without data", __LINE__);
  bad = tg; bad.rows = 0;
  expect_err (muon_ns (ctx, &bad, &tx, &d), MUON_ERR_BADSHAPE, "empty G", __LINE__);
  bad = tg; bad.ld = 3;
  expect_err (muon_ns (ctx, &bad, &tx, &d), MUON_ERR_BADSHAPE, "G ld < rows", __LINE__);
  bad = tx; bad.dtype = (muon_dtype) 5;
  expect_err (muon_ns (ctx, &tg, &bad, &d), MUON_ERR_BADTYPE, "X bad dtype", __LINE__);
  bad = tg; bad.device = MUON_DEVICE_CUDA;
  expect_err (muon_ns (ctx, &bad, &tx, &d), MUON_ERR_UNSUPPORTED, "device G, CPU compute", __LINE__);
  bad = tg; bad.batch = 3; bad.stride = SIZE_MAX / 2;              // no memory holds it
  expect_err (muon_ns (ctx, &bad, &tx, &d), MUON_ERR_BADSHAPE, "G past the address space",
              __LINE__);
  // X over G: in place is fine, shifted by a page it would overwrite G's next page first
  {
    double buf[4 * 6 * 4], ref[4 * 6 * 3];
    for (int i = 0; i < 4 * 6 * 4; i++) buf[i] = sin (i + 1.0);
    muon_tensor G3 = muon_tensor_batch (MUON_F64, buf, 4, 6, 3),
                R3 = muon_tensor_batch (MUON_F64, ref, 4, 6, 3),
                S3 = muon_tensor_batch (MUON_F64, buf + 24, 4, 6, 3);
    T_EQ_INT (muon_ns (ctx, &G3, &R3, &d), MUON_OK);
    expect_err (muon_ns (ctx, &G3, &S3, &d), MUON_ERR_BADARG, "X shifted over G", __LINE__);
    T_EQ_INT (muon_ns (ctx, &G3, &G3, &d), MUON_OK);                // in place
    T_ASSERT (memcmp (buf, ref, sizeof ref) == 0);
  }
  // options
  o = d; o.normalize_first = 7;                   T_NS_ERR (o, MUON_ERR_BADARG, "normalize_first 7");
  o = d; o.method = (muon_ns_method) 2;           T_NS_ERR (o, MUON_ERR_BADARG, "bad method");
  o = d; o.fused = 2;                             T_NS_ERR (o, MUON_ERR_BADARG, "fused 2");
  o = d; o.batched = -1;                          T_NS_ERR (o, MUON_ERR_BADARG, "batched -1");
  o = d; o.sym_blocks = -1;                       T_NS_ERR (o, MUON_ERR_BADARG, "sym_blocks -1");
  o = d; o.sym_blocks = MUON_MAX_SYM_BLOCKS + 1;  T_NS_ERR (o, MUON_ERR_BADARG, "sym_blocks 17");
  o = d; o.method = (muon_ns_method) -1;          T_NS_ERR (o, MUON_ERR_BADARG, "method -1");
  o = d; o.precision = (muon_precision) 4;        T_NS_ERR (o, MUON_ERR_BADARG, "bad precision");
  o = d; o.precision = (muon_precision) -1;       T_NS_ERR (o, MUON_ERR_BADARG, "precision -1");
  o = d; o.steps = -1;                            T_NS_ERR (o, MUON_ERR_BADARG, "steps -1");
  T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_ERR_BADARG);  // (0 is accepted: the default)
  T_EQ_STR (muon_ctx_last_error (ctx),
            "steps must be 0 (the schedule's default) or a positive integer (got -1)");
  o = d; o.steps = 1001;                          T_NS_ERR (o, MUON_ERR_BADARG, "1001 steps");
  o = d; o.steps = 1000000;                       T_NS_ERR (o, MUON_ERR_BADARG, "1e6 steps");
  o = d; o.schedule_mode = (muon_schedule_mode) 2; T_NS_ERR (o, MUON_ERR_BADARG, "bad mode");
  o = d; o.schedule_mode = (muon_schedule_mode) -1; T_NS_ERR (o, MUON_ERR_BADARG, "mode -1");
  o = d; o.nrestarts = 2; o.restarts[1] = -1;     T_NS_ERR (o, MUON_ERR_BADARG, "restart -1");
  o = d; o.nrestarts = -1;                        T_NS_ERR (o, MUON_ERR_BADARG, "nrestarts -1");
  T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "the restart count must not be negative (got -1)");
  o = d; o.nrestarts = MUON_MAX_RESTARTS + 1;     T_NS_ERR (o, MUON_ERR_BADARG, "too many restarts");
  {
    char want[64];
    T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_ERR_BADARG);
    snprintf (want, sizeof want, "at most %d restarts (got %d)", MUON_MAX_RESTARTS,
              MUON_MAX_RESTARTS + 1);
    T_EQ_STR (muon_ctx_last_error (ctx), want);
  }
  o = d; o.gram_min_aspect = 0.5;                 T_NS_ERR (o, MUON_ERR_BADARG, "aspect 0.5");
  o = d; o.gram_min_aspect = NAN;                 T_NS_ERR (o, MUON_ERR_BADARG, "aspect NaN");
  o = d; o.gram_min_aspect = INFINITY;            T_NS_ERR (o, MUON_ERR_BADARG, "aspect Inf");
  o = d; o.eps = -1e-7;                           T_NS_ERR (o, MUON_ERR_BADARG, "eps < 0");
  o = d; o.eps = NAN;                             T_NS_ERR (o, MUON_ERR_BADARG, "eps NaN");
  o = d; o.eps = INFINITY;                        T_NS_ERR (o, MUON_ERR_BADARG, "eps Inf");
  o = d; o.eps = 0;                               T_NS_ERR (o, MUON_OK, "eps 0");
  double cf[2][3] = { { 3, -3, 1 }, { 2, NAN, 0.5 } };
  o = d; o.coeffs = &cf[0][0]; o.ncoeffs = 2;     T_NS_ERR (o, MUON_ERR_BADARG, "NaN coefficient");
  cf[1][1] = -INFINITY;                           T_NS_ERR (o, MUON_ERR_BADARG, "Inf coefficient");
  cf[1][1] = -1.5;                                T_NS_ERR (o, MUON_OK, "finite coefficients");
  o.ncoeffs = 0;                                  T_NS_ERR (o, MUON_ERR_BADARG, "no triples");
  o.ncoeffs = -2;                                 T_NS_ERR (o, MUON_ERR_BADARG, "-2 triples");
  o = d; o.device = (muon_device) 7;              T_NS_ERR (o, MUON_ERR_BADARG, "bad device");
  o = d; o.normalize = (muon_normalize) 2;        T_NS_ERR (o, MUON_ERR_BADARG, "bad normalize");
  o = d; o.normalize = MUON_NORMALIZE_AOL;        T_NS_ERR (o, MUON_OK, "AOL");
  o.device = MUON_DEVICE_CUDA;                    T_NS_ERR (o, MUON_ERR_UNSUPPORTED, "AOL on CUDA");
  // CUDA: not built here, or no device; a usable one (GPU machine) must simply work
  o = d; o.device = MUON_DEVICE_CUDA;
  muon_status s = muon_ns (ctx, &tg, &tx, &o);
  T_ASSERT_MSG (s == MUON_ERR_NOTBUILT || s == MUON_ERR_NODEVICE || s == MUON_OK,
                "device cuda: status %d (%s)", (int) s, muon_status_string (s));
  if (s < 0)
  {
    T_EQ_INT (muon_ctx_last_status (ctx), s);
    T_ASSERT (*muon_ctx_last_error (ctx) != 0);
    s = muon_ns (ctx, &tg, &tx, &o);                // asking again gives the same answer
    T_ASSERT (s == MUON_ERR_NOTBUILT || s == MUON_ERR_NODEVICE);
    T_ASSERT (*muon_ctx_last_error (ctx) != 0);
  }
  // after all that, a valid call still works and clears nothing it should not
  o = d;
  T_NS_ERR (o, MUON_OK, "valid again");
}

//---- trace ----------------------------------------------------------------------------------

// muon_ns_trace: page 0 the normalized input, the last page the result, Gram's R page 0 the
// input's X X'; the result does not change; every error of muon_ns_trace_begin.
static void test_trace (void)
{
  enum { R = 6, C = 4, N = 4, M = 6, STEPS = 5 };   // a tall page: traced as 4 x 6
  double g[R * C], x0[R * C], x1[R * C], tx[(STEPS + 1) * N * M];
  double tr_r[(STEPS + 1) * N * N], tq[(STEPS + 1) * N * N];
  for (int i = 0; i < R * C; i++) g[i] = t_urand ();
  muon_tensor tg = muon_tensor_matrix (MUON_F64, g, R, C);
  muon_tensor t0 = muon_tensor_matrix (MUON_F64, x0, R, C), t1 = muon_tensor_matrix (MUON_F64, x1, R, C);
  for (int meth = 0; meth < 2; meth++)
  {
    muon_ns_opts o;
    muon_ns_opts_default (&o);
    o.method = meth ? MUON_NS_GRAM : MUON_NS_STANDARD;
    o.precision = MUON_PREC_DOUBLE;
    T_EQ_INT (muon_ns (ctx, &tg, &t0, &o), MUON_OK);
    muon_ns_trace tr = { N, M, STEPS + 1, tx, tr_r, tq, 0, 0, 0 };
    o.trace = &tr;
    T_EQ_INT (muon_ns (ctx, &tg, &t1, &o), MUON_OK);
    T_EQ_INT (tr.steps, STEPS);
    T_EQ_INT (tr.gram, meth);
    T_EQ_INT (tr.transposed, 1);
    double nrm = 0, worst = 0;
    for (int i = 0; i < R * C; i++) nrm += g[i] * g[i];
    nrm = sqrt (nrm) + 1e-7;
    for (int i = 0; i < R; i++)
      for (int j = 0; j < C; j++)
      {
        T_EQ_DBL (x1[i + j * R], x0[i + j * R]);                    // same result
        T_EQ_DBL (tx[STEPS * N * M + j + i * N], x1[i + j * R]);    // last page = result
        worst = fmax (worst, fabs (tx[j + i * N] - g[i + j * R] / nrm));
      }
    T_ASSERT_MSG (worst <= 1e-15, "page 0: the normalized input (%g)", worst);
    if (meth)                                   // R page 0 = X0 X0' (X0 = page 0, 4 x 6)
      for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++)
        {
          double v = 0;
          for (int l = 0; l < M; l++) v += tx[a + l * N] * tx[b + l * N];
          T_ASSERT_MSG (fabs (tr_r[a + b * N] - v) <= 1e-15, "R0(%d,%d)", a, b);
        }
    // errors
    muon_ns_opts e = o;
    muon_ns_trace bad = tr;
    e.trace = &bad;
    bad.cap = STEPS;
    expect_err (muon_ns (ctx, &tg, &t1, &e), MUON_ERR_BADSHAPE, "trace too short", __LINE__);
    bad = tr; bad.n = M; bad.m = N;
    expect_err (muon_ns (ctx, &tg, &t1, &e), MUON_ERR_BADSHAPE, "trace not transposed", __LINE__);
    bad = tr; bad.x = NULL;
    expect_err (muon_ns (ctx, &tg, &t1, &e), MUON_ERR_NULLPTR, "trace without x", __LINE__);
    bad = tr;
    muon_tensor g2 = muon_tensor_batch (MUON_F64, g, R, C / 2, 2);
    muon_tensor x2 = muon_tensor_batch (MUON_F64, x1, R, C / 2, 2);
    bad.n = C / 2;
    expect_err (muon_ns (ctx, &g2, &x2, &e), MUON_ERR_BADSHAPE, "trace of 2 pages", __LINE__);
    e = o; e.device = MUON_DEVICE_CUDA;
    expect_err (muon_ns (ctx, &tg, &t1, &e), MUON_ERR_UNSUPPORTED, "trace on CUDA", __LINE__);
  }
}

// A trace buffer on top of G, X or another trace buffer: BADARG naming it, and G and X are
// not written (trace.x on G's memory used to return OK with G changed by up to 0.75).
static void test_trace_alias (void)
{
  enum { R = 4, C = 8, STEPS = 5, PAGES = STEPS + 1 };   // traced as 4 x 8, 6 pages
  static double g[(PAGES + 1) * R * C], x[(PAGES + 1) * R * C], g0[(PAGES + 1) * R * C];
  static double x0[(PAGES + 1) * R * C];
  static double rb[2 * PAGES * R * R];
  for (int i = 0; i < (PAGES + 1) * R * C; i++) g[i] = t_urand ();
  for (int i = 0; i < (PAGES + 1) * R * C; i++) x[i] = -1;
  memcpy (g0, g, sizeof g);
  memcpy (x0, x, sizeof x);
  muon_tensor tg = muon_tensor_matrix (MUON_F64, g, R, C);
  muon_tensor tx = muon_tensor_matrix (MUON_F64, x, R, C);
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.method = MUON_NS_GRAM;
  o.precision = MUON_PREC_DOUBLE;
  o.steps = STEPS;
  const struct { double *x, *r, *q; const char *msg; } k[] = {
    { g, NULL, NULL, "the trace's x buffer must not overlap G" },
    { g + R * C, NULL, NULL, NULL },       // x right after G's page, in the same array: fine
    { x, NULL, NULL, "the trace's x buffer must not overlap X" },
    { g + R * C - 1, NULL, NULL, "the trace's x buffer must not overlap G" },  // G's last element
    { g + 2 * R * C, rb, g + 5, "the trace's q buffer must not overlap G" },
    { x + R * C, rb, rb + PAGES * R * R - 1, "the trace's r and q buffers must not overlap" },
    { x + R * C, rb, rb + PAGES * R * R, NULL },
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
  {
    muon_ns_trace tr = { R, C, PAGES, k[i].x, k[i].r, k[i].q, 0, 0, 0 };
    o.trace = &tr;
    memcpy (g, g0, sizeof g);
    muon_status s = muon_ns (ctx, &tg, &tx, &o);
    if (k[i].msg)
    {
      T_EQ_INT (s, MUON_ERR_BADARG);
      T_EQ_STR (muon_ctx_last_error (ctx), k[i].msg);
      T_ASSERT_MSG (memcmp (g, g0, sizeof g) == 0, "case %zu: G written", i);
      T_ASSERT_MSG (memcmp (x, x0, sizeof x) == 0, "case %zu: X written", i);
    }
    else
    {
      T_EQ_INT (s, MUON_OK);
      T_ASSERT_MSG (memcmp (g, g0, R * C * sizeof *g) == 0, "case %zu: G changed", i);
    }
    memcpy (x, x0, sizeof x);
  }
  // muon_update: the trace on M is refused before M is written
  muon_update_opts u;
  muon_update_opts_default (&u);
  double m[R * C], m0[R * C], up[R * C];
  for (int i = 0; i < R * C; i++) m[i] = m0[i] = t_urand ();
  static double big[PAGES * R * C];
  muon_tensor tm = muon_tensor_matrix (MUON_F64, big, R, C), tu = muon_tensor_matrix (MUON_F64, up, R, C);
  memcpy (big, m, sizeof m);
  muon_ns_trace tr = { R, C, PAGES, big + 3, NULL, NULL, 0, 0, 0 };
  u.ns.trace = &tr;
  u.ns.steps = STEPS;
  memcpy (g, g0, sizeof g);
  T_EQ_INT (muon_update (ctx, &tg, &tm, &tu, &u), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "the trace's x buffer must not overlap M");
  T_ASSERT (memcmp (big, m0, sizeof m0) == 0);
}

// AOL on a page with NaN or Inf (muon_update's poisoned momentum): non-finite out and the
// warning, in both orders and every precision, as the Frobenius path.
static void test_aol_nonfinite (void)
{
  double g[24], x[24];
  for (int i = 0; i < 24; i++) g[i] = t_urand ();
  muon_tensor tg = muon_tensor_matrix (MUON_F64, g, 4, 6), tx = muon_tensor_matrix (MUON_F64, x, 4, 6);
  for (int pattern = 0; pattern < 2; pattern++)   // all NaN; finite with one Inf
    for (int nf = 0; nf < 2; nf++)
      for (int p = MUON_PREC_DOUBLE; p <= MUON_PREC_FP16; p++)
      {
        muon_ns_opts o;
        muon_ns_opts_default (&o);
        o.normalize = MUON_NORMALIZE_AOL;
        o.normalize_first = nf;
        o.precision = (muon_precision) p;
        for (int i = 0; i < 24; i++) g[i] = pattern == 0 ? NAN : t_urand ();
        if (pattern == 1)
          g[5] = INFINITY;
        T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_WARN_NONFINITE);
        int finite = 0;
        for (int i = 0; i < 24; i++) finite += isfinite (x[i]) != 0;
        T_EQ_INT (finite, 0);
      }
}

int main (int argc, char **argv)
{
  (void) argc;
  muon_ctx_create (&ctx);
  T_RUN (test_zero_pages);
  T_RUN (test_cast_first_overflow);
  T_RUN (test_errors);
  T_RUN (test_trace);
  T_RUN (test_trace_alias);
  T_RUN (test_aol_nonfinite);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
