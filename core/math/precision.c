/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* precision.c - the precision emulation's array forms (muon_math.h): rounding an array to
 * bf16 / fp16 / single, the bf16 / fp16 bit patterns, and torch's fused add with alpha.  The scalar forms are the static
 * inline functions of muon_precision.h, shared with the CUDA kernels.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "math_internal.h"
#include "muon_precision.h"

// Whether the bytes [a, a + na) and [b, b + nb) share one, other than by starting at the
// same address (in place: each element is read before the writes reach it).
static int shifted_overlap (const void *a, size_t na, const void *b, size_t nb)
{
  uintptr_t x = (uintptr_t) a, y = (uintptr_t) b;
  return x != y && na > 0 && nb > 0 && x < y + nb && y < x + na;
}

muon_status muon_round_array (muon_ctx *ctx, muon_precision p, const double *x, double *y,
                              size_t n)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, n == 0 || (x != NULL && y != NULL), "x and y must not be NULL");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_PRECISION_LIST, p),
         "unknown precision %d", (int) p);
  CHECK (MUON_ERR_BADSHAPE, n <= SIZE_MAX / sizeof *x, "%zu elements do not fit in memory", n);
  CHECK (MUON_ERR_BADARG, !shifted_overlap (x, n * sizeof *x, y, n * sizeof *y),
         "y must be x itself or not overlap it");
  if (p == MUON_PREC_DOUBLE)
  {
    if (y != x)
      memmove (y, x, n * sizeof *y);
  }
  else
    for (size_t i = 0; i < n; i++)
      y[i] = (double) muon_round_to ((int) p, (float) x[i]);
fail:
  return status;
}

muon_status muon_fma_array (muon_ctx *ctx, muon_precision p, double a, const void *x, void *y,
                            size_t n)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, n == 0 || (x != NULL && y != NULL), "x and y must not be NULL");
  CHECK (MUON_ERR_BADARG, p == MUON_PREC_SINGLE || p == MUON_PREC_DOUBLE,
         "precision must be single or double");
  size_t w = p == MUON_PREC_SINGLE ? sizeof (float) : sizeof (double);
  CHECK (MUON_ERR_BADSHAPE, n <= SIZE_MAX / w, "%zu elements do not fit in memory", n);
  CHECK (MUON_ERR_BADARG, !shifted_overlap (x, n * w, y, n * w),
         "y must be x itself or not overlap it");
  if (p == MUON_PREC_SINGLE)
  {
    const float *xs = x;
    float *ys = y, af = (float) a;
    for (size_t i = 0; i < n; i++)
      ys[i] = fmaf (af, xs[i], ys[i]);
  }
  else
  {
    const double *xd = x;
    double *yd = y;
    for (size_t i = 0; i < n; i++)
      yd[i] = fma (a, xd[i], yd[i]);
  }
fail:
  return status;
}

// n values between fp32 (f) and their bf16 / fp16 bit patterns (h), into h when to_bits,
// else into f (the other array is only read).  In place (f and h at one address): to bits
// runs forward (h[i] covers half of f[i / 2], read already), to floats backward (f[i]
// covers h[2i] and h[2i + 1], read already for i > 0; h[0] is read before f[0] is written).
static muon_status convert_bits (muon_ctx *ctx, muon_precision p, int to_bits, float *f,
                                 uint16_t *h, size_t n)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, n == 0 || (f != NULL && h != NULL), "src and dst must not be NULL");
  CHECK (MUON_ERR_BADARG, p == MUON_PREC_BF16 || p == MUON_PREC_FP16,
         "precision must be bf16 or fp16");
  CHECK (MUON_ERR_BADSHAPE, n <= SIZE_MAX / sizeof *f, "%zu elements do not fit in memory", n);
  CHECK (MUON_ERR_BADARG, !shifted_overlap (f, n * sizeof *f, h, n * sizeof *h),
         "dst must start where src starts or not overlap it");
  if (to_bits)
    for (size_t i = 0; i < n; i++)
      h[i] = p == MUON_PREC_BF16 ? muon_f32_to_bf16_bits (f[i]) : muon_f32_to_fp16_bits (f[i]);
  else
    for (size_t i = n; i-- > 0;)
      f[i] = p == MUON_PREC_BF16 ? muon_bf16_bits_to_f32 (h[i]) : muon_fp16_bits_to_f32 (h[i]);
fail:
  return status;
}

muon_status muon_float_to_half_bits (muon_ctx *ctx, muon_precision p, const float *src,
                                     uint16_t *dst, size_t n)
{
  return convert_bits (ctx, p, 1, (float *) src, dst, n);
}

muon_status muon_half_bits_to_float (muon_ctx *ctx, muon_precision p, const uint16_t *src,
                                     float *dst, size_t n)
{
  return convert_bits (ctx, p, 0, dst, (uint16_t *) src, n);
}
