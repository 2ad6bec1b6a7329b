/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_cost_impl.h - what the plan-only cost models share: zero_cost.c (options, checks, the
 * NS FLOPs of each matrix from the math layer's model, create and dispatch),
 * zero_cost_common.c (these helpers), and one file per family of designs, each paired with
 * the step it models: zero_cost_zero12.c (zero_step_zero12.c), zero_cost_rr.c
 * (zero_step_rr.c), zero_cost_a2a.c (zero_step_a2a.c), zero_cost_ep.c (zero_step_ep.c).
 */
#ifndef MUON_ZERO_COST_IMPL_H
#define MUON_ZERO_COST_IMPL_H

#include <stdint.h>

#include "muon_internal.h"
#include "muon_zero_cost.h"
#include "zero_variant.h"

static inline size_t min_sz (size_t a, size_t b) { return a < b ? a : b; }
static inline size_t max_sz (size_t a, size_t b) { return a > b ? a : b; }

// The partition a design uses, without its pieces: per matrix offset (stages 1/2) or chunk
// (stage 3) and its owners first..last.
typedef struct {
  int stage;
  size_t S, padded_total;
  size_t *off, *chunk;
  int *first, *last;
} part_t;

typedef struct cost_job {
  muon_ctx *ctx;
  const muon_zero_cost_opts *o;
  const muon_zero_cost_param *par;
  size_t np, W, total, big;
  const size_t *numel;
  const size_t *order;         // order[slot] = matrix
  const size_t *sorted;        // the matrices by numel descending, index ascending
  const double *pf;            // NS FLOPs of one update of each matrix
  muon_zero_cost *C;
  double busy_a2a;             // the all-to-all's busy bytes when the model sums its
                               //   calls itself (zcost_add_elems), else < 0: max_r max
                               //   (sent, recv), zero_cost.c
  int over;                    // bytes past 2^64 with o->overflow_fails: the design fails,
  char over_why[128];          //   why (appended to C->why), its collectives are left out
  int trans_over;              // a rank's transient elements past 2^64 - 1 (zcost_elems):
  size_t trans_rank;           //   the first such rank; BADSHAPE, or the design fails
} cost_job;

// The reasons a design fails (C->why), its own first, at most one of them: a mixed-size
// gather round of ZERO3_RR_ALIASED (zero_cost_rr.c: 9 %zu, and %s one of the two words
// after it), LAYERWISE_NS_COST's costs past 2^64 (zero_cost_rr.c) or ZERO_PIECES_BLOCKS_WHY
// (zero_variant.h: %s a design's name); then bytes past 2^64 (over_why, at most 127
// characters); then transient elements reaching 2^64 - 1 (%zu: the first such rank).
// zero_cost.c checks at compile time that the longest combination fits C->why.
#define ZCOST_MIXED_WHY                                                                   \
  "gather round %zu mixes sizes: slot %zu holds matrix %zu (%zu x %zu) and slot %zu %s %zu " \
  "(%zu x %zu) (DeepSpeed PR 8628)"
#define ZCOST_MIXED_HOLDS "holds matrix"
#define ZCOST_MIXED_PAD "the pad shaped like matrix"
#define ZCOST_NS_COST_WHY "matrix %zu: the Newton-Schulz costs of the matrices pass 2^64"
#define ZERO_TRANSIENT_WHY "its transient elements reach 2^64 - 1 (rank %zu)"

void zcost_part_free (part_t *q);
// Elements [*lo, *hi) of matrix p (numel n) that rank r holds.
void zcost_part_range (const part_t *q, size_t p, size_t n, size_t r, size_t *lo, size_t *hi);
// The partition of the layout at `stage` (J's order and align factor).  [out] *q.
muon_status zcost_part_build (cost_job *J, int stage, part_t *q);
// One collective of `count` elements (as the communicator takes it) on every rank.  Bytes
// past 2^64 (the communicators' counters refuse count W 8 past 2^64; elem_bytes and the sum
// over the calls) are found before they wrap: BADSHAPE, or with o->overflow_fails J->over
// (and nothing more is added).
muon_status zcost_add_coll (cost_job *J, muon_coll coll, size_t count);
// Adds `calls` calls of `elems` elements each way (in all) to rank r's column coll, at
// elem_bytes each, as zcost_add_coll checks them (the all-to-alls the models sum themselves).
muon_status zcost_add_elems (cost_job *J, size_t r, muon_coll coll, uint64_t calls,
                             uint64_t elems);
// The all-to-all's critical path of `calls` calls in sequence, the busiest rank moving
// `elems` elements (each way at most) in each: J->busy_a2a.
void zcost_set_busy (cost_job *J, uint64_t calls, uint64_t elems);
// The NS calls, FLOPs and full-matrix momentum of each matrix on its one owner, C->ns_rank.
void zcost_owner_work (cost_job *J);
// The element count a_1 b_1 + a_2 b_2 + ... of rank r's transient buffers (n pairs, v =
// a_1, b_1, a_2, b_2, ...), found reaching 2^64 - 1 before it wraps: then UINT64_MAX and
// J->trans_over (zero_cost.c: BADSHAPE, or with o->overflow_fails the design fails).
uint64_t zcost_elems (cost_job *J, size_t r, size_t n, const uint64_t *v);
// out[r] = d[0] + ... + d[r] (a difference array's values).
void zcost_prefix_u (const int64_t *d, uint64_t *out, size_t W);

// A binary min-heap of (load, rank), the least load first, the lowest rank on ties.
typedef struct { uint64_t load; int rank; } heap_item;

void zcost_heap_down (heap_item *h, size_t n, size_t i);

// The designs' models (collectives, owners, NS calls and memory of each rank into J->C) are
// the COST column of the variant table, declared in zero_variant.h: zcost_zero12
// (zero_cost_zero12.c, the ZeRO-1/2 family), zcost_round_robin and zcost_lpt
// (zero_cost_rr.c), zcost_row_shards (zero_cost_a2a.c: all-to-all owner, MuonBP),
// zcost_expert_parallel (zero_cost_ep.c).


#endif
