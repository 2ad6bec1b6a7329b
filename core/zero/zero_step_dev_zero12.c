/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_dev_zero12.c - the ZeRO-1/2 designs of the device step (zero_step_dev.h): the
 * all-reduce designs (reference, zero12_allreduce) and the reduce-scatter frame with the
 * #7807 bug, PR 8141's multi-owner fix, the naive slice-only model and Moonlight's gather,
 * buffer for buffer as zero_step_zero12.c and zero_step_common.c run them on the host.
 */
#include <stdint.h>
#include <stdlib.h>

#include "zero_step_dev.h"

// Matrix p of every local rank that holds its momentum: muon_update from flat[l] + goff[p]
// (column-major), or (goff NULL) from the rank's view of the partitioned buffer flat[l],
// unpacked; its span into the rank's update buffer.  After the all-reduce (goff given: the
// same buffer on every local rank) a local rank whose momentum of p is the first holder's
// memory (the reference design's one momentum array for every rank, muon_zero_step's rule)
// takes the first holder's update, the momentum updated once; its NS call still counts.
// (The host step also skips ranks whose momentum only equals the first holder's; computing
// them again gives the same bits.)
static muon_status update_held (zdev *z, double **flat, const size_t *goff)
{
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  size_t np = P->nparams;
  for (size_t p = 0; p < np; p++)
  {
    const muon_zero_param *q = &P->part->params[p];
    double *M0 = NULL;                  // the first holder's momentum of p
    for (int l = 0; l < z->nl; l++)
    {
      size_t r = (size_t) muon_comm_rank (z->comm, l), at = P->momentum_at[r * np + p];
      if (at == SIZE_MAX || (goff && M0 == z->mom[l] + at))
        continue;
      double *G = goff ? flat[l] + goff[p] : z->G;
      if (!goff)
        CHECKSTATUS (zdev_unpack (z, P->part, flat[l], p, G));
      CHECKSTATUS (zdev_update (z, l, p, G, z->mom[l] + at, z->U, q->rows, q->cols));
      CHECKSTATUS (zdev_put_owned (z, l, p, z->U));
      if (M0 == NULL && goff)           // its update to the ranks sharing its momentum
      {
        M0 = z->mom[l] + at;
        for (int k = l + 1; k < z->nl; k++)
        {
          size_t ak = P->momentum_at[(size_t) muon_comm_rank (z->comm, k) * np + p];
          if (ak == SIZE_MAX || z->mom[k] + ak != M0)
            continue;
          z->st[k].ns_calls += z->o->blocks ? z->o->blocks[p].experts : 1;
          CHECKSTATUS (zdev_put_owned (z, k, p, z->U));
        }
      }
    }
  }
fail:
  return status;
}

// reference, zero12_allreduce (zstep_allreduce): the matrices column-major back to back,
// zeros up to W S, all-reduced; every matrix the rank holds.
muon_status zdev_allreduce (zdev *z)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t np = L->nparams, N = L->partition_size * (size_t) L->world, *goff = NULL;
  muon_darray **fa = NULL;
  double **flat = NULL;
  CHECKMEM (goff = malloc (np * sizeof *goff));
  for (size_t p = 0, at = 0; p < np; at += L->params[p].numel, p++)
    goff[p] = at;
  CHECKSTATUS (zdev_scratch_ranks (z, N, &fa, &flat));
  for (int l = 0; l < z->nl; l++)
  {
    for (size_t p = 0; p < np; p++)
      CHECKSTATUS (muon_dmem_copy (ctx, z->dev, flat[l] + goff[p], zdev_grad (z, l, p),
                                   L->params[p].numel));
    CHECKSTATUS (muon_dmem_zero (ctx, z->dev, flat[l] + L->total, N - L->total));
  }
  CHECKSTATUS (zdev_allreduce_avg (z, flat, N));
  CHECKSTATUS (update_held (z, flat, goff));
fail:
  free (goff);
  zdev_scratch_free (z, fa, flat);
  return status;
}

// The reduce-scatter frame (zstep_reduce_scatter_then): each rank's gradients packed into
// its partitioned buffer flat[l] (W S, zeros between and after the pieces), the average
// reduce-scattered into part[l] (S) and written back into its own partition of flat[l].
static muon_status rs_frame (zdev *z, double **flat, double **part)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t S = L->partition_size;
  for (int l = 0; l < z->nl; l++)
    for (int r = 0; r < L->world; r++)
    {
      const muon_zero_rank *k = &L->ranks[r];
      double *dst = flat[l] + (size_t) r * S;
      size_t at = 0;                      // end of the previous piece in the partition
      for (size_t i = k->first_piece; i < k->first_piece + k->npieces; i++)
      {
        const muon_zero_piece *c = &L->pieces[i];
        const muon_zero_param *q = &L->params[c->param];
        CHECKSTATUS (muon_dmem_zero (ctx, z->dev, dst + at, c->part_start - at));
        CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, zdev_grad (z, l, c->param), q->rows, q->cols,
                                   c->local_start, c->local_stop, dst + c->part_start));
        at = c->part_start + c->local_stop - c->local_start;
      }
      CHECKSTATUS (muon_dmem_zero (ctx, z->dev, dst + at, S - at));
    }
  CHECKSTATUS (zdev_reduce_scatter_avg (z, flat, part, S));
  for (int l = 0; l < z->nl; l++)
    CHECKSTATUS (muon_dmem_copy (ctx, z->dev, flat[l] + (size_t) muon_comm_rank (z->comm, l) * S,
                                 part[l], S));
fail:
  return status;
}

// Multi-owner (allreduce_straddlers): the straddling matrices, column-major back to back,
// all-reduced, then their pieces written into every rank's view flat[l].
static muon_status straddlers (zdev *z, double **flat)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t S = L->partition_size, total = z->P->straddle_total;
  muon_darray **sa = NULL;
  double **s = NULL;
  if (total == 0)
    return MUON_OK;
  CHECKSTATUS (zdev_scratch_ranks (z, total, &sa, &s));
  for (int l = 0; l < z->nl; l++)
    for (size_t p = 0, at = 0; p < L->nparams; p++)
      if (L->params[p].straddles)
      {
        CHECKSTATUS (muon_dmem_copy (ctx, z->dev, s[l] + at, zdev_grad (z, l, p),
                                     L->params[p].numel));
        at += L->params[p].numel;
      }
  CHECKSTATUS (zdev_allreduce_avg (z, s, total));
  for (int l = 0; l < z->nl; l++)
    for (size_t i = 0; i < L->npieces; i++)
    {
      const muon_zero_piece *c = &L->pieces[i];
      const muon_zero_param *q = &L->params[c->param];
      if (!q->straddles)
        continue;
      size_t at = 0;
      for (size_t p = 0; p < c->param; p++)
        at += L->params[p].straddles ? L->params[p].numel : 0;
      CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, s[l] + at, q->rows, q->cols, c->local_start,
                                 c->local_stop, flat[l] + (size_t) c->rank * S
                                                + c->part_start));
    }
fail:
  zdev_scratch_free (z, sa, s);
  return status;
}

// zero2_reduce_scatter_buggy and zero2_multi_owner: the frame, the straddlers for the
// latter, then every matrix the rank has a piece of, as its view shows it.
static muon_status rs_held (zdev *z, int fix_straddlers)
{
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t S = L->partition_size;
  muon_darray **fa = NULL, **pa = NULL;
  double **flat = NULL, **part = NULL;
  CHECKSTATUS (zdev_scratch_ranks (z, S * (size_t) L->world, &fa, &flat));
  CHECKSTATUS (zdev_scratch_ranks (z, S, &pa, &part));
  CHECKSTATUS (rs_frame (z, flat, part));
  if (fix_straddlers)
    CHECKSTATUS (straddlers (z, flat));
  CHECKSTATUS (update_held (z, flat, NULL));
fail:
  zdev_scratch_free (z, fa, flat);
  zdev_scratch_free (z, pa, part);
  return status;
}

muon_status zdev_rs_buggy (zdev *z) { return rs_held (z, 0); }
muon_status zdev_rs_multi_owner (zdev *z) { return rs_held (z, 1); }

// zero2_slice_only (update_slice): the block of rows each piece touches, the rest of the
// block zero, momentum for the piece's own elements.
static muon_status slices (zdev *z, double **part)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  for (int l = 0; l < z->nl; l++)
  {
    const muon_zero_rank *k = &L->ranks[muon_comm_rank (z->comm, l)];
    for (size_t i = 0; i < k->npieces; i++)
    {
      const muon_zero_piece *c = &L->pieces[k->first_piece + i];
      const muon_zero_param *q = &L->params[c->param];
      size_t rows = c->row_stop - c->row_start, cols = q->cols, base = c->row_start * cols;
      size_t k0 = c->local_start - base, k1 = c->local_stop - base;
      double *m = z->mom[l] + c->part_start;
      double *dst = z->upd[l] + z->upd_at[(size_t) c->rank * z->P->nparams + c->param];
      CHECKSTATUS (muon_dmem_zero (ctx, z->dev, z->G, rows * cols));
      CHECKSTATUS (muon_dmem_zero (ctx, z->dev, z->M, rows * cols));
      CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 0, z->G, rows, cols, k0, k1,
                                 part[l] + c->part_start));
      CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 0, z->M, rows, cols, k0, k1, m));
      CHECKSTATUS (zdev_update (z, l, ZSTEP_PLAIN, z->G, z->M, z->U, rows, cols));
      CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, z->M, rows, cols, k0, k1, m));
      CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, z->U, rows, cols, k0, k1, dst));
    }
  }
fail:
  return status;
}

// moonlight_gather (moonlight): momentum on the partition, the straddling pieces of the NS
// input all-gathered (padded to the largest such total, C), NS on every full matrix the rank
// has a piece of.
static muon_status moonlight (zdev *z, double **part)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  int W = z->P->world;
  size_t np = z->P->nparams, C = 0, *sent = NULL;
  muon_darray **xa = NULL, **sa = NULL, **ra = NULL;
  double **x = NULL, **send = NULL, **recv = NULL;
  CHECKMEM (sent = calloc ((size_t) W, sizeof *sent));
  for (size_t i = 0; i < L->npieces; i++)
    if (L->params[L->pieces[i].param].straddles)
      sent[L->pieces[i].rank] += L->pieces[i].local_stop - L->pieces[i].local_start;
  for (int q = 0; q < W; q++)
    C = sent[q] > C ? sent[q] : C;
  CHECKSTATUS (zdev_scratch_ranks (z, L->partition_size, &xa, &x));
  CHECKSTATUS (zdev_scratch_ranks (z, C, &sa, &send));
  CHECKSTATUS (zdev_scratch_ranks (z, C * (size_t) W, &ra, &recv));
  for (int l = 0; l < z->nl; l++)
  {
    const muon_zero_rank *k = &L->ranks[muon_comm_rank (z->comm, l)];
    size_t at = 0;
    CHECKSTATUS (muon_dmem_zero (ctx, z->dev, x[l], L->partition_size));
    CHECKSTATUS (muon_dmem_zero (ctx, z->dev, send[l], C));
    CHECKSTATUS (zdev_momentum_part (z, l, part[l], x[l]));
    for (size_t i = 0; i < k->npieces; i++)
    {
      const muon_zero_piece *c = &L->pieces[k->first_piece + i];
      if (!L->params[c->param].straddles)
        continue;
      CHECKSTATUS (muon_dmem_copy (ctx, z->dev, send[l] + at, x[l] + c->part_start,
                                   c->local_stop - c->local_start));
      at += c->local_stop - c->local_start;
    }
  }
  if (C > 0)
    CHECKSTATUS (zdev_all_gather (z, send, recv, C));
  for (int l = 0; l < z->nl; l++)
    for (size_t p = 0; p < np; p++)
    {
      const muon_zero_rank *k = &L->ranks[muon_comm_rank (z->comm, l)];
      const muon_zero_piece *mine = NULL;
      const muon_zero_param *q = &L->params[p];
      for (size_t i = 0; i < k->npieces && !mine; i++)
        mine = L->pieces[k->first_piece + i].param == p ? &L->pieces[k->first_piece + i] : NULL;
      if (mine == NULL)
        continue;
      if (!q->straddles)
        CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 0, z->G, q->rows, q->cols, 0, q->numel,
                                   x[l] + mine->part_start));
      else
        for (int o = q->first_owner; o <= q->last_owner; o++)
        {
          // where p's piece sits in owner o's gathered buffer
          const muon_zero_rank *ko = &L->ranks[o];
          const muon_zero_piece *c = NULL;
          size_t at = 0;
          for (size_t i = 0; i < ko->npieces; i++)
          {
            c = &L->pieces[ko->first_piece + i];
            if (c->param == p)
              break;
            at += L->params[c->param].straddles ? c->local_stop - c->local_start : 0;
          }
          CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 0, z->G, q->rows, q->cols, c->local_start,
                                     c->local_stop, recv[l] + (size_t) o * C + at));
        }
      CHECKSTATUS (zdev_orthogonalize (z, l, p, z->G, z->U, q->rows, q->cols, 1));
      CHECKSTATUS (zdev_put_owned (z, l, p, z->U));
    }
fail:
  free (sent);
  zdev_scratch_free (z, xa, x);
  zdev_scratch_free (z, sa, send);
  zdev_scratch_free (z, ra, recv);
  return status;
}

muon_status zdev_rs_then (zdev *z, muon_status (*then) (zdev *z, double **part))
{
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t S = L->partition_size;
  muon_darray **fa = NULL, **pa = NULL;
  double **flat = NULL, **part = NULL;
  CHECKSTATUS (zdev_scratch_ranks (z, S * (size_t) L->world, &fa, &flat));
  CHECKSTATUS (zdev_scratch_ranks (z, S, &pa, &part));
  CHECKSTATUS (rs_frame (z, flat, part));
  CHECKSTATUS (then (z, part));
fail:
  zdev_scratch_free (z, fa, flat);
  zdev_scratch_free (z, pa, part);
  return status;
}

muon_status zdev_slice_only (zdev *z) { return zdev_rs_then (z, slices); }
muon_status zdev_moonlight (zdev *z) { return zdev_rs_then (z, moonlight); }
