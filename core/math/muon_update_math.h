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
