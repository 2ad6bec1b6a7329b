/* comm_stage.h - helpers of the communicators that hand the transfer to a library and
 * reduce on the host (comm_mpi.c, comm_nccl.c): the rank-order reduction of muon_comm.h
 * (the same arithmetic as comm_sim.c, so the results agree bit for bit), the byte model as
 * counters (counts_measured = 0), buffer overlap tests and a grow-on-demand staging buffer.
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

// out[i] = in[0][i] + in[1][i] + ... + in[W-1][i] in rank order, in the type of dtype, then
// / W once for MUON_REDUCE_AVG, where in[q] = base + q * stride elements, i < n.
#define MUON_STAGE_REDUCE(T)                                                           \
  do {                                                                                 \
    const T *b_ = base;                                                                \
    T *o_ = out;                                                                       \
    for (size_t i = 0; i < n; i++)                                                     \
    {                                                                                  \
      T acc = b_[i];                                                                   \
      for (int q = 1; q < W; q++)                                                      \
        acc = acc + b_[(size_t) q * stride + i];                                       \
      if (op == MUON_REDUCE_AVG)                                                       \
        acc = acc / (T) W;                                                             \
      o_[i] = acc;                                                                     \
    }                                                                                  \
  } while (0)

static inline void muon_stage_reduce (const void *base, size_t stride, size_t n, int W,
                                      muon_dtype dtype, muon_reduce_op op, void *out)
{
  if (dtype == MUON_F32)
    MUON_STAGE_REDUCE (float);
  else
    MUON_STAGE_REDUCE (double);
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

#endif
