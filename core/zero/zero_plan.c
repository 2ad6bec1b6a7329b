/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_plan.c - what each rank holds and owns under a distributed Muon variant
 * (muon_zero.h): the partition it uses, the element spans each rank returns, the
 * momentum layout and size, the Newton-Schulz calls per step (Megatron's layer-wise owners:
 * zero_layerwise.c).
 * Everything here follows from the layout alone, so every rank of a real run computes the
 * same plan without talking to the others.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "muon_internal.h"
#include "zero_variant.h"

//---- the variant table (zero_variant.h) -----------------------------------------------------

#define ZERO_VARIANT_ROW(v, exact, part, holds, updates, keeps, step, cost, dev) \
  [v] = { exact, part, holds, updates, keeps },
static const zvariant variants[] = { ZERO_VARIANTS (ZERO_VARIANT_ROW) };
#undef ZERO_VARIANT_ROW
#define ZERO_VARIANT_ONE(v, exact, part, holds, updates, keeps, step, cost, dev) +1
enum { ZERO_VARIANT_ROWS = 0 ZERO_VARIANTS (ZERO_VARIANT_ONE) };
#undef ZERO_VARIANT_ONE

// one row for every value of MUON_ZERO_VARIANT_LIST (contiguous from 0), none twice
typedef char zero_variants_complete[sizeof variants / sizeof variants[0]
                                    == MUON_ZERO_VARIANT_COUNT
                                    && (int) ZERO_VARIANT_ROWS == (int) MUON_ZERO_VARIANT_COUNT
                                    ? 1 : -1];

// The row of variant v, or NULL when v is no variant.
static const zvariant *zvariant_of (muon_zero_variant v)
{
  return (int) v < 0 || (int) v >= MUON_ZERO_VARIANT_COUNT ? NULL : &variants[v];
}

int muon_zero_variant_is_correct (muon_zero_variant v)
{
  const zvariant *t = zvariant_of (v);
  return t != NULL && t->exact;
}

muon_status muon_zero_variant_ns_scope (muon_zero_variant v, muon_zero_ns_scope *scope)
{
  const zvariant *t = zvariant_of (v);
  if (scope == NULL)
    return MUON_ERR_NULLPTR;
  if (t == NULL)
    return MUON_ERR_BADARG;
  *scope = t->updates == ZUPD_PIECES           ? MUON_ZERO_NS_PIECE_ROWS
         : t->updates == ZUPD_SIZE_RR_BLOCKS   ? MUON_ZERO_NS_SHARD_ROWS
                                               : MUON_ZERO_NS_BLOCKS;
  return MUON_OK;
}

void muon_zero_step_opts_default (muon_zero_step_opts *o)
{
  if (o == NULL)
    return;
  memset (o, 0, sizeof *o);
  o->variant = MUON_ZERO12_ALLREDUCE;   // the default design, of zero_muon_step too
  o->pad_count = MUON_ZERO_PADS_DEEPSPEED;
  o->period = 4;
  o->step = 0;
  o->block_scale = 1;
  muon_update_opts_default (&o->update);
}

//---- LPT ----------------------------------------------------------------------------------

// Largest matrix first onto the least-loaded rank (lowest rank on ties; numel descending,
// index ascending): the plan's owners of expert_parallel's matrices, as a step without
// experts deals them.  [out] owner[nparams], *segment (largest load).
static muon_status lpt_assign (muon_ctx *ctx, const muon_zero_layout *L, int *owner,
                               size_t *segment)
{
  muon_status status = MUON_OK;
  muon_size_key *keys = NULL;
  size_t *load = NULL;
  CHECKMEM (keys = malloc (L->nparams * sizeof *keys));
  CHECKMEM (load = calloc ((size_t) L->world, sizeof *load));
  for (size_t p = 0; p < L->nparams; p++)
    keys[p] = (muon_size_key) { L->params[p].numel, p };
  qsort (keys, L->nparams, sizeof *keys, muon_size_key_desc);
  for (size_t k = 0; k < L->nparams; k++)
  {
    int best = 0;
    for (int r = 1; r < L->world; r++)
      if (load[r] < load[best])
        best = r;
    owner[keys[k].index] = best;
    load[best] += keys[k].numel;
  }
  *segment = 0;
  for (int r = 0; r < L->world; r++)
    if (load[r] > *segment)
      *segment = load[r];
fail:
  free (keys);
  free (load);
  return status;
}

// zero_layerwise_owners on L's matrices: Megatron's layout of P->bucket_size (0: one
// bucket).  Sets P->lpt_owner, lpt_at (each matrix's start in its owner's shard of its
// bucket), lpt_bucket, lpt_bucket_seg[lpt_nbuckets] (padded_shard_size of each bucket: its
// reduce-scatter moves W of them) and lpt_segment (their sum).
static muon_status layerwise_assign (muon_ctx *ctx, muon_zero_plan *P, int by_cost)
{
  muon_status status = MUON_OK;
  const muon_zero_layout *L = P->L;
  size_t np = L->nparams, *rows = NULL, *cols = NULL;
  CHECKMEM (rows = calloc (np ? np : 1, sizeof *rows));
  CHECKMEM (cols = calloc (np ? np : 1, sizeof *cols));
  CHECKMEM (P->lpt_owner = malloc ((np ? np : 1) * sizeof *P->lpt_owner));
  CHECKMEM (P->lpt_at = malloc ((np ? np : 1) * sizeof *P->lpt_at));
  CHECKMEM (P->lpt_bucket = malloc ((np ? np : 1) * sizeof *P->lpt_bucket));
  CHECKMEM (P->lpt_bucket_seg = calloc (np ? np : 1, sizeof *P->lpt_bucket_seg));
  for (size_t p = 0; p < np; p++)
  {
    rows[p] = L->params[p].rows;
    cols[p] = L->params[p].cols;
  }
  CHECKSTATUS (zero_layerwise_owners (ctx, np, rows, cols, L->world, by_cost, P->bucket_size,
                                      P->lpt_owner, NULL, P->lpt_at, P->lpt_bucket,
                                      P->lpt_bucket_seg, &P->lpt_nbuckets));
  P->lpt_segment = 0;
  for (size_t b = 0; b < P->lpt_nbuckets; b++)
    P->lpt_segment += P->lpt_bucket_seg[b];
fail:
  free (rows);
  free (cols);
  return status;
}

// One owner per matrix, round robin over the matrices by numel descending (index ascending
// on ties): muonlab's owner rule of the all-to-all owner idea (Dion's is a contiguous block
// of each zero-padded same-shape group), and zero_cost.c's.  [out] owner[nparams].
static muon_status size_rr_assign (muon_ctx *ctx, const muon_zero_layout *L, int *owner)
{
  muon_status status = MUON_OK;
  muon_size_key *keys = NULL;
  CHECKMEM (keys = malloc (L->nparams * sizeof *keys));
  for (size_t p = 0; p < L->nparams; p++)
    keys[p] = (muon_size_key) { L->params[p].numel, p };
  qsort (keys, L->nparams, sizeof *keys, muon_size_key_desc);
  for (size_t k = 0; k < L->nparams; k++)
    owner[keys[k].index] = (int) (k % (size_t) L->world);
fail:
  free (keys);
  return status;
}

//---- plan ---------------------------------------------------------------------------------

muon_status muon_zero_plan_destroy (muon_zero_plan **plan)
{
  if (plan == NULL)
    return MUON_ERR_NULLPTR;
  muon_zero_plan *P = *plan;
  if (P)
  {
    muon_zero_layout_destroy (&P->own_part);
    free (P->lpt_owner);
    free (P->lpt_at);
    free (P->lpt_bucket);
    free (P->lpt_bucket_seg);
    free (P->owned);
    free (P->owned_len);
    free (P->momentum_len);
    free (P->momentum_at);
    free (P->ns_calls);
    free (P);
    *plan = NULL;
  }
  return MUON_OK;
}

// The stage-3 layout of L's matrices in L's order (L itself when it is stage 3).
static muon_status stage3_of (muon_ctx *ctx, muon_zero_plan *P)
{
  muon_status status = MUON_OK;
  const muon_zero_layout *L = P->L;
  size_t *rows = NULL, *cols = NULL;
  if (L->stage == 3)
  {
    P->part = L;
    return MUON_OK;
  }
  CHECKMEM (rows = malloc (L->nparams * sizeof *rows));
  CHECKMEM (cols = malloc (L->nparams * sizeof *cols));
  for (size_t p = 0; p < L->nparams; p++)
  {
    rows[p] = L->params[p].rows;
    cols[p] = L->params[p].cols;
  }
  muon_zero_layout_opts o = { 3, L->align_factor, L->order_mode };
  CHECKSTATUS (muon_zero_layout_create (ctx, L->nparams, rows, cols, L->world, &o,
                                        &P->own_part));
  P->part = P->own_part;
fail:
  free (rows);
  free (cols);
  return status;
}

// Does rank r update (run Newton-Schulz on) matrix p?  Under MUON_ZERO_MOM_FULL it then
// holds p's full momentum.
static int updates (const zvariant *t, const muon_zero_plan *P, int r, size_t p)
{
  const muon_zero_param *q = &P->part->params[p];
  switch (t->updates)
  {
    case ZUPD_ALL: return 1;
    case ZUPD_OWNERS:
    case ZUPD_PIECES: return r >= q->first_owner && r <= q->last_owner;
    case ZUPD_ROUND_ROBIN: return (int) (q->slot % (size_t) P->world) == r;
    case ZUPD_LPT:
    case ZUPD_LPT_NS_COST:
    case ZUPD_UNITS:
    case ZUPD_SIZE_RR:
    case ZUPD_SIZE_RR_BLOCKS: return P->lpt_owner[p] == r;
  }
  return 0;
}

muon_status muon_zero_plan_create (muon_ctx *ctx, const muon_zero_layout *L,
                                   muon_zero_variant variant, muon_zero_plan **plan)
{
  return muon_zero_plan_create_bucketed (ctx, L, variant, 0, plan);
}

muon_status muon_zero_plan_create_bucketed (muon_ctx *ctx, const muon_zero_layout *L,
                                            muon_zero_variant variant, size_t bucket_size,
                                            muon_zero_plan **plan)
{
  muon_status status = MUON_OK;
  muon_zero_plan *P = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, plan != NULL && L != NULL, "layout and plan must not be NULL");
  *plan = NULL;
  const zvariant *t = zvariant_of (variant);
  CHECK (MUON_ERR_BADARG, t != NULL, "unknown variant %d", (int) variant);
  size_t np = L->nparams, W = (size_t) L->world;
  CHECK (MUON_ERR_BADARG, np <= SIZE_MAX / W / sizeof (size_t), "layout too large");
  CHECKMEM (P = calloc (1, sizeof *P));
  P->variant = variant;
  P->L = L;
  P->part = L;
  P->world = L->world;
  P->nparams = np;
  if (t->part == ZPART_STAGE3)
    CHECKSTATUS (stage3_of (ctx, P));
  if (t->updates == ZUPD_UNITS)
  {
    CHECKMEM (P->lpt_owner = malloc (np * sizeof *P->lpt_owner));
    CHECKSTATUS (lpt_assign (ctx, L, P->lpt_owner, &P->lpt_segment));
  }
  if (t->updates == ZUPD_LPT || t->updates == ZUPD_LPT_NS_COST)
  {
    P->bucket_size = bucket_size;
    CHECKSTATUS (layerwise_assign (ctx, P, t->updates == ZUPD_LPT_NS_COST));
  }
  if (t->updates == ZUPD_SIZE_RR || t->updates == ZUPD_SIZE_RR_BLOCKS)
  {
    CHECKMEM (P->lpt_owner = malloc (np * sizeof *P->lpt_owner));
    CHECKSTATUS (size_rr_assign (ctx, L, P->lpt_owner));
  }
  CHECKMEM (P->owned = calloc (W * np, sizeof *P->owned));
  CHECKMEM (P->owned_len = calloc (W, sizeof *P->owned_len));
  CHECKMEM (P->momentum_len = calloc (W, sizeof *P->momentum_len));
  CHECKMEM (P->momentum_at = malloc (W * np * sizeof *P->momentum_at));
  CHECKMEM (P->ns_calls = calloc (W, sizeof *P->ns_calls));
  const muon_zero_layout *part = P->part;

  // owned spans: the partition's pieces, the whole matrices a rank updates, or its rows
  if (t->keeps == ZKEEP_ROWS)
  {
    for (size_t r = 0; r < W; r++)
      for (size_t p = 0; p < np; p++)
      {
        const muon_zero_param *q = &L->params[p];
        size_t r0, nr;
        zshard_rows (q->rows, L->world, (int) r, &r0, &nr);
        P->owned[r * np + p] = (muon_zero_span) { r0 * q->cols, (r0 + nr) * q->cols };
      }
  }
  else if (t->keeps == ZKEEP_WHOLE)
  {
    for (size_t r = 0; r < W; r++)
      for (size_t p = 0; p < np; p++)
        if (updates (t, P, (int) r, p))
          P->owned[r * np + p] = (muon_zero_span) { 0, L->params[p].numel };
  }
  else
    for (size_t k = 0; k < part->npieces; k++)
    {
      const muon_zero_piece *c = &part->pieces[k];
      P->owned[(size_t) c->rank * np + c->param] =
        (muon_zero_span) { c->local_start, c->local_stop };
    }
  for (size_t r = 0; r < W; r++)
    for (size_t p = 0; p < np; p++)
      P->owned_len[r] += P->owned[r * np + p].stop - P->owned[r * np + p].start;

  for (size_t p = 0; p < np; p++)
    if (t->part == ZPART_ROW_SHARDS ? L->params[p].rows > zshard_rc (L->params[p].rows, L->world)
                                    : part->params[p].straddles)
      P->straddle_total += part->params[p].numel;

  // momentum and Newton-Schulz calls
  int full = t->holds == MUON_ZERO_MOM_FULL;
  P->mom_layout = t->holds;
  for (size_t r = 0; r < W; r++)
  {
    size_t at = 0, calls = 0;
    for (size_t p = 0; p < np; p++)
    {
      int mine = updates (t, P, (int) r, p);
      muon_zero_span s = P->owned[r * np + p];
      P->momentum_at[r * np + p] = full && mine ? at : t->keeps == ZKEEP_ROWS ? at : SIZE_MAX;
      if (full && mine)
        at += L->params[p].numel;
      else if (t->keeps == ZKEEP_ROWS)   // momentum on the shards, laid out as the updates
        at += s.stop - s.start;
      calls += mine;
    }
    P->momentum_len[r] = full || t->keeps == ZKEEP_ROWS ? at : part->partition_size;
    P->ns_calls[r] = calls;
  }
  *plan = P;
  P = NULL;
fail:
  muon_zero_plan_destroy (&P);
  return status;
}

muon_status muon_zero_plan_momentum_map (muon_ctx *ctx, const muon_zero_plan *P, int r,
                                         muon_zero_mom_seg *seg, size_t *nseg)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, P != NULL && seg != NULL && nseg != NULL,
         "plan and outputs must not be NULL");
  CHECK (MUON_ERR_BADARG, r >= 0 && r < P->world, "rank %d of world %d", r, P->world);
  const zvariant *t = zvariant_of (P->variant);
  size_t np = P->nparams, n = 0;
  if (t->holds == MUON_ZERO_MOM_FULL || t->keeps == ZKEEP_ROWS)
    // whole matrices column-major, or the row shards beside the updates (row-major)
    for (size_t p = 0; p < np; p++)
    {
      size_t at = P->momentum_at[(size_t) r * np + p];
      muon_zero_span s = P->owned[(size_t) r * np + p];
      if (at == SIZE_MAX || (t->keeps == ZKEEP_ROWS && s.stop == s.start))
        continue;
      seg[n++] = t->keeps == ZKEEP_ROWS
                   ? (muon_zero_mom_seg) { p, at, s.start, s.stop, 1 }
                   : (muon_zero_mom_seg) { p, at, 0, P->L->params[p].numel, 0 };
    }
  else
  {
    // the rank's pieces of the partition, at their places in it
    const muon_zero_rank *k = &P->part->ranks[r];
    for (size_t i = 0; i < k->npieces; i++)
    {
      const muon_zero_piece *c = &P->part->pieces[k->first_piece + i];
      seg[n++] = (muon_zero_mom_seg) { c->param, c->part_start, c->local_start, c->local_stop,
                                       1 };
    }
  }
  *nseg = n;
fail:
  return status;
}
