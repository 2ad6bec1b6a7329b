/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_rr.c - the designs that give whole matrices to single ranks: DeepSpeed's ZeRO-3
 * round robin (with correct pads, and with the shipped aliased ones) and Megatron's
 * layer-wise LPT ownership (MUON_FACTS 1.6, 2, 6.2; muon_zero.h).
 *
 * Round robin, per step, on W ranks with the matrices in the flat order (slot s):
 *   1. all-reduce (AVG) of every gradient (column-major, back to back: `total` elements);
 *   2. all-gather of the momentum partitions (S = sum of the stage-3 chunks) so every rank
 *      has every full momentum;
 *   3. round k = 0, 1, ...: rank q updates the matrix in slot k W + q (if any), then one
 *      all-gather of the round's updates and one of its momenta;
 *   4. every rank keeps its chunk of each update and writes its chunk of each momentum back.
 * The correct pads: every slot sends `count` = the round's largest matrix, zero-filled past
 * its own numel, from a buffer of its own.  The shipped pads: each slot at its own numel
 * (torch's list all_gather), the pad slots all one buffer per rank shaped like the LAST
 * matrix, uninitialised (NaN here, so a leak would show) - fine while a round's sizes agree,
 * an error (DeepSpeed PR 8628) when they do not; checked for every round before anything is
 * changed, so a failing step leaves the momentum as it was.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zero_step_impl.h"

void zstep_rr_pads (const muon_zero_plan *P, const muon_zero_step_opts *o, size_t *pad_numel,
                    size_t *npads)
{
  const muon_zero_layout *L = P->part;
  size_t W = (size_t) P->world, n = L->nparams;
  *npads = o->pad_count == MUON_ZERO_PADS_KELLER ? W - n % W : (W - n % W) % W;
  *pad_numel = L->params[L->order[n - 1]].numel;
}

muon_status zstep_rr_check_rounds (muon_ctx *ctx, const muon_zero_plan *P,
                                   const muon_zero_step_opts *o)
{
  muon_status status = MUON_OK;
  const muon_zero_layout *L = P->part;
  size_t W = (size_t) P->world, n = L->nparams, pad, npads;
  zstep_rr_pads (P, o, &pad, &npads);
  for (size_t base = 0; base < n; base += W)
  {
    const muon_zero_param *a = &L->params[L->order[base]];
    for (size_t s = base + 1; s < base + W; s++)
    {
      size_t numel = s < n ? L->params[L->order[s]].numel : pad;
      const muon_zero_param *b = s < n ? &L->params[L->order[s]] : &L->params[L->order[n - 1]];
      CHECK (MUON_ERR_BADSHAPE, numel == a->numel,
             "gather round %zu mixes sizes: slot %zu holds matrix %zu (%zu x %zu) and slot "
             "%zu %s %zu (%zu x %zu); an all-gather needs one size (DeepSpeed PR 8628)",
             base / W + 1, base + 1, L->order[base] + 1, a->rows, a->cols, s + 1,
             s < n ? "holds matrix" : "the pad shaped like matrix",
             s < n ? L->order[s] + 1 : L->order[n - 1] + 1, b->rows, b->cols);
    }
  }
fail:
  return status;
}

// The round robin; aliased: with the shipped pads.
static muon_status round_robin (zstep *z, int aliased)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  const muon_zero_layout *L = P->part;
  size_t W = (size_t) P->world, n = L->nparams, S = L->partition_size, big = 0, nl = z->nl;
  size_t *goff = NULL, pad = 0, npads = 0;
  double **grad = NULL, **mfull = NULL, **pads = NULL;
  double **send_u = NULL, **send_m = NULL, **recv_u = NULL, **recv_m = NULL;
  void **slot_u = NULL, **slot_m = NULL;
  const void **src = NULL, **src_u = NULL;   // what each local rank sends (update, momentum)
  if (aliased)
    CHECKSTATUS (zstep_rr_check_rounds (ctx, P, z->o));
  for (size_t p = 0; p < n; p++)
    big = L->params[p].numel > big ? L->params[p].numel : big;

  // 1. all-reduce of the gradients
  CHECKMEM (goff = malloc (n * sizeof *goff));
  for (size_t p = 0, at = 0; p < n; p++)
  {
    goff[p] = at;
    at += L->params[p].numel;
  }
  CHECKSTATUS (zstep_alloc_bufs (z, L->total, 0, &grad));
  for (size_t l = 0; l < nl; l++)
    for (size_t p = 0; p < n; p++)
      memcpy (grad[l] + goff[p], zgrad (z, (int) l, p), L->params[p].numel * sizeof (double));
  CHECKSTATUS (muon_comm_allreduce (ctx, z->comm, (const void *const *) grad,
                                    (void *const *) grad, L->total, MUON_F64,
                                    MUON_REDUCE_AVG));

  // 2. all-gather of the momentum partitions (a rank unpacks the full momentum of the
  // matrix it updates, column-major, when its turn comes)
  CHECKSTATUS (zstep_alloc_bufs (z, S * W, 0, &mfull));
  CHECKMEM (slot_m = malloc (nl * W * sizeof *slot_m));
  for (size_t l = 0; l < nl; l++)
    for (size_t q = 0; q < W; q++)
      slot_m[l * W + q] = mfull[l] + q * S;
  CHECKSTATUS (muon_comm_all_gather (ctx, z->comm, (const void *const *) z->mom, slot_m, S,
                                     MUON_F64));

  // 3. rounds
  CHECKSTATUS (zstep_alloc_bufs (z, big, 0, &send_u));
  CHECKSTATUS (zstep_alloc_bufs (z, big, 0, &send_m));
  CHECKSTATUS (zstep_alloc_bufs (z, big * W, 0, &recv_u));
  CHECKSTATUS (zstep_alloc_bufs (z, big * W, 0, &recv_m));
  CHECKMEM (slot_u = malloc (nl * W * sizeof *slot_u));
  CHECKMEM (src = malloc (2 * nl * sizeof *src));
  CHECKMEM (src_u = malloc (nl * sizeof *src_u));
  if (aliased)
  {
    zstep_rr_pads (P, z->o, &pad, &npads);
    if (npads > 0)
    {
      CHECKSTATUS (zstep_alloc_bufs (z, 2 * pad, 0, &pads));   // update pad, momentum pad
      for (size_t l = 0; l < nl; l++)
        for (size_t e = 0; e < 2 * pad; e++)
          pads[l][e] = NAN;
    }
    for (size_t l = 0; l < nl; l++)
      z->st[l].pad_elements = npads > 0 ? 2 * pad : 0;
  }
  for (size_t base = 0; base < n; base += W)
  {
    size_t count = 0, idle = 0;
    for (size_t s = base; s < base + W && s < n; s++)
      count = L->params[L->order[s]].numel > count ? L->params[L->order[s]].numel : count;
    idle = base + W > n ? base + W - n : 0;
    if (aliased)
      count = L->params[L->order[base]].numel;   // check_rounds: every slot this size
    else
      for (size_t l = 0; l < nl; l++)
        z->st[l].pad_elements += 2 * idle * count;
    for (size_t l = 0; l < nl; l++)
    {
      size_t s = base + (size_t) zrank (z, (int) l);
      memset (send_u[l], 0, count * sizeof (double));
      memset (send_m[l], 0, count * sizeof (double));
      src[2 * l] = send_u[l];
      src[2 * l + 1] = send_m[l];
      if (s < n)
      {
        size_t p = L->order[s];
        const muon_zero_param *q = &L->params[p];
        zstep_unpack (L, mfull[l], p, send_m[l]);
        CHECKSTATUS (zstep_update (z, (int) l, p, grad[l] + goff[p], send_m[l], send_u[l],
                                   q->rows, q->cols));
      }
      else if (aliased)   // an idle rank sends the (aliased, uninitialised) pad
      {
        src[2 * l] = pads[l];
        src[2 * l + 1] = pads[l] + pad;
      }
      for (size_t q = 0; q < W; q++)
      {
        int is_pad = aliased && base + q >= n;
        slot_u[l * W + q] = is_pad ? (void *) pads[l] : recv_u[l] + q * count;
        slot_m[l * W + q] = is_pad ? (void *) (pads[l] + pad) : recv_m[l] + q * count;
      }
    }
    for (size_t l = 0; l < nl; l++)
      src_u[l] = src[2 * l];
    CHECKSTATUS (muon_comm_all_gather (ctx, z->comm, src_u, slot_u, count, MUON_F64));
    for (size_t l = 0; l < nl; l++)
      src_u[l] = src[2 * l + 1];
    CHECKSTATUS (muon_comm_all_gather (ctx, z->comm, src_u, slot_m, count, MUON_F64));

    // 4. keep this rank's chunks of the round's matrices
    for (size_t l = 0; l < nl; l++)
    {
      int r = zrank (z, (int) l);
      for (size_t q = 0; q < W && base + q < n; q++)
      {
        size_t p = L->order[base + q];
        const muon_zero_param *pp = &L->params[p];
        zstep_put_owned (z, (int) l, p, recv_u[l] + q * count);
        muon_zero_span sp = P->owned[(size_t) r * n + p];
        const double *m = recv_m[l] + q * count;
        size_t part_start = 0;   // p's chunk in the stage-3 partition
        for (size_t k = 0; k < pp->slot; k++)
          part_start += L->params[L->order[k]].chunk;
        zstep_gather_rm (m, pp->rows, pp->cols, sp.start, sp.stop, z->mom[l] + part_start);
      }
    }
  }
fail:
  free (goff);
  free (src);
  free (src_u);
  free (slot_u);
  free (slot_m);
  zstep_free_bufs (z, grad);
  zstep_free_bufs (z, mfull);
  zstep_free_bufs (z, pads);
  zstep_free_bufs (z, recv_u);
  zstep_free_bufs (z, recv_m);
  zstep_free_bufs (z, send_u);
  zstep_free_bufs (z, send_m);
  return status;
}

muon_status zstep_round_robin (zstep *z)
{
  return round_robin (z, 0);
}

muon_status zstep_rr_aliased (zstep *z)
{
  return round_robin (z, 1);
}

muon_status zstep_lpt (zstep *z)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  const muon_zero_layout *L = P->L;
  // Megatron's buffer, the plan's: bucket by bucket, p at lpt_at[p] in its owner's shard of
  // the bucket's seg elements, the pads zeros; one reduce-scatter a bucket
  size_t n = P->nparams, W = (size_t) P->world, big = 0, most = 0;
  const size_t *at = P->lpt_at;
  double **send = NULL, **recv = NULL, **work = NULL;
  for (size_t p = 0; p < n; p++)
    big = L->params[p].numel > big ? L->params[p].numel : big;
  for (size_t b = 0; b < P->lpt_nbuckets; b++)
    most = P->lpt_bucket_seg[b] > most ? P->lpt_bucket_seg[b] : most;
  CHECKSTATUS (zstep_alloc_bufs (z, most * W, 1, &send));
  CHECKSTATUS (zstep_alloc_bufs (z, most, 0, &recv));
  CHECKSTATUS (zstep_alloc_bufs (z, big, 0, &work));
  for (size_t b = 0; b < P->lpt_nbuckets; b++)
  {
    size_t seg = P->lpt_bucket_seg[b];
    for (int l = 0; l < z->nl; l++)
    {
      if (b > 0)
        memset (send[l], 0, seg * W * sizeof (double));
      for (size_t p = 0; p < n; p++)
        if (P->lpt_bucket[p] == b)
          memcpy (send[l] + (size_t) P->lpt_owner[p] * seg + at[p], zgrad (z, l, p),
                  L->params[p].numel * sizeof (double));
    }
    CHECKSTATUS (muon_comm_reduce_scatter (ctx, z->comm, (const void *const *) send,
                                           (void *const *) recv, seg, MUON_F64,
                                           MUON_REDUCE_AVG));
    for (int l = 0; l < z->nl; l++)
    {
      int r = zrank (z, l);
      for (size_t p = 0; p < n; p++)
      {
        const muon_zero_param *q = &L->params[p];
        if (P->lpt_owner[p] != r || P->lpt_bucket[p] != b)
          continue;
        CHECKSTATUS (zstep_update (z, l, p, recv[l] + at[p],
                                   z->mom[l] + P->momentum_at[(size_t) r * n + p], work[l],
                                   q->rows, q->cols));
        zstep_put_owned (z, l, p, work[l]);
      }
    }
  }
fail:
  zstep_free_bufs (z, send);
  zstep_free_bufs (z, recv);
  zstep_free_bufs (z, work);
  return status;
}
