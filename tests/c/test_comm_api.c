/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_comm_api.c - the communicator layer's API around the collectives (core/comm/comm.c,
 * comm_coll.c): queries and the call and byte counters against the closed forms of
 * muon_comm.h, every error code, communicator specs, and the device-memory entry points.
 * The collectives' results: test_comm.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <limits.h>

#include "harness.h"
#include "muon.h"

// The NOMEM case asks for an impossible allocation: let ASan return NULL instead of aborting.
const char *__asan_default_options (void);
const char *__asan_default_options (void) { return "allocator_may_return_null=1"; }

static muon_ctx *ctx;

static void test_queries_and_counters (void)
{
  muon_comm *c = NULL;
  T_EQ_INT (muon_comm_sim_create (ctx, 5, &c), MUON_OK);
  if (!c) return;
  T_EQ_INT (muon_comm_size (c), 5);
  T_EQ_INT (muon_comm_local_ranks (c), 5);
  T_EQ_INT (muon_comm_rank (c, 3), 3);
  T_EQ_INT (muon_comm_rank (c, 5), -1);
  T_EQ_INT (muon_comm_rank (NULL, 0), -1);
  T_EQ_STR (muon_comm_name (c), "sim");
  T_EQ_INT (muon_comm_counts_measured (c), 1);
  T_EQ_INT (muon_comm_barrier (ctx, c), MUON_OK);
  T_EQ_INT (muon_comm_barrier (ctx, c), MUON_OK);
  muon_comm_counters k;
  T_EQ_INT (muon_comm_counters_get (ctx, c, 4, &k), MUON_OK);
  T_EQ_INT (k.calls[MUON_COLL_BARRIER], 2);
  T_EQ_INT (k.bytes_sent[MUON_COLL_BARRIER], 0);
  // count 0 is a call with no bytes (and NULL buffers are fine)
  T_EQ_INT (muon_comm_allreduce (ctx, c, NULL, NULL, 0, MUON_F32, MUON_REDUCE_SUM), MUON_OK);
  T_EQ_INT (muon_comm_counters_get (ctx, c, 0, &k), MUON_OK);
  T_EQ_INT (k.calls[MUON_COLL_ALLREDUCE], 1);
  T_EQ_INT (k.bytes_sent[MUON_COLL_ALLREDUCE], 0);
  T_EQ_INT (muon_comm_counters_reset (ctx, c), MUON_OK);
  T_EQ_INT (muon_comm_counters_get (ctx, c, 4, &k), MUON_OK);
  T_EQ_INT (k.calls[MUON_COLL_BARRIER], 0);
  muon_comm_destroy (&c);

  T_EQ_INT (muon_comm_self_create (ctx, &c), MUON_OK);
  if (!c) return;
  T_EQ_STR (muon_comm_name (c), "self");
  T_EQ_INT (muon_comm_size (c), 1);
  T_EQ_INT (muon_comm_local_ranks (c), 1);
  double x[3] = { 1, 2, 3 }, y[3];
  const void *send[1] = { x };
  void *recv[1] = { y };
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, 3, MUON_F64, MUON_REDUCE_AVG), MUON_OK);
  T_EQ_DBL (y[2], 3);
  T_EQ_INT (muon_comm_broadcast (ctx, c, recv, 3, MUON_F64, 0), MUON_OK);
  T_EQ_INT (muon_comm_counters_get (ctx, c, 0, &k), MUON_OK);
  T_EQ_INT (k.calls[MUON_COLL_ALLREDUCE] + k.calls[MUON_COLL_BROADCAST], 2);
  T_EQ_INT (k.bytes_sent[MUON_COLL_ALLREDUCE] + k.bytes_recv[MUON_COLL_ALLREDUCE], 0);
  muon_comm_destroy (&c);

  // the model: broadcast from root 2 of 4, ranks in chain order 2 3 0 1
  uint64_t s, r;
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_BROADCAST, 4, 1, 2, 10, MUON_F32, &s, &r),
            MUON_OK);
  T_EQ_INT (s, 0);
  T_EQ_INT (r, 40);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 4, 3, 0, 10, MUON_F64, &s, &r),
            MUON_OK);
  T_EQ_INT (s, (10 - 3 + 3 * 3) * 8);   // chunks 2 3 2 3: rank 3 owns 3 elements
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_BARRIER, 4, 3, 0, 10, MUON_F64, &s, &r),
            MUON_OK);
  T_EQ_INT (s + r, 0);
  T_EQ_STR (muon_names (MUON_LIST_COLL, MUON_COLL_REDUCE_SCATTER), "reduce_scatter");
  T_ASSERT (muon_names (MUON_LIST_COLL, MUON_COLL_COUNT) == NULL);
}

//---- errors -------------------------------------------------------------------------------

static void test_errors (void)
{
  muon_comm *c = NULL, *one = NULL;
  T_EQ_INT (muon_comm_sim_create (NULL, 2, &c), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_sim_create (ctx, 2, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_self_create (NULL, &c), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_self_create (ctx, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_sim_create (ctx, 0, &c), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_sim_create (ctx, MUON_COMM_MAX_WORLD + 1, &c), MUON_ERR_BADARG);
  T_ASSERT (c == NULL);
  T_EQ_INT (muon_comm_destroy (NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_destroy (&c), MUON_OK);

  T_EQ_INT (muon_comm_sim_create (ctx, 2, &c), MUON_OK);
  T_EQ_INT (muon_comm_sim_create (ctx, 1, &one), MUON_OK);
  if (!c || !one) return;
  double a[2][4] = { { 0 } }, b[2][4] = { { 0 } };
  const void *send[2] = { a[0], a[1] };
  void *recv[2] = { b[0], b[1] };
  const void *send_null[2] = { a[0], NULL };
  void *recv_null[2] = { b[0], NULL };
  void *slots[4] = { b[0], b[0] + 1, b[1], b[1] + 1 };

  T_EQ_INT (muon_comm_allreduce (NULL, c, send, recv, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, NULL, send, recv, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, c, NULL, recv, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, NULL, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send_null, recv, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv_null, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, 4, (muon_dtype) 5, 0), MUON_ERR_BADTYPE);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, 4, MUON_F64, (muon_reduce_op) 9),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, SIZE_MAX / 4, MUON_F64, 0),
            MUON_ERR_BADSHAPE);
  // rank 1 receiving into rank 0's buffer: no real rank can
  void *recv_shared[2] = { b[0], b[0] + 2 };
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv_shared, 4, MUON_F64, 0), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx),
            "allreduce: buffers of ranks 0 and 1 overlap; each rank's buffers must be its own");
  const void *send_shared[2] = { a[0], a[0] };
  T_EQ_INT (muon_comm_allreduce (ctx, c, send_shared, recv, 4, MUON_F64, 0), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_reduce_scatter (ctx, c, send, recv, 2, MUON_F64, (muon_reduce_op) 9),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_reduce_scatter (ctx, c, send, recv, 2, MUON_F32, 0), MUON_OK);
  T_EQ_INT (muon_comm_reduce_scatter (NULL, c, send, recv, 2, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_reduce_scatter (ctx, NULL, send, recv, 2, MUON_F64, 0),
            MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_gather (ctx, c, send, slots, 2, (muon_dtype) -1), MUON_ERR_BADTYPE);
  T_EQ_INT (muon_comm_all_gather (ctx, c, send, NULL, 2, MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_gather (NULL, c, send, slots, 2, MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_gather (ctx, NULL, send, slots, 2, MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_gather (ctx, c, send, slots, 1, MUON_F64), MUON_OK);
  T_EQ_INT (muon_comm_broadcast (ctx, c, recv, 4, MUON_F64, 2), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_broadcast (ctx, c, recv, 4, MUON_F64, -1), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_broadcast (ctx, c, recv_null, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_broadcast (NULL, c, recv, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_barrier (ctx, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_barrier (NULL, c), MUON_ERR_NULLPTR);

  // all_to_all: counts that disagree (rank 0 sends rank 1 two, rank 1 expects one), NULLs,
  // shared buffers, a bad dtype, overflowing counts
  size_t sc[4] = { 1, 2, 1, 1 }, rc[4] = { 1, 1, 1, 1 }, ok4[4] = { 1, 1, 1, 1 };
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send, sc, recv, rc, MUON_F64), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx),
            "all_to_all: rank 1 expects 1 elements from rank 0, which sends it 2");
  T_EQ_INT (muon_comm_all_to_all (NULL, c, send, ok4, recv, ok4, MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_to_all (ctx, NULL, send, ok4, recv, ok4, MUON_F64),
            MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send, NULL, recv, ok4, MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send_null, ok4, recv, ok4, MUON_F64),
            MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send, ok4, slots, ok4, MUON_F64),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send, ok4, recv, ok4, (muon_dtype) 7),
            MUON_ERR_BADTYPE);
  size_t zero[4] = { 0, 0, 0, 0 }, big[4] = { SIZE_MAX / 8, SIZE_MAX / 8, 0, 0 };
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send_null, zero, recv_null, zero, MUON_F64), MUON_OK);
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send, big, recv, ok4, MUON_F64), MUON_ERR_BADSHAPE);

  muon_comm_counters k;
  T_EQ_INT (muon_comm_counters_get (ctx, c, 2, &k), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_counters_get (ctx, c, -1, &k), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_counters_get (ctx, c, 0, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_counters_get (NULL, c, 0, &k), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_counters_reset (ctx, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_counters_reset (NULL, c), MUON_ERR_NULLPTR);
  uint64_t s, r;
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 4, 4, 0, 1, MUON_F64, &s, &r),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 0, 0, 0, 1, MUON_F64, &s, &r),
            MUON_ERR_BADARG);
  // past the world limit (the chain place overflowed an int), and counts whose bytes wrap
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_BROADCAST, INT_MAX, INT_MAX - 1, 0, 10,
                                   MUON_F64, &s, &r), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_ALL_GATHER, 3, 0, 0, (size_t) 1 << 62,
                                   MUON_F64, &s, &r), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_BROADCAST, MUON_COMM_MAX_WORLD,
                                   MUON_COMM_MAX_WORLD - 1, 0, 10, MUON_F64, &s, &r), MUON_OK);
  T_ASSERT (s == 0 && r == 80);                    // the end of the chain
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_BROADCAST, 4, 0, 4, 1, MUON_F64, &s, &r),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_COUNT, 4, 0, 0, 1, MUON_F64, &s, &r),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 4, 0, 0, 1, (muon_dtype) 3, &s,
                                   &r), MUON_ERR_BADTYPE);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 4, 0, 0, 1, MUON_F64, NULL, &r),
            MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_model_bytes (NULL, MUON_COLL_ALLREDUCE, 4, 0, 0, 1, MUON_F64, &s, &r),
            MUON_ERR_NULLPTR);

  // staging an impossible size (one rank, so no overlap check on the huge spans)
  size_t huge = SIZE_MAX / 8 - 1;
  const void *s1[1] = { a[0] };
  void *r1[1] = { a[0] };
  T_EQ_INT (muon_comm_allreduce (ctx, one, s1, r1, huge, MUON_F64, 0), MUON_ERR_NOMEM);
  T_EQ_INT (muon_comm_broadcast (ctx, one, r1, huge, MUON_F64, 0), MUON_ERR_NOMEM);
  muon_comm_destroy (&c);
  muon_comm_destroy (&one);
}

// muon_comm_spec: every accepted description and every message of a rejected one
// The device-memory API on communicators of this process: sim and self move no device
// memory (every call UNSUPPORTED, before anything moves), count as the model says, and
// reduce in the fixed order.
static void test_device_api (void)
{
  muon_comm *s = NULL, *one = NULL;
  T_EQ_INT (muon_comm_sim_create (ctx, 3, &s), MUON_OK);
  T_EQ_INT (muon_comm_self_create (ctx, &one), MUON_OK);
  double x[12] = { 0 }, y[12] = { 0 };
  size_t cnt[3] = { 1, 1, 1 };
  for (int d = 0; d < 2; d++)
  {
    muon_device dev = d ? MUON_DEVICE_CUDA : MUON_DEVICE_CPU;
    T_ASSERT (!muon_comm_moves (s, dev) && !muon_comm_moves (one, dev) && !muon_comm_moves (NULL, dev));
    T_EQ_INT (muon_comm_device (ctx, s, dev, MUON_COLL_ALL_GATHER, x, y, 1, MUON_F64),
              MUON_ERR_UNSUPPORTED);
    T_EQ_INT (muon_comm_device (ctx, one, dev, MUON_COLL_ALLREDUCE, x, y, 1, MUON_F64),
              MUON_ERR_UNSUPPORTED);
    T_EQ_INT (muon_comm_device_all_to_all (ctx, one, dev, x, cnt, y, cnt, MUON_F64),
              MUON_ERR_UNSUPPORTED);
  }
  T_EQ_INT (muon_comm_device (ctx, s, MUON_DEVICE_CPU, MUON_COLL_ALL_GATHER, NULL, y, 1,
                              MUON_F64), MUON_ERR_NULLPTR);
  // a device or collective that is none at all: BADARG naming it (the message used to
  // speak of "the CPU stand-in device's memory", UNSUPPORTED)
  T_EQ_INT (muon_comm_device (ctx, one, (muon_device) 9, MUON_COLL_ALLREDUCE, x, y, 1,
                              MUON_F64), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "unknown device 9");
  T_EQ_INT (muon_comm_device (ctx, one, MUON_DEVICE_CPU, (muon_coll) 99, x, y, 1, MUON_F64),
            MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "unknown collective 99");
  T_EQ_INT (muon_comm_device_all_to_all (ctx, s, (muon_device) 9, x, cnt, y, cnt, MUON_F64),
            MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "unknown device 9");
  T_EQ_INT (muon_comm_reduction_of (s), MUON_COMM_REDUCTION_FIXED);
  T_EQ_INT (muon_comm_reduction_of (NULL), MUON_COMM_REDUCTION_FIXED);
  // the reductions sim takes: fixed; library is not its; 9 is none at all
  T_EQ_INT (muon_comm_set_reduction (ctx, s, MUON_COMM_REDUCTION_FIXED), MUON_OK);
  T_EQ_INT (muon_comm_set_reduction (ctx, s, MUON_COMM_REDUCTION_LIBRARY), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "the sim communicator has no library reduction");
  T_EQ_INT (muon_comm_set_reduction (ctx, s, (muon_comm_reduction) 9), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "unknown reduction 9");
  T_EQ_INT (muon_comm_set_reduction (ctx, s, (muon_comm_reduction) -1), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "unknown reduction -1");
  // counted as the model: an allreduce of 12 doubles on every local rank
  muon_comm_counters_reset (ctx, s);
  T_EQ_INT (muon_comm_count (ctx, s, MUON_COLL_ALLREDUCE, 12, MUON_F64), MUON_OK);
  for (int l = 0; l < 3; l++)
  {
    muon_comm_counters c;
    uint64_t sent, recv;
    muon_comm_counters_get (ctx, s, l, &c);
    muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 3, l, 0, 12, MUON_F64, &sent, &recv);
    T_ASSERT (c.calls[MUON_COLL_ALLREDUCE] == 1 && c.bytes_sent[MUON_COLL_ALLREDUCE] == sent
              && c.bytes_recv[MUON_COLL_ALLREDUCE] == recv && sent == 16 * 8);
  }
  T_EQ_INT (muon_comm_count (ctx, s, MUON_COLL_COUNT, 1, MUON_F64), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_count (ctx, NULL, MUON_COLL_ALLREDUCE, 1, MUON_F64), MUON_ERR_NULLPTR);
  muon_comm_destroy (&s);
  muon_comm_destroy (&one);
}

static void test_spec (void)
{
  muon_comm_kind k;
  muon_comm_reduction r;
  static const struct { const char *kind, *red; int size; muon_comm_kind k; int r; } ok[] = {
    { "sim", "fixed", -1, MUON_COMM_SIM, MUON_COMM_REDUCTION_FIXED },
    { "sim", "fixed", MUON_COMM_MAX_WORLD, MUON_COMM_SIM, MUON_COMM_REDUCTION_FIXED },
    { "self", "fixed", 1, MUON_COMM_SELF, MUON_COMM_REDUCTION_FIXED },
    { "self", "fixed", -1, MUON_COMM_SELF, MUON_COMM_REDUCTION_FIXED },
    { "mpi", "fixed", 3, MUON_COMM_MPI, MUON_COMM_REDUCTION_FIXED },
    { "mpi", "mpi", -1, MUON_COMM_MPI, MUON_COMM_REDUCTION_LIBRARY },
    { "mpi", "library", -1, MUON_COMM_MPI, MUON_COMM_REDUCTION_LIBRARY },
    { "nccl", "nccl", -1, MUON_COMM_NCCL, MUON_COMM_REDUCTION_LIBRARY },
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
  {
    T_EQ_INT (muon_comm_spec (ctx, ok[i].kind, ok[i].red, ok[i].size, &k, &r), MUON_OK);
    T_EQ_INT (k, ok[i].k);
    T_EQ_INT (r, ok[i].r);
  }
  static const struct { const char *kind, *red; int size; const char *msg; } bad[] = {
    { "tcp", "fixed", -1, "unknown communicator kind 'tcp'" },
    { "sim", "mpi", 2, "a sim communicator has only the 'fixed' reduction" },
    { "self", "self", -1, "a self communicator has only the 'fixed' reduction" },
    { "self", "fixed", 2, "a self communicator has size 1, not 2" },
    { "self", "fixed", 0, "a self communicator has size 1, not 0" },
    { "self", "fixed", -100, "a self communicator has size 1, not -100" },
    { "sim", "fixed", 0, "the world size must be an integer in 1..65536" },
    { "sim", "fixed", MUON_COMM_MAX_WORLD + 1, "the world size must be an integer in 1..65536" },
    { "mpi", "nccl", -1, "the reduction of an mpi communicator must be 'fixed' or 'mpi'" },
    { "nccl", "max", -1, "the reduction of a nccl communicator must be 'fixed' or 'nccl'" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
  {
    T_EQ_INT (muon_comm_spec (ctx, bad[i].kind, bad[i].red, bad[i].size, &k, &r),
              MUON_ERR_BADARG);
    T_EQ_STR (muon_ctx_last_error (ctx), bad[i].msg);
  }
  T_EQ_INT (muon_comm_spec (NULL, "sim", "fixed", -1, &k, &r), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_spec (ctx, NULL, "fixed", -1, &k, &r), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_spec (ctx, "sim", NULL, -1, &k, &r), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_spec (ctx, "sim", "fixed", -1, NULL, &r), MUON_ERR_NULLPTR);
}

int main (int argc, char **argv)
{
  (void) argc;
  if (muon_ctx_create (&ctx) != MUON_OK)
    return 1;
  T_RUN (test_queries_and_counters);
  T_RUN (test_errors);
  T_RUN (test_spec);
  T_RUN (test_device_api);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
