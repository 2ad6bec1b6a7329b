/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: [NAMES, C] = __muon_coeffs__ () or C = __muon_coeffs__ (NAME)"
/* __muon_coeffs__ - the core's table of named coefficient schedules.
 *   [NAMES, C] = __muon_coeffs__ ()  the names (1 x S cell of strings, the core's order) and,
 *                                    with a second output, their K x 3 matrices (1 x S cell)
 *   C = __muon_coeffs__ (NAME)       the K x 3 triples (a, b, c) of one schedule (exact name)
 * Cheap: no probe of the machine.  The Octave side caches the answer once per session.
 */
#include "muon_mex.h"

enum { IN_NAME, IN_END };
enum { OUT_C, OUT_END };
enum { OUT_NAMES, OUT_ALL, OUT_LIST_END };

// The K x 3 matrix (column-major) of K row-major triples.
static mxArray *matrix (const double *t, int k)
{
  mxArray *c = mxCreateDoubleMatrix (k, 3, mxREAL);
  double *d = mxGetPr (c);
  for (int i = 0; i < k; i++)
    for (int j = 0; j < 3; j++)
      d[i + j * k] = t[3 * i + j];
  return c;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "muon_coeffs";
  const double *t;
  int k;
  if (nrhs == 0 && nlhs <= OUT_LIST_END)
  {
    int n = muon_coeffs_count ();
    mxArray *names = mxCreateCellMatrix (1, (mwSize) n);
    mxArray *all = nlhs > OUT_ALL ? mxCreateCellMatrix (1, (mwSize) n) : NULL;
    for (int i = 0; i < n; i++)
    {
      const char *name = muon_coeffs_name (i);
      mxSetCell (names, (mwIndex) i, mxCreateString (name));
      if (all)
      {
        muon_mex_check (fname, muon_coeffs_lookup (muon_mex_ctx (), name, &t, &k));
        mxSetCell (all, (mwIndex) i, matrix (t, k));
      }
    }
    plhs[OUT_NAMES] = names;
    if (all)
      plhs[OUT_ALL] = all;
    return;
  }
  if (nrhs != IN_END || nlhs > OUT_END || !mxIsChar (prhs[IN_NAME]))
    muon_mex_error (fname, "badArg", "%s.", USAGE);
  char name[64];
  if (mxGetString (prhs[IN_NAME], name, sizeof name) != 0)
    muon_mex_error (fname, "badArg", "unknown coefficient schedule (a name of %zu characters).",
                    mxGetNumberOfElements (prhs[IN_NAME]));
  muon_mex_check (fname, muon_coeffs_lookup (muon_mex_ctx (), name, &t, &k));
  plhs[OUT_C] = matrix (t, k);
}
