/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_cost_common.c - the helpers of the plan-only cost models (zero_cost_impl.h): the
 * partition without its pieces, one collective's ring-model bytes on every rank, the work of
 * whole-matrix owners, prefix sums of difference arrays, and the least-loaded-rank heap.
 * (The FLOPs of a page are the FLOP model of the math layer, muon_ns_flops_matrix.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zero_cost_impl.h"

void zcost_part_free (part_t *q)
{
  free (q->off);
  free (q->chunk);
  free (q->first);
  free (q->last);
  memset (q, 0, sizeof *q);
}

// Elements [*lo, *hi) of matrix p (numel n) that rank r holds.
void zcost_part_range (const part_t *q, size_t p, size_t n, size_t r, size_t *lo, size_t *hi)
{
  if (q->stage == 3)
  {
    *lo = min_sz (r * q->chunk[p], n);
    *hi = min_sz ((r + 1) * q->chunk[p], n);
    return;
  }
  size_t a = r * q->S, b = a + q->S, end = q->off[p] + n;
  *lo = a <= q->off[p] ? 0 : min_sz (a, end) - q->off[p];
  *hi = b <= q->off[p] ? 0 : min_sz (b, end) - q->off[p];
}

muon_status zcost_part_build (cost_job *J, int stage, part_t *q)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  size_t np = J->np, W = J->W;
  memset (q, 0, sizeof *q);
  q->stage = stage;
  CHECKMEM (q->off = calloc (np, sizeof *q->off));
  CHECKMEM (q->chunk = calloc (np, sizeof *q->chunk));
  CHECKMEM (q->first = calloc (np, sizeof *q->first));
  CHECKMEM (q->last = calloc (np, sizeof *q->last));
  size_t off = 0;
  for (size_t k = 0; k < np; k++)
  {
    size_t p = J->order[k], n = J->numel[p];
    q->off[p] = off;
    if (stage == 3)
    {
      q->chunk[p] = n / W + (n % W != 0);
      CHECK (MUON_ERR_BADSHAPE, q->chunk[p] <= SIZE_MAX / W
             && q->S <= SIZE_MAX - q->chunk[p] && off <= SIZE_MAX - q->chunk[p] * W,
             "the padded buffer overflows");
      q->S += q->chunk[p];
      off += q->chunk[p] * W;
    }
    else
      off += n;
  }
  if (stage == 3)
    q->padded_total = off;
  else
  {
    size_t unit = (size_t) J->o->align_factor * W, rem = J->total % unit;
    CHECK (MUON_ERR_BADSHAPE, !rem || J->total <= SIZE_MAX - (unit - rem),
           "the padded buffer overflows");
    q->padded_total = J->total + (rem ? unit - rem : 0);
    q->S = q->padded_total / W;
  }
  for (size_t p = 0; p < np; p++)
  {
    size_t n = J->numel[p];
    q->first[p] = stage == 3 ? 0 : (int) (q->off[p] / q->S);
    q->last[p] = stage == 3 ? (int) ((n - 1) / q->chunk[p]) : (int) ((q->off[p] + n - 1) / q->S);
  }
fail:
  if (status < 0)
    zcost_part_free (q);
  return status;
}

MUON_NAME_TABLE (coll_names, MUON_COLL_LIST);   // for why and the messages

// The design's bytes pass 2^64 in collective coll (why: what passes, after "its"; msg: the
// error's words).  With o->overflow_fails the design fails: J->over and its why (the
// collectives are left out, zero_cost.c); else BADSHAPE.
static muon_status bytes_over (cost_job *J, const char *why, const char *msg)
{
  muon_ctx *ctx = J->ctx;
  if (!J->o->overflow_fails)
    return muon_ctx_set_error (ctx, MUON_ERR_BADSHAPE, "%s", msg);
  J->over = 1;
  snprintf (J->over_why, sizeof J->over_why, "its %s", why);
  return MUON_OK;
}

// s and r bytes (and `calls` calls) more in rank q's column coll; past 2^64, bytes_over.
static muon_status add_bytes (cost_job *J, size_t q, muon_coll coll, uint64_t calls,
                              uint64_t s, uint64_t r)
{
  muon_zero_cost *C = J->C;
  size_t k = q * MUON_COST_COLLS + (size_t) coll;
  if (C->sent[k] > UINT64_MAX - s || C->recv[k] > UINT64_MAX - r)
  {
    char why[96], msg[96];
    snprintf (why, sizeof why, "%s bytes pass 2^64", MUON_NAME_OF (coll_names, coll));
    snprintf (msg, sizeof msg, "the %s bytes of rank %zu pass 2^64",
              MUON_NAME_OF (coll_names, coll), q);
    return bytes_over (J, why, msg);
  }
  C->calls[k] += calls;
  C->sent[k] += s;
  C->recv[k] += r;
  return MUON_OK;
}

// n elements at elem_bytes each, or bytes_over.
static muon_status scale (cost_job *J, muon_coll coll, uint64_t n, uint64_t *bytes)
{
  uint64_t e = (uint64_t) J->o->elem_bytes;
  if (n > UINT64_MAX / e)
  {
    char why[96], msg[96];
    snprintf (why, sizeof why, "%s bytes pass 2^64 (%d bytes an element)",
              MUON_NAME_OF (coll_names, coll), J->o->elem_bytes);
    snprintf (msg, sizeof msg, "the %s bytes pass 2^64 (%d bytes an element)",
              MUON_NAME_OF (coll_names, coll), J->o->elem_bytes);
    return bytes_over (J, why, msg);
  }
  *bytes = n * e;
  return MUON_OK;
}

// One collective of `count` elements (as the communicator takes it) on every rank.
muon_status zcost_add_coll (cost_job *J, muon_coll coll, size_t count)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  uint64_t s = 0, r = 0, e8 = 8;                  // the model's fp64 bytes, then elem_bytes
  if (J->over)
    return MUON_OK;
  // the communicators' byte counters (muon_comm_model_bytes) take count W 8 < 2^64
  if ((uint64_t) count > UINT64_MAX / J->W / e8)
  {
    char why[96], msg[96];
    snprintf (why, sizeof why, "%s of %zu elements is too many to count (64-bit bytes)",
              MUON_NAME_OF (coll_names, coll), count);
    snprintf (msg, sizeof msg, "%zu elements are too many to count", count);
    return bytes_over (J, why, msg);
  }
  for (size_t q = 0; q < J->W && !J->over; q++)
  {
    // every rank's figure is the same but the all-reduce's (chunks of unequal length)
    if (q == 0 || coll == MUON_COLL_ALLREDUCE)
    {
      CHECKSTATUS (muon_comm_model_bytes (ctx, coll, (int) J->W, (int) q, 0, count, MUON_F64,
                                          &s, &r));
      CHECKSTATUS (scale (J, coll, s / e8, &s));
      CHECKSTATUS (scale (J, coll, r / e8, &r));
      if (J->over)
        break;
    }
    CHECKSTATUS (add_bytes (J, q, coll, 1, s, r));
  }
fail:
  return status;
}

muon_status zcost_add_elems (cost_job *J, size_t r, muon_coll coll, uint64_t calls,
                             uint64_t elems)
{
  muon_status status = MUON_OK;
  uint64_t b = 0;
  if (J->over)
    return MUON_OK;
  status = scale (J, coll, elems, &b);
  if (status == MUON_OK && !J->over)
    status = add_bytes (J, r, coll, calls, b, b);
  return status;
}

void zcost_set_busy (cost_job *J, uint64_t calls, uint64_t elems)
{
  J->busy_a2a = (double) calls * (double) elems * (double) J->o->elem_bytes;
}

void zcost_owner_work (cost_job *J)
{
  muon_zero_cost *C = J->C;
  for (size_t p = 0; p < J->np; p++)
  {
    size_t r = (size_t) C->ns_rank[p];
    C->ns_calls[r] += J->par[p].experts ? J->par[p].experts : 1;   // one per page
    C->ns_flops[r] += J->pf[p];
    C->momentum[r] += J->numel[p];
  }
}

uint64_t zcost_elems (cost_job *J, size_t r, size_t n, const uint64_t *v)
{
  uint64_t sum = 0;
  for (size_t k = 0; k < n; k++)
  {
    uint64_t a = v[2 * k], b = v[2 * k + 1];
    // UINT64_MAX itself stands for "does not fit": a sum reaching it is refused too
    if ((b != 0 && a > UINT64_MAX / b) || a * b >= UINT64_MAX - sum)
    {
      if (!J->trans_over)
        J->trans_rank = r;
      J->trans_over = 1;
      return UINT64_MAX;
    }
    sum += a * b;
  }
  return sum;
}

// Prefix sums of difference arrays: d[0..W] -> per rank values in out[0..W-1].
void zcost_prefix_u (const int64_t *d, uint64_t *out, size_t W)
{
  int64_t acc = 0;
  for (size_t r = 0; r < W; r++)
  {
    acc += d[r];
    out[r] = (uint64_t) acc;
  }
}

static int heap_less (heap_item a, heap_item b)
{
  return a.load < b.load || (a.load == b.load && a.rank < b.rank);
}

void zcost_heap_down (heap_item *h, size_t n, size_t i)
{
  for (;;)
  {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && heap_less (h[l], h[m]))
      m = l;
    if (r < n && heap_less (h[r], h[m]))
      m = r;
    if (m == i)
      return;
    heap_item t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

