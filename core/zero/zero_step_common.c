/* zero_step_common.c - the helpers every distributed Muon variant uses (zero_step_impl.h):
 * an owned span into the update buffer, one muon_update or Newton-Schulz call with its count,
 * a matrix out of a partitioned buffer, per-rank buffers.  The variants are zero_step.c (the
 * ZeRO-1/2 family, the dispatcher) and zero_step_rr.c (round robin, LPT); both call down to
 * this file, and neither calls the other's variants back.
 */
#include <stdlib.h>

#include "zero_step_impl.h"

void zstep_put_owned (zstep *z, int l, size_t p, const double *U)
{
  const muon_zero_plan *P = z->P;
  size_t r = (size_t) zrank (z, l);
  muon_zero_span s = P->owned[r * P->nparams + p];
  const muon_zero_param *q = &P->L->params[p];
  double *dst = z->upd[l] + z->upd_at[r * P->nparams + p];
  for (size_t k = s.start; k < s.stop; k++)
    dst[k - s.start] = U[zcm (k, q->rows, q->cols)];
}

muon_status zstep_update (zstep *z, int l, const double *G, double *M, double *U, size_t rows,
                          size_t cols)
{
  muon_tensor tg = muon_tensor_matrix (MUON_F64, (void *) G, rows, cols);
  muon_tensor tm = muon_tensor_matrix (MUON_F64, M, rows, cols);
  muon_tensor tu = muon_tensor_matrix (MUON_F64, U, rows, cols);
  muon_status s = muon_update (z->ctx, &tg, &tm, &tu, &z->o->update);
  z->warned |= s == MUON_WARN_NONFINITE;
  z->st[l].ns_calls++;
  return s < 0 ? s : MUON_OK;
}

muon_status zstep_orthogonalize (zstep *z, int l, const double *X, double *U, size_t rows,
                                 size_t cols)
{
  muon_tensor tx = muon_tensor_matrix (MUON_F64, (void *) X, rows, cols);
  muon_tensor tu = muon_tensor_matrix (MUON_F64, U, rows, cols);
  muon_status s = muon_update_orthogonalize (z->ctx, &tx, &tu, &z->o->update);
  z->warned |= s == MUON_WARN_NONFINITE;
  z->st[l].ns_calls++;
  return s < 0 ? s : MUON_OK;
}

void zstep_unpack (const muon_zero_layout *part, const double *buf, size_t p, double *out)
{
  const muon_zero_param *q = &part->params[p];
  size_t S = part->partition_size;
  for (size_t i = 0; i < part->npieces; i++)
  {
    const muon_zero_piece *c = &part->pieces[i];
    if (c->param != p)
      continue;
    const double *src = buf + (size_t) c->rank * S + c->part_start;
    for (size_t k = c->local_start; k < c->local_stop; k++)
      out[zcm (k, q->rows, q->cols)] = src[k - c->local_start];
  }
}

muon_status zstep_alloc_bufs (zstep *z, size_t count, double ***bufs)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  double **b = NULL;
  CHECKMEM (b = calloc ((size_t) z->nl, sizeof *b));
  for (int l = 0; l < z->nl; l++)
    CHECKMEM (b[l] = calloc (count ? count : 1, sizeof *b[l]));
  *bufs = b;
  return MUON_OK;
fail:
  zstep_free_bufs (z, b);
  *bufs = NULL;
  return status;
}

void zstep_free_bufs (zstep *z, double **bufs)
{
  if (bufs == NULL)
    return;
  for (int l = 0; l < z->nl; l++)
    free (bufs[l]);
  free (bufs);
}
