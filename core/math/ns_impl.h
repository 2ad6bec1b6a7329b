/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_impl.h - Newton-Schulz on one page, written once for three storage types.
 *
 * Included by ns.c with
 *   S = T = double    precision 'double', nothing rounded
 *   S = T = float     'single', 'bf16', 'fp16': fp32 storage holding compute-precision values
 *   S = uint16_t      'bf16' when the products multiply bf16 natively (oneDNN): the matrices
 *   T = float         are stored as bf16 bits, read and written only by the elementwise passes
 * In every case each GEMM accumulates in T (fp32 for the low precisions) from exact
 * compute-precision inputs and is rounded once, and every elementwise op is computed in T and
 * rounded once (DESIGN.md 4).  Storing a rounded bf16 value as its bits is exact, so the bf16
 * instantiations compute the same values; only the products' summation order differs.
 *
 * The caller defines S, T, FN(name), LOAD(s) (S -> T), STORE(t) (T -> S, of a value already
 * rounded), the products PRODUCT and SYMMETRIC (muon_status-valued), and the elementwise
 * macros RND and SCALE_ADD.
 *
 * Shapes: the page is copied (and transposed when rows > cols) into X, n x m with n <= m,
 * column-major with leading dimension n.  A, B, R, Z, Q, RZ are n x n in S; Y (n x m) and
 * P (n x n) in T hold product outputs.
 *
 * Threads: the elementwise passes are OpenMP loops (ns.c is compiled with -fopenmp) over the
 * threads muon_gemm_setup chose, or, for the passes over the upper triangle that follow a
 * symmetric product, the product's own epilogues (sym_block, on each block as the product
 * completes it); each element is computed by the same code whatever the split, and the
 * products are tiled by shape (gemm.h), so results do not depend on the thread count.
 * Small arrays stay on one thread.
 */
#ifndef NS_PAR_MIN
#define NS_PAR_MIN 32768   // elements below which a pass is not worth waking the threads
#define NS_PARALLEL_FOR _Pragma ("omp parallel for schedule (static) if (len >= NS_PAR_MIN)")
// The elementwise passes are compute-bound at the x86-64 baseline (SSE2: the rounding is a
// dozen integer ops per element); GCC's function multi-versioning adds AVX2 and AVX-512
// clones chosen at load time (2.5x faster passes measured).  The arithmetic is the same IEEE
// fp32 in every clone (-ffp-contract=off: no FMA), so results do not depend on the clone.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) \
    && !defined(__clang__)
#define NS_CLONES __attribute__ ((target_clones ("avx512f", "avx2", "default")))
#else
#define NS_CLONES
#endif
#endif

// The pass over the upper triangle after a symmetric product: FN (sym_job), FN (sym_block)
#include "ns_sym_impl.h"

// C = r(P) for P = upper triangle of alpha * X X' (X n x k), mirrored to the lower triangle:
// the lower copy is the rounded upper element, so C is exactly symmetric.  P: n x n scratch.
static muon_status FN (gram_product) (ns_env *env, int p, T alpha, const S *X, size_t n,
                                      size_t k, T *P, S *C)
{
  FN (sym_job) job = { p, 0, NULL, P, C, n, NULL, 0, 1 };
  muon_gemm_then then = { FN (sym_block), &job };
  return SYMMETRIC (env, alpha, X, n, k, P, &then);
}

// out[i] = r(r(s x[i]) + r(prod[i])) over len elements (eager), or with fused (muon_ns_opts)
// r(s x[i] + pc prod[i]), rounded once: the product's epilogue, pc its coefficient (1 in
// every eager call).  Double and single round nothing, so there the two forms agree.  out
// may alias x.  One loop per case so that each vectorizes.
NS_CLONES
static void FN (scale_add) (int p, int fused, T s, const S *x, T pc, const T *prod, S *out,
                            size_t len)
{
  if (fused && p == MUON_PREC_BF16)
  {
    NS_PARALLEL_FOR
    for (size_t i = 0; i < len; i++)
      out[i] = STORE (RND (MUON_PREC_BF16, s * LOAD (x[i]) + pc * prod[i]));
    return;
  }
  if (fused && p == MUON_PREC_FP16)
  {
    NS_PARALLEL_FOR
    for (size_t i = 0; i < len; i++)
      out[i] = STORE (RND (MUON_PREC_FP16, s * LOAD (x[i]) + pc * prod[i]));
    return;
  }
  switch (p)
  {
  case MUON_PREC_BF16:
    NS_PARALLEL_FOR
    for (size_t i = 0; i < len; i++)
      out[i] = STORE (SCALE_ADD (MUON_PREC_BF16, s, LOAD (x[i]), prod[i]));
    break;
  case MUON_PREC_FP16:
    NS_PARALLEL_FOR
    for (size_t i = 0; i < len; i++)
      out[i] = STORE (SCALE_ADD (MUON_PREC_FP16, s, LOAD (x[i]), prod[i]));
    break;
  default:
    NS_PARALLEL_FOR
    for (size_t i = 0; i < len; i++) out[i] = STORE (s * LOAD (x[i]) + pc * prod[i]);
  }
}

// out[i] = r(s x[i])
NS_CLONES
static void FN (scale) (int p, T s, const S *x, S *out, size_t len)
{
  NS_PARALLEL_FOR
  for (size_t i = 0; i < len; i++) out[i] = STORE (RND (p, s * LOAD (x[i])));
}

// out[i] = r(x[i]) for a product x
NS_CLONES
static void FN (round_copy) (int p, const T *x, S *out, size_t len)
{
  NS_PARALLEL_FOR
  for (size_t i = 0; i < len; i++) out[i] = STORE (RND (p, x[i]));
}

// Trace (muon_ns_opts.trace): out[i] = x[i] as double (S values), or r(y[i]) (T products)
static void FN (snap) (const S *x, size_t len, double *out)
{
  for (size_t i = 0; i < len; i++) out[i] = (double) LOAD (x[i]);
}

static void FN (snap_rounded) (int p, const T *y, size_t len, double *out)
{
  for (size_t i = 0; i < len; i++) out[i] = (double) RND (p, y[i]);
}

// Trace of a Gram step: the iterate r(Q X) into out, through Y; the run does not see it
// (nor do its statistics).
static muon_status FN (snap_iterate) (ns_env *env, int p, const S *Q, const S *X, size_t n,
                                      size_t m, T *Y, double *out)
{
  muon_status status = MUON_OK;
  muon_gemm_tally *keep = env->cfg.tally;   // not counted: the products add nowhere
  env->cfg.tally = NULL;
  CHECKSTATUS (PRODUCT (env, Q, X, n, m, Y));
  FN (snap_rounded) (p, Y, n * m, out);
fail:
  env->cfg.tally = keep;
  return status;
}

// B = b A + c A A, rounded as r(r(b A) + r(r(c A) A)) in low precision, or fused as
// r(b A + c P), once, P = A A' from the symmetric product when A is exactly symmetric (sym:
// the mirrored X X'), else P = A A (the Gram path's R: a general product leaves it only
// nearly symmetric).  P: n x n scratch.  Qf (non-NULL): also Qf = r(B + qa I) (Gram's fresh
// Q).
static muon_status FN (poly) (ns_env *env, int p, T b, T c, const S *A, int sym, size_t n,
                              T *P, S *B, S *Qf, T qa)
{
  muon_status status = MUON_OK;
  int low = p == MUON_PREC_BF16 || p == MUON_PREC_FP16;
  if (low && (!env->fused || !sym))
  {
    if (env->fused)                              // P = A A; B = r(b A + c P)
    {
      CHECKSTATUS (PRODUCT (env, A, A, n, n, P));
      FN (scale_add) (p, 1, b, A, c, P, B, n * n);
    }
    else
    {
      FN (scale) (p, c, A, B, n * n);            // B holds r(c A) for a moment
      CHECKSTATUS (PRODUCT (env, B, A, n, n, P));  // P = (c A) A: a general product, as
      FN (scale_add) (p, 0, b, A, 1, P, B, n * n);  // eager torch
    }
    if (Qf)
    {
      memcpy (Qf, B, n * n * sizeof *Qf);
      for (size_t d = 0; d < n; d++)
        Qf[d + d * n] = STORE (RND (p, LOAD (Qf[d + d * n]) + qa));
    }
  }
  else if (low)                                          // fused: P = A A', and
  {                                                      // B = r(b A + c P) on each block
    FN (sym_job) job = { p, b, A, P, B, n, Qf, qa, c };  // as it completes (the scalars
    muon_gemm_then then = { FN (sym_block), &job };      // in the epilogue, as cuBLAS's
    CHECKSTATUS (SYMMETRIC (env, 1, A, n, n, P, &then)); // alpha and beta)
  }
  else                                           // A symmetric: c A A' by SYRK, no rounding
  {                                              // modelled (S = T here); upper half only,
    FN (sym_job) job = { p, b, A, P, B, n, Qf, qa, 1 };  // B = b A + P on each block as it
    muon_gemm_then then = { FN (sym_block), &job };      // completes
    CHECKSTATUS (SYMMETRIC (env, c, A, n, n, P, &then));
  }
fail:
  return status;
}

// out = r(r(a B) + r(Zm B)) (n x n) for a product known to be symmetric (Gram: Z, R, RZ are
// polynomials in one symmetric matrix, so they commute): in double and single, where
// DESIGN.md 4 allows any association, the upper half of Zm B (muon_gemm_product_upper) and
// the sum on the upper triangle, mirrored (on each block of the product as it completes), so
// out is exactly symmetric and costs about half; bf16 and fp16 keep the peers' general
// product (fused: r(a B + Zm B), rounded once).  P: n x n scratch; out must not be Zm or B.
// Gram's R and RZ only (FN (gram) forms Q by a general product: see there).
static muon_status FN (sym_update) (ns_env *env, int p, T a, const S *Zm, const S *B,
                                    size_t n, T *P, S *out)
{
  muon_status status = MUON_OK;
  if (p == MUON_PREC_DOUBLE || p == MUON_PREC_SINGLE)
  {
    FN (sym_job) job = { p, a, B, P, out, n, NULL, 0, 1 };
    muon_gemm_then then = { FN (sym_block), &job };
    CHECKSTATUS (PRODUCT_UPPER (env, Zm, B, n, P, &then));
  }
  else
  {
    CHECKSTATUS (PRODUCT (env, Zm, B, n, n, P));
    FN (scale_add) (p, env->fused, a, B, 1, P, out, n * n);
  }
fail:
  return status;
}

// Standard iteration: A = r(X X'); B = r(r(b A) + r(r(c A) A)); X = r(r(a X) + r(B X)).
// Fused: B = r(b A + c (A A')); X = r(a X + B X).  [in,out] X; A, B, P, Y scratch.
// tr: the trace (NULL: none).  have_a: A already holds the first step's r(X X') (AOL).
static muon_status FN (standard) (ns_env *env, int p, const double *coef, int steps, S *X,
                                  size_t n, size_t m, T *Y, S *A, S *B, T *P,
                                  muon_ns_trace *tr, int have_a)
{
  muon_status status = MUON_OK;
  for (int k = 0; k < steps; k++)
  {
    T a = (T) coef[3 * k], b = (T) coef[3 * k + 1], c = (T) coef[3 * k + 2];
    CHECKSTATUS (muon_ctx_interrupted (env->ctx));             // (between steps)
    if (k > 0 || !have_a)
      CHECKSTATUS (FN (gram_product) (env, p, 1, X, n, m, P, A));
    CHECKSTATUS (FN (poly) (env, p, b, c, A, 1, n, P, B, NULL, 0));
    CHECKSTATUS (PRODUCT (env, B, X, n, m, Y));
    FN (scale_add) (p, env->fused, a, X, 1, Y, X, n * m);
    if (tr)
      FN (snap) (X, n * m, tr->x + (size_t) (k + 1) * n * m);
  }
fail:
  return status;
}

// Gram iteration (MUON_FACTS 1.3, DESIGN.md 4): everything but the first R, the restarts
// and the final Q X is n x n.  X_k = Q_k X_0 and R_k = X_k X_k', polynomials in R_0.
// In double and single Z, RZ and R are made exactly symmetric (the symmetric products, half
// the work), but Q is not: Q = r(a Q + Z Q) is a general product in every precision.  Q
// mirrored (its upper half computed and copied) drifts away from the standard iteration over
// long schedules, measured on randn 32 x 96 in double: 3e-12 at 100 steps, 1.3e-4 at 300,
// 9.4e-3 at 350, diverged (1e23) at 1000; single 128 x 512: 3.5e-3 at 100 steps.  With the
// general product for Q it stays at 4e-14 (350 steps); mirroring Z, R and RZ alone is
// harmless (2.7e-14 at 350 steps).
// R, Z, Q, RZ: n x n in S; P: n x n in T; X and Y: n x m, Y in T.  have_a: R already holds
// r(X X') (AOL).  [out] *res: the last product Q X, unrounded (the caller stores r(*res));
// it is Y or, after a restart in double or single (where r(Q X) = Q X: X and Y trade
// places instead of a copy), X.
static muon_status FN (gram) (ns_env *env, int p, const double *coef, int steps,
                              const muon_ns_opts *o, S *X, size_t n, size_t m, T *Y, S *R,
                              S *Z, S *Q, S *RZ, T *P, int have_a, const T **res)
{
  muon_status status = MUON_OK;
  int fresh = 1;                                   // Q is "None": start or just restarted
  muon_ns_trace *tr = o->trace;
  size_t nn = n * n;
  int low = p == MUON_PREC_BF16 || p == MUON_PREC_FP16;   // R nearly symmetric only
  int trade = sizeof (S) == sizeof (T) && !low;
  if (!have_a)
    CHECKSTATUS (FN (gram_product) (env, p, 1, X, n, m, P, R));      // R = r(X X')
  for (int i = 0; i < steps; i++)
  {
    T a = (T) coef[3 * i], b = (T) coef[3 * i + 1], c = (T) coef[3 * i + 2];
    CHECKSTATUS (muon_ctx_interrupted (env->ctx));             // (between steps)
    if (muon_ns_restart_before (i, o))
    {
      CHECKSTATUS (PRODUCT (env, Q, X, n, m, Y));                   // X = r(Q X)
      if (trade)
      {
        S *t = X;
        X = (S *) (void *) Y;
        Y = (T *) (void *) t;
      }
      else
        FN (round_copy) (p, Y, X, n * m);
      CHECKSTATUS (FN (gram_product) (env, p, 1, X, n, m, P, R));    // R = r(X X')
      fresh = 1;
    }
    if (tr && tr->r)
      FN (snap) (R, nn, tr->r + (size_t) i * nn);
    // Z = r(r(b R) + r(r(c R) R)), and when fresh Q = r(Z + a I)
    CHECKSTATUS (FN (poly) (env, p, b, c, R, !low, n, P, Z, fresh ? Q : NULL, a));
    if (fresh)
      fresh = 0;
    else                                           // Q = r(r(a Q) + r(Z Q)), into RZ's
    {                                              // buffer (free until RZ is formed below)
      CHECKSTATUS (PRODUCT (env, Z, Q, n, n, P));  // a general product in every precision
      FN (scale_add) (p, env->fused, a, Q, 1, P, RZ, nn);
      S *t = Q;
      Q = RZ;
      RZ = t;
    }
    if (tr && tr->q)
      FN (snap) (Q, nn, tr->q + (size_t) (i + 1) * nn);
    if (tr && i < steps - 1)
      CHECKSTATUS (FN (snap_iterate) (env, p, Q, X, n, m, Y, tr->x + (size_t) (i + 1) * n * m));
    if (i < steps - 1 && !muon_ns_restart_before (i + 1, o))
    {
      CHECKSTATUS (FN (sym_update) (env, p, a, Z, R, n, P, RZ));  // RZ = r(r(a R) + r(Z R))
      CHECKSTATUS (FN (sym_update) (env, p, a, Z, RZ, n, P, R));  // R = r(r(a RZ) + r(Z RZ))
    }
  }
  CHECKSTATUS (PRODUCT (env, Q, X, n, m, Y));       // X = r(Q X), rounded by the caller
  *res = Y;
  if (tr)
    FN (snap_rounded) (p, Y, n * m, tr->x + (size_t) steps * n * m);
fail:
  return status;
}

// Page e of G, element (i, j), as T: (T) g, or r((T) g) in the peers' cast-first order.
#define NS_G(i, j) (G->dtype == MUON_F64                                                   \
                    ? ((const double *) G->data)[e * G->stride + (i) + (j) * G->ld]       \
                    : (double) ((const float *) G->data)[e * G->stride + (i) + (j) * G->ld])

// Normalize page e of G into X (n x m, transposed when rows > cols).  Returns 0 for an
// all-zero page (X is then left all zero, and so is the result).
//
// Scale-safe: the plain fp64 sum of squares (DESIGN.md 4's norm, bitwise as the Octave
// port) is used whenever it and the denominator fit their precision.  Only when the sum
// overflows or underflows in fp64, or the norm does not fit fp32 as a normal number (low
// precisions), is the page scaled by its largest magnitude s, as LAPACK's nrm2 does:
// X = r(T((G / s) / (sqrt (sum (G / s)^2) + eps / s))), the quotient formed in fp64 and
// rounded to T (fp32 in the low precisions, as the plain path's quotient) before r(), so
// a huge or tiny finite input gives the scale-invariant answer (with eps 0) instead of
// zeros or NaN.  The peers'
// cast-first order ('NormalizeFirst', false) is left as they have it in the low precisions
// (it overflows fp16); in 'double' it casts nothing, so it is the same order, scaled too.
NS_CLONES
static int FN (load_page) (int p, const muon_tensor *G, size_t e, const muon_ns_opts *o, S *X,
                           int transposed)
{
  size_t rows = G->rows, cols = G->cols, n = transposed ? cols : rows;
  int cast_first = !o->normalize_first;
  double sum = 0, amax = 0;                        // fp64 sum of squares, column-major order,
  int bad = 0;                                     // of what is divided: G, or r(G) when the
  for (size_t j = 0; j < cols; j++)                // peers' order casts first
    for (size_t i = 0; i < rows; i++)
    {
      double g = NS_G (i, j);
      double v = cast_first ? (double) RND (p, (T) g) : g;
      sum += v * v;
      amax = fabs (v) > amax ? fabs (v) : amax;
      bad |= !isfinite (v);
    }
  if (amax == 0 && !bad)
    return 0;
  double root = sqrt (sum);                        // a non-finite input takes the plain
  int fits = bad || (p == MUON_PREC_DOUBLE         // path: NaN / Inf in, non-finite out
                       ? sum >= DBL_MIN && sum <= DBL_MAX : root >= FLT_MIN && root <= FLT_MAX);
  size_t len = rows * cols;
  if (!fits && (!cast_first || p == MUON_PREC_DOUBLE))   // the scaled form (function
                                                          // comment; double casts nothing)
  {
    double ssq = 0;
    for (size_t j = 0; j < cols; j++)
      for (size_t i = 0; i < rows; i++)
      {
        double t = NS_G (i, j) / amax;
        ssq += t * t;
      }
    double pre, denom;
    muon_norm_scaled (sqrt (ssq), o->eps, amax, &pre, &denom);
    NS_PARALLEL_FOR
    for (size_t j = 0; j < cols; j++)
      for (size_t i = 0; i < rows; i++)
        X[transposed ? j + i * n : i + j * n] = STORE (RND (p, (T) (NS_G (i, j) / pre / denom)));
    return 1;
  }
  T denom;
  if (p == MUON_PREC_DOUBLE)
    denom = (T) (root + o->eps);
  else if (o->normalize_first)                     // X = r(G / (fl32(||G||) + fl32(eps)))
    denom = (T) root + (T) o->eps;
  else                                             // X = r(r(G) / r(r(||r(G)||) + eps))
    denom = RND (p, RND (p, (T) root) + (T) o->eps);
  NS_PARALLEL_FOR
  for (size_t j = 0; j < cols; j++)
    for (size_t i = 0; i < rows; i++)
    {
      T v = (T) NS_G (i, j);
      if (cast_first)
        v = RND (p, v);
      X[transposed ? j + i * n : i + j * n] = STORE (RND (p, v / denom));
    }
  return 1;
}
#undef NS_G

// AOL scaling ('Normalize', "aol"): FN (aol_page), in its own file
#include "ns_aol_impl.h"

// Write X (n x m) back to page e of out, undoing the transpose, or r(Y) when Y (n x m, T) is
// not NULL; counts the non-finite values written.
NS_CLONES
static size_t FN (store_page) (int p, const S *X, const T *Y, int transposed, muon_tensor *out,
                               size_t e)
{
  size_t rows = out->rows, cols = out->cols, n = transposed ? cols : rows, bad = 0;
  size_t len = rows * cols;
#pragma omp parallel for schedule (static) reduction (+:bad) if (len >= NS_PAR_MIN)
  for (size_t j = 0; j < cols; j++)
    for (size_t i = 0; i < rows; i++)
    {
      size_t k = transposed ? j + i * n : i + j * n;
      T v = Y ? RND (p, Y[k]) : LOAD (X[k]);
      size_t at = e * out->stride + i + j * out->ld;
      // counted as stored: a finite double past single's range is Inf in a single X
      if (out->dtype == MUON_F64)
        bad += !isfinite (((double *) out->data)[at] = (double) v);
      else
        bad += !isfinite (((float *) out->data)[at] = (float) v);
    }
  return bad;
}

// Workspace of an n x m page in bytes: X (n m) and four n x n matrices in S, Y (n m) and
// P (n x n) in T, each 64-byte aligned, then n doubles (the AOL scaling).
static size_t FN (work_bytes) (size_t n, size_t m)
{
  size_t s = ((n * m + 4 * n * n) * sizeof (S) + 63) / 64 * 64;
  return s + ((n * m + n * n) * sizeof (T) + 63) / 64 * 64 + n * sizeof (double);
}

// The whole batch.  work: FN (work_bytes) (n, m) bytes, 64-byte aligned.  [out] *bad:
// non-finite values written.
static muon_status FN (batch) (ns_env *env, const muon_tensor *G, muon_tensor *out,
                               const muon_ns_opts *o, const double *coef, int steps,
                               void *work, size_t *bad)
{
  muon_status status = MUON_OK;
  int p = (int) o->precision, transposed = G->rows > G->cols;
  size_t n = transposed ? G->cols : G->rows, m = transposed ? G->rows : G->cols;
  int gram = muon_ns_uses_gram (G->rows, G->cols, o);
  S *X = work, *S1 = X + n * m, *S2 = S1 + n * n, *S3 = S2 + n * n, *S4 = S3 + n * n;
  T *Y = (T *) ((char *) work + ((n * m + 4 * n * n) * sizeof (S) + 63) / 64 * 64);
  T *P = Y + n * m;
  double *D = (double *) (void *) ((char *) Y + ((n * m + n * n) * sizeof (T) + 63) / 64 * 64);
  *bad = 0;
  muon_ns_trace *tr = o->trace;                    // one page (muon_ns checks)
  int aol = o->normalize == MUON_NORMALIZE_AOL;
  for (size_t e = 0; e < G->batch; e++)
  {
    int nonzero;
    CHECKSTATUS (muon_ctx_interrupted (env->ctx));             // (between pages)
    if (aol)
      CHECKSTATUS (FN (aol_page) (env, p, G, e, o, X, transposed, Y, P, S1, D, &nonzero));
    else
      nonzero = FN (load_page) (p, G, e, o, X, transposed);
    if (!nonzero)
      memset (X, 0, n * m * sizeof *X);            // zero in, exact zeros out
    if (tr)
    {
      FN (snap) (X, n * m, tr->x);
      if (!nonzero)                                // every iterate is zero
        for (int k = 1; k <= steps; k++)
          FN (snap) (X, n * m, tr->x + (size_t) k * n * m);
    }
    const T *res = NULL;                           // Gram: r(*res) is the result
    if (nonzero && gram)
      CHECKSTATUS (FN (gram) (env, p, coef, steps, o, X, n, m, Y, S1, S2, S3, S4, P, aol,
                              &res));
    else if (nonzero)
      CHECKSTATUS (FN (standard) (env, p, coef, steps, X, n, m, Y, S1, S2, P, tr, aol));
    *bad += FN (store_page) (p, X, res, transposed, out, e);
  }
fail:
  return status;
}
