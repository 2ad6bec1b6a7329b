/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex_zero_step.c - one step of __muon_zero_step__ on Octave arrays and its STATS and
 * INFO (see muon_mex_zero.h).  Nothing here raises.
 */
#include "muon_mex_zero.h"

static mxArray *row (const uint64_t *v, int n)
{
  mxArray *a = mxCreateDoubleMatrix (1, (mwSize) n, mxREAL);
  for (int k = 0; k < n; k++)
    mxGetPr (a)[k] = (double) v[k];
  return a;
}

static mxArray *column (const size_t *v, size_t n)
{
  mxArray *a = mxCreateDoubleMatrix (n, 1, mxREAL);
  for (size_t i = 0; i < n; i++)
    mxGetPr (a)[i] = (double) v[i];
  return a;
}

// STATS' fields after rank, in order: X (FIELD, KIND), FIELD a member of muon_zero_rank_stats
// (ONE: a number) or of its comm counters (ROW: 1 x MUON_COLL_COUNT, in muon_coll order).
#define STATS_FIELDS(X)                                                         \
  X (ns_calls, ONE) X (momentum_elements, ONE) X (pad_elements, ONE)            \
  X (calls, ROW)    X (bytes_sent, ROW)        X (bytes_recv, ROW)
#define STAT_NAME(f, kind) #f,
#define STAT_ONE(f) mxCreateDoubleScalar ((double) st[l].f)
#define STAT_ROW(f) row (st[l].comm.f, MUON_COLL_COUNT)
#define STAT_PUT(f, kind) mxSetField (a, l, #f, STAT_##kind (f));

mxArray *muon_mex_zero_stats (const muon_zero_rank_stats *st, muon_comm *comm, int nl)
{
  static const char *f[] = { "rank", STATS_FIELDS (STAT_NAME) };
  mxArray *a = mxCreateStructMatrix ((mwSize) nl, 1, sizeof f / sizeof *f, f);
  for (int l = 0; l < nl; l++)
  {
    mxSetField (a, l, "rank", mxCreateDoubleScalar (muon_comm_rank (comm, l)));
    STATS_FIELDS (STAT_PUT)
  }
  return a;
}

muon_status muon_mex_zero_step (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                                const muon_zero_step_opts *o, const double *const *grads,
                                const mxArray *M, int assemble,
                                mxArray *out[MUON_MEX_ZERO_OUTS], const char **why)
{
  int nl = muon_comm_local_ranks (comm);
  size_t np = P->nparams;
  double **mom = mxCalloc ((size_t) nl, sizeof *mom), **upd = mxCalloc ((size_t) nl, sizeof *upd);
  *why = muon_mex_zero_momentum (M, P, comm, nl, &out[MUON_MEX_ZERO_MOM], mom);
  if (*why == NULL)
  {
    *why = "";
    return MUON_ERR_NOMEM;
  }
  if (**why)
    return MUON_OK;
  out[MUON_MEX_ZERO_UPD] = mxCreateCellMatrix ((mwSize) nl, 1);
  for (int l = 0; l < nl; l++)
  {
    mwSize d[2] = { P->owned_len[muon_comm_rank (comm, l)], 1 };
    mxArray *u = muon_mex_try_new_array (2, d, mxDOUBLE_CLASS);
    if (u == NULL)
      return MUON_ERR_NOMEM;
    mxSetCell (out[MUON_MEX_ZERO_UPD], l, u);
    upd[l] = mxGetPr (u);
  }
  muon_zero_rank_stats *st = mxCalloc ((size_t) nl, sizeof *st);
  muon_status s = muon_zero_step (ctx, comm, P, o, grads, mom, upd, st);
  if (s < 0)
    return s;
  out[MUON_MEX_ZERO_STATS] = muon_mex_zero_stats (st, comm, nl);
  if (!assemble)
  {
    out[MUON_MEX_ZERO_FULL] = mxCreateCellMatrix (0, 0);
    return s;
  }
  out[MUON_MEX_ZERO_FULL] = mxCreateCellMatrix (1, (mwSize) np);
  double **full = mxCalloc (np, sizeof *full);
  for (size_t p = 0; p < np; p++)
  {
    mwSize d[2] = { P->L->params[p].rows, P->L->params[p].cols };
    mxArray *f = muon_mex_try_new_array (2, d, mxDOUBLE_CLASS);
    if (f == NULL)
      return MUON_ERR_NOMEM;
    mxSetCell (out[MUON_MEX_ZERO_FULL], p, f);
    full[p] = mxGetPr (f);
  }
  muon_status a = muon_zero_assemble (ctx, comm, P, (const double *const *) upd, full);
  return a < 0 ? a : s;
}

// INFO's fields, in order: X (FIELD, VALUE), VALUE built in muon_mex_zero_info.
#define INFO_FIELDS(X)                                                          \
  X (owned, owned)                                                              \
  X (owned_len, column (P->owned_len, W))                                       \
  X (momentum_len, column (P->momentum_len, W))                                 \
  X (ns_calls, column (P->ns_calls, W))                                         \
  X (lpt_owner, lpt)                                                            \
  X (comm, mxCreateString (muon_comm_name (comm)))                              \
  X (counts_measured, mxCreateDoubleScalar (muon_comm_counts_measured (comm)))  \
  X (local_ranks, mxCreateDoubleScalar (nl))                                    \
  X (ranks, ranks)                                                              \
  X (plans_built, mxCreateDoubleScalar ((double) plans_built))
#define INFO_NAME(f, value) #f,
#define INFO_VALUE(f, value) value,

mxArray *muon_mex_zero_owned (const muon_zero_plan *P)
{
  size_t W = (size_t) P->world, np = P->nparams;
  mwSize dims[3] = { (mwSize) W, 2, (mwSize) np };
  mxArray *owned = mxCreateNumericArray (3, dims, mxDOUBLE_CLASS, mxREAL);
  double *d = mxGetPr (owned);
  for (size_t r = 0; r < W; r++)
    for (size_t p = 0; p < np; p++)
    {
      d[p * 2 * W + r] = (double) P->owned[r * np + p].start;
      d[p * 2 * W + W + r] = (double) P->owned[r * np + p].stop;
    }
  return owned;
}

mxArray *muon_mex_zero_info (const muon_zero_plan *P, muon_comm *comm, size_t plans_built)
{
  size_t W = (size_t) P->world, np = P->nparams;
  mxArray *owned = muon_mex_zero_owned (P);
  mxArray *lpt = mxCreateDoubleMatrix (P->lpt_owner ? 1 : 0, P->lpt_owner ? np : 0, mxREAL);
  for (size_t p = 0; P->lpt_owner && p < np; p++)
    mxGetPr (lpt)[p] = P->lpt_owner[p];
  int nl = muon_comm_local_ranks (comm);
  mxArray *ranks = mxCreateDoubleMatrix (1, (mwSize) nl, mxREAL);
  for (int l = 0; l < nl; l++)
    mxGetPr (ranks)[l] = muon_comm_rank (comm, l);
  static const char *f[] = { INFO_FIELDS (INFO_NAME) };
  mxArray *v[] = { INFO_FIELDS (INFO_VALUE) };
  mxArray *a = mxCreateStructMatrix (1, 1, sizeof f / sizeof *f, f);
  for (int k = 0; k < (int) (sizeof f / sizeof *f); k++)
    mxSetFieldByNumber (a, 0, k, v[k]);
  return a;
}
