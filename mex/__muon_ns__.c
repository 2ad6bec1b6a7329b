/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: [X, STATS] = __muon_ns__ (G, OPTS)"
/* __muon_ns__ - gateway of muon_ns.m: Newton-Schulz on each page of G (double or single,
 * M x N or M x N x E).  OPTS is the struct muon_ns.m builds; X has G's class and shape;
 * STATS is the call's muon_ns_stats (where its time went), with the products' GFLOP/s.
 * OPTS.trace (muon_ns's "Trace", one page): STATS.trace holds the core's snapshots
 * (muon_ns_trace): x (n x m x steps+1), r and q (n x n x steps+1, NaN where not defined),
 * steps, gram, transposed; muon_ns.m turns them into the per-step table.
 */
#include <math.h>

#include "muon_mex.h"

enum { IN_G, IN_OPTS, IN_END };
enum { OUT_X, OUT_STATS, OUT_END };

// The last call's muon_ns_stats as a struct, plus the products' rate in GFLOP/s.
static mxArray *stats_struct (const char *fname)
{
  muon_ns_stats st;
  muon_mex_check (fname, muon_ns_last_stats (muon_mex_ctx (), &st));
  const char *f[] = { "gemm", "bf16_products", "threads", "products", "product_flops",
                      "product_seconds", "product_gflops", "total_seconds" };
  mxArray *s = mxCreateStructMatrix (1, 1, 8, f);
  mxSetField (s, 0, "gemm", mxCreateString (st.gemm));
  mxSetField (s, 0, "bf16_products", mxCreateLogicalScalar (st.bf16_products));
  mxSetField (s, 0, "threads", mxCreateDoubleScalar (st.threads));
  mxSetField (s, 0, "products", mxCreateDoubleScalar ((double) st.products));
  mxSetField (s, 0, "product_flops", mxCreateDoubleScalar (st.product_flops));
  mxSetField (s, 0, "product_seconds", mxCreateDoubleScalar (st.product_seconds));
  mxSetField (s, 0, "product_gflops", mxCreateDoubleScalar (
    st.product_seconds > 0 ? st.product_flops / st.product_seconds / 1e9 : NAN));
  mxSetField (s, 0, "total_seconds", mxCreateDoubleScalar (st.total_seconds));
  return s;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  char caller[128];
  if (nrhs != IN_END || nlhs > OUT_END)
    muon_mex_error ("muon_ns", "badArg", "%s.", USAGE);
  // the Muon family's updates run here too: their errors and warnings name the caller
  const char *fname = muon_mex_caller (prhs[IN_OPTS], "muon_ns", caller, sizeof caller);
  muon_tensor G = muon_mex_tensor (fname, "G", prhs[IN_G]);
  muon_mex_check_finite (fname, "G", prhs[IN_G]);    // muon_ns.m leaves this pass to C
  muon_ns_opts o;
  muon_mex_ns_opts (fname, prhs[IN_OPTS], &o);
  int want_trace = 0;
  muon_mex_field_int (fname, prhs[IN_OPTS], "trace", &want_trace);
  muon_ns_trace tr = { 0 };
  mxArray *tx = NULL, *tq = NULL, *trr = NULL;
  if (want_trace)
  {
    size_t n = G.rows < G.cols ? G.rows : G.cols, m = G.rows < G.cols ? G.cols : G.rows;
    int steps = o.steps > 0 ? o.steps : muon_coeffs_default_steps (o.coeffs ? o.ncoeffs : 1);
    mwSize dx[3] = { n, m, (mwSize) steps + 1 }, dq[3] = { n, n, (mwSize) steps + 1 };
    tx = muon_mex_new_array (fname, 3, dx, mxDOUBLE_CLASS);   // muonlab:noMemory when
    trr = muon_mex_new_array (fname, 3, dq, mxDOUBLE_CLASS);  // the trace does not fit
    tq = muon_mex_new_array (fname, 3, dq, mxDOUBLE_CLASS);
    double *r = mxGetPr (trr), *q = mxGetPr (tq);
    for (size_t i = 0; i < n * n * (size_t) (steps + 1); i++)
      r[i] = q[i] = NAN;
    tr.n = n;
    tr.m = m;
    tr.cap = steps + 1;
    tr.x = mxGetPr (tx);
    tr.r = r;
    tr.q = q;
    o.trace = &tr;
  }
  muon_tensor X;
  plhs[OUT_X] = muon_mex_new_like (fname, &G, mxGetClassID (prhs[IN_G]), &X);
  muon_mex_check (fname, muon_ns (muon_mex_ctx (), &G, &X, &o));
  if (nlhs > OUT_STATS)
  {
    plhs[OUT_STATS] = stats_struct (fname);
    if (want_trace)
    {
      const char *f[] = { "x", "r", "q", "steps", "gram", "transposed" };
      mxArray *t = mxCreateStructMatrix (1, 1, 6, f);
      mxSetField (t, 0, "x", tx);
      mxSetField (t, 0, "r", trr);
      mxSetField (t, 0, "q", tq);
      mxSetField (t, 0, "steps", mxCreateDoubleScalar (tr.steps));
      mxSetField (t, 0, "gram", mxCreateLogicalScalar (tr.gram));
      mxSetField (t, 0, "transposed", mxCreateLogicalScalar (tr.transposed));
      mxAddField (plhs[OUT_STATS], "trace");
      mxSetField (plhs[OUT_STATS], 0, "trace", t);
    }
  }
}
