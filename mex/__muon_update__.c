#define USAGE "usage: [U, M] = __muon_update__ (G, M, OPTS)"
/* __muon_update__ - gateway of muon_update.m: one Muon update of G (double or single, M x N
 * or M x N x E) with momentum M ([] for zeros, else double or single of G's size; returned
 * updated, in its own class).  OPTS is the struct muon_update.m builds: the muon_ns fields
 * plus beta, nesterov, form, scale, scale_factor, experts (a fused (E*m) x n G viewed as E
 * strided m x n pages), split_rows, scale_rows / scale_cols (0: each block's own shape).
 */
#include <string.h>

#include "muon_mex.h"

enum { IN_G, IN_M, IN_OPTS, IN_END };
enum { OUT_U, OUT_M, OUT_END };

// E fused row blocks of a dense matrix: E pages of (rows / E) x cols, ld = rows, stride rows/E.
static void fuse (muon_tensor *t, size_t E)
{
  t->rows /= E;
  t->batch = E;
  t->stride = t->rows;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "muon_update";
  char buf[64];
  if (nrhs != IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s", USAGE);
  const mxArray *s = prhs[IN_OPTS];
  muon_tensor G = muon_mex_tensor (fname, "G", prhs[IN_G]);
  mxClassID cls = mxGetClassID (prhs[IN_G]);

  // options
  muon_update_opts o;
  muon_update_opts_default (&o);
  muon_mex_ns_opts (fname, s, &o.ns);
  muon_mex_field_double (fname, s, "beta", &o.beta);
  muon_mex_field_int (fname, s, "nesterov", &o.nesterov);
  muon_mex_field_double (fname, s, "scale_factor", &o.scale_factor);
  if (muon_mex_field_string (fname, s, "form", buf, sizeof buf)
      && muon_momentum_form_from_name (buf, &o.form) != MUON_OK)
    muon_mex_error (fname, "badArg", "unknown momentum form '%s'.", buf);
  if (muon_mex_field_string (fname, s, "scale", buf, sizeof buf)
      && muon_scale_rule_from_name (buf, &o.scale) != MUON_OK)
    muon_mex_error (fname, "badArg", "unknown scale rule '%s'.", buf);
  double sr = 0, sc = 0, experts = 1;
  muon_mex_field_double (fname, s, "scale_rows", &sr);
  muon_mex_field_double (fname, s, "scale_cols", &sc);
  muon_mex_field_double (fname, s, "experts", &experts);
  if (!(sr >= 0 && sc >= 0 && sr == (size_t) sr && sc == (size_t) sc))
    muon_mex_error (fname, "badArg",
                    "scale_rows and scale_cols must be non-negative integers.");
  o.scale_rows = (size_t) sr;
  o.scale_cols = (size_t) sc;
  size_t nsplit = 0;
  const double *split = muon_mex_field_array (fname, s, "split_rows", &nsplit, NULL, NULL);
  size_t *rows = nsplit ? mxMalloc (nsplit * sizeof *rows) : NULL;
  for (size_t k = 0; k < nsplit; k++)
  {
    if (!(split[k] >= 1 && split[k] == (size_t) split[k]))
      muon_mex_error (fname, "badArg", "split_rows must be positive integers.");
    rows[k] = (size_t) split[k];
  }
  o.split_rows = rows;
  o.nsplit = nsplit;

  // momentum: a copy of M (or zeros), updated in place by core
  const mxArray *m = prhs[IN_M];
  if (mxIsEmpty (m))
    plhs[OUT_M] = mxCreateNumericArray (mxGetNumberOfDimensions (prhs[IN_G]),
                                        mxGetDimensions (prhs[IN_G]), cls, mxREAL);
  else
  {
    muon_tensor Min = muon_mex_tensor (fname, "M", m);
    if (Min.rows != G.rows || Min.cols != G.cols || Min.batch != G.batch)
      muon_mex_error (fname, "badShape", "M must be the size of G.");
    plhs[OUT_M] = mxDuplicateArray (m);
  }
  muon_tensor M = muon_mex_tensor (fname, "M", plhs[OUT_M]), U;
  plhs[OUT_U] = muon_mex_new_like (&G, cls, &U);

  // a fused (E*m) x n weight: E strided pages, no copy
  if (experts != 1)
  {
    if (!(experts >= 1 && experts == (size_t) experts) || G.batch != 1
        || G.rows % (size_t) experts != 0)
      muon_mex_error (fname, "badShape", "experts must divide the rows of a 2-D G.");
    fuse (&G, (size_t) experts);
    fuse (&M, (size_t) experts);
    fuse (&U, (size_t) experts);
  }
  muon_mex_check (fname, muon_update (muon_mex_ctx (), &G, &M, &U, &o));
  mxFree (rows);
}
