/* test_zero_step_api.c - the distributed Muon step's API (core/zero/zero_step_api.c,
 * zero_step_dev*.c): the default design, every error code, the simulated communicator, and
 * the step on device arrays (the CPU stand-in device) equal to the host step.  The step's
 * numbers: test_zero_step.c.
 */
#define _POSIX_C_SOURCE 200112L   // setenv, unsetenv
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "zero_problem.h"

//---- errors -------------------------------------------------------------------------------

// One default design, the C one (zero_muon_step's Variant and zero_cost's single-design
// default read it through the catalogue): the ZeRO-1/2 all-reduce.
static void test_defaults (void)
{
  muon_zero_step_opts o;
  muon_zero_cost_opts co;
  muon_zero_step_opts_default (&o);
  muon_zero_cost_opts_default (&co);
  T_EQ_INT (o.variant, MUON_ZERO12_ALLREDUCE);
  T_EQ_INT (co.design, MUON_ZERO12_ALLREDUCE);
}

// What each design runs Newton-Schulz on (zero_muon_step's divergence bound reads it): the
// slice-only bug (DeepSpeed #7807's fix attempt) its pieces' rows, MuonBP its row shards on
// block steps, every other design whole blocks.
static void test_ns_scope (void)
{
  for (int v = 0; v < MUON_ZERO_VARIANT_COUNT; v++)
  {
    muon_zero_ns_scope k = (muon_zero_ns_scope) -1;
    T_EQ_INT (muon_zero_variant_ns_scope ((muon_zero_variant) v, &k), MUON_OK);
    T_EQ_INT (k, v == MUON_ZERO2_SLICE_ONLY ? MUON_ZERO_NS_PIECE_ROWS
                 : v == MUON_ZERO_MUON_BP   ? MUON_ZERO_NS_SHARD_ROWS : MUON_ZERO_NS_BLOCKS);
  }
  muon_zero_ns_scope k = MUON_ZERO_NS_BLOCKS;
  T_EQ_INT (muon_zero_variant_ns_scope (MUON_ZERO_REFERENCE, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_variant_ns_scope ((muon_zero_variant) MUON_ZERO_VARIANT_COUNT, &k),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_zero_variant_ns_scope ((muon_zero_variant) -1, &k), MUON_ERR_BADARG);
  T_EQ_INT (k, MUON_ZERO_NS_BLOCKS);                   // untouched on error
}

static void test_errors (void)
{
  problem pb;
  size_t rows[] = { 3, 2 }, cols[] = { 4, 5 };
  problem_init (&pb, 2, 2, rows, cols, 2, MUON_ZERO_ORDER_GIVEN);
  muon_zero_plan *P = NULL;
  muon_comm *c = NULL, *c3 = NULL;
  T_EQ_INT (muon_zero_plan_create (NULL, pb.L, MUON_ZERO_REFERENCE, &P), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_plan_create (ctx, NULL, MUON_ZERO_REFERENCE, &P), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, (muon_zero_variant) 42, &P), MUON_ERR_BADARG);
  T_ASSERT (P == NULL);
  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, MUON_ZERO2_SLICE_ONLY, &P), MUON_OK);
  T_EQ_INT (muon_comm_sim_create (ctx, 2, &c), MUON_OK);
  T_EQ_INT (muon_comm_sim_create (ctx, 3, &c3), MUON_OK);
  muon_zero_step_opts o;
  muon_zero_step_opts_default (&o);
  double m[2][32] = { { 0 } }, u[2][32];
  double *mom[3] = { m[0], m[1], m[1] }, *upd[3] = { u[0], u[1], u[1] };
  const double *const *g = (const double *const *) pb.g;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADARG);  // variant
  o.variant = MUON_ZERO2_SLICE_ONLY;
  T_EQ_INT (muon_zero_step (ctx, c3, P, &o, g, mom, upd, NULL), MUON_ERR_BADARG); // world
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, NULL, mom, upd, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_step (ctx, c, NULL, &o, g, mom, upd, NULL), MUON_ERR_NULLPTR);
  size_t split[] = { 1, 2 };
  o.update.split_rows = split;
  o.update.nsplit = 2;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADARG);  // slices
  o.update.nsplit = 0;
  o.update.arith = MUON_ARITH_TORCH;     // the steps' momentum is fp64: torch's is refused
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_UNSUPPORTED);
  T_EQ_STR (muon_ctx_last_error (ctx), "a distributed step computes its momentum in fp64: "
                                       "momentum arithmetic 'torch' is muon_update's only");
  // an arithmetic that is none at all: BADARG, as muon_update says (was UNSUPPORTED "'?'")
  o.update.arith = (muon_momentum_arith) 9;
  T_EQ_INT (muon_zero_step_check (ctx, P, &o), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "unknown momentum arithmetic 9");
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "unknown momentum arithmetic 9");
  o.update.arith = MUON_ARITH_FP64;
  // blocks per matrix: experts must divide the rows, splits sum to a page, and the slice-
  // only design (row blocks of pieces) takes none
  muon_zero_blocks b[8] = { { 1, NULL, 0 } };
  for (size_t p = 1; p < pb.np; p++)
    b[p] = b[0];
  o.blocks = b;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_OK);
  b[0].experts = 0;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "matrix 1: experts must be at least 1");
  b[0].experts = pb.rows[0] + 1;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADSHAPE);
  b[0].experts = 1;
  b[0].split = split;
  b[0].nsplit = 1;                                  // 1 row of pb.rows[0]
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADSHAPE);
  b[0].split = NULL;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_NULLPTR);
  b[0].nsplit = 0;
  b[0].experts = pb.rows[0];
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADARG);  // slices
  o.blocks = NULL;
  o.update.beta = 1.5;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADARG);
  o.update.beta = 0.9;
  o.pad_count = (muon_zero_pad_count) 7;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADARG);
  o.pad_count = MUON_ZERO_PADS_DEEPSPEED;
  o.period = 0;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADARG);
  o.period = 1;
  o.step = -1;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADARG);
  o.step = 0;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_OK);
  double *full[2] = { u[0], u[1] };
  T_EQ_INT (muon_zero_assemble (ctx, c3, P, (const double *const *) upd, full), MUON_ERR_BADARG);
  T_EQ_INT (muon_zero_assemble (ctx, c, P, NULL, full), MUON_ERR_NULLPTR);
  double *part[2] = { u[0], NULL };                // an element NULL (it crashed)
  T_EQ_INT (muon_zero_assemble (ctx, c, P, (const double *const *) upd, part), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_assemble (ctx, c, P, (const double *const *) part, full), MUON_ERR_NULLPTR);
  // two ranks' buffers sharing memory: BADARG before anything is written (it returned OK
  // with a wrong update in most designs)
  double *one_m[2] = { m[0], m[0] }, *one_u[2] = { u[0], u[0] };
  double *cross[2] = { m[1] + 1, u[1] };           // rank 0's momentum over rank 1's
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, one_m, upd, NULL), MUON_ERR_BADARG);
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, one_u, NULL), MUON_ERR_BADARG);
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, cross, upd, NULL), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx),
            "the momentum and update buffers of the local ranks must not overlap");
  // a gradient inside a buffer the step writes (it returned OK and overwrote the caller's
  // const gradient); gradients sharing memory with each other are fine
  const double *ga[4] = { g[0], g[1], g[2], g[3] };
  ga[1] = u[0] + 2;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, ga, mom, upd, NULL), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx),
            "a gradient must not share memory with a momentum or update buffer");
  ga[1] = g[1];
  ga[2] = m[1];
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, ga, mom, upd, NULL), MUON_ERR_BADARG);
  ga[2] = g[0];                                    // rank 1's first gradient is rank 0's
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, ga, mom, upd, NULL), MUON_OK);

  int v;
  T_EQ_INT (muon_name_lookup (MUON_LIST_ZERO_VARIANT, "moonlight_gather", &v), MUON_OK);
  T_EQ_INT (v, MUON_ZERO_MOONLIGHT_GATHER);
  T_EQ_INT (muon_name_lookup (MUON_LIST_ZERO_VARIANT, "zero4", &v), MUON_ERR_BADARG);
  T_EQ_STR (muon_names (MUON_LIST_ZERO_VARIANT, MUON_ZERO3_RR_ALIASED),
            "zero3_round_robin_aliased_pads");
  T_ASSERT (muon_names (MUON_LIST_ZERO_VARIANT, 99) == NULL);
  T_EQ_INT (muon_zero_plan_destroy (NULL), MUON_ERR_NULLPTR);
  muon_zero_plan_destroy (&P);
  // MuonBP's block steps cut the rows: split row blocks are refused
  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, MUON_ZERO_MUON_BP, &P), MUON_OK);
  o.variant = MUON_ZERO_MUON_BP;
  o.update.split_rows = split;
  o.update.nsplit = 2;
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_BADARG);
  o.update.nsplit = 0;
  muon_zero_plan_destroy (&P);
  muon_comm_destroy (&c);
  muon_comm_destroy (&c3);
  problem_free (&pb);
}

// muon_zero_step_check: the checks of the plan and the options a step makes before anything
// moves, with no communicator and no buffer (zero_muon_step's skipped step runs them): the
// same status and message as the step for each option it refuses, OK where the step runs.
static void test_step_check (void)
{
  problem pb;
  size_t rows[] = { 3, 2 }, cols[] = { 4, 5 };
  problem_init (&pb, 2, 2, rows, cols, 2, MUON_ZERO_ORDER_GIVEN);
  muon_zero_plan *P = NULL;
  muon_comm *c = NULL;
  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, MUON_ZERO2_SLICE_ONLY, &P), MUON_OK);
  T_EQ_INT (muon_comm_sim_create (ctx, 2, &c), MUON_OK);
  muon_zero_step_opts o;
  muon_zero_step_opts_default (&o);
  T_EQ_INT (muon_zero_step_check (NULL, P, &o), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_step_check (ctx, NULL, &o), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_step_check (ctx, P, NULL), MUON_ERR_NULLPTR);
  double m[2][32] = { { 0 } }, u[2][32];
  double *mom[2] = { m[0], m[1] }, *upd[2] = { u[0], u[1] };
  const double *const *g = (const double *const *) pb.g;
  muon_zero_blocks b[2] = { { 1, NULL, 0 }, { 1, NULL, 0 } };
  size_t split[] = { 1, 2 };
  double tx[1];
  muon_ns_trace tr = { .x = tx };
  for (int k = 0; k < 10; k++)
  {
    muon_zero_step_opts_default (&o);
    o.variant = MUON_ZERO2_SLICE_ONLY;
    b[0] = (muon_zero_blocks) { 1, NULL, 0 };
    switch (k)
    {
      case 0: o.variant = MUON_ZERO12_ALLREDUCE; break;      // not the plan's
      case 1: o.update.split_rows = split; o.update.nsplit = 2; break;
      case 2: o.blocks = b; b[0].experts = 0; break;
      case 3: o.blocks = b; b[0].experts = 3; break;           // slice-only: no experts
      case 4: o.pad_count = (muon_zero_pad_count) 7; break;
      case 5: o.period = 0; break;
      case 6: o.block_scale = 0; break;
      case 7: o.update.beta = 1.5; break;
      case 8: o.blocks = b; break;                             // fine
      case 9: o.update.ns.trace = &tr; break;                  // one call's snapshots
    }
    muon_status a = muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL);
    char msg[256];
    snprintf (msg, sizeof msg, "%s", muon_ctx_last_error (ctx));
    muon_status s = muon_zero_step_check (ctx, P, &o);
    T_EQ_INT (s, a);
    T_EQ_INT (s, k == 8 ? MUON_OK : k == 3 ? MUON_ERR_BADARG
                 : k == 9 ? MUON_ERR_UNSUPPORTED : s);
    T_ASSERT (k == 8 || s < 0);
    if (s < 0)
      T_EQ_STR (muon_ctx_last_error (ctx), msg);
  }
  muon_zero_plan_destroy (&P);
  muon_comm_destroy (&c);
  problem_free (&pb);
}

// The simulated communicator the context keeps: the same one while the world stays, a new
// one for another world; muon_ctx_release frees it (a cache).
static void test_sim_comm (void)
{
  muon_ctx *cx = NULL;
  T_EQ_INT (muon_ctx_create (&cx), MUON_OK);
  muon_comm *s1 = NULL, *s2 = NULL;
  T_EQ_INT (muon_zero_comm_sim_cached (cx, 4, &s1), MUON_OK);
  T_EQ_INT (muon_zero_comm_sim_cached (cx, 4, &s2), MUON_OK);
  T_ASSERT (s1 == s2 && muon_comm_size (s1) == 4 && muon_comm_local_ranks (s1) == 4);
  T_EQ_INT (muon_zero_comm_sim_cached (cx, 3, &s2), MUON_OK);
  T_EQ_INT (muon_comm_size (s2), 3);
  T_EQ_INT (muon_zero_comm_sim_cached (cx, 0, &s2), MUON_ERR_BADARG);
  T_ASSERT (s2 == NULL);
  T_EQ_INT (muon_zero_comm_sim_cached (cx, 3, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_comm_sim_cached (cx, 2, &s1), MUON_OK);
  T_EQ_INT (muon_ctx_release (cx, 0, NULL), MUON_OK);
  muon_ctx_destroy (&cx);
}

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

// muon_zero_assemble writes the full matrices from the update buffers: a full matrix over
// an update buffer or over another full matrix is refused before anything is written (it
// returned OK with a wrong matrix); next to each other they are fine.
static void test_assemble_overlap (void)
{
  problem pb;
  size_t rows[] = { 4, 3 }, cols[] = { 6, 5 };
  problem_init (&pb, 2, 2, rows, cols, 2, MUON_ZERO_ORDER_GIVEN);
  muon_zero_plan *P = NULL;
  muon_comm *c = NULL;
  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, MUON_ZERO12_ALLREDUCE, &P), MUON_OK);
  T_EQ_INT (muon_comm_sim_create (ctx, 2, &c), MUON_OK);
  muon_zero_step_opts o;
  muon_zero_step_opts_default (&o);
  double m[2][64] = { { 0 } }, buf[160] = { 0 }, good[2][24], before[160];
  T_ASSERT (P->owned_len[0] + P->owned_len[1] == 24 + 15 && P->owned_len[0] <= 32);
  double *mom[2] = { m[0], m[1] }, *upd[2] = { buf, buf + 32 };   // ranks' updates: 0.., 32..
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, (const double *const *) pb.g, mom, upd, NULL),
            MUON_OK);
  const double *const *up = (const double *const *) upd;
  double *fg[2] = { good[0], good[1] };
  T_EQ_INT (muon_zero_assemble (ctx, c, P, up, fg), MUON_OK);
  double *cases[4][2] = {
    { buf + 4, buf + 100 },             // matrix 0 over rank 0's tail and rank 1's head
    { buf + 100, buf + 40 },            // matrix 1 over rank 1's buffer
    { buf + 100, buf + 110 },           // the two full matrices share memory
    { buf + 100, buf + 123 },           // one element shared
  };
  const char *why[4] = {
    "a full buffer must not share memory with a local rank's update buffer",
    "a full buffer must not share memory with a local rank's update buffer",
    "the full buffers must not overlap each other",
    "the full buffers must not overlap each other",
  };
  for (int k = 0; k < 4; k++)
  {
    memcpy (before, buf, sizeof buf);
    T_EQ_INT (muon_zero_assemble (ctx, c, P, up, cases[k]), MUON_ERR_BADARG);
    T_EQ_STR (muon_ctx_last_error (ctx), why[k]);
    T_ASSERT_MSG (memcmp (before, buf, sizeof buf) == 0, "case %d: written", k);
  }
  // next to each other and to the update buffers: the same matrices
  double *next[2] = { buf + 32 + P->owned_len[1], buf + 32 + P->owned_len[1] + 24 };
  T_EQ_INT (muon_zero_assemble (ctx, c, P, up, next), MUON_OK);
  T_ASSERT (memcmp (next[0], good[0], sizeof good[0]) == 0
            && memcmp (next[1], good[1], 15 * sizeof (double)) == 0);
  muon_zero_plan_destroy (&P);
  muon_comm_destroy (&c);
  problem_free (&pb);
}

// A CUDA back end asked for (update.ns.device) that cannot load (MUON_CUDA_LIB names a
// library that is not there: NOTBUILT with or without a GPU) is refused before any rank's
// momentum moves, by every design, and by muon_zero_step_check alike; the device step, whose
// Newton-Schulz runs where its arrays are, does not ask for it.
static void test_missing_backend (void)
{
  const char *was = getenv ("MUON_CUDA_LIB");
  char keep[4096] = "";
  if (was)
    snprintf (keep, sizeof keep, "%s", was);
  setenv ("MUON_CUDA_LIB", "/nonexistent/libmuon_cuda.so", 1);
  muon_ctx *cx = NULL;
  T_EQ_INT (muon_ctx_create (&cx), MUON_OK);               // loads on first use: after setenv
  const size_t rows[] = { 4, 5 }, cols[] = { 6, 3 };
  for (int k = 0; k < MUON_ZERO_VARIANT_COUNT; k++)
  {
    muon_zero_variant v = (muon_zero_variant) k;
    problem pb;
    problem_init (&pb, 2, 2, rows, cols, 2, MUON_ZERO_ORDER_GIVEN);
    muon_comm *c = NULL;
    muon_zero_plan *P = NULL;
    T_EQ_INT (muon_comm_sim_create (cx, 2, &c), MUON_OK);
    T_EQ_INT (muon_zero_plan_create (cx, pb.L, v, &P), MUON_OK);
    muon_zero_step_opts o;
    muon_zero_step_opts_default (&o);
    o.variant = v;
    o.update.ns.device = MUON_DEVICE_CUDA;
    double *mom[2], *m0[2], *upd[2];
    muon_darray *g[2 * 2], *dm[2], *du[2];
    for (int r = 0; r < 2; r++)
    {
      size_t n = P->momentum_len[r] + 1;
      mom[r] = malloc (n * sizeof (double));
      m0[r] = malloc (n * sizeof (double));
      for (size_t i = 0; i < n; i++)
        mom[r][i] = m0[r][i] = 0.5 + 0.25 * (double) i;
      upd[r] = calloc (P->owned_len[r] + 1, sizeof (double));
    }
    T_EQ_INT (muon_zero_step (cx, c, P, &o, (const double *const *) pb.g, mom, upd, NULL),
              MUON_ERR_NOTBUILT);
    for (int r = 0; r < 2; r++)
      T_ASSERT_MSG (memcmp (mom[r], m0[r], (P->momentum_len[r] + 1) * sizeof (double)) == 0,
                    "%s: rank %d's momentum changed by a refused step",
                    muon_names (MUON_LIST_ZERO_VARIANT, k), r);
    T_EQ_INT (muon_zero_step_check (cx, P, &o), MUON_ERR_NOTBUILT);
    // the device step on the stand-in device ignores update.ns.device
    for (int i = 0; i < 2 * 2; i++)
    {
      g[i] = NULL;
      T_EQ_INT (muon_darray_create (cx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, rows[i % 2],
                                    cols[i % 2], 1, &g[i]), MUON_OK);
      muon_tensor t = muon_tensor_matrix (MUON_F64, pb.g[i], rows[i % 2], cols[i % 2]);
      T_EQ_INT (muon_darray_upload (cx, g[i], &t), MUON_OK);
    }
    for (int r = 0; r < 2; r++)
    {
      dm[r] = du[r] = NULL;
      if (P->momentum_len[r])
      {
        T_EQ_INT (muon_darray_create (cx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE,
                                      P->momentum_len[r], 1, 1, &dm[r]), MUON_OK);
        T_EQ_INT (muon_darray_fill (cx, dm[r], MUON_FILL_ZEROS, 0), MUON_OK);
      }
      if (P->owned_len[r])
        T_EQ_INT (muon_darray_create (cx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, P->owned_len[r],
                                      1, 1, &du[r]), MUON_OK);
    }
    muon_status s = muon_zero_step_device (cx, c, P, &o, (const muon_darray *const *) g, dm,
                                           du, NULL);
    // (ZERO3_RR_ALIASED: its rounds here mix sizes, an error of its own)
    T_ASSERT_MSG (s == MUON_OK || (v == MUON_ZERO3_RR_ALIASED && s == MUON_ERR_BADSHAPE),
                  "%s: device step %d (%s)", muon_names (MUON_LIST_ZERO_VARIANT, k), (int) s,
                  muon_ctx_last_error (cx));
    for (int i = 0; i < 2 * 2; i++)
      muon_darray_destroy (cx, &g[i]);
    for (int r = 0; r < 2; r++)
    {
      free (mom[r]);
      free (m0[r]);
      free (upd[r]);
      muon_darray_destroy (cx, &dm[r]);
      muon_darray_destroy (cx, &du[r]);
    }
    muon_zero_plan_destroy (&P);
    muon_comm_destroy (&c);
    problem_free (&pb);
  }
  muon_ctx_destroy (&cx);
  if (was)
    setenv ("MUON_CUDA_LIB", keep, 1);
  else
    unsetenv ("MUON_CUDA_LIB");
}

int main (int argc, char **argv)
{
  (void) argc;
  if (muon_ctx_create (&ctx) != MUON_OK)
    return 1;
  t_rng = 11;
  T_RUN (test_defaults);
  T_RUN (test_ns_scope);
  T_RUN (test_errors);
  T_RUN (test_step_check);
  T_RUN (test_sim_comm);
  T_RUN (test_device_step);
  T_RUN (test_shared_reference_momentum);
  T_RUN (test_device_sharing);
  T_RUN (test_assemble_overlap);
  T_RUN (test_missing_backend);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
