/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: [U, M] = __muon_update__ (G, M, OPTS)"
/* __muon_update__ - gateway of muon_update.m: one Muon update of G (double or single, M x N
 * or M x N x E) with momentum M ([] for zeros, else double or single of G's size; returned
 * updated, in its own class).  OPTS is the struct muon_update.m builds: the muon_ns fields
 * plus beta, nesterov, form, scale, scale_factor, experts (a fused (E*m) x n G viewed as E
 * strided m x n pages), split_rows, scale_rows / scale_cols (0: each block's own shape),
 * and fname: the name errors start with (the user function that runs the update:
 * muon_update, muon_step or muon_optimizer; default "muon_update").  With the field
 * momentum_only 1, U is the Newton-Schulz input X instead (muon_update_momentum: the Muon
 * family's rules take the momentum from the core under MomentumArith 'torch').
 */
#include <string.h>

#include "muon_mex.h"

enum { IN_G, IN_M, IN_OPTS, IN_END };
enum { OUT_U, OUT_M, OUT_END };

// E fused row blocks of a dense matrix: E pages of (rows / E) x cols, ld = rows, stride rows/E.
static void fuse (muon_tensor *t, size_t E)
{
  t->rows /= E;
  t->batch = E;
  t->stride = t->rows;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  if (nrhs != IN_END || nlhs > OUT_END)
    muon_mex_error ("muon_update", "badArg", "%s.", USAGE);
  const mxArray *s = prhs[IN_OPTS];
  char caller[256];
  const char *fname = muon_mex_caller (s, "muon_update", caller, sizeof caller);
  muon_tensor G = muon_mex_tensor (fname, "G", prhs[IN_G]);
  mxClassID cls = mxGetClassID (prhs[IN_G]);

  muon_update_opts o;
  double experts = 1;
  muon_mex_update_opts (fname, s, &o, &experts);

  // outputs, built here and handed over by muon_mex_outputs (never past nlhs)
  mxArray *out[OUT_END] = { NULL };
  // momentum: a copy of M (or zeros), updated in place by core
  const mxArray *m = prhs[IN_M];
  if (mxIsEmpty (m))
    out[OUT_M] = muon_mex_new_array (fname, mxGetNumberOfDimensions (prhs[IN_G]),
                                     mxGetDimensions (prhs[IN_G]), cls);
  else
  {
    muon_tensor Min = muon_mex_tensor (fname, "M", m);
    if (Min.rows != G.rows || Min.cols != G.cols || Min.batch != G.batch)
      muon_mex_error (fname, "badShape", "M must be the size of G.");
    out[OUT_M] = muon_mex_copy (fname, m);
  }
  muon_tensor M = muon_mex_tensor (fname, "M", out[OUT_M]), U;
  out[OUT_U] = muon_mex_new_like (fname, &G, cls, &U);

  // a fused (E*m) x n weight: E strided pages, no copy
  if (experts != 1)
  {
    if (!(experts >= 1 && experts <= (double) G.rows && experts == (size_t) experts)
        || G.batch != 1
        || G.rows % (size_t) experts != 0)
      muon_mex_error (fname, "badShape", "experts must divide the rows of a 2-D G.");
    fuse (&G, (size_t) experts);
    fuse (&M, (size_t) experts);
    fuse (&U, (size_t) experts);
  }
  int momentum_only = 0;
  muon_mex_field_int (fname, s, "momentum_only", &momentum_only);
  if (momentum_only)
    muon_mex_check (fname, muon_update_momentum (muon_mex_ctx (), &G, &M, &U, &o));
  else
    muon_mex_check (fname, muon_update (muon_mex_ctx (), &G, &M, &U, &o));
  muon_mex_outputs (nlhs, plhs, out, OUT_END);
}
