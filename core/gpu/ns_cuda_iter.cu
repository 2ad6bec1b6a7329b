/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_cuda_iter.cu - one page's Newton-Schulz iteration on an NVIDIA GPU (ns_cuda_iter.h), for
 * the pages of ns_cuda.cu: the primitives of ns_cuda_steps.h (which writes the order of
 * operations once, for this file and for the CPU test of that order) on cuBLAS and the
 * kernels, and the capture of an iteration as a CUDA graph.
 *
 * 'double' runs Dsyrk / Dgemm and 'single' Ssyrk / Sgemm.  bf16 and fp16 keep 16-bit work
 * buffers (the bit patterns of compute-precision values) and multiply them with
 * cublasGemmEx: 16-bit inputs, fp32 accumulation (no reduced-precision split-K), the output
 * rounded once to 16 bits by cuBLAS, which is the rounding the model gives a product.  The
 * elementwise steps load 16-bit values into fp32 (exactly), call the functions of
 * muon_precision.h, the very code the CPU tests exercise, and store the rounded result
 * (exactly).  With muon_ns_opts.fused each scale-add is instead the epilogue of its product
 * (cuBLAS's alpha and beta, after a copy of the addend), as torch.optim.Muon's addmm: no
 * elementwise pass in the iteration.
 */
#include <cstdint>
#include <cstdio>

#include "muon_precision.h"
#include "ns_cuda_iter.h"
#include "ns_cuda_kernels.h"
#include "ns_shared.h"

namespace muon_cuda {

//---- cuBLAS by element type ---------------------------------------------------------------

// The upper triangle of C = alpha A A' + beta C (A n x k), and C = alpha A B + beta C (A
// n x n, B n x k): alpha 1 and beta 0 but in the fused epilogues (muon_ns_opts.fused).
cublasStatus_t syrk (cublasHandle_t h, int n, int k, double alpha, const double *A,
                     double beta, double *C)
{
  return cublasDsyrk (h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, k, &alpha, A, n, &beta, C, n);
}

cublasStatus_t syrk (cublasHandle_t h, int n, int k, float alpha, const float *A, float beta,
                     float *C)
{
  return cublasSsyrk (h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, k, &alpha, A, n, &beta, C, n);
}

cublasStatus_t gemm (cublasHandle_t h, int n, int k, double alpha, const double *A,
                     const double *B, double beta, double *C)
{
  return cublasDgemm (h, CUBLAS_OP_N, CUBLAS_OP_N, n, k, n, &alpha, A, n, B, n, &beta, C, n);
}

cublasStatus_t gemm (cublasHandle_t h, int n, int k, float alpha, const float *A,
                     const float *B, float beta, float *C)
{
  return cublasSgemm (h, CUBLAS_OP_N, CUBLAS_OP_N, n, k, n, &alpha, A, n, B, n, &beta, C, n);
}

// The same over `pages` pages, strided-batched (muon_ns_opts.batched): C_e = alpha op(A_e)
// B_e + beta C_e with op(A) = A (n x n; B_e n x k, trans 0) or A A' (the n x k A_e is both
// operands, trans 1: the full n x n product, there being no batched SYRK); sa, sb, sc the
// page strides in elements.
cublasStatus_t gemm_batched (cublasHandle_t h, int trans, int n, int k, double alpha,
                             const double *A, long long sa, const double *B, long long sb,
                             double beta, double *C, long long sc, int pages)
{
  if (trans)
    return cublasDgemmStridedBatched (h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, k, &alpha, A, n, sa,
                                      A, n, sa, &beta, C, n, sc, pages);
  return cublasDgemmStridedBatched (h, CUBLAS_OP_N, CUBLAS_OP_N, n, k, n, &alpha, A, n, sa, B,
                                    n, sb, &beta, C, n, sc, pages);
}

cublasStatus_t gemm_batched (cublasHandle_t h, int trans, int n, int k, float alpha,
                             const float *A, long long sa, const float *B, long long sb,
                             float beta, float *C, long long sc, int pages)
{
  if (trans)
    return cublasSgemmStridedBatched (h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, k, &alpha, A, n, sa,
                                      A, n, sa, &beta, C, n, sc, pages);
  return cublasSgemmStridedBatched (h, CUBLAS_OP_N, CUBLAS_OP_N, n, k, n, &alpha, A, n, sa, B,
                                    n, sb, &beta, C, n, sc, pages);
}



// The page stride of a work array of len (n x m or n x n) elements a page, and the
// elements an elementwise op over all R.pages pages covers: the pages and the padding
// between them, whose values nothing reads.
inline size_t stride_of (const run &R, size_t len)
{
  return len == R.n * R.n ? R.sn : R.sx;     // n = m: the two strides are equal
}

inline size_t span (const run &R, size_t len)
{
  return R.pages > 1 ? (R.pages - 1) * stride_of (R, len) + len : len;
}

template <typename T>
muon_status scale (run &R, typename num<T>::acc s, const T *x, T *out, size_t len)
{
  errbuf &E = R.E;
  len = span (R, len);
  LAUNCH (k_scale<T><<<grid_for (len), THREADS, 0, R.st>>> (R.p, s, x, out, len));
  return MUON_OK;
}

template <typename T>
muon_status scale_add (run &R, typename num<T>::acc s, const T *x, const T *prod, T *out,
                       size_t len)
{
  errbuf &E = R.E;
  len = span (R, len);
  LAUNCH (k_scale_add<T><<<grid_for (len), THREADS, 0, R.st>>> (R.p, s, x, prod, out,
                                                                        len));
  return MUON_OK;
}

// C (n x n, each page) = its upper triangle mirrored
template <typename T>
muon_status mirror (run &R, T *C, size_t n)
{
  errbuf &E = R.E;
  unsigned tiles = (unsigned) ((n + TILE - 1) / TILE);
  for (int e = 0; e < R.pages; e++)
    LAUNCH (k_mirror<T><<<dim3 (tiles, tiles), dim3 (TILE, 8), 0, R.st>>> (C + e * R.sn, n));
  return MUON_OK;
}

template <typename T>
muon_status copy (run &R, T *dst, const T *src, size_t len)
{
  errbuf &E = R.E;
  CUDA_TRY (cudaMemcpyAsync (dst, src, span (R, len) * sizeof *dst, cudaMemcpyDeviceToDevice,
                             R.st));
  return MUON_OK;
}

// The padding after each of count arrays of len elements laid padded (len) apart = +0
template <typename T>
muon_status clear_gaps (run &R, T *A, size_t len, size_t count)
{
  errbuf &E = R.E;
  size_t pad = padded (len);
  if (pad > len)
    LAUNCH (k_clear_gaps<T><<<grid_for (count * (pad - len)), THREADS, 0, R.st>>> (A, len, pad,
                                                                                 count));
  return MUON_OK;
}

// Q = r(Q + a I), each page
template <typename T>
muon_status add_diag (run &R, typename num<T>::acc a, T *Q, size_t n)
{
  errbuf &E = R.E;
  for (int e = 0; e < R.pages; e++)
    LAUNCH (k_add_diag<T><<<grid_for (n), THREADS, 0, R.st>>> (R.p, a, Q + e * R.sn, n));
  return MUON_OK;
}

cudaDataType half_type (const run &R)
{
  return R.p == MUON_PREC_BF16 ? CUDA_R_16BF : CUDA_R_16F;
}

// C = r(alpha A A' + beta C), A n x k, C n x n symmetric (beta 0 but in the fused
// polynomial, where C holds A).  Double / single: SYRK (upper) and mirror.  bf16 / fp16:
// GemmEx of the 16-bit A with itself, fp32 accumulation, alpha and beta applied in fp32,
// the output rounded once to 16 bits by cuBLAS, the upper triangle mirrored.
// (Batched pages: the full product of each page, mirrored all the same.)
template <typename F>
muon_status gram_product_as (run &R, F alpha, const F *A, size_t n, size_t k, F beta, F *C)
{
  errbuf &E = R.E;
  if (R.pages > 1)
    CUBLAS_TRY (gemm_batched (R.blas, 1, (int) n, (int) k, alpha, A,
                              (long long) stride_of (R, n * k), NULL, 0, beta, C,
                              (long long) R.sn, R.pages));
  else
    CUBLAS_TRY (syrk (R.blas, (int) n, (int) k, alpha, A, beta, C));
  return mirror (R, C, n);
}

muon_status gram_product (run &R, double alpha, const double *A, size_t n, size_t k,
                          double beta, double *C)
{
  return gram_product_as (R, alpha, A, n, k, beta, C);
}

muon_status gram_product (run &R, float alpha, const float *A, size_t n, size_t k, float beta,
                          float *C)
{
  return gram_product_as (R, alpha, A, n, k, beta, C);
}

// C (rows r0.. of n, cols c0.., h1 x h2, leading dimension n) = r(alpha A1 A2' + beta C),
// A1 the rows r0.. and A2 the rows c0.. of A (n x k).
muon_status gram_block (run &R, float alpha, const uint16_t *A, size_t n, size_t k,
                        size_t r0, size_t h1, size_t c0, size_t h2, float beta, uint16_t *C)
{
  errbuf &E = R.E;
  if (R.pages > 1)
  {
    long long sa = (long long) stride_of (R, n * k), sc = (long long) R.sn;
    CUBLAS_TRY (cublasGemmStridedBatchedEx (R.blas, CUBLAS_OP_N, CUBLAS_OP_T, (int) h1,
                                            (int) h2, (int) k, &alpha, A + r0, half_type (R),
                                            (int) n, sa, A + c0, half_type (R), (int) n, sa,
                                            &beta, C + r0 + c0 * n, half_type (R), (int) n, sc,
                                            R.pages, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return MUON_OK;
  }
  CUBLAS_TRY (cublasGemmEx (R.blas, CUBLAS_OP_N, CUBLAS_OP_T, (int) h1, (int) h2, (int) k,
                            &alpha, A + r0, half_type (R), (int) n, A + c0, half_type (R),
                            (int) n, &beta, C + r0 + c0 * n, half_type (R), (int) n,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return MUON_OK;
}


muon_status gram_product (run &R, float alpha, const uint16_t *A, size_t n, size_t k,
                          float beta, uint16_t *C)
{
  return gram_blocks (R, alpha, A, n, k, beta, C);
}

// C = A B (alpha A B + beta C in the fused epilogues) with A n x n, B n x k: fp64 / fp32
// accumulation; the 16-bit products are rounded once to 16 bits (r(A B)), as the eager GEMM
// rounds its output.
// (Batched pages: A_e from the n x n arrays, B_e and C_e from the arrays of their shape.)
template <typename F>
muon_status product_as (run &R, const F *A, const F *B, size_t n, size_t k, F *C, F beta,
                        F alpha)
{
  errbuf &E = R.E;
  if (R.pages > 1)
    CUBLAS_TRY (gemm_batched (R.blas, 0, (int) n, (int) k, alpha, A, (long long) R.sn, B,
                              (long long) stride_of (R, n * k), beta, C,
                              (long long) stride_of (R, n * k), R.pages));
  else
    CUBLAS_TRY (gemm (R.blas, (int) n, (int) k, alpha, A, B, beta, C));
  return MUON_OK;
}

muon_status product (run &R, const double *A, const double *B, size_t n, size_t k, double *C,
                     double beta = 0, double alpha = 1)
{
  return product_as (R, A, B, n, k, C, beta, alpha);
}

muon_status product (run &R, const float *A, const float *B, size_t n, size_t k, float *C,
                     float beta = 0, float alpha = 1)
{
  return product_as (R, A, B, n, k, C, beta, alpha);
}

muon_status product (run &R, const uint16_t *A, const uint16_t *B, size_t n, size_t k,
                     uint16_t *C, float beta = 0, float alpha = 1)
{
  errbuf &E = R.E;
  if (R.pages > 1)
  {
    long long sb = (long long) stride_of (R, n * k);
    CUBLAS_TRY (cublasGemmStridedBatchedEx (R.blas, CUBLAS_OP_N, CUBLAS_OP_N, (int) n, (int) k,
                                            (int) n, &alpha, A, half_type (R), (int) n,
                                            (long long) R.sn, B, half_type (R), (int) n, sb,
                                            &beta, C, half_type (R), (int) n, sb, R.pages,
                                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return MUON_OK;
  }
  CUBLAS_TRY (cublasGemmEx (R.blas, CUBLAS_OP_N, CUBLAS_OP_N, (int) n, (int) k, (int) n,
                            &alpha, A, half_type (R), (int) n, B, half_type (R), (int) n, &beta,
                            C, half_type (R), (int) n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return MUON_OK;
}

// The iteration of one page in X (n x m), or of R.pages pages side by side: ns_cuda_steps.h's
// order of operations over the primitives above.
template <typename T>
muon_status iterate (run &R, const muon_ns_opts *o, const double *coef, int steps,
                     int use_gram, T *X)
{
  return iterate_steps (R, o, coef, steps, use_gram, X);
}

// A lane's iteration as one CUDA graph: captured (nothing runs) from the calls of one page
// (the same kernels and products on the same buffers, so the same bits), then launched
// once for each page the lane runs, the first included, which saves the host the dozens
// of launches of each.  A capture that fails leaves nothing queued and *exec NULL: the
// pages then run the calls directly.
template <typename T>
muon_status capture (run &R, const muon_ns_opts *o, const double *coef, int steps,
                     int use_gram, T *X, cudaGraphExec_t *exec)
{
  cudaStream_t st = R.st;
  cudaGraph_t g = NULL;
  *exec = NULL;
  if (cudaStreamBeginCapture (st, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
  {
    cudaGetLastError ();
    return MUON_OK;
  }
  char keep[1];                                   // a failed call's message is not the news
  errbuf quiet = {keep, sizeof keep};
  run C = R;
  C.E = quiet;
  muon_status s = iterate (C, o, coef, steps, use_gram, X);
  cudaError_t e = cudaStreamEndCapture (st, &g);
  if (s == MUON_OK && e == cudaSuccess && g)
    e = cudaGraphInstantiate (exec, g, 0);
  if (g)
    cudaGraphDestroy (g);
  if (s != MUON_OK || e != cudaSuccess)
  {
    *exec = NULL;
    cudaGetLastError ();                          // not sticky: clear it
  }
  return MUON_OK;
}

template muon_status iterate<double> (run &, const muon_ns_opts *, const double *, int, int,
                                      double *);
template muon_status iterate<float> (run &, const muon_ns_opts *, const double *, int, int,
                                     float *);
template muon_status iterate<uint16_t> (run &, const muon_ns_opts *, const double *, int, int,
                                        uint16_t *);
template muon_status capture<double> (run &, const muon_ns_opts *, const double *, int, int,
                                      double *, cudaGraphExec_t *);
template muon_status capture<float> (run &, const muon_ns_opts *, const double *, int, int,
                                     float *, cudaGraphExec_t *);
template muon_status capture<uint16_t> (run &, const muon_ns_opts *, const double *, int, int,
                                        uint16_t *, cudaGraphExec_t *);

}  // namespace muon_cuda
