/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm.c - the generic communicator layer behind muon_comm.h: create / destroy / queries,
 * the call and byte counters, the byte model and the fixed-order reduction.  The public
 * collectives, which check their arguments and call through each implementation's vtable
 * (comm_self.c, comm_sim.c, comm_mpi.c, comm_nccl.c), are in comm_coll.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"

// the names this layer reads or writes (the catalogue of lists, muon_lists.h, is above it)
MUON_NAME_TABLE (kind_names, MUON_COMM_KIND_LIST);
MUON_NAME_TABLE (reduction_names, MUON_COMM_REDUCTION_LIST);

//---- generic: create, destroy, queries ----------------------------------------------------

muon_status muon_comm_alloc (muon_ctx *ctx, const muon_comm_ops *ops, int size,
                             int local_ranks, int rank0, muon_comm **out)
{
  muon_status status = MUON_OK;
  muon_comm *c = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, out != NULL, "communicator pointer must not be NULL");
  *out = NULL;
  CHECK (MUON_ERR_BADARG, size >= 1 && size <= MUON_COMM_MAX_WORLD,
         "world size must be in 1..%d (got %d)", MUON_COMM_MAX_WORLD, size);
  CHECK (MUON_ERR_BADARG, local_ranks >= 1 && rank0 >= 0 && rank0 + local_ranks <= size,
         "local ranks %d..%d do not fit a world of %d", rank0, rank0 + local_ranks - 1, size);
  CHECKMEM (c = calloc (1, sizeof *c));
  CHECKMEM (c->counters = calloc ((size_t) local_ranks, sizeof *c->counters));
  c->ops = ops;
  c->size = size;
  c->local_ranks = local_ranks;
  c->rank0 = rank0;
  *out = c;
  c = NULL;
fail:
  muon_comm_destroy (&c);
  return status;
}

muon_status muon_comm_destroy (muon_comm **c)
{
  if (c == NULL)
    return MUON_ERR_NULLPTR;
  if (*c)
  {
    if ((*c)->ops && (*c)->ops->destroy)
      (*c)->ops->destroy (*c);
    free ((*c)->counters);
    free (*c);
    *c = NULL;
  }
  return MUON_OK;
}

muon_status muon_comm_spec (muon_ctx *ctx, const char *kind, const char *reduction, int size,
                            muon_comm_kind *k, muon_comm_reduction *r)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, kind && reduction && k && r, "names and outputs must not be NULL");
  int v = 0;
  CHECK (MUON_ERR_BADARG, muon_name_find (kind_names, MUON_NAME_COUNT (kind_names), kind, &v)
                          == MUON_OK,
         "unknown communicator kind '%s'", kind);
  *k = (muon_comm_kind) v;
  const char *fixed = reduction_names[MUON_COMM_REDUCTION_FIXED];
  int named = muon_name_find (reduction_names, MUON_NAME_COUNT (reduction_names), reduction, &v)
              == MUON_OK;
  if (named)
    *r = (muon_comm_reduction) v;
  if (!named && strcmp (reduction, kind) == 0)
  {
    *r = MUON_COMM_REDUCTION_LIBRARY;
    named = 1;
  }
  if (*k == MUON_COMM_SELF || *k == MUON_COMM_SIM)
  {
    CHECK (MUON_ERR_BADARG, named && *r == MUON_COMM_REDUCTION_FIXED,
           "a %s communicator has only the '%s' reduction", kind, fixed);
    CHECK (MUON_ERR_BADARG, *k == MUON_COMM_SIM || size == 1 || size == -1,
           "a self communicator has size 1, not %d", size);
    CHECK (MUON_ERR_BADARG, *k == MUON_COMM_SELF || size == -1
           || (size >= 1 && size <= MUON_COMM_MAX_WORLD),
           "the world size must be an integer in 1..%d", MUON_COMM_MAX_WORLD);
  }
  CHECK (MUON_ERR_BADARG, named, "the reduction of a%s %s communicator must be '%s' "
         "or '%s'", *k == MUON_COMM_MPI ? "n" : "", kind, fixed, kind);
fail:
  return status;
}

int muon_comm_size (const muon_comm *c) { return c ? c->size : 0; }
int muon_comm_local_ranks (const muon_comm *c) { return c ? c->local_ranks : 0; }
int muon_comm_counts_measured (const muon_comm *c) { return c ? c->ops->counts_measured : 0; }
const char *muon_comm_name (const muon_comm *c)
{
  return c ? MUON_NAME_OF (kind_names, c->ops->kind) : "none";
}

int muon_comm_rank (const muon_comm *c, int local)
{
  if (c == NULL || local < 0 || local >= c->local_ranks)
    return -1;
  return c->rank0 + local;
}

//---- generic: counters and the byte model -------------------------------------------------

muon_status muon_comm_counters_get (muon_ctx *ctx, const muon_comm *c, int local,
                                    muon_comm_counters *out)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, c != NULL && out != NULL, "communicator and output must not be NULL");
  CHECK (MUON_ERR_BADARG, local >= 0 && local < c->local_ranks,
         "local rank %d out of range (%d local ranks)", local, c->local_ranks);
  *out = c->counters[local];
fail:
  return status;
}

muon_status muon_comm_counters_reset (muon_ctx *ctx, muon_comm *c)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, c != NULL, "communicator must not be NULL");
  memset (c->counters, 0, (size_t) c->local_ranks * sizeof *c->counters);
fail:
  return status;
}

muon_status muon_comm_model_bytes (muon_ctx *ctx, muon_coll coll, int world, int rank,
                                   int root, size_t count, muon_dtype dtype, uint64_t *sent,
                                   uint64_t *recv)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, sent != NULL && recv != NULL, "outputs must not be NULL");
  CHECK (MUON_ERR_BADARG, world >= 1 && world <= MUON_COMM_MAX_WORLD,
         "the world size must be an integer in 1..%d", MUON_COMM_MAX_WORLD);
  CHECK (MUON_ERR_BADARG, rank >= 0 && rank < world,
         "rank %d of world %d is out of range", rank, world);
  CHECK (MUON_ERR_BADTYPE, dtype == MUON_F64 || dtype == MUON_F32, "unknown data type %d",
         (int) dtype);
  uint64_t e = muon_dtype_size (dtype), n = count, W = (uint64_t) world, s = 0, r = 0;
  switch (coll)
  {
    case MUON_COLL_ALLREDUCE:
    {
      uint64_t len = muon_comm_chunk_start (count, world, rank + 1)
                     - muon_comm_chunk_start (count, world, rank);
      s = r = (n - len) + (W - 1) * len;
      break;
    }
    case MUON_COLL_REDUCE_SCATTER:
    case MUON_COLL_ALL_GATHER:
      s = r = (W - 1) * n;
      break;
    case MUON_COLL_BROADCAST:
    {
      CHECK (MUON_ERR_BADARG, root >= 0 && root < world, "root %d out of range (world %d)",
             root, world);
      int d = (rank - root + world) % world;   // place in the chain
      s = d < world - 1 ? n : 0;
      r = d > 0 ? n : 0;
      break;
    }
    case MUON_COLL_BARRIER:
      break;
    case MUON_COLL_ALL_TO_ALL:
      s = r = (W - 1) * n;
      break;
    default:
      CHECK (MUON_ERR_BADARG, 0, "unknown collective %d", (int) coll);
  }
  // W <= 2^16 and n < 2^64 / W / 8 keep every product exact
  CHECK (MUON_ERR_BADSHAPE, n <= UINT64_MAX / W / e, "%zu elements are too many to count",
         count);
  *sent = s * e;
  *recv = r * e;
fail:
  return status;
}

//---- the fixed-order reduction (comm.h) ----------------------------------------------------

// The loop once; X (q, i) is element i of rank q's input.
#define REDUCE_LOOP(T, X)                                                               \
  do {                                                                                  \
    T *o_ = out;                                                                        \
    for (size_t i = 0; i < n; i++)                                                      \
    {                                                                                   \
      T acc = X (T, 0, i);                                                              \
      for (int q = 1; q < W; q++)                                                       \
        acc = acc + X (T, q, i);                                                        \
      if (op == MUON_REDUCE_AVG)                                                        \
        acc = acc / (T) W;                                                              \
      o_[i] = acc;                                                                      \
    }                                                                                   \
  } while (0)
#define FROM_RANKS(T, q, i) ((const T *) in[q])[off + (i)]
#define FROM_STAGE(T, q, i) ((const T *) base)[(size_t) (q) * stride + off + (i)]

void muon_comm_reduce (const void *const *in, const void *base, size_t stride, size_t off,
                       size_t n, int W, muon_dtype dtype, muon_reduce_op op, void *out)
{
  if (dtype == MUON_F32 && in)
    REDUCE_LOOP (float, FROM_RANKS);
  else if (dtype == MUON_F32)
    REDUCE_LOOP (float, FROM_STAGE);
  else if (in)
    REDUCE_LOOP (double, FROM_RANKS);
  else
    REDUCE_LOOP (double, FROM_STAGE);
}
