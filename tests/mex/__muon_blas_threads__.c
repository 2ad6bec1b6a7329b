#define USAGE "usage: PREVIOUS = __muon_blas_threads__ (N)"
/* __muon_blas_threads__ - sets OpenBLAS's thread count to N (0: leaves it) and returns the
 * count it had.  For tests/octave/ref_ns.m, whose products must run on one BLAS thread as
 * the core's tiles do (core/gemm/gemm.h).  A test-only gateway: the Makefile builds it into
 * build/tests/mex for the test layers; it is not in the package.
 */
#include "muon_mex.h"

enum { IN_N, IN_END };
enum { OUT_PREVIOUS, OUT_END };

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "__muon_blas_threads__";
  if (nrhs != IN_END || nlhs > OUT_END || !mxIsDouble (prhs[IN_N])
      || mxGetNumberOfElements (prhs[IN_N]) != 1)
    muon_mex_error (fname, "badArg", "%s", USAGE);
  double n = mxGetScalar (prhs[IN_N]);
  if (!(n >= 0 && n <= MUON_MAX_THREADS && n == (int) n))
    muon_mex_error (fname, "badArg", "N must be an integer from 0 to %d",
                    MUON_MAX_THREADS);
  int previous = 0;
  muon_mex_check (fname, muon_gemm_blas_threads (muon_mex_ctx (), (int) n, &previous));
  plhs[OUT_PREVIOUS] = mxCreateDoubleScalar (previous);
}
