/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_zero.h - part of the public C API (included by muon.h): the ZeRO layer (core/zero/):
 * the partition model (zero_layout.c), below it the designs, their plans and the distributed
 * Muon step.  The plan-only cost of a step (zero_cost.c) is declared in the layer's second
 * public header, muon_zero_cost.h.  The catalogue of every named list and limit of the core
 * is the layer above (muon_lists.h).
 *
 * A layout says where each parameter matrix sits in DeepSpeed's flat buffer and which data
 * parallel rank owns which of its elements (MUON_FACTS.md 1.6).
 *
 *   Stages 1 and 2: the parameters lie back to back in one flat buffer, in the given order
 *     or sorted by numel descending (stable), each flattened ROW-major as torch does; the
 *     total is padded up to a multiple of align_factor * world (DeepSpeed's
 *     nccl_start_alignment_factor); rank r owns [r S, (r + 1) S) with S = padded_total / world.
 *   Stage 3: each parameter is padded on its own to chunk * world elements, chunk =
 *     ceil (numel / world), and rank r owns elements [r chunk, (r + 1) chunk) of it (zero pad
 *     at the tail).  The "flat buffer" of stage 3 is the parameters back to back, each padded
 *     that way; rank r's partition is its chunk of every parameter, in slot order, so
 *     S = sum of the chunks.  align_factor is not used at stage 3.
 *
 * Conventions: ranks, element offsets and row indices are 0-based, ranges are half-open
 * [start, stop) (torch / DeepSpeed); parameter indices are 0-based here (1-based in Octave).
 * A rank's partition is [r S, (r + 1) S) of the "partitioned buffer": the flat buffer itself at
 * stages 1 and 2, the ranks' partitions laid out rank after rank at stage 3.
 *
 * Usage
 *   size_t rows[] = {3, 2, 4}, cols[] = {4, 5, 4};
 *   muon_zero_layout_opts o;  muon_zero_layout_opts_default (&o);
 *   muon_zero_layout *L = NULL;
 *   if (muon_zero_layout_create (ctx, 3, rows, cols, 2, &o, &L) == MUON_OK)
 *     for (int r = 0; r < L->world; r++)
 *       for (size_t k = 0; k < L->ranks[r].npieces; k++)
 *         use (L->pieces[L->ranks[r].first_piece + k]);
 *   muon_zero_layout_destroy (&L);
 */
#ifndef MUON_ZERO_H
#define MUON_ZERO_H

#include "muon_base.h"
#include "muon_comm.h"
#include "muon_math.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MUON_ZERO_MAX_WORLD 1048576   // largest world size accepted
#define MUON_ZERO_MAX_ALIGN 1048576   // largest align_factor accepted

// The order of the parameters in the flat buffer: as given, or a stable sort by numel,
// largest first (DeepSpeed's Muon).
#define MUON_ZERO_ORDER_LIST(X)                                                 \
  X (MUON_ZERO_ORDER_GIVEN,     0, "given")                                     \
  X (MUON_ZERO_ORDER_SIZE_DESC, 1, "size_desc")
typedef enum { MUON_ZERO_ORDER_LIST (MUON_ENUM_ITEM) } muon_zero_order;

typedef struct {
  int stage;              // 1, 2 (default) or 3
  int align_factor;       // >= 1, default 2 (nccl_start_alignment_factor); stages 1 and 2
  muon_zero_order order;  // default MUON_ZERO_ORDER_GIVEN
} muon_zero_layout_opts;

// One parameter (matrix), in input order.
typedef struct {
  size_t rows, cols, numel;   // numel = rows * cols
  size_t offset;              // first element in the flat buffer (0-based)
  size_t padded;              // elements it occupies there: numel (stage 1/2), chunk*world (3)
  size_t chunk;               // stage 3: ceil (numel / world) per rank; 0 at stages 1 and 2
  size_t slot;                // position in the flat order (0-based): order[slot] == index
  int first_owner, last_owner;  // owners are the ranks first_owner..last_owner (contiguous)
  int straddles;              // 1 when it has more than one owner (crosses a partition cut)
} muon_zero_param;

// One rank's piece of one parameter: the elements [local_start, local_stop) of the
// row-major parameter, which sit at flat_start.. of the flat buffer and part_start.. of the
// rank's partition.  Rows [row_start, row_stop) are touched; first_partial / last_partial say
// the first / last of them is owned only in part (both 0: the piece is whole rows).
typedef struct {
  int rank;
  size_t param;               // 0-based index (input order)
  size_t local_start, local_stop;
  size_t flat_start;
  size_t part_start;
  size_t row_start, row_stop;
  int first_partial, last_partial;
} muon_zero_piece;

// One rank: its partition [start, stop) = [r S, (r + 1) S) of the partitioned buffer, how many
// of those elements are padding, and its pieces pieces[first_piece .. first_piece + npieces),
// in the order they sit in its partition.
typedef struct {
  size_t start, stop;
  size_t padding;
  size_t first_piece, npieces;
} muon_zero_rank;

typedef struct {
  int stage, world, align_factor;
  muon_zero_order order_mode;
  size_t nparams;
  muon_zero_param *params;    // nparams, input order
  size_t *order;              // nparams: order[slot] = index of the parameter at that slot
  size_t total;               // sum of numel
  size_t padded_total;        // flat buffer length with padding (= world * partition_size)
  size_t partition_size;      // S, elements per rank
  size_t padding;             // padded_total - total
  muon_zero_rank *ranks;      // world
  size_t npieces;
  muon_zero_piece *pieces;    // npieces, rank by rank
} muon_zero_layout;

void muon_zero_layout_opts_default (muon_zero_layout_opts *o);

// Builds the layout of nparams matrices rows[p] x cols[p] over world ranks.
// [in] rows, cols: nparams sizes, each >= 1.  [in] o: options (NULL = defaults).
// [out] *L: a new layout, freed with muon_zero_layout_destroy (NULL on error).
// Errors: NULLPTR (ctx, L, rows, cols), BADSHAPE (nparams == 0, a size 0, a size overflow),
// BADARG (world, stage, align_factor or order out of range), NOMEM.
muon_status muon_zero_layout_create (muon_ctx *ctx, size_t nparams, const size_t *rows,
                                     const size_t *cols, int world,
                                     const muon_zero_layout_opts *o, muon_zero_layout **L);
// [in,out] *L: frees it and sets *L = NULL (NULL is fine).
muon_status muon_zero_layout_destroy (muon_zero_layout **L);

// Rank r's part of parameter p as local elements [*start, *stop), clamped to [0, numel]:
// over r = 0..world-1 the ranges tile [0, numel) in order, and a rank owning nothing of p
// gets an empty range (at 0 before the owners, at numel after them).  [out] start, stop.
// Errors: NULLPTR, BADARG (p or r out of range).
muon_status muon_zero_layout_range (muon_ctx *ctx, const muon_zero_layout *L, size_t p, int r,
                                    size_t *start, size_t *stop);

//---------------------------------------------------------------------------------------------
// One distributed Muon step under the data-parallel designs of MUON_FACTS.md 1.6, 2, 3 and
// 6.2, correct and buggy, written once against the communicator (muon_comm.h) so it runs on
// simulated ranks or real ones (core/zero/: the variant table zero_variant.h, zero_plan.c,
// zero_step_api.c, one file per family zero_step_zero12.c, zero_step_rr.c, zero_step_a2a.c,
// zero_step_ep.c, and zero_step_common.c; the simulated communicator kept between steps,
// zero_sim_comm.c; the step on device memory, zero_step_dev*.c).
//
// Every rank r holds its local gradient of every parameter (rows x cols, column-major, as
// Octave stores it).  A variant reduces them over the ranks, runs the Muon update (momentum,
// Newton-Schulz, scale: muon_update.h) where its design runs it, and leaves on each rank the
// update of the elements that rank owns.  Element ranges are of the ROW-major parameter (the
// flat buffer's order); "DP average" is the communicator's MUON_REDUCE_AVG (rank-order sum,
// then one division), so the correct variants equal the reference bit for bit.
//
//   REFERENCE            all-reduce the flat buffer; every rank updates every matrix (DDP);
//                        owns its ZeRO pieces of L.  The oracle of the others.
//   ZERO12_ALLREDUCE     all-reduce; a rank updates each matrix it has a piece of (NS
//                        redundant on the owners of a straddling matrix; full momentum of
//                        each such matrix on each owner); keeps its pieces (DeepSpeed
//                        ZeRO-1/2, reduce_scatter off).
//   ZERO2_RS_BUGGY       reduce-scatter; a rank updates the matrix it sees: averaged on its
//                        own partition, its LOCAL gradient elsewhere (DeepSpeed #7807).
//   ZERO2_SLICE_ONLY     reduce-scatter; a rank updates only the block of rows its piece
//                        touches, the elements it does not own set to zero, with momentum for
//                        its own elements only; the scale comes from the block's shape (the
//                        naive sharded model).
//   ZERO2_MULTI_OWNER    reduce-scatter, plus an all-reduce of the straddling matrices so
//                        every owner has their full average (DeepSpeed PR 8141).  The
//                        straddling elements also ride in the reduce-scatter (their slot in
//                        the flat buffer), as in a single-bucket implementation.
//   ZERO3_ROUND_ROBIN    DeepSpeed stage 3: all-reduce the gradients, all-gather the momentum
//                        partitions (each rank holds its stage-3 chunk of every matrix),
//                        round robin over the flat order (slot s on rank s mod W), after each
//                        round an all-gather of the updates and of the momenta with distinct,
//                        zero-filled pads as long as the round's largest matrix; each rank
//                        keeps its chunks.
//   ZERO3_RR_ALIASED     the same with the shipped padding: the round's all-gather takes
//                        each slot at its own size and the pads are ONE uninitialised buffer
//                        shaped like the last matrix (per rank), aliased by every pad slot;
//                        a round whose slots differ in size fails with MUON_ERR_BADSHAPE
//                        (DeepSpeed PR 8628); pad_count KELLER adds Keller's extra round of
//                        pads when W divides the count (memory only: never visited).
//   LAYERWISE_LPT        Megatron (before its PR #6379, which balances max m,n * min^2):
//                        whole matrices assigned to ranks by LPT (numel descending, the
//                        matrices walked last first, least element cursor, lowest on ties);
//                        one reduce-scatter of Megatron's one-bucket buffer gives each owner
//                        its matrices' averages; no matrix is split.  The buffer: rank r's
//                        shard [r S, (r + 1) S) holds its matrices in the order dealt, each
//                        starting at the shard's cursor rounded up to 64 elements, and S
//                        (padded_shard_size, the plan's lpt_segment) is the largest cursor
//                        rounded up to 64 (even W) or 128 (odd W); the pads are zeros.
//                        With o->bucket_size (Megatron's ddp bucket_size) the walk is cut
//                        into buckets, each dealt and laid out so (cursors from 0 in each;
//                        NS_COST's accumulated costs persist), back to back, one
//                        reduce-scatter of each bucket in order.
//   LAYERWISE_NS_COST    the same buffer and step, owners by Megatron's rule since that PR
//                        (Newton-Schulz cost under an element cap: zero_plan.c).
//   MOONLIGHT_GATHER     ZeRO-1 (Moonlight Algorithm 1): reduce-scatter; momentum on the
//                        local partition; one all-gather of the pieces of the straddling
//                        matrices' Newton-Schulz input; NS on each full matrix a rank owns
//                        part of; keep the local pieces.
//   ALLTOALL_OWNER       FSDP2 Muon / Dion: every rank holds a dim-0 shard of every matrix
//                        (rows [r rc, (r+1) rc), rc = ceil (rows / W); momentum on the
//                        shards); a reduce-scatter of the shards (padded to rc rows); each
//                        matrix has one owner (round robin over the matrices by size
//                        descending, index ascending); one all-to-all brings each owner the
//                        Newton-Schulz input of its matrices' other shards, it runs NS and the
//                        scale, a second all-to-all returns the rows.  Per rank about twice
//                        its shard moves, falling as 1/W (core/zero/zero_step_a2a.c).
//   MUON_BP              block-periodic Muon (MuonBP): the shards and owners above; when
//                        o->step % o->period == 0 the full step of ALLTOALL_OWNER, else each
//                        rank orthogonalizes its own rc x cols block (scale from the block's
//                        shape) and nothing moves after the reduce-scatter.  period 1 is
//                        ALLTOALL_OWNER, bit for bit the reference.  With o->blocks, a
//                        block step orthogonalizes each part of the shard in one block.
//   EXPERT_PARALLEL      ZeRO-2 with expert parallelism over the whole world: reduce-scatter;
//                        momentum on the partition; each expert page (o->blocks) has one
//                        owner, expert e of E on rank floor (e W / E), and each matrix
//                        without experts one by LPT after the experts; one all-to-all brings
//                        each owner the pieces of its units' NS input, it orthogonalizes each
//                        unit once, a second all-to-all returns the pieces; each rank keeps
//                        its pieces (core/zero/zero_step_ep.c).  Bit for bit the reference.
//
// Experts and split row blocks (o->blocks, per matrix) are NS blocks in every variant: each
// runs every block whole, except ZERO2_SLICE_ONLY, which takes none (MUON_ERR_BADARG).
//
// Stages: the ZeRO-1/2 variants (and reference) partition as L says (stage 3 too: the
// partitioned buffer is then each rank's chunks); the ZeRO-3 variants always use stage-3
// per-matrix chunks of L's matrices and order (L itself when L->stage is 3); the row-shard
// designs (ALLTOALL_OWNER, MUON_BP) use only L's shapes and world.
//
// Usage
//   muon_zero_plan *P = NULL;
//   muon_zero_plan_create (ctx, L, MUON_ZERO12_ALLREDUCE, &P);
//   // local rank l: grads[l * nparams + p], momentum[l] (P->momentum_len[rank] zeros at
//   // first), updates[l] (P->owned_len[rank])
//   muon_zero_step (ctx, comm, P, &opts, grads, momentum, updates, stats);
//   muon_zero_plan_destroy (&P);
//---------------------------------------------------------------------------------------------

#define MUON_ZERO_VARIANT_LIST(X)                                               \
  X (MUON_ZERO_REFERENCE,        0, "reference")                                \
  X (MUON_ZERO12_ALLREDUCE,      1, "zero12_allreduce")                         \
  X (MUON_ZERO2_RS_BUGGY,        2, "zero2_reduce_scatter_buggy")               \
  X (MUON_ZERO2_SLICE_ONLY,      3, "zero2_slice_only")                         \
  X (MUON_ZERO2_MULTI_OWNER,     4, "zero2_multi_owner")                        \
  X (MUON_ZERO3_ROUND_ROBIN,     5, "zero3_round_robin")                        \
  X (MUON_ZERO3_RR_ALIASED,      6, "zero3_round_robin_aliased_pads")           \
  X (MUON_ZERO_LAYERWISE_LPT,    7, "layerwise_lpt")                            \
  X (MUON_ZERO_MOONLIGHT_GATHER, 8, "moonlight_gather")                         \
  X (MUON_ZERO_ALLTOALL_OWNER,   9, "alltoall_owner")                           \
  X (MUON_ZERO_MUON_BP,         10, "muon_bp")                                  \
  X (MUON_ZERO_EXPERT_PARALLEL, 11, "expert_parallel")                         \
  X (MUON_ZERO_LAYERWISE_NS_COST, 12, "layerwise_ns_cost")
typedef enum {
  MUON_ZERO_VARIANT_LIST (MUON_ENUM_ITEM)
  MUON_ZERO_VARIANT_COUNT = 0 MUON_ZERO_VARIANT_LIST (MUON_ENUM_PLUS_ONE)
} muon_zero_variant;

// How the momentum of a rank is laid out in its buffer.
typedef enum {
  MUON_ZERO_MOM_FULL = 0,   // whole matrices (column-major) of the matrices it updates
  MUON_ZERO_MOM_PART = 1    // its partition of the partitioned buffer (row-major pieces)
} muon_zero_mom_layout;

// How many pad slots a ZERO3_RR_ALIASED round gathers: DeepSpeed's (W - n % W) % W, or
// Keller's W - n % W (a whole extra round when W divides n).
#define MUON_ZERO_PAD_COUNT_LIST(X)                                             \
  X (MUON_ZERO_PADS_DEEPSPEED, 0, "deepspeed")                                  \
  X (MUON_ZERO_PADS_KELLER,    1, "keller")
typedef enum { MUON_ZERO_PAD_COUNT_LIST (MUON_ENUM_ITEM) } muon_zero_pad_count;

// What a variant runs Newton-Schulz on: whole blocks (a matrix, an expert page, a split row
// block), the rows of each rank's piece within a block (ZERO2_SLICE_ONLY), or each rank's
// row shard within a block on block steps and whole blocks on full steps (MUON_BP).
#define MUON_ZERO_NS_SCOPE_LIST(X)                                              \
  X (MUON_ZERO_NS_BLOCKS,      0, "blocks")                                     \
  X (MUON_ZERO_NS_PIECE_ROWS,  1, "piece_rows")                                 \
  X (MUON_ZERO_NS_SHARD_ROWS,  2, "block_step_shard_rows")
typedef enum { MUON_ZERO_NS_SCOPE_LIST (MUON_ENUM_ITEM) } muon_zero_ns_scope;

typedef struct {
  size_t start, stop;          // elements [start, stop) of the row-major matrix
} muon_zero_span;

// What each rank holds and owns under one variant: no data, no communication.
typedef struct {
  muon_zero_variant variant;
  const muon_zero_layout *L;   // the layout given (borrowed)
  const muon_zero_layout *part;  // the partition the variant uses: L, or stage-3 chunks
  muon_zero_layout *own_part;  // the stage-3 layout when built here (freed with the plan)
  int world;
  size_t nparams;
  int *lpt_owner;              // LAYERWISE_LPT, ALLTOALL_OWNER, MUON_BP: owner rank of each
                               // matrix (the rank that runs its full NS), else NULL
  size_t *lpt_at;              // LAYERWISE_LPT, _NS_COST: each matrix's start in its owner's
                               // shard (Megatron's layout: 64-element aligned), else NULL
  size_t lpt_segment;          // LAYERWISE_LPT, _NS_COST: elements of each rank's shards, the
                               // sum of lpt_bucket_seg (one bucket: Megatron's
                               // padded_shard_size)
  size_t bucket_size;          // LAYERWISE_LPT, _NS_COST: Megatron's ddp bucket_size in
                               // elements, 0 for one bucket (muon_zero_plan_create_bucketed)
  size_t lpt_nbuckets;         // LAYERWISE_LPT, _NS_COST: the buckets (>= 1 with a matrix)
  size_t *lpt_bucket;          // LAYERWISE_LPT, _NS_COST: each matrix's bucket, else NULL
  size_t *lpt_bucket_seg;      // LAYERWISE_LPT, _NS_COST: each bucket's padded_shard_size
                               // seg_b; bucket b is W seg_b elements after the buckets before it, rank
                               // r's shard [r seg_b, (r + 1) seg_b) of it; one reduce-scatter
                               // of each bucket, in bucket order
  muon_zero_span *owned;       // world * nparams: owned[r * nparams + p]
  size_t *owned_len;           // world: update elements a rank returns (sum of its spans)
  muon_zero_mom_layout mom_layout;
  size_t *momentum_len;        // world: momentum elements a rank holds
  size_t *momentum_at;         // world * nparams: FULL layout: offset of p, SIZE_MAX if none;
                               // row shards: offset of its shard of p
  size_t *ns_calls;            // world: Newton-Schulz calls per step of a step without
                               // experts (one per matrix it updates)
  size_t straddle_total;       // elements of the matrices with more than one owner
} muon_zero_plan;

// How matrix p is cut for Newton-Schulz in a step (muon_update's experts and split row
// blocks, per matrix): experts >= 1 pages of rows / experts rows each (a fused expert weight,
// expert e in rows [e M, (e + 1) M)), each page cut into split[0 .. nsplit) row blocks
// (summing to the page's rows, at most MUON_MAX_SPLITS; split NULL and nsplit 0: one block).
typedef struct {
  size_t experts;
  const size_t *split;
  size_t nsplit;
} muon_zero_blocks;

typedef struct {
  muon_zero_variant variant;   // ZERO12_ALLREDUCE by default (zero_muon_step's default too)
  muon_zero_pad_count pad_count; // ZERO3_RR_ALIASED only; DEEPSPEED by default
  int period;                  // MUON_BP: a full step every period steps (>= 1; default 4)
  int step;                    // MUON_BP: steps taken before this one (>= 0; default 0)
  size_t bucket_size;          // LAYERWISE_LPT, _NS_COST: Megatron's bucket_size in elements, 0
                               // (default) for one bucket; must be the plan's
  double block_scale;          // MUON_BP: block steps' updates times this (MuonBP's block step
                               // size over the full one; finite, > 0; default 1)
  muon_update_opts update;     // momentum, scale and Newton-Schulz options (update.nsplit
                               // must be 0: split row blocks are per matrix, in blocks)
  const muon_zero_blocks *blocks;  // NULL (default): every matrix one block; else nparams
                               // entries (ZERO2_SLICE_ONLY: every matrix one block)
} muon_zero_step_opts;

// Per local rank, what one step did.
typedef struct {
  size_t ns_calls;             // Newton-Schulz calls, one per matrix or expert page (its
                               // split row blocks count as one)
  size_t momentum_elements;    // momentum held
  size_t pad_elements;         // gather pads allocated (ZeRO-3 variants)
  muon_comm_counters comm;     // the communicator's counters for this step only
} muon_zero_rank_stats;

void muon_zero_step_opts_default (muon_zero_step_opts *o);
// 1 when the variant computes the reference's update (the design is correct), else 0.
int muon_zero_variant_is_correct (muon_zero_variant v);
// [out] *scope: what variant v runs Newton-Schulz on.  Errors: NULLPTR, BADARG (v).
muon_status muon_zero_variant_ns_scope (muon_zero_variant v, muon_zero_ns_scope *scope);

// [in] L (must outlive the plan), [out] *plan.  Errors: NULLPTR, BADARG (variant), NOMEM.
muon_status muon_zero_plan_create (muon_ctx *ctx, const muon_zero_layout *L,
                                   muon_zero_variant variant, muon_zero_plan **plan);
// The same with Megatron's buckets for LAYERWISE_LPT and LAYERWISE_NS_COST: bucket_size 0 is
// one bucket (muon_zero_plan_create), else Megatron's ddp_config.bucket_size in elements (the
// walk, last first, closes a bucket as zero_plan.c says); other variants ignore it (their
// plan's bucket_size is 0).  A step with the plan takes o->bucket_size equal to it.
muon_status muon_zero_plan_create_bucketed (muon_ctx *ctx, const muon_zero_layout *L,
                                            muon_zero_variant variant, size_t bucket_size,
                                            muon_zero_plan **plan);
muon_status muon_zero_plan_destroy (muon_zero_plan **plan);

// One stretch of a rank's momentum buffer: its elements [at, at + stop - start) hold elements
// [start, stop) of matrix param (0-based), row-major (rowmajor 1: a piece of the partition, a
// row shard) or column-major (0: a whole matrix, start 0 and stop its numel).
typedef struct {
  size_t param, at, start, stop;
  int rowmajor;
} muon_zero_mom_seg;

// The map of rank r's momentum buffer under the plan, read off the plan alone (the layout
// of the variant's row in the variant table: whole matrices, the partition's pieces, row
// shards), in buffer order: what the sharded checkpoints record.  [out] seg[0 .. *nseg)
// (room for P->nparams entries: at most one stretch per matrix); the buffer's length is
// P->momentum_len[r] (padding between stretches is zero).  Errors: NULLPTR, BADARG (r).
muon_status muon_zero_plan_momentum_map (muon_ctx *ctx, const muon_zero_plan *P, int r,
                                         muon_zero_mom_seg *seg, size_t *nseg);

// One step on every local rank of comm (its size must be L's world).
// [in] grads[l * nparams + p]: local rank l's gradient of matrix p, rows x cols column-major.
// [in,out] momentum[l]: plan->momentum_len[rank] elements (zeros before the first step).
// [out] updates[l]: plan->owned_len[rank] elements: for p = 0, 1, ... the elements of its
//   span owned[rank * nparams + p] in row-major order.
// [out] stats[l] (may be NULL).
// o->variant must be the plan's.  The buffers' memory: two local ranks' momentum or update
// buffers that share memory, or a gradient that shares memory with one of them, are BADARG
// before anything is written (gradients may share memory with each other); but the
// reference design's local ranks may all pass rank 0's momentum pointer (DDP's W equal
// copies), updated once, every such rank getting its update from it.
// Errors: NULLPTR, BADARG (options, world, variant, buffers' memory),
// BADSHAPE (ZERO3_RR_ALIASED on a round of mixed sizes), NOMEM, and those of the
// communicator and of muon_update; MUON_WARN_NONFINITE when an update holds non-finite values.
muon_status muon_zero_step (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *plan,
                            const muon_zero_step_opts *o, const double *const *grads,
                            double *const *momentum, double *const *updates,
                            muon_zero_rank_stats *stats);

// The checks muon_zero_step (and muon_zero_step_device) make of the plan and the options
// before anything moves or runs: the variant the plan's, the blocks (experts dividing the
// rows, split row blocks summing to a page, none for ZERO2_SLICE_ONLY), the period, step and
// block scale, the pad rule, muon_update's options on every matrix (a trace: UNSUPPORTED).
// No communicator, no buffer: what a caller that skips a step (non-finite gradients on some
// rank) still checks, so that a skipped step refuses what the step would.  Errors: NULLPTR, BADARG, BADSHAPE,
// and NOTBUILT / NODEVICE when update.ns.device asks for a CUDA back end that is missing
// (muon_zero_step's Newton-Schulz device; muon_zero_step_device's runs where its arrays are).
muon_status muon_zero_step_check (muon_ctx *ctx, const muon_zero_plan *plan,
                                  const muon_zero_step_opts *o);

// The same step with its buffers on a device (muon_darray, core/zero/zero_step_dev.c): the
// gradients, momenta and updates stay there, the collectives move device memory (nccl, no
// host staging; on the CPU stand-in device, whose memory is host memory, any communicator),
// and Newton-Schulz runs where the data is.  Bit for bit muon_zero_step with the same
// Newton-Schulz device: the fixed-order reductions are the communicator's order, on the
// device (an all-gather, then the rank-order sum and one division by W; the library's sum
// then one division, with a library communicator).  Every variant runs, buffer for buffer
// as muon_zero_step runs it (the shipped ZeRO-3 pads fail alike on a round of mixed sizes).  Arrays of double storage, all
// on one device: grads[l * nparams + p] rows x cols, momentum[l] and updates[l] of
// momentum_len / owned_len elements (any shape; NULL where that length is 0).  On CUDA with
// more than one rank the communicator must move device memory (nccl; MUON_ERR_UNSUPPORTED
// for the others).  The arrays' memory as muon_zero_step's buffers' (one array passed for
// two ranks' momenta or updates, or as a gradient and a momentum or update: BADARG, with
// muon_zero_step's message; the reference design's one momentum array for every local rank
// updated once, bit for bit muon_zero_step's).  Errors
// otherwise as muon_zero_step's, and BADTYPE / BADSHAPE for the arrays.
muon_status muon_zero_step_device (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *plan,
                                   const muon_zero_step_opts *o,
                                   const muon_darray *const *grads,
                                   muon_darray *const *momentum, muon_darray *const *updates,
                                   muon_zero_rank_stats *stats);

// The full updates from every rank's owned elements.  [in] updates[l] as muon_zero_step
// leaves them.  [out] full[p]: rows x cols column-major, for every matrix, identical on every
// rank.  With every rank local (sim, self) it copies; otherwise it all-gathers (counted in
// the communicator's counters, not in a step's stats).  The full buffers must not share
// memory with each other nor with a local rank's update buffer: BADARG, before anything is
// written (update buffers may share memory with each other: they are only read).
muon_status muon_zero_assemble (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *plan,
                                const double *const *updates, double *const *full);

// A step plans nothing of its own: the caller makes the plan (muon_zero_plan_create) and
// keeps it for as long as it steps with that layout (zero_layout's object owns its plans,
// mex/muon_mex_zero.c).  muon_zero_step keeps the per-rank buffers of its largest step in
// the context, so later steps allocate nothing; like the simulated communicator below, a
// context cache: muon_ctx_release (ctx, 0, ...) and muon_ctx_destroy free them.

// A simulated communicator of world ranks (muon_comm_sim_create), kept by the context: the
// same one while world stays the same.  [out] *comm: borrowed, never destroyed by the caller,
// and valid only until the context lets it go: a call for another world (which makes the new
// one and frees the old), muon_ctx_release (ctx, 0, ...) or muon_ctx_destroy frees it, and
// the pointer returned earlier then dangles (ask again instead of keeping it).
muon_status muon_zero_comm_sim_cached (muon_ctx *ctx, int world, muon_comm **comm);

#ifdef __cplusplus
}
#endif
#endif
