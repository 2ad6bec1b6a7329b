/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon.h - the whole public C API of libmuon, the C99 core of muonlab: the umbrella over the
 * layers' headers below.
 *
 * Newton-Schulz orthogonalization (standard and Gram) in fp64, fp32 and emulated bf16 / fp16
 * with the eager-CUDA rounding model, named coefficient schedules, and the context object.
 *
 * Conventions
 *   - Every function returns muon_status: 0 ok, < 0 error, > 0 warning.  The text of the last
 *     error is muon_ctx_last_error (ctx).  Nothing here prints, exits or aborts.
 *   - Matrices are column-major (Octave's layout).  A muon_tensor is a batch of `batch` pages,
 *     each rows x cols with leading dimension ld; page e starts at data + e * stride elements.
 *   - The caller allocates outputs; core writes into them.  Ownership is marked per argument:
 *     [in] read only, [out] written, [in,out] both.
 *
 * Usage
 *   muon_ctx *ctx = NULL;
 *   muon_ctx_create (&ctx);
 *   muon_ns_opts o;  muon_ns_opts_default (&o);  o.precision = MUON_PREC_BF16;
 *   muon_tensor G = muon_tensor_matrix (MUON_F64, g, m, n), X = muon_tensor_matrix (MUON_F64, x, m, n);
 *   if (muon_ns (ctx, &G, &X, &o) < 0) fprintf (stderr, "%s\n", muon_ctx_last_error (ctx));
 *   muon_ctx_destroy (&ctx);
 */
#ifndef MUON_H
#define MUON_H

// One header per layer of core/, bottom to top (DESIGN.md 2; each includes those it needs),
// and the zero layer's second one, its plan-only cost model.
#include "muon_base.h"      // status table, context, tensors (core/base/)
#include "muon_gemm.h"      // the CPU product providers (core/gemm/)
#include "muon_math.h"      // precision, schedules, Newton-Schulz, Muon update (core/math/)
#include "muon_comm.h"      // communicators (core/comm/)
#include "muon_zero.h"      // ZeRO layout, plans and distributed Muon steps (core/zero/)
#include "muon_zero_cost.h" // the plan-only cost of a step (core/zero/)
#include "muon_lists.h"     // the catalogue of every list and limit (core/lists/)

#endif
