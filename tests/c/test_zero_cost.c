/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_zero_cost.c - the plan-only cost model (core/zero/zero_cost.c) against the step: on
 * random layouts (world 1-8, stages 1-3, both orders) every design's calls, bytes, NS calls,
 * momentum, pads and owned elements against the plan of zero_plan.c and the counters of a
 * real muon_zero_step on the sim communicator; LPT owners against zero_plan.c's; the
 * layer-wise designs' buffer (starts, padded_shard_size, reduce-scatter bytes) against the
 * numbers Megatron's own layout function wrote, one bucket and several
 * (megatron_layerwise_fixture.h, megatron_layerwise_buckets_fixture.h), with the updates the
 * reference's.  The plan's own arithmetic (FLOPs, a hand plan, the all-to-all totals, bytes
 * past 2^64, the error codes): test_zero_cost_plan.c.
 */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "megatron_layerwise_buckets_fixture.h"
#include "megatron_layerwise_fixture.h"
#include "muon.h"

static muon_ctx *ctx;

static double urand (void) { return 2.0 * rand () / RAND_MAX - 1.0; }

//---- random layouts against the plan and the step -----------------------------------------

// The sim step's buffers for plan P: each rank's gradients g[r np + p] (rows x cols, uniform
// in [-1, 1]), its momentum and its owned updates (one spare element, so none is empty).
static void sim_buffers (const muon_zero_plan *P, size_t np, const size_t *rows,
                         const size_t *cols, double **g, double **mom, double **upd)
{
  for (int r = 0; r < P->world; r++)
  {
    for (size_t p = 0; p < np; p++)
    {
      size_t n = rows[p] * cols[p];
      g[r * np + p] = malloc (n * sizeof (double));
      for (size_t i = 0; g[r * np + p] && i < n; i++)
        g[r * np + p][i] = urand ();
    }
    mom[r] = calloc (P->momentum_len[r] + 1, sizeof (double));
    upd[r] = calloc (P->owned_len[r] + 1, sizeof (double));
  }
}

// Rank r's calls and bytes of every collective: the cost model's equal the step's counters.
static int counters_equal (const muon_zero_cost *C, const muon_zero_rank_stats *st, int r,
                           int design, int stage)
{
  int ok = 1;
  for (int k = 0; k < MUON_COLL_COUNT; k++)
    ok &= T_ASSERT_MSG (C->calls[r * MUON_COST_COLLS + k] == st[r].comm.calls[k]
                        && C->sent[r * MUON_COST_COLLS + k] == st[r].comm.bytes_sent[k]
                        && C->recv[r * MUON_COST_COLLS + k] == st[r].comm.bytes_recv[k],
                        "design %d stage %d rank %d coll %d: cost %llu bytes, step %llu",
                        design, stage, r, k,
                        (unsigned long long) C->sent[r * MUON_COST_COLLS + k],
                        (unsigned long long) st[r].comm.bytes_sent[k]);
  return ok;
}

// experts: NULL, or np expert counts (the step's blocks and the plan's pages).
static int check_design (int W, size_t np, const size_t *rows, const size_t *cols, int stage,
                         muon_zero_order order, int design, const size_t *experts)
{
  int ok = 1;
  muon_zero_layout_opts lo = { stage, 2, order };
  muon_zero_layout *L = NULL;
  muon_zero_plan *P = NULL;
  muon_comm *c = NULL;
  muon_zero_cost *C = NULL;
  muon_zero_cost_param par[8];
  double *g[8 * 8] = { 0 }, *mom[8] = { 0 }, *upd[8] = { 0 };
  muon_zero_rank_stats st[8];
  muon_zero_blocks blocks[8];
  for (size_t p = 0; p < np; p++)
  {
    size_t E = experts ? experts[p] : 1;
    par[p] = (muon_zero_cost_param) { rows[p], cols[p], E, NULL, 0 };
    blocks[p] = (muon_zero_blocks) { E, NULL, 0 };
  }
  muon_zero_cost_opts o;
  muon_zero_cost_opts_default (&o);
  o.design = design;
  o.stage = stage;
  o.order = order;
  T_EQ_INT (muon_zero_layout_create (ctx, np, rows, cols, W, &lo, &L), MUON_OK);
  T_EQ_INT (muon_zero_cost_create (ctx, np, par, W, &o, &C), MUON_OK);
  T_EQ_INT (muon_zero_plan_create (ctx, L, (muon_zero_variant) design, &P), MUON_OK);
  T_EQ_INT (muon_comm_sim_create (ctx, W, &c), MUON_OK);
  if (!L || !C || !P || !c)
    goto done;
  sim_buffers (P, np, rows, cols, g, mom, upd);
  muon_zero_step_opts so;
  muon_zero_step_opts_default (&so);
  so.variant = (muon_zero_variant) design;
  so.update.ns.precision = MUON_PREC_DOUBLE;
  so.update.ns.steps = 1;
  so.blocks = experts ? blocks : NULL;
  muon_status s = muon_zero_step (ctx, c, P, &so, (const double *const *) g, mom, upd, st);
  ok &= T_ASSERT_MSG ((s == MUON_ERR_BADSHAPE) == (C->fails != 0),
                      "design %d W %d: step %d, plan fails %d", design, W, (int) s, C->fails);
  if (s != MUON_OK)
    goto done;
  for (int r = 0; r < W; r++)
  {
    ok &= T_ASSERT_MSG (C->ns_calls[r] == st[r].ns_calls
                        && (experts || C->ns_calls[r] == P->ns_calls[r]),
                        "design %d W %d rank %d: NS calls", design, W, r);
    ok &= T_ASSERT_MSG (C->momentum[r] == st[r].momentum_elements,
                        "design %d W %d rank %d: momentum %llu vs %zu", design, W, r,
                        (unsigned long long) C->momentum[r], st[r].momentum_elements);
    ok &= T_ASSERT_MSG (C->pads[r] == st[r].pad_elements, "design %d rank %d: pads", design, r);
    ok &= T_ASSERT_MSG (C->owned[r] == P->owned_len[r], "design %d rank %d: owned", design, r);
    ok &= counters_equal (C, st, r, design, stage);
  }
  if (design == MUON_ZERO_LAYERWISE_LPT)
    for (size_t p = 0; p < np; p++)
      ok &= T_ASSERT_MSG (C->ns_rank[p] == P->lpt_owner[p], "LPT owner of %zu", p);
done:
  for (int i = 0; i < 64; i++)
    free (g[i]);
  for (int r = 0; r < 8; r++)
  {
    free (mom[r]);
    free (upd[r]);
  }
  muon_zero_cost_destroy (&C);
  muon_zero_plan_destroy (&P);
  muon_comm_destroy (&c);
  muon_zero_layout_destroy (&L);
  return ok;
}

static void test_random (void)
{
  int bad = 0;
  for (int trial = 0; trial < 40; trial++)
  {
    int W = 1 + rand () % 8, stage = 1 + rand () % 3;
    size_t np = 1 + (size_t) (rand () % 7), rows[8], cols[8];
    int same = rand () % 3 == 0, with_experts = trial % 2;
    size_t experts[8];
    for (size_t p = 0; p < np; p++)
    {
      experts[p] = with_experts ? 1 + (size_t) (rand () % 4) : 1;
      rows[p] = same && p ? rows[0] : experts[p] * (1 + (size_t) (rand () % 6));
      cols[p] = same && p ? cols[0] : 1 + (size_t) (rand () % 6);
      experts[p] = same && p ? experts[0] : experts[p];
    }
    muon_zero_order order = rand () % 2 ? MUON_ZERO_ORDER_SIZE_DESC : MUON_ZERO_ORDER_GIVEN;
    for (int d = 0; d < MUON_ZERO_VARIANT_COUNT; d++)
      if (!with_experts || d != MUON_ZERO2_SLICE_ONLY)
        bad += !check_design (W, np, rows, cols, stage, order, d,
                              with_experts ? experts : NULL);
  }
  T_EQ_INT (bad, 0);
}

//---- Megatron's layer-wise buffer, against the numbers its own function wrote ---------------

// The step on the sim communicator: its reduce-scatter counters per rank, against the cost
// model's; and its assembled updates against the reference design's on the same gradients,
// bit for bit (rel_err 0).  [in] the plan.
static int layerwise_sim (const muon_zero_plan *P, const muon_zero_cost *C, size_t np,
                          const size_t *rows, const size_t *cols)
{
  int ok = 1, W = P->world;
  muon_comm *c = NULL;
  muon_zero_plan *R = NULL;
  double **g = calloc ((size_t) W * np, sizeof *g), **mom = calloc ((size_t) W, sizeof *mom);
  double **upd = calloc ((size_t) W, sizeof *upd), **rmom = calloc ((size_t) W, sizeof *rmom);
  double **rupd = calloc ((size_t) W, sizeof *rupd), **full = calloc (2 * np, sizeof *full);
  muon_zero_rank_stats *st = calloc ((size_t) W, sizeof *st);
  ok &= T_ASSERT (g && mom && upd && rmom && rupd && full && st);
  ok &= T_ASSERT (muon_comm_sim_create (ctx, W, &c) == MUON_OK);
  ok &= T_ASSERT (muon_zero_plan_create (ctx, P->L, MUON_ZERO_REFERENCE, &R) == MUON_OK);
  if (!ok)
    goto done;
  sim_buffers (P, np, rows, cols, g, mom, upd);
  for (int r = 0; r < W; r++)
  {
    rmom[r] = calloc (R->momentum_len[r] + 1, sizeof (double));
    rupd[r] = calloc (R->owned_len[r] + 1, sizeof (double));
  }
  for (size_t p = 0; p < 2 * np; p++)
    full[p] = calloc (rows[p % np] * cols[p % np], sizeof (double));
  muon_zero_step_opts so;
  muon_zero_step_opts_default (&so);
  so.variant = P->variant;
  so.bucket_size = P->bucket_size;
  so.update.ns.precision = MUON_PREC_DOUBLE;
  so.update.ns.steps = 1;
  ok &= T_ASSERT (muon_zero_step (ctx, c, P, &so, (const double *const *) g, mom, upd, st)
                  == MUON_OK);
  for (int r = 0; ok && r < W; r++)
    ok &= counters_equal (C, st, r, P->variant, 0);
  so.variant = MUON_ZERO_REFERENCE;
  so.bucket_size = 0;
  ok &= T_ASSERT (muon_zero_step (ctx, c, R, &so, (const double *const *) g, rmom, rupd, NULL)
                  == MUON_OK);
  ok &= T_ASSERT (muon_zero_assemble (ctx, c, P, (const double *const *) upd, full)
                  == MUON_OK);
  ok &= T_ASSERT (muon_zero_assemble (ctx, c, R, (const double *const *) rupd, full + np)
                  == MUON_OK);
  for (size_t p = 0; ok && p < np; p++)
    ok &= T_ASSERT_MSG (memcmp (full[p], full[np + p], rows[p] * cols[p] * sizeof (double))
                        == 0, "matrix %zu: the update is not the reference's", p);
done:
  for (size_t i = 0; g && i < (size_t) W * np; i++)
    free (g[i]);
  for (size_t i = 0; full && i < 2 * np; i++)
    free (full[i]);
  for (int r = 0; r < W && mom && upd && rmom && rupd; r++)
  {
    free (mom[r]);
    free (upd[r]);
    free (rmom[r]);
    free (rupd[r]);
  }
  free (g);
  free (mom);
  free (upd);
  free (rmom);
  free (rupd);
  free (full);
  free (st);
  muon_zero_plan_destroy (&R);
  muon_comm_destroy (&c);
  return ok;
}

// One case of Megatron's own layout (either fixture): rule by_cost, W ranks, ddp bucket_size
// (0: None, one bucket), np matrices shape[2 p], shape[2 p + 1]; start[p] its first element
// in the buffer and bucket[p] its bucket (NULL: all 0), bucket b spanning [range[2 b],
// range[2 b + 1]).  The plan's buckets (lpt_bucket_seg) lie so and its starts (the buckets
// before, owner times the bucket's padded_shard_size, lpt_at) and buckets are Megatron's; the
// cost model's partition (partition_size, padded_total = the buffer's end) and its
// reduce-scatters (one a bucket, the ring model of W padded_shard_size elements each:
// (W - 1) padded_shard_size elements each way at ElementBytes 8 and 2; transient: the
// largest bucket's buffers); up to W 8 the sim step counts the same and its updates are the
// reference design's.  *sims counts the sim steps.
static int megatron_case (size_t k, int by_cost, int W_, size_t bucket_size, size_t np,
                          const size_t *shape, const size_t *start, const size_t *bucket,
                          size_t nbuckets, const size_t *range, int *sims)
{
  size_t rows[80], cols[80], W = (size_t) W_, big = 0;
  int design = by_cost ? MUON_ZERO_LAYERWISE_NS_COST : MUON_ZERO_LAYERWISE_LPT, ok = 1;
  muon_zero_cost_param par[80];
  if (!T_ASSERT (np <= 80 && nbuckets >= 1))
    return 0;
  for (size_t p = 0; p < np; p++)
  {
    rows[p] = shape[2 * p];
    cols[p] = shape[2 * p + 1];
    par[p] = (muon_zero_cost_param) { rows[p], cols[p], 1, NULL, 0 };
    big = rows[p] * cols[p] > big ? rows[p] * cols[p] : big;
  }
  muon_zero_layout_opts lo = { 2, 2, MUON_ZERO_ORDER_GIVEN };
  muon_zero_layout *L = NULL;
  muon_zero_plan *P = NULL;
  muon_zero_cost *C = NULL, *C2 = NULL;
  muon_zero_cost_opts o;
  muon_zero_cost_opts_default (&o);
  o.design = design;
  o.bucket_size = bucket_size;
  ok &= T_ASSERT (muon_zero_layout_create (ctx, np, rows, cols, W_, &lo, &L) == MUON_OK);
  ok &= T_ASSERT (muon_zero_plan_create_bucketed (ctx, L, (muon_zero_variant) design,
                                                  bucket_size, &P) == MUON_OK);
  ok &= T_ASSERT (muon_zero_cost_create (ctx, np, par, W_, &o, &C) == MUON_OK);
  o.elem_bytes = 2;
  ok &= T_ASSERT (muon_zero_cost_create (ctx, np, par, W_, &o, &C2) == MUON_OK);
  if (ok)
    ok &= T_ASSERT_MSG (P->lpt_nbuckets == nbuckets, "case %zu: plan's %zu buckets, "
                        "Megatron's %zu", k, P->lpt_nbuckets, nbuckets);
  if (ok)
  {
    size_t at = 0, most = 0;
    for (size_t b = 0; b < nbuckets; b++)
    {
      size_t S = P->lpt_bucket_seg[b];
      ok &= T_ASSERT_MSG (range[2 * b] == at && range[2 * b + 1] == at + W * S,
                          "case %zu bucket %zu: plan's [%zu, %zu), Megatron's [%zu, %zu)", k,
                          b, at, at + W * S, range[2 * b], range[2 * b + 1]);
      for (size_t p = 0; p < np; p++)
        if (P->lpt_bucket[p] == b)
          ok &= T_ASSERT_MSG (at + (size_t) P->lpt_owner[p] * S + P->lpt_at[p] == start[p]
                              && b == (bucket ? bucket[p] : 0),
                              "case %zu matrix %zu: plan's start %zu in bucket %zu, "
                              "Megatron's %zu in %zu", k, p,
                              at + (size_t) P->lpt_owner[p] * S + P->lpt_at[p], b, start[p],
                              bucket ? bucket[p] : 0);
      most = S > most ? S : most;
      at += W * S;
    }
    ok &= T_ASSERT_MSG (C->partition_size * W == at && C->padded_total == at
                        && P->lpt_segment * W == at,
                        "case %zu: cost's partition %zu of %zu, Megatron's buffer %zu", k,
                        C->partition_size, C->padded_total, at);
    for (size_t r = 0; r < W; r++)
    {
      size_t rs = r * MUON_COST_COLLS + MUON_COLL_REDUCE_SCATTER, S = at / W;
      ok &= T_ASSERT_MSG (C->sent[rs] == (W - 1) * S * 8 && C->recv[rs] == (W - 1) * S * 8
                          && C2->sent[rs] == (W - 1) * S * 2 && C->calls[rs] == nbuckets,
                          "case %zu rank %zu: reduce-scatter bytes %llu, calls %llu", k, r,
                          (unsigned long long) C->sent[rs],
                          (unsigned long long) C->calls[rs]);
      // the step's buffers: the largest bucket to send, a shard back, the largest matrix
      ok &= T_ASSERT_MSG (C->transient[r] == W * most + most + big,
                          "case %zu rank %zu: transient", k, r);
    }
    if (W <= 8)
    {
      ok &= layerwise_sim (P, C, np, rows, cols);
      ++*sims;
    }
  }
  muon_zero_cost_destroy (&C);
  muon_zero_cost_destroy (&C2);
  muon_zero_plan_destroy (&P);
  muon_zero_layout_destroy (&L);
  return ok;
}

// megatron_layerwise_fixture.h (one bucket: for both rules, seven mixes, W in {1, 2, 3, 4,
// 8, 64}) and megatron_layerwise_buckets_fixture.h (ddp bucket_size giving 2 to 5 buckets:
// both rules, five mixes, W in {1, 2, 3, 4, 8}), each case through megatron_case.
static void test_megatron_layout (void)
{
  int bad = 0, sims = 0;
  size_t ncase = sizeof mlw_cases / sizeof mlw_cases[0];
  for (size_t k = 0; k < ncase; k++)
  {
    const mlw_case *m = &mlw_cases[k];
    size_t range[2] = { 0, (size_t) m->W * m->shard };
    bad += !megatron_case (k, m->by_cost, m->W, 0, m->np, mlw_shapes + 2 * m->shape_at,
                           mlw_starts + m->start_at, NULL, 1, range, &sims);
  }
  T_EQ_INT (ncase, 84);
  T_EQ_INT (sims, 70);
  size_t nb = sizeof mlwb_cases / sizeof mlwb_cases[0];
  int counts[6] = { 0 };
  for (size_t k = 0; k < nb; k++)
  {
    const mlwb_case *m = &mlwb_cases[k];
    counts[m->nbuckets < 6 ? m->nbuckets : 0]++;
    bad += !megatron_case (ncase + k, m->by_cost, m->W, m->bucket_size, m->np,
                           mlwb_shapes + 2 * m->shape_at, mlwb_starts + m->start_at,
                           mlwb_bucket + m->start_at, m->nbuckets,
                           mlwb_ranges + 2 * m->range_at, &sims);
  }
  T_EQ_INT (nb, 108);
  T_EQ_INT (sims, 70 + 108);
  T_EQ_INT (counts[0] + counts[1], 0);   // every bucketed case has 2 to 5 buckets
  T_EQ_INT (bad, 0);
}

int main (int argc, char **argv)
{
  (void) argc;
  if (muon_ctx_create (&ctx) != MUON_OK)
    return 1;
  srand (5);
  T_RUN (test_random);
  T_RUN (test_megatron_layout);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
