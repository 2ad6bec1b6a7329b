/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_cost_zero12.c - the plan-only cost of the ZeRO-1/2 family (zero_step_zero12.c:
 * reference, zero12_allreduce, the #7807 bug, slice-only, multi-owner, Moonlight's gather) on
 * the layout's partition, by difference arrays over the ranks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zero_cost_impl.h"

//---- helpers ------------------------------------------------------------------------------

static void prefix_d (const double *d, double *out, size_t W)
{
  double acc = 0;
  for (size_t r = 0; r < W; r++)
  {
    acc += d[r];
    out[r] = acc;
  }
}

//---- the ZeRO-1/2 family (zero_step_zero12.c) ---------------------------------------------

// Slice only: rank r orthogonalizes the block of rows its piece of each matrix touches.
static void slice_flops (cost_job *J, const part_t *q, double *d)
{
  muon_zero_cost *C = J->C;
  size_t W = J->W;
  for (size_t p = 0; p < J->np; p++)
  {
    size_t n = J->numel[p], cols = J->par[p].cols, f = (size_t) q->first[p];
    size_t l = (size_t) q->last[p], lo, hi;
    if (q->stage == 3 && l > 0 && q->chunk[p] % cols == 0)
    {
      // every piece but the last is chunk / cols whole rows: one value for ranks 0..l-1
      double fl = muon_ns_flops_matrix (q->chunk[p] / cols, cols, &J->o->ns, J->o->symmetric);
      d[0] += fl;
      d[l] -= fl;
      f = l;
    }
    size_t memo_rows[2] = { 0, 0 };   // a matrix's blocks take two or three row counts
    double memo_fl[2] = { 0, 0 };
    for (size_t r = f; r <= l; r++)
    {
      zcost_part_range (q, p, n, r, &lo, &hi);
      size_t rows = (hi + cols - 1) / cols - lo / cols;
      int k = memo_rows[0] == rows ? 0 : memo_rows[1] == rows ? 1 : -1;
      if (k < 0)
      {
        k = memo_rows[0] == 0 ? 0 : 1;
        memo_rows[k] = rows;
        memo_fl[k] = muon_ns_flops_matrix (rows, cols, &J->o->ns, J->o->symmetric);
      }
      C->ns_flops[r] += memo_fl[k];
    }
  }
  (void) W;
}

muon_status zcost_zero12 (cost_job *J)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  muon_zero_cost *C = J->C;
  int v = J->o->design;
  size_t np = J->np, W = J->W, pages = 0;
  part_t q = { 0 };
  int64_t *dcnt = NULL, *dnum = NULL, *down = NULL, *dstr = NULL;
  double *dfl = NULL;
  uint64_t *cnt = NULL, *num = NULL, *strad = NULL, *mid = NULL;
  CHECKSTATUS (zcost_part_build (J, J->o->stage, &q));
  CHECKMEM (dcnt = calloc (W + 1, sizeof *dcnt));
  CHECKMEM (dnum = calloc (W + 1, sizeof *dnum));
  CHECKMEM (down = calloc (W + 1, sizeof *down));
  CHECKMEM (dstr = calloc (W + 1, sizeof *dstr));
  CHECKMEM (dfl = calloc (W + 1, sizeof *dfl));
  CHECKMEM (cnt = calloc (W, sizeof *cnt));
  CHECKMEM (num = calloc (W, sizeof *num));
  CHECKMEM (strad = calloc (W, sizeof *strad));
  CHECKMEM (mid = calloc (W, sizeof *mid));
  size_t S = q.S, N = q.padded_total;
  C->padded_total = N;
  C->partition_size = S;

  for (size_t p = 0; p < np; p++)
  {
    size_t n = J->numel[p], f = (size_t) q.first[p], l = (size_t) q.last[p], lo, hi;
    C->first_owner[p] = q.first[p];
    C->last_owner[p] = q.last[p];
    // every owner runs its NS (every rank in the reference): one rank only where it has one
    C->ns_rank[p] = l > f || (v == MUON_ZERO_REFERENCE && W > 1) ? -1 : (int) f;
    // matrices with a piece on the rank: how many, their elements, their NS work
    size_t E = J->par[p].experts ? J->par[p].experts : 1;   // NS calls: one per page
    dcnt[f] += (int64_t) E;
    dcnt[l + 1] -= (int64_t) E;
    pages += E;
    dnum[f] += (int64_t) n;
    dnum[l + 1] -= (int64_t) n;
    dfl[f] += J->pf[p];
    dfl[l + 1] -= J->pf[p];
    // owned elements at stage 3: chunk on ranks 0..l-1, the rest on l
    zcost_part_range (&q, p, n, l, &lo, &hi);
    if (q.stage == 3)
    {
      down[0] += (int64_t) q.chunk[p];
      down[l] += (int64_t) (hi - lo) - (int64_t) q.chunk[p];
      down[l + 1] -= (int64_t) (hi - lo);
    }
    // the straddlers' pieces per rank (Moonlight's gather): first, middles, last
    if (l > f)
    {
      C->straddle_total += n;
      C->nstraddle++;
      strad[l] += hi - lo;
      size_t mid_len = q.stage == 3 ? q.chunk[p] : S;
      size_t from = f;
      if (q.stage != 3)
      {
        zcost_part_range (&q, p, n, f, &lo, &hi);
        strad[f] += hi - lo;
        from = f + 1;
      }
      dstr[from] += (int64_t) mid_len;
      dstr[l] -= (int64_t) mid_len;
    }
  }
  zcost_prefix_u (dcnt, cnt, W);
  zcost_prefix_u (dnum, num, W);
  zcost_prefix_u (dstr, mid, W);
  prefix_d (dfl, C->ns_flops, W);
  for (size_t r = 0; r < W; r++)
    strad[r] += mid[r];
  if (q.stage == 3)
    zcost_prefix_u (down, C->owned, W);
  else
    for (size_t r = 0; r < W; r++)
      C->owned[r] = min_sz ((r + 1) * S, J->total) - min_sz (r * S, J->total);

  // the collectives, in the step's order
  if (v == MUON_ZERO_REFERENCE || v == MUON_ZERO12_ALLREDUCE)
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALLREDUCE, N));
  else
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_REDUCE_SCATTER, S));
  if (v == MUON_ZERO2_MULTI_OWNER && C->straddle_total > 0)
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALLREDUCE, C->straddle_total));
  size_t Cg = 0;
  if (v == MUON_ZERO_MOONLIGHT_GATHER)
  {
    for (size_t r = 0; r < W; r++)
      Cg = max_sz (Cg, strad[r]);
    if (Cg > 0)
      CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALL_GATHER, Cg));
  }

  if (v == MUON_ZERO2_SLICE_ONLY)
  {
    memset (dfl, 0, (W + 1) * sizeof *dfl);
    memset (C->ns_flops, 0, W * sizeof *C->ns_flops);
    slice_flops (J, &q, dfl);
    double acc = 0;
    for (size_t r = 0; r < W; r++)
      C->ns_flops[r] += (acc += dfl[r]);
  }

  int full = v == MUON_ZERO_REFERENCE || v == MUON_ZERO12_ALLREDUCE
             || v == MUON_ZERO2_RS_BUGGY || v == MUON_ZERO2_MULTI_OWNER;
  for (size_t r = 0; r < W; r++)
  {
    C->ns_calls[r] = v == MUON_ZERO_REFERENCE ? pages : cnt[r];
    C->momentum[r] = v == MUON_ZERO_REFERENCE ? J->total : full ? num[r] : S;
    C->master[r] = v == MUON_ZERO_REFERENCE ? J->total : C->owned[r];
    if (v == MUON_ZERO_REFERENCE)
      C->ns_flops[r] = C->flops_total;
    int part = v != MUON_ZERO_REFERENCE && v != MUON_ZERO12_ALLREDUCE;
    int moon = v == MUON_ZERO_MOONLIGHT_GATHER;
    C->transient[r] = zcost_elems (J, r, 7, (const uint64_t[]) {
      N, 1, 3, J->big,                                // the flat buffer; G, M, U of one matrix
      part, S,                                        // the reduced partition
      v == MUON_ZERO2_MULTI_OWNER, C->straddle_total, // the straddlers' all-reduce
      moon, S, moon, Cg, moon * W, Cg });             // NS inputs, send and gather buffers
  }
fail:
  zcost_part_free (&q);
  free (dcnt);
  free (dnum);
  free (down);
  free (dstr);
  free (dfl);
  free (cnt);
  free (num);
  free (strad);
  free (mid);
  return status;
}

