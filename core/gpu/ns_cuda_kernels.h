/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_cuda_kernels.h - the per-element maths and the kernels of NS on the GPU (C++, CUDA): the
 * work buffers' element types, the correctly rounded helpers, and the load, norm, store,
 * mirror and elementwise kernels of one page.  Included by ns_cuda.cu (the load, norm and
 * store) and ns_cuda_iter.cu (the rest).
 */
#ifndef MUON_NS_CUDA_KERNELS_H
#define MUON_NS_CUDA_KERNELS_H

#include <cstdint>

#include "cuda_state.h"
#include "muon_precision.h"
#include "ns_cuda_norm.h"
#include "ns_cuda_steps.h"

namespace muon_cuda {

//---- per-element maths (muon_precision.h) and correctly rounded fp64 / fp32 helpers --------
// nvcc contracts a * b + c into an FMA by default; the CPU core is built with
// -ffp-contract=off, so the unrounded paths spell out each rounding with the _rn intrinsics.
//
// Work buffers hold elements of type T: double and float hold their values; uint16_t holds
// the bits of a bf16 / fp16 value (the precision p says which), loaded into fp32 (exact),
// combined there and stored back after rounding (exact again).  acc<T> is the type the
// arithmetic runs in.

// (num<T>::acc: ns_cuda_steps.h)

__device__ __forceinline__ double val (int, double x) { return x; }
__device__ __forceinline__ float val (int, float x) { return x; }
__device__ __forceinline__ float val (int p, uint16_t h)
{
  return p == MUON_PREC_BF16 ? muon_bf16_bits_to_f32 (h) : muon_fp16_bits_to_f32 (h);
}

// v already holds a value of the precision: the store is exact.
template <typename T> __device__ T st (int p, typename num<T>::acc v);
template <> __device__ __forceinline__ double st<double> (int, double v) { return v; }
template <> __device__ __forceinline__ float st<float> (int, float v) { return v; }
template <> __device__ __forceinline__ uint16_t st<uint16_t> (int p, float v)
{
  return p == MUON_PREC_BF16 ? muon_f32_to_bf16_bits (v) : muon_f32_to_fp16_bits (v);
}

__device__ __forceinline__ double rnd (int, double x) { return x; }
__device__ __forceinline__ float rnd (int p, float x) { return muon_round_to (p, x); }
__device__ __forceinline__ double mul_rn (double a, double b) { return __dmul_rn (a, b); }
__device__ __forceinline__ float mul_rn (float a, float b) { return __fmul_rn (a, b); }
__device__ __forceinline__ double add_rn (double a, double b) { return __dadd_rn (a, b); }
__device__ __forceinline__ float add_rn (float a, float b) { return __fadd_rn (a, b); }
__device__ __forceinline__ double div_rn (double a, double b) { return __ddiv_rn (a, b); }
__device__ __forceinline__ float div_rn (float a, float b) { return __fdiv_rn (a, b); }

// r(r(s x) + r(prod)) in bf16 / fp16, s x + prod otherwise (as ns_impl.h's scale_add).
__device__ __forceinline__ double scale_add_el (int, double s, double x, double prod)
{
  return __dadd_rn (__dmul_rn (s, x), prod);
}

__device__ __forceinline__ float scale_add_el (int p, float s, float x, float prod)
{
  if (p == MUON_PREC_BF16 || p == MUON_PREC_FP16)
    return muon_scale_add (p, s, x, prod);
  return __fadd_rn (__fmul_rn (s, x), prod);
}

//---- kernels (grid-stride loops over size_t indices) --------------------------------------

// The value of element gv of a page as the normalization divides it: cast to the compute
// type and, in the cast-first order, rounded.
template <typename T, typename S>
__device__ __forceinline__ typename num<T>::acc cast_in (int p, int cast_first, S gv)
{
  typename num<T>::acc v = (typename num<T>::acc) gv;
  return cast_first ? rnd (p, v) : v;
}

// Per-block reductions of a page (rows x cols, leading dimension ld, storage type S) of the
// values divided (cast_in's in the cast-first order, G itself otherwise), into part: the
// fp64 sums of squares at part[b], the largest magnitudes at part[NORM_BLOCKS + b], and
// 1 at part[2 NORM_BLOCKS + b] where a value is not finite (else 0).
template <typename T, typename S>
__global__ void k_sumsq (int p, int cast_first, const S *g, size_t rows, size_t cols,
                         size_t ld, double *part)
{
  __shared__ double acc[THREADS], big[THREADS];
  __shared__ int odd[THREADS];
  double sum = 0, amax = 0;
  int bad = 0;
  FOR_EACH (at, rows * cols)
  {
    S gv = g[at % rows + at / rows * ld];
    double w = cast_first ? (double) cast_in<T> (p, 1, gv) : (double) gv;
    sum = __dadd_rn (sum, __dmul_rn (w, w));
    amax = fabs (w) > amax ? fabs (w) : amax;
    bad |= !isfinite (w);
  }
  acc[threadIdx.x] = sum;
  big[threadIdx.x] = amax;
  odd[threadIdx.x] = bad;
  __syncthreads ();
  for (int h = THREADS / 2; h > 0; h >>= 1)              // fixed tree: same sum every run
  {
    if ((int) threadIdx.x < h)
    {
      acc[threadIdx.x] = __dadd_rn (acc[threadIdx.x], acc[threadIdx.x + h]);
      double o = big[threadIdx.x + h];
      big[threadIdx.x] = o > big[threadIdx.x] ? o : big[threadIdx.x];
      odd[threadIdx.x] |= odd[threadIdx.x + h];
    }
    __syncthreads ();
  }
  if (threadIdx.x == 0)
  {
    part[blockIdx.x] = acc[0];
    part[NORM_BLOCKS + blockIdx.x] = big[0];
    part[2 * NORM_BLOCKS + blockIdx.x] = odd[0];
  }
}

// One thread: part[...] (k_sumsq's nb blocks) -> scal[NORM_*] (norm_plan).
static __global__ void k_norm_finish (int p, int normalize_first, double eps, const double *part,
                               int nb, double *scal)
{
  double sum = 0, amax = 0;
  int bad = 0;
  for (int b = 0; b < nb; b++)
  {
    sum = __dadd_rn (sum, part[b]);
    amax = part[NORM_BLOCKS + b] > amax ? part[NORM_BLOCKS + b] : amax;
    bad |= part[2 * NORM_BLOCKS + b] != 0;
  }
  norm_plan (p, normalize_first, eps, sum, amax, bad, scal);
}

// The scaled form only (scal[NORM_SCALED]; else nothing): per-block fp64 sums of
// (G / s)^2 into part[b].
template <typename S>
__global__ void k_sumsq_scaled (const S *g, size_t rows, size_t cols, size_t ld,
                                const double *scal, double *part)
{
  __shared__ double acc[THREADS];
  if (scal[NORM_SCALED] == 0)
    return;                                              // every thread of every block
  double amax = scal[NORM_AMAX], sum = 0;
  FOR_EACH (at, rows * cols)
  {
    double t = __ddiv_rn ((double) g[at % rows + at / rows * ld], amax);
    sum = __dadd_rn (sum, __dmul_rn (t, t));
  }
  acc[threadIdx.x] = sum;
  __syncthreads ();
  for (int h = THREADS / 2; h > 0; h >>= 1)
  {
    if ((int) threadIdx.x < h)
      acc[threadIdx.x] = __dadd_rn (acc[threadIdx.x], acc[threadIdx.x + h]);
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    part[blockIdx.x] = acc[0];
}

// One thread, the scaled form only: its divisors (norm_scaled_finish) from the sum.
static __global__ void k_norm_scaled_finish (double eps, const double *part, int nb, double *scal)
{
  if (scal[NORM_SCALED] == 0)
    return;
  double ssq = 0;
  for (int b = 0; b < nb; b++)
    ssq = __dadd_rn (ssq, part[b]);
  norm_scaled_finish (ssq, eps, scal);
}

// X (n x m, transposed when rows > cols) = r(cast_in (page) / denom), or in the scaled form
// r((G / s) / denom) divided in fp64; an all-zero page stays exactly zero (even with eps 0).
template <typename T, typename S>
__global__ void k_load_page (int p, int cast_first, const S *g, size_t rows, size_t cols,
                             size_t ld, int transposed, const double *scal, T *X)
{
  typedef typename num<T>::acc A;
  int zero = scal[NORM_ZERO] != 0, scaled = scal[NORM_SCALED] != 0;
  A denom = (A) scal[NORM_DENOM];
  double amax = scal[NORM_AMAX], wide = scal[NORM_DENOM];
  size_t n = transposed ? cols : rows;
  FOR_EACH (at, rows * cols)
  {
    size_t i = at % rows, j = at / rows;
    A v = scaled ? (A) __ddiv_rn (__ddiv_rn ((double) g[i + j * ld], amax), wide)
                 : div_rn (cast_in<T> (p, cast_first, g[i + j * ld]), denom);
    X[transposed ? j + i * n : i + j * n] = st<T> (p, zero ? (A) 0 : rnd (p, v));
  }
}

// X (n x m) -> page (rows x cols, leading dimension ld, storage type S), undoing the transpose; an all-zero
// input page gives +0 everywhere; counts non-finite values into *bad.
template <typename T, typename S>
__global__ void k_store_page (int p, const T *X, size_t rows, size_t cols, size_t ld,
                              int transposed, const double *scal, S *out,
                              unsigned long long *bad)
{
  typedef typename num<T>::acc A;
  size_t n = transposed ? cols : rows;
  int zero = scal[NORM_ZERO] != 0;
  unsigned long long count = 0;
  FOR_EACH (at, rows * cols)
  {
    size_t i = at % rows, j = at / rows;
    A v = zero ? (A) 0 : val (p, X[transposed ? j + i * n : i + j * n]);
    S w = (S) v;                    // counted as stored: a double past single's range is Inf
    out[i + j * ld] = w;
    count += !isfinite (w);
  }
  if (count)
    atomicAdd (bad, count);
}

// C (n x n): the strictly lower triangle = the transpose of the upper one.  SYRK fills only
// the upper triangle, and the upper triangle of the 16-bit X X' is the one the CPU keeps.
// One block of 32 x 8 threads per 32 x 32 tile on or below the diagonal, through shared
// memory, so reads and writes are both coalesced.
const int TILE = 32;

template <typename T>
__global__ void k_mirror (T *C, size_t n)
{
  __shared__ T tile[TILE][TILE + 1];
  size_t I = blockIdx.y, J = blockIdx.x;          // tile row, tile column
  if (J > I)
    return;
  unsigned x = threadIdx.x;
  for (unsigned y = threadIdx.y; y < TILE; y += blockDim.y)   // tile (J, I) of the upper
  {
    size_t r = TILE * J + x, c = TILE * I + y;
    if (r < n && c < n)
      tile[y][x] = C[r + c * n];
  }
  __syncthreads ();
  for (unsigned y = threadIdx.y; y < TILE; y += blockDim.y)   // tile (I, J) of the lower
  {
    size_t r = TILE * I + x, c = TILE * J + y;
    if (r < n && c < n && r > c)
      C[r + c * n] = tile[x][y];
  }
}

// out[i] = r(s x[i])
template <typename T>
__global__ void k_scale (int p, typename num<T>::acc s, const T *x, T *out, size_t len)
{
  FOR_EACH (i, len)
    out[i] = st<T> (p, rnd (p, mul_rn (s, val (p, x[i]))));
}

// out[i] = r(r(s x[i]) + r(prod[i])); out may alias x or prod.
template <typename T>
__global__ void k_scale_add (int p, typename num<T>::acc s, const T *x, const T *prod, T *out,
                             size_t len)
{
  FOR_EACH (i, len)
    out[i] = st<T> (p, scale_add_el (p, s, val (p, x[i]), val (p, prod[i])));
}

// Q = r(Q + a I), Q n x n.
template <typename T>
__global__ void k_add_diag (int p, typename num<T>::acc a, T *Q, size_t n)
{
  FOR_EACH (d, n)
    Q[d + d * n] = st<T> (p, rnd (p, add_rn (val (p, Q[d + d * n]), a)));
}

// The padding after each of count arrays of len elements laid pad elements apart (elements
// len..pad-1 of each; pad - len < 64) = +0.
template <typename T>
__global__ void k_clear_gaps (T *A, size_t len, size_t pad, size_t count)
{
  size_t gap = pad - len;
  FOR_EACH (at, count * gap)
    A[at / gap * pad + len + at % gap] = 0;
}

}  // namespace muon_cuda

#endif
