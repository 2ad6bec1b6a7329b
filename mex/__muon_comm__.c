/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: OUT = __muon_comm__ (CMD, ...), CMD: create allreduce reduce_scatter all_gather broadcast barrier all_to_all counters agree abort have_mpi mpi_live check"
/* __muon_comm__ - gateway of muon_comm.m and muon_collective.m: communicators and their
 * collectives on Octave arrays (muon_comm.h; the spec / handle is resolved by
 * muon_mex_comm_get, so sim and self communicators live for one call, mpi and nccl ones for
 * the process).
 *   'create'          SPEC as muon_mex_comm_get takes it -> the handle struct.
 *   COLL              'allreduce' | 'reduce_scatter' (ARG = 'sum' | 'avg'), 'all_gather',
 *                     'broadcast' (ARG = root).  X: a 1 x L cell of double or single arrays,
 *                     one per local rank, of equal class and number of elements (L = local
 *                     ranks), or the array itself when L = 1.  Y in the same form, each
 *                     local rank's shaped from its own X (m x n): allreduce and broadcast
 *                     like X; reduce_scatter rank r's block r (m x n/W when W divides the
 *                     columns n, else a column); all_gather the W blocks side by side
 *                     (m x n W, or a column); all_to_all (no ARG) X's W blocks of
 *                     numel / W elements, block q to rank q, Y shaped like X with block q
 *                     from rank q.  C: this call's counters (muon_mex_comm_counters).
 *   'barrier'         C only.
 *   'counters'        the counters since creation (per collective), zero for sim / self;
 *                     RESET true clears them afterwards.
 *   'agree'           SIG, a real double vector: [RANK INDEX A B], the lowest rank whose SIG
 *                     differs from rank 0's, the first entry (1-based) that does, and that
 *                     entry there (A) and on rank 0 (B); [-1 0 0 0] when every rank passed
 *                     the same (muon_comm_agree).  SIG is extended by one entry, the
 *                     communicator COMM resolves to: 2 K + L, K its kind (0-based in the
 *                     core's comm_kind list), L 1 for the library's reduction (INDEX
 *                     numel (SIG) + 1 when only that differs).  Whether there is anything
 *                     to agree is the resolved communicator's (one whose ranks are all in
 *                     this process returns at once), never the handle's fields; an nccl
 *                     communicator agrees over the process's mpi one.
 *   'abort'           MSG on stderr, then MPI_Abort of every rank.
 *   'have_mpi'        true when this MEX file was built with MPI.
 *   'mpi_live'        true when MPI is initialized and not finalized in this process (by
 *                     any MEX file; it starts nothing): a rank whose COMM cannot be read
 *                     joins the other ranks' agreement on the process's MPI communicator
 *                     (comm_agree.m).
 *   'check'           X's checks for the collective COLL (the fourth argument) on COMM, the
 *                     same errors as the collective, nothing moved: true (muon_collective
 *                     runs them before the ranks agree).
 * Forms: INFO = ('create', SPEC); [Y, C] = (COLL, COMM, X, ARG) (no ARG for all_gather and
 * all_to_all);
 * C = ('barrier', COMM); S = ('counters', COMM[, RESET]); D = ('agree', COMM, SIG);
 * ('abort', MSG); B = ('have_mpi'); B = ('mpi_live'); B = ('check', COMM, X, COLL).
 */
#include <stdlib.h>
#include <string.h>

#include "muon_mex_comm.h"

enum { IN_CMD, IN_COMM, IN_X, IN_ARG };
enum { OUT_Y, OUT_C };

// CMD: a collective of the core's list (its muon_coll value) or one of these commands
// (numbered after the collectives).
#define COMMANDS(X) X (CMD_COUNTERS, "counters") X (CMD_CREATE, "create")               \
                    X (CMD_AGREE, "agree") X (CMD_ABORT, "abort")                       \
                    X (CMD_HAVE_MPI, "have_mpi") X (CMD_MPI_LIVE, "mpi_live")           \
                    X (CMD_CHECK, "check")
#define CMD_ENUM(e, name) e,
#define CMD_NAME(e, name) name,
enum { CMD_BEFORE = MUON_COLL_COUNT - 1, COMMANDS (CMD_ENUM) CMD_END };
static const char *const commands[] = { COMMANDS (CMD_NAME) };

// Each command's form: inputs (CMD included) from lo to hi, outputs at most outs.
static const struct { int lo, hi, outs; } forms[CMD_END] = {
  [MUON_COLL_ALLREDUCE] = { 4, 4, 2 }, [MUON_COLL_REDUCE_SCATTER] = { 4, 4, 2 },
  [MUON_COLL_ALL_GATHER] = { 3, 3, 2 }, [MUON_COLL_BROADCAST] = { 4, 4, 2 },
  [MUON_COLL_BARRIER] = { 2, 2, 1 },    [MUON_COLL_ALL_TO_ALL] = { 3, 3, 2 },
  [CMD_COUNTERS] = { 2, 3, 1 },
  [CMD_CREATE] = { 2, 2, 1 },           [CMD_AGREE] = { 3, 3, 1 },
  [CMD_ABORT] = { 2, 2, 1 },
  [CMD_HAVE_MPI] = { 1, 1, 1 },         [CMD_MPI_LIVE] = { 1, 1, 1 },
  [CMD_CHECK] = { 4, 4, 1 }
};

// Frees what mexFunction made for the call (the counters before it, a communicator it
// owns): before every error raised once the communicator exists, and at the end.
#define FREE_ALL do { free (before); if (owned) muon_comm_destroy (&c); } while (0)

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "muon_collective";   // most commands' user function
  char cmd[32] = "";
  int which = -1;
  if (nrhs < 1 || !mxIsChar (prhs[IN_CMD]) || mxGetString (prhs[IN_CMD], cmd, sizeof cmd))
    muon_mex_error (fname, "badArg", "%s.", USAGE);
  if (muon_name_lookup (MUON_LIST_COLL, cmd, &which) != MUON_OK   // a collective, else
      && (which = muon_mex_choose (cmd, commands, CMD_END - MUON_COLL_COUNT)) >= 0)
    which += MUON_COLL_COUNT;                                   // one of the commands
  if (which < 0 && nrhs >= 2)
    muon_mex_error (fname, "badArg", "unknown command '%s'.", cmd);
  if (which < 0 || nrhs < forms[which].lo || nrhs > forms[which].hi || nlhs > forms[which].outs)
    muon_mex_error (fname, "badArg", "%s.", USAGE);

  // the commands without a communicator, then the arguments that need none
  char msg[2048] = "";
  if (which == CMD_HAVE_MPI)
  {
    plhs[0] = mxCreateLogicalScalar (muon_mex_comm_have_mpi ());
    return;
  }
  if (which == CMD_MPI_LIVE)
  {
    plhs[0] = mxCreateLogicalScalar (muon_mex_comm_mpi_live ());
    return;
  }
  if (which == CMD_ABORT)                 // muon_mpirun's rank driver (a long MSG is cut)
  {
    if (!mxIsChar (prhs[1]))
      muon_mex_error ("muon_mpirun", "badArg", "MSG must be a string.");
    mxGetString (prhs[1], msg, sizeof msg);
    muon_mex_comm_abort ("muon_mpirun", msg);
  }
  muon_coll k = (muon_coll) which;
  int op = MUON_REDUCE_SUM, root = 0, owned = 0;
  if ((k == MUON_COLL_ALLREDUCE || k == MUON_COLL_REDUCE_SCATTER)
      && (!mxIsChar (prhs[IN_ARG]) || mxGetString (prhs[IN_ARG], msg, 16)
          || muon_name_lookup (MUON_LIST_REDUCE_OP, msg, &op) != MUON_OK))
    muon_mex_error (fname, "badArg", "OP must be %s.",
                    muon_mex_list_text (MUON_LIST_REDUCE_OP, 0, msg, sizeof msg));
  if (k == MUON_COLL_BROADCAST)
    root = muon_mex_int (fname, "ROOT", prhs[IN_ARG], 0, MUON_COMM_MAX_WORLD - 1);

  if (which == CMD_AGREE)
  {
    // SIG, then the communicator SPEC names, its kind and reduction (2 kind + library),
    // over the process's one MPI communicator: resolved from the kind and reduction only,
    // so that a rank whose handle was edited (its own checks failed) still joins, and no
    // NCCL communicator is made first (making one is collective: it would pair with the
    // other ranks' agreement)
    const mxArray *x = prhs[IN_X];
    if (!(mxIsDouble (x) && !mxIsComplex (x) && !mxIsSparse (x)))
      muon_mex_error (fname, "badArg", "SIG must be a real double vector.");
    size_t ns = mxGetNumberOfElements (x), index = 0;
    int rank = -1;
    double values[2] = { 0, 0 }, code = 0;
    muon_comm *on = muon_mex_comm_agreement_of (fname, prhs[IN_COMM], &code);
    muon_status st = MUON_OK;
    if (on != NULL)
    {
      double *sig = malloc ((ns + 1) * sizeof *sig);
      if (sig == NULL)
        muon_mex_check (fname, MUON_ERR_NOMEM);
      memcpy (sig, mxGetPr (x), ns * sizeof *sig);
      sig[ns] = code;
      st = muon_comm_agree (muon_mex_ctx (), on, sig, ns + 1, &rank, &index, values);
      free (sig);
    }
    muon_mex_check (fname, st);
    plhs[0] = mxCreateDoubleMatrix (1, 4, mxREAL);
    double *d = mxGetPr (plhs[0]);
    d[0] = rank;
    d[1] = rank < 0 ? 0 : (double) index + 1;
    d[2] = values[0];
    d[3] = values[1];
    return;
  }

  // from here on, what the call made is freed before any error is raised
  muon_ctx *ctx = muon_mex_ctx ();
  muon_comm *c = which == CMD_CHECK
    ? muon_mex_comm_for_checks (fname, prhs[IN_COMM], &owned)
    : muon_mex_comm_get (which == CMD_CREATE ? "muon_comm" : fname, prhs[IN_COMM], 1, &owned);
  int L = muon_comm_local_ranks (c);
  muon_status st = MUON_OK;
  mxArray *out[OUT_C + 1] = { NULL };
  size_t n = 0;
  muon_dtype dtype = MUON_F64;
  // malloc, freed by FREE_ALL: an allocation that raised would leave c behind
  muon_comm_counters *before = calloc ((size_t) L, sizeof *before);
  for (int l = 0; l < L && which < MUON_COLL_COUNT && before != NULL; l++)
    muon_comm_counters_get (ctx, c, l, &before[l]);
  if (before == NULL)
    st = muon_ctx_set_error (ctx, MUON_ERR_NOMEM, "out of memory for the counters of %d ranks",
                             L);
  else if (which == CMD_CREATE)
    out[0] = muon_mex_comm_info (c);
  else if (which == CMD_COUNTERS)
  {
    out[0] = muon_mex_comm_totals (ctx, c, &st);
    if (st >= 0 && nrhs > IN_X && mxIsLogicalScalarTrue (prhs[IN_X]))
      st = muon_comm_counters_reset (ctx, c);
  }
  else if (which == CMD_CHECK)           // X's checks for collective COLL, nothing moved
  {
    int kc = -1;
    if (!mxIsChar (prhs[IN_ARG]) || mxGetString (prhs[IN_ARG], msg, 32)
        || muon_name_lookup (MUON_LIST_COLL, msg, &kc) != MUON_OK)
    {
      FREE_ALL;
      muon_mex_error (fname, "badArg", "COLL must be a collective.");
    }
    st = muon_mex_coll_check (prhs[IN_X], (muon_coll) kc, c, &n, msg, sizeof msg);
    if (st < 0)
    {
      FREE_ALL;
      muon_mex_error (fname, muon_status_id (st), "%s", msg);
    }
    out[0] = mxCreateLogicalScalar (1);
  }
  else if (k == MUON_COLL_BARRIER)
    st = muon_comm_barrier (ctx, c);
  else
  {
    st = muon_mex_coll_check (prhs[IN_X], k, c, &n, msg, sizeof msg);
    if (st < 0)
    {
      FREE_ALL;
      muon_mex_error (fname, muon_status_id (st), "%s", msg);
    }
    st = muon_mex_coll_run (ctx, c, k, prhs[IN_X], n, (muon_reduce_op) op, root, &out[OUT_Y],
                            &n, &dtype);
  }
  if (st >= 0 && which < MUON_COLL_COUNT)
    out[k == MUON_COLL_BARRIER ? 0 : OUT_C] = muon_mex_comm_counters (ctx, c, k, before, n,
                                                                      dtype, root, &st);
  FREE_ALL;
  muon_mex_check (fname, st);
  muon_mex_outputs (nlhs, plhs, out, OUT_C + 1);
}
