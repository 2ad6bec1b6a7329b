/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex_opts.c - shared gateway glue (see muon_mex.h): the fields of an options struct,
 * the core's named lists in messages, and the core's option structs read from the
 * X-macro field lists. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "muon_mex.h"

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
  if (!muon_mex_whole_in (v, INT_MIN, INT_MAX))
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
      if (!muon_mex_whole_in (r[i], 0, INT_MAX))
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
  if (!(muon_mex_whole_in (sr, 0, MUON_MEX_MAX_SIZE) && muon_mex_whole_in (sc, 0, MUON_MEX_MAX_SIZE)))
    muon_mex_error (fname, "badArg",
                    "scale_rows and scale_cols must be non-negative integers.");
  o->scale_rows = (size_t) sr;
  o->scale_cols = (size_t) sc;
  size_t nsplit = 0;
  const double *split = muon_mex_field_array (fname, s, "split_rows", &nsplit, NULL, NULL);
  size_t *rows = nsplit ? mxMalloc (nsplit * sizeof *rows) : NULL;   // freed with the call
  for (size_t k = 0; k < nsplit; k++)
  {
    if (!muon_mex_whole_in (split[k], 1, MUON_MEX_MAX_SIZE))
      muon_mex_error (fname, "badArg", "split_rows must be positive integers.");
    rows[k] = (size_t) split[k];
  }
  o->split_rows = rows;
  o->nsplit = nsplit;
}

// The field bucket_size (Megatron's bucket_size of the layer-wise designs, elements): missing
// or [] for one bucket (0), else a positive integer.
static size_t bucket_field (const char *fname, const mxArray *s)
{
  const mxArray *b = mxIsStruct (s) ? mxGetField (s, 0, "bucket_size") : NULL;
  if (b == NULL || mxIsEmpty (b))
    return 0;
  double x = muon_mex_is_real_double (b) && mxGetNumberOfElements (b) == 1 ? mxGetScalar (b)
                                                                            : -1;
  if (!(x >= 1 && muon_mex_whole_in (x, 1, MUON_MEX_MAX_SIZE)))
    muon_mex_error (fname, "badArg", "BUCKETSIZE must be a positive integer.");
  return (size_t) x;
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
  o->bucket_size = bucket_field (fname, s);
}

void muon_mex_zero_cost_opts (const char *fname, const mxArray *s, muon_zero_cost_opts *o)
{
  char buf[64];
  muon_zero_cost_opts_default (o);
  if (muon_mex_field_string (fname, s, "design", buf, sizeof buf)
      && muon_name_lookup (MUON_LIST_ZERO_VARIANT, buf, &o->design) != MUON_OK)
    muon_mex_error (fname, "badArg", "unknown design '%s'.", buf);
  MUON_MEX_COST_FIELDS (GET_FIELD)
  o->bucket_size = bucket_field (fname, s);
  muon_mex_ns_opts (fname, s, &o->ns);
}
