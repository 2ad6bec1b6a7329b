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

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "muon_precision.h"
#include "ns_cuda_abi.h"
#include "ns_shared.h"
#include "tensor_check.h"

namespace {

//---- errors -------------------------------------------------------------------------------

// Where a message goes: the caller's msg / len of the ABI.
struct errbuf {
  char *msg;
  size_t len;
};

muon_status fail_with (errbuf &E, muon_status code, const char *file, int line,
                       const char *call, const char *text)
{
  if (E.msg && E.len)
    snprintf (E.msg, E.len, "%s:%d: %.*s: %s", file, line, (int) strcspn (call, " ("), call,
              text);
  return code;
}

// Each returns from the enclosing function (which returns muon_status and has `E` in scope).
#define CUDA_TRY(call)                                                              \
  do {                                                                              \
    cudaError_t e_ = (call);                                                        \
    if (e_ != cudaSuccess)                                                          \
      return fail_with (E, MUON_ERR_CUDA, __FILE__, __LINE__, #call,                \
                        cudaGetErrorString (e_));                                   \
  } while (0)

#define CUBLAS_TRY(call)                                                            \
  do {                                                                              \
    cublasStatus_t e_ = (call);                                                     \
    if (e_ != CUBLAS_STATUS_SUCCESS)                                                \
      return fail_with (E, MUON_ERR_CUBLAS, __FILE__, __LINE__, #call,              \
                        cublasGetStatusString (e_));                                \
  } while (0)

// A kernel launch (the <<<...>>> commas need __VA_ARGS__), then its launch error.
#define LAUNCH(...)                                                                 \
  do {                                                                              \
    __VA_ARGS__;                                                                    \
    CUDA_TRY (cudaGetLastError ());                                                 \
  } while (0)

#define TRY(call)                                                                   \
  do {                                                                              \
    muon_status s_ = (call);                                                        \
    if (s_ != MUON_OK) return s_;                                                   \
  } while (0)

//---- state --------------------------------------------------------------------------------

const int THREADS = 256;      // threads per block of every kernel
const int NORM_BLOCKS = 256;  // blocks of the norm reduction (fixed: a deterministic sum)

struct ns_state {
  int device;                  // the device current when the state was made
  cudaStream_t stream;
  cublasHandle_t blas;
  void *work;                  // T: X, Y (n x m each), S1..S5 (n x n each)
  size_t work_bytes;
  void *page_in;               // one page of G as stored, packed rows x cols
  size_t in_bytes;
  void *page_out;              // one page of X as stored, packed rows x cols
  size_t out_bytes;
  uint16_t *half;              // bf16 / fp16 operand copies: H1 (n x n), H2 (n x m)
  size_t half_bytes;
  double *small;               // NORM_BLOCKS partial sums, then the sum and the denominator
  unsigned long long *bad;     // non-finite count of the batch (after small)
};

void state_free (ns_state *s)
{
  if (s == NULL)
    return;
  if (s->stream)
    cudaStreamSynchronize (s->stream);
  cudaFree (s->work);
  cudaFree (s->page_in);
  cudaFree (s->page_out);
  cudaFree (s->half);
  cudaFree (s->small);
  if (s->blas)
    cublasDestroy (s->blas);
  if (s->stream)
    cudaStreamDestroy (s->stream);
  free (s);
}

muon_status state_init (errbuf &E, ns_state *s)
{
  CUDA_TRY (cudaGetDevice (&s->device));
  CUDA_TRY (cudaStreamCreateWithFlags (&s->stream, cudaStreamNonBlocking));
  CUBLAS_TRY (cublasCreate (&s->blas));
  CUBLAS_TRY (cublasSetStream (s->blas, s->stream));
  // No TF32 and no reduced-precision split-K reduction: every product accumulates in fp32
  // (or fp64), as the rounding model assumes.
  CUBLAS_TRY (cublasSetMathMode (s->blas, (cublasMath_t) (CUBLAS_DEFAULT_MATH
                                 | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  CUDA_TRY (cudaMalloc ((void **) &s->small, (NORM_BLOCKS + 3) * sizeof (double)));
  s->bad = (unsigned long long *) (s->small + NORM_BLOCKS + 2);
  return MUON_OK;
}

// Grows a device buffer to at least `bytes` (contents are not kept).
muon_status grow (errbuf &E, void **buf, size_t *cap, size_t bytes)
{
  if (*cap >= bytes)
    return MUON_OK;
  CUDA_TRY (cudaFree (*buf));
  *buf = NULL;
  *cap = 0;
  CUDA_TRY (cudaMalloc (buf, bytes));
  *cap = bytes;
  return MUON_OK;
}

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

#define FOR_EACH(i, len)                                                            \
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < (len);        \
       i += (size_t) gridDim.x * blockDim.x)

unsigned grid_for (size_t len)
{
  size_t blocks = (len + THREADS - 1) / THREADS;
  return (unsigned) (blocks < 65536 ? (blocks ? blocks : 1) : 65536);
}

// Page (rows x cols, packed, storage type S) -> X (n x m, transposed when rows > cols), cast
// to T and, in the cast-first order, rounded; per-block fp64 sums of squares into part.
template <typename T, typename S>
__global__ void k_load_page (int p, int cast_first, const S *g, size_t rows, size_t cols,
                             int transposed, T *X, double *part)
{
  __shared__ double acc[THREADS];
  size_t n = transposed ? cols : rows;
  double sum = 0;
  FOR_EACH (at, rows * cols)
  {
    size_t i = at % rows, j = at / rows;
    T v = (T) g[at];
    if (cast_first)
      v = rnd (p, v);
    X[transposed ? j + i * n : i + j * n] = v;
    double w = cast_first ? (double) v : (double) g[at];  // the norm of what is divided
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

// X (n x m) -> page (rows x cols, packed, storage type S), undoing the transpose; an all-zero
// input page gives +0 everywhere; counts non-finite values into *bad.
template <typename T, typename S>
__global__ void k_store_page (const T *X, size_t rows, size_t cols, int transposed,
                              const double *scal, S *out, unsigned long long *bad)
{
  size_t n = transposed ? cols : rows;
  int zero = scal[0] == 0;
  unsigned long long count = 0;
  FOR_EACH (at, rows * cols)
  {
    size_t i = at % rows, j = at / rows;
    T v = zero ? (T) 0 : X[transposed ? j + i * n : i + j * n];
    out[at] = (S) v;
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

// Element size of a storage type.
size_t dtype_size (muon_dtype d)
{
  return d == MUON_F64 ? sizeof (double) : sizeof (float);
}

// Host page e of t <-> the packed rows x cols device page; the leading dimension is the pitch.
muon_status copy_page (run &R, const muon_tensor *t, size_t e, void *dev, int to_device)
{
  errbuf &E = R.E;
  size_t es = dtype_size (t->dtype), w = t->rows * es;
  char *host = (char *) t->data + e * t->stride * es;
  if (t->ld == t->rows)
  {
    if (to_device)
      CUDA_TRY (cudaMemcpyAsync (dev, host, w * t->cols, cudaMemcpyHostToDevice, R.s->stream));
    else
      CUDA_TRY (cudaMemcpyAsync (host, dev, w * t->cols, cudaMemcpyDeviceToHost, R.s->stream));
  }
  else if (to_device)
    CUDA_TRY (cudaMemcpy2DAsync (dev, w, host, t->ld * es, w, t->cols, cudaMemcpyHostToDevice,
                                 R.s->stream));
  else
    CUDA_TRY (cudaMemcpy2DAsync (host, t->ld * es, dev, w, w, t->cols, cudaMemcpyDeviceToHost,
                                 R.s->stream));
  return MUON_OK;
}

// Copy page e of G in, cast, transpose and normalize it into X (n x m); the sum of squares
// and the denominator stay on the device (scal), so no page waits for the host.
template <typename T>
muon_status load_page (run &R, const muon_tensor *G, size_t e, const muon_ns_opts *o, T *X,
                       int transposed)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int cast_first = !o->normalize_first;
  TRY (copy_page (R, G, e, s->page_in, 1));
  if (G->dtype == MUON_F64)
    LAUNCH (k_load_page<T, double><<<NORM_BLOCKS, THREADS, 0, s->stream>>> (
      R.p, cast_first, (const double *) s->page_in, G->rows, G->cols, transposed, X,
      s->small));
  else
    LAUNCH (k_load_page<T, float><<<NORM_BLOCKS, THREADS, 0, s->stream>>> (
      R.p, cast_first, (const float *) s->page_in, G->rows, G->cols, transposed, X,
      s->small));
  LAUNCH (k_norm_finish<T><<<1, 1, 0, s->stream>>> (R.p, o->normalize_first, o->eps, s->small,
                                                     NORM_BLOCKS, s->small + NORM_BLOCKS));
  LAUNCH (k_normalize<T><<<grid_for (R.n * R.m), THREADS, 0, s->stream>>> (
    R.p, X, R.n * R.m, s->small + NORM_BLOCKS));
  return MUON_OK;
}

// Write X (n x m) back to page e of out, undoing the transpose; counts non-finite values.
template <typename T>
muon_status store_page (run &R, const T *X, int transposed, muon_tensor *out, size_t e)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  const double *scal = s->small + NORM_BLOCKS;
  unsigned grid = grid_for (out->rows * out->cols);
  if (out->dtype == MUON_F64)
    LAUNCH (k_store_page<T, double><<<grid, THREADS, 0, s->stream>>> (
      X, out->rows, out->cols, transposed, scal, (double *) s->page_out, s->bad));
  else
    LAUNCH (k_store_page<T, float><<<grid, THREADS, 0, s->stream>>> (
      X, out->rows, out->cols, transposed, scal, (float *) s->page_out, s->bad));
  return copy_page (R, out, e, s->page_out, 0);
}

// The whole batch, page by page on one stream.  work holds 2 n m + 5 n^2 elements of T.
// [out] *bad: non-finite values in the result.
template <typename T>
muon_status batch (run &R, const muon_tensor *G, muon_tensor *out, const muon_ns_opts *o,
                   const double *coef, int steps, unsigned long long *bad)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int transposed = G->rows > G->cols, use_gram = muon_ns_gram_path (G->rows, G->cols, o);
  size_t n = R.n, m = R.m;
  T *X = (T *) s->work, *Y = X + n * m, *S1 = Y + n * m, *S2 = S1 + n * n, *S3 = S2 + n * n,
    *S4 = S3 + n * n, *S5 = S4 + n * n;
  CUDA_TRY (cudaMemsetAsync (s->bad, 0, sizeof *s->bad, s->stream));
  for (size_t e = 0; e < G->batch; e++)
  {
    TRY (load_page (R, G, e, o, X, transposed));  // zero pages run on zeros, stored as +0
    if (use_gram)
      TRY (gram (R, coef, steps, o, X, Y, S1, S2, S3, S4, S5));
    else
      TRY (standard (R, coef, steps, X, Y, S1, S2, S3));
    TRY (store_page (R, X, transposed, out, e));
  }
  CUDA_TRY (cudaMemcpyAsync (bad, s->bad, sizeof *bad, cudaMemcpyDeviceToHost, s->stream));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

//---- the ABI ------------------------------------------------------------------------------

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

muon_status ns (void **state, const muon_tensor *G, muon_tensor *X, const muon_ns_opts *o,
                const double *coef, int steps, char *msg, size_t len)
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
  if (steps < 1 || o->precision < MUON_PREC_DOUBLE || o->precision > MUON_PREC_FP16)
  {
    snprintf (E.msg, E.len, "bad steps (%d) or precision (%d)", steps, (int) o->precision);
    return MUON_ERR_BADARG;
  }
  TRY (muon_tensor_fault (G, "G", E.msg, E.len));   // the checks of muon_tensor_check
  TRY (muon_tensor_fault (X, "X", E.msg, E.len));
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

  ns_state *s = (ns_state *) *state;
  if (s == NULL)                                  // first use: handle, stream, small buffers
  {
    char why[200];
    int count = 0;
    if (device_query (&count, why, sizeof why) == MUON_ERR_NODEVICE)
    {                                             // as the loader reports it: not a CUDA error
      snprintf (E.msg, E.len, "no CUDA device (%s)", why);
      return MUON_ERR_NODEVICE;
    }
    s = (ns_state *) calloc (1, sizeof *s);
    if (s == NULL)
    {
      snprintf (E.msg, E.len, "out of memory allocating the CUDA state");
      return MUON_ERR_NOMEM;
    }
    muon_status st = state_init (E, s);
    if (st != MUON_OK)
    {
      state_free (s);
      return st;
    }
    *state = s;
  }
  CUDA_TRY (cudaSetDevice (s->device));

  run R = {s, E, (int) o->precision,
           o->precision == MUON_PREC_BF16 || o->precision == MUON_PREC_FP16, n, m};
  size_t es = o->precision == MUON_PREC_DOUBLE ? sizeof (double) : sizeof (float);
  TRY (grow (E, &s->work, &s->work_bytes, (2 * n * m + 5 * n * n) * es));
  TRY (grow (E, &s->page_in, &s->in_bytes, G->rows * G->cols * dtype_size (G->dtype)));
  TRY (grow (E, &s->page_out, &s->out_bytes, X->rows * X->cols * dtype_size (X->dtype)));
  if (R.low)
    TRY (grow (E, (void **) &s->half, &s->half_bytes, (n * n + n * m) * sizeof (uint16_t)));

  unsigned long long bad = 0;
  if (o->precision == MUON_PREC_DOUBLE)
    TRY (batch<double> (R, G, X, o, coef, steps, &bad));
  else
    TRY (batch<float> (R, G, X, o, coef, steps, &bad));
  if (bad)
  {
    snprintf (E.msg, E.len, "%llu non-finite values in the result", bad);
    return MUON_WARN_NONFINITE;
  }
  return MUON_OK;
}

void release (void *state)
{
  state_free ((ns_state *) state);
}

}  // namespace

extern "C" __attribute__ ((visibility ("default")))
muon_status muon_cuda_get_api (int abi, void *table)
{
  muon_cuda_api *api = (muon_cuda_api *) table;
  if (api == NULL || abi != MUON_CUDA_ABI)
    return MUON_ERR_NOTBUILT;
  api->abi = MUON_CUDA_ABI;
  api->device_query = device_query;
  api->ns = ns;
  api->release = release;
  return MUON_OK;
}
