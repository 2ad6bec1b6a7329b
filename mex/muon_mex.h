/* muon_mex.h - the glue every gateway shares: the process-wide context (destroyed by
 * mexAtExit), mxArray <-> muon_tensor, option-struct fields, and status -> Octave error.
 */
#ifndef MUON_MEX_H
#define MUON_MEX_H

#include "mex.h"
#include "muon.h"

// The context shared by all calls of this MEX file, created on first use.
muon_ctx *muon_mex_ctx (void);
// Runs hook when the MEX file is unloaded, before the context is destroyed (a MEX file has
// one mexAtExit handler, which muon_mex.c keeps; the last hook set wins).
void muon_mex_at_exit (void (*hook) (void));

// The name a gateway's errors start with: the string field "fname" of the option struct s,
// when the user function that called the gateway (through a shared private helper) put its
// own name there, else dflt.  The name is copied into buf (len bytes).
const char *muon_mex_caller (const mxArray *s, const char *dflt, char *buf, size_t len);

// Raises "muonlab:<id>" with "<fname>: <message>." for status < 0 (message from the context).
void muon_mex_check (const char *fname, muon_status s);
// Raises "muonlab:<id>" with "<fname>: <printf message>".
void muon_mex_error (const char *fname, const char *id, const char *fmt, ...);

// Hands a gateway's n outputs to Octave: out[k] becomes plhs[k] for k < max (nlhs, 1), the
// room Octave gives (plhs[0] even when nlhs is 0), and the others are destroyed.  A gateway
// with several outputs builds them in a local out[OUT_END] and calls this last, so that it
// never writes past plhs.
void muon_mex_outputs (int nlhs, mxArray *plhs[], mxArray *out[], int n);

// Requires a real, full, double or single array of 2 or 3 dimensions; returns it as a batch
// (pages along dimension 3).
muon_tensor muon_mex_tensor (const char *fname, const char *argname, const mxArray *a);
// Raises "muonlab:nonFinite" with "<fname>: <argname> must not contain NaN or Inf." unless
// every element of the real double or single array a is finite (one pass, no allocation).
void muon_mex_check_finite (const char *fname, const char *argname, const mxArray *a);
// A new array of class `cls` shaped like t (rows x cols x batch), and its tensor view.
mxArray *muon_mex_new_like (const muon_tensor *t, mxClassID cls, muon_tensor *view);

// A copy of a real, full, double or single array (callers check that first), as a new array
// of its class and dimensions.  Used instead of mxDuplicateArray, which on Octave 7 leaks the
// dimensions it cached for an argument whose dimensions were asked for (16 bytes a call).
mxArray *muon_mex_copy (const mxArray *a);

// Option-struct fields: a missing field keeps *out unchanged.
void muon_mex_field_double (const char *fname, const mxArray *s, const char *field,
                            double *out);
void muon_mex_field_int (const char *fname, const mxArray *s, const char *field, int *out);
// Copies a string field into buf (len bytes); returns 1 when the field is present.
int muon_mex_field_string (const char *fname, const mxArray *s, const char *field, char *buf,
                           size_t len);
// A numeric field as a pointer to its doubles (NULL when missing) and its element count.
const double *muon_mex_field_array (const char *fname, const mxArray *s, const char *field,
                                    size_t *count, size_t *rows, size_t *cols);

// Newton-Schulz options from a struct (fields as muon_ns.m passes them).  coeffs points into
// the struct's data, valid while the struct lives.
void muon_mex_ns_opts (const char *fname, const mxArray *s, muon_ns_opts *o);

// Muon update options (the muon_ns fields plus beta, nesterov, form, scale, scale_factor,
// scale_rows / scale_cols, split_rows) from the struct muon_update.m builds; *experts from its
// "experts" field (1 when missing).  split_rows is mxMalloc-ed: freed when the call ends.
void muon_mex_update_opts (const char *fname, const mxArray *s, muon_update_opts *o,
                           double *experts);

#endif
