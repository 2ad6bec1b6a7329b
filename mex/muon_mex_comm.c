/* muon_mex_comm.c - communicators for the gateways and the MPI life cycle of the MEX files
 * that use MPI (see muon_mex_comm.h).  Built with -DMUON_HAVE_MPI and mpicc's flags when MPI
 * is found; without it, 'mpi' raises muonlab:notBuilt (the core stub's message) and 'nccl'
 * runs one rank with no bootstrap.
 */
#define _GNU_SOURCE
#include <ctype.h>
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

//---- life cycle ---------------------------------------------------------------------------

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

//---- the spec -----------------------------------------------------------------------------

static void get_string (const char *fname, const mxArray *a, const char *what, char *buf,
                        size_t len)
{
  if (!mxIsChar (a) || mxGetM (a) > 1 || mxGetString (a, buf, len) != 0)
    muon_mex_error (fname, "badArg", "%s must be a short string.", what);
  for (char *p = buf; *p; p++)
    *p = (char) tolower ((unsigned char) *p);
}

// A struct field as an integer (-1 when missing).
static int get_int (const char *fname, const mxArray *s, const char *field, int hi)
{
  const mxArray *f = mxGetField (s, 0, field);
  if (f == NULL)
    return -1;
  double v = mxIsNumeric (f) && mxGetNumberOfElements (f) == 1 ? mxGetScalar (f) : -1;
  if (!(v >= 0 && v <= hi && v == (double) (int) v))
    muon_mex_error (fname, "badArg", "COMM.%s must be an integer in 0..%d.", field, hi);
  return (int) v;
}

static muon_comm *singleton (const char *fname, int nccl, int lib)
{
  muon_ctx *ctx = muon_mex_ctx ();
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

muon_comm *muon_mex_comm_get (const char *fname, const mxArray *spec, int default_world,
                              int *owned)
{
  char kind[16] = "sim", red[16] = "fixed";
  int size = -1, rank = -1;
  *owned = 0;
  if (spec == NULL || (mxIsEmpty (spec) && !mxIsStruct (spec) && !mxIsCell (spec)))
    ;
  else if (mxIsChar (spec))
    get_string (fname, spec, "COMM", kind, sizeof kind);
  else if (mxIsStruct (spec) && mxGetNumberOfElements (spec) == 1)
  {
    const mxArray *f = mxGetField (spec, 0, "kind");
    if (f == NULL)
      muon_mex_error (fname, "badArg", "COMM must have a field 'kind' (make it with "
                      "muon_comm).");
    get_string (fname, f, "COMM.kind", kind, sizeof kind);
    if ((f = mxGetField (spec, 0, "reduction")) != NULL)
      get_string (fname, f, "COMM.reduction", red, sizeof red);
    size = get_int (fname, spec, "size", MUON_COMM_MAX_WORLD);
    rank = get_int (fname, spec, "rank", MUON_COMM_MAX_WORLD);
  }
  else
  {
    char kinds[96];
    muon_mex_error (fname, "badArg", "COMM must be %s, or a struct from muon_comm.",
                    muon_mex_list_text (MUON_LIST_COMM_KIND, 1, kinds, sizeof kinds));
  }

  // the kind and the reduction, by the core's lists (the kind's own name also stands for
  // the library reduction)
  muon_comm *c = NULL;
  muon_ctx *ctx = muon_mex_ctx ();
  int k = -1, r = -1;
  if (muon_name_lookup (MUON_LIST_COMM_KIND, kind, &k) != MUON_OK)
    k = -1;
  if (muon_name_lookup (MUON_LIST_COMM_REDUCTION, red, &r) != MUON_OK)
    r = k >= 0 && strcmp (red, kind) == 0 ? MUON_COMM_REDUCTION_LIBRARY : -1;
  const char *fixed = muon_comm_reduction_name (MUON_COMM_REDUCTION_FIXED);
  if (k == MUON_COMM_SELF || k == MUON_COMM_SIM)
  {
    if (r != MUON_COMM_REDUCTION_FIXED)
      muon_mex_error (fname, "badArg", "a %s communicator has only the '%s' reduction.",
                      kind, fixed);
    int W = k == MUON_COMM_SELF ? 1 : size >= 0 ? size : default_world;
    if (k == MUON_COMM_SELF && size > 1)
      muon_mex_error (fname, "badArg", "a self communicator has size 1, not %d.", size);
    if (W < 1 || W > MUON_COMM_MAX_WORLD)
      muon_mex_error (fname, "badArg", "the world size must be an integer in 1..%d.",
                      MUON_COMM_MAX_WORLD);
    muon_mex_check (fname, k == MUON_COMM_SELF ? muon_comm_self_create (ctx, &c)
                                               : muon_comm_sim_create (ctx, W, &c));
    *owned = 1;
    return c;
  }
  if (k < 0)
    muon_mex_error (fname, "badArg", "unknown %s '%s'.", muon_list_what (MUON_LIST_COMM_KIND),
                    kind);
  if (r < 0)
    muon_mex_error (fname, "badArg", "the reduction of a%s %s communicator must be '%s' or "
                    "'%s'.", k == MUON_COMM_MPI ? "n" : "", kind, fixed, kind);
  c = singleton (fname, k == MUON_COMM_NCCL, r == MUON_COMM_REDUCTION_LIBRARY);
  if (size >= 0 && size != muon_comm_size (c))
    muon_mex_error (fname, "mpi", "COMM was made for %d ranks, but this process's %s world "
                    "has %d.", size, kind, muon_comm_size (c));
  if (rank >= 0 && rank != muon_comm_rank (c, 0))
    muon_mex_error (fname, "mpi", "COMM was made for rank %d, but this process is rank %d.",
                    rank, muon_comm_rank (c, 0));
  return c;
}

mxArray *muon_mex_comm_info (const muon_comm *c)
{
  static const char *names[] = { "kind", "size", "rank", "local_ranks", "counts",
                                 "reduction" };
  mxArray *s = mxCreateStructMatrix (1, 1, 6, names);
  const char *red = c == mpi_comm[1] || c == nccl_comm[1]   // the library's: the kind's name
                    ? muon_comm_name (c) : muon_comm_reduction_name (MUON_COMM_REDUCTION_FIXED);
  mxSetField (s, 0, "kind", mxCreateString (muon_comm_name (c)));
  mxSetField (s, 0, "size", mxCreateDoubleScalar (muon_comm_size (c)));
  mxSetField (s, 0, "rank", mxCreateDoubleScalar (muon_comm_rank (c, 0)));
  mxSetField (s, 0, "local_ranks", mxCreateDoubleScalar (muon_comm_local_ranks (c)));
  mxSetField (s, 0, "counts", mxCreateString (muon_comm_counts_measured (c) ? "measured"
                                                                          : "modelled"));
  mxSetField (s, 0, "reduction", mxCreateString (red));
  return s;
}
