/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex_zero.h - the glue of __muon_zero_step__ (and of __muon_gpu__'s device step): its layout,
 * gradient and momentum arguments checked (muon_mex_zero.c), and one distributed step
 * (muon_zero_step, then muon_zero_assemble) on Octave arrays with its STATS and INFO
 * (muon_mex_zero_step.c).
 *
 *   size_t np; int W; muon_zero_layout_opts lo;
 *   size_t *rc = muon_mex_zero_layout (fname, prhs[IN_SHAPES], prhs[IN_WORLD],
 *                                      prhs[IN_LOPTS], &np, &W, &lo);
 *   ... muon_mex_zero_plans_get (ctx, plans, variant, &P, &built) ...
 *   why = muon_mex_zero_grads (prhs[IN_GRADS], P, nl, grads);
 *   if (!*why) st = muon_mex_zero_step (ctx, comm, P, &o, grads, M, assemble, out, &why);
 *
 * All but muon_mex_zero_layout never raise (the caller may hold a communicator made for the
 * call): they return an argument's error as a message without its final period ("" for
 * none).
 */
#ifndef MUON_MEX_ZERO_H
#define MUON_MEX_ZERO_H

#include "muon_mex.h"

// What muon_mex_zero_step builds, in the order of the gateway's first outputs.
enum { MUON_MEX_ZERO_UPD, MUON_MEX_ZERO_MOM, MUON_MEX_ZERO_STATS, MUON_MEX_ZERO_FULL,
       MUON_MEX_ZERO_OUTS };

//---- muon_mex_zero.c ----------------------------------------------------------------------

// SHAPES (a real P x 2 double matrix of positive integers: "SHAPES must be a real P x 2
// double matrix." / "SHAPES must hold positive integers.", muonlab:badShape), WORLD (an
// integer in 1..MUON_COMM_MAX_WORLD, muonlab:badArg) and LOPTS (muon_mex_zero_layout_opts),
// checked in that order; raises.  Returns the P rows then the P cols (mxMalloc-ed, freed with
// the call).  [out] *P, *world, *o.
size_t *muon_mex_zero_layout (const char *fname, const mxArray *S, const mxArray *Wa,
                              const mxArray *lopts, size_t *P, int *world,
                              muon_zero_layout_opts *o);

// A step's arguments that need no core object, checked (raises): OPTS into *o (with its
// blocks), SHAPES, WORLD and LOPTS as muon_mex_zero_layout reads them.  Returns the shapes.
size_t *muon_mex_zero_step_args (const char *fname, const mxArray *shapes, const mxArray *world,
                                 const mxArray *lopts, const mxArray *opts,
                                 muon_zero_step_opts *o, size_t *np, int *W,
                                 muon_zero_layout_opts *lo);

// COMM: 'sim' or [] (the context's simulated communicator of W ranks), else
// muon_mex_comm_get's (*owned 1: made for the call, the caller destroys it).  Raises.
muon_comm *muon_mex_zero_comm (const char *fname, const mxArray *C, int W, int *owned);

// Each matrix's blocks from the options' fields param_experts (a real vector of P counts)
// and param_split (a cell of P vectors of row counts, [] for none); NULL when both are
// absent or empty.  Raises (muonlab:badShape) on a bad field; the core checks the values
// against the shapes.  mxMalloc-ed, freed with the call.
muon_zero_blocks *muon_mex_zero_blocks (const char *fname, const mxArray *opts, size_t P);

// GRADS, an nl x nparams cell of real double matrices of the plan's shapes: local rank l's
// gradient of matrix p in grads[l * nparams + p].  "" when they fit, else the message.
const char *muon_mex_zero_grads (const mxArray *G, const muon_zero_plan *P, int nl,
                                 const double **grads);

// The momenta M: [] (zeros), an nl x 1 cell of vectors (P->momentum_len of each local
// rank), or under the reference (nl > 1) a 1 x 1 cell, one vector every rank holds; "" when
// they fit the plan, else the message.  [out] *out: the new momenta, copies of M's: an nl x 1
// cell, or a 1 x 1 cell when every rank's is one (the reference with a 1 x 1 cell, or with an
// nl x 1 cell of copies of one array); mom[l]: local rank l's (all the same one then, so that
// muon_zero_step updates it once).  NULL when memory ran out (the context's error set).
const char *muon_mex_zero_momentum (const mxArray *M, const muon_zero_plan *P, muon_comm *comm,
                                    int nl, mxArray **out, double **mom);

//---- muon_mex_zero_step.c -----------------------------------------------------------------

// One step of plan P on every local rank of comm, momenta from M (muon_mex_zero_momentum).
// [out] out[MUON_MEX_ZERO_*]: UPD an nl x 1 cell of the owned updates, MOM the new momenta,
// STATS an nl x 1 struct array (rank, ns_calls, momentum_elements, pad_elements, and calls,
// bytes_sent, bytes_recv as 1 x MUON_COLL_COUNT rows in muon_coll order), FULL with assemble
// the 1 x nparams cell of full updates, else an empty cell.  [out] *why: the momenta's error
// ("" for none).  Returns MUON_ERR_NOMEM when an output cannot be had, else the core's status (muon_zero_assemble's error over the step's).
muon_status muon_mex_zero_step (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                                const muon_zero_step_opts *o, const double *const *grads,
                                const mxArray *M, int assemble,
                                mxArray *out[MUON_MEX_ZERO_OUTS], const char **why);

// STATS: an nl x 1 struct array of the step's per-rank stats (rank, ns_calls,
// momentum_elements, pad_elements, calls, bytes_sent, bytes_recv).
mxArray *muon_mex_zero_stats (const muon_zero_rank_stats *st, muon_comm *comm, int nl);

//---- muon_mex_zero_dev.c (linked into __muon_gpu__, which holds the device arrays) ----------

// __muon_gpu__ ('zero_step', SHAPES, WORLD, LOPTS, GRADS, MOM, OPTS, COMM): one step of
// muon_zero_step_device; see that file.  Raises.
void muon_mex_zero_device (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);

// The plans of one layout (shapes rc: rows then cols of np matrices, world, layout options):
// its muon_zero_layout, built at once, and the plan of each variant, built when first asked
// for.  A layout object of zero_layout.m owns one through __muon_zero_step__'s handle table
// (muon_mex_handle.h), so its steps plan once and the plans go with the object; a layout
// given as a plain struct gets one for the call.
typedef struct muon_mex_zero_plans muon_mex_zero_plans;
// [out] *out, or the layout's error (the context holds its message).
muon_status muon_mex_zero_plans_new (muon_ctx *ctx, size_t np, const size_t *rc, int world,
                                     const muon_zero_layout_opts *lo,
                                     muon_mex_zero_plans **out);
// Frees z (NULL is fine): the destructor of the handle table.
void muon_mex_zero_plans_free (void *z);
// 1 when z was made from these shapes, world and options.
int muon_mex_zero_plans_match (const muon_mex_zero_plans *z, size_t np, const size_t *rc,
                               int world, const muon_zero_layout_opts *lo);
// [out] *P: z's plan of variant v with Megatron's bucket size bucket (0: one bucket; the
// other designs ignore it), borrowed: it lives as long as z or until the next call for v
// with another bucket size; built now when it is the first time it is asked for (then
// *built += 1).
muon_status muon_mex_zero_plans_get (muon_ctx *ctx, muon_mex_zero_plans *z,
                                     muon_zero_variant v, size_t bucket,
                                     const muon_zero_plan **P, size_t *built);

// [out] out[0] SEG: a world x 1 cell, entry r+1 a K x 5 [param+1 at start stop rowmajor], one
// row per stretch of rank r's momentum buffer in buffer order; out[1] LEN: world x 1, each
// buffer's length (muon_zero_plan_momentum_map).  On an error both are freed (NULL).
muon_status muon_mex_zero_map (muon_ctx *ctx, const muon_zero_plan *P, mxArray *out[2]);

// The plan's owned spans: a W x 2 x nparams double array, (r+1, :, p+1) rank r's [start
// stop) of matrix p (0-based, row-major elements; [0 0] for none): INFO.owned.
mxArray *muon_mex_zero_owned (const muon_zero_plan *P);

// INFO: owned (W x 2 x nparams spans), owned_len, momentum_len, ns_calls (W x 1), lpt_owner
// (1 x nparams, or []), comm (its name), counts_measured, local_ranks, ranks (1 x local
// ranks), plans_built (given: the plans __muon_zero_step__ has built).
mxArray *muon_mex_zero_info (const muon_zero_plan *P, muon_comm *comm, size_t plans_built);

#endif
