/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm_coll.c - the public collectives of muon_comm.h: their argument checks (pointers,
 * types, sizes, buffers of different local ranks that overlap), the call counters, and the
 * call through the communicator's vtable; the device-memory entry points beside them; and
 * muon_comm_agree, an uncounted all-gather of the ranks' call signatures.
 */
#include <stdint.h>
#include <stdlib.h>

#include "comm.h"
#include "comm_stage.h"

MUON_NAME_TABLE (coll_names, MUON_COLL_LIST);

//---- generic: argument checks -------------------------------------------------------------

typedef struct { uintptr_t lo, hi; int rank; } span;

static int by_lo (const void *a, const void *b)
{
  const span *x = a, *y = b;
  return x->lo < y->lo ? -1 : (x->lo > y->lo);
}

// Adds [p, p + bytes) of local rank l to the list.
static void add_span (span *s, size_t *n, const void *p, size_t bytes, int l)
{
  s[*n].lo = (uintptr_t) p;
  s[*n].hi = (uintptr_t) p + bytes;
  s[*n].rank = l;
  (*n)++;
}

// MUON_ERR_BADARG when a buffer of one local rank overlaps a buffer of another.  Sorted by
// start, the first interval that overlaps an earlier one of another rank also overlaps the
// earlier interval reaching furthest, unless that one is of its own rank - in which case
// that one and the other earlier interval overlapped already.
static muon_status check_disjoint (muon_ctx *ctx, const muon_comm *c, span *s, size_t n,
                                   const char *what)
{
  muon_status status = MUON_OK;
  if (c->local_ranks < 2 || n < 2)
    return MUON_OK;
  qsort (s, n, sizeof *s, by_lo);
  uintptr_t far = s[0].hi;
  int far_rank = s[0].rank;
  for (size_t i = 1; i < n; i++)
  {
    CHECK (MUON_ERR_BADARG, !(s[i].lo < far && s[i].rank != far_rank),
           "%s: buffers of ranks %d and %d overlap; each rank's buffers must be its own",
           what, muon_comm_rank (c, far_rank), muon_comm_rank (c, s[i].rank));
    if (s[i].hi > far)
    {
      far = s[i].hi;
      far_rank = s[i].rank;
    }
  }
fail:
  return status;
}

// Common checks: pointers, dtype, sizes; fills spans (send_elems / recv_elems per buffer,
// nrecv recv pointers per local rank) and checks them.  count == 0 skips the buffers.
static muon_status check_args (muon_ctx *ctx, const muon_comm *c, const void *const *send,
                               size_t send_elems, void *const *recv, int nrecv,
                               size_t recv_elems, size_t count, muon_dtype dtype,
                               const char *what)
{
  muon_status status = MUON_OK;
  span *s = NULL;
  CHECK (MUON_ERR_NULLPTR, c != NULL, "%s: communicator must not be NULL", what);
  CHECK (MUON_ERR_BADTYPE, dtype == MUON_F64 || dtype == MUON_F32,
         "%s: unknown data type %d", what, (int) dtype);
  if (count == 0)
    return MUON_OK;
  size_t L = (size_t) c->local_ranks, e = muon_dtype_size (dtype);
  CHECK (MUON_ERR_BADSHAPE, count <= (size_t) -1 / e / (size_t) c->size,
         "%s: %zu elements overflow", what, count);
  CHECK (MUON_ERR_NULLPTR, (send != NULL || send_elems == 0) && recv != NULL,
         "%s: buffer arrays must not be NULL", what);
  size_t nspan = L * (size_t) (nrecv + (send_elems > 0));
  CHECKMEM (s = malloc (nspan * sizeof *s));
  size_t n = 0;
  for (int l = 0; l < c->local_ranks; l++)
  {
    if (send_elems > 0)
    {
      CHECK (MUON_ERR_NULLPTR, send[l] != NULL, "%s: send buffer of rank %d is NULL", what,
             muon_comm_rank (c, l));
      add_span (s, &n, send[l], send_elems * e, l);
    }
    for (int k = 0; k < nrecv; k++)
    {
      const void *p = recv[(size_t) l * (size_t) nrecv + (size_t) k];
      CHECK (MUON_ERR_NULLPTR, p != NULL, "%s: receive buffer %d of rank %d is NULL", what, k,
             muon_comm_rank (c, l));
      add_span (s, &n, p, recv_elems * e, l);
    }
  }
  CHECKSTATUS (check_disjoint (ctx, c, s, n, what));
fail:
  free (s);
  return status;
}

static void count_call (muon_comm *c, muon_coll k)
{
  for (int l = 0; l < c->local_ranks; l++)
    c->counters[l].calls[k]++;
}

//---- generic: the collectives -------------------------------------------------------------

// allreduce and reduce_scatter: their checks, count and call (send holds count, or W blocks
// of count, per rank).
static muon_status reduction (muon_ctx *ctx, muon_comm *c, muon_coll coll,
                              const void *const *send, void *const *recv, size_t count,
                              muon_dtype dtype, muon_reduce_op op)
{
  muon_status status = MUON_OK;
  const char *what = MUON_NAME_OF (coll_names, coll);
  int scatter = coll == MUON_COLL_REDUCE_SCATTER;
  CHECKCTX (ctx);
  CHECKSTATUS (check_args (ctx, c, send, c && scatter ? count * (size_t) c->size : count, recv,
                           1, count, count, dtype, what));
  CHECK (MUON_ERR_BADARG, op == MUON_REDUCE_SUM || op == MUON_REDUCE_AVG,
         "%s: unknown reduction %d", what, (int) op);
  count_call (c, coll);
  if (count > 0)
    CHECKSTATUS (c->ops->reduce (c, ctx, coll, send, recv, count, dtype, op));
fail:
  return status;
}

muon_status muon_comm_allreduce (muon_ctx *ctx, muon_comm *c, const void *const *send,
                                 void *const *recv, size_t count, muon_dtype dtype,
                                 muon_reduce_op op)
{
  return reduction (ctx, c, MUON_COLL_ALLREDUCE, send, recv, count, dtype, op);
}

muon_status muon_comm_reduce_scatter (muon_ctx *ctx, muon_comm *c, const void *const *send,
                                      void *const *recv, size_t count, muon_dtype dtype,
                                      muon_reduce_op op)
{
  return reduction (ctx, c, MUON_COLL_REDUCE_SCATTER, send, recv, count, dtype, op);
}

muon_status muon_comm_all_gather (muon_ctx *ctx, muon_comm *c, const void *const *send,
                                  void *const *recv, size_t count, muon_dtype dtype)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECKSTATUS (check_args (ctx, c, send, count, recv, c ? c->size : 0, count, count, dtype,
                           "all_gather"));
  count_call (c, MUON_COLL_ALL_GATHER);
  if (count > 0)
    CHECKSTATUS (c->ops->all_gather (c, ctx, send, recv, count, dtype));
fail:
  return status;
}

muon_status muon_comm_broadcast (muon_ctx *ctx, muon_comm *c, void *const *buf, size_t count,
                                 muon_dtype dtype, int root)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECKSTATUS (check_args (ctx, c, NULL, 0, buf, 1, count, count, dtype, "broadcast"));
  CHECK (MUON_ERR_BADARG, root >= 0 && root < c->size, "broadcast: root %d out of range "
         "(world %d)", root, c->size);
  count_call (c, MUON_COLL_BROADCAST);
  if (count > 0)
    CHECKSTATUS (c->ops->broadcast (c, ctx, buf, count, dtype, root));
fail:
  return status;
}

muon_status muon_comm_barrier (muon_ctx *ctx, muon_comm *c)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, c != NULL, "barrier: communicator must not be NULL");
  count_call (c, MUON_COLL_BARRIER);
  if (c->ops->barrier)
    CHECKSTATUS (c->ops->barrier (c, ctx));
fail:
  return status;
}

// The elements of one rank's W blocks (counts[0..W-1]); *ok = 0 when the sum overflows the
// bytes of a buffer.
static size_t block_total (const size_t *counts, int W, size_t e, int *ok)
{
  size_t t = 0;
  for (int q = 0; q < W; q++)
  {
    if (counts[q] > (size_t) -1 / e - t)
      *ok = 0;
    else
      t += counts[q];
  }
  return t;
}

muon_status muon_comm_all_to_all (muon_ctx *ctx, muon_comm *c, const void *const *send,
                                  const size_t *send_counts, void *const *recv,
                                  const size_t *recv_counts, muon_dtype dtype)
{
  muon_status status = MUON_OK;
  const char *what = "all_to_all";
  span *s = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, c != NULL, "%s: communicator must not be NULL", what);
  CHECK (MUON_ERR_BADTYPE, dtype == MUON_F64 || dtype == MUON_F32,
         "%s: unknown data type %d", what, (int) dtype);
  CHECK (MUON_ERR_NULLPTR, send != NULL && recv != NULL && send_counts != NULL
         && recv_counts != NULL, "%s: buffer and count arrays must not be NULL", what);
  int W = c->size, L = c->local_ranks;
  size_t e = muon_dtype_size (dtype), n = 0;
  CHECKMEM (s = malloc (2 * (size_t) L * sizeof *s));
  for (int l = 0; l < L; l++)
  {
    const size_t *sc = send_counts + (size_t) l * (size_t) W,
                 *rc = recv_counts + (size_t) l * (size_t) W;
    int ok = 1;
    size_t ns = block_total (sc, W, e, &ok), nr = block_total (rc, W, e, &ok);
    CHECK (MUON_ERR_BADSHAPE, ok, "%s: the counts of rank %d overflow", what,
           muon_comm_rank (c, l));
    CHECK (MUON_ERR_NULLPTR, (ns == 0 || send[l] != NULL) && (nr == 0 || recv[l] != NULL),
           "%s: a buffer of rank %d is NULL", what, muon_comm_rank (c, l));
    if (ns > 0)
      add_span (s, &n, send[l], ns * e, l);
    if (nr > 0)
      add_span (s, &n, recv[l], nr * e, l);
  }
  CHECKSTATUS (check_disjoint (ctx, c, s, n, what));
  if (L == W)                       // every rank here: what q sends r is what r expects
    for (int r = 0; r < W; r++)
      for (int q = 0; q < W; q++)
        CHECK (MUON_ERR_BADARG, recv_counts[(size_t) r * W + q] == send_counts[(size_t) q * W + r],
               "%s: rank %d expects %zu elements from rank %d, which sends it %zu", what, r,
               recv_counts[(size_t) r * W + q], q, send_counts[(size_t) q * W + r]);
  count_call (c, MUON_COLL_ALL_TO_ALL);
  CHECKSTATUS (c->ops->all_to_all (c, ctx, send, send_counts, recv, recv_counts, dtype));
fail:
  free (s);
  return status;
}

//---- device memory --------------------------------------------------------------------------

int muon_comm_moves (const muon_comm *c, muon_device d)
{
  return c && c->ops->device && c->ops->device_memory == d && c->local_ranks == 1;
}

muon_status muon_comm_device (muon_ctx *ctx, muon_comm *c, muon_device d, muon_coll coll,
                              const void *send, void *recv, size_t count, muon_dtype dtype)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, c != NULL && send != NULL && recv != NULL,
         "device transfer: communicator and buffers must not be NULL");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_DEVICE_LIST, d), "unknown device %d", (int) d);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_COLL_LIST, coll), "unknown collective %d",
         (int) coll);
  CHECK (MUON_ERR_UNSUPPORTED, muon_comm_moves (c, d),
         "the '%s' communicator does not move %s memory%s", muon_comm_name (c),
         d == MUON_DEVICE_CUDA ? "CUDA device" : "the CPU stand-in device's",
         d == MUON_DEVICE_CUDA ? ": device arrays on CUDA need 'nccl'" : "");
  CHECK (MUON_ERR_BADARG, coll == MUON_COLL_ALL_GATHER || coll == MUON_COLL_ALL_TO_ALL
                          || coll == MUON_COLL_ALLREDUCE || coll == MUON_COLL_REDUCE_SCATTER,
         "device transfer: collective %d is not an all-gather, an all-to-all or a sum",
         (int) coll);
  CHECK (MUON_ERR_BADTYPE, dtype == MUON_F64 || dtype == MUON_F32, "unknown data type %d",
         (int) dtype);
  if (count > 0)
    CHECKSTATUS (c->ops->device (c, ctx, coll, send, recv, count, dtype));
fail:
  return status;
}

muon_status muon_comm_device_all_to_all (muon_ctx *ctx, muon_comm *c, muon_device d,
                                         const void *send, const size_t *send_counts,
                                         void *recv, const size_t *recv_counts,
                                         muon_dtype dtype)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, c && send && recv && send_counts && recv_counts,
         "device all_to_all: communicator, buffers and counts must not be NULL");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_DEVICE_LIST, d), "unknown device %d", (int) d);
  CHECK (MUON_ERR_UNSUPPORTED, muon_comm_moves (c, d) && c->ops->device_v,
         "the '%s' communicator does not move this device's memory", muon_comm_name (c));
  CHECK (MUON_ERR_BADTYPE, dtype == MUON_F64 || dtype == MUON_F32, "unknown data type %d",
         (int) dtype);
  count_call (c, MUON_COLL_ALL_TO_ALL);
  CHECKSTATUS (c->ops->device_v (c, ctx, send, send_counts, recv, recv_counts, dtype));
  size_t e = muon_dtype_size (dtype);
  for (int q = 0; q < c->size; q++)
    if (q != c->rank0)
    {
      c->counters[0].bytes_sent[MUON_COLL_ALL_TO_ALL] += send_counts[q] * e;
      c->counters[0].bytes_recv[MUON_COLL_ALL_TO_ALL] += recv_counts[q] * e;
    }
fail:
  return status;
}

muon_status muon_comm_count (muon_ctx *ctx, muon_comm *c, muon_coll coll, size_t count,
                             muon_dtype dtype)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, c != NULL, "communicator must not be NULL");
  CHECK (MUON_ERR_BADARG, coll >= 0 && coll < MUON_COLL_COUNT, "unknown collective %d",
         (int) coll);
  for (int l = 0; l < c->local_ranks; l++)
  {
    uint64_t s = 0, r = 0;
    CHECKSTATUS (muon_comm_model_bytes (ctx, coll, c->size, c->rank0 + l, 0, count, dtype, &s,
                                        &r));
    c->counters[l].calls[coll]++;
    c->counters[l].bytes_sent[coll] += s;
    c->counters[l].bytes_recv[coll] += r;
  }
fail:
  return status;
}

muon_comm_reduction muon_comm_reduction_of (const muon_comm *c)
{
  int staged = c && c->impl && c->ops->staged;
  return staged && ((const muon_staged *) c->impl)->library ? MUON_COMM_REDUCTION_LIBRARY
                                                            : MUON_COMM_REDUCTION_FIXED;
}

muon_status muon_comm_set_reduction (muon_ctx *ctx, muon_comm *c, muon_comm_reduction r)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, c != NULL, "communicator must not be NULL");
  int staged = c->impl && c->ops->staged;
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_COMM_REDUCTION_LIST, r),
         "unknown reduction %d", (int) r);
  CHECK (MUON_ERR_BADARG, r == MUON_COMM_REDUCTION_FIXED || staged,
         "the %s communicator has no library reduction", muon_comm_name (c));
  if (staged)
    ((muon_staged *) c->impl)->library = r == MUON_COMM_REDUCTION_LIBRARY;
fail:
  return status;
}

//---- agreement ------------------------------------------------------------------------------

muon_status muon_comm_agree (muon_ctx *ctx, muon_comm *c, const double *sig, size_t n,
                             int *rank, size_t *index, double *values)
{
  muon_status status = MUON_OK;
  double *all = NULL;
  const void **send = NULL;
  void **recv = NULL;
  muon_comm_counters *kept = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, c != NULL && (sig != NULL || n == 0) && rank != NULL
                             && index != NULL, "arguments must not be NULL");
  *rank = -1;
  *index = 0;
  size_t L = (size_t) c->local_ranks, W = (size_t) c->size;
  if (L == W || n == 0)
    goto fail;                                     // nothing another process could differ in
  CHECK (MUON_ERR_BADARG, n <= SIZE_MAX / sizeof (double) / W / L, "sig too long");
  CHECKMEM (all = malloc (L * W * n * sizeof *all));
  CHECKMEM (send = malloc (L * sizeof *send));
  CHECKMEM (recv = malloc (L * W * sizeof *recv));
  CHECKMEM (kept = malloc (L * sizeof *kept));
  for (size_t l = 0; l < L; l++)
    send[l] = sig;
  for (size_t k = 0; k < L * W; k++)
    recv[k] = all + k * n;
  memcpy (kept, c->counters, L * sizeof *kept);
  status = muon_comm_all_gather (ctx, c, send, recv, n, MUON_F64);
  memcpy (c->counters, kept, L * sizeof *kept);
  if (status < 0)
    goto fail;
  for (size_t s = 1; s < W && *rank < 0; s++)
    for (size_t i = 0; i < n; i++)
      if (memcmp (all + s * n + i, all + i, sizeof *all))
      {
        *rank = (int) s;
        *index = i;
        if (values)
        {
          values[0] = all[s * n + i];
          values[1] = all[i];
        }
        break;
      }
fail:
  free (all);
  free (send);
  free (recv);
  free (kept);
  return status;
}
