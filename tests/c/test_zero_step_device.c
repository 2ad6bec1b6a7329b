/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_zero_step_device.c - the distributed Muon step on device arrays (zero_step_dev*.c;
 * split from test_zero_step_api.c, the step's API and errors), on the CPU
 * stand-in device against the host step: every design, two steps chained, W simulated
 * ranks, and its errors; the reference design's shared momentum updated once; the device
 * step refusing what the host step refuses of its buffers' memory.  The test problem:
 * zero_problem.h.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "zero_problem.h"

//---- the step on device arrays ------------------------------------------------------------

// The device step on the stand-in device against the host step: every design, two steps
// chained, W simulated ranks; then its errors.
static muon_darray *dcol (const double *x, size_t rows, size_t cols)
{
  muon_darray *a = NULL;
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, rows, cols, 1, &a),
            MUON_OK);
  if (a && x)
  {
    muon_tensor t = muon_tensor_matrix (MUON_F64, (void *) x, rows, cols);
    T_EQ_INT (muon_darray_upload (ctx, a, &t), MUON_OK);
  }
  else if (a)
    T_EQ_INT (muon_darray_fill (ctx, a, MUON_FILL_ZEROS, 0), MUON_OK);
  return a;
}

// The layer-wise designs run twice, the second time with Megatron's buckets (bucket_size 20
// elements: 2 buckets at W 1 and 2, one reduce-scatter each); a bucketed plan refuses options
// of another bucket size.
static void test_device_step (void)
{
  const size_t rows[] = { 5, 3, 7 }, cols[] = { 4, 6, 2 };
  for (int W = 1; W <= 4; W++)
    for (int kb = 0; kb < 2 * MUON_ZERO_VARIANT_COUNT; kb++)
    {
      int k = kb % MUON_ZERO_VARIANT_COUNT;
      size_t bucket = kb < MUON_ZERO_VARIANT_COUNT ? 0 : 20;
      if (k == MUON_ZERO3_RR_ALIASED)   // its rounds here mix sizes: an error on both
        continue;
      if (bucket && k != MUON_ZERO_LAYERWISE_LPT && k != MUON_ZERO_LAYERWISE_NS_COST)
        continue;
      muon_zero_variant v = (muon_zero_variant) k;
      problem pb;
      problem_init (&pb, W, 3, rows, cols, 1 + k % 3, MUON_ZERO_ORDER_GIVEN);
      muon_comm *c = NULL;
      muon_zero_plan *P = NULL;
      T_EQ_INT (muon_comm_sim_create (ctx, W, &c), MUON_OK);
      T_EQ_INT (muon_zero_plan_create_bucketed (ctx, pb.L, v, bucket, &P), MUON_OK);
      muon_zero_step_opts o;
      muon_zero_step_opts_default (&o);
      o.variant = v;
      o.bucket_size = bucket;
      if (bucket)
      {
        T_EQ_INT (P->lpt_nbuckets, W <= 2 ? 2 : 1);
        o.bucket_size = 0;
        T_EQ_INT (muon_zero_step_check (ctx, P, &o), MUON_ERR_BADARG);
        T_EQ_STR (muon_ctx_last_error (ctx), "the options' bucket size 0 is not the plan's 20");
        o.bucket_size = bucket;
      }
      o.period = 2;
      o.update.ns.precision = MUON_PREC_DOUBLE;
      double *mom[MAXW], *upd[MAXW], got[64];
      muon_darray *g[MAXW * MAXP], *dm[MAXW], *du[MAXW];
      muon_zero_rank_stats sh[MAXW], sd[MAXW];
      for (int i = 0; i < W * 3; i++)
        g[i] = dcol (pb.g[i], rows[i % 3], cols[i % 3]);
      for (int r = 0; r < W; r++)
      {
        mom[r] = calloc (P->momentum_len[r] + 1, sizeof (double));
        upd[r] = calloc (P->owned_len[r] + 1, sizeof (double));
        dm[r] = P->momentum_len[r] ? dcol (NULL, P->momentum_len[r], 1) : NULL;
        du[r] = P->owned_len[r] ? dcol (NULL, P->owned_len[r], 1) : NULL;
      }
      for (int step = 0; step < 2; step++)
      {
        o.step = step;                  // muon_bp: a full step, then a block step
        T_EQ_INT (muon_zero_step (ctx, c, P, &o, (const double *const *) pb.g, mom, upd, sh),
                  MUON_OK);
        T_EQ_INT (muon_zero_step_device (ctx, c, P, &o, (const muon_darray *const *) g, dm, du,
                                         sd), MUON_OK);
        for (int r = 0; r < W; r++)
        {
          T_ASSERT (sd[r].ns_calls == sh[r].ns_calls
                    && memcmp (&sd[r].comm, &sh[r].comm, sizeof sh[r].comm) == 0);
          if (bucket)                   // one reduce-scatter a bucket
            T_EQ_INT (sh[r].comm.calls[MUON_COLL_REDUCE_SCATTER], P->lpt_nbuckets);
          muon_tensor t = muon_tensor_matrix (MUON_F64, got, P->owned_len[r], 1);
          if (du[r] && P->owned_len[r] <= 64)
          {
            T_EQ_INT (muon_darray_download (ctx, du[r], &t), MUON_OK);
            T_ASSERT (memcmp (got, upd[r], P->owned_len[r] * sizeof *got) == 0);
          }
        }
      }
      // errors: another design, a single gradient, the simulated ranks moving device memory
      o.variant = P->variant == MUON_ZERO_REFERENCE ? MUON_ZERO12_ALLREDUCE : MUON_ZERO_REFERENCE;
      o.step = 0;
      T_EQ_INT (muon_zero_step_device (ctx, c, P, &o, (const muon_darray *const *) g, dm, du,
                                       NULL), MUON_ERR_BADARG);
      o.variant = P->variant;
      T_EQ_INT (muon_zero_step_device (ctx, c, P, &o, NULL, dm, du, NULL), MUON_ERR_NULLPTR);
      muon_darray *keep = g[0], *one = NULL;
      T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_SINGLE, rows[0], cols[0], 1,
                                    &one), MUON_OK);
      g[0] = one;
      T_EQ_INT (muon_zero_step_device (ctx, c, P, &o, (const muon_darray *const *) g, dm, du,
                                       NULL), MUON_ERR_BADTYPE);
      g[0] = keep;
      muon_darray_destroy (ctx, &one);
      double x = 0;
      T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CPU, MUON_COLL_ALL_GATHER, &x, &x, 1,
                                  MUON_F64), MUON_ERR_UNSUPPORTED);
      T_ASSERT (!muon_comm_moves (c, MUON_DEVICE_CUDA) && !muon_comm_moves (c, MUON_DEVICE_CPU));
      for (int i = 0; i < W * 3; i++)
        muon_darray_destroy (ctx, &g[i]);
      for (int r = 0; r < W; r++)
      {
        free (mom[r]);
        free (upd[r]);
        muon_darray_destroy (ctx, &dm[r]);
        muon_darray_destroy (ctx, &du[r]);
      }
      muon_zero_plan_destroy (&P);
      muon_comm_destroy (&c);
      problem_free (&pb);
    }
}

// The reference design's local ranks may pass one momentum buffer (DDP's equal copies): it is
// updated once.  Ranks 0 and 2 of 3 share one, rank 1 has its own with other numbers; each
// rank's update and momentum against muon_update on the average gradient ((g0 + g1) + g2) / 3
// (the simulator's rank-order sum, one division), two steps chained; the device step (CPU
// stand-in) with the same sharing bit for bit the host's, its NS counts the host's.  (The
// host took rank 2's update from U after rank 1's had overwritten it; the device step
// updated the shared momentum once per rank.)
static void test_shared_reference_momentum (void)
{
  enum { W = 3, NP = 2 };
  const size_t rows[NP] = { 5, 3 }, cols[NP] = { 4, 6 };
  problem pb;
  problem_init (&pb, W, NP, rows, cols, 1, MUON_ZERO_ORDER_GIVEN);
  muon_comm *c = NULL;
  muon_zero_plan *P = NULL;
  T_EQ_INT (muon_comm_sim_create (ctx, W, &c), MUON_OK);
  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, MUON_ZERO_REFERENCE, &P), MUON_OK);
  muon_zero_step_opts o;
  muon_zero_step_opts_default (&o);
  o.variant = MUON_ZERO_REFERENCE;
  o.update.ns.precision = MUON_PREC_DOUBLE;
  size_t ML = P->momentum_len[0];
  T_ASSERT (P->momentum_len[1] == ML && P->momentum_len[2] == ML);
  double *hm[2], *em[2], *hu[W], got[64], avg[64];
  muon_darray *g[W * NP], *dm[2], *du[W];
  for (int k = 0; k < 2; k++)
  {
    hm[k] = calloc (ML, sizeof (double));
    em[k] = calloc (ML, sizeof (double));
    for (size_t i = 0; k == 1 && i < ML; i++)       // rank 1's own numbers
      hm[1][i] = em[1][i] = 0.25 * t_urand ();
    dm[k] = dcol (hm[k], ML, 1);
  }
  for (int i = 0; i < W * NP; i++)
    g[i] = dcol (pb.g[i], rows[i % NP], cols[i % NP]);
  for (int r = 0; r < W; r++)
  {
    hu[r] = calloc (P->owned_len[r] + 1, sizeof (double));
    du[r] = dcol (NULL, P->owned_len[r], 1);
  }
  double *hmom[W] = { hm[0], hm[1], hm[0] };
  muon_darray *dmom[W] = { dm[0], dm[1], dm[0] };
  muon_zero_rank_stats sh[W], sd[W];
  for (int step = 0; step < 2; step++)
  {
    o.step = step;
    T_EQ_INT (muon_zero_step (ctx, c, P, &o, (const double *const *) pb.g, hmom, hu, sh),
              MUON_OK);
    T_EQ_INT (muon_zero_step_device (ctx, c, P, &o, (const muon_darray *const *) g, dmom, du,
                                     sd), MUON_OK);
    for (size_t p = 0; p < NP; p++)
    {
      size_t n = rows[p] * cols[p], at = P->momentum_at[p];   // rank 0's; all hold all
      for (size_t i = 0; i < n; i++)
        avg[i] = ((pb.g[p][i] + pb.g[NP + p][i]) + pb.g[2 * NP + p][i]) / W;
      double eu[2][64];                             // the shared momentum's, rank 1's
      for (int k = 0; k < 2; k++)
      {
        muon_tensor tg = muon_tensor_matrix (MUON_F64, avg, rows[p], cols[p]);
        muon_tensor tm = muon_tensor_matrix (MUON_F64, em[k] + at, rows[p], cols[p]);
        muon_tensor tu = muon_tensor_matrix (MUON_F64, eu[k], rows[p], cols[p]);
        T_EQ_INT (muon_update (ctx, &tg, &tm, &tu, &o.update), MUON_OK);
      }
      for (int r = 0; r < W; r++)
      {
        // rank r's span of p, row-major, in its update buffer
        muon_zero_span sp = P->owned[(size_t) r * NP + p];
        size_t off = 0;
        for (size_t q = 0; q < p; q++)
          off += P->owned[(size_t) r * NP + q].stop - P->owned[(size_t) r * NP + q].start;
        int same = 1;
        for (size_t k = sp.start; k < sp.stop; k++)
          same &= hu[r][off + k - sp.start]
                  == eu[r == 1][(k % cols[p]) * rows[p] + k / cols[p]];
        T_ASSERT_MSG (same, "step %d, matrix %zu, rank %d: the update", step, p, r);
      }
    }
    T_ASSERT (memcmp (hm[0], em[0], ML * sizeof (double)) == 0);
    T_ASSERT (memcmp (hm[1], em[1], ML * sizeof (double)) == 0);
    for (int k = 0; k < 2; k++)
    {
      muon_tensor t = muon_tensor_matrix (MUON_F64, got, ML, 1);
      T_EQ_INT (muon_darray_download (ctx, dm[k], &t), MUON_OK);
      T_ASSERT_MSG (memcmp (got, hm[k], ML * sizeof *got) == 0, "step %d: device momentum %d",
                    step, k);
    }
    for (int r = 0; r < W; r++)
    {
      muon_tensor t = muon_tensor_matrix (MUON_F64, got, P->owned_len[r], 1);
      T_EQ_INT (muon_darray_download (ctx, du[r], &t), MUON_OK);
      T_ASSERT_MSG (memcmp (got, hu[r], P->owned_len[r] * sizeof *got) == 0,
                    "step %d: device update of rank %d", step, r);
      T_EQ_INT (sd[r].ns_calls, sh[r].ns_calls);
      T_EQ_INT (sh[r].ns_calls, NP);
    }
  }
  for (int k = 0; k < 2; k++)
  {
    free (hm[k]);
    free (em[k]);
    muon_darray_destroy (ctx, &dm[k]);
  }
  for (int r = 0; r < W; r++)
  {
    free (hu[r]);
    muon_darray_destroy (ctx, &du[r]);
  }
  for (int i = 0; i < W * NP; i++)
    muon_darray_destroy (ctx, &g[i]);
  muon_zero_plan_destroy (&P);
  muon_comm_destroy (&c);
  problem_free (&pb);
}

// The device step refuses what the host step refuses of its buffers' memory, with the same
// status and message, before anything is written: two local ranks' momentum arrays or
// update arrays that are one array (the reference design's one momentum excepted), a
// gradient that is a momentum or update array.  (The device step returned OK for all of
// them, updating a shared array once per rank.)  One 4 x 4 matrix on 2 ranks: the arrays
// whose length is 16 are made 4 x 4, so that they can stand for a gradient.
static void test_device_sharing (void)
{
  enum { W = 2 };
  const size_t rows[] = { 4 }, cols[] = { 4 };
  for (int k = 0; k < MUON_ZERO_VARIANT_COUNT; k++)
  {
    muon_zero_variant v = (muon_zero_variant) k;
    problem pb;
    problem_init (&pb, W, 1, rows, cols, 1 + k % 3, MUON_ZERO_ORDER_GIVEN);
    muon_comm *c = NULL;
    muon_zero_plan *P = NULL;
    T_EQ_INT (muon_comm_sim_create (ctx, W, &c), MUON_OK);
    T_EQ_INT (muon_zero_plan_create (ctx, pb.L, v, &P), MUON_OK);
    muon_zero_step_opts o;
    muon_zero_step_opts_default (&o);
    o.variant = v;
    double hm[W][64] = { { 0 } }, hu[W][64] = { { 0 } }, got[64];
    muon_darray *g[W], *dm[W], *du[W];
    T_ASSERT (P->momentum_len[0] <= 64 && P->momentum_len[1] <= 64);
    for (int r = 0; r < W; r++)
    {
      size_t m = P->momentum_len[r], u = P->owned_len[r];
      g[r] = dcol (pb.g[r], 4, 4);
      dm[r] = m == 16 ? dcol (NULL, 4, 4) : m ? dcol (NULL, m, 1) : NULL;
      du[r] = u == 16 ? dcol (NULL, 4, 4) : u ? dcol (NULL, u, 1) : NULL;
    }
    // case: 0 one momentum, 1 one update array, 2 a gradient that is rank 0's momentum,
    // 3 one that is rank 1's update array
    for (int cs = 0; cs < 4; cs++)
    {
      double *hmom[W] = { hm[0], hm[1] }, *hupd[W] = { hu[0], hu[1] };
      const double *hg[W] = { pb.g[0], pb.g[1] };
      muon_darray *dmom[W] = { dm[0], dm[1] }, *dupd[W] = { du[0], du[1] };
      const muon_darray *dg[W] = { g[0], g[1] };
      int can = 1;
      switch (cs)
      {
        case 0: can = dm[0] && P->momentum_len[1] == P->momentum_len[0];
                hmom[1] = hm[0]; dmom[1] = dm[0]; break;
        case 1: can = du[0] && P->owned_len[1] == P->owned_len[0];
                hupd[1] = hu[0]; dupd[1] = du[0]; break;
        case 2: can = P->momentum_len[0] == 16; hg[1] = hm[0]; dg[1] = dm[0]; break;
        case 3: can = P->owned_len[1] == 16; hg[0] = hu[1]; dg[0] = du[1]; break;
      }
      if (!can)
        continue;
      for (int r = 0; r < W; r++)                    // (the reference's case 0 ran)
        if (dm[r])
          T_EQ_INT (muon_darray_fill (ctx, dm[r], MUON_FILL_ZEROS, 0), MUON_OK);
      muon_status a = muon_zero_step (ctx, c, P, &o, hg, hmom, hupd, NULL);
      char msg[256];
      snprintf (msg, sizeof msg, "%s", muon_ctx_last_error (ctx));
      muon_status s = muon_zero_step_device (ctx, c, P, &o, dg, dmom, dupd, NULL);
      T_ASSERT_MSG (s == a, "%s, case %d: device %d, host %d", muon_names
                    (MUON_LIST_ZERO_VARIANT, k), cs, (int) s, (int) a);
      if (v == MUON_ZERO_REFERENCE && cs == 0)
      {
        T_EQ_INT (s, MUON_OK);                       // test_shared_reference_momentum
        continue;
      }
      T_EQ_INT (s, MUON_ERR_BADARG);
      T_EQ_STR (muon_ctx_last_error (ctx), msg);
      T_EQ_STR (muon_ctx_last_error (ctx), cs < 2
                ? "the momentum and update buffers of the local ranks must not overlap"
                : "a gradient must not share memory with a momentum or update buffer");
      for (int r = 0; r < W; r++)                    // nothing written
        if (dm[r])
        {
          muon_darray_info in;
          T_EQ_INT (muon_darray_describe (dm[r], &in), MUON_OK);
          muon_tensor t = muon_tensor_matrix (MUON_F64, got, in.rows, in.cols);
          T_EQ_INT (muon_darray_download (ctx, dm[r], &t), MUON_OK);
          for (size_t i = 0; i < P->momentum_len[r]; i++)
            T_ASSERT (got[i] == 0);
        }
    }
    for (int r = 0; r < W; r++)
    {
      muon_darray_destroy (ctx, &g[r]);
      muon_darray_destroy (ctx, &dm[r]);
      muon_darray_destroy (ctx, &du[r]);
    }
    muon_zero_plan_destroy (&P);
    muon_comm_destroy (&c);
    problem_free (&pb);
  }
}

int main (int argc, char **argv)
{
  (void) argc;
  if (muon_ctx_create (&ctx) != MUON_OK)
    return 1;
  // the stream where test_zero_step_api.c's first tests (from t_rng = 11) left it when these
  // ran there (one binary until they were split): each test draws the numbers it drew then
  t_rng = 3802761561169009763ull;
  T_RUN (test_device_step);
  T_RUN (test_shared_reference_momentum);
  T_RUN (test_device_sharing);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
