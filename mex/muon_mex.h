/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex.h - the glue every gateway shares: the process-wide context (destroyed by
 * mexAtExit), mxArray <-> muon_tensor, option-struct fields, and status -> Octave error
 * (muon_mex.c; the option structs' readers: muon_mex_opts.c).
 */
#ifndef MUON_MEX_H
#define MUON_MEX_H

#include <math.h>

#include "mex.h"
#include "muon.h"

#define MUON_MEX_MAX_SIZE 9007199254740992.0   // 2^53: the sizes a double holds exactly

// 1 when v is a whole number in [lo, hi] (checked before any cast: a cast of NaN or of an
// out-of-range double to an integer type is undefined).
static inline int muon_mex_whole_in (double v, double lo, double hi)
{
  return v >= lo && v <= hi && v == floor (v);
}

// The context shared by all calls of this MEX file, created on first use, with an interrupt
// poll (muon_ctx_set_interrupt_poll) that sees a pending Ctrl-C: a long muon_ns stops at its
// next step with MUON_ERR_INTERRUPTED, raised as muonlab:interrupted by muon_mex_check.
muon_ctx *muon_mex_ctx (void);
// Runs hook when the MEX file is unloaded, before the context is destroyed (a MEX file has
// one mexAtExit handler, which muon_mex.c keeps; up to 4 hooks, run last set first; setting
// one again changes nothing).
void muon_mex_at_exit (void (*hook) (void));

// The name a gateway's errors start with: the string field "fname" of the option struct s,
// when the user function that called the gateway (through a shared private helper) put its
// own name there, else dflt.  The name is copied into buf (len bytes).
const char *muon_mex_caller (const mxArray *s, const char *dflt, char *buf, size_t len);

// Raises "muonlab:<id>" with "<fname>: <message>." for status < 0 (message from the context);
// warns as muon_mex_warn_result for MUON_WARN_NONFINITE.
void muon_mex_check (const char *fname, muon_status s);
// Warns "muonlab:nonFiniteResult" ("<fname>: <message from the context>; ...") for
// MUON_WARN_NONFINITE: a finite input whose result is not (an overflow in a low precision, a
// poisoned momentum), carried on as the peers carry it, but never silently.  Returns 1
// when the user made that warning an error (warning ("error", id)): nothing is raised
// yet, so that the caller frees what it holds first and then calls muon_mex_warn_raise.
int muon_mex_warn_result (const char *fname, muon_status s);
// Raises the warning muon_mex_warn_result returned 1 for, as the error it was made.
void muon_mex_warn_raise (void);
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
// Whether the process can have `bytes` more now (a malloc of that size, given back): for a
// gateway that makes many arrays to ask for their total before making any.
int muon_mex_have_room (double bytes);
// A new real array of zeros, for a gateway's output: a large double or single one is made
// by Octave itself (builtin zeros), which Octave returns without copying it.  When the
// process cannot have the memory: NULL, the context's error set (MUON_ERR_NOMEM, "out of
// memory for a result of <n> MB"), for helpers that return a muon_status.
mxArray *muon_mex_try_new_array (mwSize ndims, const mwSize *dims, mxClassID cls);
// The same, raising "<fname>: out of memory for a result of <n> MB." (muonlab:noMemory)
// instead of returning NULL: for a gateway that holds nothing an error would leak.
mxArray *muon_mex_new_array (const char *fname, mwSize ndims, const mwSize *dims,
                             mxClassID cls);
// A new array of class `cls` (double or single) shaped like t (rows x cols x batch), made by
// muon_mex_new_array, and its tensor view.
mxArray *muon_mex_new_like (const char *fname, const muon_tensor *t, mxClassID cls,
                            muon_tensor *view);

// A scalar integer argument in lo..hi, else "<what> must be an integer in <lo>..<hi>."
// (muonlab:badArg).
int muon_mex_int (const char *fname, const char *what, const mxArray *a, int lo, int hi);
// 1 when a is a real full double array (not complex, not sparse): what may be read with
// mxGetPr (a sparse array's holds only its nonzeros).
int muon_mex_is_real_double (const mxArray *a);
// a's value when it is one real full number (numeric or logical), else NaN: for the
// callers' range checks to refuse.
double muon_mex_scalar (const mxArray *a);
// x as a size: a whole number in 0..2^53, else "<what> must hold non-negative integers."
// (muonlab:badShape).
size_t muon_mex_size (const char *fname, const char *what, double x);
// SHAPES, a real P x 2 double matrix of sizes (P >= 1; "SHAPES must be a real P x 2 double
// matrix." else): its P rows then its P cols (mxMalloc-ed, freed with the call).  [out] *P.
size_t *muon_mex_shapes (const char *fname, const mxArray *S, size_t *P);

// A copy of a real, full, double or single array (callers check that first), as a new array
// of its class and dimensions (muon_mex_try_new_array: NULL when out of memory).  Used
// instead of mxDuplicateArray, which on Octave 7 leaks the dimensions it cached for an
// argument whose dimensions were asked for (16 bytes a call).
mxArray *muon_mex_try_copy (const mxArray *a);
// The same, raising muonlab:noMemory as muon_mex_new_array does.
mxArray *muon_mex_copy (const char *fname, const mxArray *a);

// Option-struct fields: a missing field keeps *out unchanged.
//
// The fields of the option structs the gateways take, each once: X (FIELD, KIND, LIST).
// FIELD is the struct field's name and the C options struct's member; KIND is ENUM (a name
// of the core list LIST, muon_lists.h MUON_LISTS), INT or DOUBLE (LIST unused: 0).  muon_mex.c reads
// them; __muon_lists__ exports their defaults, from which inst/ builds its default structs.
#define MUON_MEX_NS_FIELDS(X)                                                   \
  X (method,          ENUM,   MUON_LIST_METHOD)                                 \
  X (precision,       ENUM,   MUON_LIST_PRECISION)                              \
  X (schedule_mode,   ENUM,   MUON_LIST_SCHEDULE_MODE)                          \
  X (device,          ENUM,   MUON_LIST_DEVICE)                                 \
  X (gemm,            ENUM,   MUON_LIST_GEMM)                                   \
  X (steps,           INT,    0)                                                \
  X (gram_min_aspect, DOUBLE, 0)                                                \
  X (eps,             DOUBLE, 0)                                                \
  X (normalize_first, INT,    0)                                                \
  X (normalize,       ENUM,   MUON_LIST_NORMALIZE)                              \
  X (threads,         INT,    0)                                                \
  X (fused,           INT,    0)                                                \
  X (batched,         INT,    0)                                                \
  X (sym_blocks,      INT,    0)
// (plus restarts, a vector, and coeffs, a K x 3 matrix: see muon_mex_ns_opts)
#define MUON_MEX_UPDATE_FIELDS(X)                                               \
  X (beta,            DOUBLE, 0)                                                \
  X (nesterov,        INT,    0)                                                \
  X (scale_factor,    DOUBLE, 0)                                                \
  X (form,            ENUM,   MUON_LIST_MOMENTUM_FORM)                          \
  X (arith,           ENUM,   MUON_LIST_MOMENTUM_ARITH)                         \
  X (scale,           ENUM,   MUON_LIST_SCALE_RULE)
#define MUON_MEX_LAYOUT_FIELDS(X)                                               \
  X (stage,           INT,    0)                                                \
  X (align_factor,    INT,    0)                                                \
  X (order,           ENUM,   MUON_LIST_ZERO_ORDER)
#define MUON_MEX_COST_FIELDS(X)                                                 \
  X (stage,           INT,    0)                                                \
  X (align_factor,    INT,    0)                                                \
  X (order,           ENUM,   MUON_LIST_ZERO_ORDER)                             \
  X (pad_count,       ENUM,   MUON_LIST_ZERO_PAD_COUNT)                         \
  X (elem_bytes,      INT,    0)                                                \
  X (symmetric,       INT,    0)                                                \
  X (overflow_fails,  INT,    0)
// (plus design, a name of the variant list: see muon_mex_zero_cost_opts)
#define MUON_MEX_STEP_FIELDS(X)                                                 \
  X (variant,         ENUM,   MUON_LIST_ZERO_VARIANT)                           \
  X (pad_count,       ENUM,   MUON_LIST_ZERO_PAD_COUNT)                         \
  X (period,          INT,    0)                                                \
  X (step,            INT,    0)                                                \
  X (block_scale,     DOUBLE, 0)

void muon_mex_field_double (const char *fname, const mxArray *s, const char *field,
                            double *out);
void muon_mex_field_int (const char *fname, const mxArray *s, const char *field, int *out);
// Copies a string field into buf (len bytes); returns 1 when the field is present.
int muon_mex_field_string (const char *fname, const mxArray *s, const char *field, char *buf,
                           size_t len);
// A string field naming an entry of the core list `list`: its value in *value (unchanged when
// the field is missing); "unknown <what> '<name>'." (muonlab:badArg) for another name.
// Returns 1 when the field is present.
int muon_mex_field_enum (const char *fname, const mxArray *s, const char *field,
                         muon_list list, int *value);
// The names of a core list for a message, quoted and joined: "'a', 'b' or 'c'", or with
// comma nonzero "'a', 'b', 'c'" (for "... 'c', or <something else>").  Written into buf (len
// bytes), returned.
const char *muon_mex_list_text (muon_list list, int comma, char *buf, size_t len);
// The index of name in names[0..n) (exact match), -1 when absent.
int muon_mex_choose (const char *name, const char *const *names, int n);
// A numeric field as a pointer to its doubles (NULL when missing) and its element count.
const double *muon_mex_field_array (const char *fname, const mxArray *s, const char *field,
                                    size_t *count, size_t *rows, size_t *cols);

// Newton-Schulz options from a struct (MUON_MEX_NS_FIELDS, restarts, and coeffs: a K x 3
// matrix, K <= MUON_MAX_STEPS, [] for the default schedule); missing fields keep the core's
// defaults.  o->coeffs points at a static copy, valid until the next call.
void muon_mex_ns_opts (const char *fname, const mxArray *s, muon_ns_opts *o);

// Muon update options (the muon_ns fields plus beta, nesterov, form, arith, scale, scale_factor,
// scale_rows / scale_cols, split_rows) from the struct muon_update.m builds; *experts from its
// "experts" field (1 when missing).  split_rows is mxMalloc-ed: freed when the call ends.
void muon_mex_update_opts (const char *fname, const mxArray *s, muon_update_opts *o,
                           double *experts);

// ZeRO layout options (MUON_MEX_LAYOUT_FIELDS) and distributed step options (the update
// options plus MUON_MEX_STEP_FIELDS) from a struct, over the core's defaults.
void muon_mex_zero_layout_opts (const char *fname, const mxArray *s, muon_zero_layout_opts *o);
void muon_mex_zero_step_opts (const char *fname, const mxArray *s, muon_zero_step_opts *o,
                              double *experts);

// Cost model options (MUON_MEX_COST_FIELDS, design: a name of the variant list,
// and the muon_ns fields) from a struct, over the core's defaults.
void muon_mex_zero_cost_opts (const char *fname, const mxArray *s, muon_zero_cost_opts *o);

#endif
