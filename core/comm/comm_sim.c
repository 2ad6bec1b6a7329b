/* comm_sim.c - the `sim` communicator: W ranks in one process, deterministic.  One call of a
 * collective takes all W ranks' buffers (local_ranks = W), reads every input into a staging
 * buffer, computes in the fixed order of muon_comm.h (rank-order sum in the buffers' type,
 * then / W for the average), and writes every output.  It counts the bytes each rank would
 * put on the wire under the transfer pattern it simulates:
 *
 *   allreduce       reduce-scatter then all-gather over W chunks (muon_comm_chunk_start):
 *                   every rank q != c sends chunk c to its owner c, which sums it and sends
 *                   the result back to every q != c;
 *   reduce_scatter  every rank q sends block r to rank r != q;
 *   all_gather      every rank sends its block to every other rank;
 *   broadcast       a chain root -> root+1 -> ... -> root-1 (mod W), n elements per hop.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"

typedef struct {
  void *stage;          // staging buffer, grown on demand
  size_t stage_bytes;
} sim_state;

static muon_status stage_get (muon_comm *c, muon_ctx *ctx, size_t bytes, void **p)
{
  muon_status status = MUON_OK;
  sim_state *s = c->impl;
  if (bytes > s->stage_bytes)
  {
    free (s->stage);
    s->stage_bytes = 0;
    s->stage = malloc (bytes);
    CHECK (MUON_ERR_NOMEM, s->stage != NULL, "sim: out of memory staging %zu bytes", bytes);
    s->stage_bytes = bytes;
  }
  *p = s->stage;
fail:
  return status;
}

// out[i] = reduce over ranks q = 0..W-1 of in[q][off + i], i < n, in rank order.
#define REDUCE_LOOP(T)                                                                  \
  do {                                                                                  \
    T *o_ = out;                                                                        \
    for (size_t i = 0; i < n; i++)                                                      \
    {                                                                                   \
      T acc = ((const T *) in[0])[off + i];                                             \
      for (int q = 1; q < W; q++)                                                       \
        acc = acc + ((const T *) in[q])[off + i];                                       \
      if (op == MUON_REDUCE_AVG)                                                        \
        acc = acc / (T) W;                                                              \
      o_[i] = acc;                                                                      \
    }                                                                                   \
  } while (0)

static void reduce (const void *const *in, size_t off, size_t n, int W, muon_dtype dtype,
                    muon_reduce_op op, void *out)
{
  if (dtype == MUON_F32)
    REDUCE_LOOP (float);
  else
    REDUCE_LOOP (double);
}

static void count_bytes (muon_comm *c, muon_coll k, int from, int to, size_t bytes)
{
  c->counters[from].bytes_sent[k] += bytes;
  c->counters[to].bytes_recv[k] += bytes;
}

//---- collectives --------------------------------------------------------------------------

static muon_status sim_allreduce (muon_comm *c, muon_ctx *ctx, const void *const *send,
                                  void *const *recv, size_t count, muon_dtype dtype,
                                  muon_reduce_op op)
{
  muon_status status = MUON_OK;
  int W = c->size;
  size_t e = muon_dtype_size (dtype);
  char *st = NULL;
  CHECKSTATUS (stage_get (c, ctx, count * e, (void **) &st));
  // reduce-scatter: chunk r's elements go from every other rank to owner r, summed there
  for (int r = 0; r < W; r++)
  {
    size_t lo = muon_comm_chunk_start (count, W, r), hi = muon_comm_chunk_start (count, W, r + 1);
    for (int q = 0; q < W; q++)
      if (q != r)
        count_bytes (c, MUON_COLL_ALLREDUCE, q, r, (hi - lo) * e);
    reduce (send, lo, hi - lo, W, dtype, op, st + lo * e);
  }
  // all-gather: owner r sends its reduced chunk to every other rank
  for (int r = 0; r < W; r++)
  {
    size_t lo = muon_comm_chunk_start (count, W, r), hi = muon_comm_chunk_start (count, W, r + 1);
    for (int q = 0; q < W; q++)
    {
      if (q != r)
        count_bytes (c, MUON_COLL_ALLREDUCE, r, q, (hi - lo) * e);
      memcpy ((char *) recv[q] + lo * e, st + lo * e, (hi - lo) * e);
    }
  }
fail:
  return status;
}

static muon_status sim_reduce_scatter (muon_comm *c, muon_ctx *ctx, const void *const *send,
                                       void *const *recv, size_t count, muon_dtype dtype,
                                       muon_reduce_op op)
{
  muon_status status = MUON_OK;
  int W = c->size;
  size_t e = muon_dtype_size (dtype);
  char *st = NULL;
  CHECKSTATUS (stage_get (c, ctx, (size_t) W * count * e, (void **) &st));
  for (int r = 0; r < W; r++)
  {
    for (int q = 0; q < W; q++)
      if (q != r)
        count_bytes (c, MUON_COLL_REDUCE_SCATTER, q, r, count * e);
    reduce (send, (size_t) r * count, count, W, dtype, op, st + (size_t) r * count * e);
  }
  for (int r = 0; r < W; r++)
    memcpy (recv[r], st + (size_t) r * count * e, count * e);
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
  CHECKSTATUS (stage_get (c, ctx, (size_t) W * b, (void **) &st));
  for (int s = 0; s < W; s++)
    memcpy (st + (size_t) s * b, send[s], b);
  // receiver l gets sources s = 0..W-1 in order (aliased slots keep the last one written)
  for (int l = 0; l < W; l++)
    for (int s = 0; s < W; s++)
    {
      if (s != l)
        count_bytes (c, MUON_COLL_ALL_GATHER, s, l, b);
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
  CHECKSTATUS (stage_get (c, ctx, b, (void **) &st));
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

//---- create / destroy ---------------------------------------------------------------------

static void sim_destroy (muon_comm *c)
{
  sim_state *s = c->impl;
  if (s)
    free (s->stage);
  free (s);
  c->impl = NULL;
}

muon_status muon_comm_sim_create (muon_ctx *ctx, int world, muon_comm **comm)
{
  muon_status status = MUON_OK;
  muon_comm *c = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, comm != NULL, "communicator pointer must not be NULL");
  *comm = NULL;
  CHECKSTATUS (muon_comm_alloc (ctx, "sim", world, world, 0, &c));
  c->destroy = sim_destroy;
  CHECKMEM (c->impl = calloc (1, sizeof (sim_state)));
  c->allreduce = sim_allreduce;
  c->reduce_scatter = sim_reduce_scatter;
  c->all_gather = sim_all_gather;
  c->broadcast = sim_broadcast;
  c->barrier = NULL;
  *comm = c;
  c = NULL;
fail:
  muon_comm_destroy (&c);
  return status;
}
