#define USAGE "usage: OUT = __muon_comm__ (CMD, ...), CMD: create allreduce reduce_scatter all_gather broadcast barrier all_to_all counters abort"
/* __muon_comm__ - gateway of muon_comm.m and muon_collective.m: communicators and their
 * collectives on Octave arrays (muon_comm.h; the spec / handle is resolved by
 * muon_mex_comm_get, so sim and self communicators live for one call, mpi and nccl ones for
 * the process).
 *   'create'          SPEC as muon_mex_comm_get takes it -> the handle struct.
 *   COLL              'allreduce' | 'reduce_scatter' (ARG = 'sum' | 'avg'), 'all_gather',
 *                     'broadcast' (ARG = root).  X: a 1 x L cell of double or single arrays,
 *                     one per local rank, of equal class and size (L = local ranks), or the
 *                     array itself when L = 1.  Y in the same form: allreduce and broadcast
 *                     like X; reduce_scatter rank r's block r (m x n/W when W divides the
 *                     columns n, else a column); all_gather the W blocks side by side
 *                     (m x n W, or a column); all_to_all (no ARG) X's W blocks of
 *                     numel / W elements, block q to rank q, Y shaped like X with block q
 *                     from rank q.  C: this call's counters.
 *   'barrier'         C only.
 *   'counters'        the counters since creation (per collective), zero for sim / self;
 *                     RESET true clears them afterwards.
 *   'abort'           MSG on stderr, then MPI_Abort of every rank.
 *   'have_mpi'        true when this MEX file was built with MPI.
 * Forms: INFO = ('create', SPEC); [Y, C] = (COLL, COMM, X, ARG) (no ARG for all_gather);
 * C = ('barrier', COMM); S = ('counters', COMM, RESET); ('abort', MSG); B = ('have_mpi').
 */
#include <string.h>

#include "muon_mex_comm.h"

enum { IN_CMD, IN_COMM, IN_X, IN_ARG };
enum { OUT_Y, OUT_C };

// CMD: a collective of the core's list (its muon_coll value) or one of these commands
// (numbered after the collectives; CMD_COUNTERS is MUON_COLL_COUNT).
#define COMMANDS(X) X (CMD_COUNTERS, "counters") X (CMD_CREATE, "create")               \
                    X (CMD_ABORT, "abort") X (CMD_HAVE_MPI, "have_mpi")
#define CMD_ENUM(e, name) e,
#define CMD_NAME(e, name) name,
enum { CMD_BEFORE = MUON_COLL_COUNT - 1, COMMANDS (CMD_ENUM) CMD_END };
static const char *const commands[] = { COMMANDS (CMD_NAME) };

static int command (const char *cmd)
{
  int k = -1;
  if (muon_name_lookup (MUON_LIST_COLL, cmd, &k) == MUON_OK)
    return k;
  k = muon_mex_choose (cmd, commands, CMD_END - MUON_COLL_COUNT);
  return k < 0 ? -1 : MUON_COLL_COUNT + k;
}

// the user function behind most commands; 'create' is muon_comm's, 'abort' muon_mpirun's
static const char *fname = "muon_collective";

static double *column (mxArray **a, size_t n)
{
  *a = mxCreateDoubleMatrix (n, 1, mxREAL);
  return mxGetPr (*a);
}

// C: this call's calls / bytes per local rank, and the byte model for the same call.  Sets
// *st (never raises: the caller may hold a communicator made for the call).
static mxArray *call_counters (muon_ctx *ctx, const muon_comm *c, muon_coll k,
                               const muon_comm_counters *before, size_t count, muon_dtype dt,
                               int root, muon_status *st)
{
  static const char *names[] = { "coll", "counts", "calls", "sent", "recv", "model_sent",
                                 "model_recv" };
  int L = muon_comm_local_ranks (c);
  mxArray *s = mxCreateStructMatrix (1, 1, 7, names), *a[5];
  double *v[5];
  for (int j = 0; j < 5; j++)
    v[j] = column (&a[j], (size_t) L);
  *st = MUON_OK;
  for (int l = 0; l < L && *st >= 0; l++)
  {
    muon_comm_counters now;
    uint64_t ms = 0, mr = 0;
    *st = muon_comm_counters_get (ctx, c, l, &now);
    if (*st >= 0)
      *st = muon_comm_model_bytes (ctx, k, muon_comm_size (c), muon_comm_rank (c, l), root,
                                   count, dt, &ms, &mr);
    if (*st < 0)
      break;
    v[0][l] = (double) (now.calls[k] - before[l].calls[k]);
    v[1][l] = (double) (now.bytes_sent[k] - before[l].bytes_sent[k]);
    v[2][l] = (double) (now.bytes_recv[k] - before[l].bytes_recv[k]);
    v[3][l] = k == MUON_COLL_BARRIER ? 0 : (double) ms;
    v[4][l] = k == MUON_COLL_BARRIER ? 0 : (double) mr;
  }
  mxSetField (s, 0, "coll", mxCreateString (muon_coll_name (k)));
  mxSetField (s, 0, "counts", mxCreateString (muon_comm_counts_measured (c) ? "measured"
                                                                          : "modelled"));
  for (int j = 0; j < 5; j++)
    mxSetField (s, 0, names[j + 2], a[j]);
  return s;
}

// The counters since creation, per collective; sets *st (never raises, as call_counters).
static mxArray *all_counters (muon_ctx *ctx, const muon_comm *c, muon_status *st)
{
  const char *kinds[MUON_COLL_COUNT], *fields[] = { "calls", "sent", "recv" };
  for (int k = 0; k < MUON_COLL_COUNT; k++)
    kinds[k] = muon_coll_name ((muon_coll) k);
  int L = muon_comm_local_ranks (c);
  mxArray *s = mxCreateStructMatrix (1, 1, MUON_COLL_COUNT, kinds);
  *st = MUON_OK;
  for (int k = 0; k < MUON_COLL_COUNT; k++)
  {
    mxArray *t = mxCreateStructMatrix (1, 1, 3, fields), *a[3];
    double *v[3];
    for (int j = 0; j < 3; j++)
      v[j] = column (&a[j], (size_t) L);
    for (int l = 0; l < L && *st >= 0; l++)
    {
      muon_comm_counters n;
      *st = muon_comm_counters_get (ctx, c, l, &n);
      if (*st < 0)
        break;
      v[0][l] = (double) n.calls[k];
      v[1][l] = (double) n.bytes_sent[k];
      v[2][l] = (double) n.bytes_recv[k];
    }
    for (int j = 0; j < 3; j++)
      mxSetField (t, 0, fields[j], a[j]);
    mxSetField (s, 0, kinds[k], t);
  }
  return s;
}

// Local rank l's input array (a cell of L arrays, or the array when L = 1); NULL with *why
// set when X has the wrong form.
static const mxArray *rank_input (const mxArray *X, int L, int l, const char **why)
{
  const mxArray *a = X;
  *why = NULL;
  if (mxIsCell (X) ? (int) mxGetNumberOfElements (X) != L : L != 1)
    *why = "X must be a 1 x %d cell, one array per local rank.";
  else if (mxIsCell (X))
    a = mxGetCell (X, (mwIndex) l);
  if (*why == NULL && (a == NULL || !(mxIsDouble (a) || mxIsSingle (a)) || mxIsComplex (a)
                       || mxIsSparse (a)))
    *why = "X must hold real full double or single arrays.";
  return *why ? NULL : a;
}

// Raises an error after freeing a communicator made for this call.
#define FAIL(id, ...)                                                                   \
  do {                                                                                  \
    if (owned)                                                                          \
      muon_comm_destroy (&c);                                                           \
    muon_mex_error (fname, id, __VA_ARGS__);                                            \
  } while (0)

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  char cmd[32] = "";
  if (nrhs < 1 || !mxIsChar (prhs[IN_CMD]) || mxGetString (prhs[IN_CMD], cmd, sizeof cmd))
    muon_mex_error (fname, "badArg", "%s", USAGE);
  int which = command (cmd);
  // outputs: Y and C for a collective that moves data, one for the other commands
  int is_coll = which >= 0 && which < MUON_COLL_COUNT && which != MUON_COLL_BARRIER;
  if (nlhs > (is_coll ? OUT_C + 1 : 1))
    muon_mex_error (fname, "badArg", "%s", USAGE);
  if (which == CMD_HAVE_MPI)           // internal: was this MEX file built with MPI
  {
    plhs[0] = mxCreateLogicalScalar (muon_mex_comm_have_mpi ());
    return;
  }
  if (which == CMD_ABORT)              // internal: muon_mpirun's rank driver
  {
    char msg[2048] = "";
    if (nrhs < 2 || !mxIsChar (prhs[1]))
      muon_mex_error ("muon_mpirun", "badArg", "MSG must be a string.");
    mxGetString (prhs[1], msg, sizeof msg);
    muon_mex_comm_abort ("muon_mpirun", msg);
  }
  if (nrhs < 2)
    muon_mex_error (fname, "badArg", "%s", USAGE);
  int owned = 0;
  muon_ctx *ctx = muon_mex_ctx ();
  if (which == CMD_CREATE)
  {
    if (nrhs != 2)
      muon_mex_error (fname, "badArg", "%s", USAGE);
    muon_comm *c = muon_mex_comm_get ("muon_comm", prhs[IN_COMM], 1, &owned);
    plhs[0] = muon_mex_comm_info (c);
    if (owned)
      muon_comm_destroy (&c);
    return;
  }
  if (which < 0 || which > CMD_COUNTERS)
    muon_mex_error (fname, "badArg", "unknown command '%s'.", cmd);
  muon_coll k = (muon_coll) which;     // MUON_COLL_COUNT: the counters
  int need = k == MUON_COLL_BARRIER || k == MUON_COLL_COUNT ? 2
             : k == MUON_COLL_ALL_GATHER || k == MUON_COLL_ALL_TO_ALL ? 3 : 4;
  if (nrhs < need || nrhs > need + (k == MUON_COLL_COUNT))
    muon_mex_error (fname, "badArg", "%s", USAGE);

  // argument checks that need no communicator come first
  muon_reduce_op op = MUON_REDUCE_SUM;
  int root = 0;
  if (k == MUON_COLL_ALLREDUCE || k == MUON_COLL_REDUCE_SCATTER)
  {
    char o[16] = "", ops[64];
    int v = 0;
    if (!mxIsChar (prhs[IN_ARG]) || mxGetString (prhs[IN_ARG], o, sizeof o)
        || muon_name_lookup (MUON_LIST_REDUCE_OP, o, &v) != MUON_OK)
      muon_mex_error (fname, "badArg", "OP must be %s.",
                      muon_mex_list_text (MUON_LIST_REDUCE_OP, 0, ops, sizeof ops));
    op = (muon_reduce_op) v;
  }
  if (k == MUON_COLL_BROADCAST)
  {
    double r = mxIsNumeric (prhs[IN_ARG]) && mxGetNumberOfElements (prhs[IN_ARG]) == 1
               ? mxGetScalar (prhs[IN_ARG]) : -1;
    if (!(r >= 0 && r < MUON_COMM_MAX_WORLD && r == (double) (int) r))
      muon_mex_error (fname, "badArg", "ROOT must be a non-negative integer.");
    root = (int) r;
  }
  muon_comm *c = muon_mex_comm_get (fname, prhs[IN_COMM], 1, &owned);
  int L = muon_comm_local_ranks (c), W = muon_comm_size (c);
  if (k == MUON_COLL_COUNT)
  {
    muon_status st;
    mxArray *S = all_counters (ctx, c, &st);
    if (st >= 0 && nrhs > 2 && mxIsLogicalScalarTrue (prhs[2]))
      st = muon_comm_counters_reset (ctx, c);
    if (owned)
      muon_comm_destroy (&c);
    muon_mex_check (fname, st);
    plhs[0] = S;
    return;
  }
  muon_comm_counters *before = mxCalloc ((size_t) L, sizeof *before);
  for (int l = 0; l < L; l++)
    muon_comm_counters_get (ctx, c, l, &before[l]);
  muon_status st = MUON_OK;
  size_t n = 0;
  muon_dtype dt = MUON_F64;
  if (k == MUON_COLL_BARRIER)
    st = muon_comm_barrier (ctx, c);
  else
  {
    // inputs: checked, then copied (cells may share data; core rejects shared buffers)
    const char *why = NULL;
    const mxArray *X0 = rank_input (prhs[IN_X], L, 0, &why);
    if (X0 == NULL)
      FAIL (why[7] == 'b' ? "badArg" : "badType", why, L);
    mxClassID cls = mxGetClassID (X0);
    n = mxGetNumberOfElements (X0);
    dt = cls == mxSINGLE_CLASS ? MUON_F32 : MUON_F64;
    size_t e = dt == MUON_F32 ? sizeof (float) : sizeof (double), m = mxGetM (X0),
           cols = mxGetNumberOfDimensions (X0) == 2 ? mxGetN (X0) : 0;
    if ((k == MUON_COLL_REDUCE_SCATTER || k == MUON_COLL_ALL_TO_ALL) && n % (size_t) W != 0)
      FAIL ("badShape", "X must have a multiple of %d elements (the world size), not %zu.", W,
            n);
    size_t out_m = n, out_n = 1, count = n;   // output shape and count per collective
    if (k == MUON_COLL_REDUCE_SCATTER)
    {
      count = n / (size_t) W;
      if (cols && cols % (size_t) W == 0) { out_m = m; out_n = cols / (size_t) W; }
      else out_m = count;
    }
    else if (k == MUON_COLL_ALL_GATHER)
    {
      if (cols) { out_m = m; out_n = cols * (size_t) W; }
      else out_m = n * (size_t) W;
    }
    else if (k == MUON_COLL_ALL_TO_ALL)
      count = n / (size_t) W;             // Y shaped like X (a copy of X's shape below)
    int in_place = k == MUON_COLL_ALLREDUCE || k == MUON_COLL_BROADCAST;
    size_t nrecv = k == MUON_COLL_ALL_GATHER ? (size_t) W : 1;
    void **send = mxCalloc ((size_t) L, sizeof *send);
    void **recv = mxCalloc ((size_t) L * nrecv, sizeof *recv);
    mxArray **Y = mxCalloc ((size_t) L, sizeof *Y);
    for (int l = 0; l < L; l++)
    {
      const mxArray *Xl = rank_input (prhs[IN_X], L, l, &why);
      if (Xl == NULL)
        FAIL (why[7] == 'b' ? "badArg" : "badType", why, L);
      if (mxGetClassID (Xl) != cls || mxGetNumberOfElements (Xl) != n)
        FAIL ("badShape", "every rank's X must have the same class and number of elements.");
      if (in_place)                     // the collective runs in place on a copy
        send[l] = mxGetData (Y[l] = muon_mex_copy (Xl));
      else if (k == MUON_COLL_ALL_TO_ALL)
      {
        Y[l] = muon_mex_copy (Xl);
        send[l] = mxMalloc (n * e + 1);
        memcpy (send[l], mxGetData (Xl), n * e);
      }
      else
      {
        Y[l] = mxCreateNumericMatrix (out_m, out_n, cls, mxREAL);
        send[l] = mxMalloc (n * e + 1);
        memcpy (send[l], mxGetData (Xl), n * e);
      }
      for (size_t q = 0; q < nrecv; q++)
        recv[(size_t) l * nrecv + q] = (char *) mxGetData (Y[l]) + q * count * e;
    }
    if (k == MUON_COLL_ALLREDUCE)
      st = muon_comm_allreduce (ctx, c, (const void *const *) send, recv, count, dt, op);
    else if (k == MUON_COLL_REDUCE_SCATTER)
      st = muon_comm_reduce_scatter (ctx, c, (const void *const *) send, recv, count, dt, op);
    else if (k == MUON_COLL_ALL_GATHER)
      st = muon_comm_all_gather (ctx, c, (const void *const *) send, recv, count, dt);
    else if (k == MUON_COLL_ALL_TO_ALL)
    {
      size_t *counts = mxMalloc ((size_t) L * (size_t) W * sizeof *counts);
      for (size_t i = 0; i < (size_t) L * (size_t) W; i++)
        counts[i] = count;
      st = muon_comm_all_to_all (ctx, c, (const void *const *) send, counts, recv, counts, dt);
    }
    else
      st = muon_comm_broadcast (ctx, c, recv, count, dt, root);
    n = count;
    if (st >= 0)
    {
      if (mxIsCell (prhs[IN_X]))
      {
        plhs[OUT_Y] = mxCreateCellMatrix (1, (size_t) L);
        for (int l = 0; l < L; l++)
          mxSetCell (plhs[OUT_Y], (mwIndex) l, Y[l]);
      }
      else
        plhs[OUT_Y] = Y[0];
    }
  }
  mxArray *C = st >= 0 ? call_counters (ctx, c, k, before, n, dt, root, &st) : NULL;
  if (owned)
    muon_comm_destroy (&c);
  muon_mex_check (fname, st);
  if (k == MUON_COLL_BARRIER)
    plhs[0] = C;
  else if (nlhs > 1)
    plhs[OUT_C] = C;
}
