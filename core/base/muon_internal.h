/* muon_internal.h - what core files share and the public API does not show: the context
 * layout and the error macros (CHECK / CHECKSTATUS / CHECKMEM jump to the function's one
 * cleanup label `fail` after recording file, line and message in the context).
 */
#ifndef MUON_INTERNAL_H
#define MUON_INTERNAL_H

#include "muon.h"
#include "ns_cuda_abi.h"

struct muon_ctx {
  muon_status last_status;
  char last_error[512];
  void *workspace;           // 64-byte aligned scratch, grown on demand
  size_t workspace_bytes;
  void *cuda_lib;             // dlopen handle of libmuon_cuda.so (NULL until loaded)
  muon_cuda_api cuda;         // its entry points
  void *cuda_state;           // device state owned by the CUDA back end
  int cuda_tried;             // load attempted; cuda_load_status holds the outcome
  muon_status cuda_load_status;
  char cuda_message[256];
  void *gemm_state;           // oneDNN engine, stream and cached primitives (gemm_onednn.c)
  muon_ns_stats ns_stats;     // the running or last muon_ns call's (gemm.c and ns.c count)
};

// Record an error and jump to `fail`; `status` must be a local muon_status in scope.
#define CHECK(code, cond, ...)                                           \
  do {                                                                   \
    if (!(cond)) {                                                       \
      status = muon_ctx_set_error (ctx, (code), __VA_ARGS__);            \
      goto fail;                                                         \
    }                                                                    \
  } while (0)

// Propagate an error status from a call that has already recorded its message.
#define CHECKSTATUS(call)                                                \
  do {                                                                   \
    muon_status s_ = (call);                                             \
    if (s_ < 0) { status = s_; goto fail; }                              \
  } while (0)

#define CHECKMEM(p)                                                      \
  CHECK (MUON_ERR_NOMEM, (p) != NULL, "out of memory allocating %s", #p)

// Checks that need no context (for muon_ctx_* themselves and NULL ctx handling).
#define CHECKCTX(ctx) do { if ((ctx) == NULL) return MUON_ERR_NULLPTR; } while (0)

// Seconds on a monotonic clock (differences only).
double muon_clock (void);

// Aligned allocation helpers (posix_memalign; NULL on failure).
void *muon_aligned_alloc (size_t bytes);
void muon_aligned_free (void *p);

// dlopen of a plug-in library (cuda_loader.c): the path in $env_var when set, else `name`
// beside the object this code was linked into (the MEX file; found with dladdr), else the
// loader's default path.  NULL with the reason in why (len bytes) when none opens.
void *muon_dlopen_beside (const char *env_var, const char *name, char *why, size_t len);

// CUDA back end loader (cuda_loader.c).  Returns MUON_OK with ctx->cuda set, or
// MUON_ERR_NOTBUILT / MUON_ERR_NODEVICE with the message recorded.
muon_status muon_cuda_load (muon_ctx *ctx);
void muon_cuda_unload (muon_ctx *ctx);



// Newton-Schulz internals shared by the CPU and CUDA paths (ns.c).
#define MUON_MAX_STEPS 1000
// Expands o's schedule into buf (cap triples at most).  [out] buf: steps x 3, *steps.
muon_status muon_ns_schedule (muon_ctx *ctx, const muon_ns_opts *o, double *buf, int cap,
                              int *steps);
// Runs muon_ns on the CUDA back end (cuda_loader.c): NOTBUILT / NODEVICE when unavailable.
muon_status muon_ns_cuda_dispatch (muon_ctx *ctx, const muon_tensor *G, muon_tensor *X,
                                   const muon_ns_opts *o);

// Steps 2 and 3 of muon_update (update.c) on an already formed Newton-Schulz input X:
// U = scale * muon_ns (X) per row block.  Arguments as muon_update's, checked by the caller
// (X F64 or F32, U like X, options valid); MUON_WARN_NONFINITE as muon_update.
muon_status muon_update_orthogonalize (muon_ctx *ctx, const muon_tensor *X, muon_tensor *U,
                                       const muon_update_opts *o);
// Validates the update options for a matrix of `rows` rows (BADARG / BADSHAPE / NULLPTR).
muon_status muon_update_check_opts (muon_ctx *ctx, const muon_update_opts *o, size_t rows);
#endif
