/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: L = __muon_lists__ ()"
/* __muon_lists__ - the core's named lists, limits and option defaults in one struct, so that
 * inst/ types none of them (read once per session by inst/private/core_lists.m; cheap, no
 * probe of the machine).
 *   L.lists.<key>     1 x n cell: the names of the list <key> (muon_lists.h MUON_LISTS: "method",
 *                     "precision", "gemm", "zero_variant", ...), value order
 *   L.what.<key>      what an entry of the list is, as messages say it ("GEMM provider")
 *   L.limits.<key>    the core's limits ("max_steps", "max_restarts", "max_threads", ...)
 *   L.exact.zero_variant  1 x n logical: the design computes the reference's update
 *                     (muon_zero_variant_is_correct), in lists.zero_variant's order
 *   L.ns_scope.zero_variant  1 x n cell: what the design runs Newton-Schulz on, a name of
 *                     lists.zero_ns_scope (muon_zero_variant_ns_scope), in the same order
 *   L.defaults.ns     the fields of muon_mex_ns_opts (MUON_MEX_NS_FIELDS, restarts) as
 *                     muon_ns_opts_default sets them, and coefficients (the schedule's name)
 *   L.defaults.update MUON_MEX_UPDATE_FIELDS as muon_update_opts_default sets them
 *   L.defaults.layout MUON_MEX_LAYOUT_FIELDS (muon_zero_layout_opts_default)
 *   L.defaults.step   MUON_MEX_STEP_FIELDS (muon_zero_step_opts_default)
 *   L.status.id, .text  1 x n cells: the status table (muon_base.h MUON_STATUS_LIST), the
 *                     Octave id ("badShape": raised as muonlab:badShape) and text of each
 *                     status but success, in the table's order
 * Enumerated defaults come as names, numbers as doubles.
 */
#include "muon_mex.h"

enum { IN_END };
enum { OUT_L, OUT_END };

// s.name = v (s a 1 x 1 struct)
static void add (mxArray *s, const char *name, mxArray *v)
{
  mxAddField (s, name);
  mxSetField (s, 0, name, v);
}

static mxArray *empty_struct (void)
{
  return mxCreateStructMatrix (1, 1, 0, NULL);
}

// One field of an X-macro field list (muon_mex.h) from the member of the same name of o.
#define PUT_ENUM(list, v) mxCreateString (muon_names (list, (int) (v)))
#define PUT_INT(list, v) mxCreateDoubleScalar ((double) (v))
#define PUT_DOUBLE(list, v) mxCreateDoubleScalar ((double) (v))
#define PUT_FIELD(field, kind, list) add (d, #field, PUT_##kind (list, o.field));

static mxArray *ns_defaults (void)
{
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  mxArray *d = empty_struct ();
  MUON_MEX_NS_FIELDS (PUT_FIELD)
  mxArray *r = mxCreateDoubleMatrix (1, (mwSize) o.nrestarts, mxREAL);
  for (int i = 0; i < o.nrestarts; i++)
    mxGetPr (r)[i] = o.restarts[i];
  add (d, "restarts", r);
  add (d, "coefficients", mxCreateString (MUON_COEFFS_DEFAULT));
  return d;
}

static mxArray *update_defaults (void)
{
  muon_update_opts o;
  muon_update_opts_default (&o);
  mxArray *d = empty_struct ();
  MUON_MEX_UPDATE_FIELDS (PUT_FIELD)
  return d;
}

static mxArray *layout_defaults (void)
{
  muon_zero_layout_opts o;
  muon_zero_layout_opts_default (&o);
  mxArray *d = empty_struct ();
  MUON_MEX_LAYOUT_FIELDS (PUT_FIELD)
  return d;
}

// The status table's ids and texts, success left out (it is never raised).
static mxArray *status_table (void)
{
#define ROW(name, value, text, id) { value, text, id },
  static const struct { int value; const char *text, *id; } rows[] = { MUON_STATUS_LIST (ROW) };
#undef ROW
  mwSize n = sizeof rows / sizeof rows[0] - 1;
  mxArray *ids = mxCreateCellMatrix (1, n), *texts = mxCreateCellMatrix (1, n);
  mwIndex k = 0;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (rows[i].value != MUON_OK)
    {
      mxSetCell (ids, k, mxCreateString (rows[i].id));
      mxSetCell (texts, k++, mxCreateString (rows[i].text));
    }
  mxArray *s = empty_struct ();
  add (s, "id", ids);
  add (s, "text", texts);
  return s;
}

static mxArray *step_defaults (void)
{
  muon_zero_step_opts o;
  muon_zero_step_opts_default (&o);
  mxArray *d = empty_struct ();
  MUON_MEX_STEP_FIELDS (PUT_FIELD)
  return d;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "__muon_lists__";
  if (nrhs != IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s.", USAGE);
  mxArray *lists = empty_struct (), *what = empty_struct (), *limits = empty_struct ();
  for (int l = 0; l < MUON_LIST_COUNT; l++)
  {
    int n = muon_list_size ((muon_list) l);
    mxArray *names = mxCreateCellMatrix (1, (mwSize) n);
    for (int i = 0; i < n; i++)
      mxSetCell (names, (mwIndex) i, mxCreateString (muon_names ((muon_list) l, i)));
    add (lists, muon_list_name ((muon_list) l), names);
    add (what, muon_list_name ((muon_list) l), mxCreateString (muon_list_what ((muon_list) l)));
  }
  for (int i = 0; i < muon_limit_count (); i++)
    add (limits, muon_limit_name (i), mxCreateDoubleScalar ((double) muon_limit_value (i)));
  int nv = muon_list_size (MUON_LIST_ZERO_VARIANT);
  mxArray *exact = empty_struct (), *ex = mxCreateLogicalMatrix (1, (mwSize) nv);
  for (int v = 0; v < nv; v++)
    mxGetLogicals (ex)[v] = (mxLogical) (muon_zero_variant_is_correct ((muon_zero_variant) v) != 0);
  add (exact, "zero_variant", ex);
  mxArray *scope = empty_struct (), *sc = mxCreateCellMatrix (1, (mwSize) nv);
  for (int v = 0; v < nv; v++)
  {
    muon_zero_ns_scope k = MUON_ZERO_NS_BLOCKS;
    muon_zero_variant_ns_scope ((muon_zero_variant) v, &k);   // v is a variant: no error
    mxSetCell (sc, (mwIndex) v, mxCreateString (muon_names (MUON_LIST_ZERO_NS_SCOPE, (int) k)));
  }
  add (scope, "zero_variant", sc);
  mxArray *defaults = empty_struct ();
  add (defaults, "ns", ns_defaults ());
  add (defaults, "update", update_defaults ());
  add (defaults, "layout", layout_defaults ());
  add (defaults, "step", step_defaults ());
  mxArray *L = empty_struct ();
  add (L, "lists", lists);
  add (L, "what", what);
  add (L, "limits", limits);
  add (L, "exact", exact);
  add (L, "ns_scope", scope);
  add (L, "defaults", defaults);
  add (L, "status", status_table ());
  plhs[OUT_L] = L;
}
