/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_flops.c - the FLOP model of Newton-Schulz (muon_math.h): the [c1 c0] pair of each
 * product term of the standard and the Gram iteration, for ns_flops.m (through
 * __muon_ns_flops__) and the ZeRO cost model (muon_ns_flops_matrix), written once.
 *
 * Usage
 *   muon_ns_flop_model F;
 *   int r[] = { 2 };
 *   muon_ns_flop_model_get (ctx, 5, r, 1, 0, &F, NULL, NULL);  // F.gram [8 28], F.standard [20 10]
 *   muon_ns_flops_count (F.gram, 1024, 5120);            // (8 * 5 + 28) 1024^3
 */
#include <math.h>
#include <string.h>

#include "math_internal.h"

// A restart before iteration i (0-based): 1 <= i <= steps - 1 and i in the list (muon_ns
// never reaches a restart at 0 or past its last iteration).
static int restart_at (const int *restarts, int nrestarts, int i, int steps)
{
  if (i < 1 || i > steps - 1)
    return 0;
  for (int k = 0; k < nrestarts; k++)
    if (restarts[k] == i)
      return 1;
  return 0;
}

static void add (double *c, double c1, double c0)
{
  c[0] += c1;
  c[1] += c0;
}

// The model, without the checks (steps >= 1).  gram_steps: NULL or steps x 2; restarted:
// NULL or steps.
static void model (int steps, const int *restarts, int nrestarts, int symmetric,
                   muon_ns_flop_model *F, double *gram_steps, int *restarted)
{
  const double h = symmetric ? 0.5 : 1.0;   // a product computed as symmetric (half); Gram's
                                            // Q update is not (muon_ns forms it by a general
                                            // product: a mirrored Q drifts, ns_impl.h)
  const int s = steps;
  memset (F, 0, sizeof *F);
  F->steps = s;
  // standard, per iteration: X X' (symmetric), (c A) A (symmetric), B X (general)
  add (F->term[MUON_FLOPS_XXT], 2 * h * s, 0);
  add (F->term[MUON_FLOPS_AA], 0, 2 * h * s);
  add (F->term[MUON_FLOPS_BX], 2.0 * s, 0);
  for (int t = 0; t < MUON_FLOPS_GRAM_FIRST; t++)
    add (F->standard, F->term[t][0], F->term[t][1]);
  // Gram, iteration by iteration
  for (int i = 0; i < s; i++)
  {
    double c[2] = { 0, 0 };
    int rs = restart_at (restarts, nrestarts, i, s);
    if (restarted)
      restarted[i] = rs;
    if (i == 0)
    {
      add (F->term[MUON_FLOPS_R0], 2 * h, 0);              // R = X X'
      add (c, 2 * h, 0);
    }
    if (rs)
    {
      add (F->term[MUON_FLOPS_RESTART_QX], 2, 0);          // X = Q X (general)
      add (F->term[MUON_FLOPS_RESTART_XXT], 2 * h, 0);     // R = X X'
      add (c, 2 + 2 * h, 0);
    }
    add (F->term[MUON_FLOPS_Z], 0, 2 * h);                 // Z = b R + (c R) R
    add (c, 0, 2 * h);
    if (i > 0 && !rs)
    {
      add (F->term[MUON_FLOPS_Q], 0, 2);                   // Q = Z Q + a Q (else Z + a I):
      add (c, 0, 2);                                       // general even when symmetric
    }
    if (i < s - 1 && !restart_at (restarts, nrestarts, i + 1, s))
    {
      add (F->term[MUON_FLOPS_R_UPDATE], 0, 4 * h);        // RZ = R Z + a R; R = Z RZ + a RZ
      add (c, 0, 4 * h);
    }
    if (i == s - 1)
    {
      add (F->term[MUON_FLOPS_FINAL_QX], 2, 0);            // X = Q X
      add (c, 2, 0);
    }
    add (F->gram, c[0], c[1]);
    if (gram_steps)
    {
      gram_steps[2 * i] = c[0];
      gram_steps[2 * i + 1] = c[1];
    }
  }
}

muon_status muon_ns_flop_model_get (muon_ctx *ctx, int steps, const int *restarts,
                                    int nrestarts, int symmetric, muon_ns_flop_model *F,
                                    double *gram_steps, int *restarted)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, F != NULL && (nrestarts == 0 || restarts != NULL),
         "the model and the restart list must not be NULL");
  CHECK (MUON_ERR_BADARG, steps >= 1 && steps <= MUON_MAX_STEPS,
         "steps must be an integer from 1 to %d", MUON_MAX_STEPS);
  CHECK (MUON_ERR_BADARG, nrestarts >= 0, "the restart count must not be negative");
  for (int k = 0; k < nrestarts; k++)
    CHECK (MUON_ERR_BADARG, restarts[k] >= 0, "restart indices must be non-negative");
  CHECK (MUON_ERR_BADARG, symmetric == 0 || symmetric == 1, "symmetric must be 0 or 1");
  model (steps, restarts, nrestarts, symmetric, F, gram_steps, restarted);
fail:
  return status;
}

double muon_ns_flops_count (const double c[2], double rows, double cols)
{
  if (c == NULL)                                   // no status to return: NaN says it
    return NAN;
  double n = rows < cols ? rows : cols, m = rows < cols ? cols : rows;
  return c[0] * (m * (n * n)) + c[1] * (n * n * n);
}

double muon_ns_flops_matrix (size_t rows, size_t cols, const muon_ns_opts *o, int symmetric)
{
  muon_ns_opts d;
  muon_ns_flop_model F;
  if (o == NULL)
  {
    muon_ns_opts_default (&d);
    o = &d;
  }
  int s;
  if (muon_ns_check_flop_opts (NULL, o, &s) < 0)   // what muon_ns refuses: no status, NaN
    return NAN;
  model (s, o->restarts, o->nrestarts, symmetric != 0, &F, NULL, NULL);
  return muon_ns_flops_count (muon_ns_uses_gram (rows, cols, o) ? F.gram : F.standard,
                              (double) rows, (double) cols);
}
