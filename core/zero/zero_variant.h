/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_variant.h - the one table of the distributed Muon variants (muon_zero.h): one row per
 * muon_zero_variant saying what the plan (zero_plan.c, and from it the momentum map the
 * checkpoints record), the step (zero_step_*.c) and the cost model (zero_cost_*.c) need to
 * know about it.  Outside a family's own step and cost functions (which may tell the designs
 * of their family apart), nothing in core/zero/ tests a variant by value.
 *
 * A new design is (the recipe; core/zero/README says it at more length):
 *   1. its name and value in MUON_ZERO_VARIANT_LIST (muon_zero.h): the catalogue of lists,
 *      the gateways and inst/ (zero_muon_step's Variant, zero_cost's Design) take it from
 *      there;
 *   2. one row here (a new rule, when the existing ones do not say it, is one enum value
 *      below and one case in zero_plan.c);
 *   3. one step function (STEP), in its family's zero_step_<family>.c;
 *   4. one cost model (COST), in the same family's zero_cost_<family>.c.
 * A row missing a column does not compile (the table's X-macro takes every column, and each
 * function it names is declared at the end of this file); zero_plan.c fails the build when
 * a value of the list has no row; tests/octave/test_zero_designs walks every row (step,
 * cost, save, load at another world, the plan's counters against the step's).
 */
#ifndef MUON_ZERO_VARIANT_H
#define MUON_ZERO_VARIANT_H

#include "muon_zero.h"

// The partition a variant uses: the layout given, stage-3 chunks of its matrices in its
// order (the layout itself when it is stage 3), or dim-0 (row) shards of every matrix
// (zshard_rows below; only the layout's shapes and world count).
typedef enum { ZPART_LAYOUT, ZPART_STAGE3, ZPART_ROW_SHARDS } zpart_rule;

// Which ranks update (run Newton-Schulz on) matrix p: every rank (DDP), every rank holding
// a piece of it (the whole matrix), every rank holding a piece of it (the block of rows its
// piece touches: no split row blocks then), the rank of its flat slot mod W (round robin),
// its LPT owner (Megatron's: numel descending onto the rank of fewest elements, or by
// Newton-Schulz cost under an element cap since its PR #6379: zero_layerwise_owners), its
// size owner (round robin over the matrices by numel descending, index ascending: FSDP2 /
// Dion), or its size owner on full steps and every rank its row shard on block steps
// (MuonBP), or the owner of each of its units (expert parallel: every expert page on its
// expert's rank, the other matrices by LPT, numel descending and index ascending;
// zero_step_ep.c places the pages, since they depend on the step's blocks, and the plan's
// LPT owners are those of a step without experts).  zero_plan.c's ns_calls count the full
// step.
typedef enum {
  ZUPD_ALL, ZUPD_OWNERS, ZUPD_PIECES, ZUPD_ROUND_ROBIN, ZUPD_LPT, ZUPD_SIZE_RR,
  ZUPD_SIZE_RR_BLOCKS, ZUPD_UNITS, ZUPD_LPT_NS_COST
} zupdate_rule;

// What each rank returns (its owned spans): its pieces of the partition, the whole
// matrices it updates (one updater per matrix: LPT), or its row shard of every matrix.
typedef enum { ZKEEP_PIECES, ZKEEP_WHOLE, ZKEEP_ROWS } zkeep_rule;

typedef struct zstep zstep;                 // zero_step_impl.h
typedef muon_status (*zstep_fn) (zstep *z);
typedef struct zdev zdev;                   // zero_step_dev.h
typedef muon_status (*zdev_fn) (zdev *z);

// X (VARIANT, EXACT, PART, HOLDS, UPDATES, KEEPS, STEP, COST, DEVICE)
//   EXACT    1: the design computes the reference's update (muon_zero_variant_is_correct)
//   PART     zpart_rule: the partition it uses
//   HOLDS    muon_zero_mom_layout: momentum as full matrices of the matrices a rank updates
//            (MUON_ZERO_MOM_FULL) or as the rank's partition (MUON_ZERO_MOM_PART; with row
//            shards, its shards back to back, as its update buffer)
//   UPDATES  zupdate_rule: who runs Newton-Schulz on a matrix (zero_plan.c's ns_calls)
//   KEEPS    zkeep_rule: what a rank returns
//   STEP     the step function (zero_step_zero12.c, zero_step_rr.c, zero_step_a2a.c,
//            zero_step_ep.c)
//   COST     its plan-only cost model, the same family's (zero_cost_zero12.c, zero_cost_rr.c,
//            zero_cost_a2a.c, zero_cost_ep.c), which zero_cost.c dispatches to
//   DEVICE   its step on device memory, the STEP's twin over core/math/dmem.c
//            (zero_step_dev_zero12.c, zero_step_dev_rr.c, zero_step_dev_a2a.c,
//            zero_step_dev_ep.c), which muon_zero_step_device dispatches to
// HOLDS, PART and KEEPS together are the momentum map of a rank's buffer (the sharded
// checkpoints read it, muon_zero_plan_momentum_map): whole matrices (FULL), the pieces of
// the layout's partition or of the stage-3 one (PART, ZPART_LAYOUT / ZPART_STAGE3; expert
// parallelism's pages live in the layout's partition), or row shards (PART with
// ZKEEP_ROWS).
#define ZERO_VARIANTS(X)                                                                                                 \
  X (MUON_ZERO_REFERENCE,        1, ZPART_LAYOUT, MUON_ZERO_MOM_FULL, ZUPD_ALL,         ZKEEP_PIECES, zstep_allreduce, zcost_zero12, zdev_allreduce) \
  X (MUON_ZERO12_ALLREDUCE,      1, ZPART_LAYOUT, MUON_ZERO_MOM_FULL, ZUPD_OWNERS,      ZKEEP_PIECES, zstep_allreduce, zcost_zero12, zdev_allreduce) \
  X (MUON_ZERO2_RS_BUGGY,        0, ZPART_LAYOUT, MUON_ZERO_MOM_FULL, ZUPD_OWNERS,      ZKEEP_PIECES, zstep_rs_buggy, zcost_zero12, zdev_rs_buggy) \
  X (MUON_ZERO2_SLICE_ONLY,      0, ZPART_LAYOUT, MUON_ZERO_MOM_PART, ZUPD_PIECES,      ZKEEP_PIECES, zstep_slice_only, zcost_zero12, zdev_slice_only) \
  X (MUON_ZERO2_MULTI_OWNER,     1, ZPART_LAYOUT, MUON_ZERO_MOM_FULL, ZUPD_OWNERS,      ZKEEP_PIECES, zstep_multi_owner, zcost_zero12, zdev_rs_multi_owner) \
  X (MUON_ZERO3_ROUND_ROBIN,     1, ZPART_STAGE3, MUON_ZERO_MOM_PART, ZUPD_ROUND_ROBIN, ZKEEP_PIECES, zstep_round_robin, zcost_round_robin, zdev_round_robin) \
  X (MUON_ZERO3_RR_ALIASED,      1, ZPART_STAGE3, MUON_ZERO_MOM_PART, ZUPD_ROUND_ROBIN, ZKEEP_PIECES, zstep_rr_aliased, zcost_round_robin, zdev_rr_aliased) \
  X (MUON_ZERO_LAYERWISE_LPT,    1, ZPART_LAYOUT, MUON_ZERO_MOM_FULL, ZUPD_LPT,         ZKEEP_WHOLE,  zstep_lpt, zcost_lpt, zdev_lpt) \
  X (MUON_ZERO_MOONLIGHT_GATHER, 1, ZPART_LAYOUT, MUON_ZERO_MOM_PART, ZUPD_OWNERS,      ZKEEP_PIECES, zstep_moonlight, zcost_zero12, zdev_moonlight) \
  X (MUON_ZERO_ALLTOALL_OWNER,   1, ZPART_ROW_SHARDS, MUON_ZERO_MOM_PART, ZUPD_SIZE_RR,        ZKEEP_ROWS, zstep_alltoall_owner, zcost_row_shards, zdev_alltoall_owner) \
  X (MUON_ZERO_MUON_BP,          0, ZPART_ROW_SHARDS, MUON_ZERO_MOM_PART, ZUPD_SIZE_RR_BLOCKS, ZKEEP_ROWS, zstep_muon_bp, zcost_row_shards, zdev_muon_bp) \
  X (MUON_ZERO_EXPERT_PARALLEL,  1, ZPART_LAYOUT, MUON_ZERO_MOM_PART, ZUPD_UNITS,       ZKEEP_PIECES, zstep_expert_parallel, zcost_expert_parallel, zdev_expert_parallel) \
  X (MUON_ZERO_LAYERWISE_NS_COST, 1, ZPART_LAYOUT, MUON_ZERO_MOM_FULL, ZUPD_LPT_NS_COST, ZKEEP_WHOLE,  zstep_lpt, zcost_lpt, zdev_lpt)

// The table is read in four places, each taking the columns it needs, so that the plan
// below never calls the step above it: zero_plan.c (the facts, as a zvariant per variant),
// zero_step_api.c's dispatcher (the update rule, for its checks, and the step functions),
// zero_step_dev.c's (the device steps) and zero_cost.c's (the update rule, for the flat
// order, and the cost models).
// Why a design that updates pieces' rows (ZUPD_PIECES) refuses experts and split row
// blocks: muon_zero_step's error and the cost's why (%s: the design's name).
#define ZERO_PIECES_BLOCKS_WHY \
  "experts and split row blocks need whole matrices; '%s' updates row blocks of pieces"

typedef struct {
  int exact;
  zpart_rule part;
  muon_zero_mom_layout holds;
  zupdate_rule updates;
  zkeep_rule keeps;
} zvariant;

// Row shards: rank r's rows of a rows-row matrix over W ranks, [*r0, *r0 + *nr): rc =
// ceil (rows / W) rows each from rank 0 on, the last ranks fewer or none (FSDP2's dim-0
// shards, padded to rc rows on the wire).
static inline size_t zshard_rc (size_t rows, int W)
{
  return rows / (size_t) W + (rows % (size_t) W != 0);
}

static inline void zshard_rows (size_t rows, int W, int r, size_t *r0, size_t *nr)
{
  size_t rc = zshard_rc (rows, W), a = rc * (size_t) r, b = a + rc;
  a = a < rows ? a : rows;
  b = b < rows ? b : rows;
  *r0 = a;
  *nr = b - a;
}

// The owners of ZUPD_LPT (by_cost 0) and ZUPD_LPT_NS_COST (1), Megatron's rules and buckets
// (zero_plan.c, which says what each output holds; the plan's and the cost model's).
muon_status zero_layerwise_owners (muon_ctx *ctx, size_t np, const size_t *rows,
                                   const size_t *cols, int W, int by_cost, size_t bucket,
                                   int *owner, size_t *dealt, size_t *at, size_t *in_bucket,
                                   size_t *shard, size_t *nbuckets);
// 0 when the costs max (m, n) min (m, n)^2 of those matrices and their sum fit in 64 bits,
// else 1 + the first matrix where they do not (the owners are then a BADSHAPE error).
size_t zero_ns_cost_overflow (size_t np, const size_t *rows, const size_t *cols);

// The step functions, the cost models and the device steps the table names (a cost model
// takes the job of zero_cost_impl.h).
struct cost_job;
typedef muon_status (*zcost_fn) (struct cost_job *J);
#define ZERO_VARIANT_FN_DECL(v, exact, part, holds, updates, keeps, step, cost, dev) \
  muon_status step (zstep *z);                                                       \
  muon_status cost (struct cost_job *J);                                             \
  muon_status dev (zdev *z);
ZERO_VARIANTS (ZERO_VARIANT_FN_DECL)
#undef ZERO_VARIANT_FN_DECL

#endif
