/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: OUT = __muon_gpu__ (CMD, ...), CMD: upload fill convert gather check free ns update adamw ew sumsq page_sumsq last_ms trim reset count copy_time zero_step claim mark drop"
/* __muon_gpu__ - gateway of muon_gpu.m, muon_gpuarray.m and the device-array paths of
 * muon_ns / muon_update: device arrays (muon_math.h, core/math/darray.c) held in this MEX
 * file's table and known to Octave by a handle H = [SESSION ID] (muon_mex_handle.h).
 *   H = ('upload', X, DEVICE, STORAGE)        X real double / single, 2-D or 3-D
 *   H = ('fill', FILL, DIMS, DEVICE, STORAGE, SEED)   FILL 'zeros' | 'randn', DIMS [m n e]
 *   H = ('convert', H, STORAGE)               a new array of H's device and shape in
 *                                              class STORAGE, converted on the device
 *   X = ('gather', H)                          double for double storage, else single
 *   ('check', H)                               muonlab:staleHandle for a stale handle
 *   ('free', H)                                a stale handle is ignored
 *   [H, MS] = ('ns', H, OPTS)                  OPTS as muon_ns.m builds it; MS: device ms
 *   [HU, HM, MS] = ('update', HG, HM, OPTS, EXPERTS)   HM [] for zero momentum; a new
 *                                              momentum array (the given one is unchanged)
 *   [HP, HM, HV] = ('adamw', HP, HG, HM, HV, COEF)   one AdamW step (muon_darray_adamw) on
 *                                              new copies of P, M and V; COEF 1 x 7
 *   H = ('ew', OP, HX, Y, A)                  a new array X op Y (OP 'add' | 'sub', Y a
 *                                              handle), X op A ('mul' | 'div', A a real
 *                                              scalar; Y []) or fma (A, X, Y) ('fma', Y a
 *                                              handle, A a real scalar), muon_darray_ew
 *   [S, FINITE] = ('sumsq', HX, HY)            fp64 sum of squares of X, or of X - Y (HY
 *                                              a handle, else []), muon_darray_sumsq
 *   [S, FINITE] = ('page_sumsq', HX, FNAME)    the same of each page of X: E x 1 doubles;
 *                                              errors name FNAME (default muon_gpu)
 *   MS = ('last_ms', DEVICE)   [IN_USE, CACHED] = ('trim', DEVICE)
 *   ('reset')   frees every array (their handles go stale) and the CUDA pool's blocks
 *   N = ('count')                              arrays held
 *   [H2D, D2H] = ('copy_time', DEVICE, BYTES)  the copy floor in ms (pinned, CUDA events)
 *   [UPD, MOM, STATS, INFO] = ('zero_step', ...)   zero_muon_step on device arrays
 *                                              (mex/muon_mex_zero_dev.c)
 *   H = ('claim', H, SIZE, STORAGE, DEVICE)    muon_gpuarray's constructor: H's array
 *                                              must have that shape, class and device and
 *                                              no device array yet; it is marked as held
 *   MARK = ('mark')   N = ('drop', MARK)       the id the next array gets; then freeing
 *                                              the arrays made from MARK on that no
 *                                              device array holds (an error or Ctrl-C
 *                                              between a call and its wrap), N of them
 */
#include <math.h>
#include <stdio.h>

#include "muon_mex_handle.h"
#include "muon_mex_zero.h"

static void free_darray (void *obj)
{
  muon_darray *a = obj;
  muon_darray_destroy (muon_mex_ctx (), &a);
}

static const muon_mex_handle_kind device_arrays = {
  "a device array", "(cleared by clear functions or muon_gpu (\"reset\")); make it again",
  free_darray, "that was deleted; make it again"
};

#define COMMANDS(X)                                                                     \
  X (CMD_UPLOAD, "upload", 4, 4, 1) X (CMD_FILL, "fill", 6, 6, 1)                       \
  X (CMD_CONVERT, "convert", 3, 3, 1)                                                   \
  X (CMD_GATHER, "gather", 2, 2, 1) X (CMD_CHECK, "check", 2, 2, 0)                     \
  X (CMD_FREE, "free", 2, 2, 0)                                                         \
  X (CMD_NS, "ns", 3, 3, 2) X (CMD_UPDATE, "update", 5, 5, 3)                           \
  X (CMD_ADAMW, "adamw", 6, 6, 3) X (CMD_EW, "ew", 5, 5, 1)                            \
  X (CMD_SUMSQ, "sumsq", 3, 3, 2) X (CMD_PAGE_SUMSQ, "page_sumsq", 2, 3, 2)             \
  X (CMD_LAST_MS, "last_ms", 2, 2, 1)                                                   \
  X (CMD_TRIM, "trim", 2, 2, 2)                                                         \
  X (CMD_RESET, "reset", 1, 1, 0) X (CMD_COUNT, "count", 1, 1, 1)                       \
  X (CMD_COPY_TIME, "copy_time", 3, 3, 2) X (CMD_ZERO_STEP, "zero_step", 8, 8, 4)        \
  X (CMD_CLAIM, "claim", 5, 5, 1) X (CMD_MARK, "mark", 1, 1, 1) X (CMD_DROP, "drop", 2, 2, 1)
#define CMD_ENUM(e, name, lo, hi, outs) e,
#define CMD_NAME(e, name, lo, hi, outs) name,
#define CMD_FORM(e, name, lo, hi, outs) { lo, hi, outs },
enum { COMMANDS (CMD_ENUM) CMD_END };
static const char *const commands[] = { COMMANDS (CMD_NAME) };
static const struct { int lo, hi, outs; } forms[] = { COMMANDS (CMD_FORM) };

// A name of a core list, else "<what> must be ..." (muonlab:badArg).
static int list_arg (const char *fname, const char *what, const mxArray *a, muon_list list)
{
  char name[32] = "", names[256];
  int v = -1;
  if (!mxIsChar (a) || mxGetString (a, name, sizeof name)
      || muon_name_lookup (list, name, &v) != MUON_OK)
    muon_mex_error (fname, "badArg", "%s must be %s.", what,
                    muon_mex_list_text (list, 0, names, sizeof names));
  return v;
}

// A new array like a (device, storage, shape); on an error the arrays *k1 and *k2 made
// earlier in the call (NULL for none) are freed before it is raised.
static muon_darray *like (const char *fname, const muon_darray *a, muon_darray **k1,
                          muon_darray **k2)
{
  muon_darray_info i;
  muon_darray *b = NULL;
  muon_darray_describe (a, &i);
  muon_status s = muon_darray_create (muon_mex_ctx (), i.device, i.storage, i.rows, i.cols,
                                      i.batch, &b);
  if (s < 0)
  {
    char msg[512];
    snprintf (msg, sizeof msg, "%s", muon_ctx_last_error (muon_mex_ctx ()));
    muon_darray_destroy (muon_mex_ctx (), k1);
    muon_darray_destroy (muon_mex_ctx (), k2);
    muon_mex_error (fname, muon_status_id (s), "%s.", msg);
  }
  return b;
}

// Runs a core call on fresh arrays: on an error they are freed before it is raised.
static void check_or_free (const char *fname, muon_status s, muon_darray **a, muon_darray **b)
{
  if (s >= 0)
    return;
  char msg[512];
  snprintf (msg, sizeof msg, "%s", muon_ctx_last_error (muon_mex_ctx ()));
  muon_darray_destroy (muon_mex_ctx (), a);
  muon_darray_destroy (muon_mex_ctx (), b);
  muon_mex_error (fname, muon_status_id (s), "%s.", msg);
}

// A gradient with NaN or Inf is rejected, as host arrays are (muon_mex_check_finite), but
// without a pass of its own: such a G always leaves a non-finite result (the normalization
// divides by a non-finite norm), so G is read only when the core warned
// (MUON_WARN_NONFINITE), which a finite G may cause too (a poisoned momentum, fp16 without
// NormalizeFirst) and then keeps its result with the host's warning
// (muon_mex_warn_result).  On a rejection the fresh arrays *a and *b are freed first.
static void reject_nonfinite (const char *fname, muon_status s, const muon_darray *g,
                              muon_darray **a, muon_darray **b)
{
  int finite = 1;
  double sum = 0;
  char msg[256] = "";
  if (s == MUON_WARN_NONFINITE)
  {
    snprintf (msg, sizeof msg, "%s", muon_ctx_last_error (muon_mex_ctx ()));
    check_or_free (fname, muon_darray_sumsq (muon_mex_ctx (), g, NULL, &sum, &finite), a, b);
  }
  if (finite)
  {
    if (s == MUON_WARN_NONFINITE)                  // a finite G: warned as on the host
      muon_ctx_set_error (muon_mex_ctx (), s, "%s", msg);
    if (muon_mex_warn_result (fname, s))          // made an error: a and b go first
    {
      muon_darray_destroy (muon_mex_ctx (), a);
      muon_darray_destroy (muon_mex_ctx (), b);
      muon_mex_warn_raise ();
    }
    return;
  }
  muon_darray_destroy (muon_mex_ctx (), a);
  muon_darray_destroy (muon_mex_ctx (), b);
  muon_mex_error (fname, "nonFinite", "G must not contain NaN or Inf.");
}

// The device time of the last op on g's device, in ms (NaN when not measured).
static mxArray *device_ms (const muon_darray *g)
{
  double ms = NAN;
  muon_darray_info i;
  muon_darray_describe (g, &i);
  muon_darray_last_ms (muon_mex_ctx (), i.device, &ms);
  return mxCreateDoubleScalar (ms);
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  muon_mex_handle_init (&device_arrays);
  char cmd[16] = "", caller[256];
  int which = -1;
  if (nrhs >= 1 && mxIsChar (prhs[0]) && !mxGetString (prhs[0], cmd, sizeof cmd))
    which = muon_mex_choose (cmd, commands, CMD_END);
  if (which < 0 || nrhs < forms[which].lo || nrhs > forms[which].hi
      || nlhs > (forms[which].outs ? forms[which].outs : 1))
    muon_mex_error ("muon_gpu", "badArg", "%s.", USAGE);
  if (which == CMD_ZERO_STEP)
  {
    muon_mex_zero_device (nlhs, plhs, nrhs, prhs);
    return;
  }
  muon_ctx *ctx = muon_mex_ctx ();
  muon_darray *a = NULL, *b = NULL;
  mxArray *out[3] = { NULL };
  int nout = forms[which].outs;
  switch (which)
  {
  case CMD_UPLOAD:
  {
    muon_tensor X = muon_mex_tensor ("muon_gpu", "X", prhs[1]);
    muon_mex_check_finite ("muon_gpu", "X", prhs[1]);
    int dev = list_arg ("muon_gpu", "DEVICE", prhs[2], MUON_LIST_DEVICE);
    int st = list_arg ("muon_gpu", "CLASS", prhs[3], MUON_LIST_PRECISION);
    muon_mex_check ("muon_gpu", muon_darray_create (ctx, dev, st, X.rows, X.cols, X.batch,
                                                    &a));
    check_or_free ("muon_gpu", muon_darray_upload (ctx, a, &X), &a, NULL);
    out[0] = muon_mex_handle_new ("muon_gpu", a);
    break;
  }
  case CMD_FILL:
  {
    int fill = list_arg ("muon_gpu", "FILL", prhs[1], MUON_LIST_FILL);
    size_t nd = mxGetNumberOfElements (prhs[2]);
    if (!muon_mex_is_real_double (prhs[2]) || nd < 1 || nd > 3)
      muon_mex_error ("muon_gpu", "badShape", "SIZE must be [M N] or [M N E].");
    size_t d[3] = { 1, 1, 1 };
    for (size_t k = 0; k < nd; k++)
      d[k] = muon_mex_size ("muon_gpu", "SIZE", mxGetPr (prhs[2])[k]);
    int dev = list_arg ("muon_gpu", "DEVICE", prhs[3], MUON_LIST_DEVICE);
    int st = list_arg ("muon_gpu", "CLASS", prhs[4], MUON_LIST_PRECISION);
    double seed = mxIsDouble (prhs[5]) ? muon_mex_scalar (prhs[5]) : -1;
    if (!(seed >= 0 && seed <= 9007199254740992.0 && seed == (double) (uint64_t) seed))
      muon_mex_error ("muon_gpu", "badArg", "SEED must be an integer in 0..2^53.");
    muon_mex_check ("muon_gpu", muon_darray_create (ctx, dev, st, d[0], d[1], d[2], &a));
    check_or_free ("muon_gpu", muon_darray_fill (ctx, a, fill, (uint64_t) seed), &a, NULL);
    out[0] = muon_mex_handle_new ("muon_gpu", a);
    break;
  }
  case CMD_CONVERT:
  {
    const muon_darray *x = muon_mex_handle_get ("muon_gpu", "X", prhs[1]);
    int st = list_arg ("muon_gpu", "CLASS", prhs[2], MUON_LIST_PRECISION);
    muon_darray_info i;
    muon_darray_describe (x, &i);
    muon_mex_check ("muon_gpu", muon_darray_create (ctx, i.device, st, i.rows, i.cols,
                                                    i.batch, &a));
    check_or_free ("muon_gpu", muon_darray_copy (ctx, x, a), &a, NULL);
    out[0] = muon_mex_handle_new ("muon_gpu", a);
    break;
  }
  case CMD_GATHER:
  {
    const muon_darray *g = muon_mex_handle_get ("gather", "D", prhs[1]);
    muon_darray_info i;
    muon_darray_describe (g, &i);
    mwSize dims[3] = { i.rows, i.cols, i.batch };
    out[0] = muon_mex_new_array ("gather", 3, dims, i.storage == MUON_PREC_DOUBLE ? mxDOUBLE_CLASS
                                 : mxSINGLE_CLASS);
    muon_tensor t = muon_tensor_batch (i.storage == MUON_PREC_DOUBLE ? MUON_F64 : MUON_F32,
                                       mxGetData (out[0]), i.rows, i.cols, i.batch);
    muon_status s = muon_darray_download (ctx, g, &t);
    if (s < 0)
      mxDestroyArray (out[0]);
    muon_mex_check ("gather", s);
    break;
  }
  case CMD_CHECK:
    muon_mex_handle_get ("muon_gpu", "D", prhs[1]);
    break;
  case CMD_FREE:
    muon_mex_handle_free (prhs[1]);
    break;
  case CMD_NS:
  {
    const char *fname = muon_mex_caller (prhs[2], "muon_ns", caller, sizeof caller);
    const muon_darray *g = muon_mex_handle_get (fname, "G", prhs[1]);
    muon_ns_opts o;
    muon_mex_ns_opts (fname, prhs[2], &o);
    a = like (fname, g, NULL, NULL);
    muon_status s = muon_darray_ns (ctx, g, a, &o);
    check_or_free (fname, s, &a, NULL);
    reject_nonfinite (fname, s, g, &a, NULL);
    out[0] = muon_mex_handle_new (fname, a);
    out[1] = device_ms (g);
    break;
  }
  case CMD_UPDATE:
  {
    const char *fname = muon_mex_caller (prhs[3], "muon_update", caller, sizeof caller);
    const muon_darray *g = muon_mex_handle_get (fname, "G", prhs[1]);
    muon_update_opts o;
    double experts = 1;
    muon_mex_update_opts (fname, prhs[3], &o, &experts);
    experts = mxIsDouble (prhs[4]) ? muon_mex_scalar (prhs[4]) : -1;
    if (!(experts >= 1 && experts == (double) (size_t) experts))
      muon_mex_error (fname, "badArg", "EXPERTS must be a positive integer.");
    if (mxIsEmpty (prhs[2]))                        // zero momentum in G's class
    {
      b = like (fname, g, NULL, NULL);
      check_or_free (fname, muon_darray_fill (ctx, b, MUON_FILL_ZEROS, 0), &b, NULL);
    }
    else                                             // a copy: the caller's M stays as it is
    {
      const muon_darray *m = muon_mex_handle_get (fname, "STATE.momentum", prhs[2]);
      b = like (fname, m, NULL, NULL);
      check_or_free (fname, muon_darray_copy (ctx, m, b), &b, NULL);
    }
    a = like (fname, g, &b, NULL);
    muon_status s = muon_darray_update (ctx, g, b, a, &o, (size_t) experts);
    check_or_free (fname, s, &a, &b);
    reject_nonfinite (fname, s, g, &a, &b);
    out[0] = muon_mex_handle_new (fname, a);
    out[1] = muon_mex_handle_new (fname, b);
    out[2] = device_ms (g);
    break;
  }
  case CMD_ADAMW:
  {
    const char *fname = "muon_step";
    const muon_darray *in[4];
    const char *what[] = { "P", "G", "M", "V" };
    for (int k = 0; k < 4; k++)
      in[k] = muon_mex_handle_get (fname, what[k], prhs[1 + k]);
    if (!muon_mex_is_real_double (prhs[5]) || mxGetNumberOfElements (prhs[5]) != 7)
      muon_mex_error (fname, "badArg", "COEF must be 7 doubles.");
    muon_darray *c = NULL;
    a = like (fname, in[0], NULL, NULL);           // P, M, V: copies, updated in place
    check_or_free (fname, muon_darray_copy (ctx, in[0], a), &a, NULL);
    b = like (fname, in[2], &a, NULL);
    check_or_free (fname, muon_darray_copy (ctx, in[2], b), &a, &b);
    c = like (fname, in[3], &a, &b);
    muon_status s = muon_darray_copy (ctx, in[3], c);
    if (s >= 0)
      s = muon_darray_adamw (ctx, a, in[1], b, c, mxGetPr (prhs[5]));
    if (s < 0)
      muon_darray_destroy (ctx, &c);
    check_or_free (fname, s, &a, &b);
    out[0] = muon_mex_handle_new (fname, a);
    out[1] = muon_mex_handle_new (fname, b);
    out[2] = muon_mex_handle_new (fname, c);
    break;
  }
  case CMD_EW:
  {
    const char *fname = "muon_gpuarray";
    int op = list_arg (fname, "OP", prhs[1], MUON_LIST_EW);
    const muon_darray *x = muon_mex_handle_get (fname, "X", prhs[2]), *y = NULL;
    double s = 0;
    if (op == MUON_EW_ADD || op == MUON_EW_SUB || op == MUON_EW_FMA)
      y = muon_mex_handle_get (fname, "Y", prhs[3]);
    if (op != MUON_EW_ADD && op != MUON_EW_SUB)
    {
      if (!(mxIsDouble (prhs[4]) && !mxIsComplex (prhs[4])
            && mxGetNumberOfElements (prhs[4]) == 1))
        muon_mex_error (fname, "badArg", "A must be a real double scalar.");
      s = mxGetScalar (prhs[4]);
    }
    a = like (fname, x, NULL, NULL);
    check_or_free (fname, muon_darray_ew (ctx, op, x, y, s, a), &a, NULL);
    out[0] = muon_mex_handle_new (fname, a);
    break;
  }
  case CMD_SUMSQ:
  {
    const char *fname = "muon_step";
    const muon_darray *x = muon_mex_handle_get (fname, "X", prhs[1]), *y = NULL;
    if (!mxIsEmpty (prhs[2]))
      y = muon_mex_handle_get (fname, "Y", prhs[2]);
    double sum = 0;
    int finite = 0;
    muon_mex_check (fname, muon_darray_sumsq (ctx, x, y, &sum, &finite));
    out[0] = mxCreateDoubleScalar (sum);
    out[1] = mxCreateLogicalScalar (finite != 0);
    break;
  }
  case CMD_PAGE_SUMSQ:
  {
    const char *fname = nrhs > 2 && mxIsChar (prhs[2])
                        && !mxGetString (prhs[2], caller, sizeof caller) ? caller : "muon_gpu";
    const muon_darray *x = muon_mex_handle_get (fname, "X", prhs[1]);
    muon_darray_info i;
    muon_darray_describe (x, &i);
    out[0] = muon_mex_new_array (fname, 2, (mwSize[]) { i.batch, 1 }, mxDOUBLE_CLASS);
    out[1] = muon_mex_new_array (fname, 2, (mwSize[]) { i.batch, 1 }, mxDOUBLE_CLASS);
    int *finite = mxMalloc (i.batch * sizeof *finite);
    muon_status s = muon_darray_page_sumsq (ctx, x, mxGetPr (out[0]), finite);
    for (size_t k = 0; k < i.batch; k++)
      mxGetPr (out[1])[k] = s == MUON_OK && finite[k] != 0;
    mxFree (finite);
    if (s < 0)
    {
      mxDestroyArray (out[0]);
      mxDestroyArray (out[1]);
    }
    muon_mex_check (fname, s);
    break;
  }
  case CMD_LAST_MS:
  case CMD_TRIM:
  {
    int dev = list_arg ("muon_gpu", "DEVICE", prhs[1], MUON_LIST_DEVICE);
    double ms = NAN;
    size_t in_use = 0, cached = 0;
    if (which == CMD_LAST_MS)
      muon_mex_check ("muon_gpu", muon_darray_last_ms (ctx, dev, &ms));
    else
      muon_mex_check ("muon_gpu", muon_darray_trim (ctx, dev, &in_use, &cached));
    out[0] = mxCreateDoubleScalar (which == CMD_LAST_MS ? ms : (double) in_use);
    out[1] = mxCreateDoubleScalar ((double) cached);
    break;
  }
  case CMD_RESET:
  {
    size_t u, c;
    muon_mex_handle_clear ();
    muon_darray_trim (ctx, MUON_DEVICE_CUDA, &u, &c);   // nothing to give back without CUDA
    break;
  }
  case CMD_COUNT:
    out[0] = mxCreateDoubleScalar ((double) muon_mex_handle_count ());
    break;
  case CMD_CLAIM:
  {
    const char *fname = "muon_gpuarray";
    const char *fix = "make a device array with muon_gpu, e.g. muon_gpu (X)";
    const muon_darray *x = muon_mex_handle_get (fname, "H", prhs[1]);
    if (muon_mex_handle_claimed (prhs[1]))
      muon_mex_error (fname, "badArg", "H is held by a device array already; %s.", fix);
    muon_darray_info i;
    muon_darray_describe (x, &i);
    size_t nd = mxGetNumberOfElements (prhs[2]), d[3] = { 1, 1, 1 };
    int ok = muon_mex_is_real_double (prhs[2]) && (nd == 2 || nd == 3);
    for (size_t k = 0; ok && k < nd; k++)
    {
      double v = mxGetPr (prhs[2])[k];
      ok = v >= 0 && v <= MUON_MEX_MAX_SIZE && v == (double) (size_t) v;
      d[k] = ok ? (size_t) v : 0;
    }
    char st[16] = "", dev[16] = "";
    int vs = -1, vd = -1;
    ok = ok && d[0] == i.rows && d[1] == i.cols && d[2] == i.batch
         && mxIsChar (prhs[3]) && !mxGetString (prhs[3], st, sizeof st)
         && muon_name_lookup (MUON_LIST_PRECISION, st, &vs) == MUON_OK && vs == (int) i.storage
         && mxIsChar (prhs[4]) && !mxGetString (prhs[4], dev, sizeof dev)
         && muon_name_lookup (MUON_LIST_DEVICE, dev, &vd) == MUON_OK && vd == (int) i.device;
    if (!ok)
      muon_mex_error (fname, "badArg",
                      "H holds a %zux%zux%zu %s array on %s, not the SIZE, CLASS and DEVICE given; %s.",
                      i.rows, i.cols, i.batch, muon_names (MUON_LIST_PRECISION, (int) i.storage),
                      muon_names (MUON_LIST_DEVICE, (int) i.device), fix);
    muon_mex_handle_claim (prhs[1]);
    out[0] = muon_mex_copy (fname, prhs[1]);
    break;
  }
  case CMD_MARK:
    out[0] = mxCreateDoubleScalar (muon_mex_handle_mark ());
    break;
  case CMD_DROP:
    out[0] = mxCreateDoubleScalar ((double) muon_mex_handle_drop (muon_mex_scalar (prhs[1])));
    break;
  case CMD_COPY_TIME:
  {
    int dev = list_arg ("muon_gpu", "DEVICE", prhs[1], MUON_LIST_DEVICE);
    double h2d = NAN, d2h = NAN;
    size_t bytes = muon_mex_size ("muon_gpu", "BYTES", muon_mex_scalar (prhs[2]));
    muon_mex_check ("muon_gpu", muon_darray_copy_time (ctx, dev, bytes, &h2d, &d2h));
    out[0] = mxCreateDoubleScalar (h2d);
    out[1] = mxCreateDoubleScalar (d2h);
    break;
  }
  }
  // the handles of update (U, M) and adamw (P, M, V) a caller did not ask for: freed, or
  // their arrays would stay in the table until a reset
  int handles = which == CMD_UPDATE ? 2 : which == CMD_ADAMW ? 3 : 0;
  for (int k = nlhs < 1 ? 1 : nlhs; k < handles; k++)
    muon_mex_handle_free (out[k]);
  muon_mex_outputs (nlhs, plhs, out, nout);
}
