#define USAGE "usage: INFO = __muon_info__ ()"
/* __muon_info__ - gateway of muon_info.m: which back ends are built and usable, the BLAS,
 * and the names of the coefficient schedules.
 */
#include "muon_mex.h"

enum { IN_END };
enum { OUT_INFO, OUT_END };

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "muon_info";
  if (nrhs != IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s", USAGE);
  muon_backend_info info;
  muon_mex_check (fname, muon_backend_query (muon_mex_ctx (), &info));
  const char *fields[] = { "cuda_built", "cuda_usable", "cuda_devices", "cuda_message",
                           "blas", "schedules" };
  mxArray *s = mxCreateStructMatrix (1, 1, 6, fields);
  mxSetField (s, 0, "cuda_built", mxCreateLogicalScalar (info.cuda_built));
  mxSetField (s, 0, "cuda_usable", mxCreateLogicalScalar (info.cuda_usable));
  mxSetField (s, 0, "cuda_devices", mxCreateDoubleScalar (info.cuda_device_count));
  mxSetField (s, 0, "cuda_message", mxCreateString (info.cuda_message));
  mxSetField (s, 0, "blas", mxCreateString (info.blas));
  int n = muon_coeffs_count ();
  mxArray *names = mxCreateCellMatrix (1, n);
  for (int i = 0; i < n; i++)
    mxSetCell (names, i, mxCreateString (muon_coeffs_name (i)));
  mxSetField (s, 0, "schedules", names);
  plhs[OUT_INFO] = s;
}
