#define USAGE "usage: [UPD, MOM, STATS, FULL, INFO, RMOM, RFULL] = __zero_muon_step__ (SHAPES, WORLD, LOPTS, GRADS, MOM, OPTS, COMM, ASSEMBLE[, REF, RMOM]) or FREED = __zero_muon_step__ ('release')"
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

#include "muon_mex_comm.h"
#include "muon_mex_zero.h"

enum { IN_SHAPES, IN_WORLD, IN_LOPTS, IN_GRADS, IN_MOM, IN_OPTS, IN_COMM, IN_ASSEMBLE, IN_REF,
       IN_RMOM, IN_END };
// the first four as muon_mex_zero_step builds them
enum { OUT_UPD = MUON_MEX_ZERO_UPD, OUT_MOM = MUON_MEX_ZERO_MOM, OUT_STATS = MUON_MEX_ZERO_STATS,
       OUT_FULL = MUON_MEX_ZERO_FULL, OUT_INFO = MUON_MEX_ZERO_OUTS, OUT_RMOM, OUT_RFULL, OUT_END };

static const char *fname = "zero_muon_step";

// 1 when a is true or a nonzero numeric scalar.
static int flag (const mxArray *a)
{
  return mxIsLogicalScalarTrue (a)
         || (mxIsNumeric (a) && mxGetNumberOfElements (a) == 1 && mxGetScalar (a) != 0);
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  // __zero_muon_step__ ("release"): give back the context's plans, simulated communicator
  // and step buffers (muon_ctx_release); FREED: the workspace bytes given back
  if (nrhs == 1 && mxIsChar (prhs[0]))
  {
    char cmd[16];
    size_t freed = 0;
    if (mxGetString (prhs[0], cmd, sizeof cmd) != 0 || strcmp (cmd, "release") != 0)
      muon_mex_error (fname, "badArg", "%s", USAGE);
    muon_ctx *ctx = muon_mex_ctx ();
    muon_mex_check (fname, muon_ctx_release (ctx, 0, &freed));
    plhs[0] = mxCreateDoubleScalar ((double) freed);
    return;
  }
  if (nrhs < IN_REF || nrhs > IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s", USAGE);
  muon_ctx *ctx = muon_mex_ctx ();

  // arguments that need no core object
  muon_zero_step_opts o;
  double experts = 1;   // muon_update's one count for all: per matrix here (blocks)
  muon_mex_zero_step_opts (fname, prhs[IN_OPTS], &o, &experts);
  size_t np;
  int W;
  muon_zero_layout_opts lo;
  size_t *rc = muon_mex_zero_layout (fname, prhs[IN_SHAPES], prhs[IN_WORLD], prhs[IN_LOPTS],
                                     &np, &W, &lo);
  o.blocks = muon_mex_zero_blocks (fname, prhs[IN_OPTS], np);
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
    why = muon_mex_zero_grads (prhs[IN_GRADS], P, nl, grads);
  if (!*why)
    s = muon_mex_zero_step (ctx, comm, P, &o, grads, prhs[IN_MOM], assemble, out, &why);
  if (!*why && s >= 0 && ref)       // the reference on the same gradients
  {
    mxArray *rout[MUON_MEX_ZERO_OUTS] = { NULL };
    muon_zero_step_opts ro = o;
    ro.variant = MUON_ZERO_REFERENCE;
    const mxArray *none = mxCreateDoubleMatrix (0, 0, mxREAL);
    muon_status r = muon_mex_zero_step (ctx, comm, Pref, &ro, grads,
                                        nrhs > IN_RMOM ? prhs[IN_RMOM] : none, assemble,
                                        rout, &why);
    out[OUT_RMOM] = rout[MUON_MEX_ZERO_MOM];
    out[OUT_RFULL] = rout[MUON_MEX_ZERO_FULL];
    s = r < 0 || s == MUON_OK ? r : s;
  }
  if (!*why && s >= 0)
    out[OUT_INFO] = muon_mex_zero_info (P, comm, ctx);
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
