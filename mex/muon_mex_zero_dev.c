/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex_zero_dev.c - the device ZeRO step of zero_muon_step.m on device arrays
 * (muon_zero_step_device), a command of __muon_gpu__, linked into it because the arrays are
 * that MEX file's (muon_mex_handle.h: each MEX file holds its own table):
 *
 *   [UPD, MOM, STATS, INFO] = __muon_gpu__ ('zero_step', SHAPES, WORLD, LOPTS, GRADS, MOM,
 *                                           OPTS, COMM)
 *   SHAPES, WORLD, LOPTS, OPTS, COMM as __muon_zero_step__ takes them (COMM 'sim' or [] is
 *            the context's simulated communicator)
 *   GRADS    nl x P cell of device array handles: local rank l's gradient of matrix p
 *            (double, rows x cols)
 *   MOM      [] (zeros), or an nl x 1 cell of the momenta's handles ([] for a rank that holds
 *            none): copied, so the arrays given stay as they were
 * Outputs: UPD, MOM nl x 1 cells of handles of new arrays (the owned updates and the new
 * momenta, column vectors; [] where the length is 0); STATS and INFO as __muon_zero_step__'s.
 * The plan is built for each call (the layout object's plans are __muon_zero_step__'s).
 */
#include <stdio.h>
#include <string.h>

#include "muon_mex_comm.h"
#include "muon_mex_handle.h"
#include "muon_mex_zero.h"

enum { IN_CMD, IN_SHAPES, IN_WORLD, IN_LOPTS, IN_GRADS, IN_MOM, IN_OPTS, IN_COMM, IN_END };
enum { OUT_UPD, OUT_MOM, OUT_STATS, OUT_INFO, OUT_END };

static const char *fname = "zero_muon_step";

// What a call holds until it returns or raises: freed by the next call when it raised (or
// when the MEX file goes).
static struct {
  muon_mex_zero_plans *plans;
  muon_darray **arrays;        // the new momenta and updates, 2 nl (moved to the table)
  int narrays;
  muon_comm *comm;             // an mpi / nccl communicator made for the call (owned)
} held;
static size_t plans_built = 0;

static void release_held (void)
{
  muon_ctx *ctx = muon_mex_ctx ();
  muon_mex_zero_plans_free (held.plans);
  for (int k = 0; held.arrays && k < held.narrays; k++)
    muon_darray_destroy (ctx, &held.arrays[k]);
  mxFree (held.arrays);
  muon_comm_destroy (&held.comm);
  memset (&held, 0, sizeof held);
}

// Raises what the context says about s (after the held objects are freed).
static void check (muon_status s)
{
  if (s >= 0)
    return;
  char msg[512];
  snprintf (msg, sizeof msg, "%s", muon_ctx_last_error (muon_mex_ctx ()));
  release_held ();
  muon_mex_error (fname, muon_status_id (s), "%s.", msg);
}

static void fail (const char *id, const char *msg)
{
  release_held ();
  muon_mex_error (fname, id, "%s", msg);
}

// A new double column of n elements like g's device (NULL for n = 0), in held.arrays[k].
static muon_darray *column (const muon_darray *g, size_t n, int k)
{
  muon_darray_info i;
  muon_darray_describe (g, &i);
  if (n > 0)
    check (muon_darray_create (muon_mex_ctx (), i.device, MUON_PREC_DOUBLE, n, 1, 1,
                               &held.arrays[k]));
  return held.arrays[k];
}

// The handle of a new array (the table owns it from now on), or [] for NULL.
static mxArray *handle_of (muon_darray **a)
{
  mxArray *h = *a ? muon_mex_handle_new (fname, *a) : mxCreateDoubleMatrix (0, 0, mxREAL);
  *a = NULL;
  return h;
}

void muon_mex_zero_device (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  muon_mex_at_exit (release_held);        // what a raise left behind goes with the MEX file
  release_held ();
  if (nrhs != IN_END || nlhs > OUT_END)
    fail ("badArg", "usage: [UPD, MOM, STATS, INFO] = __muon_gpu__ ('zero_step', SHAPES, "
                    "WORLD, LOPTS, GRADS, MOM, OPTS, COMM).");
  muon_ctx *ctx = muon_mex_ctx ();
  muon_zero_step_opts o;
  size_t np;
  int W;
  muon_zero_layout_opts lo;
  size_t *rc = muon_mex_zero_step_args (fname, prhs[IN_SHAPES], prhs[IN_WORLD], prhs[IN_LOPTS],
                                        prhs[IN_OPTS], &o, &np, &W, &lo);
  const muon_zero_plan *P = NULL;
  check (muon_mex_zero_plans_new (ctx, np, rc, W, &lo, &held.plans));
  check (muon_mex_zero_plans_get (ctx, held.plans, o.variant, o.bucket_size, &P, &plans_built));

  int owned = 0;
  muon_comm *comm = muon_mex_zero_comm (fname, prhs[IN_COMM], W, &owned);
  held.comm = owned ? comm : NULL;
  if (muon_comm_size (comm) != W)
    fail ("badArg", "the communicator's size differs from the layout's world.");
  int nl = muon_comm_local_ranks (comm);

  // the arguments' arrays, borrowed from the table
  const mxArray *G = prhs[IN_GRADS], *M = prhs[IN_MOM];
  if (!mxIsCell (G) || mxGetM (G) != (size_t) nl || mxGetN (G) != np)
    fail ("badShape", "GRADS must be a cell of device arrays, one row per local rank and one "
                      "column per parameter.");
  const muon_darray **grads = mxCalloc ((size_t) nl * np, sizeof *grads);
  for (int l = 0; l < nl; l++)
    for (size_t p = 0; p < np; p++)
      grads[(size_t) l * np + p] = muon_mex_handle_get (fname, "GRADS",
                                                        mxGetCell (G, p * nl + l));
  int fresh = mxIsEmpty (M) && !mxIsCell (M);
  if (!fresh && !(mxIsCell (M) && mxGetM (M) == (size_t) nl && mxGetN (M) == 1))
    fail ("badState", "STATE.momentum must be a cell of device arrays, one per local rank.");

  // the new momenta (zeros, or copies of the given ones) and update buffers
  held.narrays = 2 * nl;
  held.arrays = mxCalloc ((size_t) held.narrays, sizeof *held.arrays);
  muon_darray **mom = held.arrays, **upd = held.arrays + nl;
  for (int l = 0; l < nl; l++)
  {
    int r = muon_comm_rank (comm, l);
    size_t mlen = P->momentum_len[r];
    column (grads[0], mlen, l);
    column (grads[0], P->owned_len[r], nl + l);
    if (mlen == 0)
      continue;
    if (fresh)
      check (muon_darray_fill (ctx, mom[l], MUON_FILL_ZEROS, 0));
    else
    {
      const mxArray *h = mxGetCell (M, (size_t) l);
      muon_darray_info i;
      const muon_darray *m = h && !mxIsEmpty (h) ? muon_mex_handle_find (h) : NULL;
      if (m == NULL && h && mxIsDouble (h) && mxGetNumberOfElements (h) == 2)
      {                                      // a handle of an earlier session: staleHandle,
        release_held ();                     // with the table's own message
        muon_mex_handle_get (fname, "STATE.momentum", h);
      }
      if (m == NULL || muon_darray_describe (m, &i) != MUON_OK
          || i.rows * i.cols * i.batch != mlen || i.storage != MUON_PREC_DOUBLE)
        fail ("badState", "STATE.momentum does not fit this layout and variant: a double "
                          "device array of the rank's momentum length each.");
      check (muon_darray_copy (ctx, m, mom[l]));
    }
  }

  muon_zero_rank_stats *st = mxCalloc ((size_t) nl, sizeof *st);
  muon_status s = muon_zero_step_device (ctx, comm, P, &o, grads, mom, upd, st);
  if (muon_mex_warn_result (fname, s))   // as the host step: a non-finite update warns;
  {                                      // made an error, it goes after what is held
    release_held ();
    muon_mex_warn_raise ();
  }
  check (s);
  mxArray *out[OUT_END];
  out[OUT_STATS] = muon_mex_zero_stats (st, comm, nl);
  out[OUT_INFO] = muon_mex_zero_info (P, comm, plans_built);
  out[OUT_UPD] = mxCreateCellMatrix ((mwSize) nl, 1);
  out[OUT_MOM] = mxCreateCellMatrix ((mwSize) nl, 1);
  for (int l = 0; l < nl; l++)
  {
    mxSetCell (out[OUT_UPD], l, handle_of (&upd[l]));
    mxSetCell (out[OUT_MOM], l, handle_of (&mom[l]));
  }
  release_held ();
  muon_mex_outputs (nlhs, plhs, out, OUT_END);
}
