/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: C = __muon_zero_cost__ (SHAPES, EXPERTS, SPLIT, WORLD, OPTS) or [DESIGNS, COLLS] = __muon_zero_cost__ ()"
/* __muon_zero_cost__ - gateway of zero_cost.m: the plan-only cost of one distributed Muon step
 * (muon_zero_cost.h).  SHAPES is P x 2 [rows cols] (positive integers), EXPERTS P x 1 (or
 * []: all 1), SPLIT a P x 1 cell of row-block vectors (or []: none), WORLD a scalar, OPTS a
 * struct: design, order, pad_count (strings), stage, align_factor, elem_bytes, symmetric and
 * the Newton-Schulz fields muon_ns.m passes (method, steps, restarts, gram_min_aspect, ...).
 * C is a struct of plain doubles (0-based ranks), its fields in the order of FIELDS below:
 * per rank (W rows) calls, sent, recv (W x 6: allreduce, reduce_scatter, all_gather,
 * broadcast, barrier, all_to_all), busy (1 x 6: each collective's critical-path bytes, its
 * calls in sequence), ns_calls, ns_flops, momentum, pads, owned, master,
 * transient; per matrix (P rows) first_owner, last_owner, ns_rank, slot; and the scalars
 * fails (logical), why, total, padded_total, partition_size, straddle_total, nstraddle,
 * rounds, flops_total.  With no input: the core's names of the designs and of the
 * collective columns, in its order.
 */
#include "muon_mex.h"

enum { IN_SHAPES, IN_EXPERTS, IN_SPLIT, IN_WORLD, IN_OPTS, IN_END };
enum { OUT_C, OUT_END };
enum { OUT_DESIGNS, OUT_COLLS, OUT_NAMES_END };

// C's fields, in order: X (FIELD, KIND, ROWS, COLS), FIELD a member of muon_zero_cost.
// KIND TAB: a row-major ROWS x COLS table (W: one row per rank, P: one per matrix); ONE: a
// number; BOOL: a flag; TEXT: a string.
#define FIELDS(X)                                                               \
  X (calls, TAB, W, MUON_COST_COLLS) X (sent, TAB, W, MUON_COST_COLLS)          \
  X (recv, TAB, W, MUON_COST_COLLS)  X (busy, TAB, 1, MUON_COST_COLLS)          \
  X (ns_calls, TAB, W, 1)                                                       \
  X (ns_flops, TAB, W, 1)   X (momentum, TAB, W, 1)  X (pads, TAB, W, 1)         \
  X (owned, TAB, W, 1)      X (master, TAB, W, 1)    X (transient, TAB, W, 1)    \
  X (first_owner, TAB, P, 1) X (last_owner, TAB, P, 1) X (ns_rank, TAB, P, 1)     \
  X (slot, TAB, P, 1)       X (fails, BOOL, 1, 1)    X (why, TEXT, 1, 1)         \
  X (total, ONE, 1, 1)      X (padded_total, ONE, 1, 1)                          \
  X (partition_size, ONE, 1, 1) X (straddle_total, ONE, 1, 1)                   \
  X (nstraddle, ONE, 1, 1)  X (rounds, ONE, 1, 1)    X (flops_total, ONE, 1, 1)

#define PUT_TAB(f, rows, cols)                                                  \
  a = mxCreateDoubleMatrix (rows, cols, mxREAL);                                \
  for (size_t i = 0; i < (rows) * (cols); i++)                                  \
    mxGetPr (a)[i / (cols) + i % (cols) * (rows)] = (double) C->f[i];
#define PUT_ONE(f, rows, cols) a = mxCreateDoubleScalar ((double) C->f);
#define PUT_BOOL(f, rows, cols) a = mxCreateLogicalScalar (C->f != 0);
#define PUT_TEXT(f, rows, cols) a = mxCreateString (C->f);
#define PUT(f, kind, rows, cols) PUT_##kind (f, rows, cols) mxSetField (R, 0, #f, a);
#define NAME(f, kind, rows, cols) #f,

static mxArray *cost_struct (const muon_zero_cost *C, size_t P)
{
  static const char *fields[] = { FIELDS (NAME) };
  size_t W = (size_t) C->world;
  mxArray *R = mxCreateStructMatrix (1, 1, sizeof fields / sizeof *fields, fields), *a;
  FIELDS (PUT)
  return R;
}

// The names of a list of the catalogue (muon_lists.h), as a 1 x n cell.
static mxArray *names (muon_list list)
{
  int n = muon_list_size (list);
  mxArray *c = mxCreateCellMatrix (1, (mwSize) n);
  for (int k = 0; k < n; k++)
    mxSetCell (c, (mwIndex) k, mxCreateString (muon_names (list, k)));
  return c;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "zero_cost";
  if (!(nrhs == IN_END && nlhs <= OUT_END) && !(nrhs == 0 && nlhs <= OUT_NAMES_END))
    muon_mex_error (fname, "badArg", "%s.", USAGE);
  if (nrhs == 0)
  {
    mxArray *out[OUT_NAMES_END] = { names (MUON_LIST_ZERO_VARIANT), names (MUON_LIST_COLL) };
    muon_mex_outputs (nlhs, plhs, out, OUT_NAMES_END);
    return;
  }
  size_t P;
  size_t *rc = muon_mex_shapes (fname, prhs[IN_SHAPES], &P);
  const mxArray *E = prhs[IN_EXPERTS], *SP = prhs[IN_SPLIT];
  if (!mxIsEmpty (E) && (!muon_mex_is_real_double (E) || mxGetNumberOfElements (E) != P))
    muon_mex_error (fname, "badShape", "EXPERTS must be [] or %zu numbers.", P);
  if (!mxIsEmpty (SP) && (!mxIsCell (SP) || mxGetNumberOfElements (SP) != P))
    muon_mex_error (fname, "badShape", "SPLIT must be [] or a cell of %zu entries.", P);
  int world = muon_mex_int (fname, "WORLD", prhs[IN_WORLD], 1,
                            MUON_ZERO_MAX_WORLD < MUON_COMM_MAX_WORLD ? MUON_ZERO_MAX_WORLD
                                                                      : MUON_COMM_MAX_WORLD);
  muon_zero_cost_opts o;
  muon_mex_zero_cost_opts (fname, prhs[IN_OPTS], &o);

  // the matrices: sizes from SHAPES, EXPERTS and SPLIT (mxMalloc-ed, freed with the call)
  muon_zero_cost_param *par = mxCalloc (P, sizeof *par);
  for (size_t p = 0; p < P; p++)
  {
    par[p].rows = rc[p];
    par[p].cols = rc[p + P];
    par[p].experts = mxIsEmpty (E) ? 1 : muon_mex_size (fname, "EXPERTS", mxGetPr (E)[p]);
    const mxArray *c = mxIsEmpty (SP) ? NULL : mxGetCell (SP, p);
    if (c == NULL || mxIsEmpty (c))
      continue;
    if (!muon_mex_is_real_double (c))
      muon_mex_error (fname, "badShape", "SPLIT{%zu} must be a real vector.", p + 1);
    size_t *split = mxMalloc (mxGetNumberOfElements (c) * sizeof *split);
    for (size_t b = 0; b < mxGetNumberOfElements (c); b++)
      split[b] = muon_mex_size (fname, "SPLIT", mxGetPr (c)[b]);
    par[p].split = split;
    par[p].nsplit = mxGetNumberOfElements (c);
  }

  muon_zero_cost *C = NULL;
  muon_mex_check (fname, muon_zero_cost_create (muon_mex_ctx (), P, par, world, &o, &C));
  mxArray *out[OUT_END] = { cost_struct (C, P) };
  muon_zero_cost_destroy (&C);
  muon_mex_outputs (nlhs, plhs, out, OUT_END);
}
