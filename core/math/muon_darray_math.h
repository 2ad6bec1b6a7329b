/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_darray_math.h - the per-element maths of device arrays, shared by the CPU stand-in
 * device (core/math/darray.c) and the CUDA kernels (core/gpu/ns_cuda.cu): loading and storing
 * one element of a storage class, and the counter-based normal generator of
 * muon_gpu ("randn", ...).
 *
 * Storage classes are the muon_precision values: 0 double, 1 single, 2 bf16, 3 fp16 (16-bit
 * patterns).  A store rounds the double once to nearest even in the class, as muon_round
 * does on the host: for the 16-bit classes through an fp32 rounded to odd, which carries
 * the sticky bit, so that the second rounding cannot land on a false tie.
 *
 * The generator: element i of a stream with seed s is a Box-Muller normal from two 53-bit
 * uniforms made by splitmix64 of the counter 2i and 2i+1 mixed with s.  It is a pure function
 * of (s, i): any element, on any device, in any order, with any number of threads.  The
 * device's log / sqrt / cos may differ from glibc's by an ulp, so a double-class stream on
 * CUDA can differ from the CPU one in the last bits (a single-class one almost never does).
 */
#ifndef MUON_DARRAY_MATH_H
#define MUON_DARRAY_MATH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "muon_precision.h"   // MUON_HD, the 16-bit roundings

// Bytes of one element of a storage class.
MUON_HD size_t muon_storage_bytes (int storage)
{
  return storage == 0 ? 8 : storage == 1 ? 4 : 2;
}

MUON_HD double muon_elem_load (int storage, const void *p, size_t i)
{
  switch (storage)
  {
  case 0: return ((const double *) p)[i];
  case 1: return (double) ((const float *) p)[i];
  case 2: return (double) muon_bf16_bits_to_f32 (((const uint16_t *) p)[i]);
  default: return (double) muon_fp16_bits_to_f32 (((const uint16_t *) p)[i]);
  }
}

// v rounded to fp32 toward zero, with the last bit set when that was inexact (round to
// odd); NaN and exact values pass as they are, overflow gives FLT_MAX with its sign.
MUON_HD float muon_f64_to_f32_odd (double v)
{
  float f = (float) v;
  if (v != v || (double) f == v)
    return f;
  uint32_t u = muon_f32_bits (f);
  if (fabs ((double) f) > fabs (v))            // rounded away from zero: step back
    u -= 1;
  return muon_bits_f32 (u | 1u);
}

MUON_HD void muon_elem_store (int storage, void *p, size_t i, double v)
{
  switch (storage)
  {
  case 0: ((double *) p)[i] = v; break;
  case 1: ((float *) p)[i] = (float) v; break;
  case 2: ((uint16_t *) p)[i] = muon_f32_to_bf16_bits (muon_f64_to_f32_odd (v)); break;
  default: ((uint16_t *) p)[i] = muon_f32_to_fp16_bits (muon_f64_to_f32_odd (v)); break;
  }
}

// Element i of muon_darray_ew's Z = X op Y (op 0 add, 1 sub) or X op a (2 mul, 3 div),
// as Octave computes it on host arrays of the class, or fma (a, X, Y) (op 4, torch's
// Y.add_ (X, alpha=a): fma / fmaf called by name, one rounding), rounded into the class:
// double in double; single, bf16 and fp16 in single with a rounded to single first, then
// rounded once into a 16-bit class.  The value is exact in the class, so a store keeps it.
MUON_HD double muon_ew_value (int op, int storage, const void *x, const void *y, double a,
                              size_t i)
{
  if (storage == 0)
  {
    double u = ((const double *) x)[i];
    if (op == 4)
      return fma (a, u, ((const double *) y)[i]);
    double v = op < 2 ? ((const double *) y)[i] : a;
    return op == 0 ? u + v : op == 1 ? u - v : op == 2 ? u * v : u / v;
  }
  float u = (float) muon_elem_load (storage, x, i);
  float v = op < 2 || op == 4 ? (float) muon_elem_load (storage, y, i) : (float) a;
  float r = op == 4 ? fmaf ((float) a, u, v)
          : op == 0 ? u + v : op == 1 ? u - v : op == 2 ? u * v : u / v;
  if (storage == 2)
    r = muon_bf16_bits_to_f32 (muon_f32_to_bf16_bits (r));
  else if (storage == 3)
    r = muon_fp16_bits_to_f32 (muon_f32_to_fp16_bits (r));
  return (double) r;
}

// The term of muon_darray_sumsq at i: X's element, or the difference X - Y in the class.
MUON_HD double muon_sumsq_term (int storage, const void *x, const void *y, size_t i)
{
  return y ? muon_ew_value (1, storage, x, y, 0.0, i) : muon_elem_load (storage, x, i);
}

// The raw-memory steps of the device ZeRO step (core/zero/zero_step_dev.c), in doubles.
// Column-major position of row-major element k of a rows x cols matrix (torch's flat order
// of an Octave matrix).
MUON_HD size_t muon_rm_at (size_t k, size_t rows, size_t cols)
{
  return (k % cols) * rows + k / cols;
}

// Element i of the fixed-order reduction of W blocks `stride` apart, as muon_comm.h defines
// it: in[i] + in[stride + i] + ... + in[(W - 1) stride + i] in rank order, then one division
// by div when div > 0.
MUON_HD double muon_block_sum_at (const double *in, int W, size_t stride, double div, size_t i)
{
  double acc = in[i];
  for (int q = 1; q < W; q++)
    acc = acc + in[(size_t) q * stride + i];
  return div > 0 ? acc / div : acc;
}

MUON_HD uint64_t muon_splitmix64 (uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A uniform in (0, 1): 53 random bits, never 0 (log stays finite).
MUON_HD double muon_uniform53 (uint64_t seed, uint64_t counter)
{
  uint64_t h = muon_splitmix64 (muon_splitmix64 (seed) ^ counter);
  return ((double) (h >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

// Element i of the standard normal stream with this seed.
MUON_HD double muon_randn_at (uint64_t seed, uint64_t i)
{
  double u1 = muon_uniform53 (seed, 2 * i), u2 = muon_uniform53 (seed, 2 * i + 1);
  return sqrt (-2.0 * log (u1)) * cos (6.283185307179586 * u2);
}

// One AdamW step of one element, in the class of the parameter (float or double), in the
// order and with the roundings of inst/private/opt_adamw.m run on host arrays (each scalar
// coefficient first rounded to the class, every operation rounded once):
//   m += c1 (g - m);  v += c2 (g g - v);  mh = m / bc1;  vh = v / bc2;
//   p = p decay;  p = p - lr (mh / (sqrt (vh) + eps))
// c = {c1 = 1 - beta1, c2 = 1 - beta2, bc1 = 1 - beta1^t, bc2 = 1 - beta2^t,
//      decay = 1 - lr wd, lr, eps}.
#define MUON_ADAMW_STEP(T, SQRT, p, g, m, v, c)                                     \
  do {                                                                          \
    T g_ = (g), m_ = (m), v_ = (v);                                             \
    m_ = m_ + (c)[0] * (g_ - m_);                                               \
    v_ = v_ + (c)[1] * (g_ * g_ - v_);                                          \
    T mh_ = m_ / (c)[2], vh_ = v_ / (c)[3];                                     \
    T p_ = (p) * (c)[4];                                                        \
    (p) = p_ - (c)[5] * (mh_ / (SQRT (vh_) + (c)[6]));                          \
    (m) = m_;                                                                   \
    (v) = v_;                                                                   \
  } while (0)

MUON_HD void muon_adamw_f64 (double *p, double g, double *m, double *v, const double c[7])
{
  MUON_ADAMW_STEP (double, sqrt, *p, g, *m, *v, c);
}

MUON_HD void muon_adamw_f32 (float *p, float g, float *m, float *v, const float c[7])
{
  MUON_ADAMW_STEP (float, sqrtf, *p, g, *m, *v, c);
}

#endif
