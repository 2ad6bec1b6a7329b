/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: [UPD, MOM, STATS, FULL, INFO, RMOM, RFULL] = __muon_zero_step__ (SHAPES, WORLD, LOPTS, GRADS, MOM, OPTS, COMM, ASSEMBLE[, REF, RMOM, PLAN]), or __muon_zero_step__ (CMD, ...) with CMD plan, map, owned, holds, free, count, steps or release"
/* __muon_zero_step__ - gateway of zero_muon_step.m: one distributed Muon step
 * (muon_zero.h) on the local ranks of a communicator, and with REF the reference (DDP) step
 * on the same gradients in the same call.
 *   SHAPES   P x 2 [rows cols], WORLD, LOPTS (stage, align_factor, order): the layout, as
 *            zero_layout.m built it
 *   GRADS    nl x P cell of real double matrices (local rank l's gradient of matrix p)
 *   MOM      momentum of each local rank: [] (zeros), an nl x 1 cell of column vectors
 *            (INFO.momentum_len), or a 1 x 1 cell: one vector every rank holds (the
 *            reference's W identical copies, stored once)
 *   OPTS     the muon_update options struct plus variant and pad_count ('deepspeed'|'keller')
 *   COMM     'sim' or [] (WORLD simulated ranks, the context's), 'self', or a muon_comm handle
 *   ASSEMBLE true: FULL = 1 x P cell of the full updates (an all-gather under MPI)
 *   REF      true: also the reference step, with momentum RMOM (as MOM); both optional
 *            (default false, [])
 *   PLAN     the handle of the layout's plans (H below) made from the same SHAPES, WORLD
 *            and LOPTS: the variant's plan is built once and kept there; [] (default), a
 *            stale handle or one of other shapes: plans built for this call only
 * Outputs: UPD nl x 1 cell of owned-update column vectors; MOM the new momenta (a 1 x 1 cell
 * when the variant is the reference and every local rank's momentum is the same one);
 * STATS nl x 1 struct array (rank, ns_calls, momentum_elements, pad_elements, calls /
 * bytes_sent / bytes_recv as 1 x 5 vectors in muon_coll order); FULL ([] unless ASSEMBLE);
 * INFO struct (owned W x 2 x P spans, owned_len, momentum_len, ns_calls W x 1, lpt_owner,
 * comm, counts_measured, local_ranks, ranks, plans_built: the plans this MEX file has
 * built); RMOM, RFULL the reference's momenta and full updates ([] without REF).
 *
 * The plans of a layout object (zero_layout_result.m, zero_plan.m):
 *   H = ('plan', SHAPES, WORLD, LOPTS)   a new entry of the handle table (muon_mex_handle.h)
 *   [SEG, LEN] = ('map', SHAPES, WORLD, LOPTS, VARIANT[, H[, BUCKET]])   the momentum map
 *                                        of the design's plan (muon_mex_zero_map), for the
 *                                        sharded checkpoints (zero_shard_map.m); H as PLAN
 *                                        above ([] for none); BUCKET the layer-wise designs'
 *                                        bucket size ([] or 0: one bucket)
 *   OWNED = ('owned', SHAPES, WORLD, LOPTS, OPTS[, H])   a step's layout facts without the
 *                                        step (zero_muon_step's skipped step): OPTS checked
 *                                        as a step checks them against the plan of
 *                                        OPTS.variant (muon_zero_step_check: the errors a
 *                                        step raises before it moves anything), then that
 *                                        plan's owned spans (INFO.owned, W x 2 x P); no
 *                                        communicator, no collective, no Newton-Schulz
 *   TF = ('holds', H)                    whether H is an entry of this session
 *   ('free', H)                          a stale handle is ignored (the object's destructor)
 *   N = ('count')                        entries held
 *   N = ('steps')                        the steps this MEX file has run (each variant's and
 *                                        reference's step of a call, one each): a test
 *                                        tells from it that a call ran none
 *   FREED = ('release')                  gives back the simulated communicator and the step
 *                                        buffers the context keeps (muon_ctx_release): bytes
 */
#include <string.h>

#include "muon_mex_comm.h"
#include "muon_mex_handle.h"
#include "muon_mex_zero.h"

enum { IN_SHAPES, IN_WORLD, IN_LOPTS, IN_GRADS, IN_MOM, IN_OPTS, IN_COMM, IN_ASSEMBLE, IN_REF,
       IN_RMOM, IN_PLAN, IN_END };
// the first four as muon_mex_zero_step builds them
enum { OUT_UPD = MUON_MEX_ZERO_UPD, OUT_MOM = MUON_MEX_ZERO_MOM, OUT_STATS = MUON_MEX_ZERO_STATS,
       OUT_FULL = MUON_MEX_ZERO_FULL, OUT_INFO = MUON_MEX_ZERO_OUTS, OUT_RMOM, OUT_RFULL, OUT_END };

static const char *fname = "zero_muon_step";

static const muon_mex_handle_kind layout_plans = {
  "a layout's plan", "(cleared by clear functions); zero_muon_step makes it again",
  muon_mex_zero_plans_free, NULL
};

static size_t plans_built = 0;              // by this MEX file, ever
static size_t steps_run = 0;                // muon_mex_zero_step calls of this MEX file, ever
static muon_mex_zero_plans *scratch = NULL;  // the plans of the last call without a handle

static void free_scratch (void)
{
  muon_mex_zero_plans_free (scratch);
  scratch = NULL;
}

static muon_mex_zero_plans *plans_for (muon_ctx *ctx, const mxArray *h, size_t np,
                                       const size_t *rc, int W,
                                       const muon_zero_layout_opts *lo);

// The variant named by a (a name of the variant list), else muonlab:badArg.
static muon_zero_variant variant_arg (const mxArray *a)
{
  char buf[64];
  int v = 0;
  if (!mxIsChar (a) || mxGetString (a, buf, sizeof buf) != 0
      || muon_name_lookup (MUON_LIST_ZERO_VARIANT, buf, &v) != MUON_OK)
    muon_mex_error (fname, "badArg", "VARIANT must be a design's name.");
  return (muon_zero_variant) v;
}

// The commands: plan, map, owned, holds, free, count, steps, release.
static void command (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  char cmd[16] = "";
  muon_ctx *ctx = muon_mex_ctx ();
  mxGetString (prhs[0], cmd, sizeof cmd);
  if (strcmp (cmd, "plan") == 0 && nrhs == 4)
  {
    size_t np;
    int W;
    muon_zero_layout_opts lo;
    size_t *rc = muon_mex_zero_layout (fname, prhs[1], prhs[2], prhs[3], &np, &W, &lo);
    muon_mex_zero_plans *z = NULL;
    muon_mex_check (fname, muon_mex_zero_plans_new (ctx, np, rc, W, &lo, &z));
    plhs[0] = muon_mex_handle_new (fname, z);
  }
  else if (strcmp (cmd, "map") == 0 && nrhs >= 5 && nrhs <= 7 && nlhs <= 2)
  {
    muon_zero_variant v = variant_arg (prhs[4]);
    size_t np;
    int W;
    muon_zero_layout_opts lo;
    size_t *rc = muon_mex_zero_layout (fname, prhs[1], prhs[2], prhs[3], &np, &W, &lo);
    size_t bucket = nrhs == 7 && !mxIsEmpty (prhs[6])
                    ? muon_mex_size (fname, "BUCKET", mxGetScalar (prhs[6])) : 0;
    muon_mex_zero_plans *z = plans_for (ctx, nrhs >= 6 ? prhs[5] : NULL, np, rc, W, &lo);
    const muon_zero_plan *P = NULL;
    mxArray *out[2] = { NULL };
    muon_mex_check (fname, muon_mex_zero_plans_get (ctx, z, v, bucket, &P, &plans_built));
    muon_mex_check (fname, muon_mex_zero_map (ctx, P, out));
    muon_mex_outputs (nlhs, plhs, out, 2);
  }
  else if (strcmp (cmd, "owned") == 0 && (nrhs == 5 || nrhs == 6) && nlhs <= 1)
  {
    muon_zero_step_opts o;
    size_t np;
    int W;
    muon_zero_layout_opts lo;
    size_t *rc = muon_mex_zero_step_args (fname, prhs[1], prhs[2], prhs[3], prhs[4], &o, &np,
                                          &W, &lo);
    muon_mex_zero_plans *z = plans_for (ctx, nrhs == 6 && !mxIsEmpty (prhs[5]) ? prhs[5]
                                        : NULL, np, rc, W, &lo);
    const muon_zero_plan *P = NULL;
    muon_mex_check (fname, muon_mex_zero_plans_get (ctx, z, o.variant, o.bucket_size, &P,
                                                    &plans_built));
    muon_mex_check (fname, muon_zero_step_check (ctx, P, &o));
    plhs[0] = muon_mex_zero_owned (P);
  }
  else if (strcmp (cmd, "holds") == 0 && nrhs == 2)
    plhs[0] = mxCreateLogicalScalar (muon_mex_handle_find (prhs[1]) != NULL);
  else if (strcmp (cmd, "free") == 0 && nrhs == 2 && nlhs == 0)
    muon_mex_handle_free (prhs[1]);
  else if (strcmp (cmd, "count") == 0 && nrhs == 1)
    plhs[0] = mxCreateDoubleScalar ((double) muon_mex_handle_count ());
  else if (strcmp (cmd, "steps") == 0 && nrhs == 1 && nlhs <= 1)
    plhs[0] = mxCreateDoubleScalar ((double) steps_run);
  else if (strcmp (cmd, "release") == 0 && nrhs == 1)
  {
    size_t freed = 0;
    free_scratch ();
    muon_mex_check (fname, muon_ctx_release (ctx, 0, &freed));
    plhs[0] = mxCreateDoubleScalar ((double) freed);
  }
  else
    muon_mex_error (fname, "badArg", "%s.", USAGE);
}

// The plans of this call: the handle's when it is one of this session made from these
// shapes, else plans for this call (kept in `scratch` until the next call, so that an error
// raised below leaks nothing).
static muon_mex_zero_plans *plans_for (muon_ctx *ctx, const mxArray *h, size_t np,
                                       const size_t *rc, int W,
                                       const muon_zero_layout_opts *lo)
{
  muon_mex_zero_plans *z = h ? muon_mex_handle_find (h) : NULL;
  if (z && muon_mex_zero_plans_match (z, np, rc, W, lo))
    return z;
  muon_mex_check (fname, muon_mex_zero_plans_new (ctx, np, rc, W, lo, &scratch));
  return scratch;
}

// 1 when a is true or a nonzero numeric scalar.
static int flag (const mxArray *a)
{
  return mxIsLogicalScalarTrue (a)
         || (mxIsNumeric (a) && mxGetNumberOfElements (a) == 1 && mxGetScalar (a) != 0);
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  static int once = 0;
  if (!once)
  {
    muon_mex_handle_init (&layout_plans);
    muon_mex_at_exit (free_scratch);
    once = 1;
  }
  free_scratch ();                          // a call raised before it could free them
  if (nrhs >= 1 && mxIsChar (prhs[0]))
  {
    command (nlhs, plhs, nrhs, prhs);
    return;
  }
  if (nrhs < IN_REF || nrhs > IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s.", USAGE);
  muon_ctx *ctx = muon_mex_ctx ();

  // arguments that need no core object
  muon_zero_step_opts o;
  size_t np;
  int W;
  muon_zero_layout_opts lo;
  size_t *rc = muon_mex_zero_step_args (fname, prhs[IN_SHAPES], prhs[IN_WORLD], prhs[IN_LOPTS],
                                        prhs[IN_OPTS], &o, &np, &W, &lo);
  int assemble = flag (prhs[IN_ASSEMBLE]), ref = nrhs > IN_REF && flag (prhs[IN_REF]);
  ref = ref && o.variant != MUON_ZERO_REFERENCE;

  // the plans (the layout object's, or this call's: freed by the next call)
  const muon_zero_plan *P = NULL, *Pref = NULL;
  muon_mex_zero_plans *z = plans_for (ctx, nrhs > IN_PLAN && !mxIsEmpty (prhs[IN_PLAN])
                                      ? prhs[IN_PLAN] : NULL, np, rc, W, &lo);
  muon_mex_check (fname, muon_mex_zero_plans_get (ctx, z, o.variant, o.bucket_size, &P,
                                                  &plans_built));
  if (ref)
    muon_mex_check (fname, muon_mex_zero_plans_get (ctx, z, MUON_ZERO_REFERENCE, 0, &Pref,
                                                    &plans_built));

  // the communicator: the context's simulated one, or muon_mex_comm_get's (owned: destroyed
  // before any error below is raised)
  int owned = 0;
  muon_comm *comm = muon_mex_zero_comm (fname, prhs[IN_COMM], W, &owned);

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
  {
    steps_run++;
    s = muon_mex_zero_step (ctx, comm, P, &o, grads, prhs[IN_MOM], assemble, out, &why);
  }
  if (!*why && s >= 0 && ref)       // the reference on the same gradients
  {
    mxArray *rout[MUON_MEX_ZERO_OUTS] = { NULL };
    muon_zero_step_opts ro = o;
    ro.variant = MUON_ZERO_REFERENCE;
    const mxArray *none = mxCreateDoubleMatrix (0, 0, mxREAL);
    steps_run++;
    muon_status r = muon_mex_zero_step (ctx, comm, Pref, &ro, grads,
                                        nrhs > IN_RMOM ? prhs[IN_RMOM] : none, assemble,
                                        rout, &why);
    out[OUT_RMOM] = rout[MUON_MEX_ZERO_MOM];
    out[OUT_RFULL] = rout[MUON_MEX_ZERO_FULL];
    s = r < 0 || s == MUON_OK ? r : s;
  }
  if (!*why && s >= 0)
    out[OUT_INFO] = muon_mex_zero_info (P, comm, plans_built);
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
