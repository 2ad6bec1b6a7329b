/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_zero_step_api.c - the distributed Muon step's API (core/zero/zero_step_api.c): the
 * default design, every error code, muon_zero_step_check, the simulated communicator,
 * muon_zero_assemble's overlaps and a CUDA back end that cannot load.  The step on device
 * arrays (the CPU stand-in device) against the host step: test_zero_step_device.c; the
 * step's numbers: test_zero_step.c.
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
  // the stream where test_zero_step_device.c's tests left it when they ran here, between
  // these (one binary until they were split): each test draws the numbers it drew then
  t_rng = 13409924384096505611ull;
  T_RUN (test_assemble_overlap);
  T_RUN (test_missing_backend);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
