/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* math_internal.h - what the maths layer's files share with each other and with the layers
 * above it (zero/), and the public API does not show: the schedule expansion, the CUDA back
 * end's host side, and the two halves of muon_update that the distributed step reuses.
 */
#ifndef MUON_MATH_INTERNAL_H
#define MUON_MATH_INTERNAL_H

#include "muon_internal.h"
#include "muon_math.h"

//---- Newton-Schulz (ns.c) -----------------------------------------------------------------

// Expands o's schedule into buf (cap triples at most).  [out] buf: steps x 3, *steps.
muon_status muon_ns_schedule (muon_ctx *ctx, const muon_ns_opts *o, double *buf, int cap,
                              int *steps);
// Checks a trace against the page it will record (ns_trace.c): one page (batch 1), its
// n x m shape (n = min (rows, cols), m the other), room for steps + 1 pages.  muon_ns's
// check; muon_update makes it for each row block before it writes M.
muon_status muon_ns_trace_check (muon_ctx *ctx, const muon_ns_trace *tr, size_t rows,
                                 size_t cols, size_t batch, int steps);
// BADARG when a trace buffer (x, and r, q where given, cap pages each) overlaps one of the
// nt (checked, host) tensors t (named names[k] in the message) or another trace buffer:
// the snapshots would overwrite an [in] tensor or the result, or each other.
muon_status muon_ns_trace_check_alias (muon_ctx *ctx, const muon_ns_trace *tr,
                                       const muon_tensor *const *t, const char *const *names,
                                       int nt);
// muon_ns_trace_check on G's pages, then fills the trace's [out] fields (gram: whether the
// Gram path runs, muon_ns_uses_gram).
muon_status muon_ns_trace_begin (muon_ctx *ctx, muon_ns_trace *tr, const muon_tensor *G,
                                 int steps, int gram);

//---- the CUDA back end (cuda_loader.c) ----------------------------------------------------

// Loads ctx's CUDA back end on first use (once per context): MUON_OK, or NOTBUILT / NODEVICE
// with the loader's message recorded (again on every later call).
muon_status muon_cuda_load (muon_ctx *ctx);
// 1 when libmuon_cuda.so is already loaded in this process (another gateway's context used
// CUDA), else 0; loads nothing.
int muon_cuda_resident (void);
// muon_ns on the CUDA back end, for tensors and options muon_ns has checked and the schedule
// it expanded (coef: steps x 3).  Errors and the non-finite warning keep the back end's text.
muon_status muon_cuda_ns (muon_ctx *ctx, const muon_tensor *G, muon_tensor *X,
                          const muon_ns_opts *o, const double *coef, int steps);

// The loaded back end's entry points and its device state (the `void **state` of every
// entry), for the device arrays (darray.c); NOTBUILT / NODEVICE as muon_cuda_load.
struct muon_cuda_api;
muon_status muon_cuda_api_of (muon_ctx *ctx, const struct muon_cuda_api **api,
                              void ***state);

//---- raw memory of device arrays (dmem.c), for the device ZeRO step (core/zero/) ----------
// Pointers are memory of device d: the CUDA back end's (device pointers) or the stand-in's
// (host memory).  Each call returns when its result is in place.

// The memory of a double device array (NULL for another class or NULL).
double *muon_darray_f64 (const muon_darray *a);
// dst[i] = src[i] (distinct or equal ranges: overlapping ones are MUON_ERR_BADARG, as
// cudaMemcpy cannot copy them), dst[i] = 0, i < n.
muon_status muon_dmem_copy (muon_ctx *ctx, muon_device d, double *dst, const double *src,
                            size_t n);
muon_status muon_dmem_zero (muon_ctx *ctx, muon_device d, double *dst, size_t n);
// Row-major elements [k0, k1) of the column-major rows x cols A to R (to_rm 1), or back.
muon_status muon_dmem_rm (muon_ctx *ctx, muon_device d, int to_rm, double *A, size_t rows,
                          size_t cols, size_t k0, size_t k1, double *R);
// out[i] = the fixed-order sum of W blocks `stride` apart, / div when div > 0
// (muon_block_sum_at), i < n; out may be in only when W is 1 or stride >= n (CUDA's
// threads write out while others still read in).
muon_status muon_dmem_block_sum (muon_ctx *ctx, muon_device d, const double *in, int W,
                                 size_t stride, size_t n, double div, double *out);
// m = momentum step (m, x), x = the Newton-Schulz input (o's form, beta, nesterov), n
// elements: update.c's per-element maths on a flat vector (muon_update_math.h).
muon_status muon_dmem_momentum (muon_ctx *ctx, muon_device d, const muon_update_opts *o,
                                double *m, double *x, size_t n);
// muon_darray_update on the column-major rows x cols matrices G, M, U of double memory; M
// NULL: U = scale * NS (G) (no momentum).
muon_status muon_dmem_update (muon_ctx *ctx, muon_device d, const double *G, double *M,
                              double *U, size_t rows, size_t cols, size_t experts,
                              const muon_update_opts *o);

//---- the Muon update (update.c) -----------------------------------------------------------

// Steps 2 and 3 of muon_update on an already formed Newton-Schulz input X: U = scale *
// muon_ns (X) per row block.  Arguments as muon_update's, checked by the caller (X F64 or
// F32, U like X, options valid); MUON_WARN_NONFINITE as muon_update.
muon_status muon_update_orthogonalize (muon_ctx *ctx, const muon_tensor *X, muon_tensor *U,
                                       const muon_update_opts *o);
// Validates the Newton-Schulz options for o->device (BADARG / UNSUPPORTED / NULLPTR): what
// muon_ns checks, for the paths that reach a back end without it (the CUDA update).
muon_status muon_ns_check_opts (muon_ctx *ctx, const muon_ns_opts *o);
// The part of muon_ns_check_opts on the fields the FLOP model reads (muon_ns_flops_matrix,
// the ZeRO cost model): method, steps, the coefficient count (ncoeffs >= 1 with coeffs),
// at most MUON_MAX_STEPS steps after the default, the restarts, gram_min_aspect; muon_ns's
// statuses and messages (ctx may be NULL: the status only).  [out] *steps (may be NULL): the
// steps a call runs.
muon_status muon_ns_check_flop_opts (muon_ctx *ctx, const muon_ns_opts *o, int *steps);
// Validates the update options for a matrix of `rows` rows (BADARG / BADSHAPE / NULLPTR),
// and loads the CUDA back end when o->ns.device asks for it (NOTBUILT / NODEVICE): the
// checks a caller makes before it writes anything.
muon_status muon_update_check_opts (muon_ctx *ctx, const muon_update_opts *o, size_t rows);

#endif
