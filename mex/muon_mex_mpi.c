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

static muon_comm *mpi_comm[2], *nccl_comm[2];   // per process, [library reduction]
static int locked;

int muon_mex_comm_have_mpi (void)
{
#ifdef MUON_HAVE_MPI
  return 1;
#else
  return 0;
#endif
}

int muon_mex_comm_library (const muon_comm *c)
{
  return c != NULL && (c == mpi_comm[1] || c == nccl_comm[1]);
}

// 1 when MUONLAB_MPI_AT_EXIT is "skip": an exit now is a rank ending in the middle of a job
// (muon_mpirun sets it while the rank's function runs), not the job's normal end.
static int exit_skips_finalize (void)
{
  const char *v = getenv ("MUONLAB_MPI_AT_EXIT");
  return v != NULL && strcmp (v, "skip") == 0;
}

// Exit hook of a MEX file holding MPI state (muon_mex_at_exit): runs when Octave exits (the
// file is locked, so not on `clear`), before muon_mex.c frees the context.  A normal end
// finalizes MPI (every rank does, so MPI_Finalize's synchronization completes).  With
// MUONLAB_MPI_AT_EXIT=skip and MPI live, the other ranks may be waiting in a collective that
// this rank will never join: MPI_Finalize (and freeing a communicator) would then wait for
// them forever, so MPI and the communicators are left alone and the process ends unfinalized
// with its own exit status, which makes the launcher end every rank of the job.
static void at_exit (void)
{
#ifdef MUON_HAVE_MPI
  int live = 0, gone = 0;
  MPI_Initialized (&live);
  MPI_Finalized (&gone);
  if (live && !gone && exit_skips_finalize ())
    return;
#endif
  for (int k = 0; k < 2; k++)
    muon_comm_destroy (&nccl_comm[k]);
  for (int k = 0; k < 2; k++)
    muon_comm_destroy (&mpi_comm[k]);   // skips MPI_Comm_free once MPI is finalized
#ifdef MUON_HAVE_MPI
  int init = 0, fin = 0;
  MPI_Initialized (&init);
  MPI_Finalized (&fin);
  if (init && !fin)                     // the first MEX file to exit finalizes
    MPI_Finalize ();
#endif
}

// Locks this MEX file and hooks at_exit to its unloading.
static void hold (void)
{
  if (!locked)
  {
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
  if (mpi_comm[nccl ? 0 : lib] == NULL)   // NCCL's bootstrap is the fixed-order one
    muon_mex_check (fname, muon_comm_mpi_create (ctx, nccl ? 0 : lib,
                                                 &mpi_comm[nccl ? 0 : lib]));
  muon_comm *boot = mpi_comm[0];
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
  if (!nccl)
    return mpi_comm[lib];
  if (nccl_comm[lib] == NULL)
    muon_mex_check (fname, muon_comm_nccl_create (ctx, boot, lib, &nccl_comm[lib]));
  return nccl_comm[lib];
}
