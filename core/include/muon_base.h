/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_base.h - part of the public C API (included by muon.h): the status table, the context
 * (last error, workspace), tensors, and the precision and thread vocabulary every layer uses
 * (core/base/).
 */
#ifndef MUON_BASE_H
#define MUON_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------------------------------------------------------------------
// Status table: enum, text and Octave error id from one list, so they cannot drift.
//---------------------------------------------------------------------------------------------

// X (ENUM, VALUE, TEXT, OCTAVE_ID)
#define MUON_STATUS_LIST(X)                                                     \
  X (MUON_OK,              0,  "success",                     "ok")           \
  X (MUON_WARN_NONFINITE,  1,  "non-finite values in result", "nonFiniteResult") \
  X (MUON_ERR_NOMEM,      -1,  "out of memory",               "noMemory")     \
  X (MUON_ERR_NULLPTR,    -2,  "null pointer",                "nullPointer")  \
  X (MUON_ERR_BADSHAPE,   -3,  "bad shape",                   "badShape")     \
  X (MUON_ERR_BADARG,     -4,  "bad argument",                "badArg")       \
  X (MUON_ERR_BADTYPE,    -5,  "bad data type",               "badType")      \
  X (MUON_ERR_UNSUPPORTED,-6,  "unsupported combination",     "unsupported")  \
  X (MUON_ERR_NOTBUILT,   -7,  "back end not built",          "notBuilt")     \
  X (MUON_ERR_NODEVICE,   -8,  "no usable device",            "noDevice")     \
  X (MUON_ERR_CUDA,       -9,  "CUDA error",                  "cuda")         \
  X (MUON_ERR_CUBLAS,    -10,  "cuBLAS error",                "cublas")       \
  X (MUON_ERR_NCCL,      -11,  "NCCL error",                  "nccl")         \
  X (MUON_ERR_MPI,       -12,  "MPI error",                   "mpi")          \
  X (MUON_ERR_INTERNAL,  -13,  "internal error",              "internal")     \
  X (MUON_ERR_DEVMEM,    -14,  "device out of memory",        "outOfMemory")  \
  X (MUON_ERR_STALE,     -15,  "stale device array",          "staleHandle")  \
  X (MUON_ERR_INTERRUPTED,-16,  "interrupted",                 "interrupted")

typedef enum {
#define MUON_X_ENUM(name, value, text, id) name = value,
  MUON_STATUS_LIST (MUON_X_ENUM)
#undef MUON_X_ENUM
} muon_status;

// Human-readable text of a status ("bad shape"); "unknown status" for other values.
const char *muon_status_string (muon_status s);
// Octave error id without the "muonlab:" prefix ("badShape"); "unknown" for other values.
const char *muon_status_id (muon_status s);

//---------------------------------------------------------------------------------------------
// Named lists: every enumerated value the core checks is one line X (ENUM, VALUE, "name") of a
// MUON_<THING>_LIST in the public header of its layer, which generates the enum there, the
// range check below, and the entry of the catalogue of lists (MUON_LISTS, muon_lists.h: the
// one naming API, muon_names / muon_name_lookup) that gateways, inst/ and the tests read.
// Adding a value is adding its line.
//---------------------------------------------------------------------------------------------

#define MUON_ENUM_ITEM(name, value, text) name = value,
#define MUON_ENUM_PLUS_ONE(name, value, text) + 1
// MUON_IN_LIST (MUON_PRECISION_LIST, v): 1 when v is a value of the list, 0 else (a gap, a
// negative value, one past the end), from the X-macro itself, so that no range is typed by
// hand; header only (the CUDA plug-in uses it too).  Values are below 64 (muon_lists.h
// checks every list at compile time); v is read twice.
#define MUON_LIST_BIT(name, value, text) | (1ULL << (value))
#define MUON_IN_LIST(items, v)                                                  \
  ((unsigned long long) (v) < 64ULL && (((0ULL items (MUON_LIST_BIT)) >> (v)) & 1ULL))

//---------------------------------------------------------------------------------------------
// Context: back end state, reusable workspace, last error.
//
// Threads: a context, and everything made with it (device arrays, communicators, plans,
// the simulated communicator it caches), must be used by one thread at a time; two threads
// calling into one context at once corrupt its workspace, caches and last error (the caller
// serializes such calls, or gives each thread its own context).  One context per thread is
// fine: calls on different contexts may run at once, and give the same bits as the same
// calls run one after the other (OpenBLAS's process-wide thread count is held at one while
// any of them runs).
//---------------------------------------------------------------------------------------------

typedef struct muon_ctx muon_ctx;

// [out] *ctx: a new context, destroyed with muon_ctx_destroy.
muon_status muon_ctx_create (muon_ctx **ctx);
// [in,out] *ctx: frees everything the context owns and sets *ctx = NULL (NULL is fine).
muon_status muon_ctx_destroy (muon_ctx **ctx);
// Text of the last error recorded in ctx ("" if none).  Owned by ctx, valid until the next call.
const char *muon_ctx_last_error (const muon_ctx *ctx);
// An optional interrupt poll: long calls (muon_ns between its pages and Newton-Schulz steps,
// and so every call built on it: muon_update, the ZeRO step) call poll (arg) on the calling
// thread, outside any parallel region, and when it returns nonzero stop, free what they
// allocated and return MUON_ERR_INTERRUPTED ("interrupted"); their outputs' contents are then
// unspecified.  The poll changes no result bit.  poll NULL: none (the default).  The CUDA
// back end does not poll, nor does a ZeRO step whose communicator has ranks in other
// processes (they would wait for ever in its collectives for a rank that stopped alone).
// The poll must not call libmuon with the context of the call that polls it (that call's
// workspace and cached state are in use): while it runs, every call on that context -
// muon_ctx_release, muon_ctx_destroy and muon_darray_destroy included; not the queries of its
// last error nor muon_ctx_set_error - returns MUON_ERR_BADARG "the context is in use by a
// running call (called from its interrupt poll?)" and touches nothing else.  The poll may use
// another context.  It must return (no longjmp out of it): the context stays in use until
// it does.
muon_status muon_ctx_set_interrupt_poll (muon_ctx *ctx, int (*poll) (void *arg), void *arg);
// Status of the last error recorded in ctx (MUON_OK if none).
muon_status muon_ctx_last_status (const muon_ctx *ctx);
// Where in core the last error was recorded: "core/math/ns.c:230 (muon_ns)", the file, line
// and function of the check that fired ("" when the last status came from outside core, or
// is MUON_OK).  Owned by ctx, valid until the next call.
const char *muon_ctx_last_where (const muon_ctx *ctx);
// Records an error (printf-style message) in ctx and returns code; used by core and gateways.
// fmt NULL: records MUON_ERR_NULLPTR with the message "the error message's format must not
// be NULL" instead, and returns MUON_ERR_NULLPTR (ctx NULL: returns code, or NULLPTR for a
// NULL fmt, recording nothing).
muon_status muon_ctx_set_error (muon_ctx *ctx, muon_status code, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__ ((format (printf, 3, 4)))
#endif
  ;
// A scratch buffer of at least `bytes` bytes, 64-byte aligned, owned by ctx and reused by
// later calls (contents are not preserved).  [out] *ptr.
muon_status muon_workspace_get (muon_ctx *ctx, size_t bytes, void **ptr);
// Bytes currently held by the workspace (for tests of reuse).
size_t muon_workspace_size (const muon_ctx *ctx);
// Frees the workspace when it holds more than `keep` bytes (muon_ns calls it with
// MUON_WORKSPACE_KEEP when it ends, so one large call does not pin its memory for the
// session); keep 0 frees it, and the cached oneDNN primitives too.  [out] *freed: the
// workspace bytes given back (NULL: not wanted).
#define MUON_WORKSPACE_KEEP ((size_t) 64 << 20)
muon_status muon_ctx_release (muon_ctx *ctx, size_t keep, size_t *freed);

//---------------------------------------------------------------------------------------------
// Tensors
//---------------------------------------------------------------------------------------------

typedef enum { MUON_F64 = 0, MUON_F32 = 1 } muon_dtype;               // storage type

// Where data lives and a call computes.
#define MUON_DEVICE_LIST(X)                                                     \
  X (MUON_DEVICE_CPU,  0, "cpu")                                                \
  X (MUON_DEVICE_CUDA, 1, "cuda")
typedef enum { MUON_DEVICE_LIST (MUON_ENUM_ITEM) } muon_device;

typedef struct {
  muon_dtype dtype;
  muon_device device;
  size_t rows, cols;   // of one page
  size_t batch;        // number of pages (>= 1)
  size_t ld;           // leading dimension, >= rows
  size_t stride;       // elements between page starts
  void *data;
} muon_tensor;

// A dense batch: rows x cols x batch, ld = rows, stride = rows * cols, on the CPU.
muon_tensor muon_tensor_batch (muon_dtype dtype, void *data, size_t rows, size_t cols,
                               size_t batch);
// One dense rows x cols matrix on the CPU.
muon_tensor muon_tensor_matrix (muon_dtype dtype, void *data, size_t rows, size_t cols);
// Checks a tensor description (non-NULL data, sizes >= 1, ld >= rows, pages not overlapping
// unless batch == 1 ... see muon_tensor_check in ctx.c).  `name` is used in the message
// (NULL: "the tensor").
muon_status muon_tensor_check (muon_ctx *ctx, const muon_tensor *t, const char *name);

//---------------------------------------------------------------------------------------------
// Compute precisions and threads: the names every layer speaks (the rounding itself is
// muon_math.h's and core/math/muon_precision.h's).
//---------------------------------------------------------------------------------------------

#define MUON_PRECISION_LIST(X)                                                  \
  X (MUON_PREC_DOUBLE, 0, "double")                                             \
  X (MUON_PREC_SINGLE, 1, "single")                                             \
  X (MUON_PREC_BF16,   2, "bf16")                                               \
  X (MUON_PREC_FP16,   3, "fp16")
typedef enum { MUON_PRECISION_LIST (MUON_ENUM_ITEM) } muon_precision;
// Name <-> value ("double", "single", "bf16", "fp16").

#define MUON_MAX_THREADS 1024   // the most CPU threads a call may ask for

#ifdef __cplusplus
}
#endif
#endif
