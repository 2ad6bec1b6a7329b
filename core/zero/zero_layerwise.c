/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_layerwise.c - Megatron's LayerWiseDistributedOptimizer layout (zero_variant.h):
 * which rank owns each whole matrix, in which bucket, at which start of its shard, and each
 * bucket's padded shard size, under its rule before PR #6379 (element count) and since
 * (Newton-Schulz cost).  The plan (zero_plan.c) and the cost model (zero_cost_rr.c) share it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "muon_internal.h"
#include "zero_variant.h"

// n rounded up to a multiple of 64: Megatron's pad_param_start.
static size_t round_up_64 (size_t n)
{
  return (n + 63) / 64 * 64;
}

static size_t gcd_sz (size_t a, size_t b)
{
  while (b)
  {
    size_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Megatron's LayerWiseDistributedOptimizer._shard_divisor without the NCCL busbw padding:
// lcm (64, bucket_end_divisor (W) / W), bucket_end_divisor (W) = lcm (W, 128); 128 for odd
// W, else 64.
static size_t layerwise_shard_divisor (size_t W)
{
  size_t per = 128 / gcd_sz (W, 128);    // lcm (W, 128) / W
  return 64 / gcd_sz (64, per) * per;
}

// A matrix of zero_layerwise_owners's sort: its key, its place in the walk (last first), it.
typedef struct { uint64_t cost; size_t walk, index; } ns_cost_key;

// Key descending, then the walk's order: Python's stable sort of the walk by -key.
static int ns_cost_key_desc (const void *a, const void *b)
{
  const ns_cost_key *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost < y->cost ? 1 : -1;
  return (x->walk > y->walk) - (x->walk < y->walk);
}

// max (m, n) min (m, n)^2 of an m x n matrix (zero_ns_cost_overflow says it fits).
static uint64_t ns_cost (uint64_t m, uint64_t n)
{
  uint64_t big = m > n ? m : n, small = m > n ? n : m;
  return big * small * small;
}

size_t zero_ns_cost_overflow (size_t np, const size_t *rows, const size_t *cols)
{
  uint64_t all = 0;
  for (size_t p = 0; p < np; p++)
  {
    uint64_t big = rows[p] > cols[p] ? rows[p] : cols[p];
    uint64_t small = rows[p] > cols[p] ? cols[p] : rows[p];
    if (small != 0 && (small > UINT64_MAX / small || big > UINT64_MAX / (small * small)
                       || all > UINT64_MAX - big * small * small))
      return p + 1;
    all += big * small * small;
  }
  return 0;
}

// Megatron's LayerWiseDistributedOptimizer (its _compute_per_buffer_param_layout): the
// matrices walked last first, cut into buckets, each bucket stably sorted by a key,
// descending (equal keys: the later matrix first).  by_cost 0 (before its PR #6379,
// 2026-08): the key is the element count, and each matrix goes to the rank of least element
// cursor (a cursor moves to the matrix's start rounded up to 64 elements, then past it).
// by_cost 1 (since): the key is the Newton-Schulz cost max (m, n) min (m, n)^2, and each
// matrix goes to the rank of least accumulated cost among those whose cursor stays within
// 1.3 (bucket's elements) / W with it, else (no such rank) to the rank of least cursor.  The
// lowest rank on ties.  Cursors start at 0 in every bucket; the accumulated costs persist
// across buckets.  Keys are exact integers, as Python's; BADSHAPE where the costs' sum would
// pass 2^64.  The buffer (the same layout under both rules, Megatron 81fe7c746f and since):
// each bucket is W shards; a rank's shard holds its matrices of the bucket in the order dealt,
// each starting at the shard's cursor rounded up to 64 elements (pad_param_start); every
// shard of bucket b is shard[b] = padded_shard_size, the bucket's largest cursor rounded up
// to shard_divisor = lcm (64, lcm (W, 128) / W) (bucket_end_divisor without the NCCL busbw
// padding); shard s spans [s shard[b], (s + 1) shard[b]) of the bucket; the buckets lie back
// to back.  bucket 0: one bucket (Megatron's bucket_size None); else (ddp_config.bucket_size)
// the walk closes the bucket before a matrix when its elements reach max (bucket, int (W
// largest 0.9)) (largest: its largest matrix's elements) and the matrix would not fit the
// estimated shards' padding (_absorbs: the estimate deals the walk, unsorted, to the least
// loaded shard; the matrix fits when that shard's load rounded up to 64 plus it stays within
// the largest load rounded up to shard_divisor).  No tied embedding bucket.  [out] owner[np];
// [out] dealt[np] (may be NULL): the matrices in the order dealt; [out] at[np] (may be NULL):
// each matrix's start in its owner's shard of its bucket; [out] in_bucket[np] (may be NULL):
// each matrix's bucket; [out] shard[np] (may be NULL; room for np, buckets <= np):
// padded_shard_size of each bucket; [out] *nbuckets (may be NULL).
muon_status zero_layerwise_owners (muon_ctx *ctx, size_t np, const size_t *rows,
                                   const size_t *cols, int W, int by_cost, size_t bucket,
                                   int *owner, size_t *dealt, size_t *at, size_t *in_bucket,
                                   size_t *shard, size_t *nbuckets)
{
  muon_status status = MUON_OK;
  ns_cost_key *keys = NULL;
  uint64_t *load = NULL;
  size_t *cursor = NULL, *est = NULL, nb = 0, ndealt = 0;
  size_t div = layerwise_shard_divisor ((size_t) W);
  CHECKMEM (keys = malloc ((np ? np : 1) * sizeof *keys));
  CHECKMEM (load = calloc ((size_t) W, sizeof *load));
  CHECKMEM (cursor = calloc ((size_t) W, sizeof *cursor));
  CHECKMEM (est = calloc ((size_t) W, sizeof *est));
  size_t over = by_cost ? zero_ns_cost_overflow (np, rows, cols) : 0;
  CHECK (MUON_ERR_BADSHAPE, over == 0,
         "matrix %zu: the Newton-Schulz costs of the matrices pass 2^64", over);
  // the walk, last first: keys[first .. k) is the open bucket
  size_t first = 0, chunk = 0, largest = 0;
  for (size_t w = 0; w <= np; w++)
  {
    size_t p = w < np ? np - 1 - w : 0, n = w < np ? rows[p] * cols[p] : 0;
    int close = w == np && w > first;
    if (w < np && bucket > 0 && w > first)
    {
      size_t floor_ = (size_t) ((double) ((size_t) W * largest) * 0.9);
      size_t threshold = bucket > floor_ ? bucket : floor_;
      size_t lo = 0, hi = 0;
      for (int r = 0; r < W; r++)
      {
        lo = est[r] < est[lo] ? (size_t) r : lo;
        hi = est[r] > hi ? est[r] : hi;
      }
      size_t target = (hi + div - 1) / div * div;
      close = chunk >= threshold && !(round_up_64 (est[lo]) + n <= target);
    }
    if (close)
    {
      // deal keys[first .. w): sort, then each to a rank; cursors from 0
      qsort (keys + first, w - first, sizeof *keys, ns_cost_key_desc);
      double cap = (double) chunk / W * (1 + 0.3);   // Python's float, compared exactly
      memset (cursor, 0, (size_t) W * sizeof *cursor);
      for (size_t k = first; k < w; k++)
      {
        size_t q = keys[k].index, m = rows[q] * cols[q];
        int best = -1;
        for (int r = 0; r < W && by_cost; r++)
          if ((double) (round_up_64 (cursor[r]) + m) <= cap
              && (best < 0 || load[r] < load[best]))
            best = r;
        if (best < 0)
        {
          best = 0;
          for (int r = 1; r < W; r++)
            if (cursor[r] < cursor[best])
              best = r;
        }
        owner[q] = best;
        if (at)
          at[q] = round_up_64 (cursor[best]);
        if (in_bucket)
          in_bucket[q] = nb;
        cursor[best] = round_up_64 (cursor[best]) + m;
        load[best] += keys[k].cost;
        if (dealt)
          dealt[ndealt] = q;
        ndealt++;
      }
      size_t most = 0;
      for (int r = 0; r < W; r++)
        most = cursor[r] > most ? cursor[r] : most;
      if (shard)
        shard[nb] = (most + div - 1) / div * div;
      nb++;
      first = w;
      chunk = largest = 0;
      memset (est, 0, (size_t) W * sizeof *est);
    }
    if (w == np)
      break;
    // _place: the estimate's least loaded shard (lowest on ties)
    size_t lo = 0;
    for (int r = 1; r < W; r++)
      lo = est[r] < est[lo] ? (size_t) r : lo;
    est[lo] = round_up_64 (est[lo]) + n;
    keys[w] = (ns_cost_key) { by_cost ? ns_cost (rows[p], cols[p]) : n, w, p };
    chunk += n;
    largest = n > largest ? n : largest;
  }
  if (nbuckets)
    *nbuckets = nb;
fail:
  free (keys);
  free (load);
  free (cursor);
  free (est);
  return status;
}
