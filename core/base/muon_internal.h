/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_internal.h - what core files share and the public API does not show: the context
 * layout, the state subsystems attach to it, the error macros (CHECK / CHECKSTATUS /
 * CHECKMEM jump to the function's one cleanup label `fail` after recording file, line,
 * function and message in the context, as libltfat's macros.h), the clock, aligned memory
 * and the thread policy (the plug-in loader is plugin.h's, the tensor checks
 * tensor_check.h's).  The bottom layer: it includes muon_base.h only.
 */
#ifndef MUON_INTERNAL_H
#define MUON_INTERNAL_H

#include "muon_base.h"

// muon_tensor_check for a tensor that must live on the device `where` (the CUDA back end
// takes device tensors too: the device arrays of darray.c).
muon_status muon_tensor_check_on (muon_ctx *ctx, const muon_tensor *t, const char *name,
                                  muon_device where);

// What a subsystem keeps per context (muon_ctx_attach).
typedef void (*muon_ctx_free_fn) (void *state);
typedef struct {
  const char *key;            // the subsystem's name ("cuda", "onednn", "ns.stats")
  void *state;
  muon_ctx_free_fn destroy;
  int kind;                   // MUON_CTX_KEEP or MUON_CTX_CACHE
} muon_ctx_slot;

#define MUON_CTX_SLOTS 8      // subsystems that may attach state to one context

struct muon_ctx {
  muon_status last_status;
  char last_error[512];
  char last_where[192];      // "file:line (function)" of the check that recorded it
  void *workspace;           // 64-byte aligned scratch, grown on demand
  size_t workspace_bytes;
  muon_ctx_slot slots[MUON_CTX_SLOTS];  // attached subsystem state, in attachment order
  int nslots;
  int (*poll) (void *arg);   // the interrupt poll (muon_ctx_set_interrupt_poll; NULL: none)
  void *poll_arg;
  int polling;               // 1 while the poll runs: every call on ctx is refused (CHECKCTX)
};

// Calls ctx's interrupt poll (0 when there is none) with ctx->polling set around it, so
// that a call the poll makes on ctx - muon_ctx_release, a nested muon_ns - is refused by
// CHECKCTX instead of freeing or reusing the running call's workspace and state.
int muon_ctx_poll (muon_ctx *ctx);
// MUON_ERR_INTERRUPTED ("interrupted", recorded at the caller's place) when ctx's interrupt
// poll returns nonzero, else MUON_OK.  Called on the calling thread outside parallel regions.
#define muon_ctx_interrupted(ctx)                                                   \
  (muon_ctx_poll (ctx) ? muon_ctx_set_error ((ctx), MUON_ERR_INTERRUPTED, "interrupted") \
                       : MUON_OK)

// Records an error with the place it was raised (muon_ctx_last_where).  Inside core every
// muon_ctx_set_error call - those of CHECK included - goes through this macro, so the place
// is the file, line and function of the check that fired; CHECKSTATUS passes the status up
// and keeps the innermost place.
muon_status muon_ctx_set_error_at (muon_ctx *ctx, muon_status code, const char *file, int line,
                                   const char *func, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__ ((format (printf, 6, 7)))
#endif
  ;
#define muon_ctx_set_error(ctx, code, ...)                               \
  muon_ctx_set_error_at ((ctx), (code), __FILE__, __LINE__, __func__, __VA_ARGS__)

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

// (the message names the function, not the expression: users read it)
#define CHECKMEM(p)                                                      \
  CHECK (MUON_ERR_NOMEM, (p) != NULL, "out of memory (in %s)", __func__)

// The entry check of every public call that takes a context: NULLPTR for a NULL ctx (no
// message: there is nowhere to record it), and BADARG when ctx's interrupt poll is running
// (the poll called libmuon with the context of the call that polls it: that call's
// workspace and state are in use), touching nothing but the context's error.
muon_status muon_ctx_busy (muon_ctx *ctx);
#define CHECKCTX(ctx)                                                              \
  do {                                                                             \
    if ((ctx) == NULL) return MUON_ERR_NULLPTR;                                    \
    if ((ctx)->polling) return muon_ctx_busy ((muon_ctx *) (ctx));                  \
  } while (0)

//---- subsystem state held by the context ---------------------------------------------------
// The context knows no subsystem above it: one that keeps state per context (the CUDA back
// end's library and device state, oneDNN's engine and primitives, the last muon_ns call's
// statistics) attaches it under a key of its own and finds it again with muon_ctx_lookup;
// muon_ctx_destroy calls the destructors, last attached first.  State attached as
// MUON_CTX_CACHE is made again on demand, so muon_ctx_release (ctx, 0, ...) frees it too.
enum { MUON_CTX_KEEP = 0, MUON_CTX_CACHE = 1 };
// [in] key: a string of static storage, the subsystem's name; [in] state: owned by ctx from
// now on, freed with destroy (NULL: with nothing) - on failure too, at once.  BADARG when the
// key is taken, NOMEM when MUON_CTX_SLOTS subsystems hold slots already.
muon_status muon_ctx_attach (muon_ctx *ctx, const char *key, void *state,
                             muon_ctx_free_fn destroy, int kind);
// The state attached under key, or NULL.
void *muon_ctx_lookup (const muon_ctx *ctx, const char *key);
// The state attached under key, made on first use: `bytes` of zeros attached with destroy
// and kind (muon_ctx_attach).  [out] *state.
muon_status muon_ctx_state (muon_ctx *ctx, const char *key, size_t bytes,
                            muon_ctx_free_fn destroy, int kind, void **state);
// Frees the state attached under key now (nothing when there is none).
void muon_ctx_detach (muon_ctx *ctx, const char *key);

// Seconds on a monotonic clock (differences only).
double muon_clock (void);

// Aligned allocation helpers (posix_memalign; NULL on failure).
void *muon_aligned_alloc (size_t bytes);
void muon_aligned_free (void *p);

// The thread policy (threads.c).  The cores this process may run on (its affinity mask; the
// online count as a fallback).
int muon_core_count (void);
// Threads of a call with threads = 0: OMP_NUM_THREADS's first entry when set (at most
// MUON_MAX_THREADS), else the cores shared out among the ranks of an MPI job on this machine
// when the launcher says how many there are.  A constant of the machine: never reads the load.
int muon_default_threads (void);
// The positive count the environment variable var starts with, as libgomp reads
// OMP_NUM_THREADS (blanks, digits, then the end or a ','), at most cap; 0 when unset or not
// such a number.
int muon_env_count (const char *var, long cap);
// At most n, and fewer when the address space left under the process's limit (RLIMIT_AS,
// `ulimit -v`) cannot hold n thread stacks twice over, besides the malloc arenas n threads
// may reserve: OpenMP ends the process when it
// cannot create a thread.  A probe (never fails); the bits do not depend on the count.
int muon_threads_that_fit (int n);
// The machine's physical memory in bytes (0 when the system does not say): a constant of the
// machine, which a step that would hold more than it refuses (a probe: never fails).
double muon_memory_bytes (void);

// The names of a list (DESIGN.md 3, "each list once").  A list is its X-macro
// (muon_base.h); its public face is the catalogue (core/lists/, muon_lists.h: muon_names,
// muon_name_lookup), which gateways, inst/ and the tests use.  A layer below the catalogue
// that needs a name (an environment variable, an error message) builds a table from the same
// X-macro here, so no name is typed twice:
//   MUON_NAME_TABLE (gemm_names, MUON_GEMM_LIST);        // static, [value] = "name"
//   MUON_NAME_OF (gemm_names, g)                         // "onednn"; "unknown" for no value
//   muon_name_find (gemm_names, MUON_NAME_COUNT (gemm_names), "auto", &v)
// (designated initializers: a list need not be contiguous; a gap is a NULL entry).
// muon_name_find: the index of `name` in names[0 .. n) (exact match; NULL entries match
// nothing), MUON_ERR_BADARG when absent, MUON_ERR_NULLPTR for NULL name or value;
// muon_name_at: names[i], NULL when i is out of range or a gap (names.c).
muon_status muon_name_find (const char *const *names, int n, const char *name, int *value);
const char *muon_name_at (const char *const *names, int n, int i);
#define MUON_NAME_ENTRY(name, value, text) [value] = text,
#define MUON_NAME_TABLE(table, items)                                           \
  static const char *const table[] = { items (MUON_NAME_ENTRY) }
#define MUON_NAME_COUNT(table) ((int) (sizeof table / sizeof table[0]))
#define MUON_NAME_OF(table, v)                                                  \
  (muon_name_at (table, MUON_NAME_COUNT (table), (int) (v)) ? table[(int) (v)] : "unknown")

// A matrix's size and index, sorted by muon_size_key_desc: numel descending, then index
// ascending (a stable sort through qsort): LPT and the owners of the ZeRO designs.
typedef struct { size_t numel, index; } muon_size_key;
int muon_size_key_desc (const void *a, const void *b);
// A matrix's shape and index, sorted by muon_shape_key_desc: rows descending, then cols
// descending, then index ascending: the size_desc flat order, DeepSpeed's Muon order
// (sorted (params, key=lambda x: x.size (), reverse=True) compares each torch.Size as a
// tuple, and Python's sort is stable).
typedef struct { size_t rows, cols, index; } muon_shape_key;
int muon_shape_key_desc (const void *a, const void *b);

#endif
