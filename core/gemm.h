/* gemm.h - the GEMM provider layer: the few products Newton-Schulz needs, on OpenBLAS (always
 * built) or oneDNN (when the build found it), with fp32 or bf16 operands and fp32 output.
 *
 *   muon_gemm_setup      resolves 'Gemm' / 'Threads' for one call of muon_ns and sets the
 *                        thread counts of both libraries (muon_gemm_finish restores them)
 *   muon_gemm_product    C = op(A) op(B)                        (general, with transposes)
 *   muon_gemm_symmetric  upper triangle of C = alpha A A'       (SYRK or its block form)
 *
 * An operand is a muon_gemm_in: its fp32 values, or, when the call multiplies bf16 (oneDNN
 * with precision bf16 on a CPU with native bf16), its bf16 bits (uint16, the top half of the
 * fp32: exact, the values are already bf16; ns_impl.h then stores its matrices that way).
 * Matrices are column-major with leading dimensions, as in BLAS.  Nothing here rounds: the
 * outputs are the fp32 accumulations, rounded by the caller as DESIGN.md 4 says.
 *
 * oneDNN matmul primitives are made once per (shape, leading dimensions, transposes, dtype,
 * threads) and kept in the context (at most MUON_GEMM_CACHE_MAX, least recently used goes
 * first), freed by muon_ctx_destroy.  gemm_onednn.c holds them; built without oneDNN it is a
 * stub whose entry points return MUON_ERR_NOTBUILT.
 */
#ifndef MUON_GEMM_H
#define MUON_GEMM_H

#include "muon_internal.h"

#define MUON_GEMM_CACHE_MAX 64   // oneDNN primitives kept per context
#ifndef MUON_GEMM_SYM_BLOCK
#define MUON_GEMM_SYM_BLOCK 128  // row block of the oneDNN symmetric product
#endif

typedef struct {
  const float *f;        // fp32 values: needed by an fp32 call (cfg.bf16 == 0)
  const uint16_t *h;     // bf16 bits: needed by a bf16 call (cfg.bf16 == 1)
} muon_gemm_in;

// One muon_ns call's GEMM configuration (muon_gemm_setup fills it).
typedef struct {
  muon_gemm_provider provider;   // MUON_GEMM_OPENBLAS or MUON_GEMM_ONEDNN (never AUTO)
  int bf16;                      // 1: products multiply bf16 operands (oneDNN, bf16 only)
  int threads;                   // threads used by the products
  int saved_blas, saved_omp;     // thread counts to restore (0: nothing to restore)
} muon_gemm_cfg;

// Resolves the provider for precision p (AUTO: oneDNN when built; 'double' always runs on
// OpenBLAS) and the thread count (requested > 0: that many; 0: OMP_NUM_THREADS when set,
// else the cores divided among the ranks of an MPI job on this machine when Open MPI or
// MPICH says how many there are, else the cores other processes leave free (Linux, counted
// at most every 0.1 s); never more than the cores), then gives the pool in use that count:
// OpenMP's for oneDNN (and ns_impl.h's elementwise passes), OpenBLAS's for OpenBLAS (and
// OpenMP one thread, so that no idle pool spins on the cores).  NOTBUILT for 'onednn' without
// oneDNN (whatever the precision); BADARG for an unknown provider or a negative thread
// count.  [out] cfg.
muon_status muon_gemm_setup (muon_ctx *ctx, muon_gemm_provider requested, int threads,
                             muon_precision p, muon_gemm_cfg *cfg);
// Restores the thread counts muon_gemm_setup changed.  [in,out] cfg.
void muon_gemm_finish (muon_gemm_cfg *cfg);

// C (m x n, ldc) = op(A) op(B), op(A) m x k, op(B) k x n; ta / tb: 1 = transposed.
muon_status muon_gemm_product (muon_ctx *ctx, const muon_gemm_cfg *cfg, int ta, int tb,
                               size_t m, size_t n, size_t k, muon_gemm_in A, size_t lda,
                               muon_gemm_in B, size_t ldb, float *C, size_t ldc);
// Upper triangle of C (n x n, ldc) = alpha A A', A n x k (lda).  The strict lower triangle
// is left undefined (the caller mirrors).  OpenBLAS: SSYRK; oneDNN: one product per row
// block of MUON_GEMM_SYM_BLOCK rows (block row i times rows i.. of A), about
// (1 + 1/blocks) / 2 of the full product's work, and alpha applied after.
muon_status muon_gemm_symmetric (muon_ctx *ctx, const muon_gemm_cfg *cfg, size_t n, size_t k,
                                 float alpha, muon_gemm_in A, size_t lda, float *C,
                                 size_t ldc);

// Adds one product of `flops` operations that started at muon_clock () == t0 to the stats
// of the running muon_ns call (muon_gemm_product and muon_gemm_symmetric count themselves).
void muon_gemm_count (muon_ctx *ctx, double flops, double t0);

//---- gemm_onednn.c ---------------------------------------------------------------------------

// 1 when built with oneDNN.
int muon_gemm_onednn_built (void);
// 1 when oneDNN multiplies bf16 natively here (ISA avx512_core_bf16 or above).
int muon_gemm_onednn_native_bf16 (void);
// C (m x n, ldc, column-major f32) = op(A) op(B) with f32 or bf16 (uint16) operands.
muon_status muon_gemm_onednn (muon_ctx *ctx, int bf16, int threads, int ta, int tb, size_t m,
                              size_t n, size_t k, const void *A, size_t lda, const void *B,
                              size_t ldb, float *C, size_t ldc);
// Version, effective ISA and the implementation names of a small f32 and bf16 product.
muon_status muon_gemm_onednn_query (muon_ctx *ctx, muon_gemm_info *info);
// Frees the primitives, the stream and the engine held by ctx (muon_ctx_destroy calls it).
void muon_gemm_onednn_release (muon_ctx *ctx);
// Primitives held in ctx's cache (tests of the size limit).
size_t muon_gemm_onednn_cached (const muon_ctx *ctx);

#endif
