/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_trace.c - the opt-in per-step trace of muon_ns (muon_ns_trace in muon_math.h): checks the
 * caller's buffers against the page before the run.  The snapshots themselves are taken
 * inside the iteration (ns_impl.h), from the run's own values.  ns.c says whether the Gram
 * path runs (muon_ns_uses_gram), so that this file calls nothing of ns.c (no call cycle).
 */
#include <stdint.h>

#include "math_internal.h"
#include "tensor_check.h"

muon_status muon_ns_trace_check (muon_ctx *ctx, const muon_ns_trace *tr, size_t rows,
                                 size_t cols, size_t batch, int steps)
{
  muon_status status = MUON_OK;
  size_t n = rows < cols ? rows : cols, m = rows < cols ? cols : rows;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, tr != NULL, "trace must not be NULL");
  CHECK (MUON_ERR_BADSHAPE, batch == 1, "a trace records one page, not %zu", batch);
  CHECK (MUON_ERR_BADSHAPE, tr->n == n && tr->m == m,
         "the trace is sized for %zu x %zu, the page iterates as %zu x %zu", tr->n, tr->m, n,
         m);
  CHECK (MUON_ERR_BADSHAPE, tr->cap >= steps + 1,
         "the trace holds %d pages, %d steps need %d", tr->cap, steps, steps + 1);
fail:
  return status;
}

// The bytes [p, p + nb) of a trace buffer and those of host tensor t share one.
static int span_overlaps (const double *p, size_t nb, const muon_tensor *t)
{
  size_t tb = 0;
  if (!muon_tensor_extent (t, &tb))
    return 1;
  uintptr_t a = (uintptr_t) p, b = (uintptr_t) t->data;
  return nb > 0 && tb > 0 && a < b + tb && b < a + nb;
}

static int spans_overlap (const double *p, size_t np, const double *q, size_t nq)
{
  uintptr_t a = (uintptr_t) p, b = (uintptr_t) q;
  return np > 0 && nq > 0 && a < b + nq && b < a + np;
}

muon_status muon_ns_trace_check_alias (muon_ctx *ctx, const muon_ns_trace *tr,
                                       const muon_tensor *const *t, const char *const *names,
                                       int nt)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, tr != NULL, "trace must not be NULL");
  const double *buf[3] = { tr->x, tr->r, tr->q };
  const char *bname[3] = { "x", "r", "q" };
  size_t bytes[3] = { 0, 0, 0 };
  for (int i = 0; i < 3; i++)
  {
    size_t cols = i == 0 ? tr->m : tr->n, cap = tr->cap > 0 ? (size_t) tr->cap : 0;
    size_t page = cols == 0 || tr->n <= SIZE_MAX / sizeof (double) / cols
                    ? tr->n * cols * sizeof (double) : SIZE_MAX;
    CHECK (MUON_ERR_BADSHAPE, buf[i] == NULL || (page < SIZE_MAX && (cap == 0
                                                  || page <= SIZE_MAX / cap)),
           "the trace's %s buffer spans more bytes than an address holds", bname[i]);
    if (buf[i] != NULL)
      bytes[i] = cap * page;
  }
  for (int i = 0; i < 3; i++)
  {
    if (buf[i] == NULL)
      continue;
    for (int k = 0; k < nt; k++)
      CHECK (MUON_ERR_BADARG, !span_overlaps (buf[i], bytes[i], t[k]),
             "the trace's %s buffer must not overlap %s", bname[i], names[k]);
    for (int j = 0; j < i; j++)
      CHECK (MUON_ERR_BADARG, buf[j] == NULL || !spans_overlap (buf[j], bytes[j], buf[i], bytes[i]),
             "the trace's %s and %s buffers must not overlap", bname[j], bname[i]);
  }
fail:
  return status;
}

muon_status muon_ns_trace_begin (muon_ctx *ctx, muon_ns_trace *tr, const muon_tensor *G,
                                 int steps, int gram)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, tr != NULL && G != NULL, "trace and G must not be NULL");
  CHECKSTATUS (muon_ns_trace_check (ctx, tr, G->rows, G->cols, G->batch, steps));
  tr->steps = steps;
  tr->gram = gram != 0;
  tr->transposed = G->rows > G->cols;
fail:
  return status;
}
