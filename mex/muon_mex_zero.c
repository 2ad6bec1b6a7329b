/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex_zero.c - the arguments of __muon_zero_step__ (see muon_mex_zero.h).  Only
 * muon_mex_zero_layout raises: the others run while the gateway may hold a communicator
 * made for the call.
 */
#include <stdlib.h>
#include <string.h>

#include "muon_mex_comm.h"
#include "muon_mex_zero.h"

size_t *muon_mex_zero_layout (const char *fname, const mxArray *S, const mxArray *Wa,
                              const mxArray *lopts, size_t *P, int *world,
                              muon_zero_layout_opts *o)
{
  if (!mxIsDouble (S) || mxIsComplex (S) || mxIsSparse (S) || mxGetN (S) != 2
      || mxGetM (S) < 1 || mxGetNumberOfDimensions (S) != 2)
    muon_mex_error (fname, "badShape", "SHAPES must be a real P x 2 double matrix.");
  double wd = mxIsDouble (Wa) && !mxIsSparse (Wa) && mxGetNumberOfElements (Wa) == 1
              ? mxGetScalar (Wa) : -1;
  if (!(wd >= 1 && wd <= MUON_COMM_MAX_WORLD) || wd != (double) (int) wd)
    muon_mex_error (fname, "badArg", "WORLD must be an integer in 1..%d.", MUON_COMM_MAX_WORLD);
  muon_mex_zero_layout_opts (fname, lopts, o);
  *P = mxGetM (S);
  const double *s = mxGetPr (S);
  size_t *rc = mxMalloc (2 * *P * sizeof *rc);
  for (size_t i = 0; i < 2 * *P; i++)
  {
    if (!(s[i] >= 1 && s[i] <= 9007199254740992.0) || s[i] != (double) (size_t) s[i])
      muon_mex_error (fname, "badShape", "SHAPES must hold positive integers.");
    rc[i] = (size_t) s[i];
  }
  *world = (int) wd;
  return rc;
}

muon_zero_blocks *muon_mex_zero_blocks (const char *fname, const mxArray *opts, size_t P)
{
  const mxArray *E = mxGetField (opts, 0, "param_experts");
  const mxArray *S = mxGetField (opts, 0, "param_split");
  int none_e = E == NULL || mxIsEmpty (E), none_s = S == NULL || mxIsEmpty (S);
  if (none_e && none_s)
    return NULL;
  if (!none_e && !(muon_mex_is_real_double (E) && mxGetNumberOfElements (E) == P))
    muon_mex_error (fname, "badShape", "EXPERTS must be a real vector of %zu entries.", P);
  if (!none_s && !(mxIsCell (S) && mxGetNumberOfElements (S) == P))
    muon_mex_error (fname, "badShape", "SPLITROWS must be a cell of %zu entries.", P);
  muon_zero_blocks *b = mxCalloc (P, sizeof *b);     // freed with the call
  for (size_t p = 0; p < P; p++)
  {
    b[p].experts = none_e ? 1 : muon_mex_size (fname, "EXPERTS", mxGetPr (E)[p]);
    const mxArray *c = none_s ? NULL : mxGetCell (S, p);
    if (c == NULL || mxIsEmpty (c))
      continue;
    if (!muon_mex_is_real_double (c))
      muon_mex_error (fname, "badShape", "SPLITROWS{%zu} must be a real vector.", p + 1);
    size_t n = mxGetNumberOfElements (c), *split = mxMalloc (n * sizeof *split);
    for (size_t k = 0; k < n; k++)
      split[k] = muon_mex_size (fname, "SPLITROWS", mxGetPr (c)[k]);
    b[p].split = split;
    b[p].nsplit = n;
  }
  return b;
}

const char *muon_mex_zero_grads (const mxArray *G, const muon_zero_plan *P, int nl,
                                 const double **grads)
{
  size_t np = P->nparams;
  if (!(mxIsCell (G) && mxGetM (G) == (size_t) nl && mxGetN (G) == np))
    return "GRADS must be a cell of one row per local rank and one column per parameter";
  for (int l = 0; l < nl; l++)
    for (size_t p = 0; p < np; p++)
    {
      const mxArray *g = mxGetCell (G, l + p * (size_t) nl);
      if (!g || !mxIsDouble (g) || mxIsComplex (g) || mxIsSparse (g)
          || mxGetNumberOfDimensions (g) != 2 || mxGetM (g) != P->L->params[p].rows
          || mxGetN (g) != P->L->params[p].cols)
        return "every gradient must be a real double matrix of its parameter's shape";
      grads[(size_t) l * np + p] = mxGetPr (g);
    }
  return "";
}

const char *muon_mex_zero_momentum (const mxArray *M, const muon_zero_plan *P, muon_comm *comm,
                                    int nl, mxArray **out, double **mom)
{
  int shared = P->variant == MUON_ZERO_REFERENCE && nl > 1;
  size_t n = mxIsCell (M) ? mxGetNumberOfElements (M) : 0;
  if (!mxIsEmpty (M) && !(mxIsCell (M) && (n == (size_t) nl || (shared && n == 1))))
    return "MOM must be [] or a cell of one vector per local rank";
  for (size_t l = 0; l < n; l++)
  {
    const mxArray *m = mxGetCell (M, l);
    size_t want = P->momentum_len[muon_comm_rank (comm, (int) l)];
    if (!(m && mxIsDouble (m) && !mxIsComplex (m) && !mxIsSparse (m)
          && mxGetNumberOfElements (m) == want))
      return "a momentum buffer does not match the variant's layout";
    shared = shared && mxGetPr (m) == mxGetPr (mxGetCell (M, 0));
  }
  *out = mxCreateCellMatrix (shared ? 1 : (mwSize) nl, 1);
  for (int l = 0; l < (shared ? 1 : nl); l++)
  {
    size_t want = P->momentum_len[muon_comm_rank (comm, l)];
    mxArray *c = muon_mex_try_new_array (2, (mwSize[]) { want, 1 }, mxDOUBLE_CLASS);
    if (c == NULL)
      return NULL;
    if (n)
      memcpy (mxGetPr (c), mxGetPr (mxGetCell (M, (mwIndex) l)), want * sizeof (double));
    mxSetCell (*out, l, c);
    mom[l] = mxGetPr (c);
  }
  for (int l = 1; shared && l < nl; l++)
    mom[l] = mom[0];
  return "";
}


//---- a layout's plans ---------------------------------------------------------------------

struct muon_mex_zero_plans {
  size_t np, *rc;                 // the key: rows then cols of the np matrices, world, options
  int world;
  muon_zero_layout_opts lo;
  muon_zero_layout *L;
  muon_zero_plan *P[MUON_ZERO_VARIANT_COUNT];   // made on first use
  size_t bucket[MUON_ZERO_VARIANT_COUNT];        // the bucket size each was made with
};

void muon_mex_zero_plans_free (void *obj)
{
  muon_mex_zero_plans *z = obj;
  if (z == NULL)
    return;
  for (int v = 0; v < MUON_ZERO_VARIANT_COUNT; v++)
    muon_zero_plan_destroy (&z->P[v]);
  muon_zero_layout_destroy (&z->L);
  free (z->rc);
  free (z);
}

muon_status muon_mex_zero_plans_new (muon_ctx *ctx, size_t np, const size_t *rc, int world,
                                     const muon_zero_layout_opts *lo,
                                     muon_mex_zero_plans **out)
{
  muon_mex_zero_plans *z = calloc (1, sizeof *z);
  *out = NULL;
  if (z == NULL || (z->rc = malloc (2 * np * sizeof *z->rc)) == NULL)
  {
    free (z);
    return muon_ctx_set_error (ctx, MUON_ERR_NOMEM, "out of memory for a layout's plans");
  }
  memcpy (z->rc, rc, 2 * np * sizeof *rc);
  z->np = np;
  z->world = world;
  z->lo = *lo;
  muon_status s = muon_zero_layout_create (ctx, np, rc, rc + np, world, lo, &z->L);
  if (s < 0)
  {
    muon_mex_zero_plans_free (z);
    return s;
  }
  *out = z;
  return MUON_OK;
}

int muon_mex_zero_plans_match (const muon_mex_zero_plans *z, size_t np, const size_t *rc,
                               int world, const muon_zero_layout_opts *lo)
{
  return z->np == np && z->world == world && z->lo.stage == lo->stage
         && z->lo.align_factor == lo->align_factor && z->lo.order == lo->order
         && memcmp (z->rc, rc, 2 * np * sizeof *rc) == 0;
}

muon_status muon_mex_zero_plans_get (muon_ctx *ctx, muon_mex_zero_plans *z,
                                     muon_zero_variant v, size_t bucket,
                                     const muon_zero_plan **P, size_t *built)
{
  *P = NULL;
  if (!MUON_IN_LIST (MUON_ZERO_VARIANT_LIST, v))
    return muon_ctx_set_error (ctx, MUON_ERR_BADARG, "unknown variant %d", (int) v);
  if (v != MUON_ZERO_LAYERWISE_LPT && v != MUON_ZERO_LAYERWISE_NS_COST)
    bucket = 0;                         // the other designs have no buckets
  if (z->P[v] != NULL && z->bucket[v] != bucket)
    muon_zero_plan_destroy (&z->P[v]);  // another bucket size: another plan
  if (z->P[v] == NULL)
  {
    z->bucket[v] = bucket;
    muon_status s = muon_zero_plan_create_bucketed (ctx, z->L, v, bucket, &z->P[v]);
    if (s < 0)
      return s;
    ++*built;
  }
  *P = z->P[v];
  return MUON_OK;
}

muon_status muon_mex_zero_map (muon_ctx *ctx, const muon_zero_plan *P, mxArray *out[2])
{
  const muon_zero_layout *L = P->L;
  muon_zero_mom_seg *seg = mxMalloc ((L->nparams ? L->nparams : 1) * sizeof *seg);
  muon_status s = MUON_OK;
  out[0] = mxCreateCellMatrix ((mwSize) L->world, 1);
  out[1] = mxCreateDoubleMatrix ((mwSize) L->world, 1, mxREAL);
  for (int r = 0; r < L->world && s >= 0; r++)
  {
    size_t n = 0;
    s = muon_zero_plan_momentum_map (ctx, P, r, seg, &n);
    mxArray *m = mxCreateDoubleMatrix ((mwSize) n, 5, mxREAL);
    double *d = mxGetPr (m);
    for (size_t k = 0; k < n && s >= 0; k++)
    {
      double row[5] = { seg[k].param + 1, seg[k].at, seg[k].start, seg[k].stop,
                        seg[k].rowmajor };
      for (int j = 0; j < 5; j++)
        d[k + j * n] = row[j];
    }
    mxSetCell (out[0], (mwIndex) r, m);
    mxGetPr (out[1])[r] = s >= 0 ? (double) P->momentum_len[r] : 0;
  }
  mxFree (seg);
  if (s < 0)
  {
    mxDestroyArray (out[0]);
    mxDestroyArray (out[1]);
    out[0] = out[1] = NULL;
  }
  return s;
}

size_t *muon_mex_zero_step_args (const char *fname, const mxArray *shapes, const mxArray *world,
                                 const mxArray *lopts, const mxArray *opts,
                                 muon_zero_step_opts *o, size_t *np, int *W,
                                 muon_zero_layout_opts *lo)
{
  double experts = 1;   // muon_update's one count for all: per matrix here (blocks)
  muon_mex_zero_step_opts (fname, opts, o, &experts);
  size_t *rc = muon_mex_zero_layout (fname, shapes, world, lopts, np, W, lo);
  o->blocks = muon_mex_zero_blocks (fname, opts, *np);
  return rc;
}

muon_comm *muon_mex_zero_comm (const char *fname, const mxArray *C, int W, int *owned)
{
  char kind[8] = "";
  muon_comm *comm = NULL;
  *owned = 0;
  if (mxIsEmpty (C) || (mxIsChar (C) && mxGetString (C, kind, sizeof kind) == 0
                        && strcmp (kind, "sim") == 0))
    muon_mex_check (fname, muon_zero_comm_sim_cached (muon_mex_ctx (), W, &comm));
  else
    comm = muon_mex_comm_get (fname, C, W, owned);
  return comm;
}
