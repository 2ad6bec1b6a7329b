/* muon_zero_step.h - part of the public C API (included by muon.h): one distributed Muon step
 * under the data-parallel designs of MUON_FACTS.md 1.6, 2, 3 and 6.2, correct and buggy, written
 * once against the communicator (muon_comm.h) so it runs on simulated ranks or real ones
 * (core/zero_plan.c, core/zero_step.c, core/zero_step_rr.c).
 *
 * Every rank r holds its local gradient of every parameter (rows x cols, column-major, as
 * Octave stores it).  A variant reduces them over the ranks, runs the Muon update (momentum,
 * Newton-Schulz, scale: muon_update.h) where its design runs it, and leaves on each rank the
 * update of the elements that rank owns.  Element ranges are of the ROW-major parameter (the
 * flat buffer's order); "DP average" is the communicator's MUON_REDUCE_AVG (rank-order sum,
 * then one division), so the correct variants equal the reference bit for bit.
 *
 *   REFERENCE            all-reduce the flat buffer; every rank updates every matrix (DDP);
 *                        owns its ZeRO pieces of L.  The oracle of the others.
 *   ZERO12_ALLREDUCE     all-reduce; a rank updates each matrix it has a piece of (NS
 *                        redundant on the owners of a straddling matrix; full momentum of
 *                        each such matrix on each owner); keeps its pieces (DeepSpeed
 *                        ZeRO-1/2, reduce_scatter off).
 *   ZERO2_RS_BUGGY       reduce-scatter; a rank updates the matrix it sees: averaged on its
 *                        own partition, its LOCAL gradient elsewhere (DeepSpeed #7807).
 *   ZERO2_SLICE_ONLY     reduce-scatter; a rank updates only the block of rows its piece
 *                        touches, the elements it does not own set to zero, with momentum for
 *                        its own elements only; the scale comes from the block's shape (the
 *                        naive sharded model).
 *   ZERO2_MULTI_OWNER    reduce-scatter, plus an all-reduce of the straddling matrices so
 *                        every owner has their full average (DeepSpeed PR 8141).  The
 *                        straddling elements also ride in the reduce-scatter (their slot in
 *                        the flat buffer), as in a single-bucket implementation.
 *   ZERO3_ROUND_ROBIN    DeepSpeed stage 3: all-reduce the gradients, all-gather the momentum
 *                        partitions (each rank holds its stage-3 chunk of every matrix),
 *                        round robin over the flat order (slot s on rank s mod W), after each
 *                        round an all-gather of the updates and of the momenta with distinct,
 *                        zero-filled pads as long as the round's largest matrix; each rank
 *                        keeps its chunks.
 *   ZERO3_RR_ALIASED     the same with the shipped padding: the round's all-gather takes
 *                        each slot at its own size and the pads are ONE uninitialised buffer
 *                        shaped like the last matrix (per rank), aliased by every pad slot;
 *                        a round whose slots differ in size fails with MUON_ERR_BADSHAPE
 *                        (DeepSpeed PR 8628); pad_count KELLER adds Keller's extra round of
 *                        pads when W divides the count (memory only: never visited).
 *   LAYERWISE_LPT        Megatron: whole matrices assigned to ranks by LPT (numel
 *                        descending, index ascending, least-loaded rank, lowest on ties); one
 *                        reduce-scatter of owner-ordered segments (padded to the largest
 *                        load) gives each owner its matrices' averages; no matrix is split.
 *   MOONLIGHT_GATHER     ZeRO-1 (Moonlight Algorithm 1): reduce-scatter; momentum on the
 *                        local partition; one all-gather of the pieces of the straddling
 *                        matrices' Newton-Schulz input; NS on each full matrix a rank owns
 *                        part of; keep the local pieces.
 *
 * Stages: the ZeRO-1/2 variants (and reference) partition as L says (stage 3 too: the
 * partitioned buffer is then each rank's chunks); the ZeRO-3 variants always use stage-3
 * per-matrix chunks of L's matrices and order (L itself when L->stage is 3).
 *
 * Usage
 *   muon_zero_plan *P = NULL;
 *   muon_zero_plan_create (ctx, L, MUON_ZERO12_ALLREDUCE, &P);
 *   // local rank l: grads[l * nparams + p], momentum[l] (P->momentum_len[rank] zeros at
 *   // first), updates[l] (P->owned_len[rank])
 *   muon_zero_step (ctx, comm, P, &opts, grads, momentum, updates, stats);
 *   muon_zero_plan_destroy (&P);
 */
#ifndef MUON_ZERO_STEP_H
#define MUON_ZERO_STEP_H

#ifdef __cplusplus
extern "C" {
#endif

#define MUON_ZERO_VARIANT_LIST(X)                                               \
  X (MUON_ZERO_REFERENCE,        0, "reference")                                \
  X (MUON_ZERO12_ALLREDUCE,      1, "zero12_allreduce")                         \
  X (MUON_ZERO2_RS_BUGGY,        2, "zero2_reduce_scatter_buggy")               \
  X (MUON_ZERO2_SLICE_ONLY,      3, "zero2_slice_only")                         \
  X (MUON_ZERO2_MULTI_OWNER,     4, "zero2_multi_owner")                        \
  X (MUON_ZERO3_ROUND_ROBIN,     5, "zero3_round_robin")                        \
  X (MUON_ZERO3_RR_ALIASED,      6, "zero3_round_robin_aliased_pads")           \
  X (MUON_ZERO_LAYERWISE_LPT,    7, "layerwise_lpt")                            \
  X (MUON_ZERO_MOONLIGHT_GATHER, 8, "moonlight_gather")
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
MUON_DECLARE_NAMES (muon_zero_pad_count, muon_zero_pad_count)

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
  int *lpt_owner;              // LAYERWISE_LPT: owner rank of each matrix, else NULL
  size_t lpt_segment;          // LAYERWISE_LPT: elements of each rank's segment (max load)
  muon_zero_span *owned;       // world * nparams: owned[r * nparams + p]
  size_t *owned_len;           // world: update elements a rank returns (sum of its spans)
  muon_zero_mom_layout mom_layout;
  size_t *momentum_len;        // world: momentum elements a rank holds
  size_t *momentum_at;         // world * nparams: FULL layout: offset of p, SIZE_MAX if none
  size_t *ns_calls;            // world: Newton-Schulz calls (muon_update) per step
  size_t straddle_total;       // elements of the matrices with more than one owner
} muon_zero_plan;

typedef struct {
  muon_zero_variant variant;   // REFERENCE by default
  muon_zero_pad_count pad_count; // ZERO3_RR_ALIASED only; DEEPSPEED by default
  muon_update_opts update;     // momentum, scale and Newton-Schulz options
} muon_zero_step_opts;

// Per local rank, what one step did.
typedef struct {
  size_t ns_calls;             // Newton-Schulz (muon_update) calls
  size_t momentum_elements;    // momentum held
  size_t pad_elements;         // gather pads allocated (ZeRO-3 variants)
  muon_comm_counters comm;     // the communicator's counters for this step only
} muon_zero_rank_stats;

void muon_zero_step_opts_default (muon_zero_step_opts *o);

// The names of MUON_ZERO_VARIANT_LIST <-> values.  BADARG for another name.
MUON_DECLARE_NAMES (muon_zero_variant, muon_zero_variant)
// 1 when the variant computes the reference's update (the design is correct), else 0.
int muon_zero_variant_is_correct (muon_zero_variant v);

// [in] L (must outlive the plan), [out] *plan.  Errors: NULLPTR, BADARG (variant), NOMEM.
muon_status muon_zero_plan_create (muon_ctx *ctx, const muon_zero_layout *L,
                                   muon_zero_variant variant, muon_zero_plan **plan);
muon_status muon_zero_plan_destroy (muon_zero_plan **plan);

// One step on every local rank of comm (its size must be L's world).
// [in] grads[l * nparams + p]: local rank l's gradient of matrix p, rows x cols column-major.
// [in,out] momentum[l]: plan->momentum_len[rank] elements (zeros before the first step).
// [out] updates[l]: plan->owned_len[rank] elements: for p = 0, 1, ... the elements of its
//   span owned[rank * nparams + p] in row-major order.
// [out] stats[l] (may be NULL).
// o->variant must be the plan's.  Errors: NULLPTR, BADARG (options, world, variant),
// BADSHAPE (ZERO3_RR_ALIASED on a round of mixed sizes), NOMEM, and those of the
// communicator and of muon_update; MUON_WARN_NONFINITE when an update holds non-finite values.
muon_status muon_zero_step (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *plan,
                            const muon_zero_step_opts *o, const double *const *grads,
                            double *const *momentum, double *const *updates,
                            muon_zero_rank_stats *stats);

// The full updates from every rank's owned elements.  [in] updates[l] as muon_zero_step
// leaves them.  [out] full[p]: rows x cols column-major, for every matrix, identical on every
// rank.  With every rank local (sim, self) it copies; otherwise it all-gathers (counted in
// the communicator's counters, not in a step's stats).
muon_status muon_zero_assemble (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *plan,
                                const double *const *updates, double *const *full);

#ifdef __cplusplus
}
#endif
#endif
