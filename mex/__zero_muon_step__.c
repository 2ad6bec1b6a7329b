#define USAGE "usage: [UPD, MOM, STATS, FULL, INFO, RMOM, RFULL] = __zero_muon_step__ (SHAPES, WORLD, LOPTS, GRADS, MOM, OPTS, COMM, ASSEMBLE[, REF, RMOM])"
/* __zero_muon_step__ - gateway of zero_muon_step.m: one distributed Muon step
 * (muon_zero.h) on the local ranks of a communicator, and with REF the reference (DDP) step
 * on the same gradients in the same call.
 *   SHAPES   P x 2 [rows cols], WORLD, LOPTS (stage, align_factor, order): the layout, as
 *            zero_layout.m built it; its plan comes from the context's cache
 *            (muon_zero_plan_cached), so steps with the same layout and variant plan once
 *   GRADS    nl x P cell of real double matrices (local rank l's gradient of matrix p)
 *   MOM      momentum of each local rank: [] (zeros), an nl x 1 cell of column vectors
 *            (INFO.momentum_len), or a 1 x 1 cell: one vector every rank holds (the
 *            reference's W identical copies, stored once)
 *   OPTS     the muon_update options struct plus variant and pad_count ('deepspeed'|'keller')
 *   COMM     'sim' or [] (WORLD simulated ranks, the context's), 'self', or a muon_comm handle
 *   ASSEMBLE true: FULL = 1 x P cell of the full updates (an all-gather under MPI)
 *   REF      true: also the reference step, with momentum RMOM (as MOM); both optional
 *            (default false, [])
 * Outputs: UPD nl x 1 cell of owned-update column vectors; MOM the new momenta (a 1 x 1 cell
 * when the variant is the reference and every local rank's momentum is the same one);
 * STATS nl x 1 struct array (rank, ns_calls, momentum_elements, pad_elements, calls /
 * bytes_sent / bytes_recv as 1 x 5 vectors in muon_coll order); FULL ([] unless ASSEMBLE);
 * INFO struct (owned W x 2 x P spans, owned_len, momentum_len, ns_calls W x 1, lpt_owner,
 * comm, counts_measured, local_ranks, ranks, plans_built); RMOM, RFULL the reference's
 * momenta and full updates ([] without REF).
 */
#include <string.h>

#include "muon_mex.h"
#include "muon_mex_comm.h"

enum { IN_SHAPES, IN_WORLD, IN_LOPTS, IN_GRADS, IN_MOM, IN_OPTS, IN_COMM, IN_ASSEMBLE, IN_REF,
       IN_RMOM, IN_END };
enum { OUT_UPD, OUT_MOM, OUT_STATS, OUT_FULL, OUT_INFO, OUT_RMOM, OUT_RFULL, OUT_END };

static const char *fname = "zero_muon_step";

// The layout's inputs, checked: P, the P rows then the P cols in rc (mxMalloc-ed, freed
// with the call), the world and the options.
static size_t layout_args (const mxArray *S, const mxArray *Wa, const mxArray *lo, size_t **rc,
                           int *world, muon_zero_layout_opts *o)
{
  if (!mxIsDouble (S) || mxIsComplex (S) || mxIsSparse (S) || mxGetN (S) != 2
      || mxGetM (S) < 1 || mxGetNumberOfDimensions (S) != 2)
    muon_mex_error (fname, "badShape", "SHAPES must be a real P x 2 double matrix.");
  double wd = mxIsDouble (Wa) && !mxIsSparse (Wa) && mxGetNumberOfElements (Wa) == 1
              ? mxGetScalar (Wa) : -1;
  if (!(wd >= 1 && wd <= MUON_COMM_MAX_WORLD) || wd != (double) (int) wd)
    muon_mex_error (fname, "badArg", "WORLD must be an integer in 1..%d.", MUON_COMM_MAX_WORLD);
  muon_mex_zero_layout_opts (fname, lo, o);
  size_t P = mxGetM (S);
  const double *s = mxGetPr (S);
  *rc = mxMalloc (2 * P * sizeof **rc);
  for (size_t i = 0; i < 2 * P; i++)
  {
    if (!(s[i] >= 1 && s[i] <= 9007199254740992.0) || s[i] != (double) (size_t) s[i])
      muon_mex_error (fname, "badShape", "SHAPES must hold positive integers.");
    (*rc)[i] = (size_t) s[i];
  }
  *world = (int) wd;
  return P;
}

static int flag (const mxArray *a)
{
  return mxIsLogicalScalarTrue (a)
         || (mxIsNumeric (a) && mxGetNumberOfElements (a) == 1 && mxGetScalar (a) != 0);
}

// Local rank l's gradients, checked against the plan's shapes ("" when they fit).
static const char *grads_arg (const mxArray *G, const muon_zero_plan *P, int nl,
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

// The momenta M ([] or a cell, see above) as new arrays, checked against the plan ("" when
// they fit): out = nl x 1 cell of copies, mom[l] their data.  Under the reference, a 1 x 1
// cell, or an nl x 1 cell whose vectors all share one array (Octave's copies of one value),
// becomes one array every rank's mom[l] points at: the reference step then updates it once
// (muon_zero_step computes a rank whose momentum is the first holder's only once).
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

static mxArray *stats_struct (const muon_zero_rank_stats *st, muon_comm *comm, int nl)
{
  const char *f[] = { "rank", "ns_calls", "momentum_elements", "pad_elements", "calls",
                      "bytes_sent", "bytes_recv" };
  mxArray *a = mxCreateStructMatrix ((mwSize) nl, 1, 7, f);
  for (int l = 0; l < nl; l++)
  {
    mxSetField (a, l, "rank", mxCreateDoubleScalar (muon_comm_rank (comm, l)));
    mxSetField (a, l, "ns_calls", mxCreateDoubleScalar ((double) st[l].ns_calls));
    mxSetField (a, l, "momentum_elements",
                mxCreateDoubleScalar ((double) st[l].momentum_elements));
    mxSetField (a, l, "pad_elements", mxCreateDoubleScalar ((double) st[l].pad_elements));
    mxSetField (a, l, "calls", row (st[l].comm.calls, MUON_COLL_COUNT));
    mxSetField (a, l, "bytes_sent", row (st[l].comm.bytes_sent, MUON_COLL_COUNT));
    mxSetField (a, l, "bytes_recv", row (st[l].comm.bytes_recv, MUON_COLL_COUNT));
  }
  return a;
}

static mxArray *column (const size_t *v, size_t n)
{
  mxArray *a = mxCreateDoubleMatrix (n, 1, mxREAL);
  for (size_t i = 0; i < n; i++)
    mxGetPr (a)[i] = (double) v[i];
  return a;
}

static mxArray *info_struct (const muon_zero_plan *P, muon_comm *comm, muon_ctx *ctx)
{
  const char *f[] = { "owned", "owned_len", "momentum_len", "ns_calls", "lpt_owner", "comm",
                      "counts_measured", "local_ranks", "ranks", "plans_built" };
  mxArray *a = mxCreateStructMatrix (1, 1, 10, f);
  size_t W = (size_t) P->world, np = P->nparams;
  mwSize dims[3] = { (mwSize) W, 2, (mwSize) np };
  mxArray *o = mxCreateNumericArray (3, dims, mxDOUBLE_CLASS, mxREAL);
  double *d = mxGetPr (o);
  for (size_t r = 0; r < W; r++)
    for (size_t p = 0; p < np; p++)
    {
      d[p * 2 * W + r] = (double) P->owned[r * np + p].start;
      d[p * 2 * W + W + r] = (double) P->owned[r * np + p].stop;
    }
  mxSetField (a, 0, "owned", o);
  mxSetField (a, 0, "owned_len", column (P->owned_len, W));
  mxSetField (a, 0, "momentum_len", column (P->momentum_len, W));
  mxSetField (a, 0, "ns_calls", column (P->ns_calls, W));
  mxArray *lo = mxCreateDoubleMatrix (P->lpt_owner ? 1 : 0, P->lpt_owner ? np : 0, mxREAL);
  for (size_t p = 0; P->lpt_owner && p < np; p++)
    mxGetPr (lo)[p] = P->lpt_owner[p];
  mxSetField (a, 0, "lpt_owner", lo);
  mxSetField (a, 0, "comm", mxCreateString (muon_comm_name (comm)));
  mxSetField (a, 0, "counts_measured", mxCreateDoubleScalar (muon_comm_counts_measured (comm)));
  int nl = muon_comm_local_ranks (comm);
  mxSetField (a, 0, "local_ranks", mxCreateDoubleScalar (nl));
  mxArray *rk = mxCreateDoubleMatrix (1, (mwSize) nl, mxREAL);
  for (int l = 0; l < nl; l++)
    mxGetPr (rk)[l] = muon_comm_rank (comm, l);
  mxSetField (a, 0, "ranks", rk);
  mxSetField (a, 0, "plans_built", mxCreateDoubleScalar ((double) muon_zero_plans_built (ctx)));
  return a;
}

// One step of plan P: the momenta in *mom_out (from M), the owned updates in *upd_out, the
// stats in *st_out and, with assemble, the full updates in *full_out (an empty cell else).
// [out] *why: the argument error ("" for none); returns the core's status.
static muon_status run_step (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                             const muon_zero_step_opts *o, const double *const *grads,
                             const mxArray *M, int assemble, mxArray **mom_out,
                             mxArray **upd_out, mxArray **st_out, mxArray **full_out,
                             const char **why)
{
  int nl = muon_comm_local_ranks (comm);
  size_t np = P->nparams;
  double **mom = mxCalloc ((size_t) nl, sizeof *mom), **upd = mxCalloc ((size_t) nl, sizeof *upd);
  *why = momentum_arg (M, P, comm, nl, mom_out, mom);
  if (**why)
    return MUON_OK;
  *upd_out = mxCreateCellMatrix ((mwSize) nl, 1);
  for (int l = 0; l < nl; l++)
  {
    mxArray *u = mxCreateUninitNumericMatrix (P->owned_len[muon_comm_rank (comm, l)], 1,
                                              mxDOUBLE_CLASS, mxREAL);
    mxSetCell (*upd_out, l, u);
    upd[l] = mxGetPr (u);
  }
  muon_zero_rank_stats *st = mxCalloc ((size_t) nl, sizeof *st);
  muon_status s = muon_zero_step (ctx, comm, P, o, grads, mom, upd, st);
  if (s < 0)
    return s;
  *st_out = stats_struct (st, comm, nl);
  *full_out = mxCreateCellMatrix (assemble ? 1 : 0, assemble ? (mwSize) np : 0);
  if (!assemble)
    return s;
  double **full = mxCalloc (np, sizeof *full);
  for (size_t p = 0; p < np; p++)
  {
    mxArray *f = mxCreateUninitNumericMatrix (P->L->params[p].rows, P->L->params[p].cols,
                                              mxDOUBLE_CLASS, mxREAL);
    mxSetCell (*full_out, p, f);
    full[p] = mxGetPr (f);
  }
  muon_status a = muon_zero_assemble (ctx, comm, P, (const double *const *) upd, full);
  return a < 0 ? a : s;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  if (nrhs < IN_REF || nrhs > IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s", USAGE);
  muon_ctx *ctx = muon_mex_ctx ();

  // arguments that need no core object
  muon_zero_step_opts o;
  double experts = 1;
  muon_mex_zero_step_opts (fname, prhs[IN_OPTS], &o, &experts);
  if (experts != 1)
    muon_mex_error (fname, "badArg", "experts are not supported: every parameter is one matrix.");
  size_t *rc = NULL;
  int W = 0;
  muon_zero_layout_opts lo;
  size_t np = layout_args (prhs[IN_SHAPES], prhs[IN_WORLD], prhs[IN_LOPTS], &rc, &W, &lo);
  int assemble = flag (prhs[IN_ASSEMBLE]), ref = nrhs > IN_REF && flag (prhs[IN_REF]);
  ref = ref && o.variant != MUON_ZERO_REFERENCE;

  // the plans (borrowed from the context's cache: nothing to free)
  const muon_zero_plan *P = NULL, *Pref = NULL;
  muon_mex_check (fname, muon_zero_plan_cached (ctx, np, rc, rc + np, W, &lo, o.variant, &P));
  if (ref)
    muon_mex_check (fname, muon_zero_plan_cached (ctx, np, rc, rc + np, W, &lo,
                                                  MUON_ZERO_REFERENCE, &Pref));

  // the communicator: the context's simulated one, or muon_mex_comm_get's (owned: destroyed
  // before any error below is raised)
  int owned = 0;
  muon_comm *comm = NULL;
  const mxArray *C = prhs[IN_COMM];
  char kind[8] = "";
  if (mxIsEmpty (C) || (mxIsChar (C) && mxGetString (C, kind, sizeof kind) == 0
                        && strcmp (kind, "sim") == 0))
    muon_mex_check (fname, muon_zero_comm_sim_cached (ctx, W, &comm));
  else
    comm = muon_mex_comm_get (fname, C, W, &owned);

  int nl = muon_comm_local_ranks (comm);
  const double **grads = mxCalloc ((size_t) nl * np, sizeof *grads);
  const char *why = "", *id = "badShape";
  muon_status s = MUON_OK;
  mxArray *out[OUT_END] = { NULL };
  if (muon_comm_size (comm) != W)
    why = "the communicator's size differs from the layout's world", id = "badArg";
  else
    why = grads_arg (prhs[IN_GRADS], P, nl, grads);
  if (!*why)
    s = run_step (ctx, comm, P, &o, grads, prhs[IN_MOM], assemble, &out[OUT_MOM],
                  &out[OUT_UPD], &out[OUT_STATS], &out[OUT_FULL], &why);
  if (!*why && s >= 0 && ref)
  {
    mxArray *rupd = NULL, *rst = NULL;
    muon_zero_step_opts ro = o;
    ro.variant = MUON_ZERO_REFERENCE;
    const mxArray *none = mxCreateDoubleMatrix (0, 0, mxREAL);
    muon_status r = run_step (ctx, comm, Pref, &ro, grads,
                              nrhs > IN_RMOM ? prhs[IN_RMOM] : none, assemble,
                              &out[OUT_RMOM], &rupd, &rst, &out[OUT_RFULL], &why);
    s = r < 0 || s == MUON_OK ? r : s;
  }
  if (!*why && s >= 0)
    out[OUT_INFO] = info_struct (P, comm, ctx);
  for (int k = OUT_RMOM; k <= OUT_RFULL; k++)
    if (!out[k])
      out[k] = mxCreateDoubleMatrix (0, 0, mxREAL);

  // clean-up, then the error (the context keeps the core's message)
  if (owned)
    muon_comm_destroy (&comm);
  if (*why)
    muon_mex_error (fname, id, "%s.", why);
  muon_mex_check (fname, s);
  muon_mex_outputs (nlhs, plhs, out, OUT_END);
}
