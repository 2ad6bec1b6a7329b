/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_update_torch.c - torch's momentum arithmetic (MUON_ARITH_TORCH, muon_update_math.h):
 * the per-element functions on fixed values that torch 2.15 wrote (CPU, AVX512, elements of
 * 100003-element tensors from torch.manual_seed (0) randn, beta 0.95: m.lerp_ (g, 1 - beta),
 * g.lerp (m, beta), m.mul_ (beta).add_ (g), g.add (m, alpha = beta)), including both lerp
 * branches and cases where the fused multiply-add differs from the unfused form; the option's
 * name list, validation, and muon_update with it against the per-element function; the
 * default FP64 arithmetic unchanged.
 */
#include <math.h>

#include "harness.h"
#include "muon.h"
#include "muon_update_math.h"

//---- the per-element maths against torch's values -------------------------------------------

static void test_elements (void)
{
  double beta = 0.95;
  // fp32, EMA: lerp_ (w = 1 - beta < 0.5: fmaf (w, g - m, m)); the unfused form is 1 ulp off
  double m = 0x1.624f06p-1, g = 0x1.d0cbf2p-1;
  T_EQ_DBL (muon_momentum_step_torch (0, 1, beta, m, g), 0x1.67d546p-1);
  float w = (float) (1 - beta);
  T_EQ_DBL ((double) ((float) m + w * ((float) g - (float) m)), 0x1.67d544p-1);
  T_EQ_DBL (muon_momentum_step_as (1, 0, 1, beta, m, g), 0x1.67d546p-1);
  // fp32, EMA Nesterov: g.lerp (m, beta), w = 0.95 >= 0.5: fmaf (w - 1, m - g, m)
  g = -0x1.6a672ep-1;
  m = 0x1.1c7e7cp-3;
  T_EQ_DBL (muon_nesterov_input_torch (0, 1, 1, beta, m, g), 0x1.8b93d6p-4);
  float b = (float) beta, mf = (float) m, gf = (float) g;
  T_EQ_DBL ((double) (mf - (mf - gf) * (1.0f - b)), 0x1.8b93d8p-4);   // unfused: 1 ulp off
  T_EQ_DBL (muon_nesterov_input_as (1, 0, 1, 1, beta, m, g), 0x1.8b93d6p-4);
  // fp32, SGD: mul_ (beta) rounded, add_ (g); Nesterov add (alpha = beta) is fmaf
  m = 0x1.6661fep-2;
  g = -0x1.d230bcp+0;
  T_EQ_DBL (muon_momentum_step_torch (1, 1, beta, m, g), -0x1.7d131p+0);
  m = -0x1.7d131p+0;
  T_EQ_DBL (muon_nesterov_input_torch (1, 1, 1, beta, m, g), -0x1.9e1b06p+1);
  T_EQ_DBL ((double) ((float) g + b * (float) m), -0x1.9e1b04p+1);    // unfused: 1 ulp off
  // bf16 (fp32 opmath, rounded to bf16): EMA momentum and Nesterov input, SGD momentum
  m = -0x1.26p+0;
  g = 0x1.66p-3;
  T_EQ_DBL (muon_momentum_step_torch (0, MUON_PREC_BF16, beta, m, g), -0x1.16p+0);
  T_EQ_DBL (muon_nesterov_input_torch (0, MUON_PREC_BF16, MUON_PREC_BF16, beta, -0x1.16p+0, g),
            -0x1.06p+0);
  T_EQ_DBL (muon_momentum_step_torch (1, MUON_PREC_BF16, beta, m, g), -0x1.d6p-1);
  m = -0x1.8p-5;
  g = -0x1.fp-3;
  T_EQ_DBL (muon_momentum_step_torch (0, MUON_PREC_BF16, beta, m, g), -0x1.dp-5);
  T_EQ_DBL (muon_nesterov_input_torch (0, MUON_PREC_BF16, MUON_PREC_BF16, beta, -0x1.dp-5, g),
            -0x1.0ep-4);
  // fp64 (fp64 opmath, fma)
  m = -0x1.281e69fecb9ffp+0;
  g = -0x1.499501dfdeaa8p+1;
  T_EQ_DBL (muon_momentum_step_torch (0, 0, beta, m, g), -0x1.3a4564e20ae9p+0);
  T_EQ_DBL (muon_nesterov_input_torch (0, 0, 0, beta, -0x1.3a4564e20ae9p+0, g),
            -0x1.4b84066d20a1ap+0);
  T_EQ_DBL (muon_momentum_step_torch (1, 0, beta, m, g), -0x1.d63d0dd27f634p+1);
  T_EQ_DBL (muon_nesterov_input_torch (1, 0, 0, beta, -0x1.d63d0dd27f634p+1, g),
            -0x1.8427811a523ep+2);
  // arith 0 is the fp64 formula, whatever pm and px say
  T_EQ_DBL (muon_momentum_step_as (0, 0, 2, beta, 1, 3), muon_momentum_step (0, beta, 1, 3));
  T_EQ_DBL (muon_nesterov_input_as (0, 1, 2, 2, beta, 1, 3),
            muon_nesterov_input (1, beta, 1, 3));
  // lerp's two branches: w = 0.5 takes the second (ATen: |w| < 0.5 first)
  T_EQ_DBL ((double) muon_lerp_f32 (1.0f, 3.0f, 0.5f), 2.0);
  T_EQ_DBL ((double) muon_lerp_f32 (1.0f, 3.0f, 0.25f), 1.5);
  T_EQ_DBL (muon_lerp_f64 (1, 3, 1), 3);                  // w = 1 gives end exactly
}

//---- names, defaults, validation -------------------------------------------------------------

static void test_option (void)
{
  muon_update_opts o;
  muon_update_opts_default (&o);
  T_EQ_INT (o.arith, MUON_ARITH_FP64);
  T_EQ_INT (o.g_class, MUON_PREC_DOUBLE);
  T_EQ_INT (o.m_class, MUON_PREC_DOUBLE);
  int v = -1;
  T_EQ_INT (muon_name_lookup (MUON_LIST_MOMENTUM_ARITH, "torch", &v), MUON_OK);
  T_EQ_INT (v, MUON_ARITH_TORCH);
  T_EQ_STR (muon_names (MUON_LIST_MOMENTUM_ARITH, MUON_ARITH_FP64), "fp64");
  T_EQ_INT (muon_list_size (MUON_LIST_MOMENTUM_ARITH), 2);

  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  double g[4] = { 1, 2, 3, 5 }, m[4] = { 0 }, u[4];
  muon_tensor G = muon_tensor_matrix (MUON_F64, g, 2, 2), M = muon_tensor_matrix (MUON_F64, m,
                                                                                    2, 2);
  muon_tensor U = muon_tensor_matrix (MUON_F64, u, 2, 2);
  o.arith = (muon_momentum_arith) 2;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &o), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "unknown momentum arithmetic 2");
  o.arith = MUON_ARITH_TORCH;
  o.form = MUON_MOMENTUM_SGD;
  o.g_class = MUON_PREC_BF16;
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &o), MUON_ERR_UNSUPPORTED);
  o.nesterov = 0;                                        // without Nesterov: mul_, add_ only
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &o), MUON_OK);
  o.g_class = MUON_PREC_SINGLE;                          // 16-bit classes only
  T_EQ_INT (muon_update (ctx, &G, &M, &U, &o), MUON_ERR_BADARG);
  muon_ctx_destroy (&ctx);
}

//---- muon_update with it ---------------------------------------------------------------------

// Three steps of a 5 x 7 single G under both forms, Nesterov on and off: M's bits are the
// per-element function's; U is muon_ns of the X the function gives (rounded to single) times
// the Keller scale 1.
static void test_update (void)
{
  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  enum { R = 5, C = 7, N = R * C };
  for (int form = 0; form < 2; form++)
    for (int nest = 0; nest < 2; nest++)
    {
      float m[N] = { 0 }, u[N], mref[N] = { 0 }, xref[N], uref[N], g[N];
      muon_update_opts o;
      muon_update_opts_default (&o);
      o.arith = MUON_ARITH_TORCH;
      o.form = (muon_momentum_form) form;
      o.nesterov = nest;
      int same_m = 1, fp64_differs = 0;
      float m64[N] = { 0 };
      for (int step = 0; step < 3; step++)
      {
        for (int i = 0; i < N; i++)
          g[i] = (float) sin (1.0 + i * 0.37 + step * 1.9);
        for (int i = 0; i < N; i++)
        {
          mref[i] = (float) muon_momentum_step_torch (form, 1, o.beta, mref[i], g[i]);
          xref[i] = nest ? (float) muon_nesterov_input_torch (form, 1, 1, o.beta, mref[i], g[i])
                         : mref[i];
          m64[i] = (float) muon_momentum_step (form, o.beta, m64[i], g[i]);
          fp64_differs |= m64[i] != mref[i];
        }
        muon_tensor G = muon_tensor_matrix (MUON_F32, g, R, C);
        muon_tensor M = muon_tensor_matrix (MUON_F32, m, R, C);
        muon_tensor U = muon_tensor_matrix (MUON_F32, u, R, C);
        T_EQ_INT (muon_update (ctx, &G, &M, &U, &o), MUON_OK);
        for (int i = 0; i < N; i++)
          same_m &= m[i] == mref[i];
        muon_tensor X = muon_tensor_matrix (MUON_F32, xref, R, C);
        muon_tensor Ur = muon_tensor_matrix (MUON_F32, uref, R, C);
        T_EQ_INT (muon_ns (ctx, &X, &Ur, &o.ns), MUON_OK);
        int same_u = 1;
        for (int i = 0; i < N; i++)
          same_u &= u[i] == uref[i];
        T_ASSERT_MSG (same_u, "form %d nesterov %d step %d: U", form, nest, step + 1);
      }
      T_ASSERT_MSG (same_m, "form %d nesterov %d: M", form, nest);
      if (form == 0)                 // the EMA's fp64 rounding differs somewhere in 3 steps
        T_ASSERT_MSG (fp64_differs, "form %d nesterov %d: fp64 M differs", form, nest);
    }
  muon_ctx_destroy (&ctx);
}

// muon_update_momentum: step 1 alone, M as muon_update leaves it, X the Nesterov input in
// X's type (or M without Nesterov); a shape error leaves M as it was.
static void test_momentum_only (void)
{
  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  enum { R = 3, C = 4, N = R * C };
  float g[N], m[N] = { 0 }, m2[N] = { 0 }, x[N], u[N];
  for (int i = 0; i < N; i++)
    g[i] = (float) cos (0.3 + i);
  muon_update_opts o;
  muon_update_opts_default (&o);
  o.arith = MUON_ARITH_TORCH;
  muon_tensor G = muon_tensor_matrix (MUON_F32, g, R, C), M = muon_tensor_matrix (MUON_F32, m,
                                                                                  R, C);
  muon_tensor M2 = muon_tensor_matrix (MUON_F32, m2, R, C), X = muon_tensor_matrix (MUON_F32, x,
                                                                                   R, C);
  muon_tensor U = muon_tensor_matrix (MUON_F32, u, R, C);
  T_EQ_INT (muon_update_momentum (ctx, &G, &M, &X, &o), MUON_OK);
  T_EQ_INT (muon_update (ctx, &G, &M2, &U, &o), MUON_OK);
  int same = 1;
  for (int i = 0; i < N; i++)
    same &= m[i] == m2[i] && m[i] == (float) muon_momentum_step_torch (0, 1, o.beta, 0, g[i])
            && x[i] == (float) muon_nesterov_input_torch (0, 1, 1, o.beta, m[i], g[i]);
  T_ASSERT (same);
  o.nesterov = 0;
  T_EQ_INT (muon_update_momentum (ctx, &G, &M, &X, &o), MUON_OK);
  same = 1;
  for (int i = 0; i < N; i++)
    same &= x[i] == m[i];
  T_ASSERT (same);
  float keep = m[0];
  X.rows = 2;
  T_EQ_INT (muon_update_momentum (ctx, &G, &M, &X, &o), MUON_ERR_BADSHAPE);
  T_ASSERT (m[0] == keep);
  muon_ctx_destroy (&ctx);
}

int main (int argc, char **argv)
{
  (void) argc;
  T_RUN (test_elements);
  T_RUN (test_option);
  T_RUN (test_update);
  T_RUN (test_momentum_only);
  return T_DONE (argv[0]);
}
