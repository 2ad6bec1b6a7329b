/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_dev_rr.c - the designs of the device step that give whole matrices to single
 * ranks (zero_step_dev.h): DeepSpeed's ZeRO-3 round robin, with the correct pads and with
 * the shipped aliased ones (whose check of the rounds is the host's, zstep_rr_check_rounds:
 * the same error before anything moves), and Megatron's layer-wise LPT, buffer for buffer as
 * zero_step_rr.c runs them on the host.  The shipped pads' slots are never read, so on the
 * device they are zeros of the round's size; the pad memory the design would allocate is
 * counted as on the host.
 */
#include <stdint.h>
#include <stdlib.h>

#include "zero_step_dev.h"

static muon_status round_robin (zdev *z, int aliased)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  const muon_zero_layout *L = P->part;
  size_t W = (size_t) P->world, n = L->nparams, S = L->partition_size, big = 1;
  size_t *goff = NULL, pad = 0, npads = 0;
  muon_darray **ga = NULL, **fa = NULL, **sua = NULL, **sma = NULL, **rua = NULL, **rma = NULL;
  double **grad = NULL, **mfull = NULL, **send_u = NULL, **send_m = NULL, **recv_u = NULL,
         **recv_m = NULL;
  if (aliased)
    CHECKSTATUS (zstep_rr_check_rounds (ctx, P, z->o));
  CHECKMEM (goff = malloc (n * sizeof *goff));
  for (size_t p = 0, at = 0; p < n; p++)
  {
    goff[p] = at;
    at += L->params[p].numel;
    big = L->params[p].numel > big ? L->params[p].numel : big;
  }
  // 1. all-reduce of the gradients; 2. all-gather of the momentum partitions
  CHECKSTATUS (zdev_scratch_ranks (z, L->total, &ga, &grad));
  for (int l = 0; l < z->nl; l++)
    for (size_t p = 0; p < n; p++)
      CHECKSTATUS (muon_dmem_copy (ctx, z->dev, grad[l] + goff[p], zdev_grad (z, l, p),
                                   L->params[p].numel));
  CHECKSTATUS (zdev_allreduce_avg (z, grad, L->total));
  CHECKSTATUS (zdev_scratch_ranks (z, S * W, &fa, &mfull));
  CHECKSTATUS (zdev_all_gather (z, z->mom, mfull, S));
  // 3. rounds
  CHECKSTATUS (zdev_scratch_ranks (z, big, &sua, &send_u));
  CHECKSTATUS (zdev_scratch_ranks (z, big, &sma, &send_m));
  CHECKSTATUS (zdev_scratch_ranks (z, big * W, &rua, &recv_u));
  CHECKSTATUS (zdev_scratch_ranks (z, big * W, &rma, &recv_m));
  if (aliased)
  {
    zstep_rr_pads (P, z->o, &pad, &npads);
    for (int l = 0; l < z->nl; l++)
      z->st[l].pad_elements = npads > 0 ? 2 * pad : 0;
  }
  for (size_t base = 0; base < n; base += W)
  {
    size_t count = 0, idle = base + W > n ? base + W - n : 0;
    for (size_t s = base; s < base + W && s < n; s++)
      count = L->params[L->order[s]].numel > count ? L->params[L->order[s]].numel : count;
    for (int l = 0; !aliased && l < z->nl; l++)
      z->st[l].pad_elements += 2 * idle * count;
    for (int l = 0; l < z->nl; l++)
    {
      size_t s = base + (size_t) muon_comm_rank (z->comm, l);
      CHECKSTATUS (muon_dmem_zero (ctx, z->dev, send_u[l], count));
      CHECKSTATUS (muon_dmem_zero (ctx, z->dev, send_m[l], count));
      if (s >= n)
        continue;
      size_t p = L->order[s];
      const muon_zero_param *q = &L->params[p];
      CHECKSTATUS (zdev_unpack (z, L, mfull[l], p, send_m[l]));
      CHECKSTATUS (zdev_update (z, l, p, grad[l] + goff[p], send_m[l], send_u[l], q->rows,
                                q->cols));
    }
    CHECKSTATUS (zdev_all_gather (z, send_u, recv_u, count));
    CHECKSTATUS (zdev_all_gather (z, send_m, recv_m, count));
    // 4. this rank's chunks of the round's matrices: its span of the update, its momentum
    for (int l = 0; l < z->nl; l++)
    {
      int r = muon_comm_rank (z->comm, l);
      for (size_t q = 0; q < W && base + q < n; q++)
      {
        size_t p = L->order[base + q], part_start = 0;
        const muon_zero_param *pp = &L->params[p];
        muon_zero_span sp = P->owned[(size_t) r * n + p];
        CHECKSTATUS (zdev_put_owned (z, l, p, recv_u[l] + q * count));
        for (size_t k = 0; k < pp->slot; k++)
          part_start += L->params[L->order[k]].chunk;
        CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, recv_m[l] + q * count, pp->rows, pp->cols,
                                   sp.start, sp.stop, z->mom[l] + part_start));
      }
    }
  }
fail:
  free (goff);
  zdev_scratch_free (z, ga, grad);
  zdev_scratch_free (z, fa, mfull);
  zdev_scratch_free (z, sua, send_u);
  zdev_scratch_free (z, sma, send_m);
  zdev_scratch_free (z, rua, recv_u);
  zdev_scratch_free (z, rma, recv_m);
  return status;
}

muon_status zdev_round_robin (zdev *z) { return round_robin (z, 0); }
muon_status zdev_rr_aliased (zdev *z) { return round_robin (z, 1); }

// Megatron's LPT (zstep_lpt): one reduce-scatter of each bucket of the plan's buffer (p at
// lpt_at[p] in its owner's shard of the bucket's lpt_bucket_seg elements, zero pads), each
// owner updates its whole matrices.
muon_status zdev_lpt (zdev *z)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  const muon_zero_layout *L = P->L;
  size_t n = P->nparams, W = (size_t) P->world, most = 0;
  const size_t *at = P->lpt_at;
  muon_darray **sa = NULL, **ra = NULL;
  double **send = NULL, **recv = NULL;
  for (size_t b = 0; b < P->lpt_nbuckets; b++)
    most = P->lpt_bucket_seg[b] > most ? P->lpt_bucket_seg[b] : most;
  CHECKSTATUS (zdev_scratch_ranks (z, most * W, &sa, &send));
  CHECKSTATUS (zdev_scratch_ranks (z, most, &ra, &recv));
  for (size_t b = 0; b < P->lpt_nbuckets; b++)
  {
    size_t seg = P->lpt_bucket_seg[b];
    for (int l = 0; l < z->nl; l++)
    {
      CHECKSTATUS (muon_dmem_zero (ctx, z->dev, send[l], seg * W));
      for (size_t p = 0; p < n; p++)
        if (P->lpt_bucket[p] == b)
          CHECKSTATUS (muon_dmem_copy (ctx, z->dev, send[l] + (size_t) P->lpt_owner[p] * seg
                                       + at[p], zdev_grad (z, l, p), L->params[p].numel));
    }
    CHECKSTATUS (zdev_reduce_scatter_avg (z, send, recv, seg));
    for (int l = 0; l < z->nl; l++)
    {
      int r = muon_comm_rank (z->comm, l);
      for (size_t p = 0; p < n; p++)
      {
        const muon_zero_param *q = &L->params[p];
        if (P->lpt_owner[p] != r || P->lpt_bucket[p] != b)
          continue;
        CHECKSTATUS (zdev_update (z, l, p, recv[l] + at[p],
                                  z->mom[l] + P->momentum_at[(size_t) r * n + p], z->U,
                                  q->rows, q->cols));
        CHECKSTATUS (zdev_put_owned (z, l, p, z->U));
      }
    }
  }
fail:
  zdev_scratch_free (z, sa, send);
  zdev_scratch_free (z, ra, recv);
  return status;
}
