#define USAGE "usage: [UPD, MOM, STATS, FULL, INFO] = __zero_muon_step__ (SHAPES, WORLD, LOPTS, GRADS, MOM, OPTS, COMM, ASSEMBLE)"
/* __zero_muon_step__ - gateway of zero_muon_step.m: one distributed Muon step
 * (muon_zero.h) on the local ranks of a communicator.
 *   SHAPES   P x 2 [rows cols], WORLD, LOPTS (stage, align_factor, order): the layout, as
 *            zero_layout.m built it
 *   GRADS    nl x P cell of real double matrices (local rank l's gradient of matrix p)
 *   MOM      nl x 1 cell of momentum column vectors (INFO.momentum_len), or [] for zeros
 *   OPTS     the muon_update options struct plus variant and pad_count ('deepspeed'|'keller')
 *   COMM     'sim' (WORLD simulated ranks), 'self', or a muon_comm handle
 *   ASSEMBLE true: FULL = 1 x P cell of the full updates (an all-gather under MPI)
 * Outputs: UPD nl x 1 cell of owned-update column vectors; MOM the new momenta; STATS nl x 1
 * struct array (rank, ns_calls, momentum_elements, pad_elements, calls / bytes_sent /
 * bytes_recv as 1 x 5 vectors in muon_coll order); FULL ([] unless ASSEMBLE); INFO struct
 * (owned W x 2 x P spans, owned_len, momentum_len, ns_calls W x 1, lpt_owner, comm,
 * counts_measured, local_ranks, ranks).
 */
#include <string.h>

#include "muon_mex.h"
#include "muon_mex_comm.h"

enum { IN_SHAPES, IN_WORLD, IN_LOPTS, IN_GRADS, IN_MOM, IN_OPTS, IN_COMM, IN_ASSEMBLE, IN_END };
enum { OUT_UPD, OUT_MOM, OUT_STATS, OUT_FULL, OUT_INFO, OUT_END };

static const char *fname = "zero_muon_step";

// The layout's inputs, checked (errors raise before anything is allocated): P, the P rows
// then the P cols in rc (mxMalloc-ed, freed with the call), the world and the options.
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

static mxArray *info_struct (const muon_zero_plan *P, muon_comm *comm)
{
  const char *f[] = { "owned", "owned_len", "momentum_len", "ns_calls", "lpt_owner", "comm",
                      "counts_measured", "local_ranks", "ranks" };
  mxArray *a = mxCreateStructMatrix (1, 1, 9, f);
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
  mxArray *ol = mxCreateDoubleMatrix (W, 1, mxREAL), *ml = mxCreateDoubleMatrix (W, 1, mxREAL);
  mxArray *nc = mxCreateDoubleMatrix (W, 1, mxREAL);
  for (size_t r = 0; r < W; r++)
  {
    mxGetPr (ol)[r] = (double) P->owned_len[r];
    mxGetPr (ml)[r] = (double) P->momentum_len[r];
    mxGetPr (nc)[r] = (double) P->ns_calls[r];
  }
  mxSetField (a, 0, "owned_len", ol);
  mxSetField (a, 0, "momentum_len", ml);
  mxSetField (a, 0, "ns_calls", nc);
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
  return a;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  if (nrhs != IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s", USAGE);
  muon_ctx *ctx = muon_mex_ctx ();

  // every check that can raise comes before the layout, plan and communicator exist
  const mxArray *so = prhs[IN_OPTS];
  muon_zero_step_opts o;
  double experts = 1;
  muon_mex_zero_step_opts (fname, so, &o, &experts);
  if (experts != 1)
    muon_mex_error (fname, "badArg", "experts are not supported: every parameter is one matrix.");
  size_t *rc = NULL;
  int W = 0;
  muon_zero_layout_opts lo;
  size_t np = layout_args (prhs[IN_SHAPES], prhs[IN_WORLD], prhs[IN_LOPTS], &rc, &W, &lo);

  // communicator (raises with nothing of ours allocated), then layout and plan: from here
  // on, every error is raised after the clean-up at the end
  int owned = 0;
  muon_comm *comm = muon_mex_comm_get (fname, prhs[IN_COMM], W, &owned);
  muon_zero_layout *L = NULL;
  muon_zero_plan *P = NULL;
  muon_status s = muon_zero_layout_create (ctx, np, rc, rc + np, W, &lo, &L);
  if (s >= 0)
    s = muon_zero_plan_create (ctx, L, o.variant, &P);
  int nl = muon_comm_local_ranks (comm);
  const char *err_id = NULL, *err_msg = NULL;
  if (s >= 0 && muon_comm_size (comm) != W)
    err_id = "badArg", err_msg = "the communicator's size differs from the layout's world";

  // gradients: nl x P cell of rows x cols real doubles
  const mxArray *G = prhs[IN_GRADS], *M = prhs[IN_MOM];
  int ok = s >= 0 && !err_id;
  if (ok && !(mxIsCell (G) && mxGetM (G) == (size_t) nl && mxGetN (G) == np))
    err_id = "badShape", err_msg = "GRADS must be a cell of one row per local rank and one "
                                   "column per parameter";
  const double **grads = mxCalloc ((size_t) nl * np, sizeof *grads);
  for (int l = 0; ok && !err_id && l < nl; l++)
    for (size_t p = 0; !err_id && p < np; p++)
    {
      const mxArray *g = mxGetCell (G, l + p * (size_t) nl);
      if (!g || !mxIsDouble (g) || mxIsComplex (g) || mxIsSparse (g)
          || mxGetNumberOfDimensions (g) != 2 || mxGetM (g) != L->params[p].rows
          || mxGetN (g) != L->params[p].cols)
        err_id = "badShape", err_msg = "every gradient must be a real double matrix of its "
                                       "parameter's shape";
      else
        grads[(size_t) l * np + p] = mxGetPr (g);
    }
  // outputs, built here and handed over by muon_mex_outputs (never past nlhs); the
  // momentum is a copy (never the caller's arrays)
  mxArray *out[OUT_END] = { NULL };
  out[OUT_MOM] = mxCreateCellMatrix ((mwSize) nl, 1);
  out[OUT_UPD] = mxCreateCellMatrix ((mwSize) nl, 1);
  double **mom = mxCalloc ((size_t) nl, sizeof *mom), **upd = mxCalloc ((size_t) nl, sizeof *upd);
  if (ok && !err_id && !mxIsEmpty (M) && !(mxIsCell (M) && mxGetNumberOfElements (M) == (size_t) nl))
    err_id = "badShape", err_msg = "MOM must be [] or a cell of one vector per local rank";
  for (int l = 0; ok && !err_id && l < nl; l++)
  {
    size_t len = P->momentum_len[muon_comm_rank (comm, l)];
    const mxArray *m = mxIsEmpty (M) ? NULL : mxGetCell (M, l);
    mxArray *mc = mxCreateDoubleMatrix (len, 1, mxREAL);
    if (m && !(mxIsDouble (m) && !mxIsComplex (m) && !mxIsSparse (m)
               && mxGetNumberOfElements (m) == len))
      err_id = "badShape", err_msg = "a momentum buffer does not match the variant's layout";
    else if (m)
      memcpy (mxGetPr (mc), mxGetPr (m), len * sizeof (double));
    mxSetCell (out[OUT_MOM], l, mc);
    mom[l] = mxGetPr (mc);
    mxArray *uc = mxCreateDoubleMatrix (P->owned_len[muon_comm_rank (comm, l)], 1, mxREAL);
    mxSetCell (out[OUT_UPD], l, uc);
    upd[l] = mxGetPr (uc);
  }

  // the step
  muon_zero_rank_stats *st = mxCalloc ((size_t) nl, sizeof *st);
  if (ok && !err_id)
    s = muon_zero_step (ctx, comm, P, &o, grads, mom, upd, st);
  if (ok && !err_id && s >= 0)
  {
    out[OUT_STATS] = stats_struct (st, comm, nl);
    out[OUT_INFO] = info_struct (P, comm);
    if (mxIsLogicalScalarTrue (prhs[IN_ASSEMBLE])
        || (mxIsNumeric (prhs[IN_ASSEMBLE]) && mxGetNumberOfElements (prhs[IN_ASSEMBLE]) == 1
            && mxGetScalar (prhs[IN_ASSEMBLE]) != 0))
    {
      out[OUT_FULL] = mxCreateCellMatrix (1, (mwSize) np);
      double **full = mxCalloc (np, sizeof *full);
      for (size_t p = 0; p < np; p++)
      {
        mxArray *f = mxCreateDoubleMatrix (L->params[p].rows, L->params[p].cols, mxREAL);
        mxSetCell (out[OUT_FULL], p, f);
        full[p] = mxGetPr (f);
      }
      s = muon_zero_assemble (ctx, comm, P, (const double *const *) upd, full);
    }
    else
      out[OUT_FULL] = mxCreateCellMatrix (0, 0);
  }

  // clean-up, then the error (the context keeps the core's message)
  if (owned)
    muon_comm_destroy (&comm);
  muon_zero_plan_destroy (&P);
  muon_zero_layout_destroy (&L);
  if (err_id)
    muon_mex_error (fname, err_id, "%s.", err_msg);
  muon_mex_check (fname, s);
  muon_mex_outputs (nlhs, plhs, out, OUT_END);
}
