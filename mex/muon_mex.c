/* muon_mex.c - shared gateway glue (see muon_mex.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "muon_mex.h"

static muon_ctx *ctx = NULL;
static void (*exit_hook) (void) = NULL;

// The MEX file's one exit handler: the gateway's hook, then the context.
static void at_exit (void)
{
  if (exit_hook)
    exit_hook ();
  exit_hook = NULL;
  muon_ctx_destroy (&ctx);
}

muon_ctx *muon_mex_ctx (void)
{
  if (ctx == NULL)
  {
    if (muon_ctx_create (&ctx) != MUON_OK)
      mexErrMsgIdAndTxt ("muonlab:noMemory", "muonlab: cannot create a context.");
    mexAtExit (at_exit);
  }
  return ctx;
}

void muon_mex_at_exit (void (*hook) (void))
{
  muon_mex_ctx ();
  exit_hook = hook;
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

void muon_mex_check (const char *fname, muon_status s)
{
  if (s >= 0)
    return;
  const char *msg = muon_ctx_last_error (muon_mex_ctx ());
  size_t len = strlen (msg);
  muon_mex_error (fname, muon_status_id (s), "%s%s", *msg ? msg : muon_status_string (s),
                  (len && msg[len - 1] == '.') ? "" : ".");
}

muon_tensor muon_mex_tensor (const char *fname, const char *argname, const mxArray *a)
{
  if (!(mxIsDouble (a) || mxIsSingle (a)) || mxIsComplex (a) || mxIsSparse (a))
    muon_mex_error (fname, "badType", "%s must be a real full double or single array",
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

mxArray *muon_mex_new_like (const muon_tensor *t, mxClassID cls, muon_tensor *view)
{
  mwSize d[3] = { t->rows, t->cols, t->batch };
  mxArray *a = mxCreateNumericArray (t->batch > 1 ? 3 : 2, d, cls, mxREAL);
  *view = muon_tensor_batch (cls == mxDOUBLE_CLASS ? MUON_F64 : MUON_F32, mxGetData (a),
                             t->rows, t->cols, t->batch);
  return a;
}

static const mxArray *field (const char *fname, const mxArray *s, const char *name)
{
  if (s == NULL || !mxIsStruct (s))
    muon_mex_error (fname, "badType", "OPTS must be a struct");
  return mxGetField (s, 0, name);
}

void muon_mex_field_double (const char *fname, const mxArray *s, const char *name,
                            double *out)
{
  const mxArray *f = field (fname, s, name);
  if (f == NULL)
    return;
  if (!mxIsNumeric (f) && !mxIsLogical (f))
    muon_mex_error (fname, "badType", "option %s must be numeric", name);
  if (mxGetNumberOfElements (f) != 1)
    muon_mex_error (fname, "badShape", "option %s must be a scalar", name);
  *out = mxGetScalar (f);
}

void muon_mex_field_int (const char *fname, const mxArray *s, const char *name, int *out)
{
  double v = *out;
  muon_mex_field_double (fname, s, name, &v);
  if (v != (double) (int) v)
    muon_mex_error (fname, "badArg", "option %s must be an integer", name);
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

void muon_mex_ns_opts (const char *fname, const mxArray *s, muon_ns_opts *o)
{
  char buf[64];
  muon_ns_opts_default (o);
  muon_ctx *c = muon_mex_ctx ();
  if (muon_mex_field_string (fname, s, "method", buf, sizeof buf))
  {
    if (strcmp (buf, "standard") == 0) o->method = MUON_NS_STANDARD;
    else if (strcmp (buf, "gram") == 0) o->method = MUON_NS_GRAM;
    else muon_mex_error (fname, "badArg", "unknown method '%s'", buf);
  }
  if (muon_mex_field_string (fname, s, "precision", buf, sizeof buf)
      && muon_precision_from_name (buf, &o->precision) != MUON_OK)
    muon_mex_error (fname, "badArg", "unknown precision '%s'", buf);
  if (muon_mex_field_string (fname, s, "schedule_mode", buf, sizeof buf))
  {
    if (strcmp (buf, "repeat_last") == 0) o->schedule_mode = MUON_SCHEDULE_REPEAT_LAST;
    else if (strcmp (buf, "cycle") == 0) o->schedule_mode = MUON_SCHEDULE_CYCLE;
    else muon_mex_error (fname, "badArg", "unknown schedule mode '%s'", buf);
  }
  if (muon_mex_field_string (fname, s, "device", buf, sizeof buf))
  {
    if (strcmp (buf, "cpu") == 0) o->device = MUON_DEVICE_CPU;
    else if (strcmp (buf, "cuda") == 0) o->device = MUON_DEVICE_CUDA;
    else muon_mex_error (fname, "badArg", "unknown device '%s'", buf);
  }
  if (muon_mex_field_string (fname, s, "normalize", buf, sizeof buf))
  {
    if (strcmp (buf, "frobenius") == 0) o->normalize = MUON_NORMALIZE_FROBENIUS;
    else if (strcmp (buf, "aol") == 0) o->normalize = MUON_NORMALIZE_AOL;
    else muon_mex_error (fname, "badArg", "unknown normalization '%s'", buf);
  }
  muon_mex_field_int (fname, s, "steps", &o->steps);
  muon_mex_field_double (fname, s, "gram_min_aspect", &o->gram_min_aspect);
  muon_mex_field_double (fname, s, "eps", &o->eps);
  muon_mex_field_int (fname, s, "normalize_first", &o->normalize_first);
  size_t n, rows, cols;
  const double *r = muon_mex_field_array (fname, s, "restarts", &n, NULL, NULL);
  if (r)
  {
    if (n > MUON_MAX_RESTARTS)
      muon_mex_error (fname, "badArg", "at most %d restarts", MUON_MAX_RESTARTS);
    o->nrestarts = (int) n;
    for (size_t i = 0; i < n; i++)
      o->restarts[i] = (int) r[i];
  }
  // coefficients: a K x 3 matrix (column-major) is copied to K x 3 row-major triples in the
  // context's workspace would be overwritten by muon_ns, so keep a static copy here.
  static double triples[3 * 1000];
  const double *cf = muon_mex_field_array (fname, s, "coeffs", &n, &rows, &cols);
  if (cf)
  {
    if (cols != 3 || rows < 1 || rows > 1000)
      muon_mex_error (fname, "badShape", "coefficients must be a K x 3 matrix, K <= 1000");
    for (size_t k = 0; k < rows; k++)
      for (size_t j = 0; j < 3; j++)
        triples[3 * k + j] = cf[k + j * rows];
    o->coeffs = triples;
    o->ncoeffs = (int) rows;
  }
  if (muon_mex_field_string (fname, s, "gemm", buf, sizeof buf)
      && muon_gemm_from_name (buf, &o->gemm) != MUON_OK)
    muon_mex_error (fname, "badArg", "unknown GEMM provider '%s'", buf);
  muon_mex_field_int (fname, s, "threads", &o->threads);
  (void) c;
}

void muon_mex_update_opts (const char *fname, const mxArray *s, muon_update_opts *o,
                           double *experts)
{
  char buf[64];
  muon_update_opts_default (o);
  muon_mex_ns_opts (fname, s, &o->ns);
  muon_mex_field_double (fname, s, "beta", &o->beta);
  muon_mex_field_int (fname, s, "nesterov", &o->nesterov);
  muon_mex_field_double (fname, s, "scale_factor", &o->scale_factor);
  if (muon_mex_field_string (fname, s, "form", buf, sizeof buf)
      && muon_momentum_form_from_name (buf, &o->form) != MUON_OK)
    muon_mex_error (fname, "badArg", "unknown momentum form '%s'.", buf);
  if (muon_mex_field_string (fname, s, "scale", buf, sizeof buf)
      && muon_scale_rule_from_name (buf, &o->scale) != MUON_OK)
    muon_mex_error (fname, "badArg", "unknown scale rule '%s'.", buf);
  double sr = 0, sc = 0;
  *experts = 1;
  muon_mex_field_double (fname, s, "scale_rows", &sr);
  muon_mex_field_double (fname, s, "scale_cols", &sc);
  muon_mex_field_double (fname, s, "experts", experts);
  if (!(sr >= 0 && sc >= 0 && sr == (size_t) sr && sc == (size_t) sc))
    muon_mex_error (fname, "badArg",
                    "scale_rows and scale_cols must be non-negative integers.");
  o->scale_rows = (size_t) sr;
  o->scale_cols = (size_t) sc;
  size_t nsplit = 0;
  const double *split = muon_mex_field_array (fname, s, "split_rows", &nsplit, NULL, NULL);
  size_t *rows = nsplit ? mxMalloc (nsplit * sizeof *rows) : NULL;   // freed with the call
  for (size_t k = 0; k < nsplit; k++)
  {
    if (!(split[k] >= 1 && split[k] == (size_t) split[k]))
      muon_mex_error (fname, "badArg", "split_rows must be positive integers.");
    rows[k] = (size_t) split[k];
  }
  o->split_rows = rows;
  o->nsplit = nsplit;
}
