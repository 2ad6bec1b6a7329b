/* muon_mex.c - shared gateway glue (see muon_mex.h). */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "muon_mex.h"

#define MAX_SIZE 9007199254740992.0   // 2^53: the sizes a double holds exactly

// 1 when v is a whole number in [lo, hi] (checked before any cast: a cast of NaN or of an
// out-of-range double to an integer type is undefined).
static int whole_in (double v, double lo, double hi)
{
  return v >= lo && v <= hi && v == floor (v);
}

static muon_ctx *ctx = NULL;
enum { MAX_EXIT_HOOKS = 4 };
static void (*exit_hooks[MAX_EXIT_HOOKS]) (void);
static int nhooks = 0;

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
  if (!whole_in (v, lo, hi))
    muon_mex_error (fname, "badArg", "%s must be an integer in %d..%d.", what, lo, hi);
  return (int) v;
}

size_t muon_mex_size (const char *fname, const char *what, double x)
{
  if (!whole_in (x, 0, MAX_SIZE))
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

static const mxArray *field (const char *fname, const mxArray *s, const char *name)
{
  if (s == NULL || !mxIsStruct (s))
    muon_mex_error (fname, "badType", "OPTS must be a struct.");
  return mxGetField (s, 0, name);
}

void muon_mex_field_double (const char *fname, const mxArray *s, const char *name,
                            double *out)
{
  const mxArray *f = field (fname, s, name);
  if (f == NULL)
    return;
  if ((!mxIsNumeric (f) && !mxIsLogical (f)) || mxIsComplex (f) || mxIsSparse (f))
    muon_mex_error (fname, "badType", "option %s must be real and numeric.", name);
  if (mxGetNumberOfElements (f) != 1)
    muon_mex_error (fname, "badShape", "option %s must be a scalar.", name);
  *out = mxGetScalar (f);
}

void muon_mex_field_int (const char *fname, const mxArray *s, const char *name, int *out)
{
  double v = *out;
  muon_mex_field_double (fname, s, name, &v);
  if (!whole_in (v, INT_MIN, INT_MAX))
    muon_mex_error (fname, "badArg", "option %s must be an integer.", name);
  *out = (int) v;
}

int muon_mex_field_string (const char *fname, const mxArray *s, const char *name, char *buf,
                           size_t len)
{
  const mxArray *f = field (fname, s, name);
  if (f == NULL)
    return 0;
  if (!mxIsChar (f) || mxGetString (f, buf, len) != 0)
    muon_mex_error (fname, "badType", "option %s must be a short string", name);
  return 1;
}

const double *muon_mex_field_array (const char *fname, const mxArray *s, const char *name,
                                    size_t *count, size_t *rows, size_t *cols)
{
  const mxArray *f = field (fname, s, name);
  *count = 0;
  if (f == NULL)
    return NULL;
  if (!mxIsDouble (f) || mxIsComplex (f) || mxIsSparse (f))
    muon_mex_error (fname, "badType", "option %s must be a real double array", name);
  *count = mxGetNumberOfElements (f);
  if (rows) *rows = mxGetM (f);
  if (cols) *cols = mxGetN (f);
  return mxGetPr (f);
}

int muon_mex_field_enum (const char *fname, const mxArray *s, const char *field,
                         muon_list list, int *value)
{
  char buf[64];
  if (!muon_mex_field_string (fname, s, field, buf, sizeof buf))
    return 0;
  if (muon_name_lookup (list, buf, value) != MUON_OK)
    muon_mex_error (fname, "badArg", "unknown %s '%s'.", muon_list_what (list), buf);
  return 1;
}

const char *muon_mex_list_text (muon_list list, int comma, char *buf, size_t len)
{
  size_t used = 0;
  int n = muon_list_size (list);
  buf[0] = '\0';
  for (int i = 0; i < n && used < len; i++)
  {
    const char *sep = i == 0 ? "" : (i < n - 1 || comma) ? ", " : " or ";
    int k = snprintf (buf + used, len - used, "%s'%s'", sep, muon_names (list, i));
    used += k > 0 ? (size_t) k : 0;
  }
  return buf;
}

int muon_mex_choose (const char *name, const char *const *names, int n)
{
  for (int i = 0; name && i < n; i++)
    if (strcmp (name, names[i]) == 0)
      return i;
  return -1;
}

// One field of an X-macro field list (muon_mex.h) into the member of the same name of *o.
#define GET_ENUM(field, list)                                                   \
  {                                                                             \
    int v_ = (int) o->field;                                                    \
    if (muon_mex_field_enum (fname, s, #field, list, &v_))                      \
      o->field = v_;                                                            \
  }
#define GET_INT(field, list) muon_mex_field_int (fname, s, #field, &o->field);
#define GET_DOUBLE(field, list) muon_mex_field_double (fname, s, #field, &o->field);
#define GET_FIELD(field, kind, list) GET_##kind (field, list)

void muon_mex_ns_opts (const char *fname, const mxArray *s, muon_ns_opts *o)
{
  muon_ns_opts_default (o);
  MUON_MEX_NS_FIELDS (GET_FIELD)
  size_t n, rows, cols;
  const double *r = muon_mex_field_array (fname, s, "restarts", &n, NULL, NULL);
  if (r)
  {
    if (n > MUON_MAX_RESTARTS)
      muon_mex_error (fname, "badArg", "RESTARTS must have at most %d entries.",
                      MUON_MAX_RESTARTS);
    o->nrestarts = (int) n;
    for (size_t i = 0; i < n; i++)
    {
      if (!whole_in (r[i], 0, INT_MAX))
        muon_mex_error (fname, "badArg", "RESTARTS must be integers from 0 to %d.", INT_MAX);
      o->restarts[i] = (int) r[i];
    }
  }
  // coefficients: a K x 3 matrix (column-major) is copied to K x 3 row-major triples in the
  // context's workspace would be overwritten by muon_ns, so keep a static copy here.  More
  // than MUON_MAX_STEPS triples cannot be used by one call.
  static double triples[3 * MUON_MAX_STEPS];
  const double *cf = muon_mex_field_array (fname, s, "coeffs", &n, &rows, &cols);
  if (cf && n > 0)
  {
    if (cols != 3 || rows < 1 || rows > MUON_MAX_STEPS)
      muon_mex_error (fname, "badShape",
                      "COEFFICIENTS must be a K x 3 matrix with K from 1 to %d.",
                      MUON_MAX_STEPS);
    for (size_t k = 0; k < rows; k++)
      for (size_t j = 0; j < 3; j++)
        triples[3 * k + j] = cf[k + j * rows];
    o->coeffs = triples;
    o->ncoeffs = (int) rows;
  }
}

void muon_mex_update_opts (const char *fname, const mxArray *s, muon_update_opts *o,
                           double *experts)
{
  muon_update_opts_default (o);
  muon_mex_ns_opts (fname, s, &o->ns);
  MUON_MEX_UPDATE_FIELDS (GET_FIELD)
  double sr = 0, sc = 0;
  *experts = 1;
  muon_mex_field_double (fname, s, "scale_rows", &sr);
  muon_mex_field_double (fname, s, "scale_cols", &sc);
  muon_mex_field_double (fname, s, "experts", experts);
  if (!(whole_in (sr, 0, MAX_SIZE) && whole_in (sc, 0, MAX_SIZE)))
    muon_mex_error (fname, "badArg",
                    "scale_rows and scale_cols must be non-negative integers.");
  o->scale_rows = (size_t) sr;
  o->scale_cols = (size_t) sc;
  size_t nsplit = 0;
  const double *split = muon_mex_field_array (fname, s, "split_rows", &nsplit, NULL, NULL);
  size_t *rows = nsplit ? mxMalloc (nsplit * sizeof *rows) : NULL;   // freed with the call
  for (size_t k = 0; k < nsplit; k++)
  {
    if (!whole_in (split[k], 1, MAX_SIZE))
      muon_mex_error (fname, "badArg", "split_rows must be positive integers.");
    rows[k] = (size_t) split[k];
  }
  o->split_rows = rows;
  o->nsplit = nsplit;
}

void muon_mex_zero_layout_opts (const char *fname, const mxArray *s, muon_zero_layout_opts *o)
{
  muon_zero_layout_opts_default (o);
  MUON_MEX_LAYOUT_FIELDS (GET_FIELD)
}

void muon_mex_zero_step_opts (const char *fname, const mxArray *s, muon_zero_step_opts *o,
                              double *experts)
{
  muon_zero_step_opts_default (o);
  muon_mex_update_opts (fname, s, &o->update, experts);
  MUON_MEX_STEP_FIELDS (GET_FIELD)
}

void muon_mex_zero_cost_opts (const char *fname, const mxArray *s, muon_zero_cost_opts *o)
{
  char buf[64];
  muon_zero_cost_opts_default (o);
  if (muon_mex_field_string (fname, s, "design", buf, sizeof buf)
      && muon_name_lookup (MUON_LIST_ZERO_VARIANT, buf, &o->design) != MUON_OK)
    muon_mex_error (fname, "badArg", "unknown design '%s'.", buf);
  MUON_MEX_COST_FIELDS (GET_FIELD)
  muon_mex_ns_opts (fname, s, &o->ns);
}
