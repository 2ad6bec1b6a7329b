/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_zero12.c - the ZeRO-1/2 family of distributed Muon steps (reference, all-reduce,
 * the #7807 bug, slice-only, PR 8141's multi-owner, Moonlight's gather); its cost model is
 * zero_cost_zero12.c.  The entry points that check a step, dispatch it by the variant table
 * and assemble the full updates are in zero_step_api.c.
 *
 * The ZeRO-1/2 family starts the same way on every rank: pack the local gradients into the
 * partitioned buffer (W x S, rank q's partition at q S; the flat buffer itself at stages 1/2),
 * then one collective (the reduce-scatter frame, zstep_reduce_scatter_then, is
 * zero_step_common.c's: expert parallelism starts the same way):
 *   all-reduce (AVG) of W S          reference, zero12_allreduce
 *   reduce-scatter (AVG) to S        the others; the buggy and multi-owner variants write
 *                                    their averaged partition back into their own W S view,
 *                                    which is still LOCAL elsewhere (that is the bug);
 *   + all-reduce of the straddling   multi-owner: their full averages on every rank
 *     matrices (column-major)
 *   + all-gather of the pieces of    moonlight: each rank sends its pieces of the straddling
 *     the straddling NS inputs        matrices, padded to the largest such total (C)
 * and then updates matrices where the design says (zero_plan.c counts them).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zero_step_impl.h"

//---- the ZeRO-1/2 family ------------------------------------------------------------------

// The piece of matrix p on rank r, or NULL.
static const muon_zero_piece *piece_of (const muon_zero_layout *part, int r, size_t p)
{
  const muon_zero_rank *k = &part->ranks[r];
  for (size_t i = 0; i < k->npieces; i++)
    if (part->pieces[k->first_piece + i].param == p)
      return &part->pieces[k->first_piece + i];
  return NULL;
}

// Multi-owner: the straddling matrices' full averages into every rank's W S view.
static muon_status allreduce_straddlers (zstep *z, double **flat)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *part = z->P->part;
  double **s = NULL;
  CHECKSTATUS (zstep_alloc_bufs (z, z->P->straddle_total, 0, &s));
  for (int l = 0; l < z->nl; l++)
    for (size_t p = 0, at = 0; p < part->nparams; p++)
      if (part->params[p].straddles)
      {
        memcpy (s[l] + at, zgrad (z, l, p), part->params[p].numel * sizeof (double));
        at += part->params[p].numel;
      }
  CHECKSTATUS (muon_comm_allreduce (ctx, z->comm, (const void *const *) s, (void *const *) s,
                                    z->P->straddle_total, MUON_F64, MUON_REDUCE_AVG));
  size_t S = part->partition_size;
  for (int l = 0; l < z->nl; l++)
    for (size_t i = 0; i < part->npieces; i++)
    {
      const muon_zero_piece *c = &part->pieces[i];
      const muon_zero_param *q = &part->params[c->param];
      if (!q->straddles)
        continue;
      size_t at = 0;
      for (size_t p = 0; p < c->param; p++)
        at += part->params[p].straddles ? part->params[p].numel : 0;
      double *dst = flat[l] + (size_t) c->rank * S + c->part_start;
      for (size_t k = c->local_start; k < c->local_stop; k++)
        dst[k - c->local_start] = s[l][at + zcm (k, q->rows, q->cols)];
    }
fail:
  zstep_free_bufs (z, s);
  return status;
}

// Slice-only: the block of rows rank r's piece touches, the rest of the block zero.
static muon_status update_slice (zstep *z, int l, const muon_zero_piece *c, const double *part,
                                 double *work)
{
  const muon_zero_param *q = &z->P->part->params[c->param];
  size_t rows = c->row_stop - c->row_start, cols = q->cols, n = rows * cols;
  size_t base = c->row_start * cols;
  double *G = work, *M = work + n, *U = work + 2 * n;
  memset (work, 0, 2 * n * sizeof *work);
  for (size_t k = c->local_start; k < c->local_stop; k++)
  {
    size_t at = zcm (k - base, rows, cols);
    G[at] = part[c->part_start + k - c->local_start];
    M[at] = z->mom[l][c->part_start + k - c->local_start];
  }
  muon_status s = zstep_update (z, l, ZSTEP_PLAIN, G, M, U, rows, cols);
  if (s < 0)
    return s;
  double *dst = z->upd[l] + z->upd_at[(size_t) c->rank * z->P->nparams + c->param];
  for (size_t k = c->local_start; k < c->local_stop; k++)
  {
    size_t at = zcm (k - base, rows, cols);
    z->mom[l][c->part_start + k - c->local_start] = M[at];
    dst[k - c->local_start] = U[at];
  }
  return MUON_OK;
}

// Moonlight: momentum on the partition (the Newton-Schulz input into x), the straddling
// pieces all-gathered, NS on every full matrix the rank has a piece of.
static muon_status moonlight (zstep *z, double **part, double *work)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  int W = z->P->world;
  size_t np = z->P->nparams, C = 0, *sent = NULL;
  double **x = NULL, **send = NULL, **recv = NULL;
  void **slots = NULL;
  CHECKMEM (sent = calloc ((size_t) W, sizeof *sent));   // straddling elements rank q sends
  for (size_t i = 0; i < L->npieces; i++)
    if (L->params[L->pieces[i].param].straddles)
      sent[L->pieces[i].rank] += L->pieces[i].local_stop - L->pieces[i].local_start;
  for (int q = 0; q < W; q++)
    C = sent[q] > C ? sent[q] : C;
  CHECKSTATUS (zstep_alloc_bufs (z, L->partition_size, 1, &x));
  CHECKSTATUS (zstep_alloc_bufs (z, C, 1, &send));
  CHECKSTATUS (zstep_alloc_bufs (z, C * (size_t) W, 1, &recv));
  for (int l = 0; l < z->nl; l++)
  {
    const muon_zero_rank *k = &L->ranks[zrank (z, l)];
    size_t at = 0;
    zstep_momentum_part (z, l, part[l], x[l]);
    for (size_t i = 0; i < k->npieces; i++)
    {
      const muon_zero_piece *c = &L->pieces[k->first_piece + i];
      if (L->params[c->param].straddles)
      {
        memcpy (send[l] + at, x[l] + c->part_start,
                (c->local_stop - c->local_start) * sizeof (double));
        at += c->local_stop - c->local_start;
      }
    }
  }
  if (C > 0)
  {
    CHECKMEM (slots = malloc ((size_t) z->nl * (size_t) W * sizeof *slots));
    for (int l = 0; l < z->nl; l++)
      for (int q = 0; q < W; q++)
        slots[(size_t) l * W + q] = recv[l] + (size_t) q * C;
    CHECKSTATUS (muon_comm_all_gather (ctx, z->comm, (const void *const *) send, slots, C,
                                       MUON_F64));
  }
  for (int l = 0; l < z->nl; l++)
    for (size_t p = 0; p < np; p++)
    {
      const muon_zero_piece *mine = piece_of (L, zrank (z, l), p);
      const muon_zero_param *q = &L->params[p];
      if (mine == NULL)
        continue;
      double *X = work, *U = work + q->numel;
      if (!q->straddles)
        for (size_t e = 0; e < q->numel; e++)
          X[zcm (e, q->rows, q->cols)] = x[l][mine->part_start + e];
      else
        for (int o = q->first_owner; o <= q->last_owner; o++)
        {
          // where p's piece sits in owner o's gathered buffer
          size_t at = 0;
          const muon_zero_rank *k = &L->ranks[o];
          const muon_zero_piece *c = NULL;
          for (size_t i = 0; i < k->npieces; i++)
          {
            c = &L->pieces[k->first_piece + i];
            if (c->param == p)
              break;
            at += L->params[c->param].straddles ? c->local_stop - c->local_start : 0;
          }
          const double *src = recv[l] + (size_t) o * C + at;
          for (size_t e = c->local_start; e < c->local_stop; e++)
            X[zcm (e, q->rows, q->cols)] = src[e - c->local_start];
        }
      CHECKSTATUS (zstep_orthogonalize (z, l, p, X, U, q->rows, q->cols));
      zstep_put_owned (z, l, p, U);
    }
fail:
  free (sent);
  free (slots);
  zstep_free_bufs (z, x);
  zstep_free_bufs (z, send);
  zstep_free_bufs (z, recv);
  return status;
}

// Every matrix a rank holds the full momentum of (the plan's momentum_at), updated from the
// rank's buffer flat[l]: matrix p column-major at flat[l] + goff[p], or (goff NULL) in the
// partitioned layout; the rank keeps its span.  same_views: the buffers are the same on every
// local rank (after an all-reduce), so a local rank whose momentum of p equals the first
// holder's (the W copies of DDP's reference, or one array for all of them) takes that rank's
// new momentum and update, right after the first holder's update (before another rank's
// overwrites U), instead of computing them again; its NS call still counts.
static muon_status update_held (zstep *z, double **flat, const size_t *goff, int same_views)
{
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  size_t np = P->nparams;
  char *same = NULL;
  if (same_views && z->nl > 1)
  {
    muon_ctx *ctx = z->ctx;
    CHECKMEM (same = calloc ((size_t) z->nl, 1));
  }
  for (size_t p = 0; p < np; p++)
  {
    const muon_zero_param *q = &P->part->params[p];
    size_t bytes = q->numel * sizeof (double);
    double *U = z->work, *G = z->work + q->numel;
    int first = -1;                     // the first local rank holding p
    for (int l = 0; l < z->nl; l++)
    {
      size_t at = P->momentum_at[(size_t) zrank (z, l) * np + p];
      if (at == SIZE_MAX || (first >= 0 && same && same[l]))
        continue;
      double *M = z->mom[l] + at;
      if (first < 0)
        for (int k = l + 1; same && k < z->nl; k++)   // before the first holder's update
        {
          size_t ak = P->momentum_at[(size_t) zrank (z, k) * np + p];
          same[k] = ak != SIZE_MAX && (z->mom[k] + ak == M || memcmp (z->mom[k] + ak, M,
                                                                       bytes) == 0);
        }
      if (goff)
        G = flat[l] + goff[p];
      else
        zstep_unpack (P->part, flat[l], p, G);
      CHECKSTATUS (zstep_update (z, l, p, G, M, U, q->rows, q->cols));
      zstep_put_owned (z, l, p, U);
      for (int k = l + 1; first < 0 && same && k < z->nl; k++)
        if (same[k])
        {
          double *Mk = z->mom[k] + P->momentum_at[(size_t) zrank (z, k) * np + p];
          if (Mk != M)
            memcpy (Mk, M, bytes);
          size_t E, nsplit;
          const size_t *split;
          zstep_blocks (z, p, &E, &split, &nsplit);
          z->st[k].ns_calls += E;
          zstep_put_owned (z, k, p, U);
        }
      first = first < 0 ? l : first;
    }
  }
fail:
  free (same);
  return status;
}

// reference, zero12_allreduce: the all-reduce of the flat buffer (W S elements), then every
// matrix the rank holds.  An average is taken element by element, so the buffer reduced is
// the matrices column-major, back to back, then zeros up to W S: the same collective (count,
// bytes) and the same averages as the row-major flat buffer, without a transposition on
// either side.
muon_status zstep_allreduce (zstep *z)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t np = L->nparams, N = L->partition_size * (size_t) L->world, *goff = NULL;
  double **flat = NULL;
  CHECKMEM (goff = malloc (np * sizeof *goff));
  for (size_t p = 0, at = 0; p < np; at += L->params[p].numel, p++)
    goff[p] = at;
  CHECKSTATUS (zstep_alloc_bufs (z, N, 0, &flat));
  for (int l = 0; l < z->nl; l++)
  {
    for (size_t p = 0; p < np; p++)
      memcpy (flat[l] + goff[p], zgrad (z, l, p), L->params[p].numel * sizeof (double));
    memset (flat[l] + L->total, 0, (N - L->total) * sizeof (double));
  }
  CHECKSTATUS (muon_comm_allreduce (ctx, z->comm, (const void *const *) flat,
                                    (void *const *) flat, N, MUON_F64, MUON_REDUCE_AVG));
  CHECKSTATUS (update_held (z, flat, goff, 1));
fail:
  free (goff);
  zstep_free_bufs (z, flat);
  return status;
}

// every matrix the rank has a piece of, as its view shows it
static muon_status held (zstep *z, double **flat, double **part)
{
  return update_held (z, flat, NULL, 0);
}

// the straddlers' full averages first
static muon_status straddlers_held (zstep *z, double **flat, double **part)
{
  muon_status s = z->P->straddle_total > 0 ? allreduce_straddlers (z, flat) : MUON_OK;
  return s < 0 ? s : update_held (z, flat, NULL, 0);
}

// the row block of each piece
static muon_status slices (zstep *z, double **flat, double **part)
{
  const muon_zero_layout *L = z->P->part;
  for (int l = 0; l < z->nl; l++)
  {
    const muon_zero_rank *k = &L->ranks[zrank (z, l)];
    for (size_t i = 0; i < k->npieces; i++)
    {
      muon_status s = update_slice (z, l, &L->pieces[k->first_piece + i], part[l], z->work);
      if (s < 0)
        return s;
    }
  }
  return MUON_OK;
}

static muon_status gather (zstep *z, double **flat, double **part)
{
  return moonlight (z, part, z->work);
}

// zero2_reduce_scatter_buggy: DeepSpeed #7807.
muon_status zstep_rs_buggy (zstep *z) { return zstep_reduce_scatter_then (z, held); }
// zero2_multi_owner: PR 8141, the straddlers all-reduced, then as the buggy one.
muon_status zstep_multi_owner (zstep *z) { return zstep_reduce_scatter_then (z, straddlers_held); }
// zero2_slice_only: the naive sharded model.
muon_status zstep_slice_only (zstep *z) { return zstep_reduce_scatter_then (z, slices); }
// moonlight_gather: Moonlight's gather.
muon_status zstep_moonlight (zstep *z) { return zstep_reduce_scatter_then (z, gather); }
