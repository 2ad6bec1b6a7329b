/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex_mpi.c - the MPI life cycle of the MEX files that use MPI and their per-process
 * mpi and nccl communicators (see muon_mex_comm.h).  Built with -DMUON_HAVE_MPI and mpicc's
 * flags when MPI is found; without it, 'mpi' raises muonlab:notBuilt (the core stub's
 * message) and 'nccl' runs one rank with no bootstrap.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "muon_mex_comm.h"

#ifdef MUON_HAVE_MPI
#include <dlfcn.h>
#include <mpi.h>
#endif

// per process, one of each kind: a handle's reduction is set on it for each call (the
// ranks agree on it, with the kind, in muon_comm_agree's signature: __muon_comm__.c), so
// that a handle with the library's reduction is no second communicator to make on every
// rank at once, and every agreement of a kind runs on one MPI communicator
static muon_comm *mpi_comm, *nccl_comm;
static int locked;
#ifdef MUON_HAVE_MPI
static void mpi_start (const char *fname);
#endif

int muon_mex_comm_have_mpi (void)
{
#ifdef MUON_HAVE_MPI
  return 1;
#else
  return 0;
#endif
}

int muon_mex_comm_mpi_live (void)
{
#ifdef MUON_HAVE_MPI
  int init = 0, fin = 0;
  MPI_Initialized (&init);
  MPI_Finalized (&fin);
  return init && !fin;
#else
  return 0;
#endif
}

int muon_mex_comm_library (const muon_comm *c)
{
  return c != NULL && (c == mpi_comm || c == nccl_comm)
         && muon_comm_reduction_of (c) == MUON_COMM_REDUCTION_LIBRARY;
}

muon_comm *muon_mex_comm_agree_on (const char *fname)
{
#ifdef MUON_HAVE_MPI
  mpi_start (fname);
  if (mpi_comm == NULL)
    muon_mex_check (fname, muon_comm_mpi_create (muon_mex_ctx (), 0, &mpi_comm));
  return mpi_comm;
#else
  (void) fname;
  return NULL;
#endif
}


// 1 when MUONLAB_MPI_AT_EXIT is "skip": an exit now is a rank ending in the middle of a job
// (muon_mpirun sets it while the rank's function runs), not the job's normal end.
static int exit_skips_finalize (void)
{
  const char *v = getenv ("MUONLAB_MPI_AT_EXIT");
  return v != NULL && strcmp (v, "skip") == 0;
}

#ifdef MUON_HAVE_MPI
// Ends MPI once the process's exit status is known (on_exit: after Octave's shutdown, so
// after at_exit below).  Status 0 is the job's normal end: the communicator goes and MPI is
// finalized (every rank does, so MPI_Finalize's synchronization completes).  Any other
// status (an uncaught error, exit (n), a Ctrl-C or SIGTERM Octave caught) may leave the other
// ranks waiting in a collective this rank will never join, where MPI_Finalize would wait for
// them for ever: MPI_Abort ends the job instead, as mpirun does when a rank is killed.
static void end_mpi (int status, void *arg)
{
  (void) arg;
  int init = 0, fin = 0;
  MPI_Initialized (&init);
  MPI_Finalized (&fin);
  if (status != 0 && init && !fin)
  {
    fflush (stdout);
    fprintf (stderr, "muonlab: this rank exits with status %d while MPI is live: aborting "
             "the job, whose other ranks may be waiting for it in a collective.\n", status);
    fflush (stderr);
    MPI_Abort (MPI_COMM_WORLD, status);
  }
  muon_comm_destroy (&mpi_comm);        // skips MPI_Comm_free once MPI is finalized
  if (init && !fin)                     // the first MEX file to end finalizes
    MPI_Finalize ();
}
#endif

// Exit hook of a MEX file holding MPI state (muon_mex_at_exit): runs when Octave exits (the
// file is locked, so not on `clear`), before muon_mex.c frees the context, which the nccl
// communicator's plug-in goes with.  With MPI live, ending it waits for the exit status
// (end_mpi).  With MUONLAB_MPI_AT_EXIT=skip and MPI live (muon_mpirun, which tells a failed
// rank by its missing result), MPI and the communicators are left alone and the process
// ends unfinalized with its own exit status, which makes the launcher end every rank.
static void at_exit (void)
{
#ifdef MUON_HAVE_MPI
  int live = 0, gone = 0;
  MPI_Initialized (&live);
  MPI_Finalized (&gone);
  if (live && !gone && exit_skips_finalize ())
    return;
  muon_comm_destroy (&nccl_comm);
  if (live && !gone && on_exit (end_mpi, NULL) == 0)
    return;
  end_mpi (0, NULL);
#else
  muon_comm_destroy (&nccl_comm);
  muon_comm_destroy (&mpi_comm);
#endif
}

// Locks this MEX file and hooks at_exit to its unloading.
static void hold (void)
{
  if (!locked)
  {
#ifdef MUON_HAVE_MPI
    Dl_info self;                       // end_mpi runs after Octave has unloaded this file
    if (dladdr ((void *) &end_mpi, &self) && self.dli_fname)
      dlopen (self.dli_fname, RTLD_NOW | RTLD_NODELETE | RTLD_NOLOAD);
#endif
    mexLock ();
    locked = 1;
    muon_mex_at_exit (at_exit);
  }
}

#ifdef MUON_HAVE_MPI
// Open MPI's plugins resolve libmpi's symbols globally; a MEX file is opened with
// RTLD_LOCAL, so promote the libmpi this file was linked against to RTLD_GLOBAL first.
static void promote_libmpi (void)
{
  Dl_info info;
  if (dladdr ((void *) &MPI_Init_thread, &info) && info.dli_fname)
    dlopen (info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}

static void mpi_start (const char *fname)
{
  int init = 0, fin = 0;
  MPI_Initialized (&init);
  MPI_Finalized (&fin);
  if (fin)
    muon_mex_error (fname, "mpi", "MPI is already finalized in this process (restart "
                    "Octave to use MPI again).");
  if (!init)
  {
    promote_libmpi ();
    int provided = 0, rc = MPI_Init_thread (NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS)
      muon_mex_error (fname, "mpi", "MPI_Init_thread failed (error %d).", rc);
  }
  hold ();
}
#endif

void muon_mex_comm_abort (const char *fname, const char *msg)
{
#ifdef MUON_HAVE_MPI
  int fin = 0;
  MPI_Finalized (&fin);
  if (fin)
    muon_mex_error (fname, "mpi", "cannot abort: MPI is already finalized.");
  mpi_start (fname);
  fprintf (stderr, "%s\n", msg);
  fflush (stderr);
  fflush (stdout);
  MPI_Abort (MPI_COMM_WORLD, 1);
#endif
  muon_mex_error (fname, "notBuilt", "cannot abort: muonlab was built without MPI.");
}

muon_comm *muon_mex_comm_process (const char *fname, muon_comm_kind kind, int lib)
{
  muon_ctx *ctx = muon_mex_ctx ();
  int nccl = kind == MUON_COMM_NCCL;
#ifdef MUON_HAVE_MPI
  mpi_start (fname);
  if (mpi_comm == NULL)                 // also NCCL's bootstrap (made in the fixed order)
    muon_mex_check (fname, muon_comm_mpi_create (ctx, 0, &mpi_comm));
  muon_comm *boot = mpi_comm;
#else
  muon_comm *boot = NULL;
  if (!nccl)
  {
    muon_comm *c = NULL;
    muon_mex_check (fname, muon_comm_mpi_create (ctx, lib, &c));   // NOTBUILT
    return c;
  }
  hold ();
#endif
  muon_comm **c = nccl ? &nccl_comm : &mpi_comm;
  if (*c == NULL)                       // (its bootstrap's reduction: the fixed one)
  {
    if (boot != NULL)
      muon_mex_check (fname, muon_comm_set_reduction (ctx, boot, MUON_COMM_REDUCTION_FIXED));
    muon_mex_check (fname, muon_comm_nccl_create (ctx, boot, 0, c));
  }
  muon_mex_check (fname, muon_comm_set_reduction (ctx, *c, lib ? MUON_COMM_REDUCTION_LIBRARY
                                                           : MUON_COMM_REDUCTION_FIXED));
  return *c;
}
