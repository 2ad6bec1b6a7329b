/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: Y = __muon_fma__ (A, X, Y)"
/* __muon_fma__ - torch's y.add_ (x, alpha=a) on the CPU (muon_math.h, muon_fma_array):
 * fma (A, X, Y) rounded once into Y's class, A first rounded to it.  X and Y are real
 * single or double arrays of one class and size, A a real double scalar.  For muon_step's
 * "MomentumArith" "torch" apply of a Muon parameter (inst/private/opt_fused_add.m).
 */
#include <string.h>

#include "muon_mex.h"

enum { IN_A, IN_X, IN_Y, IN_END };
enum { OUT_Y, OUT_END };

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "__muon_fma__";
  if (nrhs != IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s.", USAGE);
  if (!muon_mex_is_real_double (prhs[IN_A]) || mxGetNumberOfElements (prhs[IN_A]) != 1)
    muon_mex_error (fname, "badArg", "A must be a real double scalar.");
  const mxArray *x = prhs[IN_X], *y = prhs[IN_Y];
  mxClassID cls = mxGetClassID (y);
  if (!(cls == mxSINGLE_CLASS || cls == mxDOUBLE_CLASS) || mxIsComplex (y) || mxIsSparse (y)
      || mxGetClassID (x) != cls || mxIsComplex (x) || mxIsSparse (x))
    muon_mex_error (fname, "badArg", "X and Y must be real single or double arrays of one class.");
  size_t n = mxGetNumberOfElements (y);
  mwSize nd = mxGetNumberOfDimensions (y);
  if (mxGetNumberOfElements (x) != n || mxGetNumberOfDimensions (x) != nd
      || memcmp (mxGetDimensions (x), mxGetDimensions (y), nd * sizeof (mwSize)) != 0)
    muon_mex_error (fname, "badShape", "X and Y must be of one size.");
  mxArray *out = muon_mex_copy (fname, y);
  muon_mex_check (fname, muon_fma_array (muon_mex_ctx (),
                                         cls == mxSINGLE_CLASS ? MUON_PREC_SINGLE
                                                               : MUON_PREC_DOUBLE,
                                         muon_mex_scalar (prhs[IN_A]), mxGetData (x),
                                         mxGetData (out), n));
  plhs[OUT_Y] = out;
}
