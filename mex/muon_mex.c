/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex.c - shared gateway glue (see muon_mex.h): the context, errors and warnings,
 * tensors and new arrays, scalars and sizes.  The option structs: muon_mex_opts.c. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "muon_mex.h"
#include "quit.h"       // octave_signal_caught, octave_interrupt_state (C linkage)

static muon_ctx *ctx = NULL;
enum { MAX_EXIT_HOOKS = 4 };
static void (*exit_hooks[MAX_EXIT_HOOKS]) (void);
static int nhooks = 0;

// The context's interrupt poll: 1 while a Ctrl-C (SIGINT) is pending, which Octave's signal
// handler records in these two flags (a SIGCHLD or SIGPIPE sets only octave_signal_caught).
// Only read here: octave_handle_signal, which throws a C++ exception, is left to Octave,
// which runs it as the gateway raises its error (so that Octave's interrupt, not a
// catchable muonlab:interrupted, ends the statement, as Ctrl-C ends any Octave code).
static int interrupt_pending (void *arg)
{
  (void) arg;
  return octave_signal_caught != 0 && octave_interrupt_state > 0;
}

// The MEX file's one exit handler: the gateway's hooks, last set first, then the context.
static void at_exit (void)
{
  while (nhooks > 0)
    exit_hooks[--nhooks] ();
  muon_ctx_destroy (&ctx);
}

muon_ctx *muon_mex_ctx (void)
{
  if (ctx == NULL)
  {
    if (muon_ctx_create (&ctx) != MUON_OK)
      muon_mex_error (mexFunctionName (), "noMemory", "cannot create a context.");
    muon_ctx_set_interrupt_poll (ctx, interrupt_pending, NULL);
    mexAtExit (at_exit);
  }
  return ctx;
}

void muon_mex_at_exit (void (*hook) (void))
{
  muon_mex_ctx ();
  for (int k = 0; k < nhooks; k++)
    if (exit_hooks[k] == hook)
      return;
  if (nhooks == MAX_EXIT_HOOKS)
    muon_mex_error (mexFunctionName (), "internal", "too many exit hooks.");
  exit_hooks[nhooks++] = hook;
}

void muon_mex_error (const char *fname, const char *id, const char *fmt, ...)
{
  char msg[768], full_id[64];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  snprintf (full_id, sizeof full_id, "muonlab:%s", id);
  // mexErrMsgIdAndTxt would prefix the gateway's own name ("__muon_ns__: "); Octave's
  // error () raises the message exactly as the user function would.
  char full_msg[900];
  snprintf (full_msg, sizeof full_msg, "%s: %s", fname, msg);
  mxArray *args[3] = { mxCreateString (full_id), mxCreateString ("%s"),
                       mxCreateString (full_msg) };
  mexCallMATLAB (0, NULL, 3, args, "error");
  mexErrMsgIdAndTxt (full_id, "%s", full_msg);  // not reached
}

const char *muon_mex_caller (const mxArray *s, const char *dflt, char *buf, size_t len)
{
  const mxArray *f = s != NULL && mxIsStruct (s) ? mxGetField (s, 0, "fname") : NULL;
  if (f != NULL && mxIsChar (f) && mxGetString (f, buf, len) == 0 && buf[0] != '\0')
    return buf;
  return dflt;
}

// The warning muon_mex_warn_result found made an error (its id and text), for
// muon_mex_warn_raise.
static char warned_id[64], warned_text[512];

int muon_mex_warn_result (const char *fname, muon_status s)
{
  if (s != MUON_WARN_NONFINITE)
    return 0;
  // Octave's own warning: mexWarnMsgIdAndTxt would put the gateway's name first; trapped,
  // since a warning made an error would leave the gateway without freeing what it holds
  snprintf (warned_text, sizeof warned_text,
            "%s: %s from a finite input (an overflow of its precision or state).", fname,
            muon_ctx_last_error (muon_mex_ctx ()));
  snprintf (warned_id, sizeof warned_id, "muonlab:%s", muon_status_id (s));
  mxArray *args[3] = { mxCreateString (warned_id), mxCreateString ("%s"),
                       mxCreateString (warned_text) };
  mxArray *raised = mexCallMATLABWithTrap (0, NULL, 3, args, "warning");
  for (int k = 0; k < 3; k++)
    mxDestroyArray (args[k]);
  if (raised)
    mxDestroyArray (raised);
  return raised != NULL;
}

void muon_mex_warn_raise (void)
{
  mxArray *args[3] = { mxCreateString (warned_id), mxCreateString ("%s"),
                       mxCreateString (warned_text) };
  mexCallMATLAB (0, NULL, 3, args, "error");
}

void muon_mex_check (const char *fname, muon_status s)
{
  if (muon_mex_warn_result (fname, s))
    muon_mex_warn_raise ();
  if (s >= 0)
    return;
  const char *msg = muon_ctx_last_error (muon_mex_ctx ());
  size_t len = strlen (msg);
  muon_mex_error (fname, muon_status_id (s), "%s%s", *msg ? msg : muon_status_string (s),
                  (len && msg[len - 1] == '.') ? "" : ".");
}

void muon_mex_outputs (int nlhs, mxArray *plhs[], mxArray *out[], int n)
{
  int room = nlhs < 1 ? 1 : nlhs;
  for (int k = 0; k < n; k++)
  {
    if (k < room)
      plhs[k] = out[k];
    else if (out[k])
      mxDestroyArray (out[k]);
    out[k] = NULL;
  }
}

muon_tensor muon_mex_tensor (const char *fname, const char *argname, const mxArray *a)
{
  if (!(mxIsDouble (a) || mxIsSingle (a)) || mxIsComplex (a) || mxIsSparse (a))
    muon_mex_error (fname, "badType", "%s must be a real full double or single array.",
                    argname);
  mwSize nd = mxGetNumberOfDimensions (a);
  const mwSize *d = mxGetDimensions (a);
  if (nd > 3)
    muon_mex_error (fname, "badShape", "%s must have 2 or 3 dimensions", argname);
  if (mxGetNumberOfElements (a) == 0)
    muon_mex_error (fname, "badShape", "%s must not be empty", argname);
  return muon_tensor_batch (mxIsDouble (a) ? MUON_F64 : MUON_F32, mxGetData (a), d[0], d[1],
                            nd == 3 ? d[2] : 1);
}

// x * 0 is 0 for a finite x and NaN for Inf or NaN, so the sum of x * 0 is 0 exactly when
// all are finite.  Eight independent sums keep the loop off one chain of additions.
static int all_finite_f64 (const double *x, size_t n)
{
  double acc[8] = { 0 }, s = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++)
      acc[j] += x[i + j] * 0.0;
  for (; i < n; i++)
    s += x[i] * 0.0;
  for (int j = 0; j < 8; j++)
    s += acc[j];
  return s == 0;
}

static int all_finite_f32 (const float *x, size_t n)
{
  float acc[8] = { 0 }, s = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++)
      acc[j] += x[i + j] * 0.0f;
  for (; i < n; i++)
    s += x[i] * 0.0f;
  for (int j = 0; j < 8; j++)
    s += acc[j];
  return s == 0;
}

void muon_mex_check_finite (const char *fname, const char *argname, const mxArray *a)
{
  size_t n = mxGetNumberOfElements (a);
  int finite = mxIsDouble (a) ? all_finite_f64 ((const double *) mxGetData (a), n)
             : mxIsSingle (a) ? all_finite_f32 ((const float *) mxGetData (a), n) : 1;
  if (!finite)
    muon_mex_error (fname, "nonFinite", "%s must not contain NaN or Inf.", argname);
}

// Octave copies every array a MEX file made with mxCreate* element by element into a new
// array when the call returns (Debian's Octave 7 is built without std::pmr): 0.24 s for
// 358 MB, twice the cost of making and filling the array.  An array Octave made itself is
// handed back as it is, so large outputs are made by Octave's own zeros (through
// "builtin", which a zeros.m on the path cannot shadow) and filled in place.  Below
// OWN_BYTES the call costs more than the copy it saves.
enum { OWN_BYTES = 1 << 18 };

static mxArray *octave_zeros (mwSize ndims, const mwSize *dims, mxClassID cls)
{
  mxArray *in[3] = { mxCreateString ("zeros"), mxCreateDoubleMatrix (1, ndims, mxREAL),
                     mxCreateString (cls == mxDOUBLE_CLASS ? "double" : "single") };
  for (mwSize d = 0; d < ndims; d++)
    mxGetPr (in[1])[d] = (double) dims[d];
  mxArray *o[1] = { NULL };
  mxArray *err = mexCallMATLABWithTrap (1, o, 3, in, "builtin");
  for (int k = 0; k < 3; k++)
    mxDestroyArray (in[k]);
  if (err != NULL)
    mxDestroyArray (err);
  return err == NULL ? o[0] : NULL;
}

// Whether the process can have `bytes` more: a malloc of that size, given back at once (it
// touches no page).  Octave's own allocation fails where this one does (the same allocator,
// under the same limits: ulimit -v, the kernel's overcommit rule), but raises an error that
// names no muonlab function; asking first lets the gateway raise muonlab:noMemory.
static int can_allocate (size_t bytes)
{
  void *p = malloc (bytes);
  free (p);
  return p != NULL;
}

int muon_mex_have_room (double bytes)
{
  return bytes < (double) SIZE_MAX && can_allocate ((size_t) bytes);
}

mxArray *muon_mex_try_new_array (mwSize ndims, const mwSize *dims, mxClassID cls)
{
  size_t n = 1, es = cls == mxDOUBLE_CLASS ? sizeof (double) : sizeof (float);
  int overflow = 0;
  for (mwSize d = 0; d < ndims; d++)
  {
    overflow |= dims[d] != 0 && n > SIZE_MAX / es / dims[d];
    n *= dims[d];
  }
  int own = (cls == mxDOUBLE_CLASS || cls == mxSINGLE_CLASS) && (overflow || n >= OWN_BYTES / es);
  if (own && (overflow || !can_allocate (n * es)))
  {
    muon_ctx_set_error (muon_mex_ctx (), MUON_ERR_NOMEM,
                        "out of memory for a result of %.0f MB",
                        overflow ? INFINITY : (double) n * (double) es / 1e6);
    return NULL;
  }
  mxArray *a = own ? octave_zeros (ndims, dims, cls) : NULL;
  // what came back is used only when it is what was asked for
  if (a != NULL && (mxGetClassID (a) != cls || mxIsComplex (a) || mxIsSparse (a)
                    || mxGetNumberOfElements (a) != n || mxGetData (a) == NULL))
  {
    mxDestroyArray (a);
    a = NULL;
  }
  return a != NULL ? a : mxCreateNumericArray (ndims, dims, cls, mxREAL);
}

mxArray *muon_mex_new_array (const char *fname, mwSize ndims, const mwSize *dims,
                             mxClassID cls)
{
  mxArray *a = muon_mex_try_new_array (ndims, dims, cls);
  if (a == NULL)
    muon_mex_check (fname, MUON_ERR_NOMEM);
  return a;
}

mxArray *muon_mex_new_like (const char *fname, const muon_tensor *t, mxClassID cls,
                            muon_tensor *view)
{
  mwSize d[3] = { t->rows, t->cols, t->batch };
  mxArray *a = muon_mex_new_array (fname, t->batch > 1 ? 3 : 2, d, cls);
  *view = muon_tensor_batch (cls == mxDOUBLE_CLASS ? MUON_F64 : MUON_F32, mxGetData (a),
                             t->rows, t->cols, t->batch);
  return a;
}

int muon_mex_is_real_double (const mxArray *a)
{
  return mxIsDouble (a) && !mxIsComplex (a) && !mxIsSparse (a);
}

double muon_mex_scalar (const mxArray *a)
{
  return (mxIsNumeric (a) || mxIsLogical (a)) && !mxIsComplex (a) && !mxIsSparse (a)
         && mxGetNumberOfElements (a) == 1 ? mxGetScalar (a) : NAN;
}

int muon_mex_int (const char *fname, const char *what, const mxArray *a, int lo, int hi)
{
  double v = mxIsLogical (a) ? NAN : muon_mex_scalar (a);
  if (!muon_mex_whole_in (v, lo, hi))
    muon_mex_error (fname, "badArg", "%s must be an integer in %d..%d.", what, lo, hi);
  return (int) v;
}

size_t muon_mex_size (const char *fname, const char *what, double x)
{
  if (!muon_mex_whole_in (x, 0, MUON_MEX_MAX_SIZE))
    muon_mex_error (fname, "badShape", "%s must hold non-negative integers.", what);
  return (size_t) x;
}

size_t *muon_mex_shapes (const char *fname, const mxArray *S, size_t *P)
{
  if (!mxIsDouble (S) || mxIsComplex (S) || mxIsSparse (S) || mxGetN (S) != 2
      || mxGetNumberOfDimensions (S) != 2 || mxGetM (S) == 0)
    muon_mex_error (fname, "badShape", "SHAPES must be a real P x 2 double matrix.");
  *P = mxGetM (S);
  const double *s = mxGetPr (S);
  size_t *rc = mxMalloc (2 * *P * sizeof *rc);
  for (size_t i = 0; i < 2 * *P; i++)
    rc[i] = muon_mex_size (fname, "SHAPES", s[i]);
  return rc;
}

mxArray *muon_mex_try_copy (const mxArray *a)
{
  mxArray *c = muon_mex_try_new_array (mxGetNumberOfDimensions (a), mxGetDimensions (a),
                                       mxGetClassID (a));
  size_t n = mxGetNumberOfElements (a);
  if (c != NULL && n)
    memcpy (mxGetData (c), mxGetData (a), n * mxGetElementSize (a));
  return c;
}

mxArray *muon_mex_copy (const char *fname, const mxArray *a)
{
  mxArray *c = muon_mex_try_copy (a);
  if (c == NULL)
    muon_mex_check (fname, MUON_ERR_NOMEM);
  return c;
}
