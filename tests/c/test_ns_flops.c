/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_ns_flops.c - the FLOP model of Newton-Schulz (core/math/ns_flops.c) against its closed
 * forms, written here from the products of each iteration (the counts ns_flops.m documents):
 * 5 steps standard (20 a + 10) n^3, Gram with the restart [2] (8 a + 28) n^3 and without
 * (4 a + 34) n^3, symmetric (15 a + 5) and (6 a + 17) (Gram's Q update general); the
 * per-iteration Gram rows; the terms summing to the totals; muon_ns_flops_matrix taking the
 * method after the aspect fallback and the schedule's default steps; every error code.
 */
#include <limits.h>

#include "harness.h"
#include "muon.h"

static muon_ctx *ctx;

static void test_closed_forms (void)
{
  muon_ns_flop_model F;
  double gs[2 * 5];
  int rs[5], two[] = { 2 };
  T_EQ_INT (muon_ns_flop_model_get (ctx, 5, two, 1, 0, &F, gs, rs), MUON_OK);
  T_EQ_INT (F.steps, 5);
  T_EQ_DBL (F.standard[0], 20);
  T_EQ_DBL (F.standard[1], 10);
  T_EQ_DBL (F.gram[0], 8);
  T_EQ_DBL (F.gram[1], 28);
  // R0 2a + Z 2 + R 4; Z 2 (R skipped: restart next); restart 4a + Z 2 + R 4;
  // Z 2 + Q 2 + R 4; Z 2 + Q 2 + final 2a
  static const double rows[5][2] = { { 2, 6 }, { 0, 4 }, { 4, 6 }, { 0, 8 }, { 2, 4 } };
  for (int i = 0; i < 5; i++)
  {
    T_EQ_DBL (gs[2 * i], rows[i][0]);
    T_EQ_DBL (gs[2 * i + 1], rows[i][1]);
    T_EQ_INT (rs[i], i == 2);
  }
  T_EQ_DBL (muon_ns_flops_count (F.gram, 1024, 5120), (8.0 * 5 + 28) * 1024.0 * 1024 * 1024);
  T_EQ_DBL (muon_ns_flops_count (F.gram, 5120, 1024), (8.0 * 5 + 28) * 1024.0 * 1024 * 1024);
  T_EQ_DBL (muon_ns_flops_count (F.standard, 4, 1), 20.0 * 4 + 10);
  // the terms add up to the totals
  double s[2] = { 0, 0 }, g[2] = { 0, 0 };
  for (int t = 0; t < MUON_FLOPS_TERMS; t++)
    for (int j = 0; j < 2; j++)
      (t < MUON_FLOPS_GRAM_FIRST ? s : g)[j] += F.term[t][j];
  T_EQ_DBL (s[0], F.standard[0]);
  T_EQ_DBL (s[1], F.standard[1]);
  T_EQ_DBL (g[0], F.gram[0]);
  T_EQ_DBL (g[1], F.gram[1]);
  T_EQ_DBL (F.term[MUON_FLOPS_RESTART_QX][0], 2);
  T_EQ_DBL (F.term[MUON_FLOPS_FINAL_QX][0], 2);
  // no restart; 0, duplicates and indices past the end never restart
  T_EQ_INT (muon_ns_flop_model_get (ctx, 5, NULL, 0, 0, &F, NULL, NULL), MUON_OK);
  T_EQ_DBL (F.gram[0], 4);
  T_EQ_DBL (F.gram[1], 34);
  int odd[] = { 0, 2, 2, 5, 9 };
  T_EQ_INT (muon_ns_flop_model_get (ctx, 5, odd, 5, 0, &F, NULL, rs), MUON_OK);
  T_EQ_DBL (F.gram[0], 8);
  T_EQ_DBL (F.gram[1], 28);
  T_EQ_INT (rs[0] + rs[1] + rs[2] + rs[3] + rs[4], 1);
  // symmetric results at half, but Gram's Q update (general, 2 n^3 at iterations 1, 3, 4):
  // MUON_FACTS 4.3's (6 alpha + 14) with the 3 halved Q updates counted whole
  T_EQ_INT (muon_ns_flop_model_get (ctx, 5, two, 1, 1, &F, NULL, NULL), MUON_OK);
  T_EQ_DBL (F.standard[0], 15);
  T_EQ_DBL (F.standard[1], 5);
  T_EQ_DBL (F.gram[0], 6);
  T_EQ_DBL (F.gram[1], 14 + 3);
  T_EQ_DBL (F.term[MUON_FLOPS_Q][1], 6);
  // one step: Gram is R0 + Z + final, 4 a + 2 (no Q, no R update)
  T_EQ_INT (muon_ns_flop_model_get (ctx, 1, NULL, 0, 0, &F, NULL, NULL), MUON_OK);
  T_EQ_DBL (F.gram[0], 4);
  T_EQ_DBL (F.gram[1], 2);
}

static void test_matrix (void)
{
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  double n3 = 1024.0 * 1024 * 1024;
  // the defaults: standard, 5 steps of keller
  T_EQ_DBL (muon_ns_flops_matrix (1024, 4096, NULL, 0), (20.0 * 4 + 10) * n3);
  T_EQ_DBL (muon_ns_flops_matrix (1024, 4096, &o, 0), (20.0 * 4 + 10) * n3);
  o.method = MUON_NS_GRAM;
  o.nrestarts = 1;
  o.restarts[0] = 2;
  T_EQ_DBL (muon_ns_flops_matrix (4096, 1024, &o, 0), (8.0 * 4 + 28) * n3);
  T_EQ_DBL (muon_ns_flops_matrix (4096, 1024, &o, 1), (6.0 * 4 + 14 + 3) * n3);
  // a square page falls back to standard (aspect <= gram_min_aspect)
  T_EQ_DBL (muon_ns_flops_matrix (1024, 1024, &o, 0), 30.0 * n3);
  // steps 0: the schedule's default (a 3-triple schedule runs 3 steps)
  static const double three[9] = { 3, -4, 2, 3, -4, 2, 3, -4, 2 };
  muon_ns_opts_default (&o);
  o.steps = 0;
  o.coeffs = three;
  o.ncoeffs = 3;
  T_EQ_DBL (muon_ns_flops_matrix (2, 8, &o, 0), 3 * (4.0 * 4 + 2) * 8);
}

// Options muon_ns refuses count NaN (no status to return), each refused by muon_ns too: an
// unknown method, negative steps, coeffs with ncoeffs 0 or negative (it counted 0 and
// negative FLOPs), more than MUON_MAX_STEPS steps given or by default (steps INT_MAX with
// Gram and 64 restarts ran for minutes), a restart count or index out of range, a Gram
// aspect below 1 or NaN.  MUON_MAX_STEPS steps are counted: 1000 standard steps of [4 2].
static void test_matrix_refused (void)
{
  static double many[3 * (MUON_MAX_STEPS + 1)];
  for (int i = 0; i < MUON_MAX_STEPS + 1; i++)
  {
    many[3 * i] = 3;
    many[3 * i + 1] = -4;
    many[3 * i + 2] = 2;
  }
  double g[16], x[16];
  for (int i = 0; i < 16; i++)
    g[i] = t_urand ();
  muon_tensor G = muon_tensor_matrix (MUON_F64, g, 2, 8),
              X = muon_tensor_matrix (MUON_F64, x, 2, 8);
  for (int k = 0; k < 11; k++)
  {
    muon_ns_opts o;
    muon_ns_opts_default (&o);
    o.precision = MUON_PREC_DOUBLE;
    switch (k)
    {
      case 0: o.method = (muon_ns_method) 7; break;
      case 1: o.steps = -1; break;
      case 2: o.coeffs = many; o.ncoeffs = 0; break;
      case 3: o.coeffs = many; o.ncoeffs = -3; o.method = MUON_NS_GRAM; break;
      case 4: o.steps = INT_MAX; o.method = MUON_NS_GRAM; o.nrestarts = MUON_MAX_RESTARTS;
              for (int i = 0; i < MUON_MAX_RESTARTS; i++) o.restarts[i] = 1000 + i;
              break;
      case 5: o.coeffs = many; o.ncoeffs = MUON_MAX_STEPS + 1; break;   // its default steps
      case 6: o.nrestarts = -1; break;
      case 7: o.nrestarts = MUON_MAX_RESTARTS + 1; break;
      case 8: o.restarts[0] = -1; break;
      case 9: o.gram_min_aspect = 0.5; break;
      case 10: o.gram_min_aspect = NAN; break;
    }
    double f = muon_ns_flops_matrix (2, 8, &o, 0);
    T_ASSERT_MSG (isnan (f), "case %d: %g FLOPs, not NaN", k, f);
    T_EQ_INT (muon_ns (ctx, &G, &X, &o), MUON_ERR_BADARG);
  }
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.steps = MUON_MAX_STEPS;
  T_EQ_DBL (muon_ns_flops_matrix (2, 8, &o, 0), 4.0 * MUON_MAX_STEPS * 8 * 4
                                                + 2.0 * MUON_MAX_STEPS * 8);
  o.steps = 0;                                      // 1000 triples: 1000 steps
  o.coeffs = many;
  o.ncoeffs = MUON_MAX_STEPS;
  T_EQ_DBL (muon_ns_flops_matrix (2, 8, &o, 0), 4.0 * MUON_MAX_STEPS * 8 * 4
                                                + 2.0 * MUON_MAX_STEPS * 8);
}

static void test_errors (void)
{
  muon_ns_flop_model F;
  int neg[] = { -1 };
  T_EQ_INT (muon_ns_flop_model_get (NULL, 5, NULL, 0, 0, &F, NULL, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ns_flop_model_get (ctx, 5, NULL, 0, 0, NULL, NULL, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ns_flop_model_get (ctx, 5, NULL, 1, 0, &F, NULL, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ns_flop_model_get (ctx, 0, NULL, 0, 0, &F, NULL, NULL), MUON_ERR_BADARG);
  T_EQ_INT (muon_ns_flop_model_get (ctx, MUON_MAX_STEPS + 1, NULL, 0, 0, &F, NULL, NULL),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_ns_flop_model_get (ctx, 5, neg, 1, 0, &F, NULL, NULL), MUON_ERR_BADARG);
  T_EQ_INT (muon_ns_flop_model_get (ctx, 5, neg, -1, 0, &F, NULL, NULL), MUON_ERR_BADARG);
  T_EQ_INT (muon_ns_flop_model_get (ctx, 5, NULL, 0, 2, &F, NULL, NULL), MUON_ERR_BADARG);
  // no status to return: a NULL pair counts NaN (it crashed)
  T_ASSERT (isnan (muon_ns_flops_count (NULL, 4, 4)));
}

int main (int argc, char **argv)
{
  (void) argc;
  muon_ctx_create (&ctx);
  T_RUN (test_closed_forms);
  T_RUN (test_matrix);
  T_RUN (test_matrix_refused);
  T_RUN (test_errors);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
