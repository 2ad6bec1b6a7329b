/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* dmem_cuda.cu - the raw-memory kernels of the device ZeRO step (core/zero/zero_step_dev*.c,
 * through core/math/dmem.c): the row-major span of a column-major matrix and back, the
 * fixed-order reduction of W gathered blocks, the momentum step of a vector.  Entries of the
 * ABI table dev_cuda.cu fills; the per-element code is muon_darray_math.h's and
 * muon_update_math.h's, which the CPU stand-in runs too, so the two give the same bits (no
 * contraction: -fmad=false).
 */
#include <cstdio>

#include "cuda_state.h"
#include "muon_darray_math.h"
#include "muon_update_math.h"

namespace muon_cuda {

__global__ void k_rm_copy (int to_rm, double *A, size_t rows, size_t cols, size_t k0,
                           size_t n, double *R)
{
  FOR_EACH (i, n)
  {
    size_t at = muon_rm_at (k0 + i, rows, cols);
    if (to_rm)
      R[i] = A[at];
    else
      A[at] = R[i];
  }
}

__global__ void k_block_sum (const double *in, int W, size_t stride, size_t n, double div,
                             double *out)
{
  FOR_EACH (i, n)
    out[i] = muon_block_sum_at (in, W, stride, div, i);
}

__global__ void k_momentum_vec (int form, double beta, int nesterov, double *m, double *x,
                                size_t n)
{
  FOR_EACH (i, n)
  {
    double g = x[i];
    m[i] = muon_momentum_step (form, beta, m[i], g);
    x[i] = nesterov ? muon_nesterov_input (form, beta, m[i], g) : m[i];
  }
}

muon_status rm_copy_entry (void **state, int to_rm, double *A, size_t rows, size_t cols,
                           size_t k0, size_t k1, double *R, char *msg, size_t len)
{
  ENTRY_STATE ();
  if (A == NULL || R == NULL || k0 > k1 || rows == 0 || cols == 0 || k1 > rows * cols)
  {
    snprintf (E.msg, E.len, "rm_copy: NULL operand or elements [%zu, %zu) outside %zu x %zu",
              k0, k1, rows, cols);
    return MUON_ERR_BADARG;
  }
  if (k1 == k0)
    return MUON_OK;
  LAUNCH (k_rm_copy<<<grid_for (k1 - k0), THREADS, 0, s->stream>>> (to_rm, A, rows, cols, k0,
                                                                     k1 - k0, R));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

muon_status block_sum_entry (void **state, const double *in, int W, size_t stride, size_t n,
                             double div, double *out, char *msg, size_t len)
{
  ENTRY_STATE ();
  if (in == NULL || out == NULL || W < 1)
  {
    snprintf (E.msg, E.len, "block_sum: NULL operand or %d blocks", W);
    return MUON_ERR_BADARG;
  }
  if (n == 0)
    return MUON_OK;
  LAUNCH (k_block_sum<<<grid_for (n), THREADS, 0, s->stream>>> (in, W, stride, n, div, out));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

}  // namespace muon_cuda

namespace muon_cuda {

muon_status momentum_entry (void **state, int form, double beta, int nesterov, double *m,
                            double *x, size_t n, char *msg, size_t len)
{
  ENTRY_STATE ();
  if (m == NULL || x == NULL)
  {
    snprintf (E.msg, E.len, "momentum: NULL operand");
    return MUON_ERR_BADARG;
  }
  if (n == 0)
    return MUON_OK;
  LAUNCH (k_momentum_vec<<<grid_for (n), THREADS, 0, s->stream>>> (form, beta, nesterov, m, x,
                                                                    n));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

}  // namespace muon_cuda
