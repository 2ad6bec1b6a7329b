/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_zero_cost.h - part of the public C API (included by muon.h): the ZeRO layer's
 * plan-only cost model (core/zero/zero_cost.c and one zero_cost_<family>.c per family of
 * designs), what each rank of every design of the steps of muon_zero.h moves and computes in
 * one step, from the shapes alone.  The layout, the designs, their plans and the step are in
 * muon_zero.h; this header adds only the cost model, which reads their names (the variants,
 * the orders, the pad counts), the communicators' columns (muon_comm.h) and the FLOP model
 * of Newton-Schulz (muon_math.h).
 */
#ifndef MUON_ZERO_COST_H
#define MUON_ZERO_COST_H

#include "muon_base.h"
#include "muon_comm.h"
#include "muon_math.h"
#include "muon_zero.h"

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------------------------------------------------------------------
// The plan-only cost of one distributed Muon step (core/zero/zero_cost.c).
//
// From the shapes alone - no tensor, no muon_zero_layout (whose pieces and per-rank ranges
// grow as parameters x ranks) - it gives what each rank of every design of the steps of
// muon_zero.h moves and computes in one step: calls and bytes per collective (the ring
// model of muon_comm.h, exactly what the sim communicator counts and the MPI one reports),
// Newton-Schulz calls and FLOPs, momentum, update, master-weight and pad elements, and the
// buffers the step allocates.  Every quantity is a closed form or a sweep over the parameters in
// slot order (difference arrays over the ranks), so a plan costs O(P log P + W) for P
// matrices on W ranks (one exception below), and DeepSeek-V3 on 16,384 ranks plans in
// milliseconds.
//
// Designs: the muon_zero_variant values (same numbers, same meaning), among them
//   MUON_ZERO_ALLTOALL_OWNER (MUON_ZERO_MUON_BP costs its full
//                            step) the all-to-all owner design of FSDP2 Muon and Dion, whose
//                            bytes muon_zero_step measures equal: every rank holds a dim-0
//                            shard of every matrix (ceil (rows / W) rows, the last ranks
//                            fewer or none; FSDP2 pads dim 0 to a multiple of W); a reduce-
//                            scatter of those padded shards averages the gradients; each
//                            matrix has one owner rank (round robin over the matrices in
//                            size-descending order, Dion's batches of W equal shapes); one
//                            all-to-all brings each owner the other ranks' shards of its
//                            matrices (ragged: exact shard sizes), the owner runs the Muon
//                            update, a second all-to-all returns the shards.  Momentum lives
//                            on the shards.
//
// Collectives are counted in MUON_COST_COLLS columns, those of muon_coll (allreduce,
// reduce_scatter, all_gather, broadcast, barrier, all_to_all); the all-to-all's model is the
// payload each rank sends to (receives from) the other ranks, as the communicators count it.
//
// Bytes are elements times elem_bytes (8: the fp64 buffers muon_zero_step moves; 2: a bf16
// gradient all-reduce).  Newton-Schulz FLOPs are the FLOP model of muon_math.h
// (muon_ns_flops_matrix: products only, a general (p x q)(q x r) product 2pqr, symmetric
// results half with `symmetric`); a matrix with experts E runs E pages of (rows / E) x cols, each
// cut into its split row blocks when given.  The step's NS work of a
// rank is the sum over the matrices it updates (ZERO2_SLICE_ONLY: over the row blocks its
// pieces touch, which at stage 3 is one block per matrix and rank: O(P W) there).
//
// Usage
//   muon_zero_cost_param p[2] = { { 4096, 4096, 1, NULL, 0 }, { 14336, 4096, 1, NULL, 0 } };
//   muon_zero_cost_opts o;  muon_zero_cost_opts_default (&o);  o.design = MUON_ZERO3_ROUND_ROBIN;
//   muon_zero_cost *C = NULL;
//   if (muon_zero_cost_create (ctx, 2, p, 64, &o, &C) == MUON_OK)
//     use (C->sent[r * MUON_COST_COLLS + MUON_COLL_ALL_GATHER], C->ns_flops[r]);
//   muon_zero_cost_destroy (&C);
//---------------------------------------------------------------------------------------------

#define MUON_COST_ALL_TO_ALL MUON_COLL_ALL_TO_ALL   // the sixth column: all-to-all
#define MUON_COST_COLLS MUON_COLL_COUNT


// One matrix.  rows x cols as it sits in the flat buffer (row-major there); experts >= 1
// pages of (rows / experts) x cols for Newton-Schulz (rows must divide); split: NULL, or nsplit
// row blocks of one page (summing to rows / experts; at most MUON_MAX_SPLITS, as the step
// takes), each orthogonalized on its own.
typedef struct {
  size_t rows, cols;
  size_t experts;
  const size_t *split;
  size_t nsplit;
} muon_zero_cost_param;

typedef struct {
  int design;                   // a muon_zero_variant (MUON_ZERO_VARIANT_LIST); by default
                                //   the step's default variant
  int stage;                    // layout of the ZeRO-1/2 designs: 1, 2 (default) or 3
  int align_factor;             // default 2
  muon_zero_order order;        // default given
  muon_zero_pad_count pad_count;  // ZERO3_RR_ALIASED; default DEEPSPEED
  int elem_bytes;               // bytes an element on the wire, 1..64 (default 8)
  muon_ns_opts ns;              // method, steps (0: the schedule's default, 5 for one
                                //   triple, ncoeffs for more), coeffs / ncoeffs (the count
                                //   only), restarts, gram_min_aspect are read, and checked
                                //   as muon_ns checks them (BADARG, its messages)
  int symmetric;                // 1: symmetric products cost half (default 0)
  size_t bucket_size;           // LAYERWISE_LPT, _NS_COST: Megatron's bucket_size in elements,
                                //   0 (default) for one bucket; one reduce-scatter a bucket
  int overflow_fails;           // bytes past 2^64 (a collective of count elements on W ranks
                                //   with count W 8 past 2^64, as the communicators' counters
                                //   refuse it, or a rank's bytes of a collective past 2^64),
                                //   or a rank's transient elements reaching 2^64 - 1:
                                //   0 (default) BADSHAPE; 1 the design fails (fails, why:
                                //   "its ..." after any reason of its own) and its
                                //   collectives are left out (calls, sent, recv all 0)
} muon_zero_cost_opts;

// Per rank r: row r of the world x MUON_COST_COLLS tables, entry r of the vectors.
typedef struct {
  int design, world;
  size_t nparams;
  int fails;                    // 1: muon_zero_step fails this step (ZERO3_RR_ALIASED on a
  char why[512];                //    mixed-size round, DeepSpeed PR 8628; bytes past 2^64
                                //    with overflow_fails); why says where, every reason
                                //    whole (the longest combination, 493 bytes, fits)
  size_t total;                 // sum of numel
  size_t padded_total;          // the partition the design uses: its buffer length
  size_t partition_size;        //   and elements per rank (S)
  size_t straddle_total;        // elements of the matrices with more than one owner
  size_t nstraddle;             // and how many they are
  size_t rounds;                // ZeRO-3 round robin: gather rounds
  double flops_total;           // NS FLOPs of one update of every matrix
  uint64_t *calls;              // world x MUON_COST_COLLS
  uint64_t *sent, *recv;        // world x MUON_COST_COLLS, bytes
  double *busy;                 // MUON_COST_COLLS: the bytes on each collective's critical
                                //   path, its calls in sequence: the sum over its calls of
                                //   each call's busiest rank's bytes (the larger of what it
                                //   sends and receives in that call).  Every call of the
                                //   allreduce, reduce-scatter and all-gather has the same
                                //   busiest rank, so there it is max_r max (sent, recv); the
                                //   two all-to-alls of ALLTOALL_OWNER, MUON_BP and
                                //   EXPERT_PARALLEL (to the owners, NS, back) are 2 max_r
                                //   max (out_r, in_r), not max_r (out_r + in_r).  A double:
                                //   the sum may pass 2^64 where no rank's bytes do (exact
                                //   below 2^53); 0 where the collectives are left out
  uint64_t *ns_calls;           // world: NS calls, one per matrix or expert page
                                //   (zero_muon_step's ns_calls)
  double *ns_flops;             // world: their FLOPs
  uint64_t *momentum;           // world: momentum elements held (momentum_elements)
  uint64_t *pads;               // world: gather pad elements (pad_elements)
  uint64_t *owned;              // world: update elements the rank returns (its shard)
  uint64_t *master;             // world: master-weight elements (owned; REFERENCE: total)
  uint64_t *transient;          // world: elements of the buffers the step allocates beyond
                                //   the local gradients (zero_step*.c's, or the model's);
                                //   UINT64_MAX where they reach 2^64 - 1 (overflow_fails)
  int *first_owner, *last_owner;  // nparams: ranks holding part of it in the design's
                                  //   partition (whole-matrix designs: the owner twice)
  int *ns_rank;                 // nparams: the one rank that runs its NS, -1 when every
                                //   owner (or every rank) does
  size_t *slot;                 // nparams: place in the flat order (0-based)
} muon_zero_cost;

void muon_zero_cost_opts_default (muon_zero_cost_opts *o);

// [in] params[nparams] (nparams >= 1, experts >= 1 each), world 1..the smaller of
// MUON_ZERO_MAX_WORLD and MUON_COMM_MAX_WORLD (its byte model is the communicators'), o
// (NULL: defaults).
// [out] *cost, freed with muon_zero_cost_destroy.  Errors: NULLPTR, BADSHAPE (a size 0,
// experts not dividing rows, split not summing, overflow, bytes past 2^64 or transient
// elements reaching 2^64 - 1 without overflow_fails), BADARG (world, design, stage, align,
// order, pad count, elem_bytes, overflow_fails, NS options), NOMEM.
muon_status muon_zero_cost_create (muon_ctx *ctx, size_t nparams,
                                   const muon_zero_cost_param *params, int world,
                                   const muon_zero_cost_opts *o, muon_zero_cost **cost);
muon_status muon_zero_cost_destroy (muon_zero_cost **cost);

#ifdef __cplusplus
}
#endif
#endif
