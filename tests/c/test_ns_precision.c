/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_ns_precision.c - Newton-Schulz on the CPU against the closed forms of
 * ns_closed_form.h beyond fp64 storage: storage types and the output dtype, single, bf16 and
 * fp16, Fused (each scale-add its product's epilogue), Gram's aspect fallback, when Gram
 * runs, and the defaults of muon_ns_opts.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "ns_closed_form.h"
#include "muon_precision.h"

//---- storage types and other precisions -----------------------------------------------------

static void test_dtypes (void)
{
  enum { R = 6, C = 14 };
  double g[R * C], x64[R * C], xin[R * C];
  float g32[R * C], x32[R * C];
  t_rng = 11;
  for (int i = 0; i < R * C; i++) { g32[i] = (float) t_urand (); g[i] = g32[i]; }
  for (int prec = 0; prec < 4; prec++)
    for (int method = 0; method < 2; method++)
    {
      muon_ns_opts o;
      muon_ns_opts_default (&o);
      o.precision = (muon_precision) prec;
      o.method = (muon_ns_method) method;
      o.gemm = MUON_GEMM_OPENBLAS;
      muon_tensor tg = muon_tensor_matrix (MUON_F64, g, R, C), tx = muon_tensor_matrix (MUON_F64, x64, R, C);
      T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_OK);
      // F32 output holds the same values rounded once to float
      muon_tensor ty = muon_tensor_matrix (MUON_F32, x32, R, C);
      T_EQ_INT (muon_ns (ctx, &tg, &ty, &o), MUON_OK);
      long bad = 0;
      for (int i = 0; i < R * C; i++) bad += x32[i] != (float) x64[i];
      T_ASSERT_MSG (bad == 0, "%s: %ld F32 outputs differ from (float) of the F64 ones",
                    muon_names (MUON_LIST_PRECISION, o.precision), bad);
      // F32 input holding the same values gives the same result
      muon_tensor tf = muon_tensor_matrix (MUON_F32, g32, R, C), tz = muon_tensor_matrix (MUON_F64, xin, R, C);
      T_EQ_INT (muon_ns (ctx, &tf, &tz, &o), MUON_OK);
      T_ASSERT (memcmp (xin, x64, sizeof xin) == 0);
      // the result holds exact compute-precision values
      bad = 0;
      for (int i = 0; i < R * C; i++)
      {
        if (prec == MUON_PREC_DOUBLE) break;
        float f = (float) x64[i];
        bad += (double) f != x64[i] || muon_round_to (prec, f) != f || !isfinite (f);
      }
      T_ASSERT_MSG (bad == 0, "%s %s: %ld outputs are not %s values",
                    muon_names (MUON_LIST_PRECISION, o.precision), method ? "gram" : "standard", bad,
                    muon_names (MUON_LIST_PRECISION, o.precision));
    }
}

static void test_single (void)
{
  const size_t shapes[][2] = { { 16, 40 }, { 40, 16 }, { 24, 24 } };
  for (int sh = 0; sh < 3; sh++)
    for (int method = 0; method < 2; method++)
    {
      ns_case c = base_case (shapes[sh][0], shapes[sh][1], 2);
      c.o.precision = MUON_PREC_SINGLE;
      c.o.method = (muon_ns_method) method;
      EXPECT (c, 3e-5, "single keller");
      c.layout = FUSED;
      EXPECT (c, 3e-5, "single keller fused");
    }
}

// Low precision on these well-conditioned inputs: close to the closed form, at the scale of
// the peers' precision figures (MUON_FACTS / DESIGN.md 6: bf16 standard 0.023-0.035, fp16 Gram
// 0.003-0.005 on N(0,1) inputs); loose bounds, the Octave layer checks bitwise.
static void test_low_precision (void)
{
  ns_case c = base_case (16, 48, 2);
  c.o.precision = MUON_PREC_BF16;
  EXPECT (c, 0.08, "bf16 standard keller");
  c.o.precision = MUON_PREC_FP16;
  c.o.method = MUON_NS_GRAM;
  EXPECT (c, 0.015, "fp16 gram keller");
  c.o.method = MUON_NS_STANDARD;
  EXPECT (c, 0.015, "fp16 standard keller");
}

// Fused (each scale-add its product's epilogue, rounded once): against the same closed
// form, closer in bf16 / fp16 than the eager order (measured here: 0.34 to 0.6 of its
// error), the bits of the eager order in double and single, and 0 or 1 only.
static void test_fused (void)
{
  const muon_precision low[] = { MUON_PREC_BF16, MUON_PREC_FP16 };
  for (int p = 0; p < 2; p++)
    for (int method = 0; method < 2; method++)
    {
      ns_case c = base_case (16, 48, 2);
      c.o.precision = low[p];
      c.o.method = (muon_ns_method) method;
      double eager = run_case (&c).err;
      c.o.fused = 1;
      EXPECT (c, 0.75 * eager, "fused low precision");
      c.layout = FUSED;
      EXPECT (c, 0.75 * eager, "fused low precision, fused rows");
    }
  double g[12 * 20], x0[12 * 20], x1[12 * 20];
  t_rng = 7;
  for (int i = 0; i < 12 * 20; i++) g[i] = t_urand ();
  for (int prec = MUON_PREC_DOUBLE; prec <= MUON_PREC_SINGLE; prec++)
    for (int method = 0; method < 2; method++)
    {
      muon_ns_opts o;
      muon_ns_opts_default (&o);
      o.precision = (muon_precision) prec;
      o.method = (muon_ns_method) method;
      muon_tensor tg = muon_tensor_matrix (MUON_F64, g, 12, 20);
      muon_tensor t0 = muon_tensor_matrix (MUON_F64, x0, 12, 20);
      muon_tensor t1 = muon_tensor_matrix (MUON_F64, x1, 12, 20);
      T_EQ_INT (muon_ns (ctx, &tg, &t0, &o), MUON_OK);
      o.fused = 1;
      T_EQ_INT (muon_ns (ctx, &tg, &t1, &o), MUON_OK);
      T_ASSERT_MSG (memcmp (x0, x1, sizeof x0) == 0, "fused %s %s: not the eager bits",
                    muon_names (MUON_LIST_PRECISION, o.precision), method ? "gram" : "standard");
    }
}

// Gram with the aspect fallback runs the standard iteration: bitwise equal even in fp16,
// where the two op sequences round differently.
static void test_gram_fallback (void)
{
  enum { R = 6, C = 15 };
  double g[R * C], xs[R * C], xg[R * C];
  t_rng = 3;
  for (int i = 0; i < R * C; i++) g[i] = t_urand ();
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.precision = MUON_PREC_FP16;
  o.gemm = MUON_GEMM_OPENBLAS;
  muon_tensor tg = muon_tensor_matrix (MUON_F64, g, R, C);
  muon_tensor ts = muon_tensor_matrix (MUON_F64, xs, R, C), tq = muon_tensor_matrix (MUON_F64, xg, R, C);
  T_EQ_INT (muon_ns (ctx, &tg, &ts, &o), MUON_OK);
  o.method = MUON_NS_GRAM;
  o.gram_min_aspect = 3;                          // 15 / 6 = 2.5 <= 3: standard
  T_ASSERT (!muon_ns_uses_gram (R, C, &o));
  T_EQ_INT (muon_ns (ctx, &tg, &tq, &o), MUON_OK);
  T_ASSERT (memcmp (xs, xg, sizeof xs) == 0);
  o.gram_min_aspect = 2;                          // 2.5 > 2: Gram, which rounds differently
  T_ASSERT (muon_ns_uses_gram (R, C, &o));
  T_EQ_INT (muon_ns (ctx, &tg, &tq, &o), MUON_OK);
  T_ASSERT_MSG (memcmp (xs, xg, sizeof xs) != 0, "fp16 gram ran (differs from standard)");
  // square input: method gram falls back with the default aspect 1
  double sq[49], ys[49], yg[49];
  for (int i = 0; i < 49; i++) sq[i] = t_urand ();
  muon_tensor t7 = muon_tensor_matrix (MUON_F64, sq, 7, 7);
  muon_tensor u7 = muon_tensor_matrix (MUON_F64, ys, 7, 7), v7 = muon_tensor_matrix (MUON_F64, yg, 7, 7);
  o.gram_min_aspect = 1;
  o.method = MUON_NS_STANDARD;
  T_EQ_INT (muon_ns (ctx, &t7, &u7, &o), MUON_OK);
  o.method = MUON_NS_GRAM;
  T_EQ_INT (muon_ns (ctx, &t7, &v7, &o), MUON_OK);
  T_ASSERT (memcmp (ys, yg, sizeof ys) == 0);
}

static void test_uses_gram (void)
{
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  T_EQ_INT (muon_ns_uses_gram (8, 16, NULL), 0);
  T_EQ_INT (muon_ns_uses_gram (8, 16, &o), 0);          // standard is the default
  o.method = MUON_NS_GRAM;
  T_EQ_INT (muon_ns_uses_gram (8, 16, &o), 1);
  T_EQ_INT (muon_ns_uses_gram (16, 8, &o), 1);
  T_EQ_INT (muon_ns_uses_gram (8, 8, &o), 0);           // square: standard (DeepSpeed)
  T_EQ_INT (muon_ns_uses_gram (10, 11, &o), 1);         // any aspect > 1
  T_EQ_INT (muon_ns_uses_gram (1, 2, &o), 1);
  o.gram_min_aspect = 2;                                // xtuner: aspect <= 2 falls back
  T_EQ_INT (muon_ns_uses_gram (8, 16, &o), 0);
  T_EQ_INT (muon_ns_uses_gram (16, 8, &o), 0);
  T_EQ_INT (muon_ns_uses_gram (8, 17, &o), 1);
  T_EQ_INT (muon_ns_uses_gram (17, 8, &o), 1);
}

static void test_defaults (void)
{
  muon_ns_opts o;
  memset (&o, 0x77, sizeof o);
  muon_ns_opts_default (&o);
  T_EQ_INT (o.method, MUON_NS_STANDARD);
  T_EQ_INT (o.steps, 0);
  T_ASSERT (o.coeffs == NULL);
  T_EQ_INT (o.schedule_mode, MUON_SCHEDULE_REPEAT_LAST);
  T_EQ_INT (o.nrestarts, 1);
  T_EQ_INT (o.restarts[0], 2);
  T_EQ_DBL (o.gram_min_aspect, 1);
  T_EQ_DBL (o.eps, 1e-7);
  T_EQ_INT (o.normalize_first, 1);
  T_EQ_INT (o.fused, 0);
  T_EQ_INT (o.batched, 0);
  T_EQ_INT (o.sym_blocks, 0);
  T_EQ_INT (o.device, MUON_DEVICE_CPU);
  muon_ns_opts_default (NULL);                          // no crash
  // steps 0 = the schedule's default: 5 for keller
  ns_case c = base_case (6, 9, 1);
  EXPECT (c, TOL64, "default steps");
  c.o.steps = 5;
  EXPECT (c, TOL64, "5 steps");
  // the maximum step count runs
  c.o.steps = 1000;
  ns_result r = run_case (&c);
  T_EQ_INT (r.status, MUON_OK);
  T_ASSERT (r.finite);
}

int main (int argc, char **argv)
{
  (void) argc;
  muon_ctx_create (&ctx);
  T_RUN (test_defaults);
  T_RUN (test_uses_gram);
  T_RUN (test_dtypes);
  T_RUN (test_single);
  T_RUN (test_low_precision);
  T_RUN (test_fused);
  T_RUN (test_gram_fallback);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
