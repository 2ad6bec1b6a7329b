/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* gemm.h - the GEMM provider layer: the few products Newton-Schulz needs, on OpenBLAS (always
 * built) or oneDNN (when the build found it and has a kernel here), with fp64, fp32 or bf16
 * operands.
 *
 *   muon_gemm_setup      resolves 'Gemm' / 'Threads' for one call of muon_ns (gemm.c says
 *                        who runs which precision and why) and sizes the thread pools
 *                        (muon_gemm_finish restores them)
 *   muon_gemm_product    C = op(A) op(B)                        (general, with transposes)
 *   muon_gemm_symmetric  upper triangle of C = alpha A A'       (SYRK tiles and GEMM tiles)
 *
 * Same bits for any thread count.  Every product is cut into tiles of C whose edges are
 * fixed by the shape alone (MUON_GEMM_TILE rows x MUON_GEMM_TILE columns, the last ones
 * shorter); each tile is one single-threaded library call over the whole inner dimension,
 * and the threads only decide who computes which tile.  So an element's sum never depends on
 * how many threads ran, and a plain port that makes the same tile calls with one BLAS thread
 * (tests/octave/ref_ns.m) reproduces the bits.  A symmetric product computes the tiles on
 * and above the diagonal: SYRK for a diagonal tile, GEMM (A_I A_J') for the others.
 *
 * An operand is a muon_gemm_in: its fp64 values (precision 'double'), its fp32 values, or,
 * when the call multiplies bf16 natively (oneDNN with precision bf16 on a CPU with bf16
 * instructions), its bf16 bits (uint16, the top half of the fp32: exact, the values are
 * already bf16; ns_impl.h then stores its matrices that way).  Matrices are column-major
 * with leading dimensions, as in BLAS.  Nothing here rounds: the outputs are the fp32 (fp64)
 * accumulations, rounded by the caller as DESIGN.md 4 says.
 *
 * oneDNN matmul primitives are made for one thread, once per tile shape, and kept in the
 * context (at most MUON_GEMM_CACHE_MAX, least recently used goes first), attached to it as a
 * cache that the context frees (muon_ctx_attach).  gemm_onednn.c holds them; built without
 * oneDNN it is a stub.
 */
#ifndef MUON_GEMM_INTERNAL_H
#define MUON_GEMM_INTERNAL_H

#include "muon_gemm.h"
#include "muon_internal.h"

#define MUON_GEMM_CACHE_MAX 64   // oneDNN primitives kept per context
#define MUON_GEMM_TILE 256       // tile edge (rows and columns of C); tests/octave/ref_ns.m
                                 // reads it from muon_info ().gemm.tile

typedef struct {
  const float *f;        // fp32 values: needed by an fp32 call (cfg.f64 == cfg.bf16 == 0)
  const uint16_t *h;     // bf16 bits: needed by a bf16 call (cfg.bf16 == 1)
  const double *d;       // fp64 values: needed by an fp64 call (cfg.f64 == 1)
} muon_gemm_in;

// The work of the products of one call: calls (a symmetric product counts once), the
// operations they performed and the wall time inside them.
typedef struct {
  long products;
  double flops;
  double seconds;        // less the epilogues' share (muon_gemm_then: their thread time
} muon_gemm_tally;       // over the threads), so that it stays the products' own

// One muon_ns call's GEMM configuration (muon_gemm_setup fills it).
typedef struct {
  muon_gemm_provider provider;   // MUON_GEMM_OPENBLAS or MUON_GEMM_ONEDNN (never AUTO)
  int f64;                       // 1: fp64 operands and output (precision 'double')
  int bf16;                      // 1: products multiply bf16 operands (oneDNN, bf16 only)
  int threads;                   // threads that share the tiles
  int blas_pinned;               // 1: this call counts among those that hold OpenBLAS at
                                 // one thread (muon_gemm_finish lets go)
  int saved_omp;                 // OpenMP thread count to restore (0: nothing to restore)
  muon_gemm_tally *tally;        // where the products add their work (NULL: nowhere; the
                                 // caller sets it after muon_gemm_setup)
} muon_gemm_cfg;

// Resolves the provider for precision p (muon_gemm_choose) and the thread count
// (requested > 0: that many, also above the cores; 0: muon_default_threads; fewer where
// the address-space limit cannot hold their stacks, muon_threads_that_fit), sets
// OpenBLAS to one thread (each tile is one single-threaded call) and OpenMP, which shares
// the tiles and runs ns_impl.h's elementwise passes, to the count.  NOTBUILT for 'onednn'
// without oneDNN (whatever the precision); BADARG for an unknown provider or a thread count
// below 0 or above MUON_MAX_THREADS.  [out] cfg.
// NOTBUILT for 'onednn' without oneDNN, BADARG for an unknown provider: muon_gemm_setup's
// check of the provider alone, for a caller that must refuse before it writes anything
// (muon_update, before the momentum).
muon_status muon_gemm_check_provider (muon_ctx *ctx, muon_gemm_provider requested);
muon_status muon_gemm_setup (muon_ctx *ctx, muon_gemm_provider requested, int threads,
                             muon_precision p, muon_gemm_cfg *cfg);
// OpenBLAS's count is the whole process's: it stays at one thread while any call (of any
// thread and context) is between muon_gemm_setup and muon_gemm_finish, and the last one out
// puts back what the first one in found.
// Restores the thread counts muon_gemm_setup changed.  [in,out] cfg.
void muon_gemm_finish (muon_gemm_cfg *cfg);

// Who runs precision p when `requested` is asked for, and why (a sentence, len bytes):
// 'double' always OpenBLAS; AUTO: the default of MUONLAB_GEMM (read once per process) when
// set, else oneDNN only where it multiplies bf16 natively, OpenBLAS for the rest; ONEDNN:
// oneDNN where it has a kernel here (bf16 as fp32 products where not native), else
// OpenBLAS.  Never fails: a provider that cannot run here is skipped with its reason.
// [out] *provider, *bf16, why.
void muon_gemm_choose (muon_gemm_provider requested, muon_precision p,
                       muon_gemm_provider *provider, int *bf16, char *why, size_t len);

// What a symmetric product does with each block of C once the block is final (NULL: nothing):
// fn (arg, i0, mi, j0, nj) on the thread that computed the block, rows i0..i0+mi-1 and
// columns j0..j0+nj-1 of C, of which only the elements on and above the diagonal (i <= j)
// are final.  So an elementwise pass runs on each block while it is still in cache, in the
// product's own parallel loop.  The blocks are disjoint and cover the upper triangle; fn
// runs concurrently with other blocks' products, so it must not write the product's
// operands, and must not start OpenMP regions.
typedef struct {
  void (*fn) (void *arg, size_t i0, size_t mi, size_t j0, size_t nj);
  void *arg;
} muon_gemm_then;

// C (m x n, ldc) = op(A) op(B), op(A) m x k, op(B) k x n; ta / tb: 1 = transposed.  C is
// double * for an fp64 call, else float *.
muon_status muon_gemm_product (muon_ctx *ctx, const muon_gemm_cfg *cfg, int ta, int tb,
                               size_t m, size_t n, size_t k, muon_gemm_in A, size_t lda,
                               muon_gemm_in B, size_t ldb, void *C, size_t ldc);
// Upper triangle of C (n x n, ldc) = alpha A A', A n x k (lda), in tiles (file comment):
// diagonal tiles by SYRK (oneDNN: the tile's full product), the others by GEMM, alpha
// applied by the library (oneDNN: after).  The strict lower triangle is left undefined
// (the caller mirrors, e.g. in then).  C as in muon_gemm_product; then may be NULL.
muon_status muon_gemm_symmetric (muon_ctx *ctx, const muon_gemm_cfg *cfg, size_t n, size_t k,
                                 double alpha, muon_gemm_in A, size_t lda, void *C,
                                 size_t ldc, const muon_gemm_then *then);

// Upper triangle of C (n x n, ldc) = A B (A n x k, B k x n, no transposes) for a product
// the caller knows to be symmetric (polynomials in one symmetric matrix commute): the
// tiles above the diagonal by GEMM, the diagonal tiles by column strips of
// MUON_GEMM_STRIP columns down to the diagonal (oneDNN: whole diagonal tiles), so about
// half the work of muon_gemm_product; the strict lower triangle is left undefined (the
// caller mirrors, e.g. in then, which sees each strip as a block).  Same bits for any
// thread count (the strips are fixed by the shape).
#define MUON_GEMM_STRIP 32
muon_status muon_gemm_product_upper (muon_ctx *ctx, const muon_gemm_cfg *cfg, size_t n,
                                     size_t k, muon_gemm_in A, size_t lda, muon_gemm_in B,
                                     size_t ldb, void *C, size_t ldc,
                                     const muon_gemm_then *then);

//---- gemm_onednn.c ---------------------------------------------------------------------------

// 1 when built with oneDNN.
int muon_gemm_onednn_built (void);
// Whether oneDNN has a matmul kernel here for f32 (bf16 = 0) or bf16 (1) operands: asked
// once per process (a small primitive descriptor); never fails.  [out] why (len bytes):
// the implementation's name, or "no: <why>".
int muon_gemm_onednn_kernel (int bf16, char *why, size_t len);
// 1 when oneDNN multiplies bf16 natively here (ISA avx512_core_bf16 or above, and a kernel).
int muon_gemm_onednn_native_bf16 (void);
// A matmul of one tile shape, C (m x n, ldc, column-major f32) = op(A) op(B) with f32 or
// bf16 (uint16) operands, made for one thread (or found in ctx's cache).  Call from one
// thread; the plan stays valid until the next prepare of more than MUON_GEMM_CACHE_MAX - 4
// other shapes.  [out] *plan.
muon_status muon_gemm_onednn_prepare (muon_ctx *ctx, int bf16, int ta, int tb, size_t m,
                                      size_t n, size_t k, size_t lda, size_t ldb, size_t ldc,
                                      const void **plan);
// Runs a plan on the calling thread (safe from several threads at once): 0, or the oneDNN
// status of the call that failed.
int muon_gemm_onednn_run (const void *plan, const void *A, const void *B, float *C);
// Version and effective ISA (the kernels' names come from muon_gemm_onednn_kernel).
void muon_gemm_onednn_describe (muon_gemm_info *info);
// Primitives held in ctx's cache (tests of the size limit).
size_t muon_gemm_onednn_cached (const muon_ctx *ctx);

#endif
