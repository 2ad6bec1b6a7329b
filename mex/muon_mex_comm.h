/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex_comm.h - a gateway's 'Comm' argument as a muon_comm (muon_mex_comm.c), its
 * collectives on Octave arrays and their counters as Octave structs (muon_mex_coll.c), and
 * the MPI life cycle of the MEX files that use MPI (muon_mex_mpi.c; all three linked only
 * into those: see the MPI block of the Makefile).
 *
 *   int owned = 0;
 *   muon_comm *c = muon_mex_comm_get (fname, prhs[IN_COMM], W, &owned);
 *   ... muon_comm_allreduce (muon_mex_ctx (), c, ...) ...
 *   if (owned) muon_comm_destroy (&c);
 *
 * A spec is [] or 'sim' (W = default_world simulated ranks), 'self', 'mpi', 'nccl', or the
 * struct muon_comm.m returns (fields kind, size, rank, local_ranks, counts, reduction; only
 * kind is required, size for sim; size and rank, when present, must match the live MPI
 * world).  self and sim communicators are made for the call (*owned = 1: the caller destroys
 * them, also on its error paths); mpi and nccl ones are per-process singletons (*owned = 0),
 * one per kind, made on first use in this MEX file (a collective call: every rank makes its
 * first use of the kind at the same point) and destroyed at exit; the spec's reduction is
 * set on the singleton for the call (muon_comm_set_reduction: no communication).  The
 * first use of mpi or nccl initializes MPI (MPI_Init_thread, unless already initialized),
 * locks this MEX file (mexLock, so `clear all` cannot unload MPI state) and registers a
 * mexAtExit handler that destroys the communicators and calls MPI_Finalize unless some other
 * MEX file did already; while the environment variable MUONLAB_MPI_AT_EXIT is "skip" (set by
 * muon_mpirun's rank driver while the rank's function runs) it leaves MPI and the
 * communicators alone instead, so that an `exit` in the middle of a job ends the process
 * unfinalized (the launcher then ends every rank) rather than waiting in MPI_Finalize for
 * ranks that wait in a collective.  Octave keeps one exit handler per MEX file, so this one
 * replaces muon_mex.c's and destroys the context (muon_mex_ctx) itself, last.
 */
#ifndef MUON_MEX_COMM_H
#define MUON_MEX_COMM_H

#include "muon_mex.h"

//---- muon_mex_comm.c ----------------------------------------------------------------------

// The communicator for spec (see above); errors raise "<fname>: ..." (muonlab:badArg,
// muonlab:notBuilt, muonlab:noDevice, muonlab:mpi, ...).  [out] *owned.
muon_comm *muon_mex_comm_get (const char *fname, const mxArray *spec, int default_world,
                              int *owned);

// The handle struct of muon_comm.m for c: kind, size, rank (of local rank 0), local_ranks,
// counts ('measured' | 'modelled') and reduction ('fixed', or 'mpi' / 'nccl' for the
// library reductions).
mxArray *muon_mex_comm_info (const muon_comm *c);

// The counters of one call of collective k on c: coll, counts, and per local rank (L x 1)
// calls, sent, recv (now minus before[l]) and model_sent, model_recv (muon_comm_model_bytes
// for count elements of dtype, root).  Sets *st and never raises (the caller may hold a
// communicator made for the call).
mxArray *muon_mex_comm_counters (muon_ctx *ctx, const muon_comm *c, muon_coll k,
                                 const muon_comm_counters *before, size_t count,
                                 muon_dtype dtype, int root, muon_status *st);
// The counters since creation: a field per collective, each with calls, sent, recv per
// local rank (L x 1).  Sets *st and never raises.
mxArray *muon_mex_comm_totals (muon_ctx *ctx, const muon_comm *c, muon_status *st);

//---- muon_mex_coll.c: nothing here raises -------------------------------------------------

// Checks X, the input of collective k (not the barrier) on c: a 1 x L cell of real full
// double or single arrays of one class and size, one per local rank (or the array itself
// when L = 1), with a multiple of W elements for reduce_scatter.  MUON_OK and *n the elements
// per rank, or the status of what is wrong (the error's id) and its message in why.
muon_status muon_mex_coll_check (const mxArray *X, muon_coll k, const muon_comm *c, size_t *n,
                                 char *why, size_t len);
// Runs collective k (not the barrier) on X of n elements per rank (checked), on copies of
// its arrays.  [out] *Y in X's form (a cell or the array; see __muon_comm__.c for the
// shapes), *count the elements per rank the collective took and *dtype, for the counters.
muon_status muon_mex_coll_run (muon_ctx *ctx, muon_comm *c, muon_coll k, const mxArray *X,
                               size_t n, muon_reduce_op op, int root, mxArray **Y,
                               size_t *count, muon_dtype *dtype);

//---- muon_mex_mpi.c -----------------------------------------------------------------------

// The process's communicator of kind MUON_COMM_MPI or MUON_COMM_NCCL, set to the library's
// reduction (lib 1) or the fixed one (see above: made on first use; raises on failure).
muon_comm *muon_mex_comm_process (const char *fname, muon_comm_kind kind, int lib);
// 1 when c is a process communicator set to the library's reduction.
int muon_mex_comm_library (const muon_comm *c);
// What the ranks of a call with communicator SPEC agree on, read from its kind and
// reduction only (a rank whose handle's size or rank was edited still joins): [out] *code
// 2 x (the kind's index in MUON_LIST_COMM_KIND) + 1 for the library's reduction, the
// entry the ranks compare; returns the communicator the agreement runs on: NULL for self
// and sim (nothing to agree), else the process's MPI communicator, made if need be (the
// NCCL one is not made: making it is collective, and would pair with the agreement).
muon_comm *muon_mex_comm_agreement_of (const char *fname, const mxArray *spec, double *code);
// The process's MPI communicator for an agreement (made on first use); NULL without MPI
// (then one rank: nothing to agree).
muon_comm *muon_mex_comm_agree_on (const char *fname);
// muon_mex_comm_get for checks made before the ranks agree: an NCCL SPEC gives the
// process's MPI communicator (the same ranks; its size and rank checked as for NCCL), so
// that no NCCL communicator is made before the agreement.
muon_comm *muon_mex_comm_for_checks (const char *fname, const mxArray *spec, int *owned);

// Prints msg on stderr and ends every rank of the MPI job with MPI_Abort (exit code 1).
// Initializes MPI first if needed; raises muonlab:mpi when MPI is finalized or not built.
void muon_mex_comm_abort (const char *fname, const char *msg);

// 1 when this MEX file was built with MPI.
int muon_mex_comm_have_mpi (void);
// 1 when MPI is initialized and not yet finalized in this process (by any MEX file); starts
// nothing.  0 without MPI.
int muon_mex_comm_mpi_live (void);

#endif
