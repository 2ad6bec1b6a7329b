/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: PREVIOUS = __muon_blas_threads__ (N)"
/* __muon_blas_threads__ - sets OpenBLAS's thread count to N (0: leaves it) and returns the
 * count it had.  For the Octave code whose own products, SVDs and eigenvalues must not
 * depend on the thread count (inst/private/blas_one_thread.m: polar_metrics, muon_ns's
 * trace, ns_plot_spectrum) and for tests/octave/ref_ns.m, whose products run on one BLAS
 * thread as the core's tiles do (core/gemm/gemm.h).
 */
#include "muon_mex.h"

enum { IN_N, IN_END };
enum { OUT_PREVIOUS, OUT_END };

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "__muon_blas_threads__";
  if (nrhs != IN_END || nlhs > OUT_END || !mxIsDouble (prhs[IN_N])
      || mxGetNumberOfElements (prhs[IN_N]) != 1)
    muon_mex_error (fname, "badArg", "%s.", USAGE);
  double n = muon_mex_scalar (prhs[IN_N]);
  if (!(n >= 0 && n <= MUON_MAX_THREADS && n == (int) n))
    muon_mex_error (fname, "badArg", "N must be an integer from 0 to %d.",
                    MUON_MAX_THREADS);
  int previous = 0;
  muon_mex_check (fname, muon_gemm_blas_threads (muon_mex_ctx (), (int) n, &previous));
  plhs[OUT_PREVIOUS] = mxCreateDoubleScalar (previous);
}
