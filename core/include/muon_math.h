/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_math.h - part of the public C API (included by muon.h): the maths layer (core/math/):
 * precision emulation, coefficient schedules, Newton-Schulz, the CUDA back end's
 * information, the Muon update.
 */
#ifndef MUON_MATH_H
#define MUON_MATH_H

#include "muon_base.h"
#include "muon_gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------------------------------------------------------------------
// Precision emulation (bf16 / fp16 round-to-nearest-even), array form.  The scalar forms are
// static inline in core/math/muon_precision.h, shared with the CUDA kernels.
//---------------------------------------------------------------------------------------------

// y[i] = round_p (x[i]) for n doubles (each first rounded to fp32 for bf16/fp16/single).
// [in] x, [out] y: y may be x itself (in place); a y that overlaps x otherwise (shifted) is
// BADARG, in every precision.
muon_status muon_round_array (muon_ctx *ctx, muon_precision p, const double *x, double *y,
                              size_t n);
// torch's y.add_ (x, alpha=a) on the CPU for a float or double y: y[i] = fma (a, x[i], y[i]),
// rounded once into y's class, a first rounded to it (torch's opmath).  p: MUON_PREC_SINGLE
// (x and y float: fmaf) or MUON_PREC_DOUBLE (double: fma).  [in] x, [in,out] y, n elements;
// x may be y itself; any other overlap is BADARG.
muon_status muon_fma_array (muon_ctx *ctx, muon_precision p, double a, const void *x, void *y,
                            size_t n);
// Bit patterns: bf16 / fp16 (uint16) <-> float.  [in] src, [out] dst: dst may start at src's
// address (in place, in a buffer of 4 n bytes, the float array's size); any other overlap
// is BADARG.
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

// How a page is scaled before the iteration: its Frobenius norm (default), or the
// Almost-Orthogonal-Layer diagonal of Turbo-Muon, D = diag (sum_j |X X'|_ij)^(-1/2) on the
// short side (||D X||_2 <= 1, and closer to orthogonal; CPU only).  ns_impl.h says the
// op order of each with normalize_first.
#define MUON_NORMALIZE_LIST(X)                                                  \
  X (MUON_NORMALIZE_FROBENIUS, 0, "frobenius")                                  \
  X (MUON_NORMALIZE_AOL,       1, "aol")
typedef enum { MUON_NORMALIZE_LIST (MUON_ENUM_ITEM) } muon_normalize;

// Limits of one muon_ns call (muon_lists.h's MUON_LIMITS lists every limit for the gateways
// and inst/; MUON_MAX_THREADS is muon_base.h's).
#define MUON_MAX_STEPS 1000     // iterations of one call (a longer schedule is never used)
#define MUON_MAX_RESTARTS 64    // entries of a Gram restart list
#define MUON_MAX_SYM_BLOCKS 16  // blocks per side of a CUDA symmetric product (sym_blocks)

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
// The buffers (cap pages each) must not overlap G, X (muon_update: G, M, U) or each other
// (BADARG).
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
  int fused;                     // 0 (default): the peers' eager op order, every product and
                                 // every elementwise op rounded once (DESIGN.md 4); 1: each
                                 // scale-add is the epilogue of its product, r(s x + c P) in
                                 // the accumulation precision, rounded once (torch.optim.Muon's
                                 // addmm).  Changes bf16 / fp16 on the CPU; double and single
                                 // already run so there (the same bits); on CUDA the epilogue
                                 // is cuBLAS's alpha / beta, for every precision
  int batched;                   // CUDA, device stacks: 1 runs every product of all pages as
                                 // one strided-batched cuBLAS call (a page's bits then depend
                                 // on the stack's page count); 0 (default): page by page on
                                 // LANES streams, each page the bits of that page alone, but
                                 // for the automatic sym_blocks (a 16-bit page with n from
                                 // 2048 to 4095 takes k = 2 in a stack of four pages or more,
                                 // k = 1 alone; give k to keep it fixed).
                                 // Host tensors and the CPU: no effect
  int sym_blocks;                // CUDA, bf16 / fp16: the symmetric products (X X', and the
                                 // fused standard polynomial's A A') as the upper triangle of
                                 // k x k blocks (k (k + 1) / 2 products, the split rows
                                 // multiples of 64, fewer blocks where n is too small), then
                                 // the mirror; the bits depend on k.  0 (default): automatic,
                                 // 2 where the blocks still fill the GPU (n >= 4096, or
                                 // n >= 2048 on a stack of 4 pages or more), else 1 (one
                                 // product); 1 .. MUON_MAX_SYM_BLOCKS: that k.  The CPU
                                 // (its own tiles) and double / single (SYRK): no effect
} muon_ns_opts;

void muon_ns_opts_default (muon_ns_opts *o);

// X = NS (G) page by page.  [in] G, [out] X (same rows, cols, batch; any dtype and ld).
// Zero pages give exact zeros.  Non-finite input gives non-finite output and the warning
// MUON_WARN_NONFINITE (the Octave side rejects it before).  On the CPU it polls the
// context's interrupt poll (muon_ctx_set_interrupt_poll) before each page and each step, and
// stops with MUON_ERR_INTERRUPTED when it fires (X's contents then unspecified).
muon_status muon_ns (muon_ctx *ctx, const muon_tensor *G, muon_tensor *X,
                     const muon_ns_opts *o);

// Whether the Gram path runs for a rows x cols page under o (after the aspect fallback).
int muon_ns_uses_gram (size_t rows, size_t cols, const muon_ns_opts *o);

//---------------------------------------------------------------------------------------------
// The FLOP model of Newton-Schulz (core/math/ns_flops.c; ns_flops.m and the ZeRO cost model
// read it, written once here).  Only matrix products count, a general (p x q)(q x r) product
// 2pqr; elementwise steps are left out.  The iteration runs on the short side, so with
// n = min (rows, cols), m = max (rows, cols) every term is (c1 m n^2 + c0 n^3): the model is
// the pair [c1 c0] of each term.  With `symmetric`, the products muon_ns computes as
// symmetric in double and single cost half (SYRK-style kernels): X X', A A and in Gram R, Z
// and RZ; the Gram update of Q (symmetric in exact arithmetic, but muon_ns forms it by a
// general product: a mirrored Q drifts from the standard iteration over long schedules), B X
// and Q X stay general.  (Kernels that halve Q too, as MUON_FACTS 4.3 counts, save half of
// the q term.)  Per iteration (n^3 units, alpha = m / n, h = 1 or 1/2):
//   standard  A = X X' 2h alpha, (c A) A 2h, B X 2 alpha
//   Gram      R = X X' once 2h alpha; per iteration Z = b R + (c R) R 2h; Q = Z Q + a Q 2
//             (free at the start and after a restart: Q = Z + a I); RZ = R Z + a R and
//             R = Z RZ + a RZ 4h, skipped on the last iteration and before a restart; a restart
//             X = Q X 2 alpha and R = X X' 2h alpha; at the end X = Q X 2 alpha.
// Restarts are 0-based iteration indices as in muon_ns: index i restarts before iteration i;
// 0 and indices >= steps never restart, duplicates count once.
//---------------------------------------------------------------------------------------------

// X (TERM, VALUE, "name"): the standard iteration's terms, then the Gram iteration's.
#define MUON_NS_FLOP_TERM_LIST(X)                                               \
  X (MUON_FLOPS_XXT,         0, "xxt")          /* standard: A = X X' */        \
  X (MUON_FLOPS_AA,          1, "aa")           /* standard: (c A) A */         \
  X (MUON_FLOPS_BX,          2, "bx")           /* standard: B X */             \
  X (MUON_FLOPS_R0,          3, "r0")           /* Gram: R = X X' at the start */ \
  X (MUON_FLOPS_Z,           4, "z")            /* Gram: Z = b R + (c R) R */   \
  X (MUON_FLOPS_Q,           5, "q")            /* Gram: Q = Q Z + a Q */       \
  X (MUON_FLOPS_R_UPDATE,    6, "r_update")     /* Gram: RZ, then R */          \
  X (MUON_FLOPS_RESTART_QX,  7, "restart_qx")   /* Gram: X = Q X at a restart */ \
  X (MUON_FLOPS_RESTART_XXT, 8, "restart_xxt")  /* Gram: R = X X' at a restart */ \
  X (MUON_FLOPS_FINAL_QX,    9, "final_qx")     /* Gram: X = Q X at the end */
typedef enum {
  MUON_NS_FLOP_TERM_LIST (MUON_ENUM_ITEM)
  MUON_FLOPS_TERMS = 0 MUON_NS_FLOP_TERM_LIST (MUON_ENUM_PLUS_ONE)
} muon_ns_flop_term;
#define MUON_FLOPS_GRAM_FIRST MUON_FLOPS_R0   // terms [0, GRAM_FIRST): standard's

typedef struct {
  int steps;
  double term[MUON_FLOPS_TERMS][2];     // [c1 c0] of each term, summed over the iterations
  double standard[2], gram[2];          // [c1 c0] of each iteration: the sums of its terms
} muon_ns_flop_model;

// The model of `steps` (1..MUON_MAX_STEPS) iterations with the restart list restarts[0 ..
// nrestarts) (any length, any non-negative entries) and symmetric 0 or 1.  [out] *F;
// [out] gram_steps: NULL, or steps x 2 row-major, the [c1 c0] of each Gram iteration, the
// restart before it included, R = X X' in the first and the final X = Q X in the last;
// [out] restarted: NULL, or steps flags, 1 where a restart comes before iteration i.
// Errors: NULLPTR, BADARG (steps, a negative restart, symmetric).
muon_status muon_ns_flop_model_get (muon_ctx *ctx, int steps, const int *restarts,
                                    int nrestarts, int symmetric, muon_ns_flop_model *F,
                                    double *gram_steps, int *restarted);
// The FLOPs of a [c1 c0] pair on a rows x cols page: c1 m n^2 + c0 n^3 (n the smaller of
// rows and cols, m the larger).  NaN when c is NULL (no status to return).
double muon_ns_flops_count (const double c[2], double rows, double cols);
// FLOPs of one Newton-Schulz call on a rows x cols page under o (NULL: the defaults): the
// method after the Gram aspect fallback (muon_ns_uses_gram), o's steps (0: the schedule's
// default, ncoeffs steps for a schedule of ncoeffs > 1 triples) and restarts; symmetric:
// symmetric results at half.  The ZeRO cost model's count.  NaN (no status to return) when
// a field it reads is one muon_ns refuses: an unknown method, negative steps, coeffs with
// ncoeffs < 1, more than MUON_MAX_STEPS steps, a restart count outside 0..MUON_MAX_RESTARTS
// or a negative restart, a Gram minimum aspect below 1 or not finite.
double muon_ns_flops_matrix (size_t rows, size_t cols, const muon_ns_opts *o, int symmetric);

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

//---------------------------------------------------------------------------------------------
// Muon update (core/math/update.c).  The per-element maths is core/math/muon_update_math.h,
// shared with CUDA.
//
// One update, for every page of G (MUON_FACTS 1.4, 2, 3, 5, 8):
//   M = beta M + (1 - beta) G      (EMA)   or   M = beta M + G          (SGD)
//   X = (1 - beta) G + beta M      (EMA)   or   X = G + beta M          (SGD)   [Nesterov]
//   X = M                                                                       [no Nesterov]
//   U = scale (rows, cols) * muon_ns (X)     per orthogonalized block
//
// Blocks.  Each page of the tensors is one block, so E experts are a batch: a dense 3-D
// stack (stride rows * cols) or a fused (E*m) x n weight viewed without a copy as E pages of
// m x n with ld = E*m and stride = m.  split_rows cuts every page further into row blocks
// (fused QKV, per-head) that are orthogonalized and scaled independently (strided views, no
// copies).  The scale of a block comes from its own rows x cols unless scale_rows /
// scale_cols say otherwise (the Keller/DeepSpeed conv quirk scales a 4-D out x in x kh x kw
// weight by kh / kw).
//
// Usage
//   muon_update_opts o;  muon_update_opts_default (&o);  o.ns.precision = MUON_PREC_DOUBLE;
//   muon_tensor G = muon_tensor_matrix (MUON_F64, g, m, n), M = ..., U = ...;  // M zeroed
//   for (step ...) muon_update (ctx, &G, &M, &U, &o);
//---------------------------------------------------------------------------------------------

#define MUON_MOMENTUM_FORM_LIST(X)                                              \
  X (MUON_MOMENTUM_EMA, 0, "ema")                                               \
  X (MUON_MOMENTUM_SGD, 1, "sgd")
typedef enum { MUON_MOMENTUM_FORM_LIST (MUON_ENUM_ITEM) } muon_momentum_form;

// The arithmetic of M and X (muon_update_math.h): FP64 computes both in fp64 and rounds once
// into the storage class; TORCH runs torch's element-wise ops (EMA: buf.lerp_ (g, 1 - beta),
// g.lerp (buf, beta); SGD: buf.mul_ (beta).add_ (g), g.add (buf, alpha = beta)) in the opmath
// of M's class (fp64 for double, else fp32), with torch's fused multiply-adds, each result
// rounded into its storage class, X into G's.
#define MUON_MOMENTUM_ARITH_LIST(X)                                             \
  X (MUON_ARITH_FP64,  0, "fp64")                                               \
  X (MUON_ARITH_TORCH, 1, "torch")
typedef enum { MUON_MOMENTUM_ARITH_LIST (MUON_ENUM_ITEM) } muon_momentum_arith;

#define MUON_SCALE_RULE_LIST(X)                                                 \
  X (MUON_SCALE_KELLER,   0, "keller")   /* sqrt (max (1, rows / cols)) (default) */ \
  X (MUON_SCALE_RMS,      1, "rms")      /* 0.2 sqrt (max (rows, cols)) */      \
  X (MUON_SCALE_SPECTRAL, 2, "spectral") /* sqrt (max (rows, cols)) */          \
  X (MUON_SCALE_UNIT_RMS, 3, "unit_rms") /* sqrt (rows / cols) */               \
  X (MUON_SCALE_NONE,     4, "none")     /* 1 */
typedef enum { MUON_SCALE_RULE_LIST (MUON_ENUM_ITEM) } muon_scale_rule;

#define MUON_MAX_SPLITS 4096

typedef struct {
  double beta;                 // momentum coefficient in [0, 1) (0.95)
  int nesterov;                // 1 (default): NS input from the Nesterov formula; 0: M
  muon_momentum_form form;     // EMA (default) | SGD
  muon_momentum_arith arith;   // FP64 (default) | TORCH
  muon_precision g_class, m_class; // TORCH: the 16-bit class (BF16, FP16) G and M stand for
                               //   when they are fp32 work copies of such arrays (set by
                               //   muon_darray_update); DOUBLE (0, default): their own type
  muon_scale_rule scale;       // KELLER (default)
  double scale_factor;         // finite, multiplies the scale (1)
  const size_t *split_rows;    // NULL (default): one block per page; else nsplit row counts
  size_t nsplit;               //   (each >= 1) summing to the page's rows
  size_t scale_rows, scale_cols; // 0, 0 (default): each block's own shape; else both > 0
  muon_ns_opts ns;             // Newton-Schulz options (muon_ns_opts_default)
} muon_update_opts;

void muon_update_opts_default (muon_update_opts *o);

// One Muon update.  [in] G: the gradient (never written).  [in,out] M: the momentum, same
// rows, cols and batch as G (zeros before the first step).  [out] U: the update, same rows,
// cols and batch.  Each of G, M, U may be F64 or F32 and has its own ld and stride; M and U
// must not overlap G or each other.  The momentum arithmetic is o->arith's: fp64, rounded once
// into M's type (default), or torch's (rounded into M's type, X into G's); the NS input is
// held in fp64.  TORCH with the SGD form, Nesterov and a 16-bit class is BADARG (torch's own
// add with alpha has no fixed bits there).  Errors: NULLPTR, BADSHAPE (shapes, splits), BADARG
// (options), BADTYPE, UNSUPPORTED, NOMEM, and those of muon_ns; MUON_WARN_NONFINITE when U
// holds non-finite values.  The arguments, the options, the back end o->ns.device asks for
// (NOTBUILT / NODEVICE for a CUDA back end that is missing) and o->ns.trace (muon_ns's
// BADSHAPE: one page, the shape of every row block's call, steps + 1 pages; each block's
// call records into it, the last one's snapshots stay) are checked before M is written: a
// call refused for any of them leaves M as it was.
muon_status muon_update (muon_ctx *ctx, const muon_tensor *G, muon_tensor *M, muon_tensor *U,
                         const muon_update_opts *o);

// Step 1 of muon_update alone, on the CPU: [in] G, [in,out] M as muon_update has them, [out]
// X (F64 or F32, like G) the Newton-Schulz input muon_update would orthogonalize: the
// Nesterov input, or M without Nesterov, rounded into X's type (for the Muon family's rules,
// which run the rest themselves).  The options are checked as muon_update checks them.
muon_status muon_update_momentum (muon_ctx *ctx, const muon_tensor *G, muon_tensor *M,
                                  muon_tensor *X, const muon_update_opts *o);

// The scale of a rows x cols block under rule, times factor.  [out] *scale.
muon_status muon_update_scale (muon_ctx *ctx, muon_scale_rule rule, size_t rows, size_t cols,
                               double factor, double *scale);

//---------------------------------------------------------------------------------------------
// Device arrays (core/math/darray.c): a rows x cols x batch array that lives on a device, so
// that muon_ns and muon_update run on it with no host copy.  The device is MUON_DEVICE_CUDA
// (memory from the CUDA back end's caching pool) or MUON_DEVICE_CPU, the stand-in device of
// the self-tests: host memory run by the CPU code, the same bits as the host path.  The
// storage class is a muon_precision: double, single, or the 16-bit bf16 / fp16 (an op on a
// 16-bit array computes from an fp32 copy made on the device and stores back once).  Arrays
// are dense (ld = rows, stride = rows * cols), owned by the caller (create / destroy), and
// belong to the context that made them.
//
// Usage
//   muon_darray *G = NULL, *X = NULL;
//   muon_darray_create (ctx, MUON_DEVICE_CUDA, MUON_PREC_SINGLE, m, n, 1, &G);
//   muon_darray_fill (ctx, G, MUON_FILL_RANDN, 42);              // or muon_darray_upload
//   muon_darray_create (ctx, MUON_DEVICE_CUDA, MUON_PREC_SINGLE, m, n, 1, &X);
//   muon_darray_ns (ctx, G, X, &o);   muon_darray_download (ctx, X, &host);
//   muon_darray_destroy (ctx, &G);    muon_darray_destroy (ctx, &X);
//---------------------------------------------------------------------------------------------

#define MUON_FILL_LIST(X)                                                       \
  X (MUON_FILL_ZEROS, 0, "zeros")                                               \
  X (MUON_FILL_RANDN, 1, "randn")
typedef enum { MUON_FILL_LIST (MUON_ENUM_ITEM) } muon_fill;

// Element-wise operations of muon_darray_ew, each rounded as Octave rounds the same
// operation on host arrays of the class: Z = X + Y, X - Y, X * a, X / a; and
// Z = fma (a, X, Y) (torch's Y.add_ (X, alpha=a)): a rounded into the class, one rounding
// for double and single (fma / fmaf, muon_fma_array's bits); bf16 and fp16 compute fmaf in
// fp32 and round that into the class (two roundings).
#define MUON_EW_LIST(X)                                                         \
  X (MUON_EW_ADD, 0, "add")                                                     \
  X (MUON_EW_SUB, 1, "sub")                                                     \
  X (MUON_EW_MUL, 2, "mul")                                                     \
  X (MUON_EW_DIV, 3, "div")                                                     \
  X (MUON_EW_FMA, 4, "fma")
typedef enum { MUON_EW_LIST (MUON_ENUM_ITEM) } muon_ew_op;

typedef struct muon_darray muon_darray;

typedef struct {
  muon_device device;
  muon_precision storage;
  size_t rows, cols, batch;
  size_t bytes;                // of the data
} muon_darray_info;

// [out] *out: a new array (contents undefined).  NODEVICE / NOTBUILT for a CUDA device that
// is not there, MUON_ERR_DEVMEM when the device has no room and for a size whose bytes
// overflow (larger than any device, on any device: checked before the device is asked),
// BADSHAPE for a size 0, BADARG for an unknown device or storage class.
muon_status muon_darray_create (muon_ctx *ctx, muon_device device, muon_precision storage,
                                size_t rows, size_t cols, size_t batch, muon_darray **out);
// Frees *a (back to the pool on CUDA) and sets it to NULL; *a NULL is fine (OK), a NULL
// NULLPTR, as every *_destroy.  ctx must be the context that made *a (another context:
// BADARG "the array belongs to another context", *a untouched), so destroy arrays before
// their context: ctx NULL with *a set is NULLPTR, *a untouched and nothing freed (the bytes
// could not be counted back to the owner's in_use, which trim reports).
muon_status muon_darray_destroy (muon_ctx *ctx, muon_darray **a);
// [out] info.
muon_status muon_darray_describe (const muon_darray *a, muon_darray_info *info);
// a = src, converted to a's storage class on the device.  [in] src: a dense host tensor
// (F64 or F32) of a's rows, cols and batch.
muon_status muon_darray_upload (muon_ctx *ctx, muon_darray *a, const muon_tensor *src);
// dst = a, converted on the device to dst's type.  [out] dst: a dense host tensor like a.
muon_status muon_darray_download (muon_ctx *ctx, const muon_darray *a, muon_tensor *dst);
// dst = src on their device (same device and shape), converted to dst's storage class as
// an upload converts (rounded to nearest even, once; past the class's range: Inf).
muon_status muon_darray_copy (muon_ctx *ctx, const muon_darray *src, muon_darray *dst);
// a = zeros, or the normal stream of seed (muon_darray_math.h), stored in a's class.
muon_status muon_darray_fill (muon_ctx *ctx, muon_darray *a, muon_fill fill, uint64_t seed);
// X = muon_ns (G) on G's device; X like G (its own storage class).  o->device is ignored.
muon_status muon_darray_ns (muon_ctx *ctx, const muon_darray *G, muon_darray *X,
                            const muon_ns_opts *o);
// One muon_update on G's device (o->ns.device is ignored): [in] G, [in,out] M, [out] U, all
// of one shape and device.
// experts > 1 views each page as a fused (experts*m) x n weight (muon_update's Experts).
// M NULL: no momentum, U = scale * NS (G) per block (G is the Newton-Schulz input).
muon_status muon_darray_update (muon_ctx *ctx, const muon_darray *G, muon_darray *M,
                                muon_darray *U, const muon_update_opts *o, size_t experts);
// One AdamW step on G's device, every element as inst/private/opt_adamw.m computes it on
// host arrays (muon_darray_math.h): [in,out] P, M, V (the parameter and the moments),
// [in] G; all four of one device, shape and class (double or single).  coef = {1 - beta1,
// 1 - beta2, 1 - beta1^t, 1 - beta2^t, 1 - lr wd, lr, eps}, rounded to the class first.
muon_status muon_darray_adamw (muon_ctx *ctx, muon_darray *P, const muon_darray *G,
                               muon_darray *M, muon_darray *V, const double coef[7]);
// Z = X op Y (add, sub), X op a (mul, div) or fma (a, X, Y) (fma) on X's device, element
// by element; Z is like X (device, shape, class); Y (add, sub and fma, else NULL) like X
// too.  fma: torch's Y.add_ (X, alpha=a), see MUON_EW_LIST.  Each element is
// computed as Octave computes it on host arrays of the class: in double for double, in
// single for single (a rounded to single first, as Octave rounds a double scalar that
// meets a single array), and for bf16 / fp16 in single, rounded once into the class.
// Z may be X or Y.
muon_status muon_darray_ew (muon_ctx *ctx, muon_ew_op op, const muon_darray *X,
                            const muon_darray *Y, double a, muon_darray *Z);
// [out] *sumsq: the fp64 sum of squares of X's elements (Y NULL) or of the differences
// X - Y rounded to X's class (Y like X), the number inst/ computes on host arrays as
// sumsq (double (X(:) - Y(:))); Inf when it overflows.  [out] *finite (may be NULL): 1
// when every element (or difference) is finite.  On the CPU stand-in the sum runs in
// element order, the bits of Octave's sumsq; on CUDA a fixed tree (the same bits on every
// run, within a few ulps of the ordered sum).
muon_status muon_darray_sumsq (muon_ctx *ctx, const muon_darray *X, const muon_darray *Y,
                               double *sumsq, int *finite);
// muon_darray_sumsq of each page of X (rows x cols x batch): [out] sumsq[k] and
// finite[k], k < batch (arrays of the caller).  What the device paths of muon_ns and
// muon_update read to tell a tiny input or a diverged result without copying X back.
muon_status muon_darray_page_sumsq (muon_ctx *ctx, const muon_darray *X, double *sumsq,
                                    int *finite);
// The device time of the last muon_darray_ns / muon_darray_update of ctx on `device`, in ms
// (CUDA events; the CPU stand-in measures wall time).  Waits for the device.
muon_status muon_darray_last_ms (muon_ctx *ctx, muon_device device, double *ms);
// The copy floor of `bytes` on `device`: [out] the time in ms of one copy from pinned host
// memory to the device and one back (CUDA events); on the CPU stand-in two memcpy.
muon_status muon_darray_copy_time (muon_ctx *ctx, muon_device device, size_t bytes,
                                   double *h2d_ms, double *d2h_ms);
// Returns the free blocks of the device's caching pools, and the work and staging buffers
// calls grew, to the driver: those of every context of the process (other MEX files' host
// calls on CUDA too).  [out] in_use, cached: bytes held by arrays and kept in the pools after
// (either may be NULL; 0 when no context of the process used the CUDA back end: this loads it
// only where one did).
muon_status muon_darray_trim (muon_ctx *ctx, muon_device device, size_t *in_use,
                              size_t *cached);

#ifdef __cplusplus
}
#endif
#endif
