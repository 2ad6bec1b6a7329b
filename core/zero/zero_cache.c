/* zero_cache.c - what a context keeps between distributed Muon steps (muon_zero.h): the
 * layouts and plans of the last MUON_ZERO_PLAN_CACHE (layout inputs, variant) asked for,
 * and one simulated communicator, so a caller stepping again with the same layout does no
 * planning.  Held in the context's "zero.cache" slot as a cache (muon_ctx_release with keep 0
 * frees it, as muon_ctx_destroy does).
 */
#include <stdlib.h>
#include <string.h>

#include "muon_internal.h"
#include "muon_zero.h"

typedef struct {
  size_t nparams, *rows, *cols;   // the key: shapes, world, layout options, variant
  int world;
  muon_zero_layout_opts lo;
  muon_zero_variant variant;
  muon_zero_layout *L;
  muon_zero_plan *P;
  unsigned long used;             // when it was last asked for (LRU)
} zentry;

typedef struct {
  zentry e[MUON_ZERO_PLAN_CACHE];
  unsigned long clock;
  size_t built;                   // plans built through the cache, ever
  muon_comm *sim;                 // the simulated communicator, of sim->size ranks
} zcache;

static void entry_free (zentry *e)
{
  muon_zero_plan_destroy (&e->P);
  muon_zero_layout_destroy (&e->L);
  free (e->rows);
  memset (e, 0, sizeof *e);
}

static void cache_free (void *state)
{
  zcache *c = state;
  for (int i = 0; i < MUON_ZERO_PLAN_CACHE; i++)
    entry_free (&c->e[i]);
  muon_comm_destroy (&c->sim);
  free (c);
}

static muon_status cache_of (muon_ctx *ctx, zcache **c)
{
  muon_status status = MUON_OK;
  *c = muon_ctx_lookup (ctx, "zero.cache");
  if (*c == NULL)
  {
    zcache *n = NULL;
    CHECKMEM (n = calloc (1, sizeof *n));
    CHECKSTATUS (muon_ctx_attach (ctx, "zero.cache", n, cache_free, MUON_CTX_CACHE));
    *c = n;
  }
fail:
  return status;
}

static int same_key (const zentry *e, size_t np, const size_t *rows, const size_t *cols,
                     int world, const muon_zero_layout_opts *lo, muon_zero_variant v)
{
  return e->P != NULL && e->nparams == np && e->world == world && e->variant == v
         && e->lo.stage == lo->stage && e->lo.align_factor == lo->align_factor
         && e->lo.order == lo->order && memcmp (e->rows, rows, np * sizeof *rows) == 0
         && memcmp (e->cols, cols, np * sizeof *cols) == 0;
}

muon_status muon_zero_plan_cached (muon_ctx *ctx, size_t nparams, const size_t *rows,
                                   const size_t *cols, int world,
                                   const muon_zero_layout_opts *o, muon_zero_variant variant,
                                   const muon_zero_plan **plan)
{
  muon_status status = MUON_OK;
  zcache *c = NULL;
  zentry n = { 0 };
  muon_zero_layout_opts lo;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, plan != NULL && rows != NULL && cols != NULL,
         "sizes and plan must not be NULL");
  *plan = NULL;
  muon_zero_layout_opts_default (&lo);
  if (o)
    lo = *o;
  CHECKSTATUS (cache_of (ctx, &c));
  int slot = 0;
  for (int i = 0; i < MUON_ZERO_PLAN_CACHE; i++)
  {
    if (same_key (&c->e[i], nparams, rows, cols, world, &lo, variant))
    {
      c->e[i].used = ++c->clock;
      *plan = c->e[i].P;
      return MUON_OK;
    }
    if (c->e[i].used < c->e[slot].used)
      slot = i;
  }
  // a new entry, built aside and put in place of the least recently used one when complete
  CHECK (MUON_ERR_BADSHAPE, nparams > 0 && nparams <= SIZE_MAX / 2 / sizeof (size_t),
         "nparams must be 1 or more");
  CHECKMEM (n.rows = malloc (2 * nparams * sizeof *n.rows));
  n.cols = n.rows + nparams;
  memcpy (n.rows, rows, nparams * sizeof *rows);
  memcpy (n.cols, cols, nparams * sizeof *cols);
  n = (zentry) { nparams, n.rows, n.cols, world, lo, variant, NULL, NULL, 0 };
  CHECKSTATUS (muon_zero_layout_create (ctx, nparams, rows, cols, world, &lo, &n.L));
  CHECKSTATUS (muon_zero_plan_create (ctx, n.L, variant, &n.P));
  c->built++;
  entry_free (&c->e[slot]);
  n.used = ++c->clock;
  c->e[slot] = n;
  *plan = n.P;
  return MUON_OK;
fail:
  entry_free (&n);
  return status;
}

size_t muon_zero_plans_built (muon_ctx *ctx)
{
  const zcache *c = ctx ? muon_ctx_lookup (ctx, "zero.cache") : NULL;
  return c ? c->built : 0;
}

muon_status muon_zero_comm_sim_cached (muon_ctx *ctx, int world, muon_comm **comm)
{
  muon_status status = MUON_OK;
  zcache *c = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, comm != NULL, "communicator pointer must not be NULL");
  *comm = NULL;
  CHECKSTATUS (cache_of (ctx, &c));
  if (c->sim == NULL || muon_comm_size (c->sim) != world)
  {
    muon_comm_destroy (&c->sim);
    CHECKSTATUS (muon_comm_sim_create (ctx, world, &c->sim));
  }
  *comm = c->sim;
fail:
  return status;
}
