/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_update_math.h - the per-element maths of the Muon update, shared by the C core
 * (core/math/update.c; the ZeRO steps' momentum on partitions and shards, zero_step_common.c
 * and zero_step_a2a.c) and the CUDA plug-in's update on device arrays (core/gpu/opt_cuda.cu):
 * momentum, Nesterov input and the update scale.
 *
 * Everything is static inline and marked host+device under nvcc (MUON_HD, as in
 * muon_precision.h), so the CPU tests exercise the very arithmetic the GPU kernels run.  The
 * arithmetic is fp64 whatever the storage type; the caller rounds once when it stores.  The
 * expressions keep the operand order of the peers' formulas (MUON_FACTS 1.4, 3, 8), so that a
 * plain Octave loop written the same way gives the same bits (core is built with
 * -ffp-contract=off: no fused multiply-add).
 *
 *   EMA, form 0 (Keller, DeepSpeed, torch, EO):  M = beta M + (1-beta) g,  X = (1-beta) g + beta M
 *   SGD, form 1 (Moonlight, Dion, xtuner, Dao):  M = beta M + g,           X = g + beta M
 *   without Nesterov the Newton-Schulz input is M itself.
 *
 * The "torch" arithmetic (MUON_ARITH_TORCH, muon_update's MomentumArith) runs torch's own
 * element-wise ops instead, as the peers write them (Keller, torch.optim.Muon, DeepSpeed:
 * buf.lerp_ (g, 1 - beta), g.lerp (buf, beta); Moonlight, Dion, xtuner: buf.mul_ (beta).add_ (g),
 * g.add (buf, alpha = beta)), in torch's opmath of M's class (fp64 for double, fp32 for single,
 * bf16 and fp16), every result rounded into its storage class (X into G's), with the fused
 * multiply-adds of torch's vectorized CPU kernels (AVX2, AVX512) and of its CUDA kernels, which
 * nvcc contracts.  Measured against torch 2.15 on 100003 random elements (the vector tails
 * too), 0 bits apart for lerp_ / lerp (fp32, bf16, fp16, fp64), mul_ then add_ (all four) and
 * add with alpha (fp32, fp64); torch's add with alpha on bf16 / fp16 tensors is not one rule
 * (its CPU vector body rounds alpha to the class and fuses, its scalar tails round the product
 * first: 6 of 100003 bf16 elements), so muon_update refuses TORCH for the SGD form with
 * Nesterov on 16-bit arrays.  torch's unvectorized CPU build (ATEN_CPU_CAPABILITY=default)
 * fuses none of them: 6133 of the 100003 fp32 lerp_ elements differ from it.  fma / fmaf are
 * called by name: the core is built with -ffp-contract=off, the plug-in with -fmad=false.
 */
#ifndef MUON_UPDATE_MATH_H
#define MUON_UPDATE_MATH_H

#include <math.h>

#include "muon_precision.h"   // MUON_HD

// New momentum from the old one m and the gradient g (form 0 EMA, 1 SGD).
MUON_HD double muon_momentum_step (int form, double beta, double m, double g)
{
  return form == 1 ? beta * m + g : beta * m + (1 - beta) * g;
}

// Newton-Schulz input of the Nesterov variant from g and the *new* momentum m.
MUON_HD double muon_nesterov_input (int form, double beta, double m, double g)
{
  return form == 1 ? g + beta * m : (1 - beta) * g + beta * m;
}

// torch's lerp (self, end, w) in fp32 and fp64 (ATen's Lerp.h: the branch on |w| < 0.5, each
// a fused multiply-add, as its vectorized kernels compute it).
MUON_HD float muon_lerp_f32 (float self, float end, float w)
{
  float d = end - self;
  return fabsf (w) < 0.5f ? fmaf (w, d, self) : fmaf (w - 1.0f, d, end);
}

MUON_HD double muon_lerp_f64 (double self, double end, double w)
{
  double d = end - self;
  return fabs (w) < 0.5 ? fma (w, d, self) : fma (w - 1.0, d, end);
}

// An fp32 value rounded into the storage class p (muon_precision: 0 double keeps it; 1
// single; 2 bf16, 3 fp16 round to nearest even).
MUON_HD double muon_torch_store (int p, float v)
{
  return p == 0 ? (double) v : (double) muon_round_to (p, v);
}

// torch's momentum step: M stored in class pm (0 double: fp64 opmath, else fp32), m a value
// of that class, g the gradient (converted to the opmath, as torch's ops read it).
MUON_HD double muon_momentum_step_torch (int form, int pm, double beta, double m, double g)
{
  if (pm == 0)
    return form == 1 ? beta * m + g : muon_lerp_f64 (m, g, 1 - beta);
  if (form == 1)           // mul_ (beta) rounded into the class, then add_ (g)
    return muon_torch_store (pm, (float) muon_torch_store (pm, (float) m * (float) beta)
                                 + (float) g);
  return muon_torch_store (pm, muon_lerp_f32 ((float) m, (float) g, (float) (1 - beta)));
}

// torch's Nesterov input from g and the *new* momentum m (a value of class pm, whose opmath
// it runs in), stored in G's class px.  SGD: g.add (buf, alpha = beta) = fma (beta, m, g).
MUON_HD double muon_nesterov_input_torch (int form, int pm, int px, double beta, double m,
                                          double g)
{
  if (pm == 0)
  {
    double x = form == 1 ? fma (beta, m, g) : muon_lerp_f64 (g, m, beta);
    return px == 0 ? x : muon_torch_store (px, (float) x);
  }
  float b = (float) beta;
  return muon_torch_store (px, form == 1 ? fmaf (b, (float) m, (float) g)
                                         : muon_lerp_f32 ((float) g, (float) m, b));
}

// The momentum step and the Nesterov input under arith (0 fp64, 1 torch; pm, px as above,
// read by torch only).
MUON_HD double muon_momentum_step_as (int arith, int form, int pm, double beta, double m, double g)
{
  return arith == 1 ? muon_momentum_step_torch (form, pm, beta, m, g)
                    : muon_momentum_step (form, beta, m, g);
}

MUON_HD double muon_nesterov_input_as (int arith, int form, int pm, int px, double beta, double m,
                                    double g)
{
  return arith == 1 ? muon_nesterov_input_torch (form, pm, px, beta, m, g)
                    : muon_nesterov_input (form, beta, m, g);
}

// Update scale of an orthogonalized rows x cols block (MUON_FACTS 8), times factor:
//   0 keller    sqrt (max (1, rows / cols))      Keller, DeepSpeed, torch "original"
//   1 rms       0.2 sqrt (max (rows, cols))      Moonlight, torch "match_rms_adamw"
//   2 spectral  sqrt (max (rows, cols))          EO "spectral" (Kimi)
//   3 unit_rms  sqrt (rows / cols)               EO "unit_rms_norm", Dion "spectral_norm"
//   4 none      1
// Returns NAN for an unknown rule.
MUON_HD double muon_update_scale_value (int rule, double rows, double cols, double factor)
{
  double hi = rows > cols ? rows : cols, r = rows / cols;
  switch (rule)
  {
  case 0: return factor * sqrt (r > 1 ? r : 1);
  case 1: return factor * (0.2 * sqrt (hi));
  case 2: return factor * sqrt (hi);
  case 3: return factor * sqrt (r);
  case 4: return factor;
  default: return NAN;
  }
}

#endif
