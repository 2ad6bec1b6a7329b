/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_precision.h - the per-element maths shared by the C core and the CUDA kernels.
 *
 * Round-to-nearest-even from fp32 to bf16 and fp16 (ties to even, fp16 subnormals, overflow
 * to +-Inf, NaN stays NaN), and the fused elementwise steps of Newton-Schulz.  Everything is
 * static inline and marked host+device under nvcc, so the CPU tests exercise the very code
 * the GPU kernels run.  Integer bit arithmetic, and for fp16 fp32 additions in the default
 * rounding mode (to nearest even), which nothing in muonlab changes.
 */
#ifndef MUON_PRECISION_H
#define MUON_PRECISION_H

#include <float.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define MUON_HD __host__ __device__ __forceinline__
#else
#define MUON_HD static inline
#endif

// The bits of an fp32 and back: the intrinsics on the device, memcpy (no aliasing) on the host.
#if defined(__CUDA_ARCH__)
MUON_HD uint32_t muon_f32_bits (float f) { return (uint32_t) __float_as_uint (f); }
MUON_HD float muon_bits_f32 (uint32_t u) { return __uint_as_float (u); }
#else
MUON_HD uint32_t muon_f32_bits (float f) { uint32_t u; memcpy (&u, &f, sizeof u); return u; }
MUON_HD float muon_bits_f32 (uint32_t u) { float f; memcpy (&f, &u, sizeof f); return f; }
#endif

//---- bf16: the top half of an fp32 ---------------------------------------------------------

MUON_HD uint16_t muon_f32_to_bf16_bits (float f)
{
  uint32_t u = muon_f32_bits (f);
  if ((u & 0x7fffffffu) > 0x7f800000u)          // NaN: keep sign and payload top, force quiet
    return (uint16_t) ((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);              // round half to even at bit 16; carries into
  return (uint16_t) (u >> 16);                  // the exponent, up to Inf, are correct
}

MUON_HD float muon_bf16_bits_to_f32 (uint16_t h)
{
  return muon_bits_f32 ((uint32_t) h << 16);
}

// Branch-free form of muon_bf16_bits_to_f32 (muon_f32_to_bf16_bits (f)).
MUON_HD float muon_round_bf16 (float f)
{
  uint32_t u = muon_f32_bits (f);
  uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  r = (u & 0x7fffffffu) > 0x7f800000u ? ((u | 0x00400000u) & 0xffff0000u) : r;
  return muon_bits_f32 (r);
}

//---- fp16: 1 sign, 5 exponent (bias 15), 10 mantissa bits ----------------------------------

MUON_HD uint16_t muon_f32_to_fp16_bits (float f)
{
  uint32_t u = muon_f32_bits (f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u)                          // NaN
    return (uint16_t) (sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u)                         // >= 65520 = midpoint(65504, 65536): Inf
    return (uint16_t) (sign | 0x7c00u);
  if (a >= 0x38800000u)                         // normal: |f| >= 2^-14
  {
    uint32_t r = a + 0xfffu + ((a >> 13) & 1u); // round half to even at bit 13
    return (uint16_t) (sign | ((r - 0x38000000u) >> 13)); // rebias 127 -> 15
  }
  uint32_t e = a >> 23;                         // subnormal or zero result
  if (e < 102u)                                 // |f| < 2^-25: rounds to (signed) zero
    return (uint16_t) sign;
  uint32_t m = (a & 0x7fffffu) | 0x800000u;     // 24-bit significand
  uint32_t shift = 126u - e;                    // value / 2^-24 = m >> shift, shift in 14..24
  uint32_t q = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u)))
    q++;                                        // may reach 0x400, the smallest normal
  return (uint16_t) (sign | q);
}

MUON_HD float muon_fp16_bits_to_f32 (uint16_t h)
{
  uint32_t sign = ((uint32_t) h & 0x8000u) << 16;
  uint32_t e = ((uint32_t) h >> 10) & 0x1fu, m = (uint32_t) h & 0x3ffu;
  if (e == 0)                                   // zero or subnormal: m * 2^-24, exact in fp32
  {
    float v = (float) m * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (e == 31)
    return muon_bits_f32 (sign | 0x7f800000u | (m << 13));
  return muon_bits_f32 (sign | ((e + 112u) << 23) | (m << 13));
}

// The same value as muon_fp16_bits_to_f32 (muon_f32_to_fp16_bits (f)), branch-free so the
// elementwise loops vectorize: every lane computes the normal-range and the subnormal-range
// rounding and selects one.
MUON_HD float muon_round_fp16 (float f)
{
  uint32_t u = muon_f32_bits (f);
  uint32_t sign = u & 0x80000000u, a = u & 0x7fffffffu;
  // |f| >= 2^-14: keep 10 fraction bits, half to even; a carry into the exponent is right
  uint32_t normal = (a + 0xfffu + ((a >> 13) & 1u)) & ~0x1fffu;
  // |f| < 2^-14: multiples of 2^-24; 0.75 has an ulp of 2^-24 across 0.75 +- 2^-14, so the
  // fp32 adder rounds half to even onto that grid (0.75 / 2^-24 is even), and the
  // subtraction is exact
  uint32_t sub = muon_f32_bits ((muon_bits_f32 (a) + 0.75f) - 0.75f);
  uint32_t out = a < 0x38800000u ? sub : normal;
  out = a >= 0x477ff000u ? 0x7f800000u : out;                          // overflow: Inf
  out = a > 0x7f800000u ? (0x7fc00000u | (a & 0x007fe000u)) : out;     // NaN: quiet
  return muon_bits_f32 (sign | out);
}

// Round an fp32 value to the compute precision p (0 double, 1 single, 2 bf16, 3 fp16, as
// muon_precision); double and single leave fp32 values unchanged.
MUON_HD float muon_round_to (int p, float f)
{
  return p == 2 ? muon_round_bf16 (f) : p == 3 ? muon_round_fp16 (f) : f;
}

//---- the fused elementwise steps of the eager-CUDA op sequence (DESIGN.md 4) ---------------
// r() rounds to the compute precision; inputs are already compute-precision values, products
// P come straight from an fp32-accumulating GEMM and are rounded here once, as the eager
// GEMM would round its output.

// r(r(s * x) + r(p)):  a X + B X,  b A + (c A) A,  a Q + Z Q,  a R + Z R, ...
MUON_HD float muon_scale_add (int p, float s, float x, float prod)
{
  return muon_round_to (p, muon_round_to (p, s * x) + muon_round_to (p, prod));
}

//---- the scaled form of the normalization -------------------------------------------------

// A page whose fp64 sum of squares leaves its range is normalized as X = (G / pre) / denom,
// from root = sqrt (sum ((G / amax)^2)) (amax: its largest magnitude): pre = amax and denom
// = root + eps / amax, the scale-invariant answer.  Where eps / amax overflows (amax below
// eps / DBL_MAX: subnormal entries, whose norm is nothing beside eps) that denominator is
// Inf and would give zeros: pre = 1 and denom = amax root + eps, i.e. G / (||G|| + eps).
// One rule for the CPU (ns_impl.h) and the CUDA kernels (ns_cuda_norm.h).
MUON_HD void muon_norm_scaled (double root, double eps, double amax, double *pre, double *denom)
{
  double e = eps / amax;
  if (e <= DBL_MAX)
  {
    *pre = amax;
    *denom = root + e;
  }
  else
  {
    *pre = 1;
    *denom = amax * root + eps;
  }
}

#endif
