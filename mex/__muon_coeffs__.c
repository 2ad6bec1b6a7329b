#define USAGE "usage: C = __muon_coeffs__ (NAME)"
/* __muon_coeffs__ - the K x 3 triples (a, b, c) of a named coefficient schedule. */
#include "muon_mex.h"

enum { IN_NAME, IN_END };
enum { OUT_C, OUT_END };

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "muon_coeffs";
  if (nrhs != IN_END || nlhs > OUT_END || !mxIsChar (prhs[IN_NAME]))
    muon_mex_error (fname, "badArg", "%s", USAGE);
  char name[64];
  if (mxGetString (prhs[IN_NAME], name, sizeof name) != 0)
    muon_mex_error (fname, "badArg", "unknown coefficient schedule");
  const double *t;
  int k;
  muon_mex_check (fname, muon_coeffs_lookup (muon_mex_ctx (), name, &t, &k));
  mxArray *c = mxCreateDoubleMatrix (k, 3, mxREAL);
  double *d = mxGetPr (c);
  for (int i = 0; i < k; i++)
    for (int j = 0; j < 3; j++)
      d[i + j * k] = t[3 * i + j];
  plhs[OUT_C] = c;
}
