/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm_nccl.c - the `nccl` communicator: one GPU rank per process over NCCL, its buffers in
 * host memory (staged to the device for each call).  This half is plain C in libmuon.a; the
 * CUDA and NCCL calls are in libmuon_nccl.so (comm_nccl_dev.c), opened with dlopen on first
 * use, so nothing links NCCL and a machine without it or without a GPU gets a clean
 * MUON_ERR_NOTBUILT / MUON_ERR_NODEVICE.
 *
 * Device memory: muon_comm_device hands CUDA buffers to the same transfers, which use them
 * in place (comm_nccl_dev.c asks each pointer what it is), so the device ZeRO step moves its
 * buffers with no host staging.
 *
 * Set-up (muon_comm_nccl_create, every rank of the bootstrap communicator at once): each
 * rank loads the library and counts devices; the ranks all-reduce a failure count over the
 * bootstrap so they fail together (no rank is left waiting in NCCL's set-up); rank 0 makes
 * NCCL's unique id and broadcasts it over the bootstrap (with its status); each rank joins on
 * device (rank on its machine) % devices; a second all-reduce agrees on the outcome.
 * Library search order:
 * $MUON_NCCL_LIB, libmuon_nccl.so beside the object this code was linked into (the MEX file;
 * found with dladdr), then the loader's default path.
 *
 * Reductions, two modes (as comm_mpi.c): fixed (default) gathers every rank's piece with
 * ncclAllGather (allreduce) or a grouped ncclSend / ncclRecv all-to-all (reduce_scatter) and
 * sums it on the host in rank order (comm_stage.c), bit for bit the sim result (allreduce then moves W
 * times the ring's traffic, reduce_scatter the ring's); library uses ncclAllReduce /
 * ncclReduceScatter with ncclSum, then / W on the host for the average.  Counters are the
 * model of muon_comm_model_bytes (counts_measured = 0).  all_to_all exchanges the counts
 * (the grouped all-to-all of two numbers per pair), then runs a grouped ncclSend / ncclRecv
 * of the ragged blocks (comm_stage.c), counting its payload.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_nccl_abi.h"
#include "comm_stage.h"

typedef struct {
  muon_staged staged;   // first: comm_stage.c's reductions and all-gather (library: 1 for
                        // NCCL's own sums)
  void *lib;            // dlopen handle of libmuon_nccl.so
  muon_nccl_api api;
  void *dev;            // the device side's state (NCCL communicator, stream, buffers)
  char msg[256];
} nccl_state;

// Runs a device-side call; a failure records its status and message and jumps to fail.
#define DEV_TRY(call)                                                                   \
  do {                                                                                  \
    s->msg[0] = '\0';                                                                   \
    muon_status st_ = (call);                                                           \
    if (st_ < 0)                                                                        \
      CHECK (st_, 0, "nccl: %s", s->msg);                                               \
  } while (0)

//---- loading ------------------------------------------------------------------------------

// Loads the library and picks this rank's device (its rank on this machine modulo the
// devices it sees): status and message of this rank alone.
static muon_status local_setup (nccl_state *s, int rank, int *device)
{
  char why[192] = "";
  muon_status st = muon_plugin_open ("MUON_NCCL_LIB", "libmuon_nccl.so", "muon_nccl_get_api",
                                     MUON_NCCL_ABI, "the NCCL communicator", &s->api, &s->lib,
                                     s->msg, sizeof s->msg);
  if (st != MUON_OK)
    return st;
  int count = 0;
  st = s->api.device_count (&count, why, sizeof why);
  if (st == MUON_OK && count < 1)
    st = MUON_ERR_NODEVICE;
  if (st != MUON_OK)
  {
    snprintf (s->msg, sizeof s->msg, "no CUDA device (%s)", *why ? why : "none found");
    return st;
  }
  *device = muon_node_rank (rank) % count;
  return MUON_OK;
}

// Sums this rank's failure flag over the bootstrap's ranks.  [out] *failed.
static muon_status agree (muon_ctx *ctx, muon_comm *boot, int bad, int *failed)
{
  muon_status status = MUON_OK;
  double v = bad ? 1.0 : 0.0;
  void *p = &v;
  *failed = bad;
  if (boot && boot->size > 1)
  {
    CHECKSTATUS (boot->ops->reduce (boot, ctx, MUON_COLL_ALLREDUCE, (const void *const *) &p,
                                    (void *const *) &p, 1, MUON_F64, MUON_REDUCE_SUM));
    *failed = (int) v;
  }
fail:
  return status;
}

//---- collectives --------------------------------------------------------------------------

// The device side's transfers (comm_stage.h's muon_stage_xfer), one NCCL call each.
static muon_status nccl_xfer (muon_comm *c, muon_ctx *ctx, muon_coll coll, muon_stage_kind kind,
                              const void *send, void *recv, size_t m, muon_dtype dtype)
{
  muon_status status = MUON_OK;
  nccl_state *s = c->impl;
  muon_status (*call) (void *, const void *, void *, size_t, muon_dtype, char *, size_t) =
    kind == MUON_STAGE_GATHER ? s->api.all_gather
    : kind == MUON_STAGE_EXCHANGE ? s->api.all_to_all
    : kind == MUON_STAGE_SUM ? s->api.reduce_scatter : s->api.allreduce;
  DEV_TRY (call (s->dev, send, recv, m, dtype, s->msg, sizeof s->msg));
fail:
  return status;
}

// The ragged all-to-all: grouped ncclSend / ncclRecv on the device side.
static muon_status nccl_xferv (muon_comm *c, muon_ctx *ctx, const void *send,
                               const size_t *send_counts, void *recv, const size_t *recv_counts,
                               muon_dtype dtype)
{
  muon_status status = MUON_OK;
  nccl_state *s = c->impl;
  DEV_TRY (s->api.all_to_all_v (s->dev, send, send_counts, recv, recv_counts, dtype, s->msg,
                                sizeof s->msg));
fail:
  return status;
}

static muon_status nccl_broadcast (muon_comm *c, muon_ctx *ctx, void *const *buf, size_t count,
                                   muon_dtype dtype, int root)
{
  muon_status status = MUON_OK;
  nccl_state *s = c->impl;
  DEV_TRY (s->api.broadcast (s->dev, buf[0], count, dtype, root, s->msg, sizeof s->msg));
  CHECKSTATUS (muon_stage_count (c, ctx, MUON_COLL_BROADCAST, root, count, dtype));
fail:
  return status;
}

static muon_status nccl_barrier (muon_comm *c, muon_ctx *ctx)
{
  muon_status status = MUON_OK;
  nccl_state *s = c->impl;
  DEV_TRY (s->api.barrier (s->dev, s->msg, sizeof s->msg));
fail:
  return status;
}

//---- create / destroy ---------------------------------------------------------------------

static void state_free (nccl_state *s)
{
  if (s == NULL)
    return;
  if (s->dev && s->api.destroy)
    s->api.destroy (s->dev);
  // a library that set up CUDA and NCCL stays loaded (their threads and atexit handlers
  // may still refer to it); one that only failed to find a device is closed
  if (s->lib && s->dev == NULL)
    dlclose (s->lib);
  free (s->staged.stage.p);
  free (s->staged.copy.p);
  free (s);
}

static void nccl_destroy (muon_comm *c)
{
  state_free (c->impl);
  c->impl = NULL;
}

static const muon_comm_ops nccl_ops = {
  MUON_COMM_NCCL, 0, muon_staged_reduce, muon_staged_all_gather, nccl_broadcast, nccl_barrier,
  muon_staged_all_to_all, nccl_destroy, muon_staged_device,
  muon_staged_device_v, MUON_DEVICE_CUDA, 1
};

muon_status muon_comm_nccl_create (muon_ctx *ctx, muon_comm *bootstrap,
                                   int use_library_reduction, muon_comm **comm)
{
  muon_status status = MUON_OK;
  muon_comm *c = NULL;
  nccl_state *s = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, comm != NULL, "communicator pointer must not be NULL");
  *comm = NULL;
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_COMM_REDUCTION_LIST, use_library_reduction),
         "unknown reduction %d", use_library_reduction);   // muon_comm_set_reduction's
  CHECK (MUON_ERR_BADARG, bootstrap == NULL || bootstrap->local_ranks == 1,
         "nccl: the bootstrap communicator must drive one rank per process (mpi or self), "
         "not %d", bootstrap ? bootstrap->local_ranks : 0);
  int W = bootstrap ? bootstrap->size : 1, rank = bootstrap ? bootstrap->rank0 : 0;
  int device = 0, failed = 0;
  CHECKMEM (s = calloc (1, sizeof *s));
  s->staged = (muon_staged) { use_library_reduction == 1, { NULL, 0 }, { NULL, 0 }, nccl_xfer,
                              nccl_xferv, (size_t) -1 };

  // 1. library and device on every rank, then agree
  muon_status local = local_setup (s, rank, &device);
  CHECKSTATUS (agree (ctx, bootstrap, local != MUON_OK, &failed));
  CHECK (local, local == MUON_OK, "nccl: %s", s->msg);
  CHECK (MUON_ERR_NODEVICE, failed == 0, "nccl: %d of %d ranks have no usable NCCL or CUDA "
         "device", failed, W);

  // 2. rank 0's unique id (16 doubles' worth of bytes) and its status, to every rank
  double id[MUON_NCCL_ID_BYTES / sizeof (double) + 1];
  const size_t nid = sizeof id / sizeof id[0];
  memset (id, 0, sizeof id);
  if (rank == 0)
  {
    s->msg[0] = '\0';
    id[nid - 1] = (double) s->api.unique_id (id, s->msg, sizeof s->msg);
  }
  if (bootstrap && W > 1)
  {
    void *p = id;
    CHECKSTATUS (bootstrap->ops->broadcast (bootstrap, ctx, (void *const *) &p, nid, MUON_F64, 0));
  }
  CHECK (MUON_ERR_NCCL, id[nid - 1] == 0, "nccl: rank 0 could not make the unique id%s%s",
         *s->msg ? ": " : "", s->msg);

  // 3. join, then agree again
  s->msg[0] = '\0';
  local = s->api.init (&s->dev, W, rank, device, id, s->msg, sizeof s->msg);
  CHECKSTATUS (agree (ctx, bootstrap, local != MUON_OK, &failed));
  CHECK (local, local == MUON_OK, "nccl: %s", s->msg);
  CHECK (MUON_ERR_NCCL, failed == 0, "nccl: %d of %d ranks could not join the communicator",
         failed, W);

  CHECKSTATUS (muon_comm_alloc (ctx, &nccl_ops, W, 1, rank, &c));
  c->impl = s;
  s = NULL;
  *comm = c;
  c = NULL;
fail:
  state_free (s);
  muon_comm_destroy (&c);
  return status;
}
