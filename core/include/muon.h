/* muon.h - the whole public C API of libmuon, the C99 core of muonlab.
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
  X (MUON_WARN_NONFINITE,  1,  "non-finite values in result", "nonFinite")    \
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
  X (MUON_ERR_INTERNAL,  -13,  "internal error",              "internal")

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
// MUON_<THING>_LIST, which generates the enum here, the name table and the from-name /
// to-name functions (core/lists.c), and the entry of the list registry (muon_lists.h) that
// gateways and inst/ read.  Adding a value is adding its line.
//---------------------------------------------------------------------------------------------

#define MUON_ENUM_ITEM(name, value, text) name = value,
#define MUON_ENUM_PLUS_ONE(name, value, text) + 1
// The two name functions of a list, e.g. MUON_DECLARE_NAMES (muon_precision, muon_precision):
//   muon_status muon_precision_from_name (const char *name, muon_precision *v);
//     [out] *v; MUON_ERR_BADARG for a name not in the list (exact match), NULLPTR for NULL.
//   const char *muon_precision_name (muon_precision v);   "unknown" for a value not in it.
#define MUON_DECLARE_NAMES(prefix, type)                                        \
  muon_status prefix##_from_name (const char *name, type *v);                   \
  const char *prefix##_name (type v);

//---------------------------------------------------------------------------------------------
// Context: back end state, reusable workspace, last error.
//---------------------------------------------------------------------------------------------

typedef struct muon_ctx muon_ctx;

// [out] *ctx: a new context, destroyed with muon_ctx_destroy.
muon_status muon_ctx_create (muon_ctx **ctx);
// [in,out] *ctx: frees everything the context owns and sets *ctx = NULL (NULL is fine).
muon_status muon_ctx_destroy (muon_ctx **ctx);
// Text of the last error recorded in ctx ("" if none).  Owned by ctx, valid until the next call.
const char *muon_ctx_last_error (const muon_ctx *ctx);
// Status of the last error recorded in ctx (MUON_OK if none).
muon_status muon_ctx_last_status (const muon_ctx *ctx);
// Records an error (printf-style message) in ctx and returns code; used by core and gateways.
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
MUON_DECLARE_NAMES (muon_device, muon_device)

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
// unless batch == 1 ... see muon_tensor_check in ctx.c).  `name` is used in the message.
muon_status muon_tensor_check (muon_ctx *ctx, const muon_tensor *t, const char *name);

//---------------------------------------------------------------------------------------------
// Precision emulation (bf16 / fp16 round-to-nearest-even), array form.  The scalar forms are
// static inline in muon_precision.h, shared with the CUDA kernels.
//---------------------------------------------------------------------------------------------

#define MUON_PRECISION_LIST(X)                                                  \
  X (MUON_PREC_DOUBLE, 0, "double")                                             \
  X (MUON_PREC_SINGLE, 1, "single")                                             \
  X (MUON_PREC_BF16,   2, "bf16")                                               \
  X (MUON_PREC_FP16,   3, "fp16")
typedef enum { MUON_PRECISION_LIST (MUON_ENUM_ITEM) } muon_precision;
// Name <-> value ("double", "single", "bf16", "fp16").
MUON_DECLARE_NAMES (muon_precision, muon_precision)

// y[i] = round_p (x[i]) for n doubles (each first rounded to fp32 for bf16/fp16/single).
// [in] x, [out] y (may alias x).
muon_status muon_round_array (muon_ctx *ctx, muon_precision p, const double *x, double *y,
                              size_t n);
// Bit patterns: bf16 / fp16 (uint16) <-> float.  [in] src, [out] dst.
muon_status muon_float_to_half_bits (muon_ctx *ctx, muon_precision p, const float *src,
                                     uint16_t *dst, size_t n);
muon_status muon_half_bits_to_float (muon_ctx *ctx, muon_precision p, const uint16_t *src,
                                     float *dst, size_t n);

//---------------------------------------------------------------------------------------------
// Coefficient schedules (MUON_FACTS.md 2, 4.1, 6.1, 6.2).  Triples (a, b, c) of the quintic
// x -> a x + b x^3 + c x^5 used at each Newton-Schulz step.
//---------------------------------------------------------------------------------------------

// Beyond the end of a schedule: repeat its last triple, or start over.
#define MUON_SCHEDULE_MODE_LIST(X)                                              \
  X (MUON_SCHEDULE_REPEAT_LAST, 0, "repeat_last")                               \
  X (MUON_SCHEDULE_CYCLE,       1, "cycle")
typedef enum { MUON_SCHEDULE_MODE_LIST (MUON_ENUM_ITEM) } muon_schedule_mode;
MUON_DECLARE_NAMES (muon_schedule_mode, muon_schedule_mode)

// The schedule a call without coefficients runs.
#define MUON_COEFFS_DEFAULT "keller"

// Looks a named schedule up: keller, you, polar_express, polar_express_dion, polar_express_eo,
// cans, aol, deepseekv4, cubic5.  [out] *triples points at static data (count x 3, row-major);
// [out] *count triples.
muon_status muon_coeffs_lookup (muon_ctx *ctx, const char *name, const double **triples,
                                int *count);
// Number of names and the i-th name (for listings); NULL past the end.
int muon_coeffs_count (void);
const char *muon_coeffs_name (int i);
// Default step count of a schedule of `count` triples: 5 for a single triple, else count.
int muon_coeffs_default_steps (int count);
// Expands `count` triples to `steps` triples following mode.  [out] out: steps x 3.
muon_status muon_coeffs_expand (muon_ctx *ctx, const double *triples, int count, int steps,
                                muon_schedule_mode mode, double *out);

//---------------------------------------------------------------------------------------------
// Newton-Schulz
//---------------------------------------------------------------------------------------------

#define MUON_NS_METHOD_LIST(X)                                                  \
  X (MUON_NS_STANDARD, 0, "standard")                                           \
  X (MUON_NS_GRAM,     1, "gram")
typedef enum { MUON_NS_METHOD_LIST (MUON_ENUM_ITEM) } muon_ns_method;
MUON_DECLARE_NAMES (muon_ns_method, muon_ns_method)

// How a page is scaled before the iteration: its Frobenius norm (default), or the
// Almost-Orthogonal-Layer diagonal of Turbo-Muon, D = diag (sum_j |X X'|_ij)^(-1/2) on the
// short side (||D X||_2 <= 1, and closer to orthogonal; CPU only).  ns_impl.h says the
// op order of each with normalize_first.
#define MUON_NORMALIZE_LIST(X)                                                  \
  X (MUON_NORMALIZE_FROBENIUS, 0, "frobenius")                                  \
  X (MUON_NORMALIZE_AOL,       1, "aol")
typedef enum { MUON_NORMALIZE_LIST (MUON_ENUM_ITEM) } muon_normalize;
MUON_DECLARE_NAMES (muon_normalize, muon_normalize)

// Who computes the CPU products (core/gemm.c): auto = MUONLAB_GEMM's value when set, else
// oneDNN only for bf16 where it multiplies bf16 natively, OpenBLAS for everything else.
// Precision 'double' always runs on OpenBLAS (dgemm / dsyrk).
#define MUON_GEMM_LIST(X)                                                       \
  X (MUON_GEMM_AUTO,     0, "auto")                                             \
  X (MUON_GEMM_OPENBLAS, 1, "openblas")                                         \
  X (MUON_GEMM_ONEDNN,   2, "onednn")
typedef enum { MUON_GEMM_LIST (MUON_ENUM_ITEM) } muon_gemm_provider;

// Limits of one muon_ns call (muon_lists.h lists every limit for the gateways and inst/).
#define MUON_MAX_STEPS 1000     // iterations of one call (a longer schedule is never used)
#define MUON_MAX_RESTARTS 64    // entries of a Gram restart list
#define MUON_MAX_THREADS 1024   // the most CPU threads a call may ask for

// Per-step snapshots of one muon_ns call (opt-in: muon_ns_opts.trace; CPU, one page).  The
// page is iterated as n x m, n = min (rows, cols) <= m (transposed when rows > cols); the
// snapshots are the run's own values (compute-precision values as doubles), column-major,
// one page per step in each buffer:
//   x  page k = the iterate after step k (k = 0: the normalized input; Gram: r(Q_k X), the
//      product the run would form if it stopped there, made apart from the run)
//   r  page k = Gram: the R that step k used (k = 0 .. steps-1)
//   q  page k = Gram: Q after step k (k = 1 .. steps)
// Pages a path does not define (r and q of the standard path, r page steps, q page 0) keep
// what the caller put there.  The snapshot products are not counted in muon_ns_stats.
typedef struct {
  size_t n, m;          // [in] the iterated shape the buffers were sized for
  int cap;              // [in] pages in each buffer (>= steps + 1)
  double *x;            // [out] cap pages of n x m (required)
  double *r, *q;        // [out] cap pages of n x n each (NULL: not wanted)
  int steps;            // [out] steps run
  int gram;             // [out] 1 when the Gram path ran
  int transposed;       // [out] 1 when the page was transposed (rows > cols)
} muon_ns_trace;

typedef struct {
  muon_ns_method method;         // standard (default) | gram
  muon_precision precision;      // compute precision (default single; gateways pass the input class)
  int steps;                     // iterations (>= 1); 0 = the schedule's default
  const double *coeffs;          // ncoeffs x 3 row-major triples; NULL = keller
  int ncoeffs;
  muon_schedule_mode schedule_mode;
  int restarts[MUON_MAX_RESTARTS]; // Gram restart list, 0-based iteration indices
  int nrestarts;                 // default 1 with restarts[0] = 2
  double gram_min_aspect;        // Gram falls back to standard when long/short <= this (1)
  double eps;                    // normalization eps (1e-7)
  int normalize_first;           // 1: X = r(G / (||G|| + eps)) (default); 0: peers' cast-first
  muon_device device;            // where to compute (CPU default)
  muon_gemm_provider gemm;       // CPU product provider (default auto)
  int threads;                   // CPU threads: 0 (default) = OMP_NUM_THREADS when set, else
                                 // the cores (shared among local MPI ranks); any count
                                 // gives the same bits
  muon_ns_trace *trace;          // per-step snapshots (NULL, the default: none)
  muon_normalize normalize;      // frobenius (default) | aol
} muon_ns_opts;

void muon_ns_opts_default (muon_ns_opts *o);

// X = NS (G) page by page.  [in] G, [out] X (same rows, cols, batch; any dtype and ld).
// Zero pages give exact zeros.  Non-finite input gives non-finite output and the warning
// MUON_WARN_NONFINITE (the Octave side rejects it before).
muon_status muon_ns (muon_ctx *ctx, const muon_tensor *G, muon_tensor *X,
                     const muon_ns_opts *o);

// Whether the Gram path runs for a rows x cols page under o (after the aspect fallback).
int muon_ns_uses_gram (size_t rows, size_t cols, const muon_ns_opts *o);

// Where the time of the last muon_ns call on a context went (muon_ns_last_stats): its
// products (every GEMM and symmetric product of every page) against the whole call.  The
// product time over the whole time shows what the elementwise passes, the normalization and
// the copies cost; product_flops / product_seconds is the rate the provider reached.
typedef struct {
  char gemm[16];            // who multiplied: "openblas", "onednn" or "cublas" ("" before
                            // the first call)
  int bf16_products;        // 1: the products multiplied bf16 operands natively
  int threads;              // threads of the CPU products, as asked or defaulted (0 on CUDA)
  long products;            // product calls (a symmetric product counts once)
  double product_flops;     // operations the products performed: 2 m n k for a general
                            // product, n (n + 1) k for SYRK, and for the oneDNN block form
                            // of the symmetric product the sum over its blocks
  double product_seconds;   // wall time inside the products (CUDA: NaN, they are asynchronous)
  double total_seconds;     // wall time of the whole call
} muon_ns_stats;

// The statistics of the last muon_ns call on ctx, also one that muon_update made (all zero
// before the first; a call that failed leaves what it had counted).  [out] s.
muon_status muon_ns_last_stats (muon_ctx *ctx, muon_ns_stats *s);

//---------------------------------------------------------------------------------------------
// Back end information
//---------------------------------------------------------------------------------------------

typedef struct {
  int cuda_built;       // libmuon_cuda.so was found and loaded
  int cuda_usable;      // and a device answered
  int cuda_device_count;
  char cuda_message[256];  // loader / runtime message, or the device name
  char blas[128];          // BLAS description
} muon_backend_info;

// Fills info; never fails for a missing back end (that is reported in the struct).
muon_status muon_backend_query (muon_ctx *ctx, muon_backend_info *info);

// The CPU GEMM providers (core/gemm.c, core/gemm_onednn.c): what runs here, and why.
typedef struct {
  int onednn_built;              // the build found oneDNN
  char provider[4][16];          // who runs each precision (muon_precision order: double,
                                 // single, bf16, fp16) under 'Gemm' auto: "onednn"/"openblas"
  char reason[4][128];           // and why (muon_gemm_choose)
  char env[64];                  // MUONLAB_GEMM as read once ("" when unset)
  int threads;                   // threads of a call with threads = 0
  int cores;                     // cores this process may run on
  int tile;                      // tile edge of the thread-invariant products
  char openblas[160];            // OpenBLAS config and core ("" when another BLAS)
  char onednn_version[64];       // "2.6.3 (commit ...)", or why not built
  char onednn_isa[48];           // the ISA oneDNN dispatches to ("avx512_core_bf16")
  char onednn_impl_f32[96];      // implementation of an fp32 matmul ("brg:avx512_core"), or
  char onednn_impl_bf16[96];     // of a bf16 x bf16 -> fp32 matmul: "no: <why>" when none
  int onednn_native_bf16;        // bf16 products multiply bf16 natively (else fp32 GEMM)
} muon_gemm_info;

// Fills info (never fails for a missing provider: that is reported in the struct).
muon_status muon_gemm_query (muon_ctx *ctx, muon_gemm_info *info);
// Sets OpenBLAS's own thread count to n (n > 0; 0 leaves it) and returns the count it had
// (tests/octave/ref_ns.m runs its products on one BLAS thread, as each tile here is).
// UNSUPPORTED when the BLAS is not OpenBLAS.  [out] *previous.
muon_status muon_gemm_blas_threads (muon_ctx *ctx, int n, int *previous);
// Name <-> value ("auto", "openblas", "onednn"); BADARG for another name.
MUON_DECLARE_NAMES (muon_gemm, muon_gemm_provider)

#ifdef __cplusplus
}
#endif

// The rest of the public API, one header per layer.
#include "muon_update.h"   // Muon update, AdamW (core/update.c, core/adamw.c)
#include "muon_comm.h"     // communicators (core/comm_*.c)
#include "muon_zero.h"     // ZeRO layout (core/zero_layout.c)
#include "muon_zero_step.h" // distributed Muon steps (core/zero_plan.c, zero_step*.c)
#include "muon_lists.h"     // every named list and limit, for gateways (core/lists.c)
#include "muon_zero_cost.h" // plan-only cost of every design (core/zero_cost.c)
#endif
