/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_zero_step.c - the distributed Muon step (core/zero/zero_plan.c, zero_step_api.c, the
 * step families zero_step_*.c): plans of a hand-computed layout, the reference against
 * muon_update on a hand-averaged gradient (bitwise), every correct variant bitwise equal to the reference on
 * random layouts with momentum chained over steps, the buggy variants exact on wholly owned
 * matrices and wrong on straddling ones, the aliased pads failing on a mixed round without
 * touching the momentum, Keller's extra pad round costing memory only, byte counters
 * against the closed forms.  The defaults, every error code and the sim communicator:
 * test_zero_step_api.c; the step on device arrays: test_zero_step_device.c; the test
 * problem: zero_problem.h.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "zero_problem.h"

// MUON_BP's period in run (1 unless a test sets it).
static int run_period = 1;

// Runs `steps` steps of a variant on sim ranks; full[p] gets the assembled last update.
static muon_status run (problem *pb, muon_zero_variant v, int steps, double **full,
                        muon_zero_rank_stats *st, muon_zero_pad_count pads)
{
  muon_comm *c = NULL;
  muon_zero_plan *P = NULL;
  double *mom[MAXW] = { 0 }, *upd[MAXW] = { 0 };
  muon_status s = muon_comm_sim_create (ctx, pb->W, &c);
  if (s == MUON_OK)
    s = muon_zero_plan_create (ctx, pb->L, v, &P);
  if (s == MUON_OK)
  {
    muon_zero_step_opts o;
    muon_zero_step_opts_default (&o);
    o.variant = v;
    o.pad_count = pads;
    o.period = run_period;
    o.update.ns.precision = MUON_PREC_DOUBLE;
    for (int r = 0; r < pb->W; r++)
    {
      mom[r] = calloc (P->momentum_len[r] + 1, sizeof (double));
      upd[r] = calloc (P->owned_len[r] + 1, sizeof (double));
    }
    for (int k = 0; k < steps && s >= 0; k++)
    {
      o.step = k;
      s = muon_zero_step (ctx, c, P, &o, (const double *const *) pb->g, mom, upd, st);
    }
    if (s >= 0 && full)
      s = muon_zero_assemble (ctx, c, P, (const double *const *) upd, full);
  }
  for (int r = 0; r < pb->W; r++)
  {
    free (mom[r]);
    free (upd[r]);
  }
  muon_zero_plan_destroy (&P);
  muon_comm_destroy (&c);
  return s;
}

static double **alloc_full (const problem *pb)
{
  double **f = calloc (pb->np, sizeof *f);
  for (size_t p = 0; p < pb->np; p++)
    f[p] = calloc (pb->rows[p] * pb->cols[p], sizeof (double));
  return f;
}

static void free_full (const problem *pb, double **f)
{
  for (size_t p = 0; p < pb->np; p++)
    free (f[p]);
  free (f);
}

static double rel_diff (const double *a, const double *b, size_t n)
{
  double d = 0, nb = 0;
  for (size_t i = 0; i < n; i++)
  {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    nb += b[i] * b[i];
  }
  return sqrt (d) / sqrt (nb);
}

//---- plans --------------------------------------------------------------------------------

// 3x4, 2x5, 4x4 on 2 ranks: total 38, padded 40, S = 20; the 2x5 matrix is [12, 22), cut at 20.
static void test_plans (void)
{
  problem pb;
  size_t rows[] = { 3, 2, 4 }, cols[] = { 4, 5, 4 };
  problem_init (&pb, 2, 3, rows, cols, 2, MUON_ZERO_ORDER_GIVEN);
  muon_zero_plan *P = NULL;

  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, MUON_ZERO12_ALLREDUCE, &P), MUON_OK);
  T_EQ_INT (P->momentum_len[0], 12 + 10);
  T_EQ_INT (P->momentum_len[1], 10 + 16);
  T_EQ_INT (P->owned_len[0], 12 + 8);
  T_EQ_INT (P->owned_len[1], 2 + 16);
  T_EQ_INT (P->ns_calls[0], 2);
  T_EQ_INT (P->ns_calls[1], 2);
  T_EQ_INT (P->owned[1].start, 0);      // rank 0, matrix 1: [0, 8)
  T_EQ_INT (P->owned[1].stop, 8);
  T_EQ_INT (P->owned[3 + 1].start, 8);  // rank 1, matrix 1: [8, 10)
  T_EQ_INT (P->straddle_total, 10);
  T_EQ_INT (P->mom_layout, MUON_ZERO_MOM_FULL);
  muon_zero_plan_destroy (&P);

  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, MUON_ZERO_REFERENCE, &P), MUON_OK);
  T_EQ_INT (P->momentum_len[0], 38);
  T_EQ_INT (P->ns_calls[1], 3);
  muon_zero_plan_destroy (&P);

  // LPT: 16 -> rank 0, 12 -> rank 1, 10 -> rank 1 (load 12 < 16) at 64 (Megatron's 64-
  // element starts); shard: the longest cursor 74 rounded up to 64 (W even), 128
  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, MUON_ZERO_LAYERWISE_LPT, &P), MUON_OK);
  T_EQ_INT (P->lpt_owner[0], 1);
  T_EQ_INT (P->lpt_owner[1], 1);
  T_EQ_INT (P->lpt_owner[2], 0);
  T_EQ_INT (P->lpt_at[0], 0);
  T_EQ_INT (P->lpt_at[1], 64);
  T_EQ_INT (P->lpt_at[2], 0);
  T_EQ_INT (P->lpt_segment, 128);
  T_EQ_INT (P->momentum_len[0], 16);
  T_EQ_INT (P->momentum_len[1], 22);
  T_EQ_INT (P->owned_len[1], 22);
  muon_zero_plan_destroy (&P);

  // ZeRO-3: chunks 6, 5, 8 -> S = 19 per rank; round robin 2 + 1 NS calls
  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, MUON_ZERO3_ROUND_ROBIN, &P), MUON_OK);
  T_EQ_INT (P->part->stage, 3);
  T_EQ_INT (P->momentum_len[0], 19);
  T_EQ_INT (P->mom_layout, MUON_ZERO_MOM_PART);
  T_EQ_INT (P->ns_calls[0], 2);
  T_EQ_INT (P->ns_calls[1], 1);
  T_EQ_INT (P->owned[1].stop, 5);       // rank 0 owns [0, 5) of matrix 1 (10 elements)
  muon_zero_plan_destroy (&P);

  // slice-only and Moonlight hold their partition
  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, MUON_ZERO_MOONLIGHT_GATHER, &P), MUON_OK);
  T_EQ_INT (P->momentum_len[1], 20);
  muon_zero_plan_destroy (&P);
  problem_free (&pb);
}

//---- numbers ------------------------------------------------------------------------------

// The reference is muon_update on the rank-order average, bit for bit.
static void test_reference (void)
{
  problem pb;
  size_t rows[] = { 5, 3, 6 }, cols[] = { 4, 7, 6 };
  problem_init (&pb, 3, 3, rows, cols, 2, MUON_ZERO_ORDER_GIVEN);
  double **full = alloc_full (&pb);
  T_EQ_INT (run (&pb, MUON_ZERO_REFERENCE, 2, full, NULL, 0), MUON_OK);
  muon_update_opts o;
  muon_update_opts_default (&o);
  o.ns.precision = MUON_PREC_DOUBLE;
  for (size_t p = 0; p < 3; p++)
  {
    size_t n = rows[p] * cols[p];
    double *avg = malloc (n * sizeof *avg), *m = calloc (n, sizeof *m), *u = malloc (n * 8);
    for (size_t i = 0; i < n; i++)
    {
      double acc = pb.g[p][i];
      for (int r = 1; r < 3; r++)
        acc = acc + pb.g[r * 3 + p][i];
      avg[i] = acc / 3;
    }
    muon_tensor G = muon_tensor_matrix (MUON_F64, avg, rows[p], cols[p]);
    muon_tensor M = muon_tensor_matrix (MUON_F64, m, rows[p], cols[p]);
    muon_tensor U = muon_tensor_matrix (MUON_F64, u, rows[p], cols[p]);
    for (int k = 0; k < 2; k++)
      T_EQ_INT (muon_update (ctx, &G, &M, &U, &o), MUON_OK);
    T_ASSERT (memcmp (u, full[p], n * sizeof *u) == 0);
    free (avg);
    free (m);
    free (u);
  }
  free_full (&pb, full);
  problem_free (&pb);
}

// Random shape lists, world 1..5, both orders, stages 1-3, 3 chained steps: every correct
// variant (and MUON_BP with period 1) equals the reference bit for bit; the buggy ones are
// exact on wholly owned matrices and off on the straddling ones.
static void test_variants_random (void)
{
  int bug_seen = 0;
  for (int trial = 0; trial < 24; trial++)
  {
    problem pb;
    int W = 1 + trial % MAXW;
    size_t np = 2 + (size_t) (rand () % (MAXP - 1)), rows[MAXP], cols[MAXP];
    for (size_t p = 0; p < np; p++)
    {
      rows[p] = 2 + (size_t) (rand () % 7);
      cols[p] = 2 + (size_t) (rand () % 7);
    }
    int stage = 1 + trial % 3;
    problem_init (&pb, W, np, rows, cols, stage,
                  (trial / 3) % 2 ? MUON_ZERO_ORDER_SIZE_DESC : MUON_ZERO_ORDER_GIVEN);
    double **ref = alloc_full (&pb), **got = alloc_full (&pb);
    T_EQ_INT (run (&pb, MUON_ZERO_REFERENCE, 3, ref, NULL, 0), MUON_OK);
    for (int v = 1; v < MUON_ZERO_VARIANT_COUNT; v++)
    {
      if (v == MUON_ZERO3_RR_ALIASED)
        continue;   // its own test
      T_EQ_INT (run (&pb, (muon_zero_variant) v, 3, got, NULL, 0), MUON_OK);
      muon_zero_plan *P = NULL;
      muon_zero_plan_create (ctx, pb.L, (muon_zero_variant) v, &P);
      for (size_t p = 0; p < np; p++)
      {
        size_t n = rows[p] * cols[p];
        int same = memcmp (ref[p], got[p], n * sizeof (double)) == 0;
        if (muon_zero_variant_is_correct ((muon_zero_variant) v) || v == MUON_ZERO_MUON_BP)
          T_ASSERT_MSG (same, "trial %d variant %s matrix %zu differs", trial,
                        muon_names (MUON_LIST_ZERO_VARIANT, v), p);
        else if (!P->part->params[p].straddles)
          T_ASSERT_MSG (same, "trial %d variant %s wholly owned matrix %zu differs", trial,
                        muon_names (MUON_LIST_ZERO_VARIANT, v), p);
        else
        {
          double e = rel_diff (got[p], ref[p], n);
          T_ASSERT_MSG (e > 1e-3, "trial %d %s straddler %zu error %g", trial,
                        muon_names (MUON_LIST_ZERO_VARIANT, v), p, e);
          bug_seen++;
        }
      }
      muon_zero_plan_destroy (&P);
    }
    free_full (&pb, ref);
    free_full (&pb, got);
    problem_free (&pb);
  }
  T_ASSERT (bug_seen > 10);
}

// MuonBP, period 2 on random shapes and worlds 2..5: the momentum is the reference's on every
// step, so a full step (the third) equals the reference bit for bit; a block step (the
// second) equals it on a matrix held by one rank only (one row) and differs elsewhere.  The
// block step moves only the reduce-scatter; the full one adds two all-to-alls.
static void test_muon_bp (void)
{
  int differ = 0;
  run_period = 2;
  for (int trial = 0; trial < 14; trial++)
  {
    problem pb;
    int W = 2 + trial % (MAXW - 1);
    size_t np = 2 + (size_t) (rand () % (MAXP - 1)), rows[MAXP], cols[MAXP];
    for (size_t p = 0; p < np; p++)
    {
      rows[p] = 1 + (size_t) (rand () % 8);
      cols[p] = 2 + (size_t) (rand () % 7);
    }
    problem_init (&pb, W, np, rows, cols, 1 + trial % 3, MUON_ZERO_ORDER_GIVEN);
    double **ref = alloc_full (&pb), **got = alloc_full (&pb);
    muon_zero_rank_stats st[MAXW];
    for (int steps = 2; steps <= 3; steps++)
    {
      T_EQ_INT (run (&pb, MUON_ZERO_REFERENCE, steps, ref, NULL, 0), MUON_OK);
      T_EQ_INT (run (&pb, MUON_ZERO_MUON_BP, steps, got, st, 0), MUON_OK);
      for (size_t p = 0; p < np; p++)
      {
        int same = memcmp (ref[p], got[p], rows[p] * cols[p] * sizeof (double)) == 0;
        if (steps == 3 || rows[p] == 1)
          T_ASSERT_MSG (same, "trial %d steps %d matrix %zu differs", trial, steps, p);
        else
          differ += !same;
      }
      for (int r = 0; r < W; r++)
      {
        T_EQ_INT (st[r].comm.calls[MUON_COLL_ALL_TO_ALL], steps == 3 ? 2 : 0);
        T_EQ_INT (st[r].comm.calls[MUON_COLL_REDUCE_SCATTER], 1);
      }
    }
    free_full (&pb, ref);
    free_full (&pb, got);
    problem_free (&pb);
  }
  run_period = 1;
  T_ASSERT (differ > 10);
}

//---- pads ---------------------------------------------------------------------------------

static void test_aliased_pads (void)
{
  problem pb;
  // 3 same-size matrices on 2 ranks: round 2 is (matrix 3, pad shaped like matrix 3)
  size_t rows[] = { 4, 4, 4, 8 }, cols[] = { 6, 6, 6, 3 };
  problem_init (&pb, 2, 3, rows, cols, 2, MUON_ZERO_ORDER_GIVEN);
  double **ref = alloc_full (&pb), **got = alloc_full (&pb);
  muon_zero_rank_stats st[2], st2[2];
  T_EQ_INT (run (&pb, MUON_ZERO_REFERENCE, 2, ref, NULL, 0), MUON_OK);
  T_EQ_INT (run (&pb, MUON_ZERO3_RR_ALIASED, 2, got, st, 0), MUON_OK);
  for (size_t p = 0; p < 3; p++)
    T_ASSERT (memcmp (ref[p], got[p], 24 * sizeof (double)) == 0);
  T_EQ_INT (st[0].pad_elements, 2 * 24);   // one update pad, one momentum pad, aliased
  T_EQ_INT (run (&pb, MUON_ZERO3_ROUND_ROBIN, 2, got, st2, 0), MUON_OK);
  T_EQ_INT (st2[0].pad_elements, 2 * 24);  // one distinct pad slot each, round size 24
  for (int k = 0; k < MUON_COLL_COUNT; k++)
    T_EQ_INT (st[1].comm.bytes_sent[k], st2[1].comm.bytes_sent[k]);
  free_full (&pb, ref);
  free_full (&pb, got);
  problem_free (&pb);

  // four matrices of 24 elements, the last 8 x 3: round 2 = (4 x 6, 8 x 3) mixes shapes
  // but not sizes, and survives; no pads with DeepSpeed's count
  problem_init (&pb, 2, 4, rows, cols, 2, MUON_ZERO_ORDER_GIVEN);
  ref = alloc_full (&pb);
  got = alloc_full (&pb);
  T_EQ_INT (run (&pb, MUON_ZERO_REFERENCE, 1, ref, NULL, 0), MUON_OK);
  T_EQ_INT (run (&pb, MUON_ZERO3_RR_ALIASED, 1, got, st, 0), MUON_OK);
  for (size_t p = 0; p < 4; p++)
    T_ASSERT (memcmp (ref[p], got[p], 24 * sizeof (double)) == 0);
  T_EQ_INT (st[0].pad_elements, 0);
  // Keller's count: W divides 4, a whole round of pads is allocated and never gathered
  T_EQ_INT (run (&pb, MUON_ZERO3_RR_ALIASED, 1, got, st2, MUON_ZERO_PADS_KELLER), MUON_OK);
  T_EQ_INT (st2[0].pad_elements, 2 * 24);
  T_EQ_INT (st2[0].ns_calls, st[0].ns_calls);
  T_EQ_INT (st2[0].comm.calls[MUON_COLL_ALL_GATHER], st[0].comm.calls[MUON_COLL_ALL_GATHER]);
  for (size_t p = 0; p < 4; p++)
    T_ASSERT (memcmp (ref[p], got[p], 24 * sizeof (double)) == 0);
  free_full (&pb, ref);
  free_full (&pb, got);
  problem_free (&pb);

  // mixed sizes in a round: 6 x 6 and 4 x 6 on 2 ranks -> BADSHAPE, momentum untouched
  size_t r2[] = { 6, 4 }, c2[] = { 6, 6 };
  problem_init (&pb, 2, 2, r2, c2, 2, MUON_ZERO_ORDER_GIVEN);
  muon_comm *c = NULL;
  muon_zero_plan *P = NULL;
  T_EQ_INT (muon_comm_sim_create (ctx, 2, &c), MUON_OK);
  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, MUON_ZERO3_RR_ALIASED, &P), MUON_OK);
  muon_zero_step_opts o;
  muon_zero_step_opts_default (&o);
  o.variant = MUON_ZERO3_RR_ALIASED;
  double m0[64], m1[64], u0[64], u1[64];
  for (int i = 0; i < 64; i++)
    m0[i] = m1[i] = 0.25;
  double *mom[2] = { m0, m1 }, *upd[2] = { u0, u1 };
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, (const double *const *) pb.g, mom, upd, NULL),
            MUON_ERR_BADSHAPE);
  T_ASSERT (strstr (muon_ctx_last_error (ctx), "PR 8628") != NULL);
  T_ASSERT (m0[0] == 0.25 && m1[(int) P->momentum_len[1] - 1] == 0.25);
  muon_zero_plan_destroy (&P);
  T_EQ_INT (run (&pb, MUON_ZERO3_ROUND_ROBIN, 1, NULL, NULL, 0), MUON_OK);
  muon_comm_destroy (&c);
  problem_free (&pb);
}

//---- bytes --------------------------------------------------------------------------------

static uint64_t model (muon_coll k, int W, int r, size_t n)
{
  uint64_t s = 0, rv = 0;
  muon_comm_model_bytes (ctx, k, W, r, 0, n, MUON_F64, &s, &rv);
  return s;
}

static void test_bytes (void)
{
  problem pb;
  size_t rows[] = { 3, 2, 4 }, cols[] = { 4, 5, 4 };
  problem_init (&pb, 2, 3, rows, cols, 2, MUON_ZERO_ORDER_GIVEN);
  muon_zero_rank_stats st[2];
  for (int r = 0; r < 2; r++)
  {
    T_EQ_INT (run (&pb, MUON_ZERO12_ALLREDUCE, 1, NULL, st, 0), MUON_OK);
    T_EQ_INT (st[r].comm.bytes_sent[MUON_COLL_ALLREDUCE], model (MUON_COLL_ALLREDUCE, 2, r, 40));
    T_EQ_INT (run (&pb, MUON_ZERO2_RS_BUGGY, 1, NULL, st, 0), MUON_OK);
    T_EQ_INT (st[r].comm.bytes_sent[MUON_COLL_REDUCE_SCATTER],
              model (MUON_COLL_REDUCE_SCATTER, 2, r, 20));
    T_EQ_INT (run (&pb, MUON_ZERO2_MULTI_OWNER, 1, NULL, st, 0), MUON_OK);
    T_EQ_INT (st[r].comm.bytes_sent[MUON_COLL_ALLREDUCE], model (MUON_COLL_ALLREDUCE, 2, r, 10));
    T_EQ_INT (run (&pb, MUON_ZERO_LAYERWISE_LPT, 1, NULL, st, 0), MUON_OK);
    T_EQ_INT (st[r].comm.bytes_sent[MUON_COLL_REDUCE_SCATTER],
              model (MUON_COLL_REDUCE_SCATTER, 2, r, 128));   // Megatron's shard
    // Moonlight: rank 0 sends 8 straddling elements, rank 1 sends 2: C = 8
    T_EQ_INT (run (&pb, MUON_ZERO_MOONLIGHT_GATHER, 1, NULL, st, 0), MUON_OK);
    T_EQ_INT (st[r].comm.bytes_sent[MUON_COLL_ALL_GATHER], model (MUON_COLL_ALL_GATHER, 2, r, 8));
    // ZeRO-3: all-reduce 38, momentum all-gather 19, 2 rounds x 2 gathers of 12 and 16
    T_EQ_INT (run (&pb, MUON_ZERO3_ROUND_ROBIN, 1, NULL, st, 0), MUON_OK);
    T_EQ_INT (st[r].comm.bytes_sent[MUON_COLL_ALLREDUCE], model (MUON_COLL_ALLREDUCE, 2, r, 38));
    T_EQ_INT (st[r].comm.bytes_sent[MUON_COLL_ALL_GATHER],
              model (MUON_COLL_ALL_GATHER, 2, r, 19) + 2 * model (MUON_COLL_ALL_GATHER, 2, r, 12)
              + 2 * model (MUON_COLL_ALL_GATHER, 2, r, 16));
    T_EQ_INT (st[r].comm.calls[MUON_COLL_ALL_GATHER], 5);
  }
  problem_free (&pb);
}

int main (int argc, char **argv)
{
  (void) argc;
  if (muon_ctx_create (&ctx) != MUON_OK)
    return 1;
  srand (11);                // the random layouts
  t_rng = 11;                // the gradients
  T_RUN (test_plans);
  T_RUN (test_reference);
  T_RUN (test_variants_random);
  T_RUN (test_muon_bp);
  T_RUN (test_aliased_pads);
  T_RUN (test_bytes);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
