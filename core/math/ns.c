/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns.c - Newton-Schulz orthogonalization on the CPU (the reference back end), standard and
 * Gram, batched over pages, in fp64, fp32 and emulated bf16 / fp16.
 *
 *   X = G / (||G||_F + eps)              per page, after the transpose rule (n <= m)
 *   standard step:  A = X X';  B = b A + c A A;  X = a X + B X
 *   Gram:           R = X X'; Z = b R + c R R; Q = a Q + Z Q (Z + a I when fresh); R = (aI+Z)^2 R
 *                   restart: X = Q X, R = X X'; end: X = Q X
 * The exact op order and rounding points are DESIGN.md 4; ns_impl.h holds the arithmetic.
 * Every product goes through the GEMM layer's tiled products (gemm.h: OpenBLAS, or oneDNN
 * for the precisions it runs, option 'Gemm'), so results do not depend on the thread count;
 * when oneDNN multiplies bf16 natively the bf16 iteration keeps its matrices as bf16 bits
 * (the third instantiation below).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "math_internal.h"
#include "tensor_check.h"
#include "muon_precision.h"
#include "ns_shared.h"

// What the steps of one muon_ns call need: the context, the GEMM configuration, and
// whether each scale-add is its product's epilogue (muon_ns_opts.fused).
typedef struct {
  muon_ctx *ctx;
  muon_gemm_cfg cfg;
  int fused;
} ns_env;

//---- products ------------------------------------------------------------------------------

// C (n x k) = A (n x n) B (n x k), and the upper triangle of C (n x n) = alpha A A' (A n x k),
// through the GEMM layer's tiled products (gemm.h): the same bits for any thread count.
static muon_status product (ns_env *env, muon_gemm_in A, muon_gemm_in B, size_t n, size_t k,
                            void *C)
{
  return muon_gemm_product (env->ctx, &env->cfg, 0, 0, n, k, n, A, n, B, n, C, n);
}

static muon_status symmetric (ns_env *env, double alpha, muon_gemm_in A, size_t n, size_t k,
                              void *C, const muon_gemm_then *then)
{
  return muon_gemm_symmetric (env->ctx, &env->cfg, n, k, alpha, A, n, C, n, then);
}

// The upper triangle of C (n x n) = A B, A and B n x n, a product known to be symmetric.
// then: what each block of C is passed to when final (gemm.h; NULL: nothing).
static muon_status product_upper (ns_env *env, muon_gemm_in A, muon_gemm_in B, size_t n,
                                  void *C, const muon_gemm_then *then)
{
  return muon_gemm_product_upper (env->ctx, &env->cfg, n, n, A, n, B, n, C, n, then);
}

// The upper triangle of alpha A A' for fp32 operands whatever the run multiplies (AOL's
// scaling Gram, normalize first: bf16 runs too form it from fp32 values).
static muon_status symmetric_f32 (ns_env *env, double alpha, const float *A, size_t n,
                                  size_t k, float *C)
{
  ns_env e = *env;
  muon_gemm_in in = { A, NULL, NULL };
  e.cfg.bf16 = 0;
  return muon_gemm_symmetric (e.ctx, &e.cfg, n, k, alpha, in, n, C, n, NULL);
}

static inline muon_gemm_in in_f64 (const double *x)
{
  muon_gemm_in in = { NULL, NULL, x };
  return in;
}

static inline muon_gemm_in in_f32 (const float *x)
{
  muon_gemm_in in = { x, NULL, NULL };
  return in;
}

static inline muon_gemm_in in_bf16 (const uint16_t *x)
{
  muon_gemm_in in = { NULL, x, NULL };
  return in;
}

//---- the three instantiations of ns_impl.h ------------------------------------------------

#define S double
#define T double
#define FN(name) name##_f64
#define LOAD(x) (x)
#define STORE(v) (v)
#define PRODUCT(env, A, B, n, k, C) product ((env), in_f64 (A), in_f64 (B), n, k, (C))
#define PRODUCT_UPPER(env, A, B, n, C, then) \
  product_upper ((env), in_f64 (A), in_f64 (B), n, (C), (then))
#define SYMMETRIC(env, alpha, A, n, k, C, then) \
  symmetric ((env), (alpha), in_f64 (A), n, k, (C), (then))
#define SYMMETRIC_T(env, alpha, A, n, k, C) \
  symmetric ((env), (alpha), in_f64 (A), n, k, (C), NULL)
#define RND(p, x) (x)
#define SCALE_ADD(p, s, x, prod) ((s) * (x) + (prod))
#include "ns_impl.h"
#undef S
#undef T
#undef FN
#undef PRODUCT
#undef PRODUCT_UPPER
#undef SYMMETRIC
#undef SYMMETRIC_T
#undef RND
#undef SCALE_ADD

#define S float
#define T float
#define FN(name) name##_f32
#define PRODUCT(env, A, B, n, k, C) product ((env), in_f32 (A), in_f32 (B), n, k, (C))
#define PRODUCT_UPPER(env, A, B, n, C, then) \
  product_upper ((env), in_f32 (A), in_f32 (B), n, (C), (then))
#define SYMMETRIC(env, alpha, A, n, k, C, then) \
  symmetric ((env), (alpha), in_f32 (A), n, k, (C), (then))
#define SYMMETRIC_T(env, alpha, A, n, k, C) symmetric_f32 ((env), (alpha), (A), n, k, (C))
#define RND(p, x) muon_round_to ((p), (x))
#define SCALE_ADD(p, s, x, prod) muon_scale_add ((p), (s), (x), (prod))
#include "ns_impl.h"
#undef S
#undef FN
#undef LOAD
#undef STORE
#undef PRODUCT
#undef PRODUCT_UPPER
#undef SYMMETRIC

// bf16 values stored as their bits (exact: every stored value has been rounded to bf16)
#define S uint16_t
#define FN(name) name##_b16
#define LOAD(x) muon_bf16_bits_to_f32 (x)
#define STORE(v) ((uint16_t) (muon_f32_bits (v) >> 16))
#define PRODUCT(env, A, B, n, k, C) product ((env), in_bf16 (A), in_bf16 (B), n, k, (C))
#define PRODUCT_UPPER(env, A, B, n, C, then) \
  product_upper ((env), in_bf16 (A), in_bf16 (B), n, (C), (then))
#define SYMMETRIC(env, alpha, A, n, k, C, then) \
  symmetric ((env), (alpha), in_bf16 (A), n, k, (C), (then))
#include "ns_impl.h"

MUON_NAME_TABLE (gemm_names, MUON_GEMM_LIST);   // the provider's name in the stats

//---- options ------------------------------------------------------------------------------

// Every field not named is 0 or NULL.
static const muon_ns_opts ns_defaults = {
  .method = MUON_NS_STANDARD, .precision = MUON_PREC_SINGLE,
  .schedule_mode = MUON_SCHEDULE_REPEAT_LAST, .restarts = { 2 }, .nrestarts = 1,
  .gram_min_aspect = 1, .eps = 1e-7, .normalize_first = 1, .device = MUON_DEVICE_CPU,
  .gemm = MUON_GEMM_AUTO, .normalize = MUON_NORMALIZE_FROBENIUS
};

void muon_ns_opts_default (muon_ns_opts *o)
{
  if (o != NULL)
    memcpy (o, &ns_defaults, sizeof *o);
}

int muon_ns_uses_gram (size_t rows, size_t cols, const muon_ns_opts *o)
{
  return o != NULL && muon_ns_gram_path (rows, cols, o);   // ns_shared.h
}

muon_status muon_ns_check_flop_opts (muon_ctx *ctx, const muon_ns_opts *o, int *steps)
{
  muon_status status = MUON_OK;
  CHECK (MUON_ERR_NULLPTR, o != NULL, "options must not be NULL");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_NS_METHOD_LIST, o->method),
         "unknown method %d", (int) o->method);
  CHECK (MUON_ERR_BADARG, o->steps >= 0,
         "steps must be 0 (the schedule's default) or a positive integer (got %d)", o->steps);
  CHECK (MUON_ERR_BADARG, o->coeffs == NULL || o->ncoeffs >= 1,
         "a coefficient schedule needs at least one triple");
  // (the default schedule, keller, is one triple: muon_ns_schedule's count)
  int s = o->steps > 0 ? o->steps : muon_coeffs_default_steps (o->coeffs ? o->ncoeffs : 1);
  CHECK (MUON_ERR_BADARG, s <= MUON_MAX_STEPS, "at most %d steps (got %d)", MUON_MAX_STEPS, s);
  CHECK (MUON_ERR_BADARG, o->nrestarts >= 0,
         "the restart count must not be negative (got %d)", o->nrestarts);
  CHECK (MUON_ERR_BADARG, o->nrestarts <= MUON_MAX_RESTARTS,
         "at most %d restarts (got %d)", MUON_MAX_RESTARTS, o->nrestarts);
  for (int i = 0; i < o->nrestarts; i++)
    CHECK (MUON_ERR_BADARG, o->restarts[i] >= 0, "restart indices must be non-negative");
  CHECK (MUON_ERR_BADARG, isfinite (o->gram_min_aspect) && o->gram_min_aspect >= 1,
         "the Gram minimum aspect must be a finite value >= 1");
  if (steps)
    *steps = s;
fail:
  return status;
}

muon_status muon_ns_check_opts (muon_ctx *ctx, const muon_ns_opts *o)
{
  muon_status status = MUON_OK;
  CHECKSTATUS (muon_ns_check_flop_opts (ctx, o, NULL));
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_PRECISION_LIST, o->precision),
         "unknown precision %d", (int) o->precision);
  for (int i = 0; o->coeffs && i < 3 * o->ncoeffs; i++)
    CHECK (MUON_ERR_BADARG, isfinite (o->coeffs[i]), "coefficients must be finite");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_SCHEDULE_MODE_LIST, o->schedule_mode),
         "unknown schedule mode %d", (int) o->schedule_mode);
  CHECK (MUON_ERR_BADARG, isfinite (o->eps) && o->eps >= 0, "eps must be finite and >= 0");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_DEVICE_LIST, o->device),
         "unknown device %d", (int) o->device);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_GEMM_LIST, o->gemm),
         "unknown GEMM provider %d", (int) o->gemm);
  CHECK (MUON_ERR_BADARG, o->threads >= 0 && o->threads <= MUON_MAX_THREADS,
         "threads must be an integer from 0 (automatic) to %d", MUON_MAX_THREADS);
  CHECK (MUON_ERR_NULLPTR, o->trace == NULL || o->trace->x != NULL,
         "the trace's iterate buffer must not be NULL");
  CHECK (MUON_ERR_UNSUPPORTED, o->trace == NULL || o->device == MUON_DEVICE_CPU,
         "a trace runs on the CPU only");
  CHECK (MUON_ERR_BADARG, o->fused == 0 || o->fused == 1, "fused must be 0 or 1");
  CHECK (MUON_ERR_BADARG, o->normalize_first == 0 || o->normalize_first == 1,
         "normalize_first must be 0 or 1");
  CHECK (MUON_ERR_BADARG, o->batched == 0 || o->batched == 1, "batched must be 0 or 1");
  CHECK (MUON_ERR_BADARG, o->sym_blocks >= 0 && o->sym_blocks <= MUON_MAX_SYM_BLOCKS,
         "sym_blocks must be 0 .. %d", MUON_MAX_SYM_BLOCKS);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_NORMALIZE_LIST, o->normalize),
         "unknown normalization %d", (int) o->normalize);
  CHECK (MUON_ERR_UNSUPPORTED, o->normalize == MUON_NORMALIZE_FROBENIUS
                                 || o->device == MUON_DEVICE_CPU,
         "the AOL normalization runs on the CPU only");
fail:
  return status;
}

// Expands o's schedule into buf (cap triples at most).  [out] buf: steps x 3, *steps.
muon_status muon_ns_schedule (muon_ctx *ctx, const muon_ns_opts *o, double *buf, int cap,
                             int *steps)
{
  muon_status status = MUON_OK;
  const double *triples = o->coeffs;
  int count = o->ncoeffs;
  if (triples == NULL)
    CHECKSTATUS (muon_coeffs_lookup (ctx, MUON_COEFFS_DEFAULT, &triples, &count));
  *steps = o->steps > 0 ? o->steps : muon_coeffs_default_steps (count);
  CHECK (MUON_ERR_BADARG, *steps <= cap, "at most %d steps", cap);
  CHECKSTATUS (muon_coeffs_expand (ctx, triples, count, *steps, o->schedule_mode, buf));
fail:
  return status;
}



// The statistics of the running or last muon_ns call on ctx, attached to it under
// "ns.stats" on the first call.  [out] *stats.
static muon_status stats_of (muon_ctx *ctx, muon_ns_stats **stats)
{
  void *s = NULL;
  muon_status status = muon_ctx_state (ctx, "ns.stats", sizeof **stats, free, MUON_CTX_KEEP,
                                       &s);
  *stats = s;
  return status;
}

muon_status muon_ns (muon_ctx *ctx, const muon_tensor *G, muon_tensor *X,
                     const muon_ns_opts *o)
{
  muon_status status = MUON_OK;
  double coef[3 * MUON_MAX_STEPS];
  int steps = 0;
  size_t bad = 0;
  void *work = NULL;
  muon_ns_stats *stats = NULL;
  muon_gemm_tally tally = { 0, 0, 0 };
  ns_env env = { ctx, { MUON_GEMM_OPENBLAS, 0, 0, 0, 0, 0, NULL }, 0 };  // finish restores
                                                                          // nothing
  CHECKCTX (ctx);
  double t0 = muon_clock ();
  CHECKSTATUS (stats_of (ctx, &stats));
  memset (stats, 0, sizeof *stats);
  CHECKSTATUS (muon_ns_check_opts (ctx, o));
  if (o->device == MUON_DEVICE_CUDA)              // a missing back end first, as the loader
  {                                                // says it
    snprintf (stats->gemm, sizeof stats->gemm, "cublas");
    stats->product_seconds = NAN;
    CHECKSTATUS (muon_cuda_load (ctx));
  }
  // the CPU runs host tensors; CUDA runs host tensors or device ones (darray.c), G and X
  // on the same side
  muon_device where = (o->device == MUON_DEVICE_CUDA && G) ? G->device : MUON_DEVICE_CPU;
  CHECKSTATUS (muon_tensor_check_on (ctx, G, "G", where));
  CHECKSTATUS (muon_tensor_check_on (ctx, X, "X", where));
  CHECK (MUON_ERR_BADSHAPE, G->rows == X->rows && G->cols == X->cols && G->batch == X->batch,
         "X must be %zu x %zu x %zu like G", G->rows, G->cols, G->batch);
  // in place is fine (each page is read whole before it is written); a shifted X would
  // overwrite pages of G not yet read
  CHECK (MUON_ERR_BADARG, where != MUON_DEVICE_CPU || !muon_tensors_overlap (G, X)
                            || (G->data == X->data && G->dtype == X->dtype && G->ld == X->ld
                                && (G->batch == 1 || G->stride == X->stride)),
         "X must be G itself or not overlap it");
  CHECKSTATUS (muon_ns_schedule (ctx, o, coef, MUON_MAX_STEPS, &steps));
  if (o->device == MUON_DEVICE_CUDA)
  {
    status = muon_cuda_ns (ctx, G, X, o, coef, steps);
    goto fail;
  }

  size_t n = G->rows < G->cols ? G->rows : G->cols, m = G->rows < G->cols ? G->cols : G->rows;
  CHECK (MUON_ERR_BADSHAPE, m <= (size_t) INT_MAX, "dimensions must fit a BLAS int");
  if (o->trace)   // the shape first: the overlap spans are the sizes the trace declares
  {
    CHECKSTATUS (muon_ns_trace_begin (ctx, o->trace, G, steps,
                                      muon_ns_uses_gram (G->rows, G->cols, o)));
    const muon_tensor *t[2] = { G, X };
    const char *names[2] = { "G", "X" };
    CHECKSTATUS (muon_ns_trace_check_alias (ctx, o->trace, t, names, 2));
  }
  CHECKSTATUS (muon_gemm_setup (ctx, o->gemm, o->threads, o->precision, &env.cfg));
  env.cfg.tally = &tally;
  env.fused = o->fused;
  snprintf (stats->gemm, sizeof stats->gemm, "%s", MUON_NAME_OF (gemm_names, env.cfg.provider));
  stats->bf16_products = env.cfg.bf16;
  stats->threads = env.cfg.threads;
  if (o->precision == MUON_PREC_DOUBLE)
  {
    CHECKSTATUS (muon_workspace_get (ctx, work_bytes_f64 (n, m), &work));
    CHECKSTATUS (batch_f64 (&env, G, X, o, coef, steps, work, &bad));
  }
  else if (env.cfg.bf16)                       // bf16 products: bf16 storage
  {
    CHECKSTATUS (muon_workspace_get (ctx, work_bytes_b16 (n, m), &work));
    CHECKSTATUS (batch_b16 (&env, G, X, o, coef, steps, work, &bad));
  }
  else
  {
    CHECKSTATUS (muon_workspace_get (ctx, work_bytes_f32 (n, m), &work));
    CHECKSTATUS (batch_f32 (&env, G, X, o, coef, steps, work, &bad));
  }
  if (bad)
    status = muon_ctx_set_error (ctx, MUON_WARN_NONFINITE,
                                 "%zu non-finite values in the result", bad);
fail:
  muon_gemm_finish (&env.cfg);
  if (ctx)
    muon_ctx_release (ctx, MUON_WORKSPACE_KEEP, NULL);
  if (stats)
  {
    if (env.cfg.tally)                             // what the CPU products counted
    {
      stats->products = tally.products;
      stats->product_flops = tally.flops;
      stats->product_seconds = tally.seconds;
    }
    stats->total_seconds = muon_clock () - t0;
  }
  return status;
}

muon_status muon_ns_last_stats (muon_ctx *ctx, muon_ns_stats *s)
{
  CHECKCTX (ctx);
  if (s == NULL)
    return muon_ctx_set_error (ctx, MUON_ERR_NULLPTR, "stats must not be NULL");
  const muon_ns_stats *last = muon_ctx_lookup (ctx, "ns.stats");
  if (last)
    *s = *last;
  else
    memset (s, 0, sizeof *s);
  return MUON_OK;
}
