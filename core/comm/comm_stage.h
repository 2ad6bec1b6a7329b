/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm_stage.h - helpers of the communicators that stage buffers on the host: a
 * grow-on-demand staging buffer (comm_sim.c too), and for those that hand the transfer to a
 * library (comm_mpi.c, comm_nccl.c) the byte model as counters (counts_measured = 0), buffer
 * overlap tests, and their collectives written once (comm_stage.c, muon_staged): the
 * library's sums, or the fixed order piece by piece over the library's all-gather /
 * all-to-all, reduced by muon_comm_reduce (comm.h) as comm_sim.c does, so the results agree
 * bit for bit.
 */
#ifndef MUON_COMM_STAGE_H
#define MUON_COMM_STAGE_H

#include <stdlib.h>
#include <string.h>

#include "comm.h"

// Elements of one staging piece: the fixed-order collectives work on pieces of at most
// MUON_STAGE_ELEMS / W elements per rank, so the staging memory stays bounded (and the
// counts passed to MPI fit an int); every element is reduced on its own, so the pieces do
// not change the result.
#define MUON_STAGE_ELEMS ((size_t) 1 << 21)

// Elements per rank in one piece of a world of W ranks (at least 1).
static inline size_t muon_stage_piece (int W)
{
  size_t p = MUON_STAGE_ELEMS / (size_t) W;
  return p > 0 ? p : 1;
}

// buf[i] = buf[i] / W (the average after a library sum).
static inline void muon_stage_divide (void *buf, size_t n, int W, muon_dtype dtype)
{
  if (dtype == MUON_F32)
    for (size_t i = 0; i < n; i++)
      ((float *) buf)[i] = ((float *) buf)[i] / (float) W;
  else
    for (size_t i = 0; i < n; i++)
      ((double *) buf)[i] = ((double *) buf)[i] / (double) W;
}

// Adds the byte model of muon_comm_model_bytes to local rank 0's counters.
static inline muon_status muon_stage_count (muon_comm *c, muon_ctx *ctx, muon_coll coll,
                                            int root, size_t count, muon_dtype dtype)
{
  uint64_t s = 0, r = 0;
  muon_status st = muon_comm_model_bytes (ctx, coll, c->size, c->rank0, root, count, dtype,
                                          &s, &r);
  if (st == MUON_OK)
  {
    c->counters[0].bytes_sent[coll] += s;
    c->counters[0].bytes_recv[coll] += r;
  }
  return st;
}

// 1 when [p, p + pb) and [q, q + qb) share a byte.
static inline int muon_stage_overlap (const void *p, size_t pb, const void *q, size_t qb)
{
  uintptr_t a = (uintptr_t) p, b = (uintptr_t) q;
  return pb > 0 && qb > 0 && a < b + qb && b < a + pb;
}

typedef struct {
  void *p;
  size_t bytes;
} muon_stage;

// A buffer of at least `bytes` bytes in *s (contents not kept).  [out] *out.
static inline muon_status muon_stage_get (muon_ctx *ctx, muon_stage *s, size_t bytes,
                                          void **out)
{
  muon_status status = MUON_OK;
  if (bytes > s->bytes)
  {
    free (s->p);
    s->bytes = 0;
    CHECK (MUON_ERR_NOMEM, (s->p = malloc (bytes)) != NULL,
           "out of memory staging %zu bytes", bytes);
    s->bytes = bytes;
  }
  *out = s->p;
fail:
  return status;
}

// When the n-byte input *in overlaps any of the nout outputs (out[k], ob bytes each), copies
// it to the buffer *copy and points *in there, so that the outputs can be written piece by
// piece.  [in,out] *in.
static inline muon_status muon_stage_detach (muon_ctx *ctx, muon_stage *copy, const void **in,
                                             size_t n, void *const *out, int nout, size_t ob)
{
  muon_status status = MUON_OK;
  void *p = NULL;
  for (int k = 0; k < nout; k++)
    if (muon_stage_overlap (*in, n, out[k], ob))
    {
      CHECKSTATUS (muon_stage_get (ctx, copy, n, &p));
      memcpy (p, *in, n);
      *in = p;
      break;
    }
fail:
  return status;
}

//---- communicators over a library (comm_stage.c) -------------------------------------------
// comm_mpi.c and comm_nccl.c keep a muon_staged first in their state and list the entries
// below in their ops tables: the reductions and the all-gather are then written once, over
// the library's transfer of one piece and its whole sum.  The fixed order moves pieces of at
// most muon_stage_piece (W) elements per rank into the stage and reduces them in rank order
// (muon_comm_reduce, so bit for bit comm_sim.c's); an input that overlaps the outputs is
// copied to the copy buffer first.

// One transfer by the library, of m elements per rank, for collective coll (its name for
// messages):
//   GATHER    all-gather: send m, recv W m (block q from rank q)
//   EXCHANGE  all-to-all: send W m (block q to rank q), recv W m (block q from rank q)
//   SUM       reduce-scatter with the library's sum: send W m, recv m (every rank's block
//             `rank`, summed)
//   ALLSUM    allreduce with the library's sum: send m, recv m (may be the same buffer)
// The fixed order asks for GATHER and EXCHANGE of pieces; the library mode for SUM and
// ALLSUM of the whole count (and SUM of pieces, when the library splits a whole one it
// cannot take at once).  Records its own error.
typedef enum {
  MUON_STAGE_GATHER, MUON_STAGE_EXCHANGE, MUON_STAGE_SUM, MUON_STAGE_ALLSUM
} muon_stage_kind;
typedef muon_status (*muon_stage_xfer) (muon_comm *c, muon_ctx *ctx, muon_coll coll,
                                        muon_stage_kind kind, const void *send, void *recv,
                                        size_t m, muon_dtype dtype);

// The library's ragged all-to-all (MPI_Alltoallv, grouped ncclSend / ncclRecv): this rank's
// send_counts[q] elements to rank q, packed in send, recv_counts[q] from rank q, packed in
// recv (send and recv do not overlap; the counts agree with the peers').
typedef muon_status (*muon_stage_xferv) (muon_comm *c, muon_ctx *ctx, const void *send,
                                         const size_t *send_counts, void *recv,
                                         const size_t *recv_counts, muon_dtype dtype);

typedef struct {
  int library;               // 1: the library's own sums (use_library_reduction)
  muon_stage stage, copy;    // staging buffers, grown on demand
  muon_stage_xfer xfer;      // the library's transfers
  muon_stage_xferv xferv;    // its ragged all-to-all
  size_t max_elems;          // most elements one xferv may address (a block's end)
} muon_staged;

// The ops entries (comm.h) of a communicator whose impl starts with a muon_staged.
muon_status muon_staged_reduce (muon_comm *c, muon_ctx *ctx, muon_coll coll,
                                const void *const *send, void *const *recv, size_t count,
                                muon_dtype dtype, muon_reduce_op op);
muon_status muon_staged_all_gather (muon_comm *c, muon_ctx *ctx, const void *const *send,
                                    void *const *recv, size_t count, muon_dtype dtype);
// muon_comm_all_to_all: first an EXCHANGE of two numbers per pair - what this rank sends
// the peer, and whether this rank's counts exceed max_elems - so that every rank sees every
// rank's flag (all skip the transfer and fail together), and each receiver the counts its
// senders use; then xferv with the senders' counts, into recv, or, when this rank expected
// other counts, into the stage and MUON_ERR_BADARG afterwards.  Counts the payload.
muon_status muon_staged_all_to_all (muon_comm *c, muon_ctx *ctx, const void *const *send,
                                    const size_t *send_counts, void *const *recv,
                                    const size_t *recv_counts, muon_dtype dtype);
// The ops entry `device` (muon_comm_device): the library's one transfer of coll, on the
// buffers as they are (nccl: CUDA device memory; mpi: the stand-in's host memory).
muon_status muon_staged_device (muon_comm *c, muon_ctx *ctx, muon_coll coll, const void *send,
                                void *recv, size_t count, muon_dtype dtype);
// The ops entry `device_v` (muon_comm_device_all_to_all): the library's ragged all-to-all
// on the buffers as they are (the peers' counts agree: no exchange of counts).
muon_status muon_staged_device_v (muon_comm *c, muon_ctx *ctx, const void *send,
                                  const size_t *send_counts, void *recv,
                                  const size_t *recv_counts, muon_dtype dtype);
// The reduce-scatter of in (W count per rank) into out (count) piece by piece: the pieces of
// every block packed, then EXCHANGEd and reduced in rank order, or (summed) SUMmed by the
// library straight into out (the caller divides for the average).
muon_status muon_staged_reduce_scatter (muon_comm *c, muon_ctx *ctx, const void *in, void *out,
                                        size_t count, muon_dtype dtype, muon_reduce_op op,
                                        int summed);

#endif
