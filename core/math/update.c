/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* update.c - the Muon update on the CPU: momentum, Nesterov input, Newton-Schulz per block,
 * update scale (MUON_FACTS 1.4, 2, 3, 5, 8; muon_math.h).
 *
 *   1. per element (muon_update_math.h, fp64 or torch's): M = step (M, G); X = nesterov (M, G)
 *      or M
 *   2. per block (a page, or a row block of a page with split_rows):  U = muon_ns (X)
 *   3. per block:  U *= scale (block rows, block cols) * scale_factor
 *
 * Blocks are strided views of X and U (a fused expert weight arrives as a strided batch,
 * split row blocks are the same tensors with fewer rows and a shifted start), so nothing is
 * copied but the fp64 Newton-Schulz input X of the Nesterov variant.  G is never written.
 *
 * Usage: see muon_math.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "math_internal.h"
#include "tensor_check.h"
#include "muon_update_math.h"

//---- options ------------------------------------------------------------------------------

// Every field not named is 0 or NULL; ns is muon_ns_opts_default's.
static const muon_update_opts update_defaults = {
  .beta = 0.95, .nesterov = 1, .form = MUON_MOMENTUM_EMA, .scale = MUON_SCALE_KELLER,
  .scale_factor = 1
};

void muon_update_opts_default (muon_update_opts *o)
{
  if (o == NULL)
    return;
  memcpy (o, &update_defaults, sizeof *o);
  muon_ns_opts_default (&o->ns);
}

muon_status muon_update_check_opts (muon_ctx *ctx, const muon_update_opts *o, size_t rows)
{
  muon_status status = MUON_OK;
  CHECK (MUON_ERR_NULLPTR, o != NULL, "options must not be NULL");
  CHECK (MUON_ERR_BADARG, isfinite (o->beta) && o->beta >= 0 && o->beta < 1,
         "beta must be in [0, 1)");
  CHECK (MUON_ERR_BADARG, o->nesterov == 0 || o->nesterov == 1, "nesterov must be 0 or 1");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_MOMENTUM_FORM_LIST, o->form),
         "unknown momentum form %d", (int) o->form);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_MOMENTUM_ARITH_LIST, o->arith),
         "unknown momentum arithmetic %d", (int) o->arith);
  CHECK (MUON_ERR_BADARG, (o->g_class == MUON_PREC_DOUBLE || o->g_class == MUON_PREC_BF16
                           || o->g_class == MUON_PREC_FP16)
                          && (o->m_class == MUON_PREC_DOUBLE || o->m_class == MUON_PREC_BF16
                              || o->m_class == MUON_PREC_FP16),
         "the classes of G and M must be double (their own type), bf16 or fp16");
  CHECK (MUON_ERR_UNSUPPORTED, !(o->arith == MUON_ARITH_TORCH && o->form == MUON_MOMENTUM_SGD
                            && o->nesterov && (o->g_class || o->m_class)),
         "torch's momentum arithmetic of the sgd form with Nesterov has no fixed bits on "
         "bf16 or fp16 arrays (torch's add with alpha rounds them two ways)");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_SCALE_RULE_LIST, o->scale),
         "unknown scale rule %d", (int) o->scale);
  CHECK (MUON_ERR_BADARG, isfinite (o->scale_factor) && o->scale_factor > 0,
         "the scale factor must be finite and positive");
  CHECK (MUON_ERR_BADARG, (o->scale_rows == 0) == (o->scale_cols == 0),
         "scale_rows and scale_cols must both be 0 or both positive");
  CHECK (MUON_ERR_NULLPTR, o->nsplit == 0 || o->split_rows != NULL,
         "split_rows must not be NULL when nsplit is %zu", o->nsplit);
  CHECK (MUON_ERR_BADARG, o->nsplit <= MUON_MAX_SPLITS, "at most %d row blocks",
         MUON_MAX_SPLITS);
  size_t sum = 0;
  for (size_t k = 0; k < o->nsplit; k++)
  {
    CHECK (MUON_ERR_BADSHAPE, o->split_rows[k] >= 1, "row block %zu is empty", k + 1);
    CHECK (MUON_ERR_BADSHAPE, o->split_rows[k] <= SIZE_MAX - sum,
           "the row blocks sum to more than the %zu rows", rows);   // (past SIZE_MAX)
    sum += o->split_rows[k];
  }
  CHECK (MUON_ERR_BADSHAPE, o->nsplit == 0 || sum == rows,
         "the row blocks sum to %zu, not to the %zu rows", sum, rows);
  // the Newton-Schulz options too, and the back end they ask for (a CUDA back end that is
  // not built, or finds no device: NOTBUILT / NODEVICE), before the caller's momentum is
  // touched
  double coef[3 * MUON_MAX_STEPS];
  int steps;
  CHECKSTATUS (muon_ns_check_opts (ctx, &o->ns));
  CHECKSTATUS (muon_ns_schedule (ctx, &o->ns, coef, MUON_MAX_STEPS, &steps));
  if (o->ns.device == MUON_DEVICE_CUDA)
    CHECKSTATUS (muon_cuda_load (ctx));
  else                                  // ('onednn' in a build without it)
    CHECKSTATUS (muon_gemm_check_provider (ctx, o->ns.gemm));
fail:
  return status;
}

//---- tensors ------------------------------------------------------------------------------


static inline double get (const muon_tensor *t, size_t at)
{
  return t->dtype == MUON_F64 ? ((const double *) t->data)[at]
                              : (double) ((const float *) t->data)[at];
}

// Stores v rounded once to t's type and returns the stored value.
static inline double put (muon_tensor *t, size_t at, double v)
{
  if (t->dtype == MUON_F64)
    return ((double *) t->data)[at] = v;
  return (double) (((float *) t->data)[at] = (float) v);
}

// Rows r0 .. r0 + rows - 1 of every page of t: same ld, stride and batch.
static muon_tensor row_block (const muon_tensor *t, size_t r0, size_t rows)
{
  muon_tensor v = *t;
  size_t bytes = t->dtype == MUON_F64 ? sizeof (double) : sizeof (float);
  v.rows = rows;
  v.data = (char *) t->data + r0 * bytes;
  return v;
}

//---- the update ---------------------------------------------------------------------------

muon_status muon_update_scale (muon_ctx *ctx, muon_scale_rule rule, size_t rows, size_t cols,
                               double factor, double *scale)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, scale != NULL, "scale must not be NULL");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_SCALE_RULE_LIST, rule),
         "unknown scale rule %d", (int) rule);
  CHECK (MUON_ERR_BADSHAPE, rows >= 1 && cols >= 1, "rows and cols must be positive");
  CHECK (MUON_ERR_BADARG, isfinite (factor), "the scale factor must be finite");
  *scale = muon_update_scale_value ((int) rule, (double) rows, (double) cols, factor);
fail:
  return status;
}

muon_status muon_update_orthogonalize (muon_ctx *ctx, const muon_tensor *X, muon_tensor *U,
                                       const muon_update_opts *o)
{
  muon_status status = MUON_OK;
  size_t bad = 0, rows = X->rows, cols = X->cols, batch = X->batch;
  int warned = 0;
  size_t nblocks = o->nsplit ? o->nsplit : 1, r0 = 0;
  for (size_t k = 0; k < nblocks; k++)
  {
    size_t rk = o->nsplit ? o->split_rows[k] : rows;
    muon_tensor Xk = row_block (X, r0, rk), Uk = row_block (U, r0, rk);
    muon_status s = muon_ns (ctx, &Xk, &Uk, &o->ns);
    CHECKSTATUS (s);
    warned |= s == MUON_WARN_NONFINITE;
    double scale = o->scale_rows
      ? muon_update_scale_value ((int) o->scale, (double) o->scale_rows,
                                 (double) o->scale_cols, o->scale_factor)
      : muon_update_scale_value ((int) o->scale, (double) rk, (double) cols, o->scale_factor);
    for (size_t e = 0; e < batch; e++)
      for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rk; i++)
        {
          size_t at = e * Uk.stride + j * Uk.ld + i;
          double u = scale == 1 ? get (&Uk, at) : put (&Uk, at, scale * get (&Uk, at));
          bad += !isfinite (u);
        }
    r0 += rk;
  }
  if (bad || warned)
    status = muon_ctx_set_error (ctx, MUON_WARN_NONFINITE,
                                 "%zu non-finite values in the update", bad);
fail:
  return status;
}

// Step 1 of the update, element by element: M = step (M, G) and, X not NULL, X = the
// Nesterov input (rounded into X's type; torch's is a value of G's class already) or M.
static void momentum_step (const muon_tensor *G, muon_tensor *M, muon_tensor *X,
                           const muon_update_opts *o)
{
  size_t rows = G->rows, cols = G->cols, batch = G->batch;
  int form = (int) o->form, arith = (int) o->arith;
  // torch's storage classes (muon_update_math.h): 0 double, 1 single, 2 bf16, 3 fp16
  int pm = M->dtype == MUON_F64 ? 0 : o->m_class ? (int) o->m_class : 1;
  int px = G->dtype == MUON_F64 ? 0 : o->g_class ? (int) o->g_class : 1;
  double beta = o->beta;
  for (size_t e = 0; e < batch; e++)
    for (size_t j = 0; j < cols; j++)
      for (size_t i = 0; i < rows; i++)
      {
        double g = get (G, e * G->stride + j * G->ld + i);
        size_t at = e * M->stride + j * M->ld + i;
        double m = put (M, at, muon_momentum_step_as (arith, form, pm, beta, get (M, at), g));
        if (X)
          put (X, e * X->stride + j * X->ld + i,
               o->nesterov ? muon_nesterov_input_as (arith, form, pm, px, beta, m, g) : m);
      }
}

// The tensors of muon_update and muon_update_momentum: G, M and the output Y (named yname:
// "U" or "X") valid, of G's shape, none overlapping another; then the options.
static muon_status check_tensors (muon_ctx *ctx, const muon_tensor *G, const muon_tensor *M,
                                  const muon_tensor *Y, const char *yname,
                                  const muon_update_opts *o)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECKSTATUS (muon_tensor_check (ctx, G, "G"));
  CHECKSTATUS (muon_tensor_check (ctx, M, "M"));
  CHECKSTATUS (muon_tensor_check (ctx, Y, yname));
  CHECK (MUON_ERR_BADSHAPE, M->rows == G->rows && M->cols == G->cols && M->batch == G->batch,
         "M must be %zu x %zu x %zu like G", G->rows, G->cols, G->batch);
  CHECK (MUON_ERR_BADSHAPE, Y->rows == G->rows && Y->cols == G->cols && Y->batch == G->batch,
         "%s must be %zu x %zu x %zu like G", yname, G->rows, G->cols, G->batch);
  CHECK (MUON_ERR_BADARG, !muon_tensors_overlap (M, G) && !muon_tensors_overlap (Y, G)
                           && !muon_tensors_overlap (Y, M),
         "G, M and %s must not overlap", yname);
  CHECKSTATUS (muon_update_check_opts (ctx, o, G->rows));
fail:
  return status;
}

muon_status muon_update_momentum (muon_ctx *ctx, const muon_tensor *G, muon_tensor *M,
                                  muon_tensor *X, const muon_update_opts *o)
{
  muon_status status = check_tensors (ctx, G, M, X, "X", o);
  if (status == MUON_OK)
    momentum_step (G, M, X, o);
  return status;
}

muon_status muon_update (muon_ctx *ctx, const muon_tensor *G, muon_tensor *M, muon_tensor *U,
                         const muon_update_opts *o)
{
  muon_status status = MUON_OK;
  double *xbuf = NULL;
  CHECKSTATUS (check_tensors (ctx, G, M, U, "U", o));
  if (o->ns.trace)   // muon_ns's check of the trace for each block's call, before M is written
  {
    double coef[3 * MUON_MAX_STEPS];
    int steps;
    CHECKSTATUS (muon_ns_schedule (ctx, &o->ns, coef, MUON_MAX_STEPS, &steps));
    for (size_t k = 0; k < (o->nsplit ? o->nsplit : 1); k++)
      CHECKSTATUS (muon_ns_trace_check (ctx, o->ns.trace, o->nsplit ? o->split_rows[k]
                                        : G->rows, G->cols, G->batch, steps));
    const muon_tensor *t[3] = { G, M, U };
    const char *names[3] = { "G", "M", "U" };
    CHECKSTATUS (muon_ns_trace_check_alias (ctx, o->ns.trace, t, names, 3));
  }

  size_t rows = G->rows, cols = G->cols, batch = G->batch;
  CHECK (MUON_ERR_BADSHAPE, cols <= SIZE_MAX / rows && batch <= SIZE_MAX / (rows * cols)
                              && rows * cols * batch <= SIZE_MAX / sizeof (double),
         "G is too large");

  // 1. momentum and the Newton-Schulz input X (dense fp64, rows x cols x batch), or X = M
  muon_tensor X = *M;
  if (o->nesterov)
  {
    xbuf = malloc (rows * cols * batch * sizeof *xbuf);
    CHECKMEM (xbuf);
    X = muon_tensor_batch (MUON_F64, xbuf, rows, cols, batch);
  }
  momentum_step (G, M, xbuf ? &X : NULL, o);

  // 2, 3. per row block (the whole page without split_rows): NS, then the scale
  status = muon_update_orthogonalize (ctx, &X, U, o);
fail:
  free (xbuf);
  return status;
}
