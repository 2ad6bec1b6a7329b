/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_steps_emu.h - the primitives of the CUDA back end's order of operations
 * (core/gpu/ns_cuda_steps.h) as plain loops with the semantics of the cuBLAS calls and
 * kernels of core/gpu/ns_cuda_iter.cu: column-major storage, alpha and beta applied in the
 * accumulation type, C not read where beta is 0, SYRK writing the upper triangle only, one
 * rounding of a 16-bit output, elementwise passes over the pages and the padding between
 * them.  Found by argument-dependent lookup on muon_emu::emu_run, as the CUDA ones are on
 * muon_cuda::run.  For tests/c/test_ns_steps.cc.
 */
#ifndef MUON_NS_STEPS_EMU_H
#define MUON_NS_STEPS_EMU_H

#include <cmath>
#include <cstdint>
#include <cstring>

#include "muon.h"
#include "muon_precision.h"
#include "ns_cuda_norm.h"
#include "ns_cuda_steps.h"

namespace muon_emu {

using muon_cuda::num;

struct emu_run {
  int p;                       // muon_precision
  size_t n, m;
  int sym_blocks, fused, pages;
  size_t sx, sn;
};

inline double ld (int, double x) { return x; }
inline float ld (int, float x) { return x; }
inline float ld (int p, uint16_t h)
{
  return p == MUON_PREC_BF16 ? muon_bf16_bits_to_f32 (h) : muon_fp16_bits_to_f32 (h);
}

inline void st (int, double v, double *out) { *out = v; }
inline void st (int, float v, float *out) { *out = v; }
inline void st (int p, float v, uint16_t *out)       // cuBLAS's one rounding to 16 bits
{
  *out = p == MUON_PREC_BF16 ? muon_f32_to_bf16_bits (v) : muon_f32_to_fp16_bits (v);
}

inline double rnd (int, double x) { return x; }
inline float rnd (int p, float x) { return muon_round_to (p, x); }

inline size_t stride_of (const emu_run &R, size_t len)
{
  return len == R.n * R.n ? R.sn : R.sx;
}

inline size_t span (const emu_run &R, size_t len)
{
  return R.pages > 1 ? (R.pages - 1) * stride_of (R, len) + len : len;
}

// C (M x N, ldc) = alpha A op(B) + beta C, A M x K (lda), op(B) = B (K x N) or B' (B N x K,
// trans), accumulated in F; upper: only the elements on and above the diagonal (SYRK).
template <typename T, typename F>
void gemm (int p, int trans, int upper, size_t M, size_t N, size_t K, F alpha, const T *A,
           size_t lda, const T *B, size_t ldb, F beta, T *C, size_t ldc)
{
  for (size_t j = 0; j < N; j++)
    for (size_t i = 0; i < M && (!upper || i <= j); i++)
    {
      F acc = 0;
      for (size_t k = 0; k < K; k++)
        acc += (F) ld (p, A[i + k * lda]) * (F) ld (p, trans ? B[j + k * ldb] : B[k + j * ldb]);
      F v = alpha * acc;
      if (beta != 0)
        v += beta * (F) ld (p, C[i + j * ldc]);
      st (p, v, &C[i + j * ldc]);
    }
}

// C's lower triangle = its upper one, each page.
template <typename T>
muon_status mirror (emu_run &R, T *C, size_t n)
{
  for (int e = 0; e < R.pages; e++)
    for (size_t j = 0; j < n; j++)
      for (size_t i = j + 1; i < n; i++)
        C[e * R.sn + i + j * n] = C[e * R.sn + j + i * n];
  return MUON_OK;
}

// C (n x n, each page) = alpha A A' + beta C: SYRK's upper triangle on one page, the full
// product on a batch (no batched SYRK), then the mirror.
template <typename T>
muon_status gram_product_as (emu_run &R, T alpha, const T *A, size_t n, size_t k, T beta, T *C)
{
  for (int e = 0; e < R.pages; e++)
    gemm (R.p, 1, R.pages == 1, n, n, k, alpha, A + e * stride_of (R, n * k), n,
          A + e * stride_of (R, n * k), n, beta, C + e * R.sn, n);
  return mirror (R, C, n);
}

muon_status gram_product (emu_run &R, double alpha, const double *A, size_t n, size_t k,
                          double beta, double *C)
{
  return gram_product_as (R, alpha, A, n, k, beta, C);
}

muon_status gram_product (emu_run &R, float alpha, const float *A, size_t n, size_t k,
                          float beta, float *C)
{
  return gram_product_as (R, alpha, A, n, k, beta, C);
}

muon_status gram_block (emu_run &R, float alpha, const uint16_t *A, size_t n, size_t k,
                        size_t r0, size_t h1, size_t c0, size_t h2, float beta, uint16_t *C)
{
  for (int e = 0; e < R.pages; e++)
  {
    const uint16_t *Ae = A + e * stride_of (R, n * k);
    gemm (R.p, 1, 0, h1, h2, k, alpha, Ae + r0, n, Ae + c0, n, beta,
          C + e * R.sn + r0 + c0 * n, n);
  }
  return MUON_OK;
}

muon_status gram_product (emu_run &R, float alpha, const uint16_t *A, size_t n, size_t k,
                          float beta, uint16_t *C)
{
  return muon_cuda::gram_blocks (R, alpha, A, n, k, beta, C);
}

// C = alpha A B + beta C, A n x n (pages R.sn apart), B and C n x k.
template <typename T, typename F>
muon_status product_as (emu_run &R, const T *A, const T *B, size_t n, size_t k, T *C, F beta,
                        F alpha)
{
  size_t s = stride_of (R, n * k);
  for (int e = 0; e < R.pages; e++)
    gemm (R.p, 0, 0, n, k, n, alpha, A + e * R.sn, n, B + e * s, n, beta, C + e * s, n);
  return MUON_OK;
}

muon_status product (emu_run &R, const double *A, const double *B, size_t n, size_t k,
                     double *C, double beta = 0, double alpha = 1)
{
  return product_as (R, A, B, n, k, C, beta, alpha);
}

muon_status product (emu_run &R, const float *A, const float *B, size_t n, size_t k, float *C,
                     float beta = 0, float alpha = 1)
{
  return product_as (R, A, B, n, k, C, beta, alpha);
}

muon_status product (emu_run &R, const uint16_t *A, const uint16_t *B, size_t n, size_t k,
                     uint16_t *C, float beta = 0, float alpha = 1)
{
  return product_as (R, A, B, n, k, C, beta, alpha);
}

template <typename T>
muon_status copy (emu_run &R, T *dst, const T *src, size_t len)
{
  memmove (dst, src, span (R, len) * sizeof *dst);
  return MUON_OK;
}

template <typename T>
muon_status scale (emu_run &R, typename num<T>::acc s, const T *x, T *out, size_t len)
{
  for (size_t i = 0; i < span (R, len); i++)
    st (R.p, rnd (R.p, s * ld (R.p, x[i])), &out[i]);
  return MUON_OK;
}

inline double scale_add_el (int, double s, double x, double prod) { return s * x + prod; }
inline float scale_add_el (int p, float s, float x, float prod)
{
  if (p == MUON_PREC_BF16 || p == MUON_PREC_FP16)
    return muon_scale_add (p, s, x, prod);
  return s * x + prod;
}

template <typename T>
muon_status scale_add (emu_run &R, typename num<T>::acc s, const T *x, const T *prod, T *out,
                       size_t len)
{
  for (size_t i = 0; i < span (R, len); i++)
    st (R.p, scale_add_el (R.p, s, ld (R.p, x[i]), ld (R.p, prod[i])), &out[i]);
  return MUON_OK;
}

template <typename T>
muon_status clear_gaps (emu_run &, T *A, size_t len, size_t count)
{
  size_t pad = muon_cuda::padded (len);
  for (size_t a = 0; a < count; a++)
    for (size_t i = len; i < pad; i++)
      A[a * pad + i] = 0;
  return MUON_OK;
}

template <typename T>
muon_status add_diag (emu_run &R, typename num<T>::acc a, T *Q, size_t n)
{
  for (int e = 0; e < R.pages; e++)
    for (size_t d = 0; d < n; d++)
    {
      T *q = &Q[e * R.sn + d + d * n];
      st (R.p, rnd (R.p, ld (R.p, *q) + a), q);
    }
  return MUON_OK;
}

// The load kernels of ns_cuda.cu (k_sumsq, k_norm_finish, k_sumsq_scaled,
// k_norm_scaled_finish, k_load_page) on page g (rows x cols, column-major, the values the
// device reads, as doubles), serially: X (n x m, transposed when rows > cols) normalized,
// norm_plan deciding as on the device.  The sums run in index order (the device's tree adds
// in another).
template <typename T>
void load_page (int p, const muon_ns_opts *o, const double *g, size_t rows, size_t cols, T *X)
{
  typedef typename num<T>::acc A;
  int cast_first = !o->normalize_first;
  double sum = 0, amax = 0, scal[muon_cuda::NORM_SCALARS];
  int bad = 0;
  for (size_t at = 0; at < rows * cols; at++)
  {
    double w = cast_first ? (double) rnd (p, (A) g[at]) : g[at];
    sum += w * w;
    amax = fabs (w) > amax ? fabs (w) : amax;
    bad |= !std::isfinite (w);
  }
  muon_cuda::norm_plan (p, o->normalize_first, o->eps, sum, amax, bad, scal);
  if (scal[muon_cuda::NORM_SCALED] != 0)
  {
    double ssq = 0;
    for (size_t at = 0; at < rows * cols; at++)
    {
      double t = g[at] / amax;
      ssq += t * t;
    }
    muon_cuda::norm_scaled_finish (ssq, o->eps, scal);
  }
  size_t n = rows > cols ? cols : rows;
  A denom = (A) scal[muon_cuda::NORM_DENOM];
  for (size_t at = 0; at < rows * cols; at++)
  {
    size_t i = at % rows, j = at / rows;
    A c = cast_first ? rnd (p, (A) g[at]) : (A) g[at];
    A v = scal[muon_cuda::NORM_SCALED] != 0 ? (A) (g[at] / scal[muon_cuda::NORM_AMAX]
                                                   / scal[muon_cuda::NORM_DENOM])
                                            : c / denom;
    st (p, scal[muon_cuda::NORM_ZERO] != 0 ? (A) 0 : rnd (p, v),
        &X[rows > cols ? j + i * n : i + j * n]);
  }
}

}  // namespace muon_emu

#endif
