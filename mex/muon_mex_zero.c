/* muon_mex_zero.c - the glue of __zero_muon_step__ (see muon_mex_zero.h).  Only
 * muon_mex_zero_layout raises: the step's functions run while the gateway may hold a
 * communicator made for the call.
 */
#include <string.h>

#include "muon_mex_zero.h"

size_t *muon_mex_zero_layout (const char *fname, const mxArray *S, const mxArray *world_arg,
                              const mxArray *lopts, size_t *P, int *world,
                              muon_zero_layout_opts *o)
{
  if (!mxIsDouble (S) || mxIsComplex (S) || mxIsSparse (S) || mxGetN (S) != 2
      || mxGetM (S) < 1 || mxGetNumberOfDimensions (S) != 2)
    muon_mex_error (fname, "badShape", "SHAPES must be a real P x 2 double matrix.");
  const mxArray *Wa = world_arg;
  double wd = mxIsDouble (Wa) && !mxIsSparse (Wa) && mxGetNumberOfElements (Wa) == 1
              ? mxGetScalar (Wa) : -1;
  if (!(wd >= 1 && wd <= MUON_COMM_MAX_WORLD) || wd != (double) (int) wd)
    muon_mex_error (fname, "badArg", "WORLD must be an integer in 1..%d.", MUON_COMM_MAX_WORLD);
  muon_mex_zero_layout_opts (fname, lopts, o);
  *P = mxGetM (S);
  const double *s = mxGetPr (S);
  size_t *rc = mxMalloc (2 * *P * sizeof *rc);
  for (size_t i = 0; i < 2 * *P; i++)
  {
    if (!(s[i] >= 1 && s[i] <= 9007199254740992.0) || s[i] != (double) (size_t) s[i])
      muon_mex_error (fname, "badShape", "SHAPES must hold positive integers.");
    rc[i] = (size_t) s[i];
  }
  *world = (int) wd;
  return rc;
}

int muon_mex_zero_flag (const mxArray *a)
{
  return mxIsLogicalScalarTrue (a)
         || (mxIsNumeric (a) && mxGetNumberOfElements (a) == 1 && mxGetScalar (a) != 0);
}

const char *muon_mex_zero_grads (const mxArray *G, const muon_zero_plan *P, int nl,
                                 const double **grads)
{
  size_t np = P->nparams;
  if (!(mxIsCell (G) && mxGetM (G) == (size_t) nl && mxGetN (G) == np))
    return "GRADS must be a cell of one row per local rank and one column per parameter";
  for (int l = 0; l < nl; l++)
    for (size_t p = 0; p < np; p++)
    {
      const mxArray *g = mxGetCell (G, l + p * (size_t) nl);
      if (!g || !mxIsDouble (g) || mxIsComplex (g) || mxIsSparse (g)
          || mxGetNumberOfDimensions (g) != 2 || mxGetM (g) != P->L->params[p].rows
          || mxGetN (g) != P->L->params[p].cols)
        return "every gradient must be a real double matrix of its parameter's shape";
      grads[(size_t) l * np + p] = mxGetPr (g);
    }
  return "";
}

// The momenta M as new arrays, checked against the plan ("" when they fit): *out = nl x 1
// cell of copies, mom[l] their data.  Under the reference, a 1 x 1 cell, or an nl x 1 cell
// whose vectors all share one array (Octave's copies of one value), becomes one array every
// rank's mom[l] points at: the reference step then updates it once (muon_zero_step computes
// a rank whose momentum is the first holder's only once).
static const char *momentum_arg (const mxArray *M, const muon_zero_plan *P, muon_comm *comm,
                                 int nl, mxArray **out, double **mom)
{
  int shared = P->variant == MUON_ZERO_REFERENCE && nl > 1;
  size_t n = mxIsCell (M) ? mxGetNumberOfElements (M) : 0;
  if (!mxIsEmpty (M) && !(mxIsCell (M) && (n == (size_t) nl || (shared && n == 1))))
    return "MOM must be [] or a cell of one vector per local rank";
  for (size_t l = 0; l < n; l++)
  {
    const mxArray *m = mxGetCell (M, l);
    size_t want = P->momentum_len[muon_comm_rank (comm, (int) l)];
    if (!(m && mxIsDouble (m) && !mxIsComplex (m) && !mxIsSparse (m)
          && mxGetNumberOfElements (m) == want))
      return "a momentum buffer does not match the variant's layout";
    shared = shared && mxGetPr (m) == mxGetPr (mxGetCell (M, 0));
  }
  *out = mxCreateCellMatrix (shared ? 1 : (mwSize) nl, 1);
  for (int l = 0; l < (shared ? 1 : nl); l++)
  {
    size_t want = P->momentum_len[muon_comm_rank (comm, l)];
    mxArray *c = n ? mxCreateUninitNumericMatrix (want, 1, mxDOUBLE_CLASS, mxREAL)
                   : mxCreateDoubleMatrix (want, 1, mxREAL);
    if (n)
      memcpy (mxGetPr (c), mxGetPr (mxGetCell (M, (mwIndex) l)), want * sizeof (double));
    mxSetCell (*out, l, c);
    mom[l] = mxGetPr (c);
  }
  for (int l = 1; shared && l < nl; l++)
    mom[l] = mom[0];
  return "";
}

static mxArray *row (const uint64_t *v, int n)
{
  mxArray *a = mxCreateDoubleMatrix (1, (mwSize) n, mxREAL);
  for (int k = 0; k < n; k++)
    mxGetPr (a)[k] = (double) v[k];
  return a;
}

static mxArray *column (const size_t *v, size_t n)
{
  mxArray *a = mxCreateDoubleMatrix (n, 1, mxREAL);
  for (size_t i = 0; i < n; i++)
    mxGetPr (a)[i] = (double) v[i];
  return a;
}

// STATS' fields after rank, in order: X (FIELD, KIND), FIELD a member of muon_zero_rank_stats
// (ONE: a number) or of its comm counters (ROW: 1 x MUON_COLL_COUNT, in muon_coll order).
#define STATS_FIELDS(X)                                                         \
  X (ns_calls, ONE) X (momentum_elements, ONE) X (pad_elements, ONE)            \
  X (calls, ROW)    X (bytes_sent, ROW)        X (bytes_recv, ROW)
#define STAT_NAME(f, kind) #f,
#define STAT_ONE(f) mxCreateDoubleScalar ((double) st[l].f)
#define STAT_ROW(f) row (st[l].comm.f, MUON_COLL_COUNT)
#define STAT_PUT(f, kind) mxSetField (a, l, #f, STAT_##kind (f));

static mxArray *stats_struct (const muon_zero_rank_stats *st, muon_comm *comm, int nl)
{
  static const char *f[] = { "rank", STATS_FIELDS (STAT_NAME) };
  mxArray *a = mxCreateStructMatrix ((mwSize) nl, 1, sizeof f / sizeof *f, f);
  for (int l = 0; l < nl; l++)
  {
    mxSetField (a, l, "rank", mxCreateDoubleScalar (muon_comm_rank (comm, l)));
    STATS_FIELDS (STAT_PUT)
  }
  return a;
}

// An m x n cell of new double arrays, uninitialized: array k rows[k] x cols[k] (cols NULL:
// a column), data[k] its data.
static mxArray *new_cell (mwSize m, mwSize n, const size_t *rows, const size_t *cols,
                          double **data)
{
  mxArray *c = mxCreateCellMatrix (m, n);
  for (size_t k = 0; k < (size_t) m * n; k++)
  {
    mxArray *a = mxCreateUninitNumericMatrix (rows[k], cols ? cols[k] : 1, mxDOUBLE_CLASS,
                                              mxREAL);
    mxSetCell (c, (mwIndex) k, a);
    data[k] = mxGetPr (a);
  }
  return c;
}

muon_status muon_mex_zero_step (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                                const muon_zero_step_opts *o, const double *const *grads,
                                const mxArray *M, int assemble,
                                mxArray *out[MUON_MEX_ZERO_OUTS], const char **why)
{
  int nl = muon_comm_local_ranks (comm);
  size_t np = P->nparams;
  double **mom = mxCalloc ((size_t) nl, sizeof *mom), **upd = mxCalloc ((size_t) nl, sizeof *upd);
  *why = momentum_arg (M, P, comm, nl, &out[MUON_MEX_ZERO_MOM], mom);
  if (**why)
    return MUON_OK;
  size_t *len = mxCalloc ((size_t) nl, sizeof *len);
  for (int l = 0; l < nl; l++)
    len[l] = P->owned_len[muon_comm_rank (comm, l)];
  out[MUON_MEX_ZERO_UPD] = new_cell ((mwSize) nl, 1, len, NULL, upd);
  muon_zero_rank_stats *st = mxCalloc ((size_t) nl, sizeof *st);
  muon_status s = muon_zero_step (ctx, comm, P, o, grads, mom, upd, st);
  if (s < 0)
    return s;
  out[MUON_MEX_ZERO_STATS] = stats_struct (st, comm, nl);
  if (!assemble)
  {
    out[MUON_MEX_ZERO_FULL] = mxCreateCellMatrix (0, 0);
    return s;
  }
  size_t *rows = mxCalloc (np, sizeof *rows), *cols = mxCalloc (np, sizeof *cols);
  for (size_t p = 0; p < np; p++)
    rows[p] = P->L->params[p].rows, cols[p] = P->L->params[p].cols;
  double **full = mxCalloc (np, sizeof *full);
  out[MUON_MEX_ZERO_FULL] = new_cell (1, (mwSize) np, rows, cols, full);
  muon_status a = muon_zero_assemble (ctx, comm, P, (const double *const *) upd, full);
  return a < 0 ? a : s;
}

mxArray *muon_mex_zero_info (const muon_zero_plan *P, muon_comm *comm, muon_ctx *ctx)
{
  static const char *f[] = { "owned", "owned_len", "momentum_len", "ns_calls", "lpt_owner",
                             "comm", "counts_measured", "local_ranks", "ranks",
                             "plans_built" };
  size_t W = (size_t) P->world, np = P->nparams;
  mwSize dims[3] = { (mwSize) W, 2, (mwSize) np };
  mxArray *owned = mxCreateNumericArray (3, dims, mxDOUBLE_CLASS, mxREAL);
  double *d = mxGetPr (owned);
  for (size_t r = 0; r < W; r++)
    for (size_t p = 0; p < np; p++)
    {
      d[p * 2 * W + r] = (double) P->owned[r * np + p].start;
      d[p * 2 * W + W + r] = (double) P->owned[r * np + p].stop;
    }
  mxArray *lpt = mxCreateDoubleMatrix (P->lpt_owner ? 1 : 0, P->lpt_owner ? np : 0, mxREAL);
  for (size_t p = 0; P->lpt_owner && p < np; p++)
    mxGetPr (lpt)[p] = P->lpt_owner[p];
  int nl = muon_comm_local_ranks (comm);
  mxArray *ranks = mxCreateDoubleMatrix (1, (mwSize) nl, mxREAL);
  for (int l = 0; l < nl; l++)
    mxGetPr (ranks)[l] = muon_comm_rank (comm, l);
  // the values, in the order of f
  mxArray *v[] = { owned, column (P->owned_len, W), column (P->momentum_len, W),
                   column (P->ns_calls, W), lpt, mxCreateString (muon_comm_name (comm)),
                   mxCreateDoubleScalar (muon_comm_counts_measured (comm)),
                   mxCreateDoubleScalar (nl), ranks,
                   mxCreateDoubleScalar ((double) muon_zero_plans_built (ctx)) };
  mxArray *a = mxCreateStructMatrix (1, 1, sizeof f / sizeof *f, f);
  for (int k = 0; k < (int) (sizeof v / sizeof *v); k++)
    mxSetFieldByNumber (a, 0, k, v[k]);
  return a;
}
