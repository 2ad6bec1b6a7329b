/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: Y = __muon_copy_out__ (X, HOW)"
/* __muon_copy_out__ - a copy of the real double or single array X as a gateway output, made
 * HOW: "octave" by muon_mex_new_array (the gateways' way: Octave's own array, returned as
 * it is) or "mx" by mxCreateNumericArray (which Octave 7 copies again on return).  For
 * tests/octave/test_gateway_memory.m and tests/bench/bench_mex.m, which time the two in one
 * run.  A test-only gateway: built into build/tests/mex, not in the package.
 */
#include <string.h>

#include "muon_mex.h"

enum { IN_X, IN_HOW, IN_END };
enum { OUT_Y, OUT_END };

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "__muon_copy_out__";
  char how[8] = "";
  const mxArray *x = nrhs == IN_END ? prhs[IN_X] : NULL;
  if (x == NULL || nlhs > OUT_END || !(mxIsDouble (x) || mxIsSingle (x)) || mxIsComplex (x)
      || mxIsSparse (x) || !mxIsChar (prhs[IN_HOW])
      || mxGetString (prhs[IN_HOW], how, sizeof how) != 0
      || (strcmp (how, "octave") != 0 && strcmp (how, "mx") != 0))
    muon_mex_error (fname, "badArg", "%s.", USAGE);
  mwSize nd = mxGetNumberOfDimensions (x);
  const mwSize *d = mxGetDimensions (x);
  mxClassID cls = mxGetClassID (x);
  mxArray *y = how[0] == 'o' ? muon_mex_new_array ("__muon_copy_out__", nd, d, cls)
                             : mxCreateNumericArray (nd, d, cls, mxREAL);
  size_t bytes = mxGetNumberOfElements (x) * mxGetElementSize (x);
  if (bytes)
    memcpy (mxGetData (y), mxGetData (x), bytes);
  plhs[OUT_Y] = y;
}
