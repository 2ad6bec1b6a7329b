/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* opt_cuda.cu - the optimizer steps of libmuon_cuda.so on device tensors: one Muon update
 * (update_entry), one AdamW step (adamw_entry), and the element-wise arithmetic and sums of
 * squares of muon_step on device parameters (ew_entry, sumsq_entry), entries of the ABI
 * table dev_cuda.cu fills.
 *
 * The update runs update.c's order with muon_update_math.h's per-element maths (fp64,
 * rounded once into M's type, or torch's with explicit fma / fmaf; the plug-in is built with
 * -fmad=false, as the CPU core with -ffp-contract=off), then ns_pages on each row block of
 * device tensors, then the scale.
 */
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cuda_state.h"
#include "muon_darray_math.h"
#include "muon_update_math.h"
#include "tensor_check.h"

namespace muon_cuda {

//---- kernels ------------------------------------------------------------------------------

template <typename TG, typename TM>
__global__ void k_momentum (int arith, int form, int pm, int px, double beta, const TG *g,
                            size_t g_ld, size_t g_stride, TM *mm, size_t m_ld, size_t m_stride,
                            double *x, size_t rows, size_t cols, size_t pages)
{
  FOR_EACH (at, rows * cols * pages)
  {
    size_t i = at % rows, j = (at / rows) % cols, e = at / (rows * cols);
    double gv = (double) g[e * g_stride + j * g_ld + i];
    size_t mi = e * m_stride + j * m_ld + i;
    TM mv = (TM) muon_momentum_step_as (arith, form, pm, beta, (double) mm[mi], gv);
    mm[mi] = mv;
    if (x)
      x[at] = muon_nesterov_input_as (arith, form, pm, px, beta, (double) mv, gv);
  }
}

// U *= scale on one row block (rows x cols x pages, ld, stride) unless scale is 1; counts
// the non-finite values.
template <typename T>
__global__ void k_scale_block (T *u, size_t rows, size_t cols, size_t pages, size_t ld,
                               size_t stride, double scale, unsigned long long *bad)
{
  unsigned long long count = 0;
  FOR_EACH (at, rows * cols * pages)
  {
    size_t i = at % rows, j = (at / rows) % cols, e = at / (rows * cols);
    T *p = u + e * stride + j * ld + i;
    T v = scale == 1 ? *p : (T) (scale * (double) *p);
    *p = v;
    count += !isfinite (v);
  }
  if (count)
    atomicAdd (bad, count);
}

// One AdamW step of every element (muon_darray_math.h).
__global__ void k_adamw_f64 (double *p, const double *g, double *m, double *v, size_t n,
                             double c0, double c1, double c2, double c3, double c4, double c5,
                             double c6)
{
  const double c[7] = { c0, c1, c2, c3, c4, c5, c6 };
  FOR_EACH (i, n)
    muon_adamw_f64 (&p[i], g[i], &m[i], &v[i], c);
}

__global__ void k_adamw_f32 (float *p, const float *g, float *m, float *v, size_t n,
                             float c0, float c1, float c2, float c3, float c4, float c5,
                             float c6)
{
  const float c[7] = { c0, c1, c2, c3, c4, c5, c6 };
  FOR_EACH (i, n)
    muon_adamw_f32 (&p[i], g[i], &m[i], &v[i], c);
}

// z = x op y / x op a / fma (a, x, y), element-wise (muon_darray_math.h).
__global__ void k_ew (int op, int st, const void *x, const void *y, double a, void *z,
                      size_t n)
{
  FOR_EACH (i, n)
    muon_elem_store (st, z, i, muon_ew_value (op, st, x, y, a, i));
}

// The sum of squares runs on a fixed grid of SUMSQ_BLOCKS blocks whatever the card: each
// thread sums a fixed stride of the terms in order, each block a fixed tree of its threads'
// sums, one block the tree of the block sums.  Same input, same bits, on every run.
const int SUMSQ_BLOCKS = 256;

__device__ void tree_sum (double *sh)
{
  for (int w = THREADS / 2; w > 0; w >>= 1)
  {
    __syncthreads ();
    if ((int) threadIdx.x < w)
      sh[threadIdx.x] += sh[threadIdx.x + w];
  }
  __syncthreads ();
}

__global__ void k_sumsq_blocks (const void *x, const void *y, int st, size_t n,
                                double *part, int *bad)
{
  __shared__ double sh[THREADS];
  double acc = 0;
  int nonfinite = 0;
  for (size_t i = (size_t) blockIdx.x * THREADS + threadIdx.x; i < n;
       i += (size_t) SUMSQ_BLOCKS * THREADS)
  {
    double d = muon_sumsq_term (st, x, y, i);
    nonfinite |= !isfinite (d);
    acc += d * d;
  }
  sh[threadIdx.x] = acc;
  tree_sum (sh);
  if (threadIdx.x == 0)
    part[blockIdx.x] = sh[0];
  if (nonfinite)
    atomicOr (bad, 1);
}

__global__ void k_sumsq_total (double *part)
{
  __shared__ double sh[THREADS];
  double acc = 0;
  for (int b = threadIdx.x; b < SUMSQ_BLOCKS; b += THREADS)
    acc += part[b];
  sh[threadIdx.x] = acc;
  tree_sum (sh);
  if (threadIdx.x == 0)
    part[0] = sh[0];
}

//---- entries ------------------------------------------------------------------------------

// Rows r0 .. r0 + rows - 1 of every page of t (same ld, stride and batch).
muon_tensor row_block (const muon_tensor *t, size_t r0, size_t rows)
{
  muon_tensor v = *t;
  size_t bytes = t->dtype == MUON_F64 ? sizeof (double) : sizeof (float);
  v.rows = rows;
  v.data = (char *) t->data + r0 * bytes;
  return v;
}

template <typename TG, typename TM>
muon_status momentum (ns_state *s, errbuf &E, const muon_tensor *G, muon_tensor *M,
                      const muon_update_opts *o, double *x)
{
  size_t n = G->rows * G->cols * G->batch;
  // torch's storage classes (update.c): 0 double, 1 single, 2 bf16, 3 fp16
  int pm = M->dtype == MUON_F64 ? 0 : o->m_class ? (int) o->m_class : 1;
  int px = G->dtype == MUON_F64 ? 0 : o->g_class ? (int) o->g_class : 1;
  LAUNCH (k_momentum<TG, TM><<<grid_for (n), THREADS, 0, s->stream>>> (
    (int) o->arith, (int) o->form, pm, px, o->beta, (const TG *) G->data, G->ld, G->stride,
    (TM *) M->data, M->ld, M->stride, x, G->rows, G->cols, G->batch));
  return MUON_OK;
}

muon_status update_steps (ns_state *s, errbuf &E, const muon_tensor *G, muon_tensor *M,
                          muon_tensor *U, const muon_update_opts *o, const double *coef,
                          int steps, double *x, unsigned long long *bad, int *warned)
{
  if (M == NULL)                                  // the orthogonalize half: X = G
    ;
  else if (G->dtype == MUON_F64 && M->dtype == MUON_F64)
    TRY ((momentum<double, double> (s, E, G, M, o, x)));
  else if (G->dtype == MUON_F64)
    TRY ((momentum<double, float> (s, E, G, M, o, x)));
  else if (M->dtype == MUON_F64)
    TRY ((momentum<float, double> (s, E, G, M, o, x)));
  else
    TRY ((momentum<float, float> (s, E, G, M, o, x)));
  muon_tensor X = M ? *M : *G;
  if (x)
  {
    X.dtype = MUON_F64;                           // dense fp64 rows x cols x batch
    X.device = MUON_DEVICE_CUDA;
    X.ld = G->rows;
    X.stride = G->rows * G->cols;
    X.data = x;
  }
  CUDA_TRY (cudaMemsetAsync (s->bad_scaled, 0, sizeof *s->bad_scaled, s->stream));
  size_t nblocks = o->nsplit ? o->nsplit : 1, r0 = 0;
  unsigned long long ns_bad = 0;
  for (size_t k = 0; k < nblocks; k++)
  {
    size_t rk = o->nsplit ? o->split_rows[k] : G->rows;
    muon_tensor Xk = row_block (&X, r0, rk), Uk = row_block (U, r0, rk);
    unsigned long long page_bad = 0;
    TRY (ns_pages (s, E, &Xk, &Uk, &o->ns, coef, steps, &page_bad));
    ns_bad += page_bad;
    double scale = o->scale_rows
      ? muon_update_scale_value ((int) o->scale, (double) o->scale_rows,
                                 (double) o->scale_cols, o->scale_factor)
      : muon_update_scale_value ((int) o->scale, (double) rk, (double) G->cols,
                                 o->scale_factor);
    size_t n = rk * Uk.cols * Uk.batch;
    if (Uk.dtype == MUON_F64)
      LAUNCH (k_scale_block<double><<<grid_for (n), THREADS, 0, s->stream>>> (
        (double *) Uk.data, rk, Uk.cols, Uk.batch, Uk.ld, Uk.stride, scale, s->bad_scaled));
    else
      LAUNCH (k_scale_block<float><<<grid_for (n), THREADS, 0, s->stream>>> (
        (float *) Uk.data, rk, Uk.cols, Uk.batch, Uk.ld, Uk.stride, scale, s->bad_scaled));
    r0 += rk;
  }
  CUDA_TRY (cudaMemcpyAsync (bad, s->bad_scaled, sizeof *bad, cudaMemcpyDeviceToHost,
                             s->stream));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  *warned = ns_bad > 0;
  return MUON_OK;
}

// What ns_pages and the row blocks would refuse, checked before the momentum step writes M:
// a direct caller of the plug-in (libmuon checks these in muon_update_check_opts first) that
// passes bad steps, precision or row blocks gets the error and M as it was.
muon_status update_check (errbuf &E, const muon_tensor *G, const muon_update_opts *o,
                          int steps)
{
  if (steps < 1 || !MUON_IN_LIST (MUON_PRECISION_LIST, o->ns.precision))
  {
    snprintf (E.msg, E.len, "bad steps (%d) or precision (%d)", steps, (int) o->ns.precision);
    return MUON_ERR_BADARG;
  }
  if (o->nsplit > MUON_MAX_SPLITS || (o->nsplit && o->split_rows == NULL))
  {
    snprintf (E.msg, E.len, "bad row blocks (%zu, at most %d)", o->nsplit, MUON_MAX_SPLITS);
    return MUON_ERR_BADARG;
  }
  size_t sum = 0;
  for (size_t k = 0; k < o->nsplit; k++)
  {
    if (o->split_rows[k] < 1 || o->split_rows[k] > G->rows - sum)
    {
      snprintf (E.msg, E.len, "the row blocks must be positive and sum to the %zu rows",
                G->rows);
      return MUON_ERR_BADSHAPE;
    }
    sum += o->split_rows[k];
  }
  if (o->nsplit && sum != G->rows)
  {
    snprintf (E.msg, E.len, "the row blocks must be positive and sum to the %zu rows",
              G->rows);
    return MUON_ERR_BADSHAPE;
  }
  if (G->rows > (size_t) INT_MAX || G->cols > (size_t) INT_MAX)
  {
    snprintf (E.msg, E.len, "dimensions must fit a cuBLAS int");
    return MUON_ERR_BADSHAPE;
  }
  return MUON_OK;
}

muon_status update_entry (void **state, const muon_tensor *G, muon_tensor *M, muon_tensor *U,
                          const muon_update_opts *o, const double *coef, int steps, char *msg,
                          size_t len)
{
  ENTRY_STATE ();
  if (G == NULL || U == NULL || o == NULL || coef == NULL)
  {
    snprintf (E.msg, E.len, "G, U, options and coefficients must not be NULL");
    return MUON_ERR_NULLPTR;
  }
  TRY (muon_tensor_fault_on (G, "G", MUON_DEVICE_CUDA, E.msg, E.len));
  if (M)                                          // NULL: no momentum (X = G)
    TRY (muon_tensor_fault_on (M, "M", MUON_DEVICE_CUDA, E.msg, E.len));
  TRY (muon_tensor_fault_on (U, "U", MUON_DEVICE_CUDA, E.msg, E.len));
  if ((M && (M->rows != G->rows || M->cols != G->cols || M->batch != G->batch))
      || U->rows != G->rows || U->cols != G->cols || U->batch != G->batch)
  {
    snprintf (E.msg, E.len, "M and U must be %zu x %zu x %zu like G", G->rows, G->cols,
              G->batch);
    return MUON_ERR_BADSHAPE;
  }
  TRY (update_check (E, G, o, steps));            // all of it before M is written
  s->timed = 0;                                   // until this call has both events
  CUDA_TRY (cudaEventRecord (s->t_start, s->stream));   // before x: no return holds it
  double *x = NULL;
  if (o->nesterov && M)
    TRY (pool_alloc (s, E, G->rows * G->cols * G->batch * sizeof (double), (void **) &x));
  unsigned long long bad = 0;
  int warned = 0;
  muon_status st = update_steps (s, E, G, M, U, o, coef, steps, x, &bad, &warned);
  if (st != MUON_OK)
    cudaStreamSynchronize (s->stream);            // nothing queued writes x once it is back
  pool_free (s, x);
  TRY (st);
  CUDA_TRY (cudaEventRecord (s->t_stop, s->stream));
  s->timed = 1;
  if (bad || warned)
  {
    snprintf (E.msg, E.len, "%llu non-finite values in the update", bad);
    return MUON_WARN_NONFINITE;
  }
  return MUON_OK;
}

muon_status adamw_entry (void **state, muon_tensor *P, const muon_tensor *G, muon_tensor *M,
                         muon_tensor *V, const double coef[7], char *msg, size_t len)
{
  ENTRY_STATE ();
  const muon_tensor *t[] = { P, G, M, V };
  for (const muon_tensor *x : t)
    TRY (muon_tensor_fault_on (x, "P, G, M and V", MUON_DEVICE_CUDA, E.msg, E.len));
  size_t n = P->rows * P->cols * P->batch;
  if (P->dtype == MUON_F64)
    LAUNCH (k_adamw_f64<<<grid_for (n), THREADS, 0, s->stream>>> (
      (double *) P->data, (const double *) G->data, (double *) M->data, (double *) V->data, n,
      coef[0], coef[1], coef[2], coef[3], coef[4], coef[5], coef[6]));
  else
    LAUNCH (k_adamw_f32<<<grid_for (n), THREADS, 0, s->stream>>> (
      (float *) P->data, (const float *) G->data, (float *) M->data, (float *) V->data, n,
      (float) coef[0], (float) coef[1], (float) coef[2], (float) coef[3], (float) coef[4],
      (float) coef[5], (float) coef[6]));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

muon_status ew_entry (void **state, int op, const void *x, const void *y, double a, void *z,
                      int st, size_t n, char *msg, size_t len)
{
  ENTRY_STATE ();
  if (x == NULL || z == NULL || !MUON_IN_LIST (MUON_EW_LIST, op)
      || !MUON_IN_LIST (MUON_PRECISION_LIST, st)
      || ((op == MUON_EW_ADD || op == MUON_EW_SUB || op == MUON_EW_FMA) && y == NULL))
  {
    snprintf (E.msg, E.len, "ew: bad operation %d, class %d or NULL operand", op, st);
    return MUON_ERR_BADARG;
  }
  LAUNCH (k_ew<<<grid_for (n), THREADS, 0, s->stream>>> (op, st, x, y, a, z, n));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

// The sum into part[0] and the flag into *host_bad, on s's stream (part: SUMSQ_BLOCKS
// doubles then an int, device memory).
muon_status sumsq_run (ns_state *s, errbuf &E, const void *x, const void *y, int st, size_t n,
                       double *part, double *sumsq, int *host_bad)
{
  int *bad = (int *) (part + SUMSQ_BLOCKS);
  CUDA_TRY (cudaMemsetAsync (bad, 0, sizeof *bad, s->stream));
  LAUNCH (k_sumsq_blocks<<<SUMSQ_BLOCKS, THREADS, 0, s->stream>>> (x, y, st, n, part, bad));
  LAUNCH (k_sumsq_total<<<1, THREADS, 0, s->stream>>> (part));
  CUDA_TRY (cudaMemcpyAsync (sumsq, part, sizeof *sumsq, cudaMemcpyDeviceToHost, s->stream));
  CUDA_TRY (cudaMemcpyAsync (host_bad, bad, sizeof *host_bad, cudaMemcpyDeviceToHost,
                             s->stream));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

muon_status sumsq_entry (void **state, const void *x, const void *y, int st, size_t n,
                         double *sumsq, int *finite, char *msg, size_t len)
{
  ENTRY_STATE ();
  if (x == NULL || sumsq == NULL || finite == NULL || !MUON_IN_LIST (MUON_PRECISION_LIST, st))
  {
    snprintf (E.msg, E.len, "sumsq: class %d or NULL operand", st);
    return MUON_ERR_BADARG;
  }
  void *part = NULL;
  int bad = 0;
  TRY (pool_alloc (s, E, SUMSQ_BLOCKS * sizeof (double) + sizeof (int), &part));
  muon_status status = sumsq_run (s, E, x, y, st, n, (double *) part, sumsq, &bad);
  if (status != MUON_OK)
    cudaStreamSynchronize (s->stream);            // nothing queued writes part once it is back
  pool_free (s, part);
  *finite = !bad;
  return status;
}

}  // namespace muon_cuda
