/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* coeffs.c - named Newton-Schulz coefficient schedules and their expansion to a step count.
 *
 * Each triple (a, b, c) is one step X <- a X + b (X X') X + c (X X')^2 X, i.e. the scalar map
 * x -> a x + b x^3 + c x^5 on every singular value.  Sources (MUON_FACTS.md):
 *   keller              2, 1.2    the constant quintic of KellerJordan/Muon and DeepSpeed
 *   you                 4.1       You Jiacheng's 5-step schedule (Dao YOU_COEFFICIENTS, EO quintic)
 *   eo_quintic          6.2       the same triples under Emerging-Optimizers' name (its
 *                                 coefficient_type="quintic", the NS_EO of issue 27)
 *   polar_express       4.1       Dao's Polar Express values with safety 1.05: (a/s, b/s^3, c/s^5)
 *   polar_express_dion  6.1       microsoft/dion, safety 1.02 baked in
 *   polar_express_eo    6.2       Emerging-Optimizers, 8 steps, safety 1.01^degree baked in
 *   cans, aol           6.2       Emerging-Optimizers
 *   deepseekv4          6.2       8 x keller then 2 x (2, -1.5, 0.5)
 *   cubic5              6.2       c = 0 (cubic steps)
 */
#include <stdint.h>
#include <string.h>

#include "math_internal.h"

#define PE_S 1.05
#define PE(a, b, c) { (a) / PE_S, (b) / (PE_S * PE_S * PE_S), (c) / (PE_S * PE_S * PE_S * PE_S * PE_S) }
#define KELLER { 3.4445, -4.7750, 2.0315 }

static const double keller[][3] = { KELLER };

static const double you[][3] = {
  { 4.0848, -6.8946, 2.9270 }, { 3.9505, -6.3029, 2.6377 }, { 3.7418, -5.5913, 2.3037 },
  { 2.8769, -3.1427, 1.2046 }, { 2.8366, -3.0525, 1.2012 } };

static const double polar_express[][3] = {
  PE (8.28721201814563, -23.595886519098837, 17.300387312530933),
  PE (4.107059111542203, -2.9478499167379106, 0.5448431082926601),
  PE (3.9486908534822946, -2.908902115962949, 0.5518191394370137),
  PE (3.3184196573706015, -2.488488024314874, 0.51004894012372),
  PE (2.300652019954817, -1.6689039845747493, 0.4188073119525673) };

static const double polar_express_dion[][3] = {
  { 8.156554524902461, -22.48329292557795, 15.878769915207462 },
  { 4.042929935166739, -2.808917465908714, 0.5000178451051316 },
  { 3.8916678022926607, -2.772484153217685, 0.5060648178503393 },
  { 3.285753657755655, -2.3681294933425376, 0.46449024233003106 },
  { 2.3465413258596377, -1.7097828382687081, 0.42323551169305323 } };

static const double polar_express_eo[][3] = {
  { 8.2051, -22.9019, 16.4607 }, { 4.0664, -2.8612, 0.5184 }, { 3.9096, -2.8234, 0.5250 },
  { 3.2856, -2.4153, 0.4853 },   { 2.2779, -1.6198, 0.3985 }, { 1.8726, -1.2307, 0.3585 },
  { 1.8564, -1.2132, 0.3568 },   { 1.8750, -1.2500, 0.3750 } };

static const double cans[][3] = {
  { 8.4703, -25.1081, 18.6293 }, { 4.1828, -3.1087, 0.5806 }, { 3.9619, -2.9541, 0.5630 },
  { 3.2866, -2.4647, 0.5074 },   { 2.2737, -1.6447, 0.4162 } };

static const double aol[][3] = {
  { 4.0098, -7.0585, 2.4635 }, { 3.4585, -5.5479, 2.5959 }, { 2.7573, -3.2939, 1.4254 },
  { 2.7215, -3.0494, 1.3169 } };

static const double deepseekv4[][3] = {
  KELLER, KELLER, KELLER, KELLER, KELLER, KELLER, KELLER, KELLER,
  { 2.0, -1.5, 0.5 }, { 2.0, -1.5, 0.5 } };

static const double cubic5[][3] = {
  { 3.3656576, -3.3420992, 0 }, { 2.5744352, -1.4957376, 0 }, { 2.5368962, -1.4312570, 0 },
  { 2.4418906, -1.2764040, 0 }, { 2.2230472, -0.9630650, 0 } };

#define ENTRY(t) { #t, &t[0][0], (int) (sizeof t / sizeof t[0]) }
static const struct { const char *name; const double *triples; int count; } table[] = {
  ENTRY (keller), ENTRY (you), ENTRY (polar_express), ENTRY (polar_express_dion),
  ENTRY (polar_express_eo), ENTRY (cans), ENTRY (aol), ENTRY (deepseekv4), ENTRY (cubic5),
  { "eo_quintic", &you[0][0], (int) (sizeof you / sizeof you[0]) } };
#define NTABLE ((int) (sizeof table / sizeof table[0]))

int muon_coeffs_count (void)
{
  return NTABLE;
}

const char *muon_coeffs_name (int i)
{
  return (i >= 0 && i < NTABLE) ? table[i].name : NULL;
}

muon_status muon_coeffs_lookup (muon_ctx *ctx, const char *name, const double **triples,
                                int *count)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, name != NULL && triples != NULL && count != NULL,
         "name, triples and count must not be NULL");
  for (int i = 0; i < NTABLE; i++)
    if (strcmp (name, table[i].name) == 0)
    {
      *triples = table[i].triples;
      *count = table[i].count;
      return MUON_OK;
    }
  CHECK (MUON_ERR_BADARG, 0, "unknown coefficient schedule '%s'", name);
fail:
  return status;
}

int muon_coeffs_default_steps (int count)
{
  return count == 1 ? 5 : count;
}

muon_status muon_coeffs_expand (muon_ctx *ctx, const double *triples, int count, int steps,
                                muon_schedule_mode mode, double *out)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, triples != NULL && out != NULL, "triples and out must not be NULL");
  CHECK (MUON_ERR_BADARG, count >= 1, "a schedule needs at least one triple");
  CHECK (MUON_ERR_BADARG, steps >= 1, "steps must be a positive integer");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_SCHEDULE_MODE_LIST, mode),
         "unknown schedule mode %d", (int) mode);
  // In place (out == triples) each triple is written before a later step reads it back
  // unchanged; a shifted overlap would read triples already overwritten.
  uintptr_t o = (uintptr_t) out, t = (uintptr_t) triples;
  size_t out_bytes = 3 * (size_t) steps * sizeof *out, t_bytes = 3 * (size_t) count * sizeof *out;
  CHECK (MUON_ERR_BADARG, o == t || o >= t + t_bytes || t >= o + out_bytes,
         "out must be triples itself or not overlap it");
  for (int k = 0; k < steps; k++)
  {
    int src = k < count ? k : (mode == MUON_SCHEDULE_CYCLE ? k % count : count - 1);
    memmove (out + 3 * k, triples + 3 * src, 3 * sizeof *out);
  }
fail:
  return status;
}
