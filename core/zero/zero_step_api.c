/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_api.c - the entry points of a distributed Muon step (muon_zero.h): the checks,
 * the dispatch through the variant table (zero_variant.h) to the step functions of
 * zero_step_zero12.c, zero_step_rr.c, zero_step_a2a.c and zero_step_ep.c, and the assembly of
 * the full updates.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zero_step_impl.h"

MUON_NAME_TABLE (variant_names, MUON_ZERO_VARIANT_LIST);   // for the messages

//---- entry points -------------------------------------------------------------------------

// The update rule and the step function of each variant (zero_variant.h; a plan's variant
// has its row).
#define ZERO_VARIANT_STEP(v, exact, part, holds, updates, keeps, step, cost, dev) \
  [v] = { updates, step },
static const struct { zupdate_rule updates; zstep_fn step; } steps[] = {
  ZERO_VARIANTS (ZERO_VARIANT_STEP)
};
#undef ZERO_VARIANT_STEP

// Matrix p's blocks: experts dividing its rows, split row blocks summing to a page, and
// whole blocks only where the variant updates whole matrices (not pieces' row blocks).
static muon_status check_blocks (muon_ctx *ctx, const muon_zero_blocks *b, size_t p,
                                 const muon_zero_param *q, int pieces, muon_zero_variant v)
{
  muon_status status = MUON_OK;
  CHECK (MUON_ERR_BADARG, b->experts >= 1, "matrix %zu: experts must be at least 1", p + 1);
  CHECK (MUON_ERR_BADSHAPE, b->experts <= q->rows && q->rows % b->experts == 0,
         "matrix %zu: %zu experts do not divide its %zu rows", p + 1, b->experts, q->rows);
  CHECK (MUON_ERR_NULLPTR, b->nsplit == 0 || b->split != NULL,
         "matrix %zu: split must not be NULL", p + 1);
  CHECK (MUON_ERR_BADSHAPE, b->nsplit <= MUON_MAX_SPLITS,
         "matrix %zu: more than %d split row blocks", p + 1, MUON_MAX_SPLITS);
  size_t page = q->rows / b->experts, sum = 0;
  for (size_t k = 0; k < b->nsplit; k++)
  {
    CHECK (MUON_ERR_BADSHAPE, b->split[k] >= 1 && b->split[k] <= page - sum,
           "matrix %zu: the split row blocks must be >= 1 and sum to %zu", p + 1, page);
    sum += b->split[k];
  }
  CHECK (MUON_ERR_BADSHAPE, b->nsplit == 0 || sum == page,
         "matrix %zu: the split row blocks sum to %zu, not %zu", p + 1, sum, page);
  CHECK (MUON_ERR_BADARG, !pieces || (b->experts == 1 && b->nsplit == 0),
         ZERO_PIECES_BLOCKS_WHY, MUON_NAME_OF (variant_names, v));
fail:
  return status;
}

muon_status zstep_check (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                         const muon_zero_step_opts *o)
{
  muon_status status = MUON_OK;
  CHECK (MUON_ERR_NULLPTR, comm != NULL && P != NULL && o != NULL,
         "communicator, plan and options must not be NULL");
  CHECK (MUON_ERR_BADARG, muon_comm_size (comm) == P->world,
         "the communicator has %d ranks, the layout %d", muon_comm_size (comm), P->world);
  CHECKSTATUS (muon_zero_step_check (ctx, P, o));
fail:
  return status;
}

muon_status muon_zero_step_check (muon_ctx *ctx, const muon_zero_plan *P,
                                  const muon_zero_step_opts *o)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, P != NULL && o != NULL, "plan and options must not be NULL");
  CHECK (MUON_ERR_BADARG, o->variant == P->variant,
         "the options name variant '%s', the plan '%s'",
         MUON_NAME_OF (variant_names, o->variant), MUON_NAME_OF (variant_names, P->variant));
  CHECK (MUON_ERR_BADARG, o->bucket_size == P->bucket_size
                          || (P->variant != MUON_ZERO_LAYERWISE_LPT
                              && P->variant != MUON_ZERO_LAYERWISE_NS_COST),
         "the options' bucket size %zu is not the plan's %zu", o->bucket_size, P->bucket_size);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_MOMENTUM_ARITH_LIST, o->update.arith),
         "unknown momentum arithmetic %d", (int) o->update.arith);
  // the steps' momentum (zero_step_common.c, zero_step_a2a.c, the dmem entry) is fp64
  CHECK (MUON_ERR_UNSUPPORTED, o->update.arith == MUON_ARITH_FP64,
         "a distributed step computes its momentum in fp64: momentum arithmetic '%s' is "
         "muon_update's only", o->update.arith == MUON_ARITH_TORCH ? "torch" : "?");
  CHECK (MUON_ERR_BADARG, o->update.nsplit == 0,
         "split row blocks are per matrix in a distributed step: give them in blocks");
  // a trace holds one call's snapshots; a step makes one call per matrix (or block), which
  // would be checked, and fail, only when it is reached, with some ranks updated
  CHECK (MUON_ERR_UNSUPPORTED, o->update.ns.trace == NULL,
         "a distributed step takes no trace (it records one muon_ns or muon_update call)");
  for (size_t p = 0; o->blocks && p < P->nparams; p++)
    CHECKSTATUS (check_blocks (ctx, &o->blocks[p], p, &P->L->params[p],
                               steps[P->variant].updates == ZUPD_PIECES, P->variant));
  CHECK (MUON_ERR_BADARG, o->block_scale > 0 && o->block_scale <= 1e300,
         "the block scale must be positive and finite (got %g)", o->block_scale);
  CHECK (MUON_ERR_BADARG, o->period >= 1 && o->step >= 0,
         "the period must be at least 1 and the step count non-negative (got %d, %d)",
         o->period, o->step);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_ZERO_PAD_COUNT_LIST, o->pad_count),
         "unknown pad count rule %d", (int) o->pad_count);
  for (size_t p = 0; p < P->nparams; p++)
    CHECKSTATUS (muon_update_check_opts (ctx, &o->update, P->L->params[p].rows));
fail:
  return status;
}

// One buffer of a rank: [lo, hi) in bytes.
typedef struct { uintptr_t lo, hi; } span;

static int span_cmp (const void *a, const void *b)
{
  uintptr_t x = ((const span *) a)->lo, y = ((const span *) b)->lo;
  return x < y ? -1 : x > y;
}

// Whether [lo, hi) (hi > lo, else nothing) shares memory with one of the n disjoint spans s,
// sorted: the last span starting below hi must end by lo.
static int span_hits (const span *s, size_t n, uintptr_t lo, uintptr_t hi)
{
  size_t a = 0, b = n;                             // s[0..a) start below hi
  if (hi <= lo)
    return 0;
  while (a < b)
  {
    size_t mid = a + (b - a) / 2;
    if (s[mid].lo < hi)
      a = mid + 1;
    else
      b = mid;
  }
  return a > 0 && s[a - 1].hi > lo;
}

// Whether two of the local ranks' momentum and update buffers share memory (a rank's buffer
// overlapping another's is BADARG, muon_comm.h; the step writes both): *bad 1; else whether
// a gradient shares memory with one of them (the step would overwrite what it reads): 2.  The
// reference design's ranks may hold one momentum buffer, the same pointer (DDP's W equal
// copies: update_held computes it once, the gateway passes it so on simulated ranks).
static muon_status buffers_overlap (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                                    const double *const *grads, double *const *momentum,
                                    double *const *updates, int *bad)
{
  muon_status status = MUON_OK;
  int L = muon_comm_local_ranks (comm), n = 0;
  span *s = NULL;
  *bad = 0;
  CHECKMEM (s = malloc (2 * (size_t) L * sizeof *s));
  for (int l = 0; l < L; l++)
  {
    int r = muon_comm_rank (comm, l);
    size_t len[2] = { P->momentum_len[r], P->owned_len[r] };
    double *const buf[2] = { momentum[l], updates[l] };
    int one = P->variant == MUON_ZERO_REFERENCE && l > 0 && momentum[l] == momentum[0];
    for (int k = one; k < 2; k++)
      if (len[k])
        s[n++] = (span) { (uintptr_t) buf[k], (uintptr_t) (buf[k] + len[k]) };
  }
  qsort (s, (size_t) n, sizeof *s, span_cmp);
  for (int i = 1; i < n && !*bad; i++)
    *bad = s[i].lo < s[i - 1].hi;
  // a gradient (read only; gradients may share memory) inside a buffer the step writes
  for (size_t g = 0; g < (size_t) L * P->nparams && !*bad; g++)
  {
    size_t numel = P->L->params[g % P->nparams].numel;   // (a device's may be NULL when 0)
    if (numel && span_hits (s, (size_t) n, (uintptr_t) grads[g],
                            (uintptr_t) (grads[g] + numel)))
      *bad = 2;
  }
fail:
  free (s);
  return status;
}

// The same for muon_zero_assemble, which writes the full matrices and reads the local ranks'
// update buffers: two full matrices that share memory, *bad 1; a full matrix that shares
// memory with an update buffer (the copies would overwrite what they read), 2.
static muon_status assemble_overlap (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                                     const double *const *updates, double *const *full,
                                     int *bad)
{
  muon_status status = MUON_OK;
  size_t n = 0;
  span *s = NULL;
  *bad = 0;
  CHECKMEM (s = malloc ((P->nparams ? P->nparams : 1) * sizeof *s));
  for (size_t p = 0; p < P->nparams; p++)
    if (P->L->params[p].numel)
      s[n++] = (span) { (uintptr_t) full[p], (uintptr_t) (full[p] + P->L->params[p].numel) };
  qsort (s, n, sizeof *s, span_cmp);
  for (size_t i = 1; i < n && !*bad; i++)
    *bad = s[i].lo < s[i - 1].hi;
  for (int l = 0; l < muon_comm_local_ranks (comm) && !*bad; l++)
    if (span_hits (s, n, (uintptr_t) updates[l],
                   (uintptr_t) (updates[l] + P->owned_len[muon_comm_rank (comm, l)])))
      *bad = 2;
fail:
  free (s);
  return status;
}

muon_status zstep_check_buffers (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                                 const double *const *grads, double *const *momentum,
                                 double *const *updates)
{
  muon_status status = MUON_OK;
  int bad = 0;
  CHECKSTATUS (buffers_overlap (ctx, comm, P, grads, momentum, updates, &bad));
  CHECK (MUON_ERR_BADARG, bad != 1,
         "the momentum and update buffers of the local ranks must not overlap");
  CHECK (MUON_ERR_BADARG, bad != 2,
         "a gradient must not share memory with a momentum or update buffer");
fail:
  return status;
}

static muon_status check_step (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                               const muon_zero_step_opts *o, const double *const *grads,
                               double *const *momentum, double *const *updates)
{
  muon_status status = MUON_OK;
  CHECKSTATUS (zstep_check (ctx, comm, P, o));
  CHECK (MUON_ERR_NULLPTR, grads != NULL && momentum != NULL && updates != NULL,
         "the buffers must not be NULL");
  for (int l = 0; l < muon_comm_local_ranks (comm); l++)
  {
    CHECK (MUON_ERR_NULLPTR, momentum[l] != NULL && updates[l] != NULL,
           "the buffers of local rank %d must not be NULL", l);
    for (size_t p = 0; p < P->nparams; p++)
      CHECK (MUON_ERR_NULLPTR, grads[(size_t) l * P->nparams + p] != NULL,
             "the gradient of matrix %zu on local rank %d must not be NULL", p, l);
  }
  CHECKSTATUS (zstep_check_buffers (ctx, comm, P, grads, momentum, updates));
fail:
  return status;
}

// Where each rank's span of p starts in its update buffer.  [out] at[world * nparams].
muon_status zstep_span_offsets (muon_ctx *ctx, const muon_zero_plan *P, size_t **at)
{
  muon_status status = MUON_OK;
  size_t np = P->nparams;
  CHECKMEM (*at = malloc ((size_t) P->world * np * sizeof **at));
  for (size_t r = 0; r < (size_t) P->world; r++)
    for (size_t p = 0, pos = 0; p < np; p++)
    {
      (*at)[r * np + p] = pos;
      pos += P->owned[r * np + p].stop - P->owned[r * np + p].start;
    }
fail:
  return status;
}

muon_status zstep_poll_hold (muon_ctx *ctx, muon_comm *comm, zstep_poll *saved)
{
  saved->poll = ctx->poll;
  saved->arg = ctx->poll_arg;
  if (muon_comm_local_ranks (comm) < muon_comm_size (comm))
    ctx->poll = NULL;
  return MUON_OK;
}

muon_status zstep_poll_resume (muon_ctx *ctx, const zstep_poll *saved)
{
  ctx->poll = saved->poll;
  ctx->poll_arg = saved->arg;
  return MUON_OK;
}

muon_status zstep_stats_begin (muon_ctx *ctx, muon_comm *comm, muon_zero_rank_stats *st)
{
  muon_status status = MUON_OK;
  for (int l = 0; l < muon_comm_local_ranks (comm); l++)
    CHECKSTATUS (muon_comm_counters_get (ctx, comm, l, &st[l].comm));
fail:
  return status;
}

muon_status zstep_stats_end (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                             muon_zero_rank_stats *st)
{
  muon_status status = MUON_OK;
  for (int l = 0; l < muon_comm_local_ranks (comm); l++)
  {
    muon_comm_counters after;
    CHECKSTATUS (muon_comm_counters_get (ctx, comm, l, &after));
    for (int k = 0; k < MUON_COLL_COUNT; k++)
    {
      after.calls[k] -= st[l].comm.calls[k];
      after.bytes_sent[k] -= st[l].comm.bytes_sent[k];
      after.bytes_recv[k] -= st[l].comm.bytes_recv[k];
    }
    st[l].comm = after;
    st[l].momentum_elements = P->momentum_len[muon_comm_rank (comm, l)];
  }
fail:
  return status;
}

muon_status muon_zero_step (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                            const muon_zero_step_opts *o, const double *const *grads,
                            double *const *momentum, double *const *updates,
                            muon_zero_rank_stats *stats)
{
  muon_status status = MUON_OK;
  muon_zero_rank_stats *st = NULL;
  double *work = NULL;
  zstep z = { 0 };
  zstep_poll poll;
  CHECKCTX (ctx);
  CHECKSTATUS (check_step (ctx, comm, P, o, grads, momentum, updates));
  int nl = muon_comm_local_ranks (comm);
  CHECKMEM (st = calloc ((size_t) nl, sizeof *st));
  z = (zstep) { .ctx = ctx, .comm = comm, .P = P, .o = o, .nl = nl, .grads = grads,
                .mom = momentum, .upd = updates, .st = st, .factor = 1 };
  CHECKSTATUS (zstep_span_offsets (ctx, P, &z.upd_at));
  size_t big = 0;   // three matrices of the largest size: G, M, U (or X, U)
  for (size_t p = 0; p < P->nparams; p++)
    big = P->L->params[p].numel > big ? P->L->params[p].numel : big;
  CHECK (MUON_ERR_BADSHAPE, big <= SIZE_MAX / 3 / sizeof (double), "matrices too large");
  CHECKMEM (work = malloc (3 * big * sizeof *work));
  z.work = work;
  CHECKSTATUS (zstep_scratch_begin (&z));

  CHECKSTATUS (zstep_stats_begin (ctx, comm, st));
  zstep_poll_hold (ctx, comm, &poll);
  muon_status stepped = steps[P->variant].step (&z);
  zstep_poll_resume (ctx, &poll);
  CHECKSTATUS (stepped);
  CHECKSTATUS (zstep_stats_end (ctx, comm, P, st));
  if (stats)
    memcpy (stats, st, (size_t) nl * sizeof *st);
  if (z.warned)
    status = muon_ctx_set_error (ctx, MUON_WARN_NONFINITE, "non-finite values in an update");
fail:
  free (st);
  free (work);
  free (z.upd_at);
  return status;
}

muon_status muon_zero_assemble (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                                const double *const *updates, double *const *full)
{
  muon_status status = MUON_OK;
  size_t *at = NULL, C = 0;
  double *send = NULL, *recv = NULL;
  void **slots = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, comm && P && updates && full,
         "communicator, plan and buffers must not be NULL");
  CHECK (MUON_ERR_BADARG, muon_comm_size (comm) == P->world,
         "the communicator has %d ranks, the layout %d", muon_comm_size (comm), P->world);
  size_t np = P->nparams, W = (size_t) P->world;
  int L = muon_comm_local_ranks (comm);
  for (int l = 0; l < L; l++)
    CHECK (MUON_ERR_NULLPTR, updates[l] != NULL,
           "local rank %d's update buffer must not be NULL", l);
  for (size_t p = 0; p < np; p++)
    CHECK (MUON_ERR_NULLPTR, full[p] != NULL, "full buffer %zu must not be NULL", p);
  int bad = 0;
  CHECKSTATUS (assemble_overlap (ctx, comm, P, updates, full, &bad));
  CHECK (MUON_ERR_BADARG, bad != 1, "the full buffers must not overlap each other");
  CHECK (MUON_ERR_BADARG, bad != 2,
         "a full buffer must not share memory with a local rank's update buffer");
  CHECKSTATUS (zstep_span_offsets (ctx, P, &at));
  const double *const *from = updates;   // rank r's buffer, all ranks local
  if (muon_comm_local_ranks (comm) != P->world)
  {
    // one local rank: everyone's buffers through an all-gather, padded to the longest
    for (size_t r = 0; r < W; r++)
      C = P->owned_len[r] > C ? P->owned_len[r] : C;
    CHECKMEM (send = calloc (C ? C : 1, sizeof *send));
    CHECKMEM (recv = calloc (C > 0 ? C * W : 1, sizeof *recv));
    CHECKMEM (slots = malloc (W * sizeof *slots));
    memcpy (send, updates[0], P->owned_len[muon_comm_rank (comm, 0)] * sizeof *send);
    for (size_t r = 0; r < W; r++)
      slots[r] = recv + r * C;
    CHECKSTATUS (muon_comm_all_gather (ctx, comm, (const void *const *) &send, slots, C,
                                       MUON_F64));
    from = (const double *const *) slots;
  }
  for (size_t r = 0; r < W; r++)
    for (size_t p = 0; p < np; p++)
    {
      muon_zero_span s = P->owned[r * np + p];
      const muon_zero_param *q = &P->L->params[p];
      zstep_scatter_rm (from[r] + at[r * np + p], q->rows, q->cols, s.start, s.stop, full[p]);
    }
fail:
  free (at);
  free (send);
  free (recv);
  free (slots);
  return status;
}
