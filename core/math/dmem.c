/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* dmem.c - raw memory of device arrays for the layers above that lay out their own buffers
 * (the device ZeRO step, core/zero/zero_step_dev*.c; declared in math_internal.h): copies,
 * zeros, the row-major span of a column-major matrix, the fixed-order block reduction, the
 * momentum of a vector and the Muon update, on the CUDA back end (entries of the plug-in) or
 * the CPU stand-in (host memory).  The per-element code is muon_darray_math.h's and
 * muon_update_math.h's on both devices.
 */
#include <stdint.h>
#include <string.h>

#include "darray_impl.h"
#include "muon_update_math.h"

double *muon_darray_f64 (const muon_darray *a)
{
  return a && a->storage == MUON_PREC_DOUBLE ? a->data : NULL;
}

// The CUDA back end's entries and state, or the error of loading it.
#define CUDA_CALL(expr)                                                                 \
  do {                                                                                  \
    const muon_cuda_api *api;                                                           \
    void **st;                                                                          \
    char msg[256] = "";                                                                 \
    CHECKSTATUS (cuda_of (ctx, &api, &st));                                             \
    CHECKSTATUS (cuda_status (ctx, (expr), msg));                                       \
  } while (0)

muon_status muon_dmem_copy (muon_ctx *ctx, muon_device d, double *dst, const double *src,
                            size_t n)
{
  muon_status status = MUON_OK;
  if (n == 0 || dst == src)
    return MUON_OK;
  // cudaMemcpy's ranges must not overlap: the stand-in refuses what CUDA would garble
  uintptr_t a = (uintptr_t) dst, b = (uintptr_t) src, len = n * sizeof *dst;
  CHECK (MUON_ERR_BADARG, a + len <= b || b + len <= a,
         "a device copy's source and destination overlap");
  if (d == MUON_DEVICE_CUDA)
    CUDA_CALL (api->copy (st, dst, src, n * sizeof *dst, MUON_COPY_D2D, msg, sizeof msg));
  else
    memcpy (dst, src, n * sizeof *dst);
fail:
  return status;
}

muon_status muon_dmem_zero (muon_ctx *ctx, muon_device d, double *dst, size_t n)
{
  muon_status status = MUON_OK;
  if (n == 0)
    return MUON_OK;
  if (d == MUON_DEVICE_CUDA)
    CUDA_CALL (api->fill (st, dst, MUON_PREC_DOUBLE, n, MUON_FILL_ZEROS, 0, msg, sizeof msg));
  else
    memset (dst, 0, n * sizeof *dst);
fail:
  return status;
}

muon_status muon_dmem_rm (muon_ctx *ctx, muon_device d, int to_rm, double *A, size_t rows,
                          size_t cols, size_t k0, size_t k1, double *R)
{
  muon_status status = MUON_OK;
  if (k1 <= k0)
    return MUON_OK;
  if (d == MUON_DEVICE_CUDA)
    CUDA_CALL (api->rm_copy (st, to_rm, A, rows, cols, k0, k1, R, msg, sizeof msg));
  else
    for (size_t k = k0; k < k1; k++)
      if (to_rm)
        R[k - k0] = A[muon_rm_at (k, rows, cols)];
      else
        A[muon_rm_at (k, rows, cols)] = R[k - k0];
fail:
  return status;
}

muon_status muon_dmem_block_sum (muon_ctx *ctx, muon_device d, const double *in, int W,
                                 size_t stride, size_t n, double div, double *out)
{
  muon_status status = MUON_OK;
  if (n == 0)
    return MUON_OK;
  if (d == MUON_DEVICE_CUDA)
    CUDA_CALL (api->block_sum (st, in, W, stride, n, div, out, msg, sizeof msg));
  else
    for (size_t i = 0; i < n; i++)
      out[i] = muon_block_sum_at (in, W, stride, div, i);
fail:
  return status;
}

muon_status muon_dmem_momentum (muon_ctx *ctx, muon_device d, const muon_update_opts *o,
                                double *m, double *x, size_t n)
{
  muon_status status = MUON_OK;
  int form = (int) o->form;
  if (n == 0)
    return MUON_OK;
  if (d == MUON_DEVICE_CUDA)
    CUDA_CALL (api->momentum (st, form, o->beta, o->nesterov, m, x, n, msg, sizeof msg));
  else
    for (size_t i = 0; i < n; i++)
    {
      double g = x[i];
      m[i] = muon_momentum_step (form, o->beta, m[i], g);
      x[i] = o->nesterov ? muon_nesterov_input (form, o->beta, m[i], g) : m[i];
    }
fail:
  return status;
}

muon_status muon_dmem_update (muon_ctx *ctx, muon_device d, const double *G, double *M,
                              double *U, size_t rows, size_t cols, size_t experts,
                              const muon_update_opts *o)
{
  size_t n = rows * cols, bytes = n * sizeof (double);
  muon_darray g = { d, MUON_PREC_DOUBLE, rows, cols, 1, n, bytes, (void *) G, ctx };
  muon_darray m = g, u = g;
  m.data = M;
  u.data = U;
  return muon_darray_update (ctx, &g, M ? &m : NULL, &u, o, experts);
}
