/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_zero_cost_plan.c - the plan-only cost model's own arithmetic (core/zero/zero_cost.c;
 * split from test_zero_cost.c, the plan against the step and Megatron's layout): the
 * Newton-Schulz FLOP count against ns_flops.m's closed forms; a hand-computed plan; the
 * all-to-all model's totals; bytes past 2^64 (an error, or with overflow_fails a failing
 * design whose collectives are left out, the others' plans unchanged); every error code.
 */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "muon.h"

static muon_ctx *ctx;

//---- FLOPs --------------------------------------------------------------------------------

static void test_flops (void)
{
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  // standard 5 steps: (20 alpha + 10) n^3; symmetric (15 alpha + 5) n^3
  T_EQ_DBL (muon_ns_flops_matrix (1024, 4096, &o, 0), 90.0 * 1024 * 1024 * 1024);
  T_EQ_DBL (muon_ns_flops_matrix (4096, 1024, &o, 0), 90.0 * 1024 * 1024 * 1024);
  T_EQ_DBL (muon_ns_flops_matrix (10, 50, &o, 1), (15.0 * 5 + 5) * 1000);
  // Gram, restart [2]: (8 alpha + 28) n^3; without: (4 alpha + 34); symmetric (6 alpha + 17):
  // MUON_FACTS 4.3's (6 alpha + 14) with Q's 3 updates general (2 n^3 each, not 1)
  o.method = MUON_NS_GRAM;
  T_EQ_DBL (muon_ns_flops_matrix (100, 500, &o, 0), (8.0 * 5 + 28) * 1e6);
  T_EQ_DBL (muon_ns_flops_matrix (100, 500, &o, 1), (6.0 * 5 + 14 + 3) * 1e6);
  o.nrestarts = 0;
  T_EQ_DBL (muon_ns_flops_matrix (100, 500, &o, 0), (4.0 * 5 + 34) * 1e6);
  // ns_flops.m: Steps 5, Restarts [1 3], alpha 3: [12 22]
  o.nrestarts = 2;
  o.restarts[0] = 1;
  o.restarts[1] = 3;
  T_EQ_DBL (muon_ns_flops_matrix (10, 30, &o, 0), (12.0 * 3 + 22) * 1000);
  // square: the Gram path falls back to standard (GramMinAspect 1)
  T_EQ_DBL (muon_ns_flops_matrix (64, 64, &o, 0), 30.0 * 64 * 64 * 64);
  o.steps = 3;
  o.method = MUON_NS_STANDARD;
  T_EQ_DBL (muon_ns_flops_matrix (8, 8, &o, 0), 18.0 * 512);
  T_EQ_DBL (muon_ns_flops_matrix (8, 8, NULL, 0), 30.0 * 512);
}

//---- a hand plan --------------------------------------------------------------------------

// 3x4, 2x5, 4x4 on 2 ranks, stage 2 (test_zero_step.c's): total 38, padded 40, S = 20, the
// 2x5 matrix at [12, 22) straddles the cut at 20.
static void test_hand (void)
{
  muon_zero_cost_param p[3] = { { 3, 4, 1, NULL, 0 }, { 2, 5, 1, NULL, 0 },
                                { 4, 4, 1, NULL, 0 } };
  muon_zero_cost_opts o;
  muon_zero_cost_opts_default (&o);
  muon_zero_cost *C = NULL;
  o.design = MUON_ZERO12_ALLREDUCE;
  T_EQ_INT (muon_zero_cost_create (ctx, 3, p, 2, &o, &C), MUON_OK);
  T_EQ_INT (C->total, 38);
  T_EQ_INT (C->padded_total, 40);
  T_EQ_INT (C->partition_size, 20);
  T_EQ_INT (C->straddle_total, 10);
  T_EQ_INT (C->nstraddle, 1);
  T_EQ_INT (C->momentum[0], 22);
  T_EQ_INT (C->momentum[1], 26);
  T_EQ_INT (C->owned[0], 20);
  T_EQ_INT (C->owned[1], 18);
  T_EQ_INT (C->ns_calls[0], 2);
  // the ring all-reduce of 40 doubles: 20 + 20 elements each way
  T_EQ_INT (C->sent[0 * MUON_COST_COLLS + MUON_COLL_ALLREDUCE], 8 * 40);
  T_EQ_INT (C->calls[1 * MUON_COST_COLLS + MUON_COLL_ALLREDUCE], 1);
  T_EQ_INT (C->first_owner[1], 0);
  T_EQ_INT (C->last_owner[1], 1);
  muon_zero_cost_destroy (&C);

  // Moonlight: rank 0 sends the 8 elements of the straddler it holds, rank 1 the other 2;
  // the all-gather is padded to 8
  o.design = MUON_ZERO_MOONLIGHT_GATHER;
  o.elem_bytes = 2;
  T_EQ_INT (muon_zero_cost_create (ctx, 3, p, 2, &o, &C), MUON_OK);
  T_EQ_INT (C->sent[MUON_COLL_ALL_GATHER], 2 * 8);
  T_EQ_INT (C->sent[MUON_COLL_REDUCE_SCATTER], 2 * 20);
  T_EQ_INT (C->momentum[1], 20);
  muon_zero_cost_destroy (&C);

  // LPT: 16 -> rank 0, 12 -> rank 1, 10 -> rank 1 at 64 (Megatron's 64-element starts):
  // cursors 16 and 74, shard 74 rounded up to 64 = 128 (22 packed back to back)
  o.design = MUON_ZERO_LAYERWISE_LPT;
  T_EQ_INT (muon_zero_cost_create (ctx, 3, p, 2, &o, &C), MUON_OK);
  T_EQ_INT (C->ns_rank[0], 1);
  T_EQ_INT (C->ns_rank[1], 1);
  T_EQ_INT (C->ns_rank[2], 0);
  T_EQ_INT (C->partition_size, 128);
  T_EQ_INT (C->padded_total, 256);
  T_EQ_INT (C->sent[MUON_COLL_REDUCE_SCATTER], 2 * 128);   // elem_bytes 2, (W - 1) S
  T_EQ_INT (C->momentum[1], 22);
  muon_zero_cost_destroy (&C);

  // all-to-all: shards of ceil (rows / 2) rows; owners by size: 4x4 -> 0, 3x4 -> 1, 2x5 -> 0
  o.design = MUON_ZERO_ALLTOALL_OWNER;
  o.elem_bytes = 1;
  T_EQ_INT (muon_zero_cost_create (ctx, 3, p, 2, &o, &C), MUON_OK);
  T_EQ_INT (C->ns_rank[2], 0);
  T_EQ_INT (C->ns_rank[0], 1);
  T_EQ_INT (C->ns_rank[1], 0);
  T_EQ_INT (C->partition_size, 2 * 4 + 1 * 5 + 2 * 4);
  // rank 0 holds rows 0-1 of 3x4 (8), row 0 of 2x5 (5), rows 0-1 of 4x4 (8): it sends the 8
  // of 3x4 (owned by 1) and returns, for its 2x5 and 4x4, rank 1's 5 + 8 elements
  T_EQ_INT (C->sent[MUON_COST_ALL_TO_ALL], 8 + 13);
  T_EQ_INT (C->recv[MUON_COST_ALL_TO_ALL], 13 + 8);
  // rank 1 sends its 5 + 8 to rank 0 and returns the 8 it gathered of its own 3x4
  T_EQ_INT (C->sent[MUON_COST_COLLS + MUON_COST_ALL_TO_ALL], 13 + 8);
  T_EQ_INT (C->calls[MUON_COST_ALL_TO_ALL], 2);
  // the calls in sequence: to the owners rank 0 sends 8 and receives 13, rank 1 sends 13
  // and receives 8; back the reverse: each call's busiest rank moves 13, 26 in all (not
  // the busiest rank's total, 21); the reduce-scatter's is a rank's, (W - 1) S
  T_EQ_DBL (C->busy[MUON_COST_ALL_TO_ALL], 2 * 13);
  T_EQ_DBL (C->busy[MUON_COLL_REDUCE_SCATTER], (double) C->sent[MUON_COLL_REDUCE_SCATTER]);
  T_EQ_DBL (C->busy[MUON_COLL_ALL_GATHER], 0);
  T_EQ_INT (C->momentum[0], 21);
  T_EQ_INT (C->momentum[1], 17);
  muon_zero_cost_destroy (&C);

  // split blocks and expert pages: NS per block and page
  size_t split[2] = { 2, 4 };
  muon_zero_cost_param q[1] = { { 12, 8, 2, split, 2 } };
  o.design = MUON_ZERO_REFERENCE;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, q, 1, &o, &C), MUON_OK);
  T_EQ_DBL (C->flops_total, 2 * (muon_ns_flops_matrix (2, 8, &o.ns, 0)
                                 + muon_ns_flops_matrix (4, 8, &o.ns, 0)));
  muon_zero_cost_destroy (&C);
}

//---- the all-to-all model's totals --------------------------------------------------------

// The all-to-all model: every element of every other rank's shard reaches the owner and goes
// back, so over the ranks 2 sum (numel - owner's shard) bytes are sent.
static void test_alltoall_totals (void)
{
  muon_zero_cost_param p[5] = { { 7, 3, 1, NULL, 0 }, { 2, 9, 1, NULL, 0 },
                                { 12, 4, 1, NULL, 0 }, { 5, 5, 1, NULL, 0 },
                                { 1, 6, 1, NULL, 0 } };
  for (int W = 1; W <= 9; W++)
  {
    muon_zero_cost_opts o;
    muon_zero_cost_opts_default (&o);
    o.design = MUON_ZERO_ALLTOALL_OWNER;
    o.elem_bytes = 1;
    muon_zero_cost *C = NULL;
    T_EQ_INT (muon_zero_cost_create (ctx, 5, p, W, &o, &C), MUON_OK);
    if (!C)
      continue;
    uint64_t sent = 0, want = 0, held = 0;
    for (int r = 0; r < W; r++)
    {
      sent += C->sent[r * MUON_COST_COLLS + MUON_COST_ALL_TO_ALL];
      held += C->momentum[r];
    }
    for (int q = 0; q < 5; q++)
    {
      size_t rc = (p[q].rows + W - 1) / W, o_ = (size_t) C->ns_rank[q];
      size_t lo = o_ * rc < p[q].rows ? o_ * rc : p[q].rows;
      size_t hi = (o_ + 1) * rc < p[q].rows ? (o_ + 1) * rc : p[q].rows;
      want += 2 * (p[q].rows - (hi - lo)) * p[q].cols;
    }
    T_EQ_INT (sent, want);
    T_EQ_INT (held, C->total);
    muon_zero_cost_destroy (&C);
  }
}

//---- bytes past 2^64 ----------------------------------------------------------------------

// Every design's plan with overflow_fails 1 next to its plan with 0: the same plan where
// that one is costed; where that one is an error (BADSHAPE, bytes past 2^64), the design
// fails with why (after any reason of its own) and its collectives are 0.  Returns the
// designs that failed on bytes.
static int overflow_designs (size_t np, const muon_zero_cost_param *p, int W, int eb)
{
  int nover = 0;
  for (int d = 0; d < MUON_ZERO_VARIANT_COUNT; d++)
  {
    muon_zero_cost_opts o;
    muon_zero_cost_opts_default (&o);
    o.design = d;
    o.elem_bytes = eb;
    muon_zero_cost *A = NULL, *B = NULL;
    muon_status s0 = muon_zero_cost_create (ctx, np, p, W, &o, &A);
    o.overflow_fails = 1;
    T_EQ_INT (muon_zero_cost_create (ctx, np, p, W, &o, &B), MUON_OK);
    if (!B)
      continue;
    size_t nt = (size_t) W * MUON_COST_COLLS, nw = (size_t) W * sizeof (uint64_t);
    if (s0 == MUON_OK)
    {
      T_ASSERT_MSG (A->fails == B->fails && strcmp (A->why, B->why) == 0
                    && memcmp (A->calls, B->calls, nt * sizeof *A->calls) == 0
                    && memcmp (A->sent, B->sent, nt * sizeof *A->sent) == 0
                    && memcmp (A->recv, B->recv, nt * sizeof *A->recv) == 0
                    && memcmp (A->momentum, B->momentum, nw) == 0
                    && memcmp (A->transient, B->transient, nw) == 0
                    && memcmp (A->ns_flops, B->ns_flops, (size_t) W * sizeof (double)) == 0
                    && A->padded_total == B->padded_total,
                    "design %d W %d: the plans differ", d, W);
    }
    else
    {
      nover++;
      T_EQ_INT (s0, MUON_ERR_BADSHAPE);
      const char *w = strstr (B->why, "its ");
      T_ASSERT_MSG (B->fails && w != NULL && (w == B->why || strncmp (w - 2, "; ", 2) == 0),
                    "design %d W %d: why '%s'", d, W, B->why);
      uint64_t any = 0;
      for (size_t k = 0; k < nt; k++)
        any |= B->calls[k] | B->sent[k] | B->recv[k];
      T_ASSERT_MSG (any == 0, "design %d W %d: collectives counted", d, W);
    }
    muon_zero_cost_destroy (&A);
    muon_zero_cost_destroy (&B);
  }
  return nover;
}

static void test_bytes_overflow (void)
{
  // Megatron's shards of one 2^26 x 2^26 matrix on 512 ranks: 2^52 elements, whose
  // reduce-scatter the counters refuse (2^52 x 512 x 8 = 2^64 bytes)
  size_t n26 = (size_t) 1 << 26;
  muon_zero_cost_param p[1] = { { n26, n26, 1, NULL, 0 } };
  muon_zero_cost_opts o;
  muon_zero_cost *C = NULL;
  muon_zero_cost_opts_default (&o);
  o.design = MUON_ZERO_LAYERWISE_LPT;
  o.elem_bytes = 2;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 512, &o, &C), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), "4503599627370496 elements are too many to count");
  T_ASSERT (C == NULL);
  o.overflow_fails = 2;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 512, &o, &C), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "overflow_fails must be 0 or 1");
  o.overflow_fails = 1;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 512, &o, &C), MUON_OK);
  if (C)
  {
    T_EQ_INT (C->fails, 1);
    T_EQ_STR (C->why, "its reduce_scatter of 4503599627370496 elements is too many to count "
                      "(64-bit bytes)");
    T_EQ_INT (C->padded_total, (size_t) 1 << 61);     // the rest of the plan is there
    T_EQ_INT (C->partition_size, (size_t) 1 << 52);
    T_EQ_INT (C->momentum[0], (size_t) 1 << 52);
    T_EQ_INT (C->calls[0 * MUON_COST_COLLS + MUON_COLL_REDUCE_SCATTER], 0);
    T_EQ_INT (C->sent[511 * MUON_COST_COLLS + MUON_COLL_REDUCE_SCATTER], 0);
  }
  muon_zero_cost_destroy (&C);
  // by NS cost: its own reason first
  o.design = MUON_ZERO_LAYERWISE_NS_COST;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 512, &o, &C), MUON_OK);
  if (C)
    T_EQ_STR (C->why, "matrix 1: the Newton-Schulz costs of the matrices pass 2^64; its "
                      "reduce_scatter of 4503599627370496 elements is too many to count "
                      "(64-bit bytes)");
  muon_zero_cost_destroy (&C);
  // every design: 2^52 elements on 512 ranks (7 designs past 2^64: the two layer-wise
  // ones, and reference, zero12_allreduce, zero2_multi_owner and zero3_* all-reduce 2^52
  // elements), 2^49 on 4096 (the same 7: an all-reduce of 2^49 elements, 2^64 bytes at
  // 4096 ranks, from a buffer under 2^53), and at 2 ranks none
  T_EQ_INT (overflow_designs (1, p, 512, 2), 7);
  muon_zero_cost_param q[1] = { { n26 / 2, n26 / 4, 1, NULL, 0 } };
  T_EQ_INT (overflow_designs (1, q, 4096, 2), 7);
  T_EQ_INT (overflow_designs (1, q, 2, 64), 0);
  muon_zero_cost_param r[2] = { { 7, 3, 1, NULL, 0 }, { 4, 4, 2, NULL, 0 } };
  T_EQ_INT (overflow_designs (2, r, 3, 8), 0);

  // ElementBytes past the counters: an all-reduce of 2^59 elements on 2 ranks sends 2^59,
  // 2^64 bytes at 32 (they wrapped to 0)
  muon_zero_cost_param b[1] = { { (size_t) 1 << 30, (size_t) 1 << 29, 1, NULL, 0 } };
  muon_zero_cost_opts_default (&o);
  o.design = MUON_ZERO_REFERENCE;
  o.elem_bytes = 32;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, b, 2, &o, &C), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), "the allreduce bytes pass 2^64 (32 bytes an element)");
  o.overflow_fails = 1;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, b, 2, &o, &C), MUON_OK);
  if (C)
    T_EQ_STR (C->why, "its allreduce bytes pass 2^64 (32 bytes an element)");
  muon_zero_cost_destroy (&C);
  // the sum over a column's calls: zero3_round_robin's all-gathers of 2^56, 2^57 and 2^57
  // elements at 64 bytes on 2 ranks (2^62 + 2^63 + 2^63)
  muon_zero_cost_param g[1] = { { (size_t) 1 << 29, (size_t) 1 << 28, 1, NULL, 0 } };
  muon_zero_cost_opts_default (&o);
  o.design = MUON_ZERO3_ROUND_ROBIN;
  o.elem_bytes = 64;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, g, 2, &o, &C), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), "the all_gather bytes of rank 0 pass 2^64");
  o.overflow_fails = 1;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, g, 2, &o, &C), MUON_OK);
  if (C)
  {
    T_EQ_STR (C->why, "its all_gather bytes pass 2^64");
    T_EQ_INT (C->calls[MUON_COLL_ALLREDUCE], 0);     // every collective left out
  }
  muon_zero_cost_destroy (&C);
  T_EQ_INT (overflow_designs (1, g, 2, 64), 2);   // zero3_round_robin and its aliased pads
  // expert_parallel's all-to-all, not its reduce-scatter: on 2 ranks the 2^28 x 2^28 matrix
  // (rank 1's: LPT gives the larger one to rank 0) lies in rank 0's half, S = 2^58 - 32 of
  // 2^59 - 64 elements, so rank 1 sends S + 2^56 elements, past 2^64 bytes at 64; its
  // reduce-scatter of S is 2^64 - 2048 bytes
  muon_zero_cost_param x[2] = { { (size_t) 1 << 28, (size_t) 1 << 28, 1, NULL, 0 },
                                { 64, 7 * ((size_t) 1 << 50) - 1, 1, NULL, 0 } };
  muon_zero_cost_opts_default (&o);
  o.design = MUON_ZERO_EXPERT_PARALLEL;
  o.elem_bytes = 64;
  T_EQ_INT (muon_zero_cost_create (ctx, 2, x, 2, &o, &C), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), "the all_to_all bytes pass 2^64 (64 bytes an element)");
  o.overflow_fails = 1;
  T_EQ_INT (muon_zero_cost_create (ctx, 2, x, 2, &o, &C), MUON_OK);
  if (C)
    T_EQ_STR (C->why, "its all_to_all bytes pass 2^64 (64 bytes an element)");
  muon_zero_cost_destroy (&C);
  o.design = MUON_ZERO_ALLTOALL_OWNER;                  // its all-to-alls are S each
  T_EQ_INT (muon_zero_cost_create (ctx, 2, x, 2, &o, &C), MUON_OK);
  if (C)
  {
    T_EQ_INT (C->fails, 0);
    T_ASSERT (C->sent[MUON_COLL_REDUCE_SCATTER] == UINT64_MAX - 2047);
    T_ASSERT (C->sent[MUON_COST_ALL_TO_ALL] == UINT64_MAX - 2047);
  }
  muon_zero_cost_destroy (&C);
  // 8 designs: the all-reduces of 2^59 - 64 elements (reference, zero12_allreduce,
  // zero2_multi_owner, zero3_*), the layer-wise shards of the larger matrix, this one
  T_EQ_INT (overflow_designs (2, x, 2, 64), 8);
}

//---- errors -------------------------------------------------------------------------------

static void test_errors (void)
{
  muon_zero_cost_param p[1] = { { 4, 4, 1, NULL, 0 } };
  muon_zero_cost_opts o;
  muon_zero_cost *C = NULL;
  muon_zero_cost_opts_default (&o);
  T_EQ_INT (muon_zero_cost_create (NULL, 1, p, 2, &o, &C), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_cost_create (ctx, 1, NULL, 2, &o, &C), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_cost_create (ctx, 0, p, 2, &o, &C), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 0, &o, &C), MUON_ERR_BADARG);
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, MUON_ZERO_MAX_WORLD + 1, &o, &C), MUON_ERR_BADARG);
  muon_zero_cost_param z[1] = { { 0, 4, 1, NULL, 0 } };
  T_EQ_INT (muon_zero_cost_create (ctx, 1, z, 2, &o, &C), MUON_ERR_BADSHAPE);
  muon_zero_cost_param ex[1] = { { 6, 4, 4, NULL, 0 } };
  T_EQ_INT (muon_zero_cost_create (ctx, 1, ex, 2, &o, &C), MUON_ERR_BADSHAPE);
  T_ASSERT (strstr (muon_ctx_last_error (ctx), "experts do not divide") != NULL);
  size_t sp[2] = { 1, 2 };
  muon_zero_cost_param bs[1] = { { 4, 4, 1, sp, 2 } };
  T_EQ_INT (muon_zero_cost_create (ctx, 1, bs, 2, &o, &C), MUON_ERR_BADSHAPE);
  // more split row blocks than the step takes (MUON_MAX_SPLITS = 4096): refused, as
  // muon_zero_step_check does (5000 blocks of 1 row were accepted), and before split[] is
  // read (an nsplit past the array's end was read past it)
  static size_t ones[5000];
  for (int i = 0; i < 5000; i++)
    ones[i] = 1;
  muon_zero_cost_param many[1] = { { 5000, 4, 1, ones, 5000 } };
  T_EQ_INT (muon_zero_cost_create (ctx, 1, many, 2, &o, &C), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), "matrix 1: more than 4096 split row blocks");
  T_ASSERT (C == NULL);
  muon_zero_cost_param past[1] = { { 4, 4, 1, sp, SIZE_MAX } };
  T_EQ_INT (muon_zero_cost_create (ctx, 1, past, 2, &o, &C), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), "matrix 1: more than 4096 split row blocks");
  muon_zero_cost_param ns[1] = { { 3, 4, 1, NULL, 2 } };
  T_EQ_INT (muon_zero_cost_create (ctx, 1, ns, 2, &o, &C), MUON_ERR_NULLPTR);
  muon_zero_cost_param big[2] = { { SIZE_MAX / 2, 4, 1, NULL, 0 }, { 4, 4, 1, NULL, 0 } };
  T_EQ_INT (muon_zero_cost_create (ctx, 2, big, 2, &o, &C), MUON_ERR_BADSHAPE);
  int *fields[] = { &o.design, &o.stage, &o.align_factor, &o.elem_bytes };
  int bad[] = { MUON_ZERO_VARIANT_COUNT, 4, 0, 65 };
  for (int k = 0; k < 4; k++)
  {
    muon_zero_cost_opts_default (&o);
    *fields[k] = bad[k];
    T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  }
  muon_zero_cost_opts_default (&o);
  o.order = (muon_zero_order) 7;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  muon_zero_cost_opts_default (&o);
  o.pad_count = (muon_zero_pad_count) 7;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  muon_zero_cost_opts_default (&o);
  o.ns.method = (muon_ns_method) 5;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  // what muon_ns_flop_model_get refuses too: symmetric not 0 / 1, a negative restart, a
  // Gram aspect below 1
  muon_zero_cost_opts_default (&o);
  o.symmetric = 7;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  muon_zero_cost_opts_default (&o);
  o.ns.nrestarts = 1;
  o.ns.restarts[0] = -3;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  o.ns.nrestarts = -1;                            // the message says which bound
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "the restart count must not be negative (got -1)");
  muon_zero_cost_opts_default (&o);
  o.ns.gram_min_aspect = 0.5;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  muon_zero_cost_opts_default (&o);
  o.ns.gram_min_aspect = -1;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  // a coefficient schedule of no triples, as muon_ns refuses it (it counted 0 or negative
  // FLOPs); steps past the bound, given or the schedule's default
  static const double c9[9] = { 3, -4, 2, 3, -4, 2, 3, -4, 2 };
  for (int nc = -3; nc <= 0; nc += 3)
  {
    muon_zero_cost_opts_default (&o);
    o.ns.coeffs = c9;
    o.ns.ncoeffs = nc;
    T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
    T_EQ_STR (muon_ctx_last_error (ctx), "a coefficient schedule needs at least one triple");
  }
  muon_zero_cost_opts_default (&o);
  o.ns.steps = MUON_MAX_STEPS + 1;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "at most 1000 steps (got 1001)");
  T_ASSERT (C == NULL);
  // three triples, steps 0: three steps of [4 2] on each page of the matrix, the one
  // update of the whole model
  muon_zero_cost_opts_default (&o);
  o.ns.coeffs = c9;
  o.ns.ncoeffs = 3;
  muon_zero_cost_param q[1] = { { 4, 8, 1, NULL, 0 } };
  T_EQ_INT (muon_zero_cost_create (ctx, 1, q, 2, &o, &C), MUON_OK);
  T_EQ_DBL (C ? C->flops_total : -1, 3 * (4.0 * 8 * 16 + 2.0 * 64));
  muon_zero_cost_destroy (&C);
  T_EQ_INT (muon_zero_cost_destroy (NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_cost_destroy (&C), MUON_OK);

  // names: the designs are the variants (the gateway reads them from the catalogue)
  int d = -1;
  T_EQ_INT (muon_name_lookup (MUON_LIST_ZERO_VARIANT, "alltoall_owner", &d), MUON_OK);
  T_EQ_INT (d, MUON_ZERO_ALLTOALL_OWNER);
  T_EQ_INT (muon_name_lookup (MUON_LIST_ZERO_VARIANT, "layerwise_lpt", &d), MUON_OK);
  T_EQ_INT (d, MUON_ZERO_LAYERWISE_LPT);
  T_EQ_INT (muon_name_lookup (MUON_LIST_ZERO_VARIANT, "zero4", &d), MUON_ERR_BADARG);
  T_EQ_STR (muon_names (MUON_LIST_ZERO_VARIANT, MUON_ZERO3_ROUND_ROBIN), "zero3_round_robin");
  // a design past the list is refused by the range check through the list
  o.design = MUON_ZERO_VARIANT_COUNT;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  o.design = -1;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADARG);
  T_ASSERT (C == NULL);
}

int main (int argc, char **argv)
{
  (void) argc;
  if (muon_ctx_create (&ctx) != MUON_OK)
    return 1;
  T_RUN (test_flops);
  T_RUN (test_hand);
  T_RUN (test_alltoall_totals);
  T_RUN (test_bytes_overflow);
  T_RUN (test_errors);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
