/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm_sim.c - the `sim` communicator: W ranks in one process, deterministic.  One call of a
 * collective takes all W ranks' buffers (local_ranks = W), reads every input into a staging
 * buffer (comm_stage.h), computes in the fixed order of muon_comm.h (muon_comm_reduce of
 * comm.c: rank-order sum in the buffers' type, then / W for the average), and writes every
 * output.  It counts the bytes each rank would put on the wire under the transfer pattern
 * it simulates:
 *
 *   allreduce       reduce-scatter then all-gather over W chunks (muon_comm_chunk_start):
 *                   every rank q != c sends chunk c to its owner c, which sums it and sends
 *                   the result back to every q != c;
 *   reduce_scatter  every rank q sends block r to rank r != q;
 *   all_gather      every rank sends its block to every other rank;
 *   broadcast       a chain root -> root+1 -> ... -> root-1 (mod W), n elements per hop;
 *   all_to_all      every rank q sends its block r straight to rank r != q.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm_stage.h"

static void count_bytes (muon_comm *c, muon_coll k, int from, int to, size_t bytes)
{
  c->counters[from].bytes_sent[k] += bytes;
  c->counters[to].bytes_recv[k] += bytes;
}

// Where block r of a reduction lies in every rank's send buffer (and in the stage): the
// allreduce's ring chunks of count elements, or reduce_scatter's blocks of count each.
static size_t block_start (muon_coll k, size_t count, int W, int r)
{
  return k == MUON_COLL_ALLREDUCE ? muon_comm_chunk_start (count, W, r) : (size_t) r * count;
}

//---- collectives --------------------------------------------------------------------------

// allreduce and reduce_scatter: block r of every rank's send buffer goes to its owner r,
// which sums it in comm.h's rank order into the stage (every input is read before any
// output is written); then owner r keeps its block (reduce_scatter), or sends its chunk to
// every other rank (allreduce's all-gather).
static muon_status sim_reduce (muon_comm *c, muon_ctx *ctx, muon_coll coll,
                               const void *const *send, void *const *recv, size_t count,
                               muon_dtype dtype, muon_reduce_op op)
{
  muon_status status = MUON_OK;
  int W = c->size;
  size_t e = muon_dtype_size (dtype);
  char *st = NULL;
  CHECKSTATUS (muon_stage_get (ctx, c->impl, block_start (coll, count, W, W) * e,
                               (void **) &st));
  // the bytes in closed form per rank (a loop over the pairs of ranks took a minute for
  // one small allreduce at W = 65536): rank r receives block r from the W - 1 others and
  // sends them every other block, `total - n` elements; the allreduce's all-gather is the
  // same the other way round
  size_t total = block_start (coll, count, W, W);
  int gather = coll == MUON_COLL_ALLREDUCE;
  for (int r = 0; r < W; r++)
  {
    size_t lo = block_start (coll, count, W, r), n = block_start (coll, count, W, r + 1) - lo;
    uint64_t own = (uint64_t) (W - 1) * n * e, others = (uint64_t) (total - n) * e;
    c->counters[r].bytes_recv[coll] += own + (gather ? others : 0);
    c->counters[r].bytes_sent[coll] += others + (gather ? own : 0);
    if (n > 0)
      muon_comm_reduce (send, NULL, 0, lo, n, W, dtype, op, st + lo * e);
  }
  for (int r = 0; r < W; r++)
  {
    size_t lo = block_start (coll, count, W, r), n = block_start (coll, count, W, r + 1) - lo;
    if (coll == MUON_COLL_REDUCE_SCATTER)
      memcpy (recv[r], st + lo * e, n * e);
    else if (n > 0)
      for (int q = 0; q < W; q++)
        memcpy ((char *) recv[q] + lo * e, st + lo * e, n * e);
  }
fail:
  return status;
}

static muon_status sim_all_gather (muon_comm *c, muon_ctx *ctx, const void *const *send,
                                   void *const *recv, size_t count, muon_dtype dtype)
{
  muon_status status = MUON_OK;
  int W = c->size;
  size_t e = muon_dtype_size (dtype), b = count * e;
  char *st = NULL;
  CHECKSTATUS (muon_stage_get (ctx, c->impl, (size_t) W * b, (void **) &st));
  for (int s = 0; s < W; s++)
    memcpy (st + (size_t) s * b, send[s], b);
  // receiver l gets sources s = 0..W-1 in order (aliased slots keep the last one written);
  // every rank sends its block to, and receives one from, each of the W - 1 others
  for (int l = 0; l < W; l++)
  {
    c->counters[l].bytes_sent[MUON_COLL_ALL_GATHER] += (uint64_t) (W - 1) * b;
    c->counters[l].bytes_recv[MUON_COLL_ALL_GATHER] += (uint64_t) (W - 1) * b;
    for (int s = 0; s < W; s++)
      memcpy (recv[(size_t) l * (size_t) W + (size_t) s], st + (size_t) s * b, b);
  }
fail:
  return status;
}

static muon_status sim_broadcast (muon_comm *c, muon_ctx *ctx, void *const *buf, size_t count,
                                  muon_dtype dtype, int root)
{
  muon_status status = MUON_OK;
  int W = c->size;
  size_t b = count * muon_dtype_size (dtype);
  char *st = NULL;
  CHECKSTATUS (muon_stage_get (ctx, c->impl, b, (void **) &st));
  memcpy (st, buf[root], b);
  for (int k = 1; k < W; k++)
  {
    int from = (root + k - 1) % W, to = (root + k) % W;
    count_bytes (c, MUON_COLL_BROADCAST, from, to, b);
    memcpy (buf[to], st, b);
  }
fail:
  return status;
}

// Every rank's send blocks staged back to back (rank 0's first), then rank r's block from q
// copied to its place in recv[r] (comm.c has checked that the counts agree).
static muon_status sim_all_to_all (muon_comm *c, muon_ctx *ctx, const void *const *send,
                                   const size_t *send_counts, void *const *recv,
                                   const size_t *recv_counts, muon_dtype dtype)
{
  muon_status status = MUON_OK;
  int W = c->size;
  size_t e = muon_dtype_size (dtype), Wz = (size_t) W, total = 0, *at = NULL;
  char *st = NULL;
  CHECKMEM (at = malloc (Wz * Wz * sizeof *at));   // at[q W + r]: block q -> r in the stage
  for (size_t q = 0; q < Wz; q++)
    for (size_t r = 0; r < Wz; r++)
    {
      at[q * Wz + r] = total;
      total += send_counts[q * Wz + r];
    }
  CHECKSTATUS (muon_stage_get (ctx, c->impl, total * e + 1, (void **) &st));
  for (size_t q = 0; q < Wz; q++)
  {
    size_t n = at[q * Wz + Wz - 1] + send_counts[q * Wz + Wz - 1] - at[q * Wz];
    if (n > 0)
      memcpy (st + at[q * Wz] * e, send[q], n * e);
  }
  for (size_t r = 0; r < Wz; r++)
  {
    size_t off = 0;
    for (size_t q = 0; q < Wz; q++)
    {
      size_t n = recv_counts[r * Wz + q];
      if (q != r)
        count_bytes (c, MUON_COLL_ALL_TO_ALL, (int) q, (int) r, n * e);
      if (n > 0)
        memcpy ((char *) recv[r] + off * e, st + at[q * Wz + r] * e, n * e);
      off += n;
    }
  }
fail:
  free (at);
  return status;
}

//---- create / destroy ---------------------------------------------------------------------

static void sim_destroy (muon_comm *c)
{
  muon_stage *s = c->impl;
  if (s)
    free (s->p);
  free (s);
  c->impl = NULL;
}

static const muon_comm_ops sim_ops = {
  MUON_COMM_SIM, 1, sim_reduce, sim_all_gather, sim_broadcast, NULL, sim_all_to_all,
  sim_destroy, NULL, NULL, MUON_DEVICE_CPU, 0   // moves no device memory: its ranks are host arrays
};

muon_status muon_comm_sim_create (muon_ctx *ctx, int world, muon_comm **comm)
{
  muon_status status = MUON_OK;
  muon_comm *c = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, comm != NULL, "communicator pointer must not be NULL");
  *comm = NULL;
  CHECKSTATUS (muon_comm_alloc (ctx, &sim_ops, world, world, 0, &c));
  CHECKMEM (c->impl = calloc (1, sizeof (muon_stage)));
  *comm = c;
  c = NULL;
fail:
  muon_comm_destroy (&c);
  return status;
}
