/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_zero_layout.c - the ZeRO partition model (core/zero/zero_layout.c): a hand-computed
 * case, properties over random shape lists against closed forms and an element-wise owner map,
 * and every error code.
 */
#include <stdint.h>

#include "harness.h"
#include "muon.h"

// The NOMEM case asks for an impossible allocation: let ASan return NULL instead of aborting.
const char *__asan_default_options (void);
const char *__asan_default_options (void) { return "allocator_may_return_null=1"; }

static muon_ctx *ctx;

static muon_zero_layout *make (size_t n, const size_t *r, const size_t *c, int W, int stage,
                               int align, muon_zero_order order)
{
  muon_zero_layout_opts o;
  muon_zero_layout_opts_default (&o);
  o.stage = stage;
  o.align_factor = align;
  o.order = order;
  muon_zero_layout *L = NULL;
  T_EQ_INT (muon_zero_layout_create (ctx, n, r, c, W, &o, &L), MUON_OK);
  return L;
}

//---- the hand-computed case: {3x4, 2x5, 4x4}, numel 12, 10, 16, total 38 ------------------

static const size_t HR[] = { 3, 2, 4 }, HC[] = { 4, 5, 4 };

static void test_hand_world2 (void)
{
  // align 2 x world 2 = 4: padded 40, S = 20; offsets 0, 12, 22; p1 cut at 20 (8 | 2)
  muon_zero_layout *L = make (3, HR, HC, 2, 2, 2, MUON_ZERO_ORDER_GIVEN);
  if (!L) return;
  T_EQ_INT (L->total, 38);
  T_EQ_INT (L->padded_total, 40);
  T_EQ_INT (L->partition_size, 20);
  T_EQ_INT (L->padding, 2);
  T_EQ_INT (L->params[0].offset, 0);
  T_EQ_INT (L->params[1].offset, 12);
  T_EQ_INT (L->params[2].offset, 22);
  T_EQ_INT (L->params[1].first_owner, 0);
  T_EQ_INT (L->params[1].last_owner, 1);
  T_EQ_INT (L->params[0].straddles + L->params[1].straddles * 2 + L->params[2].straddles * 4,
            2);
  T_EQ_INT (L->npieces, 4);
  T_EQ_INT (L->ranks[0].npieces, 2);
  T_EQ_INT (L->ranks[1].padding, 2);
  const muon_zero_piece *c = &L->pieces[1];   // rank 0, p1: elements [0 8), rows [0 2)
  T_EQ_INT (c->rank, 0);
  T_EQ_INT (c->param, 1);
  T_EQ_INT (c->local_stop, 8);
  T_EQ_INT (c->part_start, 12);
  T_EQ_INT (c->row_stop, 2);
  T_EQ_INT (c->first_partial, 0);
  T_EQ_INT (c->last_partial, 1);
  c = &L->pieces[2];                          // rank 1, p1: [8 10), flat 20, row 1 partial
  T_EQ_INT (c->rank, 1);
  T_EQ_INT (c->local_start, 8);
  T_EQ_INT (c->flat_start, 20);
  T_EQ_INT (c->part_start, 0);
  T_EQ_INT (c->row_start, 1);
  T_EQ_INT (c->first_partial, 1);
  T_EQ_INT (c->last_partial, 0);
  muon_zero_layout_destroy (&L);
  T_ASSERT (L == NULL);
}

static void test_hand_world4 (void)
{
  // align 2 x world 4 = 8: padded 40, S = 10; owners {0,1} {1,2} {2,3}
  muon_zero_layout *L = make (3, HR, HC, 4, 1, 2, MUON_ZERO_ORDER_GIVEN);
  if (!L) return;
  T_EQ_INT (L->partition_size, 10);
  for (int p = 0; p < 3; p++)
  {
    T_EQ_INT (L->params[p].first_owner, p);
    T_EQ_INT (L->params[p].last_owner, p + 1);
    T_EQ_INT (L->params[p].straddles, 1);
  }
  size_t lo, hi;
  T_EQ_INT (muon_zero_layout_range (ctx, L, 2, 2, &lo, &hi), MUON_OK);
  T_EQ_INT (lo, 0);
  T_EQ_INT (hi, 8);                        // the cut at 30 falls between rows 1 and 2
  T_EQ_INT (muon_zero_layout_range (ctx, L, 2, 0, &lo, &hi), MUON_OK);
  T_EQ_INT (lo, 0);
  T_EQ_INT (hi, 0);
  T_EQ_INT (muon_zero_layout_range (ctx, L, 0, 3, &lo, &hi), MUON_OK);
  T_EQ_INT (lo, 12);
  T_EQ_INT (hi, 12);
  const muon_zero_piece *c = &L->pieces[L->ranks[3].first_piece];
  T_EQ_INT (c->row_start, 2);
  T_EQ_INT (c->row_stop, 4);
  T_EQ_INT (c->first_partial + c->last_partial, 0);
  T_EQ_INT (L->ranks[3].padding, 2);
  muon_zero_layout_destroy (&L);
}

static void test_hand_size_desc_and_stage3 (void)
{
  muon_zero_layout *L = make (3, HR, HC, 2, 2, 2, MUON_ZERO_ORDER_SIZE_DESC);
  if (!L) return;
  T_EQ_INT (L->order[0], 2);
  T_EQ_INT (L->order[1], 0);
  T_EQ_INT (L->order[2], 1);
  T_EQ_INT (L->params[2].offset, 0);
  T_EQ_INT (L->params[0].offset, 16);
  T_EQ_INT (L->params[1].offset, 28);
  T_EQ_INT (L->params[0].slot, 1);
  muon_zero_layout_destroy (&L);

  // stage 3, world 4: chunks 3, 3, 4; padded 12, 12, 16; S = 10, padding 2
  L = make (3, HR, HC, 4, 3, 2, MUON_ZERO_ORDER_GIVEN);
  if (!L) return;
  T_EQ_INT (L->partition_size, 10);
  T_EQ_INT (L->padded_total, 40);
  T_EQ_INT (L->padding, 2);
  T_EQ_INT (L->params[1].chunk, 3);
  T_EQ_INT (L->params[2].offset, 24);
  T_EQ_INT (L->npieces, 12);
  const muon_zero_piece *c = &L->pieces[L->ranks[3].first_piece + 1];   // rank 3, p1
  T_EQ_INT (c->param, 1);
  T_EQ_INT (c->local_start, 9);
  T_EQ_INT (c->local_stop, 10);
  T_EQ_INT (c->flat_start, 21);
  T_EQ_INT (c->part_start, 3);
  T_EQ_INT (L->ranks[3].padding, 2);
  muon_zero_layout_destroy (&L);
}

//---- properties over random shape lists ---------------------------------------------------

static unsigned rng_state = 12345;
static unsigned rnd (unsigned n)
{
  rng_state = rng_state * 1103515245u + 12345u;
  return (rng_state >> 16) % n;
}

static void check_properties (const muon_zero_layout *L, size_t n, const size_t *r,
                              const size_t *c, int W, int stage, int A)
{
  size_t total = 0, S = L->partition_size;
  for (size_t p = 0; p < n; p++)
    total += r[p] * c[p];
  T_EQ_INT (L->total, total);
  T_EQ_INT (L->padded_total, (size_t) W * S);
  if (stage == 3)
  {
    size_t pad = 0;
    for (size_t p = 0; p < n; p++)
    {
      size_t ch = (r[p] * c[p] + W - 1) / W;
      pad += ch * W - r[p] * c[p];
    }
    T_EQ_INT (L->padding, pad);
  }
  else
  {
    size_t unit = (size_t) A * W;
    T_EQ_INT (L->padding, (unit - total % unit) % unit);
  }
  // owner map of the flat buffer: every parameter element owned once, pads by nobody
  int *own = calloc (L->padded_total, sizeof *own);
  if (!own) return;
  for (size_t k = 0; k < L->npieces; k++)
  {
    const muon_zero_piece *q = &L->pieces[k];
    const muon_zero_param *pp = &L->params[q->param];
    size_t len = q->local_stop - q->local_start;
    T_ASSERT (len > 0);
    T_ASSERT (q->rank >= pp->first_owner && q->rank <= pp->last_owner);
    T_EQ_INT (q->flat_start, pp->offset + q->local_start);
    T_ASSERT (q->part_start + len <= S);
    if (stage != 3)
      T_EQ_INT (q->part_start, q->flat_start - L->ranks[q->rank].start);
    T_EQ_INT (q->row_start, q->local_start / pp->cols);
    T_EQ_INT (q->row_stop, (q->local_stop + pp->cols - 1) / pp->cols);
    T_EQ_INT (q->first_partial, q->local_start % pp->cols != 0);
    T_EQ_INT (q->last_partial, q->local_stop % pp->cols != 0);
    for (size_t e = q->flat_start; e < q->flat_start + len; e++)
      own[e]++;
  }
  size_t owned = 0;
  for (size_t e = 0; e < L->padded_total; e++)
  {
    T_ASSERT (own[e] <= 1);
    owned += own[e];
  }
  T_EQ_INT (owned, total);
  // straddles iff the range crosses a partition boundary (stages 1-2) / is split (stage 3)
  for (size_t p = 0; p < n; p++)
  {
    const muon_zero_param *pp = &L->params[p];
    int crosses = 0;
    if (stage == 3)
      crosses = pp->numel > pp->chunk;
    else
      for (int b = 1; b < W; b++)
        crosses |= pp->offset < (size_t) b * S && (size_t) b * S < pp->offset + pp->numel;
    T_EQ_INT (pp->straddles, crosses);
    // rank ranges tile [0, numel)
    size_t prev = 0;
    for (int k = 0; k < W; k++)
    {
      size_t lo, hi;
      muon_zero_layout_range (ctx, L, p, k, &lo, &hi);
      T_EQ_INT (lo, prev);
      T_ASSERT (hi >= lo);
      prev = hi;
    }
    T_EQ_INT (prev, pp->numel);
  }
  free (own);
}

static void test_random_properties (void)
{
  size_t r[8], c[8];
  for (int trial = 0; trial < 400; trial++)
  {
    size_t n = 1 + rnd (8);
    for (size_t p = 0; p < n; p++)
    {
      r[p] = 1 + rnd (20);
      c[p] = 1 + rnd (20);
    }
    int W = 1 + (int) rnd (8), stage = 1 + (int) rnd (3), A = 1 + (int) rnd (4);
    muon_zero_order order = rnd (2) ? MUON_ZERO_ORDER_SIZE_DESC : MUON_ZERO_ORDER_GIVEN;
    muon_zero_layout *L = make (n, r, c, W, stage, A, order);
    if (!L) continue;
    check_properties (L, n, r, c, W, stage, A);
    muon_zero_layout_destroy (&L);
  }
}

//---- errors -------------------------------------------------------------------------------

static void test_errors (void)
{
  muon_zero_layout *L = NULL;
  muon_zero_layout_opts o;
  muon_zero_layout_opts_default (&o);
  size_t r1[] = { 2 }, c1[] = { 3 }, z[] = { 0 }, big[] = { SIZE_MAX / 2 };
  size_t r2[] = { SIZE_MAX / 4, SIZE_MAX / 4 }, c2[] = { 3, 3 };

  T_EQ_INT (muon_zero_layout_create (NULL, 1, r1, c1, 2, &o, &L), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r1, c1, 2, &o, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_layout_create (ctx, 1, NULL, c1, 2, &o, &L), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r1, NULL, 2, &o, &L), MUON_ERR_NULLPTR);
  T_ASSERT (L == NULL);
  T_EQ_INT (muon_zero_layout_create (ctx, 0, r1, c1, 2, &o, &L), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_zero_layout_create (ctx, 1, z, c1, 2, &o, &L), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r1, z, 2, &o, &L), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_zero_layout_create (ctx, 1, big, c1, 2, &o, &L), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), "parameter 1: 9223372036854775807 x 3 elements overflow");
  T_EQ_INT (muon_zero_layout_create (ctx, 2, r2, c2, 2, &o, &L), MUON_ERR_BADSHAPE);
  size_t r3[] = { SIZE_MAX / 3 - 1 }, c3[] = { 3 };     // numel fits, padding does not
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r3, c3, 8, &o, &L), MUON_ERR_BADSHAPE);
  o.stage = 3;
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r3, c3, 8, &o, &L), MUON_ERR_BADSHAPE);
  T_ASSERT (L == NULL);
  muon_zero_layout_opts_default (&o);
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r1, c1, 0, &o, &L), MUON_ERR_BADARG);
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r1, c1, MUON_ZERO_MAX_WORLD + 1, &o, &L),
            MUON_ERR_BADARG);
  o.stage = 0;
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r1, c1, 2, &o, &L), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "stage must be 1, 2 or 3 (got 0)");
  o.stage = 4;
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r1, c1, 2, &o, &L), MUON_ERR_BADARG);
  o.stage = 2;
  o.align_factor = 0;
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r1, c1, 2, &o, &L), MUON_ERR_BADARG);
  o.align_factor = 2;
  o.order = (muon_zero_order) 7;
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r1, c1, 2, &o, &L), MUON_ERR_BADARG);
  T_ASSERT (L == NULL);
  // an allocation that cannot succeed
  T_EQ_INT (muon_zero_layout_create (ctx, SIZE_MAX / sizeof (muon_zero_param), r1, c1, 2,
                                     NULL, &L), MUON_ERR_NOMEM);
  T_ASSERT (L == NULL);

  // NULL opts means the defaults
  T_EQ_INT (muon_zero_layout_create (ctx, 1, r1, c1, 2, NULL, &L), MUON_OK);
  if (L)
  {
    T_EQ_INT (L->stage, 2);
    T_EQ_INT (L->padded_total, 8);
    size_t lo, hi;
    T_EQ_INT (muon_zero_layout_range (NULL, L, 0, 0, &lo, &hi), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_zero_layout_range (ctx, NULL, 0, 0, &lo, &hi), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_zero_layout_range (ctx, L, 0, 0, NULL, &hi), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_zero_layout_range (ctx, L, 1, 0, &lo, &hi), MUON_ERR_BADARG);
    T_EQ_INT (muon_zero_layout_range (ctx, L, 0, 2, &lo, &hi), MUON_ERR_BADARG);
    T_EQ_INT (muon_zero_layout_range (ctx, L, 0, -1, &lo, &hi), MUON_ERR_BADARG);
  }
  T_EQ_INT (muon_zero_layout_destroy (&L), MUON_OK);
  T_EQ_INT (muon_zero_layout_destroy (&L), MUON_OK);    // NULL is fine
  T_EQ_INT (muon_zero_layout_destroy (NULL), MUON_ERR_NULLPTR);

  int ord;
  T_EQ_INT (muon_name_lookup (MUON_LIST_ZERO_ORDER, "size_desc", &ord), MUON_OK);
  T_EQ_INT (ord, MUON_ZERO_ORDER_SIZE_DESC);
  T_EQ_STR (muon_names (MUON_LIST_ZERO_ORDER, ord), "size_desc");
  T_EQ_INT (muon_name_lookup (MUON_LIST_ZERO_ORDER, "given", &ord), MUON_OK);
  T_EQ_INT (ord, MUON_ZERO_ORDER_GIVEN);
  T_ASSERT (muon_names (MUON_LIST_ZERO_ORDER, 9) == NULL);
  T_EQ_INT (muon_name_lookup (MUON_LIST_ZERO_ORDER, "asc", &ord), MUON_ERR_BADARG);
}

int main (int argc, char **argv)
{
  (void) argc;
  if (muon_ctx_create (&ctx) != MUON_OK)
    return 1;
  T_RUN (test_hand_world2);
  T_RUN (test_hand_world4);
  T_RUN (test_hand_size_desc_and_stage3);
  T_RUN (test_random_properties);
  T_RUN (test_errors);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
