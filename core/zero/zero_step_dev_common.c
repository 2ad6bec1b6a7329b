/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_dev_common.c - what the designs of the device step share (zero_step_dev.h): the
 * device buffers, the averages in the fixed order (or the library's sum) moved by the
 * communicator, the ragged all-to-all, the orthogonalize half of the update; the twin of
 * zero_step_common.c.  The designs call down to this file, and none calls another's.
 */
#include <stdint.h>
#include <stdlib.h>

#include "comm_stage.h"          // MUON_STAGE_ELEMS: the pieces of the fixed order
#include "zero_step_dev.h"

//---- device buffers and averages -----------------------------------------------------------

// A double buffer of n elements on the step's device (n >= 1).  [out] *a, *p its memory.
muon_status zdev_scratch (zdev *z, size_t n, muon_darray **a, double **p)
{
  muon_status s = muon_darray_create (z->ctx, z->dev, MUON_PREC_DOUBLE, n ? n : 1, 1, 1, a);
  *p = s == MUON_OK ? muon_darray_f64 (*a) : NULL;
  return s;
}

// nl buffers of n elements, one per local rank: arrays a[nl], their memory p[nl].
muon_status zdev_scratch_ranks (zdev *z, size_t n, muon_darray ***a, double ***p)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  CHECKMEM (*a = calloc ((size_t) z->nl, sizeof **a));
  CHECKMEM (*p = calloc ((size_t) z->nl, sizeof **p));
  for (int l = 0; l < z->nl; l++)
    CHECKSTATUS (zdev_scratch (z, n, &(*a)[l], &(*p)[l]));
fail:
  return status;
}

void zdev_scratch_free (zdev *z, muon_darray **a, double **p)
{
  for (int l = 0; a && l < z->nl; l++)
    muon_darray_destroy (z->ctx, &a[l]);
  free (a);
  free (p);
}

// One rank alone, on a communicator that does not move this device's memory: nothing moves.
int zdev_alone (const zdev *z)
{
  return muon_comm_size (z->comm) == 1 && !muon_comm_moves (z->comm, z->dev);
}

// buf[l] (N elements per local rank) = its average over the ranks, in place.
muon_status zdev_allreduce_avg (zdev *z, double **buf, size_t N)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  muon_darray *g = NULL;
  double *gp;
  int W = muon_comm_size (z->comm);
  if (zdev_alone (z))
    return muon_comm_count (ctx, z->comm, MUON_COLL_ALLREDUCE, N, MUON_F64);
  if (!muon_comm_moves (z->comm, z->dev))   // sim, self: the stand-in's host arrays
    return muon_comm_allreduce (ctx, z->comm, (const void *const *) buf, (void *const *) buf,
                                N, MUON_F64, MUON_REDUCE_AVG);
  CHECKSTATUS (muon_comm_count (ctx, z->comm, MUON_COLL_ALLREDUCE, N, MUON_F64));
  if (muon_comm_reduction_of (z->comm) == MUON_COMM_REDUCTION_LIBRARY)
  {
    CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_ALLREDUCE, buf[0], buf[0],
                                   N, MUON_F64));
    CHECKSTATUS (muon_dmem_block_sum (ctx, z->dev, buf[0], 1, 0, N, W, buf[0]));
    goto fail;
  }
  size_t piece = MUON_STAGE_ELEMS / (size_t) W;
  piece = piece ? piece : 1;
  piece = piece < N ? piece : N;
  CHECKSTATUS (zdev_scratch (z, piece * (size_t) W, &g, &gp));
  for (size_t at = 0; at < N; at += piece)
  {
    size_t m = N - at < piece ? N - at : piece;
    CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_ALL_GATHER, buf[0] + at,
                                   gp, m, MUON_F64));
    CHECKSTATUS (muon_dmem_block_sum (ctx, z->dev, gp, W, m, m, W, buf[0] + at));
  }
fail:
  muon_darray_destroy (ctx, &g);
  return status;
}

// out[l] (S) = the average over the ranks of block r of in[l] (W S), r the rank.
muon_status zdev_reduce_scatter_avg (zdev *z, double **in, double **out, size_t S)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  muon_darray *g = NULL;
  double *gp;
  int W = muon_comm_size (z->comm);
  if (zdev_alone (z))
  {
    CHECKSTATUS (muon_dmem_copy (ctx, z->dev, out[0], in[0], S));
    return muon_comm_count (ctx, z->comm, MUON_COLL_REDUCE_SCATTER, S, MUON_F64);
  }
  if (!muon_comm_moves (z->comm, z->dev))
    return muon_comm_reduce_scatter (ctx, z->comm, (const void *const *) in,
                                     (void *const *) out, S, MUON_F64, MUON_REDUCE_AVG);
  CHECKSTATUS (muon_comm_count (ctx, z->comm, MUON_COLL_REDUCE_SCATTER, S, MUON_F64));
  if (muon_comm_reduction_of (z->comm) == MUON_COMM_REDUCTION_LIBRARY)
  {
    CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_REDUCE_SCATTER, in[0],
                                   out[0], S, MUON_F64));
    CHECKSTATUS (muon_dmem_block_sum (ctx, z->dev, out[0], 1, 0, S, W, out[0]));
    goto fail;
  }
  // every rank's block r here (block q from rank q), then their rank-order sum
  CHECKSTATUS (zdev_scratch (z, S * (size_t) W, &g, &gp));
  CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_ALL_TO_ALL, in[0], gp, S,
                                 MUON_F64));
  CHECKSTATUS (muon_dmem_block_sum (ctx, z->dev, gp, W, S, S, W, out[0]));
fail:
  muon_darray_destroy (ctx, &g);
  return status;
}

muon_status zdev_all_to_all (zdev *z, double **send, const size_t *sc, double **recv,
                             const size_t *rc)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  if (zdev_alone (z))
  {
    CHECKSTATUS (muon_dmem_copy (ctx, z->dev, recv[0], send[0], sc[0]));
    return muon_comm_count (ctx, z->comm, MUON_COLL_ALL_TO_ALL, 0, MUON_F64);
  }
  if (!muon_comm_moves (z->comm, z->dev))
    return muon_comm_all_to_all (ctx, z->comm, (const void *const *) send, sc,
                                 (void *const *) recv, rc, MUON_F64);
  CHECKSTATUS (muon_comm_device_all_to_all (ctx, z->comm, z->dev, send[0], sc, recv[0], rc,
                                            MUON_F64));
fail:
  return status;
}

muon_status zdev_all_gather (zdev *z, double **send, double **buf, size_t count)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  void **slots = NULL;
  size_t W = (size_t) muon_comm_size (z->comm);
  if (zdev_alone (z))
  {
    CHECKSTATUS (muon_dmem_copy (ctx, z->dev, buf[0], send[0], count));
    return muon_comm_count (ctx, z->comm, MUON_COLL_ALL_GATHER, count, MUON_F64);
  }
  if (muon_comm_moves (z->comm, z->dev))
  {
    CHECKSTATUS (muon_comm_count (ctx, z->comm, MUON_COLL_ALL_GATHER, count, MUON_F64));
    return muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_ALL_GATHER, send[0], buf[0],
                             count, MUON_F64);
  }
  CHECKMEM (slots = malloc ((size_t) z->nl * W * sizeof *slots));
  for (size_t l = 0; l < (size_t) z->nl; l++)
    for (size_t q = 0; q < W; q++)
      slots[l * W + q] = buf[l] + q * count;
  CHECKSTATUS (muon_comm_all_gather (ctx, z->comm, (const void *const *) send, slots, count,
                                     MUON_F64));
fail:
  free (slots);
  return status;
}

// One update (M given) or orthogonalize (M NULL) of matrix p's blocks (whole 0: one page of
// it, cut by its split row blocks; p ZSTEP_PLAIN: one block), the scale times factor; counts
// the call, one per page (run_blocks of zero_step_common.c).
static muon_status run_blocks (zdev *z, int l, size_t p, int whole, const double *G, double *M,
                               double *U, size_t rows, size_t cols, double factor)
{
  const muon_zero_blocks *b = p != ZSTEP_PLAIN && z->o->blocks ? &z->o->blocks[p] : NULL;
  muon_update_opts u = z->o->update;
  size_t E = b && whole ? b->experts : 1;
  u.split_rows = b ? b->split : NULL;
  u.nsplit = b ? b->nsplit : 0;
  u.scale_factor *= factor;
  muon_status s = muon_dmem_update (z->ctx, z->dev, G, M, U, rows, cols, E, &u);
  z->warned |= s == MUON_WARN_NONFINITE;
  z->st[l].ns_calls += E;
  return s < 0 ? s : MUON_OK;
}

muon_status zdev_orthogonalize (zdev *z, int l, size_t p, const double *X, double *U,
                                size_t rows, size_t cols, double factor)
{
  return run_blocks (z, l, p, 1, X, NULL, U, rows, cols, factor);
}

muon_status zdev_orthogonalize_page (zdev *z, int l, size_t p, const double *X, double *U,
                                     size_t rows, size_t cols)
{
  return run_blocks (z, l, p, 0, X, NULL, U, rows, cols, 1);
}

double *zdev_grad (const zdev *z, int l, size_t p)
{
  return muon_darray_f64 (z->grads[(size_t) l * z->P->nparams + p]);
}

muon_status zdev_update (zdev *z, int l, size_t p, const double *G, double *M, double *U,
                         size_t rows, size_t cols)
{
  return run_blocks (z, l, p, 1, G, M, U, rows, cols, 1);
}

muon_status zdev_put_owned (zdev *z, int l, size_t p, double *U)
{
  const muon_zero_plan *P = z->P;
  size_t r = (size_t) muon_comm_rank (z->comm, l);
  muon_zero_span sp = P->owned[r * P->nparams + p];
  const muon_zero_param *q = &P->L->params[p];
  return muon_dmem_rm (z->ctx, z->dev, 1, U, q->rows, q->cols, sp.start, sp.stop,
                       z->upd[l] + z->upd_at[r * P->nparams + p]);
}

muon_status zdev_unpack (zdev *z, const muon_zero_layout *part, double *buf, size_t p,
                         double *out)
{
  const muon_zero_param *q = &part->params[p];
  size_t S = part->partition_size;
  for (size_t i = 0; i < part->npieces; i++)
  {
    const muon_zero_piece *c = &part->pieces[i];
    muon_status s = c->param != p ? MUON_OK
      : muon_dmem_rm (z->ctx, z->dev, 0, out, q->rows, q->cols, c->local_start, c->local_stop,
                      buf + (size_t) c->rank * S + c->part_start);
    if (s < 0)
      return s;
  }
  return MUON_OK;
}

muon_status zdev_momentum_part (zdev *z, int l, double *part, double *x)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  const muon_zero_rank *k = &L->ranks[muon_comm_rank (z->comm, l)];
  for (size_t i = 0; i < k->npieces; i++)
  {
    const muon_zero_piece *c = &L->pieces[k->first_piece + i];
    size_t n = c->local_stop - c->local_start;
    CHECKSTATUS (muon_dmem_copy (ctx, z->dev, x + c->part_start, part + c->part_start, n));
    CHECKSTATUS (muon_dmem_momentum (ctx, z->dev, &z->o->update, z->mom[l] + c->part_start,
                                     x + c->part_start, n));
  }
fail:
  return status;
}
