/* ns_cuda.cu - Newton-Schulz orthogonalization on an NVIDIA GPU with cuBLAS: the CUDA back end
 * of ns.c, built into libmuon_cuda.so and opened with dlopen by cuda_loader.c, which reaches it
 * only through muon_cuda_get_api (the ABI of ns_cuda_abi.h).
 *
 * Same algorithm, op order and rounding model as the CPU reference (ns.c, ns_impl.h, DESIGN.md
 * 4), with the same function structure: load_page, gram_product, product, poly, standard,
 * gram, store_page, batch.  'double' runs Dsyrk / Dgemm and 'single' Ssyrk / Sgemm.  bf16 and
 * fp16 keep fp32 buffers that hold compute-precision values; each GEMM operand is converted
 * (exactly) to a 16-bit copy, multiplied by cublasGemmEx with 16-bit inputs, fp32 accumulation
 * and fp32 output, and the product is rounded once by a small kernel.  Every per-element step
 * calls the functions of muon_precision.h, the very code the CPU tests exercise, and the
 * restart and Gram decisions and the tensor checks are the CPU's own (ns_shared.h,
 * tensor_check.h).
 *
 * G and X are host tensors: each page is copied in (cudaMemcpy2D takes the leading dimension,
 * so fused-expert pages need no packing on the host), computed on the device and copied out,
 * all on one stream.  The per-context state (cuBLAS handle, stream, buffers grown on demand)
 * lives across calls and is freed by release.  Errors come back as MUON_ERR_CUDA /
 * MUON_ERR_CUBLAS with "file:line: call: text"; nothing prints, exits or aborts.
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
#include "ns_shared.h"
#include "tensor_check.h"

namespace muon_cuda {

//---- per-element maths (muon_precision.h) and correctly rounded fp64 / fp32 helpers --------
// nvcc contracts a * b + c into an FMA by default; the CPU core is built with
// -ffp-contract=off, so the unrounded paths spell out each rounding with the _rn intrinsics.

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

// The denominator of the normalization from the fp64 sum of squares (as load_page).
template <typename T> __device__ T norm_denom (int p, int normalize_first, double eps,
                                                double sum);

template <>
__device__ __forceinline__ double norm_denom<double> (int, int, double eps, double sum)
{
  return __dadd_rn (__dsqrt_rn (sum), eps);              // kept in fp64 for 'double'
}

template <>
__device__ __forceinline__ float norm_denom<float> (int p, int normalize_first, double eps,
                                                    double sum)
{
  float norm = __double2float_rn (__dsqrt_rn (sum)), e = __double2float_rn (eps);
  if (normalize_first)
    return __fadd_rn (norm, e);                          // fl32(||G||) + fl32(eps)
  return muon_round_to (p, __fadd_rn (muon_round_to (p, norm), e));  // r(r(||X||) + eps)
}

//---- kernels (grid-stride loops over size_t indices) --------------------------------------

// Page (rows x cols, leading dimension ld, storage type S) -> X (n x m, transposed when rows > cols), cast
// to T and, in the cast-first order, rounded; per-block fp64 sums of squares into part.
template <typename T, typename S>
__global__ void k_load_page (int p, int cast_first, const S *g, size_t rows, size_t cols,
                             size_t ld, int transposed, T *X, double *part)
{
  __shared__ double acc[THREADS];
  size_t n = transposed ? cols : rows;
  double sum = 0;
  FOR_EACH (at, rows * cols)
  {
    size_t i = at % rows, j = at / rows;
    S gv = g[i + j * ld];
    T v = (T) gv;
    if (cast_first)
      v = rnd (p, v);
    X[transposed ? j + i * n : i + j * n] = v;
    double w = cast_first ? (double) v : (double) gv;  // the norm of what is divided
    sum = __dadd_rn (sum, __dmul_rn (w, w));
  }
  acc[threadIdx.x] = sum;
  __syncthreads ();
  for (int h = THREADS / 2; h > 0; h >>= 1)              // fixed tree: same sum every run
  {
    if ((int) threadIdx.x < h)
      acc[threadIdx.x] = __dadd_rn (acc[threadIdx.x], acc[threadIdx.x + h]);
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    part[blockIdx.x] = acc[0];
}

// One thread: part[0..nb) -> scal[0] = sum, scal[1] = the denominator (a T value).
template <typename T>
__global__ void k_norm_finish (int p, int normalize_first, double eps, const double *part,
                               int nb, double *scal)
{
  double sum = 0;
  for (int b = 0; b < nb; b++)
    sum = __dadd_rn (sum, part[b]);
  scal[0] = sum;
  scal[1] = (double) norm_denom<T> (p, normalize_first, eps, sum);
}

// X = r(X / denom); an all-zero page stays exactly zero (even with eps = 0).
template <typename T>
__global__ void k_normalize (int p, T *X, size_t len, const double *scal)
{
  int zero = scal[0] == 0;
  T denom = (T) scal[1];
  FOR_EACH (i, len)
    X[i] = zero ? (T) 0 : rnd (p, div_rn (X[i], denom));
}

// X (n x m) -> page (rows x cols, leading dimension ld, storage type S), undoing the transpose; an all-zero
// input page gives +0 everywhere; counts non-finite values into *bad.
template <typename T, typename S>
__global__ void k_store_page (const T *X, size_t rows, size_t cols, size_t ld, int transposed,
                              const double *scal, S *out, unsigned long long *bad)
{
  size_t n = transposed ? cols : rows;
  int zero = scal[0] == 0;
  unsigned long long count = 0;
  FOR_EACH (at, rows * cols)
  {
    size_t i = at % rows, j = at / rows;
    T v = zero ? (T) 0 : X[transposed ? j + i * n : i + j * n];
    out[i + j * ld] = (S) v;
    count += !isfinite (v);
  }
  if (count)
    atomicAdd (bad, count);
}

// C (n x n) = r(upper triangle of C) mirrored to the lower one: SYRK fills only the upper
// triangle, and the GemmEx X X' of bf16 / fp16 is symmetrized the same way.
template <typename T>
__global__ void k_round_sym (int p, T *C, size_t n)
{
  FOR_EACH (at, n * n)
  {
    size_t i = at % n, j = at / n;
    if (i <= j)
    {
      T v = rnd (p, C[i + j * n]);
      C[i + j * n] = v;
      C[j + i * n] = v;
    }
  }
}

// out[i] = r(x[i])
template <typename T>
__global__ void k_round (int p, const T *x, T *out, size_t len)
{
  FOR_EACH (i, len)
    out[i] = rnd (p, x[i]);
}

// out[i] = r(s x[i])
template <typename T>
__global__ void k_scale (int p, T s, const T *x, T *out, size_t len)
{
  FOR_EACH (i, len)
    out[i] = rnd (p, mul_rn (s, x[i]));
}

// out[i] = r(r(s x[i]) + r(prod[i])); out may alias x or prod.
template <typename T>
__global__ void k_scale_add (int p, T s, const T *x, const T *prod, T *out, size_t len)
{
  FOR_EACH (i, len)
    out[i] = scale_add_el (p, s, x[i], prod[i]);
}

// Q = r(Q + a I), Q n x n.
template <typename T>
__global__ void k_add_diag (int p, T a, T *Q, size_t n)
{
  FOR_EACH (d, n)
    Q[d + d * n] = rnd (p, add_rn (Q[d + d * n], a));
}

// fp32 values that are exact bf16 / fp16 values -> their 16-bit patterns (exact).
__global__ void k_to_half (int p, const float *x, uint16_t *h, size_t len)
{
  FOR_EACH (i, len)
    h[i] = p == MUON_PREC_BF16 ? muon_f32_to_bf16_bits (x[i]) : muon_f32_to_fp16_bits (x[i]);
}

//---- cuBLAS by element type ---------------------------------------------------------------

cublasStatus_t syrk (cublasHandle_t h, int n, int k, double alpha, const double *A, double *C)
{
  const double zero = 0;
  return cublasDsyrk (h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, k, &alpha, A, n, &zero, C, n);
}

cublasStatus_t syrk (cublasHandle_t h, int n, int k, float alpha, const float *A, float *C)
{
  const float zero = 0;
  return cublasSsyrk (h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, k, &alpha, A, n, &zero, C, n);
}

cublasStatus_t gemm (cublasHandle_t h, int n, int k, const double *A, const double *B,
                     double *C)
{
  const double one = 1, zero = 0;
  return cublasDgemm (h, CUBLAS_OP_N, CUBLAS_OP_N, n, k, n, &one, A, n, B, n, &zero, C, n);
}

cublasStatus_t gemm (cublasHandle_t h, int n, int k, const float *A, const float *B, float *C)
{
  const float one = 1, zero = 0;
  return cublasSgemm (h, CUBLAS_OP_N, CUBLAS_OP_N, n, k, n, &one, A, n, B, n, &zero, C, n);
}

//---- one run of ns: the state, the message buffer, the compute precision ------------------

struct run {
  ns_state *s;
  errbuf E;
  int p;                       // muon_precision
  int low;                     // bf16 or fp16: GEMMs through 16-bit copies
  size_t n, m;                 // the page after the transpose rule, n <= m
};

template <typename T>
muon_status launch_round (run &R, const T *x, T *out, size_t len)
{
  errbuf &E = R.E;
  LAUNCH (k_round<T><<<grid_for (len), THREADS, 0, R.s->stream>>> (R.p, x, out, len));
  return MUON_OK;
}

template <typename T>
muon_status scale (run &R, T s, const T *x, T *out, size_t len)
{
  errbuf &E = R.E;
  LAUNCH (k_scale<T><<<grid_for (len), THREADS, 0, R.s->stream>>> (R.p, s, x, out, len));
  return MUON_OK;
}

template <typename T>
muon_status scale_add (run &R, T s, const T *x, const T *prod, T *out, size_t len)
{
  errbuf &E = R.E;
  LAUNCH (k_scale_add<T><<<grid_for (len), THREADS, 0, R.s->stream>>> (R.p, s, x, prod, out,
                                                                        len));
  return MUON_OK;
}

// The 16-bit copy of an fp32 operand of len elements (bf16 / fp16 only).
muon_status to_half (run &R, const float *x, uint16_t *h, size_t len)
{
  errbuf &E = R.E;
  LAUNCH (k_to_half<<<grid_for (len), THREADS, 0, R.s->stream>>> (R.p, x, h, len));
  return MUON_OK;
}

// C = r(alpha A A'), A n x k, C n x n symmetric.  Double / single: SYRK (upper) and mirror;
// bf16 / fp16 (alpha is 1 there): GemmEx A A' from the 16-bit copy H2, fp32 out, round, mirror.
muon_status gram_product (run &R, double alpha, const double *A, size_t n, size_t k,
                          double *C)
{
  errbuf &E = R.E;
  CUBLAS_TRY (syrk (R.s->blas, (int) n, (int) k, alpha, A, C));
  LAUNCH (k_round_sym<double><<<grid_for (n * n), THREADS, 0, R.s->stream>>> (R.p, C, n));
  return MUON_OK;
}

muon_status gram_product (run &R, float alpha, const float *A, size_t n, size_t k, float *C)
{
  errbuf &E = R.E;
  if (R.low)
  {
    uint16_t *H2 = R.s->half + R.n * R.n;
    cudaDataType ht = R.p == MUON_PREC_BF16 ? CUDA_R_16BF : CUDA_R_16F;
    const float zero = 0;
    TRY (to_half (R, A, H2, n * k));
    CUBLAS_TRY (cublasGemmEx (R.s->blas, CUBLAS_OP_N, CUBLAS_OP_T, (int) n, (int) n, (int) k,
                              &alpha, H2, ht, (int) n, H2, ht, (int) n, &zero, C, CUDA_R_32F,
                              (int) n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  else
    CUBLAS_TRY (syrk (R.s->blas, (int) n, (int) k, alpha, A, C));
  LAUNCH (k_round_sym<float><<<grid_for (n * n), THREADS, 0, R.s->stream>>> (R.p, C, n));
  return MUON_OK;
}

// C = A B with A n x n, B n x k (fp64 / fp32 accumulation, output not yet rounded).  bf16 /
// fp16: the operands go through the 16-bit copies H1 (n x n) and H2 (n x k <= n x m).
muon_status product (run &R, const double *A, const double *B, size_t n, size_t k, double *C)
{
  errbuf &E = R.E;
  CUBLAS_TRY (gemm (R.s->blas, (int) n, (int) k, A, B, C));
  return MUON_OK;
}

muon_status product (run &R, const float *A, const float *B, size_t n, size_t k, float *C)
{
  errbuf &E = R.E;
  if (!R.low)
  {
    CUBLAS_TRY (gemm (R.s->blas, (int) n, (int) k, A, B, C));
    return MUON_OK;
  }
  uint16_t *H1 = R.s->half, *H2 = R.s->half + R.n * R.n;
  cudaDataType ht = R.p == MUON_PREC_BF16 ? CUDA_R_16BF : CUDA_R_16F;
  const float one = 1, zero = 0;
  TRY (to_half (R, A, H1, n * n));
  TRY (to_half (R, B, H2, n * k));
  CUBLAS_TRY (cublasGemmEx (R.s->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int) n, (int) k, (int) n,
                            &one, H1, ht, (int) n, H2, ht, (int) n, &zero, C, CUDA_R_32F,
                            (int) n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return MUON_OK;
}

// B = b A + c A A, rounded as r(r(b A) + r(r(c A) A)) in low precision.  P, B: n x n scratch.
template <typename T>
muon_status poly (run &R, T b, T c, const T *A, size_t n, T *P, T *B)
{
  if (R.low)
  {
    TRY (scale (R, c, A, B, n * n));         // B holds r(c A) for a moment
    TRY (product (R, B, A, n, n, P));        // P = (c A) A: a general product, as eager torch
  }
  else
    TRY (gram_product (R, c, A, n, n, P));   // A symmetric: c A A' by SYRK, no rounding modelled
  return scale_add (R, b, A, P, B, n * n);
}

// Standard iteration: A = r(X X'); B = r(r(b A) + r(r(c A) A)); X = r(r(a X) + r(B X)).
template <typename T>
muon_status standard (run &R, const double *coef, int steps, T *X, T *Y, T *A, T *B, T *P)
{
  size_t n = R.n, m = R.m;
  for (int k = 0; k < steps; k++)
  {
    T a = (T) coef[3 * k], b = (T) coef[3 * k + 1], c = (T) coef[3 * k + 2];
    TRY (gram_product (R, (T) 1, X, n, m, A));
    TRY (poly (R, b, c, A, n, P, B));
    TRY (product (R, B, X, n, m, Y));
    TRY (scale_add (R, a, X, Y, X, n * m));
  }
  return MUON_OK;
}

// Gram iteration, as ns_impl.h: everything but the first R, the restarts and the final Q X
// is n x n.
template <typename T>
muon_status gram (run &R, const double *coef, int steps, const muon_ns_opts *o, T *X, T *Y,
                  T *Rg, T *Z, T *Q, T *RZ, T *P)
{
  errbuf &E = R.E;
  size_t n = R.n, m = R.m;
  int fresh = 1;                                  // Q is "None": start or just restarted
  TRY (gram_product (R, (T) 1, X, n, m, Rg));     // R = r(X X')
  for (int i = 0; i < steps; i++)
  {
    T a = (T) coef[3 * i], b = (T) coef[3 * i + 1], c = (T) coef[3 * i + 2];
    if (muon_ns_restart_before (i, o))
    {
      TRY (product (R, Q, X, n, m, Y));           // X = r(Q X); R = r(X X')
      TRY (launch_round (R, Y, X, n * m));
      TRY (gram_product (R, (T) 1, X, n, m, Rg));
      fresh = 1;
    }
    TRY (poly (R, b, c, Rg, n, P, Z));            // Z = r(r(b R) + r(r(c R) R))
    if (fresh)
    {
      CUDA_TRY (cudaMemcpyAsync (Q, Z, n * n * sizeof *Q, cudaMemcpyDeviceToDevice,
                                 R.s->stream));   // Q = r(Z + a I)
      LAUNCH (k_add_diag<T><<<grid_for (n), THREADS, 0, R.s->stream>>> (R.p, a, Q, n));
      fresh = 0;
    }
    else
    {
      TRY (product (R, Z, Q, n, n, P));           // Q = r(r(a Q) + r(Z Q))
      TRY (scale_add (R, a, Q, P, Q, n * n));
    }
    if (i < steps - 1 && !muon_ns_restart_before (i + 1, o))
    {
      TRY (product (R, Z, Rg, n, n, P));          // RZ = r(r(a R) + r(Z R))
      TRY (scale_add (R, a, Rg, P, RZ, n * n));
      TRY (product (R, Z, RZ, n, n, P));          // R = r(r(a RZ) + r(Z RZ))
      TRY (scale_add (R, a, RZ, P, Rg, n * n));
    }
  }
  TRY (product (R, Q, X, n, m, Y));               // X = r(Q X)
  return launch_round (R, Y, X, n * m);
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
// transposed and normalized; the sum of squares and the denominator stay on the device
// (small), so no page waits for the host.
template <typename T>
muon_status load_page (run &R, const void *g, muon_dtype dt, size_t rows, size_t cols,
                       size_t ld, const muon_ns_opts *o, T *X, int transposed)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int cast_first = !o->normalize_first;
  if (dt == MUON_F64)
    LAUNCH (k_load_page<T, double><<<NORM_BLOCKS, THREADS, 0, s->stream>>> (
      R.p, cast_first, (const double *) g, rows, cols, ld, transposed, X, s->small));
  else
    LAUNCH (k_load_page<T, float><<<NORM_BLOCKS, THREADS, 0, s->stream>>> (
      R.p, cast_first, (const float *) g, rows, cols, ld, transposed, X, s->small));
  LAUNCH (k_norm_finish<T><<<1, 1, 0, s->stream>>> (R.p, o->normalize_first, o->eps, s->small,
                                                     NORM_BLOCKS, s->small + NORM_BLOCKS));
  LAUNCH (k_normalize<T><<<grid_for (R.n * R.m), THREADS, 0, s->stream>>> (
    R.p, X, R.n * R.m, s->small + NORM_BLOCKS));
  return MUON_OK;
}

// The page at out (rows x cols, leading dimension ld, type dt, on the device) = X (n x m),
// undoing the transpose; counts non-finite values.
template <typename T>
muon_status store_page (run &R, const T *X, int transposed, void *out, muon_dtype dt,
                        size_t rows, size_t cols, size_t ld)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  const double *scal = s->small + NORM_BLOCKS;
  unsigned grid = grid_for (rows * cols);
  if (dt == MUON_F64)
    LAUNCH (k_store_page<T, double><<<grid, THREADS, 0, s->stream>>> (
      X, rows, cols, ld, transposed, scal, (double *) out, s->bad));
  else
    LAUNCH (k_store_page<T, float><<<grid, THREADS, 0, s->stream>>> (
      X, rows, cols, ld, transposed, scal, (float *) out, s->bad));
  return MUON_OK;
}

// Host page e of t <-> a packed rows x cols buffer (the pinned staging).
void pack_page (const muon_tensor *t, size_t e, void *packed)
{
  size_t es = dtype_size (t->dtype), w = t->rows * es;
  const char *src = page_of (t, e);
  if (t->ld == t->rows)
    memcpy (packed, src, w * t->cols);
  else
    for (size_t j = 0; j < t->cols; j++)
      memcpy ((char *) packed + j * w, src + j * t->ld * es, w);
}

void unpack_page (const void *packed, muon_tensor *t, size_t e)
{
  size_t es = dtype_size (t->dtype), w = t->rows * es;
  char *dst = page_of (t, e);
  if (t->ld == t->rows)
    memcpy (dst, packed, w * t->cols);
  else
    for (size_t j = 0; j < t->cols; j++)
      memcpy (dst + j * t->ld * es, (const char *) packed + j * w, w);
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

// The iteration of one page in X (n x m); work after X: Y (n x m), S1..S5 (n x n each).
template <typename T>
muon_status iterate (run &R, const muon_ns_opts *o, const double *coef, int steps,
                     int use_gram, T *X)
{
  size_t n = R.n, m = R.m;
  T *Y = X + n * m, *S1 = Y + n * m, *S2 = S1 + n * n, *S3 = S2 + n * n, *S4 = S3 + n * n,
    *S5 = S4 + n * n;
  if (use_gram)
    return gram (R, coef, steps, o, X, Y, S1, S2, S3, S4, S5);
  return standard (R, coef, steps, X, Y, S1, S2, S3);
}

// The whole batch on the compute stream.  Device tensors are read and written in place (any
// leading dimension and page stride).  Host tensors go through two staged pages: while the
// device runs page e, the host packs page e + 1 into pinned memory and the copy stream moves
// it, and the result of page e - 1 comes back the same way.  [out] *bad.
template <typename T>
muon_status batch (run &R, const muon_tensor *G, muon_tensor *out, const muon_ns_opts *o,
                   const double *coef, int steps, unsigned long long *bad)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int transposed = G->rows > G->cols, use_gram = muon_ns_gram_path (G->rows, G->cols, o);
  int host = G->device == MUON_DEVICE_CPU;
  size_t rows = G->rows, cols = G->cols, pages = G->batch;
  size_t out_bytes = rows * cols * dtype_size (out->dtype);
  T *X = (T *) s->work;
  CUDA_TRY (cudaMemsetAsync (s->bad, 0, sizeof *s->bad, s->stream));
  if (host)
    TRY (stage_in (R, G, 0));
  for (size_t e = 0; e < pages; e++)
  {
    int b = (int) (e & 1);
    if (host)
    {
      CUDA_TRY (cudaStreamWaitEvent (s->stream, s->in_ready[b], 0));
      TRY (load_page (R, s->page_in[b], G->dtype, rows, cols, rows, o, X, transposed));
      CUDA_TRY (cudaEventRecord (s->in_used[b], s->stream));
    }
    else                                      // zero pages run on zeros, stored as +0
      TRY (load_page (R, page_of (G, e), G->dtype, rows, cols, G->ld, o, X, transposed));
    TRY (iterate (R, o, coef, steps, use_gram, X));
    if (!host)
    {
      TRY (store_page (R, X, transposed, page_of (out, e), out->dtype, rows, cols, out->ld));
      continue;
    }
    CUDA_TRY (cudaStreamWaitEvent (s->stream, s->out_copied[b], 0));  // page_out[b] is free
    TRY (store_page (R, X, transposed, s->page_out[b], out->dtype, rows, cols, rows));
    CUDA_TRY (cudaEventRecord (s->out_ready[b], s->stream));
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
  if (host)
    for (size_t e = pages >= 2 ? pages - 2 : 0; e < pages; e++)
      TRY (stage_out_finish (R, out, e));
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
  run R = {s, E, (int) o->precision,
           o->precision == MUON_PREC_BF16 || o->precision == MUON_PREC_FP16, n, m};
  size_t es = o->precision == MUON_PREC_DOUBLE ? sizeof (double) : sizeof (float);
  TRY (grow (E, &s->work, &s->work_bytes, (2 * n * m + 5 * n * n) * es));
  if (R.low)
    TRY (grow (E, (void **) &s->half, &s->half_bytes, (n * n + n * m) * sizeof (uint16_t)));
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
