/* muon_mex_comm.h - a gateway's 'Comm' argument as a muon_comm, and the MPI life cycle of
 * the MEX files that use MPI (linked only into those: see the MPI block of the Makefile).
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
 * one per reduction mode, made on first use in this MEX file and destroyed at exit.  The
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

// The communicator for spec (see above); errors raise "<fname>: ..." (muonlab:badArg,
// muonlab:notBuilt, muonlab:noDevice, muonlab:mpi, ...).  [out] *owned.
muon_comm *muon_mex_comm_get (const char *fname, const mxArray *spec, int default_world,
                              int *owned);

// The handle struct of muon_comm.m for c: kind, size, rank (of local rank 0), local_ranks,
// counts ('measured' | 'modelled') and reduction ('fixed', or 'mpi' / 'nccl' for the
// library reductions).
mxArray *muon_mex_comm_info (const muon_comm *c);

// Prints msg on stderr and ends every rank of the MPI job with MPI_Abort (exit code 1).
// Initializes MPI first if needed; raises muonlab:mpi when MPI is finalized or not built.
void muon_mex_comm_abort (const char *fname, const char *msg);

// 1 when this MEX file was built with MPI.
int muon_mex_comm_have_mpi (void);

#endif
