/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_cost_ep.c - the plan-only cost of an expert-parallel step (zero_step_ep.c): the
 * reduce-scatter of the layout's partition, each unit (an expert page, or a whole matrix
 * without experts) on its owner, two ragged all-to-alls of the pieces, momentum on the
 * partition.  A unit's pieces over the ranks are its ends plus whole partitions between,
 * so the bytes are difference arrays over the ranks: O(units log W + W).
 */
#include <stdlib.h>
#include <string.h>

#include "zero_cost_impl.h"

// What rank r holds of the unit [k0, k1) of matrix p: lengths of ranks a (first) and b
// (last), w = a rank's whole share in between.
typedef struct { size_t a, b, wa, wb, w; } unit_span;

static unit_span span_of (const part_t *q, size_t p, size_t k0, size_t k1)
{
  size_t w = q->stage == 3 ? q->chunk[p] : q->S, base = q->stage == 3 ? 0 : q->off[p];
  unit_span u = { (base + k0) / w, (base + k1 - 1) / w, 0, 0, w };
  u.wa = min_sz (k1, (u.a + 1) * w - base) - k0;
  u.wb = u.b > u.a ? k1 + base - u.b * w : u.wa;
  return u;
}

static size_t held (const unit_span *u, size_t r)
{
  return r < u->a || r > u->b ? 0 : r == u->a ? u->wa : r == u->b ? u->wb : u->w;
}

// Unit [k0, k1) of p on owner o.  Per rank r, the all-to-all elements it sends (= receives)
// are the pieces it holds of the others' units (out, then back) plus what it lacks of its
// own units (in, then back): over all units held_u (r), plus over r's units len - 2 held.
// dheld gets held over the ranks (a difference array), moved[o] len - 2 held (o) (uint64
// arithmetic: the sum with the prefix of dheld is the non-negative count), mine[o] held (o).
// Per call: to the owners rank r sends hold - mine (its pieces of the others' units) and
// receives moved + mine (what it lacks of its own); back, the reverse.
static void add_unit (const part_t *q, size_t p, size_t k0, size_t k1, size_t o,
                      int64_t *dheld, uint64_t *moved, uint64_t *mine)
{
  unit_span u = span_of (q, p, k0, k1);
  moved[o] += (uint64_t) (k1 - k0) - 2 * (uint64_t) held (&u, o);
  mine[o] += held (&u, o);
  dheld[u.a] += (int64_t) u.wa;
  dheld[u.a + 1] -= (int64_t) u.wa;
  if (u.b > u.a)
  {
    dheld[u.a + 1] += (int64_t) u.w;
    dheld[u.b] -= (int64_t) u.w;
    dheld[u.b] += (int64_t) u.wb;
    dheld[u.b + 1] -= (int64_t) u.wb;
  }
}

muon_status zcost_expert_parallel (cost_job *J)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  muon_zero_cost *C = J->C;
  size_t np = J->np, W = J->W;
  part_t q = { 0 };
  int64_t *dheld = NULL, *down = NULL;
  uint64_t *moved = NULL, *mine = NULL, *load = NULL, *unit_len = NULL;
  heap_item *h = NULL;
  CHECKSTATUS (zcost_part_build (J, J->o->stage, &q));
  CHECKMEM (dheld = calloc (W + 1, sizeof *dheld));
  CHECKMEM (down = calloc (W + 1, sizeof *down));
  CHECKMEM (moved = calloc (W, sizeof *moved));
  CHECKMEM (mine = calloc (W, sizeof *mine));
  CHECKMEM (load = calloc (W, sizeof *load));
  CHECKMEM (unit_len = calloc (W, sizeof *unit_len));
  CHECKMEM (h = malloc (W * sizeof *h));
  C->padded_total = q.padded_total;
  C->partition_size = q.S;

  // owners: expert e of E on rank floor (e W / E); then the dense matrices by LPT (in J's
  // size-descending order) onto the least-loaded rank
  for (size_t p = 0; p < np; p++)
  {
    size_t E = J->par[p].experts ? J->par[p].experts : 1, page = J->numel[p] / E;
    C->first_owner[p] = q.first[p];
    C->last_owner[p] = q.last[p];
    C->ns_rank[p] = -1;
    if (q.last[p] > q.first[p])
    {
      C->straddle_total += J->numel[p];
      C->nstraddle++;
    }
    for (size_t e = 0; E > 1 && e < E; e++)
    {
      size_t o = e * W / E;
      load[o] += page;
      C->ns_calls[o]++;
      C->ns_flops[o] += J->pf[p] / (double) E;
      unit_len[o] += page;
      add_unit (&q, p, e * page, (e + 1) * page, o, dheld, moved, mine);
    }
  }
  for (size_t r = 0; r < W; r++)
    h[r] = (heap_item) { load[r], (int) r };
  for (size_t i = W / 2; i-- > 0;)
    zcost_heap_down (h, W, i);
  for (size_t k = 0; k < np; k++)
  {
    size_t p = J->sorted[k];
    if ((J->par[p].experts ? J->par[p].experts : 1) > 1)
      continue;
    size_t o = (size_t) h[0].rank, n = J->numel[p];
    h[0].load += n;
    zcost_heap_down (h, W, 0);
    C->ns_rank[p] = (int) o;
    C->ns_calls[o]++;
    C->ns_flops[o] += J->pf[p];
    unit_len[o] += n;
    add_unit (&q, p, 0, n, o, dheld, moved, mine);
  }

  // owned elements: the partition's (stage 3: a chunk of each matrix, the rest on its last)
  for (size_t p = 0; q.stage == 3 && p < np; p++)
  {
    size_t l = (size_t) q.last[p], lo, hi;
    zcost_part_range (&q, p, J->numel[p], l, &lo, &hi);
    down[0] += (int64_t) q.chunk[p];
    down[l] += (int64_t) (hi - lo) - (int64_t) q.chunk[p];
    down[l + 1] -= (int64_t) (hi - lo);
  }
  if (q.stage == 3)
    zcost_prefix_u (down, C->owned, W);
  else
    for (size_t r = 0; r < W; r++)
      C->owned[r] = min_sz ((r + 1) * q.S, J->total) - min_sz (r * q.S, J->total);

  CHECKSTATUS (zcost_add_coll (J, MUON_COLL_REDUCE_SCATTER, q.S));
  uint64_t *hold = (uint64_t *) load;          // reused: elements each rank holds of units
  zcost_prefix_u (dheld, hold, W);
  uint64_t busiest = 0;                        // of one call: max_r max (out, in)
  for (size_t r = 0; r < W; r++)
  {
    CHECKSTATUS (zcost_add_elems (J, r, MUON_COLL_ALL_TO_ALL, 2, hold[r] + moved[r]));
    uint64_t out = hold[r] - mine[r], in = moved[r] + mine[r];
    busiest = out > busiest ? out : busiest;
    busiest = in > busiest ? in : busiest;
    C->momentum[r] = q.S;
    C->master[r] = C->owned[r];
    // flat buffer, reduced partition, NS input; send and receive buffers; G, M, U
    C->transient[r] = zcost_elems (J, r, 4, (const uint64_t[]) {
                        q.padded_total, 1, 2, q.S, 2, max_sz (C->owned[r], unit_len[r]),
                        3, J->big });
  }
  zcost_set_busy (J, 2, busiest);              // the two calls in sequence (NS between)
fail:
  zcost_part_free (&q);
  free (dheld);
  free (down);
  free (moved);
  free (mine);
  free (unit_len);
  free (h);
  free (load);
  return status;
}
