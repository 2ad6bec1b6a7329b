/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_cost.c - the plan-only cost of one distributed Muon step for every design of
 * muon_zero_step (and the all-to-all owner design), from the shapes alone
 * (muon_zero_cost.h).
 *
 * The partition follows zero_layout.c without building its pieces: offsets in slot order
 * (stages 1/2) or per-matrix chunks (stage 3), owners first..last.  Sums over "the matrices
 * a rank holds a piece of" are difference arrays over the ranks (add at first, subtract after
 * last, one prefix sum), so a plan is O(P log P + W).  What each design does, collective by
 * collective, is read off zero_step*.c; the bytes are muon_comm.h's ring model
 * (muon_comm_model_bytes), scaled to elem_bytes.  This file: the options, the checks, the
 * NS FLOPs of each matrix (the math layer's model, muon_ns_flops_matrix) and the dispatch to
 * each family's model, one file per family of steps (zero_cost_zero12.c, zero_cost_rr.c,
 * zero_cost_a2a.c, zero_cost_ep.c; their helpers in zero_cost_common.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math_internal.h"   // muon_ns_check_flop_opts
#include "muon_internal.h"
#include "zero_cost_impl.h"

MUON_NAME_TABLE (variant_names, MUON_ZERO_VARIANT_LIST);   // for why

// C->why holds the longest combination of its reasons whole (zero_cost_impl.h): one reason
// of the design's own, "; ", the bytes' (over_why), "; ", the transient elements', with
// every %zu at its 20 digits and a design's name at most ZCOST_NAME_MAX characters.  A
// reason made longer, or why made shorter, stops the build here.
#define ZCOST_ZU 20
#define ZCOST_NAME_MAX 40
#define ZCOST_LEN(lit) (sizeof (lit) - 1)
#define ZCOST_MAX(a, b) ((a) > (b) ? (a) : (b))
#define ZCOST_NAME_FITS(id, value, name)                                                  \
  typedef char zcost_name_fits_##id[ZCOST_LEN (name) <= ZCOST_NAME_MAX ? 1 : -1];
MUON_ZERO_VARIANT_LIST (ZCOST_NAME_FITS)
#define ZCOST_OWN_MIXED (ZCOST_LEN (ZCOST_MIXED_WHY) + 9 * (ZCOST_ZU - 3) - 2             \
                         + ZCOST_MAX (ZCOST_LEN (ZCOST_MIXED_HOLDS), ZCOST_LEN (ZCOST_MIXED_PAD)))
#define ZCOST_OWN_COST (ZCOST_LEN (ZCOST_NS_COST_WHY) + ZCOST_ZU - 3)
#define ZCOST_OWN_PIECES (ZCOST_LEN (ZERO_PIECES_BLOCKS_WHY) - 2 + ZCOST_NAME_MAX)
#define ZCOST_WHY_NEED                                                                    \
  (ZCOST_MAX (ZCOST_MAX (ZCOST_OWN_MIXED, ZCOST_OWN_COST), ZCOST_OWN_PIECES)              \
   + 2 + (sizeof (((cost_job *) 0)->over_why) - 1)                                       \
   + 2 + ZCOST_LEN (ZERO_TRANSIENT_WHY) + ZCOST_ZU - 3 + 1)
typedef char zcost_why_fits[ZCOST_WHY_NEED <= sizeof (((muon_zero_cost *) 0)->why) ? 1 : -1];

// The update rule and the cost model of each design (zero_variant.h's table).
#define ZERO_VARIANT_COST(v, exact, part, holds, updates, keeps, step, cost, dev) \
  [v] = { updates, cost },
static const struct { zupdate_rule updates; zcost_fn cost; } costs[] = {
  ZERO_VARIANTS (ZERO_VARIANT_COST)
};
#undef ZERO_VARIANT_COST

//---- options --------------------------------------------------------------------------

void muon_zero_cost_opts_default (muon_zero_cost_opts *o)
{
  if (o == NULL)
    return;
  memset (o, 0, sizeof *o);
  muon_zero_step_opts so;
  muon_zero_step_opts_default (&so);
  o->design = (int) so.variant;         // the step's default design
  o->stage = 2;
  o->align_factor = 2;
  o->order = MUON_ZERO_ORDER_GIVEN;
  o->pad_count = MUON_ZERO_PADS_DEEPSPEED;
  o->elem_bytes = 8;
  muon_ns_opts_default (&o->ns);
  o->symmetric = 0;
}

//---- create / destroy ---------------------------------------------------------------------

muon_status muon_zero_cost_destroy (muon_zero_cost **cost)
{
  if (cost == NULL)
    return MUON_ERR_NULLPTR;
  muon_zero_cost *C = *cost;
  if (C)
  {
    free (C->calls);
    free (C->sent);
    free (C->recv);
    free (C->busy);
    free (C->ns_calls);
    free (C->ns_flops);
    free (C->momentum);
    free (C->pads);
    free (C->owned);
    free (C->master);
    free (C->transient);
    free (C->first_owner);
    free (C->last_owner);
    free (C->ns_rank);
    free (C->slot);
    free (C);
    *cost = NULL;
  }
  return MUON_OK;
}

static muon_status check_opts (muon_ctx *ctx, const muon_zero_cost_opts *o)
{
  muon_status status = MUON_OK;
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_ZERO_VARIANT_LIST, o->design),
         "unknown design %d", o->design);
  CHECK (MUON_ERR_BADARG, o->stage >= 1 && o->stage <= 3, "stage must be 1, 2 or 3 (got %d)",
         o->stage);
  CHECK (MUON_ERR_BADARG, o->align_factor >= 1 && o->align_factor <= MUON_ZERO_MAX_ALIGN,
         "align factor must be in 1..%d (got %d)", MUON_ZERO_MAX_ALIGN, o->align_factor);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_ZERO_ORDER_LIST, o->order),
         "unknown parameter order %d", (int) o->order);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_ZERO_PAD_COUNT_LIST, o->pad_count),
         "unknown pad count rule %d", (int) o->pad_count);
  CHECK (MUON_ERR_BADARG, o->elem_bytes >= 1 && o->elem_bytes <= 64,
         "element bytes must be in 1..64 (got %d)", o->elem_bytes);
  // the fields of o->ns the FLOP count reads, as muon_ns checks them
  CHECKSTATUS (muon_ns_check_flop_opts (ctx, &o->ns, NULL));
  CHECK (MUON_ERR_BADARG, o->symmetric == 0 || o->symmetric == 1, "symmetric must be 0 or 1");
  CHECK (MUON_ERR_BADARG, o->overflow_fails == 0 || o->overflow_fails == 1,
         "overflow_fails must be 0 or 1");
fail:
  return status;
}

muon_status muon_zero_cost_create (muon_ctx *ctx, size_t np, const muon_zero_cost_param *par,
                                   int world, const muon_zero_cost_opts *opts,
                                   muon_zero_cost **out)
{
  muon_status status = MUON_OK;
  muon_zero_cost *C = NULL;
  muon_zero_cost_opts o;
  size_t *numel = NULL, *order = NULL, *sorted = NULL;
  double *pf = NULL;
  muon_size_key *keys = NULL;
  muon_shape_key *shapes = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, out != NULL, "cost pointer must not be NULL");
  *out = NULL;
  if (opts)
    o = *opts;
  else
    muon_zero_cost_opts_default (&o);
  CHECK (MUON_ERR_BADSHAPE, np >= 1, "the plan needs at least one matrix");
  CHECK (MUON_ERR_NULLPTR, par != NULL, "params must not be NULL");
  // the collectives' byte model takes a communicator's sizes: the smaller limit
  int most = MUON_ZERO_MAX_WORLD < MUON_COMM_MAX_WORLD ? MUON_ZERO_MAX_WORLD : MUON_COMM_MAX_WORLD;
  CHECK (MUON_ERR_BADARG, world >= 1 && world <= most, "world must be in 1..%d (got %d)", most,
         world);
  CHECKSTATUS (check_opts (ctx, &o));
  size_t W = (size_t) world;
  CHECK (MUON_ERR_BADSHAPE, np <= SIZE_MAX / W / MUON_COST_COLLS / sizeof (uint64_t),
         "too many matrices (%zu)", np);

  CHECKMEM (numel = malloc (np * sizeof *numel));
  CHECKMEM (pf = malloc (np * sizeof *pf));
  CHECKMEM (keys = malloc (np * sizeof *keys));
  CHECKMEM (shapes = malloc (np * sizeof *shapes));
  CHECKMEM (order = malloc (np * sizeof *order));
  CHECKMEM (sorted = malloc (np * sizeof *sorted));
  CHECKMEM (C = calloc (1, sizeof *C));
  C->design = o.design;
  C->world = world;
  C->nparams = np;
  size_t total = 0, big = 0;
  for (size_t p = 0; p < np; p++)
  {
    const muon_zero_cost_param *q = &par[p];
    CHECK (MUON_ERR_BADSHAPE, q->rows >= 1 && q->cols >= 1,
           "matrix %zu is %zu x %zu; sizes must be >= 1", p + 1, q->rows, q->cols);
    CHECK (MUON_ERR_BADSHAPE, q->rows <= SIZE_MAX / q->cols,
           "matrix %zu: %zu x %zu elements overflow", p + 1, q->rows, q->cols);
    numel[p] = q->rows * q->cols;
    CHECK (MUON_ERR_BADSHAPE, total <= SIZE_MAX - numel[p] && total + numel[p] < ((size_t) 1 << 62),
           "the total number of elements overflows");
    total += numel[p];
    big = max_sz (big, numel[p]);
    size_t E = q->experts;
    CHECK (MUON_ERR_BADARG, E >= 1, "matrix %zu: experts must be at least 1", p + 1);
    CHECK (MUON_ERR_BADSHAPE, q->rows % E == 0,
           "matrix %zu: %zu experts do not divide its %zu rows", p + 1, E, q->rows);
    size_t page = q->rows / E;
    double f = 0;
    if (q->nsplit > 0)
    {
      CHECK (MUON_ERR_NULLPTR, q->split != NULL, "matrix %zu: split must not be NULL", p + 1);
      CHECK (MUON_ERR_BADSHAPE, q->nsplit <= MUON_MAX_SPLITS,
             "matrix %zu: more than %d split row blocks", p + 1, MUON_MAX_SPLITS);
      size_t sum = 0;
      for (size_t b = 0; b < q->nsplit; b++)
      {
        CHECK (MUON_ERR_BADSHAPE, q->split[b] >= 1 && q->split[b] <= page - sum,
               "matrix %zu: the split row blocks must be >= 1 and sum to %zu", p + 1, page);
        sum += q->split[b];
        f += muon_ns_flops_matrix (q->split[b], q->cols, &o.ns, o.symmetric);
      }
      CHECK (MUON_ERR_BADSHAPE, sum == page,
             "matrix %zu: the split row blocks sum to %zu, not %zu", p + 1, sum, page);
    }
    else
      f = muon_ns_flops_matrix (page, q->cols, &o.ns, o.symmetric);
    pf[p] = (double) E * f;
    C->flops_total += pf[p];
    keys[p] = (muon_size_key) { numel[p], p };
    shapes[p] = (muon_shape_key) { q->rows, q->cols, p };
  }
  C->total = total;
  // the flat order (the layout's: zero_layout.c); by numel descending (LPT, all-to-all
  // owners)
  qsort (keys, np, sizeof *keys, muon_size_key_desc);
  if (o.order == MUON_ZERO_ORDER_SIZE_DESC)
    qsort (shapes, np, sizeof *shapes, muon_shape_key_desc);
  for (size_t k = 0; k < np; k++)
  {
    sorted[k] = keys[k].index;
    order[k] = shapes[k].index;
  }

  CHECKMEM (C->calls = calloc (W * MUON_COST_COLLS, sizeof *C->calls));
  CHECKMEM (C->sent = calloc (W * MUON_COST_COLLS, sizeof *C->sent));
  CHECKMEM (C->recv = calloc (W * MUON_COST_COLLS, sizeof *C->recv));
  CHECKMEM (C->busy = calloc (MUON_COST_COLLS, sizeof *C->busy));
  CHECKMEM (C->ns_calls = calloc (W, sizeof *C->ns_calls));
  CHECKMEM (C->ns_flops = calloc (W, sizeof *C->ns_flops));
  CHECKMEM (C->momentum = calloc (W, sizeof *C->momentum));
  CHECKMEM (C->pads = calloc (W, sizeof *C->pads));
  CHECKMEM (C->owned = calloc (W, sizeof *C->owned));
  CHECKMEM (C->master = calloc (W, sizeof *C->master));
  CHECKMEM (C->transient = calloc (W, sizeof *C->transient));
  CHECKMEM (C->first_owner = calloc (np, sizeof *C->first_owner));
  CHECKMEM (C->last_owner = calloc (np, sizeof *C->last_owner));
  CHECKMEM (C->ns_rank = calloc (np, sizeof *C->ns_rank));
  CHECKMEM (C->slot = calloc (np, sizeof *C->slot));
  // the designs whose matrices have one owner each (LPT, size round robin) number them in
  // the size-descending order, the others in the flat order
  zupdate_rule u = costs[o.design].updates;
  int whole = u == ZUPD_LPT || u == ZUPD_SIZE_RR || u == ZUPD_SIZE_RR_BLOCKS;
  for (size_t k = 0; k < np; k++)
    C->slot[whole ? sorted[k] : order[k]] = k;

  cost_job J = { ctx, &o, par, np, W, total, big, numel, order, sorted, pf, C, -1, 0, "", 0,
                 0 };
  CHECKSTATUS (costs[o.design].cost (&J));   // the design's row of the variant table
  // a rank's transient elements reaching 2^64 - 1 (zcost_elems, found before they wrap): as
  // bytes past 2^64, BADSHAPE, or with overflow_fails a failing design (transient UINT64_MAX)
  CHECK (MUON_ERR_BADSHAPE, !J.trans_over || o.overflow_fails,
         "the transient elements of rank %zu reach 2^64 - 1", J.trans_rank);
  // the critical path of each collective: the busiest rank's bytes (every call has the
  // same busiest rank), but the all-to-alls the models sum themselves (J.busy_a2a)
  for (size_t k = 0; k < MUON_COST_COLLS; k++)
  {
    uint64_t m = 0;
    for (size_t r = 0; r < W; r++)
    {
      size_t i = r * MUON_COST_COLLS + k;
      m = C->sent[i] > m ? C->sent[i] : m;
      m = C->recv[i] > m ? C->recv[i] : m;
    }
    C->busy[k] = k == MUON_COST_ALL_TO_ALL && J.busy_a2a >= 0 ? J.busy_a2a : (double) m;
  }
  // what muon_zero_step refuses (zero_step_api.c's check_blocks): blocks of pieces' rows
  for (size_t p = 0; p < np && u == ZUPD_PIECES && !C->fails; p++)
    if (par[p].experts > 1 || par[p].nsplit > 0)
    {
      C->fails = 1;
      snprintf (C->why, sizeof C->why, ZERO_PIECES_BLOCKS_WHY,
                MUON_NAME_OF (variant_names, o.design));
    }
  if (J.over || J.trans_over)
  {
    // bytes past 2^64 or transient elements reaching 2^64 - 1 (o.overflow_fails): the
    // design fails, after any reason of its own, and its collectives are left out: no
    // calls, no bytes
    memset (C->calls, 0, W * MUON_COST_COLLS * sizeof *C->calls);
    memset (C->sent, 0, W * MUON_COST_COLLS * sizeof *C->sent);
    memset (C->recv, 0, W * MUON_COST_COLLS * sizeof *C->recv);
    memset (C->busy, 0, MUON_COST_COLLS * sizeof *C->busy);
    size_t n = C->fails ? strlen (C->why) : 0;
    if (J.over)
      snprintf (C->why + n, sizeof C->why - n, "%s%s", n ? "; " : "", J.over_why);
    n = strlen (C->why);
    if (J.trans_over)
      snprintf (C->why + n, sizeof C->why - n, "%s" ZERO_TRANSIENT_WHY, n ? "; " : "",
                J.trans_rank);
    C->fails = 1;
  }
  *out = C;
  C = NULL;
fail:
  free (numel);
  free (pf);
  free (keys);
  free (shapes);
  free (order);
  free (sorted);
  muon_zero_cost_destroy (&C);
  return status;
}
