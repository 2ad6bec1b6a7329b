/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: F = __muon_ns_flops__ (M, N, STEPS, RESTARTS, SYMMETRIC)"
/* __muon_ns_flops__ - the core's FLOP model of Newton-Schulz (muon_math.h,
 * muon_ns_flop_model_get) for ns_flops.m, evaluated on the shapes M x N (real double arrays
 * of positive sizes, of one size or one of them a scalar; ns_flops.m checks them and the
 * options first).  F has the fields
 *   standard, gram            the counts, the size of M (or N)
 *   standard_coeffs, gram_coeffs   1 x 2 [c1 c0]: a count is c1 m n^2 + c0 n^3
 *   gram_steps                STEPS x 2: [c1 c0] of each Gram iteration
 *   standard_terms, gram_terms    one field per term (MUON_NS_FLOP_TERM_LIST), each a count
 *                             array the size of the counts
 *   restarts                  1 x k: the restarts that happen (sorted, 1 .. STEPS - 1)
 */
#include <math.h>

#include "muon_mex.h"

enum { IN_M, IN_N, IN_STEPS, IN_RESTARTS, IN_SYMMETRIC, IN_END };
enum { OUT_F, OUT_END };

// The names of the terms, in muon_ns_flop_term's order.
#define TERM_NAME(name, value, text) [value] = text,
static const char *const term_names[MUON_FLOPS_TERMS] = { MUON_NS_FLOP_TERM_LIST (TERM_NAME) };

static const mxArray *sizes (const char *fname, const char *what, const mxArray *a)
{
  if (!mxIsDouble (a) || mxIsComplex (a) || mxIsSparse (a) || mxIsEmpty (a))
    muon_mex_error (fname, "badArg", "%s must be a real double array.", what);
  const double *x = mxGetPr (a);
  for (size_t i = 0; i < mxGetNumberOfElements (a); i++)
    if (!(x[i] > 0 && isfinite (x[i])))
      muon_mex_error (fname, "badArg", "%s must be positive finite real numbers.", what);
  return a;
}

// out[k] = count of c on shape k (M and N broadcast: one of them may be a scalar).
static mxArray *counts (const double c[2], const mxArray *M, const mxArray *N)
{
  const mxArray *like = mxGetNumberOfElements (M) >= mxGetNumberOfElements (N) ? M : N;
  size_t n = mxGetNumberOfElements (like);
  mxArray *out = mxCreateNumericArray (mxGetNumberOfDimensions (like), mxGetDimensions (like),
                                       mxDOUBLE_CLASS, mxREAL);
  const double *m = mxGetPr (M), *k = mxGetPr (N);
  int ms = mxGetNumberOfElements (M) == 1, ks = mxGetNumberOfElements (N) == 1;
  double *o = mxGetPr (out);
  for (size_t i = 0; i < n; i++)
    o[i] = muon_ns_flops_count (c, m[ms ? 0 : i], k[ks ? 0 : i]);
  return out;
}

static mxArray *pair (const double c[2])
{
  mxArray *a = mxCreateDoubleMatrix (1, 2, mxREAL);
  mxGetPr (a)[0] = c[0];
  mxGetPr (a)[1] = c[1];
  return a;
}

static mxArray *terms (const muon_ns_flop_model *F, int first, int last, const mxArray *M,
                       const mxArray *N)
{
  mxArray *s = mxCreateStructMatrix (1, 1, 0, NULL);
  for (int t = first; t < last; t++)
  {
    mxAddField (s, term_names[t]);
    mxSetField (s, 0, term_names[t], counts (F->term[t], M, N));
  }
  return s;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "ns_flops";
  if (nrhs != IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s.", USAGE);
  const mxArray *M = sizes (fname, "M", prhs[IN_M]), *N = sizes (fname, "N", prhs[IN_N]);
  size_t nm = mxGetNumberOfElements (M), nn = mxGetNumberOfElements (N);
  if (nm != 1 && nn != 1 && nm != nn)
    muon_mex_error (fname, "badShape", "M and N must have the same size (or one must be a "
                    "scalar).");
  int steps = muon_mex_int (fname, "STEPS", prhs[IN_STEPS], 1, MUON_MAX_STEPS);
  int symmetric = muon_mex_int (fname, "SYMMETRIC", prhs[IN_SYMMETRIC], 0, 1);
  const mxArray *R = prhs[IN_RESTARTS];
  if (!(mxIsDouble (R) && !mxIsComplex (R) && !mxIsSparse (R)))
    muon_mex_error (fname, "badArg", "RESTARTS must be a vector of non-negative integers.");
  size_t nr = mxGetNumberOfElements (R);
  int *restarts = mxMalloc ((nr + 1) * sizeof *restarts);
  for (size_t i = 0; i < nr; i++)
  {
    double v = mxGetPr (R)[i];
    if (!(v >= 0 && isfinite (v) && v == floor (v)))
      muon_mex_error (fname, "badArg", "RESTARTS must be a vector of non-negative integers.");
    // an index past the last iteration never restarts, whatever its value
    restarts[i] = v > MUON_MAX_STEPS ? MUON_MAX_STEPS : (int) v;
  }
  muon_ns_flop_model F;
  double *gs = mxMalloc (2 * (size_t) steps * sizeof *gs);
  int *restarted = mxMalloc ((size_t) steps * sizeof *restarted);
  muon_mex_check (fname, muon_ns_flop_model_get (muon_mex_ctx (), steps, restarts, (int) nr,
                                                 symmetric, &F, gs, restarted));
  static const char *fields[] = { "standard", "gram", "standard_coeffs", "gram_coeffs",
                                  "gram_steps", "standard_terms", "gram_terms", "restarts" };
  mxArray *out = mxCreateStructMatrix (1, 1, 8, fields);
  mxSetField (out, 0, "standard", counts (F.standard, M, N));
  mxSetField (out, 0, "gram", counts (F.gram, M, N));
  mxSetField (out, 0, "standard_coeffs", pair (F.standard));
  mxSetField (out, 0, "gram_coeffs", pair (F.gram));
  mxArray *g = mxCreateDoubleMatrix ((mwSize) steps, 2, mxREAL);
  for (int i = 0; i < steps; i++)
  {
    mxGetPr (g)[i] = gs[2 * i];
    mxGetPr (g)[i + steps] = gs[2 * i + 1];
  }
  mxSetField (out, 0, "gram_steps", g);
  mxSetField (out, 0, "standard_terms", terms (&F, 0, MUON_FLOPS_GRAM_FIRST, M, N));
  mxSetField (out, 0, "gram_terms", terms (&F, MUON_FLOPS_GRAM_FIRST, MUON_FLOPS_TERMS, M, N));
  int k = 0;
  for (int i = 0; i < steps; i++)
    k += restarted[i];
  mxArray *r = mxCreateDoubleMatrix (1, (mwSize) k, mxREAL);
  for (int i = 0, j = 0; i < steps; i++)
    if (restarted[i])
      mxGetPr (r)[j++] = i;
  mxSetField (out, 0, "restarts", r);
  mxArray *outs[OUT_END] = { out };
  muon_mex_outputs (nlhs, plhs, outs, OUT_END);
}
