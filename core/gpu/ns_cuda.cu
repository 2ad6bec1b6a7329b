/* ns_cuda.cu - Newton-Schulz orthogonalization on an NVIDIA GPU with cuBLAS: the CUDA back end
 * of ns.c, built into libmuon_cuda.so and opened with dlopen by cuda_loader.c, which reaches it
 * only through muon_cuda_get_api (the ABI of ns_cuda_abi.h).
 *
 * Same algorithm, op order and rounding model as the CPU reference (ns.c, ns_impl.h, DESIGN.md
 * 4), with the same function structure: load_page, gram_product, product, poly, standard,
 * gram, store_page, batch.  'double' runs Dsyrk / Dgemm and 'single' Ssyrk / Sgemm.  bf16 and
 * fp16 keep 16-bit work buffers (the bit patterns of compute-precision values) and multiply
 * them with cublasGemmEx: 16-bit inputs, fp32 accumulation (no reduced-precision split-K), the
 * output rounded once to 16 bits by cuBLAS, which is the rounding the model gives a product.
 * The elementwise steps load 16-bit values into fp32 (exactly), call the functions of
 * muon_precision.h, the very code the CPU tests exercise, and store the rounded result
 * (exactly).  The restart and Gram decisions and the tensor checks are the CPU's own
 * (ns_shared.h, tensor_check.h).  With muon_ns_opts.fused each scale-add is instead the
 * epilogue of its product (cuBLAS's alpha and beta, after a copy of the addend), as
 * torch.optim.Muon's addmm: no elementwise pass in the iteration.
 *
 * Host tensors are staged page by page through pinned buffers on a copy stream, page k+1's
 * copy under page k's NS; device tensors are read and written in place, the pages of a stack
 * spread over LANES streams.  A stream that runs three pages or more replays its iteration
 * as a CUDA graph.  From n = 2048 (on a stack; 4096 alone) the 16-bit X X' is three blocks
 * of its upper triangle.  None of this changes which kernels a page runs, given its shape
 * and the number of pages: same bits on every lane, host or device.  The per-context state
 * (cuBLAS handles, streams, buffers grown on demand) lives across calls and is freed by
 * release.  Errors come back as MUON_ERR_CUDA / MUON_ERR_CUBLAS with
 * "file:line: call: text"; nothing prints, exits or aborts.
 *
 * One known difference from the CPU: the fp64 sum of squares of the norm is a deterministic
 * tree reduction rather than a column-major loop, so the fp32-rounded norm can differ from the
 * CPU's by one ulp when the two fp64 sums straddle an fp32 rounding boundary (rare: about
 * 1e-8 per page).
 */
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_state.h"
#include "muon_precision.h"
#include "ns_cuda_kernels.h"
#include "ns_shared.h"
#include "tensor_check.h"

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

//---- one run of ns: the state, the message buffer, the compute precision ------------------

struct run {
  ns_state *s;
  errbuf E;
  int p;                       // muon_precision
  size_t n, m;                 // the page after the transpose rule, n <= m
  int sym_blocks;              // X X' of 16-bit pages as three blocks (gram_product)
  int fused;                   // scale-adds in the products' epilogues (muon_ns_opts.fused)
  cudaStream_t st;             // the lane the page runs on: its stream, cuBLAS handle and
  cublasHandle_t blas;         // norm scratch
  double *small;
};

template <typename T>
muon_status scale (run &R, typename num<T>::acc s, const T *x, T *out, size_t len)
{
  errbuf &E = R.E;
  LAUNCH (k_scale<T><<<grid_for (len), THREADS, 0, R.st>>> (R.p, s, x, out, len));
  return MUON_OK;
}

template <typename T>
muon_status scale_add (run &R, typename num<T>::acc s, const T *x, const T *prod, T *out,
                       size_t len)
{
  errbuf &E = R.E;
  LAUNCH (k_scale_add<T><<<grid_for (len), THREADS, 0, R.st>>> (R.p, s, x, prod, out,
                                                                        len));
  return MUON_OK;
}

template <typename T>
muon_status mirror (run &R, T *C, size_t n)
{
  errbuf &E = R.E;
  unsigned tiles = (unsigned) ((n + TILE - 1) / TILE);
  LAUNCH (k_mirror<T><<<dim3 (tiles, tiles), dim3 (TILE, 8), 0, R.st>>> (C, n));
  return MUON_OK;
}

template <typename T>
muon_status copy (run &R, T *dst, const T *src, size_t len)
{
  errbuf &E = R.E;
  CUDA_TRY (cudaMemcpyAsync (dst, src, len * sizeof *dst, cudaMemcpyDeviceToDevice,
                             R.st));
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
muon_status gram_product (run &R, double alpha, const double *A, size_t n, size_t k,
                          double beta, double *C)
{
  errbuf &E = R.E;
  CUBLAS_TRY (syrk (R.blas, (int) n, (int) k, alpha, A, beta, C));
  return mirror (R, C, n);
}

muon_status gram_product (run &R, float alpha, const float *A, size_t n, size_t k, float beta,
                          float *C)
{
  errbuf &E = R.E;
  CUBLAS_TRY (syrk (R.blas, (int) n, (int) k, alpha, A, beta, C));
  return mirror (R, C, n);
}

// C (rows r0.. of n, cols c0.., h1 x h2, leading dimension n) = r(alpha A1 A2' + beta C),
// A1 the rows r0.. and A2 the rows c0.. of A (n x k).
muon_status gram_block (run &R, float alpha, const uint16_t *A, size_t n, size_t k,
                        size_t r0, size_t h1, size_t c0, size_t h2, float beta, uint16_t *C)
{
  errbuf &E = R.E;
  CUBLAS_TRY (cublasGemmEx (R.blas, CUBLAS_OP_N, CUBLAS_OP_T, (int) h1, (int) h2, (int) k,
                            &alpha, A + r0, half_type (R), (int) n, A + c0, half_type (R),
                            (int) n, &beta, C + r0 + c0 * n, half_type (R), (int) n,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return MUON_OK;
}

// With R.sym_blocks, the upper triangle only, in 2 x 2 blocks (3 of the 4, three quarters
// of the work; the split row a multiple of 64, so every block stays aligned).  Each block
// has a quarter of the output tiles, so the split pays only where the blocks still fill
// the GPU: n >= 4096, or n >= 2048 on a stack whose lanes run blocks side by side
// (sym_blocks_for; the rule sees only the shape, so host and device arrays get the same bits).
inline int sym_blocks_for (size_t n, size_t pages)
{
  return n >= 4096 || (n >= 2048 && pages >= (size_t) LANES);
}

muon_status gram_product (run &R, float alpha, const uint16_t *A, size_t n, size_t k,
                          float beta, uint16_t *C)
{
  if (!R.sym_blocks)
    TRY (gram_block (R, alpha, A, n, k, 0, n, 0, n, beta, C));
  else
  {
    size_t h = (n / 2 + 63) / 64 * 64;
    TRY (gram_block (R, alpha, A, n, k, 0, h, 0, h, beta, C));          // C11
    TRY (gram_block (R, alpha, A, n, k, 0, h, h, n - h, beta, C));      // C12
    TRY (gram_block (R, alpha, A, n, k, h, n - h, h, n - h, beta, C));  // C22
  }
  return mirror (R, C, n);                      // C21 = C12', and the blocks' lower halves
}

// C = A B (alpha A B + beta C in the fused epilogues) with A n x n, B n x k: fp64 / fp32
// accumulation; the 16-bit products are rounded once to 16 bits (r(A B)), as the eager GEMM
// rounds its output.
muon_status product (run &R, const double *A, const double *B, size_t n, size_t k, double *C,
                     double beta = 0, double alpha = 1)
{
  errbuf &E = R.E;
  CUBLAS_TRY (gemm (R.blas, (int) n, (int) k, alpha, A, B, beta, C));
  return MUON_OK;
}

muon_status product (run &R, const float *A, const float *B, size_t n, size_t k, float *C,
                     float beta = 0, float alpha = 1)
{
  errbuf &E = R.E;
  CUBLAS_TRY (gemm (R.blas, (int) n, (int) k, alpha, A, B, beta, C));
  return MUON_OK;
}

muon_status product (run &R, const uint16_t *A, const uint16_t *B, size_t n, size_t k,
                     uint16_t *C, float beta = 0, float alpha = 1)
{
  errbuf &E = R.E;
  CUBLAS_TRY (cublasGemmEx (R.blas, CUBLAS_OP_N, CUBLAS_OP_N, (int) n, (int) k, (int) n,
                            &alpha, A, half_type (R), (int) n, B, half_type (R), (int) n, &beta,
                            C, half_type (R), (int) n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return MUON_OK;
}

// The fused scale-add (muon_ns_opts.fused): out = r(s x + Zm B), the product's epilogue
// (cuBLAS's beta; the copy first, as torch's addmm into a new tensor).  Zm n x n, x and out
// n x k; out must not be Zm, B or x.
template <typename T>
muon_status product_add (run &R, typename num<T>::acc s, const T *x, const T *Zm, const T *B,
                         size_t n, size_t k, T *out)
{
  TRY (copy (R, out, x, n * k));
  return product (R, Zm, B, n, k, out, s);
}

// B = b A + c A A, rounded as r(r(b A) + r(r(c A) A)) in 16 bits.  P, B: n x n scratch.
// Fused: B = r(b A + c A A), once: in the symmetric product's epilogue where A is exactly
// symmetric (sym: the mirrored X X'), else in a general product's (the CPU's choice, ns_impl.h).
template <typename T>
muon_status poly (run &R, typename num<T>::acc b, typename num<T>::acc c, const T *A, int sym,
                  size_t n, T *P, T *B)
{
  typedef typename num<T>::acc F;
  if (R.fused)
  {
    TRY (copy (R, B, A, n * n));
    if (sym)
      return gram_product (R, c, A, n, n, (F) b, B);
    return product (R, A, A, n, n, B, b, c);
  }
  if (sizeof (T) == sizeof (uint16_t))
  {
    TRY (scale (R, c, A, B, n * n));         // B holds r(c A) for a moment
    TRY (product (R, B, A, n, n, P));        // P = r((c A) A): a general product, as eager torch
  }
  else
    TRY (gram_product (R, c, A, n, n, (F) 0, P));  // A symmetric: c A A' by SYRK, no
  return scale_add (R, b, A, P, B, n * n);          // rounding modelled
}

// Standard iteration: A = r(X X'); B = r(r(b A) + r(r(c A) A)); X = r(r(a X) + r(B X)).
// Fused: B = r(b A + c A A'), X = r(a X + B X), each the epilogue of its product; X and Y
// trade places every step (a product cannot write its own operand), and the result is
// copied back into X after an odd count.
template <typename T>
muon_status standard (run &R, const double *coef, int steps, T *X, T *Y, T *A, T *B, T *P)
{
  typedef typename num<T>::acc F;
  size_t n = R.n, m = R.m;
  T *X0 = X;
  for (int k = 0; k < steps; k++)
  {
    F a = (F) coef[3 * k], b = (F) coef[3 * k + 1], c = (F) coef[3 * k + 2];
    TRY (gram_product (R, (F) 1, X, n, m, (F) 0, A));
    TRY (poly (R, b, c, A, 1, n, P, B));
    if (R.fused)
    {
      TRY (product_add (R, a, X, B, X, n, m, Y));
      T *t = X;
      X = Y;
      Y = t;
    }
    else
    {
      TRY (product (R, B, X, n, m, Y));
      TRY (scale_add (R, a, X, Y, X, n * m));
    }
  }
  return X == X0 ? MUON_OK : copy (R, X0, X, n * m);
}

// Gram iteration, as ns_impl.h: everything but the first R, the restarts and the final Q X
// is n x n.  (Every product's output is already in the compute precision, so r(Q X) is the
// product itself.)  Fused: Z = r(b R + c R R), Q = r(a Q + Z Q), RZ = r(a R + Z R), R =
// r(a RZ + Z RZ), each the epilogue of a general product (R is only nearly symmetric); Q
// and P trade places.
template <typename T>
muon_status gram (run &R, const double *coef, int steps, const muon_ns_opts *o, T *X, T *Y,
                  T *Rg, T *Z, T *Q, T *RZ, T *P)
{
  typedef typename num<T>::acc F;
  errbuf &E = R.E;
  size_t n = R.n, m = R.m;
  int fresh = 1;                                  // Q is "None": start or just restarted
  TRY (gram_product (R, (F) 1, X, n, m, (F) 0, Rg));   // R = r(X X')
  for (int i = 0; i < steps; i++)
  {
    F a = (F) coef[3 * i], b = (F) coef[3 * i + 1], c = (F) coef[3 * i + 2];
    if (muon_ns_restart_before (i, o))
    {
      TRY (product (R, Q, X, n, m, Y));           // X = r(Q X); R = r(X X')
      TRY (copy (R, X, Y, n * m));
      TRY (gram_product (R, (F) 1, X, n, m, (F) 0, Rg));
      fresh = 1;
    }
    TRY (poly (R, b, c, Rg, 0, n, P, Z));         // Z = r(r(b R) + r(r(c R) R))
    if (fresh)
    {
      TRY (copy (R, Q, Z, n * n));                // Q = r(Z + a I)
      LAUNCH (k_add_diag<T><<<grid_for (n), THREADS, 0, R.st>>> (R.p, a, Q, n));
      fresh = 0;
    }
    else if (R.fused)
    {
      TRY (product_add (R, a, Q, Z, Q, n, n, P));
      T *t = Q;
      Q = P;
      P = t;
    }
    else
    {
      TRY (product (R, Z, Q, n, n, P));           // Q = r(r(a Q) + r(Z Q))
      TRY (scale_add (R, a, Q, P, Q, n * n));
    }
    if (i < steps - 1 && !muon_ns_restart_before (i + 1, o) && R.fused)
    {
      TRY (product_add (R, a, Rg, Z, Rg, n, n, RZ));
      TRY (product_add (R, a, RZ, Z, RZ, n, n, Rg));
    }
    else if (i < steps - 1 && !muon_ns_restart_before (i + 1, o))
    {
      TRY (product (R, Z, Rg, n, n, P));          // RZ = r(r(a R) + r(Z R))
      TRY (scale_add (R, a, Rg, P, RZ, n * n));
      TRY (product (R, Z, RZ, n, n, P));          // R = r(r(a RZ) + r(Z RZ))
      TRY (scale_add (R, a, RZ, P, Rg, n * n));
    }
  }
  TRY (product (R, Q, X, n, m, Y));               // X = r(Q X)
  return copy (R, X, Y, n * m);
}


//---- pages --------------------------------------------------------------------------------

size_t dtype_size (muon_dtype d)
{
  return d == MUON_F64 ? sizeof (double) : sizeof (float);
}

// Page e of t: the address of its first element (host or device, where t lives).
char *page_of (const muon_tensor *t, size_t e)
{
  return (char *) t->data + e * t->stride * dtype_size (t->dtype);
}

// X (n x m) = the page at g (rows x cols, leading dimension ld, type dt, on the device), cast,
// transposed and normalized: one pass for the sum of squares, one that divides; the sum and
// the denominator stay on the device (small), so no page waits for the host.
template <typename T, typename S>
muon_status load_page_as (run &R, const S *g, size_t rows, size_t cols, size_t ld,
                          const muon_ns_opts *o, T *X, int transposed)
{
  errbuf &E = R.E;
  int cast_first = !o->normalize_first;
  LAUNCH (k_sumsq<T, S><<<NORM_BLOCKS, THREADS, 0, R.st>>> (R.p, cast_first, g, rows, cols, ld,
                                                             R.small));
  LAUNCH (k_norm_finish<T><<<1, 1, 0, R.st>>> (R.p, o->normalize_first, o->eps, R.small,
                                                NORM_BLOCKS, R.small + NORM_BLOCKS));
  LAUNCH (k_load_page<T, S><<<grid_for (rows * cols), THREADS, 0, R.st>>> (
    R.p, cast_first, g, rows, cols, ld, transposed, R.small + NORM_BLOCKS, X));
  return MUON_OK;
}

template <typename T>
muon_status load_page (run &R, const void *g, muon_dtype dt, size_t rows, size_t cols,
                       size_t ld, const muon_ns_opts *o, T *X, int transposed)
{
  if (dt == MUON_F64)
    return load_page_as (R, (const double *) g, rows, cols, ld, o, X, transposed);
  return load_page_as (R, (const float *) g, rows, cols, ld, o, X, transposed);
}

// The page at out (rows x cols, leading dimension ld, type dt, on the device) = X (n x m),
// undoing the transpose; counts non-finite values.
template <typename T>
muon_status store_page (run &R, const T *X, int transposed, void *out, muon_dtype dt,
                        size_t rows, size_t cols, size_t ld)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  const double *scal = R.small + NORM_BLOCKS;
  unsigned grid = grid_for (rows * cols);
  if (dt == MUON_F64)
    LAUNCH (k_store_page<T, double><<<grid, THREADS, 0, R.st>>> (
      R.p, X, rows, cols, ld, transposed, scal, (double *) out, s->bad));
  else
    LAUNCH (k_store_page<T, float><<<grid, THREADS, 0, R.st>>> (
      R.p, X, rows, cols, ld, transposed, scal, (float *) out, s->bad));
  return MUON_OK;
}

// Host page e of t <-> a packed rows x cols buffer (the pinned staging), on several threads.
void pack_page (const muon_tensor *t, size_t e, void *packed)
{
  size_t es = dtype_size (t->dtype), w = t->rows * es;
  copy_columns (packed, w, page_of (t, e), t->ld * es, w, t->cols);
}

void unpack_page (const void *packed, muon_tensor *t, size_t e)
{
  size_t es = dtype_size (t->dtype), w = t->rows * es;
  copy_columns (page_of (t, e), t->ld * es, packed, w, w, t->cols);
}

// Host page e of G on its way to page_in[e % 2]: packed into pinned memory by the host (once
// the copy of page e - 2 has left that buffer), copied on the copy stream once the load of
// page e - 2 has read the device buffer; in_ready says when it has arrived.
muon_status stage_in (run &R, const muon_tensor *G, size_t e)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int b = (int) (e & 1);
  size_t bytes = G->rows * G->cols * dtype_size (G->dtype);
  CUDA_TRY (cudaEventSynchronize (s->in_ready[b]));
  pack_page (G, e, s->pin_in[b]);
  CUDA_TRY (cudaStreamWaitEvent (s->copy, s->in_used[b], 0));
  CUDA_TRY (cudaMemcpyAsync (s->page_in[b], s->pin_in[b], bytes, cudaMemcpyHostToDevice,
                             s->copy));
  CUDA_TRY (cudaEventRecord (s->in_ready[b], s->copy));
  return MUON_OK;
}

// Page e of the result, copied to pin_out[e % 2] on the copy stream, into the host tensor.
muon_status stage_out_finish (run &R, muon_tensor *out, size_t e)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int b = (int) (e & 1);
  CUDA_TRY (cudaEventSynchronize (s->out_copied[b]));
  unpack_page (s->pin_out[b], out, e);
  return MUON_OK;
}

// Elements rounded up to a multiple of 64, so every work matrix starts 128-byte aligned
// (cuBLAS's tensor-core kernels want 16).
inline size_t padded (size_t len)
{
  return (len + 63) / 64 * 64;
}

// The iteration of one page in X (n x m); work after X: Y (n x m), S1..S5 (n x n each).
template <typename T>
muon_status iterate (run &R, const muon_ns_opts *o, const double *coef, int steps,
                     int use_gram, T *X)
{
  size_t nm = padded (R.n * R.m), nn = padded (R.n * R.n);
  T *Y = X + nm, *S1 = Y + nm, *S2 = S1 + nn, *S3 = S2 + nn, *S4 = S3 + nn, *S5 = S4 + nn;
  if (use_gram)
    return gram (R, coef, steps, o, X, Y, S1, S2, S3, S4, S5);
  return standard (R, coef, steps, X, Y, S1, S2, S3);
}

// The iteration of every page after the first as one CUDA graph: captured from the first
// page's calls (the same kernels and products on the same buffers, so the same bits), then
// launched once a page, which saves the host the dozens of launches of each.  A capture
// that fails leaves nothing queued and *exec NULL: the pages then run the calls directly.
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

// Host tensors, on lane 0, through two staged pages: while the device runs page e, the host
// packs page e + 1 into pinned memory and the copy stream moves it, and the result of page
// e - 1 comes back the same way.
template <typename T>
muon_status host_pages (run &R, const muon_tensor *G, muon_tensor *out, const muon_ns_opts *o,
                        const double *coef, int steps, int use_gram, T *X,
                        cudaGraphExec_t graph)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int transposed = G->rows > G->cols;
  size_t rows = G->rows, cols = G->cols, pages = G->batch;
  size_t out_bytes = rows * cols * dtype_size (out->dtype);
  TRY (stage_in (R, G, 0));
  for (size_t e = 0; e < pages; e++)
  {
    int b = (int) (e & 1);
    CUDA_TRY (cudaStreamWaitEvent (R.st, s->in_ready[b], 0));
    TRY (load_page (R, s->page_in[b], G->dtype, rows, cols, rows, o, X, transposed));
    CUDA_TRY (cudaEventRecord (s->in_used[b], R.st));
    if (graph)
      CUDA_TRY (cudaGraphLaunch (graph, R.st));
    else
      TRY (iterate (R, o, coef, steps, use_gram, X));
    CUDA_TRY (cudaStreamWaitEvent (R.st, s->out_copied[b], 0));  // page_out[b] is free
    TRY (store_page (R, X, transposed, s->page_out[b], out->dtype, rows, cols, rows));
    CUDA_TRY (cudaEventRecord (s->out_ready[b], R.st));
    // page e + 1 goes on the copy stream before page e's way back, which waits for page e's
    // NS: so the copy in runs under that NS (and the host packs while the device computes)
    if (e + 1 < pages)
      TRY (stage_in (R, G, e + 1));
    if (e >= 2)
      TRY (stage_out_finish (R, out, e - 2));  // pin_out[b] is free
    CUDA_TRY (cudaStreamWaitEvent (s->copy, s->out_ready[b], 0));
    CUDA_TRY (cudaMemcpyAsync (s->pin_out[b], s->page_out[b], out_bytes,
                               cudaMemcpyDeviceToHost, s->copy));
    CUDA_TRY (cudaEventRecord (s->out_copied[b], s->copy));
  }
  for (size_t e = pages >= 2 ? pages - 2 : 0; e < pages; e++)
    TRY (stage_out_finish (R, out, e));
  return MUON_OK;
}

// Device tensors, read and written in place (any leading dimension and page stride), page e
// on lane e % L.
template <typename T>
muon_status device_pages (run *lanes, T **X, cudaGraphExec_t *graph, size_t L,
                          const muon_tensor *G, muon_tensor *out, const muon_ns_opts *o,
                          const double *coef, int steps, int use_gram)
{
  int transposed = G->rows > G->cols;
  for (size_t e = 0; e < G->batch; e++)
  {
    run &R = lanes[e % L];
    errbuf &E = R.E;
    T *Xe = X[e % L];                             // zero pages run on zeros, stored as +0
    TRY (load_page (R, page_of (G, e), G->dtype, G->rows, G->cols, G->ld, o, Xe, transposed));
    if (graph[e % L])
      CUDA_TRY (cudaGraphLaunch (graph[e % L], R.st));
    else
      TRY (iterate (R, o, coef, steps, use_gram, Xe));
    TRY (store_page (R, Xe, transposed, page_of (out, e), out->dtype, G->rows, G->cols,
                     out->ld));
  }
  return MUON_OK;
}

// A lane that runs GRAPH_FROM pages or more replays its iteration as a graph.
const size_t GRAPH_FROM = 3;

// The whole batch: host pages on lane 0, a device stack over up to LANES lanes that start
// after the main stream has cleared the non-finite count and join it at the end.  [out] *bad.
template <typename T>
muon_status batch (run &R, const muon_tensor *G, muon_tensor *out, const muon_ns_opts *o,
                   const double *coef, int steps, unsigned long long *bad)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int use_gram = muon_ns_gram_path (G->rows, G->cols, o);
  int host = G->device == MUON_DEVICE_CPU;
  size_t L = host || G->batch < 2 ? 1 : G->batch < (size_t) LANES ? G->batch : LANES;
  run lanes[LANES] = {R};
  T *X[LANES] = {(T *) s->work};
  cudaGraphExec_t graph[LANES] = {NULL};
  CUDA_TRY (cudaMemsetAsync (s->bad, 0, sizeof *s->bad, s->stream));
  CUDA_TRY (cudaEventRecord (s->begun, s->stream));
  for (size_t i = 1; i < L; i++)
  {
    lane *l = NULL;
    TRY (lane_get (E, s, (int) i, s->work_bytes, &l));
    lanes[i] = R;
    lanes[i].st = l->stream;
    lanes[i].blas = l->blas;
    lanes[i].small = l->small;
    X[i] = (T *) l->work;
    CUDA_TRY (cudaStreamWaitEvent (l->stream, s->begun, 0));
  }
  muon_status st = MUON_OK;
  for (size_t i = 0; i < L && st == MUON_OK; i++)
    if ((G->batch + L - 1 - i) / L >= GRAPH_FROM)   // the pages lane i runs
      st = capture (lanes[i], o, coef, steps, use_gram, X[i], &graph[i]);
  if (st == MUON_OK)
    st = host ? host_pages (lanes[0], G, out, o, coef, steps, use_gram, X[0], graph[0])
              : device_pages (lanes, X, graph, L, G, out, o, coef, steps, use_gram);
  for (size_t i = 0; i < L; i++)
    if (graph[i])
      cudaGraphExecDestroy (graph[i]);
  TRY (st);
  for (size_t i = 1; i < L; i++)
  {
    CUDA_TRY (cudaEventRecord (s->extra[i - 1].done, lanes[i].st));
    CUDA_TRY (cudaStreamWaitEvent (s->stream, s->extra[i - 1].done, 0));
  }
  CUDA_TRY (cudaMemcpyAsync (bad, s->bad, sizeof *bad, cudaMemcpyDeviceToHost, s->stream));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

muon_status ns_pages (ns_state *s, errbuf &E, const muon_tensor *G, muon_tensor *X,
                      const muon_ns_opts *o, const double *coef, int steps,
                      unsigned long long *bad)
{
  if (steps < 1 || !MUON_IN_LIST (MUON_PRECISION_LIST, o->precision))
  {
    snprintf (E.msg, E.len, "bad steps (%d) or precision (%d)", steps, (int) o->precision);
    return MUON_ERR_BADARG;
  }
  muon_device where = G->device == MUON_DEVICE_CUDA ? MUON_DEVICE_CUDA : MUON_DEVICE_CPU;
  TRY (muon_tensor_fault_on (G, "G", where, E.msg, E.len));   // muon_tensor_check's checks
  TRY (muon_tensor_fault_on (X, "X", where, E.msg, E.len));
  if (G->rows != X->rows || G->cols != X->cols || G->batch != X->batch)
  {
    snprintf (E.msg, E.len, "X must be %zu x %zu x %zu like G", G->rows, G->cols, G->batch);
    return MUON_ERR_BADSHAPE;
  }
  size_t n = G->rows < G->cols ? G->rows : G->cols, m = G->rows < G->cols ? G->cols : G->rows;
  if (m > (size_t) INT_MAX)
  {
    snprintf (E.msg, E.len, "dimensions must fit a cuBLAS int");
    return MUON_ERR_BADSHAPE;
  }
  run R = {s, E, (int) o->precision, n, m, sym_blocks_for (n, G->batch), o->fused, s->stream,
           s->blas, s->small};
  int low = o->precision == MUON_PREC_BF16 || o->precision == MUON_PREC_FP16;
  size_t es = o->precision == MUON_PREC_DOUBLE ? sizeof (double)
            : low ? sizeof (uint16_t) : sizeof (float);
  TRY (grow (E, &s->work, &s->work_bytes, (2 * padded (n * m) + 5 * padded (n * n)) * es));
  if (where == MUON_DEVICE_CPU)                   // the staging of host pages
  {
    size_t in = G->rows * G->cols * dtype_size (G->dtype);
    size_t out = X->rows * X->cols * dtype_size (X->dtype);
    for (int b = 0; b < 2; b++)
    {
      CUDA_TRY (cudaStreamSynchronize (s->copy));  // nothing of the last call in flight
      TRY (grow (E, &s->page_in[b], &s->in_bytes[b], in));
      TRY (grow (E, &s->page_out[b], &s->out_bytes[b], out));
      TRY (grow_pinned (E, &s->pin_in[b], &s->pin_in_bytes[b], in));
      TRY (grow_pinned (E, &s->pin_out[b], &s->pin_out_bytes[b], out));
    }
  }
  if (o->precision == MUON_PREC_DOUBLE)
    return batch<double> (R, G, X, o, coef, steps, bad);
  if (low)                                        // bf16 / fp16 work buffers
    return batch<uint16_t> (R, G, X, o, coef, steps, bad);
  return batch<float> (R, G, X, o, coef, steps, bad);
}

//---- entries ------------------------------------------------------------------------------

muon_status device_query (int *count, char *name, size_t len)
{
  char dummy[1];
  errbuf E = {name ? name : dummy, name ? len : sizeof dummy};
  int c = 0;
  if (count)
    *count = 0;
  if (E.len)
    E.msg[0] = '\0';
  cudaError_t err = cudaGetDeviceCount (&c);
  if (err != cudaSuccess)                         // no driver, no device, driver too old ...
  {
    cudaGetLastError ();                          // clear it: later calls start clean
    snprintf (E.msg, E.len, "%s", cudaGetErrorString (err));
    return MUON_ERR_NODEVICE;
  }
  if (c < 1)
  {
    snprintf (E.msg, E.len, "no CUDA device found");
    return MUON_ERR_NODEVICE;
  }
  cudaDeviceProp prop;
  CUDA_TRY (cudaGetDeviceProperties (&prop, 0));
  snprintf (E.msg, E.len, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);
  if (count)
    *count = c;
  return MUON_OK;
}

muon_status ns_entry (void **state, const muon_tensor *G, muon_tensor *X,
                      const muon_ns_opts *o, const double *coef, int steps, char *msg,
                      size_t len)
{
  char dummy[1];
  errbuf E = {msg ? msg : dummy, msg ? len : sizeof dummy};
  if (E.len)
    E.msg[0] = '\0';
  if (state == NULL || G == NULL || X == NULL || o == NULL || coef == NULL)
  {
    snprintf (E.msg, E.len, "state, G, X, options and coefficients must not be NULL");
    return MUON_ERR_NULLPTR;
  }
  ns_state *s = NULL;
  TRY (state_get (E, state, &s));
  unsigned long long bad = 0;
  s->timed = 0;                                   // until this call has both events
  CUDA_TRY (cudaEventRecord (s->t_start, s->stream));
  TRY (ns_pages (s, E, G, X, o, coef, steps, &bad));
  CUDA_TRY (cudaEventRecord (s->t_stop, s->stream));
  s->timed = 1;
  if (bad)
  {
    snprintf (E.msg, E.len, "%llu non-finite values in the result", bad);
    return MUON_WARN_NONFINITE;
  }
  return MUON_OK;
}

}  // namespace muon_cuda
