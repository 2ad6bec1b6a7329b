/* ns_trace.c - the opt-in per-step trace of muon_ns (muon_ns_trace in muon_math.h): checks the
 * caller's buffers against the page before the run.  The snapshots themselves are taken
 * inside the iteration (ns_impl.h), from the run's own values.  ns.c says whether the Gram
 * path runs (muon_ns_uses_gram), so that this file calls nothing of ns.c (no call cycle).
 */
#include "math_internal.h"

muon_status muon_ns_trace_begin (muon_ctx *ctx, muon_ns_trace *tr, const muon_tensor *G,
                                 size_t n, size_t m, int steps, int gram)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, tr != NULL && G != NULL, "trace and G must not be NULL");
  CHECK (MUON_ERR_BADSHAPE, G->batch == 1, "a trace records one page, not %zu", G->batch);
  CHECK (MUON_ERR_BADSHAPE, tr->n == n && tr->m == m,
         "the trace is sized for %zu x %zu, the page iterates as %zu x %zu", tr->n, tr->m, n,
         m);
  CHECK (MUON_ERR_BADSHAPE, tr->cap >= steps + 1,
         "the trace holds %d pages, %d steps need %d", tr->cap, steps, steps + 1);
  tr->steps = steps;
  tr->gram = gram != 0;
  tr->transposed = G->rows > G->cols;
fail:
  return status;
}
