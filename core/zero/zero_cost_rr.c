/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_cost_rr.c - the plan-only cost of the designs that give whole matrices to single
 * ranks (zero_step_rr.c): the ZeRO-3 round robin (with the correct and the aliased pads) and
 * Megatron's layer-wise LPT (by numel, and by Newton-Schulz cost since its PR #6379).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zero_cost_impl.h"

//---- round robin (zero_step_rr.c) ---------------------------------------------------------

muon_status zcost_round_robin (cost_job *J)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  muon_zero_cost *C = J->C;
  int aliased = J->o->design == MUON_ZERO3_RR_ALIASED;
  size_t np = J->np, W = J->W;
  part_t q = { 0 };
  int64_t *down = NULL;
  CHECKSTATUS (zcost_part_build (J, 3, &q));
  CHECKMEM (down = calloc (W + 1, sizeof *down));
  size_t S = q.S;
  C->padded_total = q.padded_total;
  C->partition_size = S;
  for (size_t p = 0; p < np; p++)
  {
    size_t n = J->numel[p], l = (size_t) q.last[p], lo, hi;
    C->first_owner[p] = 0;
    C->last_owner[p] = q.last[p];
    if (l > 0)
    {
      C->straddle_total += n;
      C->nstraddle++;
    }
    zcost_part_range (&q, p, n, l, &lo, &hi);
    down[0] += (int64_t) q.chunk[p];
    down[l] += (int64_t) (hi - lo) - (int64_t) q.chunk[p];
    down[l + 1] -= (int64_t) (hi - lo);
  }
  zcost_prefix_u (down, C->owned, W);

  // the shipped pads: one per rank, shaped like the last matrix; a mixed round fails
  size_t pad = J->numel[J->order[np - 1]];
  size_t npads = J->o->pad_count == MUON_ZERO_PADS_KELLER ? W - np % W : (W - np % W) % W;
  if (aliased)
    for (size_t base = 0; base < np && !C->fails; base += W)
    {
      size_t a = J->numel[J->order[base]];
      for (size_t s = base + 1; s < base + W; s++)
      {
        size_t n = s < np ? J->numel[J->order[s]] : pad;
        if (n != a)
        {
          const muon_zero_cost_param *x = &J->par[J->order[base]];
          const muon_zero_cost_param *y = &J->par[s < np ? J->order[s] : J->order[np - 1]];
          C->fails = 1;
          snprintf (C->why, sizeof C->why, ZCOST_MIXED_WHY, base / W + 1, base + 1,
                    J->order[base] + 1, x->rows, x->cols, s + 1,
                    s < np ? ZCOST_MIXED_HOLDS : ZCOST_MIXED_PAD,
                    (s < np ? J->order[s] : J->order[np - 1]) + 1, y->rows, y->cols);
          break;
        }
      }
    }

  // 1. all-reduce of the gradients, 2. all-gather of the momentum chunks, 3. per round two
  // all-gathers (updates, momenta)
  CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALLREDUCE, J->total));
  CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALL_GATHER, S));
  size_t last_count = 0;
  for (size_t base = 0; base < np; base += W)
  {
    size_t count = 0;
    for (size_t s = base; s < base + W && s < np; s++)
      count = max_sz (count, J->numel[J->order[s]]);
    if (aliased)
      count = J->numel[J->order[base]];
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALL_GATHER, count));
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALL_GATHER, count));
    last_count = count;
    C->rounds++;
  }
  size_t idle = (W - np % W) % W;   // the last round's idle slots
  for (size_t s = 0; s < np; s++)
  {
    size_t p = J->order[s], r = s % W;
    C->ns_rank[p] = (int) r;
    C->ns_flops[r] += J->pf[p];
    C->ns_calls[r] += J->par[p].experts ? J->par[p].experts : 1;   // one per page
  }
  for (size_t r = 0; r < W; r++)
  {
    C->momentum[r] = S;
    C->master[r] = C->owned[r];
    C->pads[r] = aliased ? (npads > 0 ? 2 * pad : 0) : 2 * idle * last_count;
    C->transient[r] = zcost_elems (J, r, 5, (const uint64_t[]) {
                        2, J->total, S, W, 2, J->big, 2 * W, J->big,
                        aliased && npads > 0 ? 2 : 0, pad });
  }
fail:
  zcost_part_free (&q);
  free (down);
  return status;
}

//---- Megatron's layer-wise LPT (zero_step_rr.c), by numel or by NS cost ------------------

muon_status zcost_lpt (cost_job *J)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  muon_zero_cost *C = J->C;
  size_t np = J->np, W = J->W, *rows = NULL, *cols = NULL, *dealt = NULL, *seg = NULL;
  size_t nb = 0, sum = 0, most = 0;
  int by_cost = J->o->design == MUON_ZERO_LAYERWISE_NS_COST;
  CHECKMEM (rows = calloc (np, sizeof *rows));
  CHECKMEM (cols = calloc (np, sizeof *cols));
  CHECKMEM (dealt = malloc (np * sizeof *dealt));
  CHECKMEM (seg = calloc (np, sizeof *seg));
  for (size_t p = 0; p < np; p++)
  {
    rows[p] = J->par[p].rows;
    cols[p] = J->par[p].cols;
  }
  size_t over = by_cost ? zero_ns_cost_overflow (np, rows, cols) : 0;
  if (over)                      // a design muon_zero_step would refuse: costed by numel
  {
    C->fails = 1;
    snprintf (C->why, sizeof C->why, ZCOST_NS_COST_WHY, over);
    by_cost = 0;
  }
  // the plan's owners (zero_plan.c), the matrices numbered in the order dealt
  // and Megatron's buffer: per bucket W shards of its padded_shard_size (seg[b]) elements
  CHECKSTATUS (zero_layerwise_owners (ctx, np, rows, cols, (int) W, by_cost,
                                      J->o->bucket_size, C->ns_rank, dealt, NULL, NULL, seg,
                                      &nb));
  for (size_t k = 0; k < np; k++)
    C->slot[dealt[k]] = k;
  zcost_owner_work (J);                 // momentum: the whole matrices it owns
  for (size_t b = 0; b < nb; b++)
  {
    sum += seg[b];
    most = seg[b] > most ? seg[b] : most;
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_REDUCE_SCATTER, seg[b]));
  }
  C->padded_total = sum * W;
  C->partition_size = sum;
  for (size_t p = 0; p < np; p++)
    C->first_owner[p] = C->last_owner[p] = C->ns_rank[p];
  for (size_t r = 0; r < W; r++)
  {
    C->owned[r] = C->master[r] = C->momentum[r];
    C->transient[r] = zcost_elems (J, r, 3, (const uint64_t[]) {   // the largest bucket's
                        most, W, most, 1, J->big, 1 });              //   buffers
  }
fail:
  free (rows);
  free (cols);
  free (dealt);
  free (seg);
  return status;
}
