/* zero_cost_common.c - the helpers of the plan-only cost models (zero_cost_impl.h): the
 * partition without its pieces, one collective's ring-model bytes on every rank, the work of
 * whole-matrix owners, prefix sums of difference arrays, and the least-loaded-rank heap.
 * (The FLOPs of a page are the FLOP model of the math layer, muon_ns_flops_matrix.)
 */
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

// One collective of `count` elements (as the communicator takes it) on every rank.
muon_status zcost_add_coll (cost_job *J, muon_coll coll, size_t count)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  muon_zero_cost *C = J->C;
  uint64_t s = 0, r = 0, e = (uint64_t) J->o->elem_bytes;
  for (size_t q = 0; q < J->W; q++)
  {
    // every rank's figure is the same but the all-reduce's (chunks of unequal length)
    if (q == 0 || coll == MUON_COLL_ALLREDUCE)
    {
      CHECKSTATUS (muon_comm_model_bytes (ctx, coll, (int) J->W, (int) q, 0, count, MUON_F64,
                                          &s, &r));
      s = s / 8 * e;
      r = r / 8 * e;
    }
    C->calls[q * MUON_COST_COLLS + coll]++;
    C->sent[q * MUON_COST_COLLS + coll] += s;
    C->recv[q * MUON_COST_COLLS + coll] += r;
  }
fail:
  return status;
}

// Prefix sums of difference arrays: d[0..W] -> per rank values in out[0..W-1].
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

