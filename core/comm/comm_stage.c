/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm_stage.c - the collectives of the communicators that hand the transfer to a library
 * (comm_mpi.c, comm_nccl.c), written once (comm_stage.h): the library's sums in library mode,
 * else the fixed order piece by piece over the library's transfer of one piece.  The pieces
 * keep the staging memory bounded (and MPI's counts within an int), and every element is
 * reduced on its own in rank order (muon_comm_reduce), so the pieces do not change the
 * result: bit for bit comm_sim.c's.
 */
#include <string.h>

#include "comm_stage.h"

// Elements of the piece that starts at element a of count.
static size_t piece_at (size_t a, size_t count, size_t piece)
{
  return count - a < piece ? count - a : piece;
}

// out = the allreduce of every rank's in (count elements): GATHER, reduce.
static muon_status staged_allreduce (muon_comm *c, muon_ctx *ctx, const void *in, void *out,
                                     size_t count, muon_dtype dtype, muon_reduce_op op)
{
  muon_status status = MUON_OK;
  muon_staged *s = c->impl;
  int W = c->size;
  size_t e = muon_dtype_size (dtype), piece = muon_stage_piece (W);
  char *st = NULL;
  // identical buffers are fine piece by piece; a partial overlap needs a copy first
  if (in != out)
    CHECKSTATUS (muon_stage_detach (ctx, &s->copy, &in, count * e, &out, 1, count * e));
  CHECKSTATUS (muon_stage_get (ctx, &s->stage, (size_t) W * piece * e, (void **) &st));
  for (size_t a = 0; a < count; a += piece)
  {
    size_t m = piece_at (a, count, piece);
    CHECKSTATUS (s->xfer (c, ctx, MUON_COLL_ALLREDUCE, MUON_STAGE_GATHER,
                          (const char *) in + a * e, st, m, dtype));
    muon_comm_reduce (NULL, st, m, 0, m, W, dtype, op, (char *) out + a * e);
  }
fail:
  return status;
}

muon_status muon_staged_reduce_scatter (muon_comm *c, muon_ctx *ctx, const void *in, void *out,
                                        size_t count, muon_dtype dtype, muon_reduce_op op,
                                        int summed)
{
  muon_status status = MUON_OK;
  muon_staged *s = c->impl;
  int W = c->size;
  size_t e = muon_dtype_size (dtype), Wz = (size_t) W, piece = muon_stage_piece (W);
  char *st = NULL;
  CHECKSTATUS (muon_stage_detach (ctx, &s->copy, &in, Wz * count * e, &out, 1, count * e));
  // pieces [a, a + m) of every block: packed block by block into the first half of the
  // stage, exchanged (summed: reduced by the library straight into out) into the second
  CHECKSTATUS (muon_stage_get (ctx, &s->stage, 2 * Wz * piece * e, (void **) &st));
  char *pack = st, *got = st + Wz * piece * e;
  for (size_t a = 0; a < count; a += piece)
  {
    size_t m = piece_at (a, count, piece);
    for (size_t q = 0; q < Wz; q++)
      memcpy (pack + q * m * e, (const char *) in + (q * count + a) * e, m * e);
    CHECKSTATUS (s->xfer (c, ctx, MUON_COLL_REDUCE_SCATTER,
                          summed ? MUON_STAGE_SUM : MUON_STAGE_EXCHANGE, pack,
                          summed ? (char *) out + a * e : got, m, dtype));
    if (!summed)
      muon_comm_reduce (NULL, got, m, 0, m, W, dtype, op, (char *) out + a * e);
  }
fail:
  return status;
}

muon_status muon_staged_reduce (muon_comm *c, muon_ctx *ctx, muon_coll coll,
                                const void *const *send, void *const *recv, size_t count,
                                muon_dtype dtype, muon_reduce_op op)
{
  muon_status status = MUON_OK;
  muon_staged *s = c->impl;
  if (s->library)                 // the library's sum, then / W below
    CHECKSTATUS (s->xfer (c, ctx, coll, coll == MUON_COLL_REDUCE_SCATTER ? MUON_STAGE_SUM
                          : MUON_STAGE_ALLSUM, send[0], recv[0], count, dtype));
  else if (coll == MUON_COLL_REDUCE_SCATTER)
    CHECKSTATUS (muon_staged_reduce_scatter (c, ctx, send[0], recv[0], count, dtype, op, 0));
  else
    CHECKSTATUS (staged_allreduce (c, ctx, send[0], recv[0], count, dtype, op));
  if (s->library && op == MUON_REDUCE_AVG)
    muon_stage_divide (recv[0], count, c->size, dtype);
  CHECKSTATUS (muon_stage_count (c, ctx, coll, 0, count, dtype));
fail:
  return status;
}

// recv[q] (count each) = rank q's send: GATHER piece by piece, copied out in source order
// (aliased slots keep the last one written, as comm_sim.c).
muon_status muon_staged_all_gather (muon_comm *c, muon_ctx *ctx, const void *const *send,
                                    void *const *recv, size_t count, muon_dtype dtype)
{
  muon_status status = MUON_OK;
  muon_staged *s = c->impl;
  int W = c->size;
  size_t e = muon_dtype_size (dtype), piece = muon_stage_piece (W);
  char *st = NULL;
  const void *in = send[0];
  CHECKSTATUS (muon_stage_detach (ctx, &s->copy, &in, count * e, recv, W, count * e));
  CHECKSTATUS (muon_stage_get (ctx, &s->stage, (size_t) W * piece * e, (void **) &st));
  for (size_t a = 0; a < count; a += piece)
  {
    size_t m = piece_at (a, count, piece);
    CHECKSTATUS (s->xfer (c, ctx, MUON_COLL_ALL_GATHER, MUON_STAGE_GATHER,
                          (const char *) in + a * e, st, m, dtype));
    for (int q = 0; q < W; q++)
      memcpy ((char *) recv[q] + a * e, st + (size_t) q * m * e, m * e);
  }
  CHECKSTATUS (muon_stage_count (c, ctx, MUON_COLL_ALL_GATHER, 0, count, dtype));
fail:
  return status;
}

muon_status muon_staged_all_to_all (muon_comm *c, muon_ctx *ctx, const void *const *send,
                                    const size_t *send_counts, void *const *recv,
                                    const size_t *recv_counts, muon_dtype dtype)
{
  muon_status status = MUON_OK;
  muon_staged *s = c->impl;
  int W = c->size, r = c->rank0;
  size_t Wz = (size_t) W, e = muon_dtype_size (dtype), ns = 0, nr = 0, got = 0;
  double *mine = NULL, *theirs = NULL;
  size_t *rc = NULL;
  int big = 0, bad_peer = -1, too_big = -1;
  CHECKMEM (mine = calloc (4 * Wz, sizeof *mine));
  CHECKMEM (rc = malloc (Wz * sizeof *rc));
  theirs = mine + 2 * Wz;
  for (size_t q = 0; q < Wz; q++)
  {
    ns += send_counts[q];
    nr += recv_counts[q];
  }
  big = ns > s->max_elems || nr > s->max_elems;
  for (size_t q = 0; q < Wz; q++)
  {
    mine[2 * q] = (double) send_counts[q];
    mine[2 * q + 1] = big;
  }
  CHECKSTATUS (s->xfer (c, ctx, MUON_COLL_ALL_TO_ALL, MUON_STAGE_EXCHANGE, mine, theirs, 2,
                        MUON_F64));
  for (size_t q = 0; q < Wz; q++)
  {
    rc[q] = (size_t) theirs[2 * q];
    got += rc[q];
    if (rc[q] != recv_counts[q] && bad_peer < 0)
      bad_peer = (int) q;
    if (theirs[2 * q + 1] != 0 && too_big < 0)
      too_big = (int) q;
  }
  CHECK (MUON_ERR_BADARG, too_big < 0, "all_to_all: the blocks of rank %d exceed %zu "
         "elements, more than one transfer of this communicator takes", too_big, s->max_elems);
  const void *in = send[0];
  void *out = recv[0];
  if (bad_peer >= 0)                // receive what the senders send, then fail
    CHECKSTATUS (muon_stage_get (ctx, &s->stage, got * e + 1, &out));
  else
    CHECKSTATUS (muon_stage_detach (ctx, &s->copy, &in, ns * e, &out, 1, nr * e));
  CHECKSTATUS (s->xferv (c, ctx, in, send_counts, out, rc, dtype));
  for (size_t q = 0; q < Wz; q++)
    if ((int) q != r)
    {
      c->counters[0].bytes_sent[MUON_COLL_ALL_TO_ALL] += send_counts[q] * e;
      c->counters[0].bytes_recv[MUON_COLL_ALL_TO_ALL] += rc[q] * e;
    }
  CHECK (MUON_ERR_BADARG, bad_peer < 0, "all_to_all: rank %d expects %zu elements from rank "
         "%d, which sends it %zu", r, bad_peer >= 0 ? recv_counts[bad_peer] : 0, bad_peer,
         bad_peer >= 0 ? rc[bad_peer] : 0);
fail:
  free (mine);
  free (rc);
  return status;
}

muon_status muon_staged_device (muon_comm *c, muon_ctx *ctx, muon_coll coll, const void *send,
                                void *recv, size_t count, muon_dtype dtype)
{
  muon_staged *s = c->impl;
  muon_stage_kind kind = coll == MUON_COLL_ALL_GATHER ? MUON_STAGE_GATHER
                       : coll == MUON_COLL_ALL_TO_ALL ? MUON_STAGE_EXCHANGE
                       : coll == MUON_COLL_REDUCE_SCATTER ? MUON_STAGE_SUM : MUON_STAGE_ALLSUM;
  return s->xfer (c, ctx, coll, kind, send, recv, count, dtype);
}

muon_status muon_staged_device_v (muon_comm *c, muon_ctx *ctx, const void *send,
                                  const size_t *send_counts, void *recv,
                                  const size_t *recv_counts, muon_dtype dtype)
{
  muon_status status = MUON_OK;
  muon_staged *s = c->impl;
  size_t ns = 0, nr = 0;
  for (int q = 0; q < c->size; q++)
  {
    ns += send_counts[q];
    nr += recv_counts[q];
  }
  CHECK (MUON_ERR_BADARG, ns <= s->max_elems && nr <= s->max_elems,
         "all_to_all: %zu elements, more than one transfer of this communicator takes (%zu)",
         ns > nr ? ns : nr, s->max_elems);
  CHECKSTATUS (s->xferv (c, ctx, send, send_counts, recv, recv_counts, dtype));
fail:
  return status;
}
