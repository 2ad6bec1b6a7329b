/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_layout.c - the ZeRO-1/2/3 partition model: where each parameter matrix sits in the
 * flat buffer and which rank owns which elements and rows of it (muon_zero.h has the model,
 * MUON_FACTS.md 1.6 the DeepSpeed code it follows).
 *
 *   stages 1/2: offset_p = sum of numel before p (in slot order);
 *               padded_total = ceil (total / (A W)) A W;  S = padded_total / W;
 *               owners of p: offset_p / S .. (offset_p + numel_p - 1) / S
 *   stage 3:    chunk_p = ceil (numel_p / W);  offset_p = sum of chunk_q W before p;
 *               S = sum chunk_p;  owners of p: 0 .. (numel_p - 1) / chunk_p
 */
#include <stdlib.h>
#include <string.h>

#include "muon_internal.h"
#include "muon_zero.h"

//---- options ------------------------------------------------------------------------------

void muon_zero_layout_opts_default (muon_zero_layout_opts *o)
{
  if (o == NULL)
    return;
  o->stage = 2;
  o->align_factor = 2;
  o->order = MUON_ZERO_ORDER_GIVEN;
}

//---- helpers ------------------------------------------------------------------------------

// a + b into *s; 0 on overflow.
static int add_ok (size_t a, size_t b, size_t *s)
{
  if (a > (size_t) -1 - b)
    return 0;
  *s = a + b;
  return 1;
}

static int mul_ok (size_t a, size_t b, size_t *s)
{
  if (a != 0 && b > (size_t) -1 / a)
    return 0;
  *s = a * b;
  return 1;
}

static size_t min_sz (size_t a, size_t b) { return a < b ? a : b; }

// Rank r's local range of parameter p, clamped to [0, numel] (see muon_zero_layout_range).
static void local_range (const muon_zero_layout *L, const muon_zero_param *q, int r,
                         size_t *lo, size_t *hi)
{
  if (L->stage == 3)
  {
    *lo = min_sz ((size_t) r * q->chunk, q->numel);
    *hi = min_sz ((size_t) (r + 1) * q->chunk, q->numel);
    return;
  }
  size_t a = (size_t) r * L->partition_size, b = a + L->partition_size;
  size_t end = q->offset + q->numel;
  *lo = a <= q->offset ? 0 : min_sz (a, end) - q->offset;
  *hi = b <= q->offset ? 0 : min_sz (b, end) - q->offset;
}

//---- create / destroy ---------------------------------------------------------------------

muon_status muon_zero_layout_destroy (muon_zero_layout **L)
{
  if (L == NULL)
    return MUON_ERR_NULLPTR;
  if (*L)
  {
    free ((*L)->params);
    free ((*L)->order);
    free ((*L)->ranks);
    free ((*L)->pieces);
    free (*L);
    *L = NULL;
  }
  return MUON_OK;
}

muon_status muon_zero_layout_create (muon_ctx *ctx, size_t nparams, const size_t *rows,
                                     const size_t *cols, int world,
                                     const muon_zero_layout_opts *opts, muon_zero_layout **out)
{
  muon_status status = MUON_OK;
  muon_zero_layout *L = NULL;
  muon_shape_key *keys = NULL;
  size_t *cursor = NULL;
  muon_zero_layout_opts o;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, out != NULL, "layout pointer must not be NULL");
  *out = NULL;
  if (opts)
    o = *opts;
  else
    muon_zero_layout_opts_default (&o);
  CHECK (MUON_ERR_BADSHAPE, nparams >= 1, "layout needs at least one parameter");
  CHECK (MUON_ERR_NULLPTR, rows != NULL && cols != NULL, "rows and cols must not be NULL");
  CHECK (MUON_ERR_BADARG, world >= 1 && world <= MUON_ZERO_MAX_WORLD,
         "world must be in 1..%d (got %d)", MUON_ZERO_MAX_WORLD, world);
  CHECK (MUON_ERR_BADARG, o.stage >= 1 && o.stage <= 3, "stage must be 1, 2 or 3 (got %d)",
         o.stage);
  CHECK (MUON_ERR_BADARG, o.align_factor >= 1 && o.align_factor <= MUON_ZERO_MAX_ALIGN,
         "align factor must be in 1..%d (got %d)", MUON_ZERO_MAX_ALIGN, o.align_factor);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_ZERO_ORDER_LIST, o.order),
         "unknown parameter order %d", (int) o.order);
  CHECK (MUON_ERR_BADSHAPE, nparams <= (size_t) -1 / sizeof (muon_zero_param),
         "too many parameters (%zu)", nparams);

  CHECKMEM (L = calloc (1, sizeof *L));
  CHECKMEM (L->params = calloc (nparams, sizeof *L->params));
  CHECKMEM (L->order = calloc (nparams, sizeof *L->order));
  CHECKMEM (L->ranks = calloc ((size_t) world, sizeof *L->ranks));
  CHECKMEM (keys = calloc (nparams, sizeof *keys));
  L->stage = o.stage;
  L->world = world;
  L->align_factor = o.align_factor;
  L->order_mode = o.order;
  L->nparams = nparams;
  size_t W = (size_t) world;

  // sizes
  for (size_t p = 0; p < nparams; p++)
  {
    muon_zero_param *q = &L->params[p];
    CHECK (MUON_ERR_BADSHAPE, rows[p] >= 1 && cols[p] >= 1,
           "parameter %zu is %zu x %zu; sizes must be >= 1", p + 1, rows[p], cols[p]);
    CHECK (MUON_ERR_BADSHAPE, mul_ok (rows[p], cols[p], &q->numel),
           "parameter %zu: %zu x %zu elements overflow", p + 1, rows[p], cols[p]);
    q->rows = rows[p];
    q->cols = cols[p];
    CHECK (MUON_ERR_BADSHAPE, add_ok (L->total, q->numel, &L->total),
           "the total number of elements overflows");
    keys[p] = (muon_shape_key) { rows[p], cols[p], p };
  }

  // order
  if (o.order == MUON_ZERO_ORDER_SIZE_DESC)
    qsort (keys, nparams, sizeof *keys, muon_shape_key_desc);
  for (size_t k = 0; k < nparams; k++)
  {
    L->order[k] = keys[k].index;
    L->params[keys[k].index].slot = k;
  }

  // offsets, padding, partition size
  size_t offset = 0;
  for (size_t k = 0; k < nparams; k++)
  {
    muon_zero_param *q = &L->params[L->order[k]];
    q->offset = offset;
    if (o.stage == 3)
    {
      q->chunk = q->numel / W + (q->numel % W != 0);
      CHECK (MUON_ERR_BADSHAPE, mul_ok (q->chunk, W, &q->padded)
             && add_ok (L->partition_size, q->chunk, &L->partition_size),
             "the padded buffer overflows");
    }
    else
      q->padded = q->numel;
    CHECK (MUON_ERR_BADSHAPE, add_ok (offset, q->padded, &offset),
           "the padded buffer overflows");
  }
  if (o.stage == 3)
    L->padded_total = offset;
  else
  {
    size_t unit = (size_t) o.align_factor * W, rem = L->total % unit;
    CHECK (MUON_ERR_BADSHAPE, add_ok (L->total, rem ? unit - rem : 0, &L->padded_total),
           "the padded buffer overflows");
    L->partition_size = L->padded_total / W;
  }
  L->padding = L->padded_total - L->total;

  // owners
  size_t S = L->partition_size;
  for (size_t p = 0; p < nparams; p++)
  {
    muon_zero_param *q = &L->params[p];
    if (o.stage == 3)
    {
      q->first_owner = 0;
      q->last_owner = (int) ((q->numel - 1) / q->chunk);
    }
    else
    {
      q->first_owner = (int) (q->offset / S);
      q->last_owner = (int) ((q->offset + q->numel - 1) / S);
    }
    q->straddles = q->last_owner > q->first_owner;
    for (int r = q->first_owner; r <= q->last_owner; r++)
      L->ranks[r].npieces++;
  }

  // ranks: partitions and where their pieces start
  for (size_t r = 0; r < W; r++)
  {
    muon_zero_rank *k = &L->ranks[r];
    k->start = r * S;
    k->stop = k->start + S;
    k->first_piece = L->npieces;
    L->npieces += k->npieces;
  }
  CHECKMEM (L->pieces = calloc (L->npieces ? L->npieces : 1, sizeof *L->pieces));
  CHECKMEM (cursor = calloc (W, sizeof *cursor));

  // pieces: slot order within each rank (which is the order in its partition)
  size_t part_offset = 0;   // stage 3: where a parameter's chunk starts in every partition
  for (size_t k = 0; k < nparams; k++)
  {
    size_t p = L->order[k];
    const muon_zero_param *q = &L->params[p];
    for (int r = q->first_owner; r <= q->last_owner; r++)
    {
      muon_zero_piece *c = &L->pieces[L->ranks[r].first_piece + cursor[r]++];
      c->rank = r;
      c->param = p;
      local_range (L, q, r, &c->local_start, &c->local_stop);
      c->flat_start = q->offset + c->local_start;
      c->part_start = o.stage == 3 ? part_offset : c->flat_start - L->ranks[r].start;
      c->row_start = c->local_start / q->cols;
      c->row_stop = (c->local_stop + q->cols - 1) / q->cols;
      c->first_partial = c->local_start % q->cols != 0;
      c->last_partial = c->local_stop % q->cols != 0;
    }
    part_offset += q->chunk;
  }

  // padding per rank: partition elements not covered by a piece
  for (size_t r = 0; r < W; r++)
  {
    muon_zero_rank *k = &L->ranks[r];
    size_t owned = 0;
    for (size_t i = 0; i < k->npieces; i++)
    {
      const muon_zero_piece *c = &L->pieces[k->first_piece + i];
      owned += c->local_stop - c->local_start;
    }
    k->padding = S - owned;
  }

  *out = L;
  L = NULL;
fail:
  free (keys);
  free (cursor);
  muon_zero_layout_destroy (&L);
  return status;
}

//---- queries ------------------------------------------------------------------------------

muon_status muon_zero_layout_range (muon_ctx *ctx, const muon_zero_layout *L, size_t p, int r,
                                    size_t *start, size_t *stop)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, L != NULL && start != NULL && stop != NULL,
         "layout, start and stop must not be NULL");
  CHECK (MUON_ERR_BADARG, p < L->nparams, "parameter %zu out of range (%zu parameters)", p,
         L->nparams);
  CHECK (MUON_ERR_BADARG, r >= 0 && r < L->world, "rank %d out of range (world %d)", r,
         L->world);
  local_range (L, &L->params[p], r, start, stop);
fail:
  return status;
}
