/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* darray_ops.c - the element-wise steps of the optimizer on device arrays (muon_math.h):
 * one AdamW step, the arithmetic muon_step does on parameters and gradients (X + Y, X - Y,
 * X * a, X / a) and its sums of squares (global norm, overflow check, update norm).
 *
 * Each op computes every element as inst/ computes it on host arrays of the class
 * (muon_darray_math.h, the code the CUDA kernels run too), so the CPU stand-in gives the host
 * path's bits; a CUDA sum of squares runs a fixed tree instead of Octave's ordered sum.
 */
#include <math.h>
#include <string.h>

#include "darray_impl.h"

muon_status muon_darray_adamw (muon_ctx *ctx, muon_darray *P, const muon_darray *G,
                               muon_darray *M, muon_darray *V, const double coef[7])
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, coef != NULL, "coef must not be NULL");
  CHECKSTATUS (check_pair (ctx, P, "P", G, "G"));
  CHECKSTATUS (check_pair (ctx, P, "P", M, "M"));
  CHECKSTATUS (check_pair (ctx, P, "P", V, "V"));
  CHECK (MUON_ERR_BADTYPE, !is_half (P->storage) && G->storage == P->storage
                             && M->storage == P->storage && V->storage == P->storage,
         "P, G, M and V must share one class, double or single");
  CHECK (MUON_ERR_BADARG, P != M && P != V && M != V && G != P && G != M && G != V,
         "P, G, M and V must be distinct arrays");
  if (P->device == MUON_DEVICE_CUDA)
  {
    const muon_cuda_api *api;
    void **st;
    char msg[256] = "";
    muon_tensor p = view (P), g = view (G), m = view (M), v = view (V);
    CHECKSTATUS (cuda_of (ctx, &api, &st));
    CHECKSTATUS (cuda_status (ctx, api->adamw (st, &p, &g, &m, &v, coef, msg, sizeof msg),
                              msg));
  }
  else if (P->storage == MUON_PREC_DOUBLE)
  {
    double *p = P->data, *m = M->data, *v = V->data;
    const double *g = G->data;
    for (size_t i = 0; i < P->numel; i++)
      muon_adamw_f64 (&p[i], g[i], &m[i], &v[i], coef);
  }
  else
  {
    float c[7], *p = P->data, *m = M->data, *v = V->data;
    const float *g = G->data;
    for (int k = 0; k < 7; k++)
      c[k] = (float) coef[k];
    for (size_t i = 0; i < P->numel; i++)
      muon_adamw_f32 (&p[i], g[i], &m[i], &v[i], c);
  }
fail:
  return status;
}

muon_status muon_darray_ew (muon_ctx *ctx, muon_ew_op op, const muon_darray *X,
                            const muon_darray *Y, double a, muon_darray *Z)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_EW_LIST, op), "unknown operation %d", (int) op);
  int binary = op == MUON_EW_ADD || op == MUON_EW_SUB || op == MUON_EW_FMA;
  CHECKSTATUS (check_pair (ctx, X, "X", Z, "Z"));
  if (binary)
    CHECKSTATUS (check_pair (ctx, X, "X", Y, "Y"));
  CHECK (MUON_ERR_BADTYPE, Z->storage == X->storage && (!binary || Y->storage == X->storage),
         "X, Y and Z must share one class");
  const void *y = binary ? Y->data : NULL;
  if (X->device == MUON_DEVICE_CUDA)
  {
    const muon_cuda_api *api;
    void **st;
    char msg[256] = "";
    CHECKSTATUS (cuda_of (ctx, &api, &st));
    CHECKSTATUS (cuda_status (ctx, api->ew (st, (int) op, X->data, y, a, Z->data,
                                            (int) X->storage, X->numel, msg, sizeof msg),
                              msg));
  }
  else
    for (size_t i = 0; i < X->numel; i++)
      muon_elem_store ((int) X->storage, Z->data, i,
                       muon_ew_value ((int) op, (int) X->storage, X->data, y, a, i));
fail:
  return status;
}

muon_status muon_darray_sumsq (muon_ctx *ctx, const muon_darray *X, const muon_darray *Y,
                               double *sumsq, int *finite)
{
  muon_status status = MUON_OK;
  int all_finite = 1;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, sumsq != NULL, "sumsq must not be NULL");
  CHECK (MUON_ERR_NULLPTR, X != NULL, "X must not be NULL");
  if (Y)
  {
    CHECKSTATUS (check_pair (ctx, X, "X", Y, "Y"));
    CHECK (MUON_ERR_BADTYPE, Y->storage == X->storage, "X and Y must share one class");
  }
  const void *y = Y ? Y->data : NULL;
  if (X->device == MUON_DEVICE_CUDA)
  {
    const muon_cuda_api *api;
    void **st;
    char msg[256] = "";
    CHECKSTATUS (cuda_of (ctx, &api, &st));
    CHECKSTATUS (cuda_status (ctx, api->sumsq (st, X->data, y, (int) X->storage, X->numel,
                                               sumsq, &all_finite, msg, sizeof msg), msg));
  }
  else
  {
    double acc = 0;                                // in order: Octave's sumsq
    for (size_t i = 0; i < X->numel; i++)
    {
      double d = muon_sumsq_term ((int) X->storage, X->data, y, i);
      all_finite &= isfinite (d) != 0;
      acc += d * d;
    }
    *sumsq = acc;
  }
  if (finite)
    *finite = all_finite;
fail:
  return status;
}

muon_status muon_darray_page_sumsq (muon_ctx *ctx, const muon_darray *X, double *sumsq,
                                    int *finite)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, X != NULL && sumsq != NULL && finite != NULL,
         "X, sumsq and finite must not be NULL");
  size_t page = X->rows * X->cols, elem = X->bytes / X->numel;
  for (size_t k = 0; k < X->batch; k++)
  {
    muon_darray one = *X;                        // a view of page k: the same memory
    one.data = (char *) X->data + k * page * elem;
    one.batch = 1;
    one.numel = page;
    one.bytes = page * elem;
    CHECKSTATUS (muon_darray_sumsq (ctx, &one, NULL, &sumsq[k], &finite[k]));
  }
fail:
  return status;
}
