/* zero_plan.c - what each rank holds and owns under a distributed Muon variant
 * (muon_zero.h): the partition it uses, the element spans each rank returns, the
 * momentum layout and size, the Newton-Schulz calls per step, Megatron's LPT owners.
 * Everything here follows from the layout alone, so every rank of a real run computes the
 * same plan without talking to the others.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zero_step_impl.h"

//---- names (list_registry.c) ------------------------------------------------------------

int muon_zero_variant_is_correct (muon_zero_variant v)
{
  return v != MUON_ZERO2_RS_BUGGY && v != MUON_ZERO2_SLICE_ONLY && v != MUON_ZERO_MUON_BP
         && v >= 0 && v < MUON_ZERO_VARIANT_COUNT;
}

void muon_zero_step_opts_default (muon_zero_step_opts *o)
{
  if (o == NULL)
    return;
  memset (o, 0, sizeof *o);
  o->variant = MUON_ZERO_REFERENCE;
  o->pad_count = MUON_ZERO_PADS_DEEPSPEED;
  o->period = 4;
  o->step = 0;
  muon_update_opts_default (&o->update);
}

//---- LPT ----------------------------------------------------------------------------------

typedef struct { size_t numel, index; } lpt_key;

static int by_numel_desc (const void *a, const void *b)
{
  const lpt_key *x = a, *y = b;
  if (x->numel != y->numel)
    return x->numel > y->numel ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

// Largest matrix first onto the least-loaded rank (lowest rank on ties): Megatron's
// LayerWiseDistributedOptimizer, one bucket.  [out] owner[nparams], *segment (largest load).
static muon_status lpt_assign (muon_ctx *ctx, const muon_zero_layout *L, int *owner,
                               size_t *segment)
{
  muon_status status = MUON_OK;
  lpt_key *keys = NULL;
  size_t *load = NULL;
  CHECKMEM (keys = malloc (L->nparams * sizeof *keys));
  CHECKMEM (load = calloc ((size_t) L->world, sizeof *load));
  for (size_t p = 0; p < L->nparams; p++)
    keys[p] = (lpt_key) { L->params[p].numel, p };
  qsort (keys, L->nparams, sizeof *keys, by_numel_desc);
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

// Does matrix p get the full-matrix momentum (and an update) on rank r?
static int holds_full (const muon_zero_plan *P, int r, size_t p)
{
  const muon_zero_param *q = &P->part->params[p];
  switch (P->variant)
  {
    case MUON_ZERO_REFERENCE: return 1;
    case MUON_ZERO_LAYERWISE_LPT: return P->lpt_owner[p] == r;
    default: return r >= q->first_owner && r <= q->last_owner;
  }
}

muon_status muon_zero_plan_create (muon_ctx *ctx, const muon_zero_layout *L,
                                   muon_zero_variant variant, muon_zero_plan **plan)
{
  muon_status status = MUON_OK;
  muon_zero_plan *P = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, plan != NULL && L != NULL, "layout and plan must not be NULL");
  *plan = NULL;
  CHECK (MUON_ERR_BADARG, variant >= 0 && variant < MUON_ZERO_VARIANT_COUNT,
         "unknown variant %d", (int) variant);
  size_t np = L->nparams, W = (size_t) L->world;
  CHECK (MUON_ERR_BADARG, np <= SIZE_MAX / W / sizeof (size_t), "layout too large");
  CHECKMEM (P = calloc (1, sizeof *P));
  P->variant = variant;
  P->L = L;
  P->part = L;
  P->world = L->world;
  P->nparams = np;
  if (variant == MUON_ZERO3_ROUND_ROBIN || variant == MUON_ZERO3_RR_ALIASED)
    CHECKSTATUS (stage3_of (ctx, P));
  if (variant == MUON_ZERO_LAYERWISE_LPT)
  {
    CHECKMEM (P->lpt_owner = malloc (np * sizeof *P->lpt_owner));
    CHECKSTATUS (lpt_assign (ctx, L, P->lpt_owner, &P->lpt_segment));
  }
  CHECKMEM (P->owned = calloc (W * np, sizeof *P->owned));
  CHECKMEM (P->owned_len = calloc (W, sizeof *P->owned_len));
  CHECKMEM (P->momentum_len = calloc (W, sizeof *P->momentum_len));
  CHECKMEM (P->momentum_at = malloc (W * np * sizeof *P->momentum_at));
  CHECKMEM (P->ns_calls = calloc (W, sizeof *P->ns_calls));
  const muon_zero_layout *part = P->part;
  if (variant == MUON_ZERO_ALLTOALL_OWNER || variant == MUON_ZERO_MUON_BP)
  {
    CHECKSTATUS (zplan_row_shards (ctx, P));
    goto done;
  }

  // owned spans: the partition's pieces, or whole matrices for LPT
  if (variant == MUON_ZERO_LAYERWISE_LPT)
    for (size_t p = 0; p < np; p++)
      P->owned[(size_t) P->lpt_owner[p] * np + p] = (muon_zero_span) { 0, L->params[p].numel };
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
    if (part->params[p].straddles)
      P->straddle_total += part->params[p].numel;

  // momentum and Newton-Schulz calls
  int full = variant == MUON_ZERO_REFERENCE || variant == MUON_ZERO12_ALLREDUCE
             || variant == MUON_ZERO2_RS_BUGGY || variant == MUON_ZERO2_MULTI_OWNER
             || variant == MUON_ZERO_LAYERWISE_LPT;
  P->mom_layout = full ? MUON_ZERO_MOM_FULL : MUON_ZERO_MOM_PART;
  for (size_t r = 0; r < W; r++)
  {
    size_t at = 0, calls = 0;
    for (size_t p = 0; p < np; p++)
    {
      int mine = holds_full (P, (int) r, p);
      P->momentum_at[r * np + p] = full && mine ? at : SIZE_MAX;
      if (full && mine)
        at += L->params[p].numel;
      calls += mine;
    }
    P->momentum_len[r] = full ? at : part->partition_size;
    if (variant == MUON_ZERO3_ROUND_ROBIN || variant == MUON_ZERO3_RR_ALIASED)
      calls = np / W + (r < np % W);
    P->ns_calls[r] = calls;
  }
done:
  *plan = P;
  P = NULL;
fail:
  muon_zero_plan_destroy (&P);
  return status;
}
