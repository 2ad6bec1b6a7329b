/* comm.c - the generic communicator layer behind muon_comm.h: argument checks, call and
 * byte counters, the byte model, create / destroy / queries, and the public collectives that
 * call through each implementation's vtable (comm_self.c, comm_sim.c, comm_mpi.c, comm_nccl.c).
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "comm_stage.h"

// the names this layer reads or writes (the catalogue of lists, muon_lists.h, is above it)
MUON_NAME_TABLE (kind_names, MUON_COMM_KIND_LIST);
MUON_NAME_TABLE (reduction_names, MUON_COMM_REDUCTION_LIST);
MUON_NAME_TABLE (coll_names, MUON_COLL_LIST);

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
    CHECK (MUON_ERR_BADARG, *k == MUON_COMM_SIM || size <= 1,
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
  CHECK (MUON_ERR_BADARG, world >= 1 && rank >= 0 && rank < world,
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
  // the mpi and nccl communicators keep comm_stage.c's muon_staged first in their state
  int staged = c && c->impl && (c->ops->kind == MUON_COMM_MPI || c->ops->kind == MUON_COMM_NCCL);
  return staged && ((const muon_staged *) c->impl)->library ? MUON_COMM_REDUCTION_LIBRARY
                                                            : MUON_COMM_REDUCTION_FIXED;
}
