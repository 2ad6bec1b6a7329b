#define USAGE "usage: C = __zero_cost__ (SHAPES, EXPERTS, SPLIT, WORLD, OPTS) or [DESIGNS, COLLS] = __zero_cost__ ()"
/* __zero_cost__ - gateway of zero_cost.m: the plan-only cost of one distributed Muon step
 * (muon_zero.h).  SHAPES is P x 2 [rows cols] (positive integers), EXPERTS P x 1 (or
 * []: all 1), SPLIT a P x 1 cell of row-block vectors (or []: none), WORLD a scalar, OPTS a
 * struct: design, order, pad_count (strings), stage, align_factor, elem_bytes, symmetric and
 * the Newton-Schulz fields muon_ns.m passes (method, steps, restarts, gram_min_aspect, ...).
 * C is a struct of plain doubles (0-based ranks): per rank (W rows) calls, sent, recv (W x 6:
 * allreduce, reduce_scatter, all_gather, broadcast, barrier, all_to_all), ns_calls, ns_flops,
 * momentum, pads, owned, master, transient; per matrix (P rows) first_owner, last_owner,
 * ns_rank, slot; and the scalars fails (logical), why, total, padded_total, partition_size,
 * straddle_total, nstraddle, rounds, flops_total.
 */
#include <string.h>

#include "muon_mex.h"

enum { IN_SHAPES, IN_EXPERTS, IN_SPLIT, IN_WORLD, IN_OPTS, IN_END };
enum { OUT_C, OUT_END };

static const char *fields[] = {
  "calls", "sent", "recv", "ns_calls", "ns_flops", "momentum", "pads", "owned", "master",
  "transient", "first_owner", "last_owner", "ns_rank", "slot", "fails", "why", "total",
  "padded_total", "partition_size", "straddle_total", "nstraddle", "rounds", "flops_total"
};

static mxArray *table_u64 (const uint64_t *v, size_t rows, size_t cols)
{
  mxArray *a = mxCreateDoubleMatrix (rows, cols, mxREAL);
  double *d = mxGetPr (a);
  for (size_t i = 0; i < rows; i++)      // v is row-major rows x cols
    for (size_t j = 0; j < cols; j++)
      d[i + j * rows] = (double) v[i * cols + j];
  return a;
}

static mxArray *col_int (const int *v, size_t n)
{
  mxArray *a = mxCreateDoubleMatrix (n, 1, mxREAL);
  double *d = mxGetPr (a);
  for (size_t i = 0; i < n; i++)
    d[i] = v[i];
  return a;
}

static mxArray *col_sz (const size_t *v, size_t n)
{
  mxArray *a = mxCreateDoubleMatrix (n, 1, mxREAL);
  double *d = mxGetPr (a);
  for (size_t i = 0; i < n; i++)
    d[i] = (double) v[i];
  return a;
}

static size_t to_size (const char *fname, const char *what, double x)
{
  if (!(x >= 0 && x <= 9007199254740992.0) || x != (double) (size_t) x)
    muon_mex_error (fname, "badShape", "%s must hold non-negative integers.", what);
  return (size_t) x;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "zero_cost";
  if (nrhs == 0 && nlhs <= 2)
  {
    // [DESIGNS, COLLECTIVES] = __zero_cost__ (): the core's names, in its order
    plhs[0] = mxCreateCellMatrix (1, MUON_ZERO_COST_DESIGNS);
    for (int d = 0; d < MUON_ZERO_COST_DESIGNS; d++)
      mxSetCell (plhs[0], d, mxCreateString (muon_zero_cost_design_name (d)));
    if (nlhs > 1)
    {
      plhs[1] = mxCreateCellMatrix (1, MUON_COST_COLLS);
      for (int k = 0; k < MUON_COLL_COUNT; k++)
        mxSetCell (plhs[1], k, mxCreateString (muon_coll_name ((muon_coll) k)));
    }
    return;
  }
  if (nrhs != IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s", USAGE);
  const mxArray *S = prhs[IN_SHAPES], *E = prhs[IN_EXPERTS], *SP = prhs[IN_SPLIT];
  if (!mxIsDouble (S) || mxIsComplex (S) || mxIsSparse (S) || mxGetN (S) != 2
      || mxGetNumberOfDimensions (S) != 2 || mxGetM (S) == 0)
    muon_mex_error (fname, "badShape", "SHAPES must be a real P x 2 double matrix.");
  size_t P = mxGetM (S);
  if (!mxIsEmpty (E) && (!mxIsDouble (E) || mxIsComplex (E) || mxGetNumberOfElements (E) != P))
    muon_mex_error (fname, "badShape", "EXPERTS must be [] or %zu numbers.", P);
  if (!mxIsEmpty (SP) && (!mxIsCell (SP) || mxGetNumberOfElements (SP) != P))
    muon_mex_error (fname, "badShape", "SPLIT must be [] or a cell of %zu entries.", P);
  const mxArray *Wa = prhs[IN_WORLD];
  if (!mxIsDouble (Wa) || mxGetNumberOfElements (Wa) != 1)
    muon_mex_error (fname, "badArg", "WORLD must be a scalar.");
  double wd = mxGetScalar (Wa);
  if (!(wd >= 1 && wd <= MUON_ZERO_MAX_WORLD) || wd != (double) (int) wd)
    muon_mex_error (fname, "badArg", "WORLD must be an integer in 1..%d.", MUON_ZERO_MAX_WORLD);
  const mxArray *O = prhs[IN_OPTS];
  if (!mxIsStruct (O))
    muon_mex_error (fname, "badArg", "OPTS must be a struct.");

  muon_zero_cost_opts o;
  muon_zero_cost_opts_default (&o);
  char buf[64];
  if (muon_mex_field_string (fname, O, "design", buf, sizeof buf)
      && muon_zero_cost_design_from_name (buf, &o.design) != MUON_OK)
    muon_mex_error (fname, "badArg", "unknown design '%s'.", buf);
  if (muon_mex_field_string (fname, O, "order", buf, sizeof buf)
      && muon_zero_order_from_name (buf, &o.order) != MUON_OK)
    muon_mex_error (fname, "badArg", "unknown order '%s'.", buf);
  if (muon_mex_field_string (fname, O, "pad_count", buf, sizeof buf))
  {
    if (strcmp (buf, "deepspeed") == 0) o.pad_count = MUON_ZERO_PADS_DEEPSPEED;
    else if (strcmp (buf, "keller") == 0) o.pad_count = MUON_ZERO_PADS_KELLER;
    else muon_mex_error (fname, "badArg", "unknown pad count '%s'.", buf);
  }
  muon_mex_field_int (fname, O, "stage", &o.stage);
  muon_mex_field_int (fname, O, "align_factor", &o.align_factor);
  muon_mex_field_int (fname, O, "elem_bytes", &o.elem_bytes);
  muon_mex_field_int (fname, O, "symmetric", &o.symmetric);
  muon_mex_ns_opts (fname, O, &o.ns);

  const double *s = mxGetPr (S), *e = mxIsEmpty (E) ? NULL : mxGetPr (E);
  muon_zero_cost_param *par = mxCalloc (P, sizeof *par);
  size_t nsplit_all = 0;
  if (!mxIsEmpty (SP))
    for (size_t p = 0; p < P; p++)
    {
      const mxArray *c = mxGetCell (SP, p);
      nsplit_all += c ? mxGetNumberOfElements (c) : 0;
    }
  size_t *splits = mxCalloc (nsplit_all ? nsplit_all : 1, sizeof *splits), at = 0;
  for (size_t p = 0; p < P; p++)
  {
    par[p].rows = to_size (fname, "SHAPES", s[p]);
    par[p].cols = to_size (fname, "SHAPES", s[p + P]);
    par[p].experts = e ? to_size (fname, "EXPERTS", e[p]) : 1;
    const mxArray *c = mxIsEmpty (SP) ? NULL : mxGetCell (SP, p);
    if (c && !mxIsEmpty (c))
    {
      if (!mxIsDouble (c) || mxIsComplex (c))
        muon_mex_error (fname, "badShape", "SPLIT{%zu} must be a real vector.", p + 1);
      const double *v = mxGetPr (c);
      par[p].split = splits + at;
      par[p].nsplit = mxGetNumberOfElements (c);
      for (size_t b = 0; b < par[p].nsplit; b++)
        splits[at++] = to_size (fname, "SPLIT", v[b]);
    }
  }

  muon_ctx *ctx = muon_mex_ctx ();
  muon_zero_cost *C = NULL;
  muon_mex_check (fname, muon_zero_cost_create (ctx, P, par, (int) wd, &o, &C));
  mxFree (par);
  mxFree (splits);

  size_t W = (size_t) C->world;
  mxArray *R = plhs[OUT_C] = mxCreateStructMatrix (1, 1, sizeof fields / sizeof *fields,
                                                   fields);
  mxSetField (R, 0, "calls", table_u64 (C->calls, W, MUON_COST_COLLS));
  mxSetField (R, 0, "sent", table_u64 (C->sent, W, MUON_COST_COLLS));
  mxSetField (R, 0, "recv", table_u64 (C->recv, W, MUON_COST_COLLS));
  mxSetField (R, 0, "ns_calls", table_u64 (C->ns_calls, W, 1));
  mxArray *fl = mxCreateDoubleMatrix (W, 1, mxREAL);
  memcpy (mxGetPr (fl), C->ns_flops, W * sizeof (double));
  mxSetField (R, 0, "ns_flops", fl);
  mxSetField (R, 0, "momentum", table_u64 (C->momentum, W, 1));
  mxSetField (R, 0, "pads", table_u64 (C->pads, W, 1));
  mxSetField (R, 0, "owned", table_u64 (C->owned, W, 1));
  mxSetField (R, 0, "master", table_u64 (C->master, W, 1));
  mxSetField (R, 0, "transient", table_u64 (C->transient, W, 1));
  mxSetField (R, 0, "first_owner", col_int (C->first_owner, P));
  mxSetField (R, 0, "last_owner", col_int (C->last_owner, P));
  mxSetField (R, 0, "ns_rank", col_int (C->ns_rank, P));
  mxSetField (R, 0, "slot", col_sz (C->slot, P));
  mxSetField (R, 0, "fails", mxCreateLogicalScalar (C->fails != 0));
  mxSetField (R, 0, "why", mxCreateString (C->why));
  mxSetField (R, 0, "total", mxCreateDoubleScalar ((double) C->total));
  mxSetField (R, 0, "padded_total", mxCreateDoubleScalar ((double) C->padded_total));
  mxSetField (R, 0, "partition_size", mxCreateDoubleScalar ((double) C->partition_size));
  mxSetField (R, 0, "straddle_total", mxCreateDoubleScalar ((double) C->straddle_total));
  mxSetField (R, 0, "nstraddle", mxCreateDoubleScalar ((double) C->nstraddle));
  mxSetField (R, 0, "rounds", mxCreateDoubleScalar ((double) C->rounds));
  mxSetField (R, 0, "flops_total", mxCreateDoubleScalar (C->flops_total));
  muon_zero_cost_destroy (&C);
}
