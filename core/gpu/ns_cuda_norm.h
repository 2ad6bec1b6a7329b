/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_cuda_norm.h - the per-page decisions of the GPU's normalization, as the CPU's load_page
 * (core/math/ns_impl.h) makes them: from the fp64 sum of squares, the largest magnitude and
 * the non-finite flag of what is divided, whether the page is all zero, and the plain
 * denominator, or the scaled form for a page whose sum (or fp32 norm) leaves its range:
 * X = r((G / s) / (sqrt (sum (G / s)^2) + eps / s)) in fp64 with s the largest magnitude,
 * so a huge or tiny finite page gives the scale-invariant answer instead of zeros or NaN
 * (muon_norm_scaled, shared with the CPU: a subnormal page, where eps / s overflows, is
 * G / (||G|| + eps)).
 * Plain host / device C++ (MUON_HD): the kernels of ns_cuda_kernels.h call it, and so does
 * the CPU port of those kernels in tests/c/test_ns_steps.cc.
 */
#ifndef MUON_NS_CUDA_NORM_H
#define MUON_NS_CUDA_NORM_H

#include <cfloat>
#include <cmath>

#include "muon_precision.h"

namespace muon_cuda {

// The scalars of one page the load and store kernels read, in this order.
enum { NORM_ZERO,      // 1: an all-zero page (the result is +0 everywhere, even with eps 0)
       NORM_DENOM,     // the denominator (of the acc type), or of the scaled form
       NORM_AMAX,      // the largest magnitude s (the scaled form: its first divisor)
       NORM_SCALED,    // 1: the scaled form (its denominator after a second pass)
       NORM_SCALARS };

// sum, amax, bad: of the values divided (r(G) in the peers' cast-first order, G otherwise).
// The scaled form needs a second pass for its denominator (norm_scaled_finish); the
// normalize-first order takes it, and 'double', where there is no cast, as on the CPU (the
// cast-first order of the low precisions overflows there, a bug reproduced on purpose).
MUON_HD void norm_plan (int p, int normalize_first, double eps, double sum, double amax,
                        int bad, double *scal)
{
  double root = sqrt (sum);
  int fits = bad || (p == MUON_PREC_DOUBLE ? sum >= DBL_MIN && sum <= DBL_MAX
                                           : root >= FLT_MIN && root <= FLT_MAX);
  scal[NORM_ZERO] = amax == 0 && !bad;
  scal[NORM_AMAX] = amax;
  scal[NORM_SCALED] = !fits && (normalize_first || p == MUON_PREC_DOUBLE);
  if (p == MUON_PREC_DOUBLE)
    scal[NORM_DENOM] = root + eps;                       // kept in fp64 for 'double'
  else if (normalize_first)                              // fl32(||G||) + fl32(eps)
    scal[NORM_DENOM] = (double) ((float) root + (float) eps);
  else                                                   // r(r(||r(G)||) + eps)
    scal[NORM_DENOM] = (double) muon_round_to (p, muon_round_to (p, (float) root) + (float) eps);
}

// The scaled form's two divisors from ssq = sum ((G / s)^2), in fp64, by the CPU's rule
// (muon_norm_scaled): the load divides by scal[NORM_AMAX] (s, or 1 where eps / s
// overflows), then by scal[NORM_DENOM].
MUON_HD void norm_scaled_finish (double ssq, double eps, double *scal)
{
  muon_norm_scaled (sqrt (ssq), eps, scal[NORM_AMAX], &scal[NORM_AMAX], &scal[NORM_DENOM]);
}

}  // namespace muon_cuda

#endif
