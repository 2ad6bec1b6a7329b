#define USAGE "usage: X = __muon_ns__ (G, OPTS)"
/* __muon_ns__ - gateway of muon_ns.m: Newton-Schulz on each page of G (double or single,
 * M x N or M x N x E).  OPTS is the struct muon_ns.m builds; X has G's class and shape.
 */
#include "muon_mex.h"

enum { IN_G, IN_OPTS, IN_END };
enum { OUT_X, OUT_END };

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "muon_ns";
  if (nrhs != IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s", USAGE);
  muon_tensor G = muon_mex_tensor (fname, "G", prhs[IN_G]);
  muon_ns_opts o;
  muon_mex_ns_opts (fname, prhs[IN_OPTS], &o);
  muon_tensor X;
  plhs[OUT_X] = muon_mex_new_like (&G, mxGetClassID (prhs[IN_G]), &X);
  muon_mex_check (fname, muon_ns (muon_mex_ctx (), &G, &X, &o));
}
