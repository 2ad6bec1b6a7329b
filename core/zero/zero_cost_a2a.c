/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_cost_a2a.c - the plan-only cost of the designs on dim-0 (row) shards
 * (zero_step_a2a.c): the all-to-all owner idea of FSDP2 Muon and Dion (its owner rule and
 * ragged all-to-alls muonlab's, not Dion's padded groups), and MuonBP, whose
 * full step it is (a block step sends nothing more).  Every rank holds ceil (rows / W) rows
 * of every matrix; each matrix has one owner, round robin over the matrices in size-
 * descending order; the bytes of the shards over the ranks are difference arrays: O(P + W).
 */
#include <stdint.h>
#include <stdlib.h>

#include "zero_cost_impl.h"

muon_status zcost_row_shards (cost_job *J)
{
  const size_t *sorted = J->sorted;
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  muon_zero_cost *C = J->C;
  size_t np = J->np, W = J->W;
  int64_t *dsh = NULL;
  uint64_t *shard = NULL, *own = NULL, *gath = NULL;
  for (size_t k = 0; k < np; k++)
    C->ns_rank[sorted[k]] = (int) (k % W);
  zcost_owner_work (J);                 // momentum: its full matrices, for now (below)

  // all-to-all: dim-0 shards of ceil (rows / W) rows; rank r holds rows [r rc, (r+1) rc)
  CHECKMEM (dsh = calloc (W + 1, sizeof *dsh));
  CHECKMEM (shard = calloc (W, sizeof *shard));
  CHECKMEM (own = calloc (W, sizeof *own));
  CHECKMEM (gath = calloc (W, sizeof *gath));
  size_t Sfs = 0;
  for (size_t p = 0; p < np; p++)
  {
    size_t rows = J->par[p].rows, cols = J->par[p].cols, rc = rows / W + (rows % W != 0);
    size_t k = rows / rc, rem = rows - k * rc, o = (size_t) C->ns_rank[p];
    Sfs += rc * cols;
    dsh[0] += (int64_t) (rc * cols);
    dsh[k] -= (int64_t) (rc * cols);
    if (rem)
    {
      dsh[k] += (int64_t) (rem * cols);
      dsh[k + 1] -= (int64_t) (rem * cols);
    }
    C->first_owner[p] = 0;
    C->last_owner[p] = (int) (k - (rem == 0));
    size_t mine = o < k ? rc * cols : o == k ? rem * cols : 0;
    own[o] += mine;                       // the owner's own shard of its matrices
    gath[o] += J->numel[p] - mine;        // what it gathers of them
    if (C->last_owner[p] > 0)
    {
      C->straddle_total += J->numel[p];
      C->nstraddle++;
    }
  }
  zcost_prefix_u (dsh, shard, W);
  C->padded_total = Sfs * W;
  C->partition_size = Sfs;
  CHECKSTATUS (zcost_add_coll (J, MUON_COLL_REDUCE_SCATTER, Sfs));
  uint64_t busiest = 0;                   // of one call: max_r max (out, gath)
  for (size_t r = 0; r < W; r++)
  {
    uint64_t out = shard[r] - own[r];     // its shards of the others' matrices
    // forward: send out, receive gath; back: send gath, receive out (each < 2^63)
    CHECKSTATUS (zcost_add_elems (J, r, MUON_COLL_ALL_TO_ALL, 2, out + gath[r]));
    busiest = out > busiest ? out : busiest;
    busiest = gath[r] > busiest ? gath[r] : busiest;
    uint64_t full = C->momentum[r];       // elements of the matrices it owns
    C->momentum[r] = C->owned[r] = C->master[r] = shard[r];
    // the flat buffer of W padded shard blocks it reduce-scatters, its reduced shard; the
    // owned matrices and their gathered copies; send and receive buffers; one matrix
    C->transient[r] = zcost_elems (J, r, 5, (const uint64_t[]) {
                        Sfs, W, Sfs, 1, 2, full, 2, out, J->big, 1 });
  }
  zcost_set_busy (J, 2, busiest);         // the two calls in sequence (NS between them)
fail:
  free (dsh);
  free (shard);
  free (own);
  free (gath);
  return status;
}

