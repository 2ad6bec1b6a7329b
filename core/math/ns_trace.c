/* ns_trace.c - the opt-in per-step trace of muon_ns (muon_ns_trace in muon_math.h): checks the
 * caller's buffers against the page before the run.  The snapshots themselves are taken
 * inside the iteration (ns_impl.h), from the run's own values.  ns.c says whether the Gram
 * path runs (muon_ns_uses_gram), so that this file calls nothing of ns.c (no call cycle).
 */
#include "math_internal.h"

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
