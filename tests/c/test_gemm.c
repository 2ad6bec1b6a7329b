/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_gemm.c - the GEMM provider layer's products (core/gemm/gemm.c, gemm_onednn.c): every
 * transpose and padded leading dimensions against a plain fp64 triple loop, bf16 operands
 * against the fp32 product of the same values, the symmetric product (SYRK and oneDNN's
 * block rows), the epilogue of the symmetric and upper products (each upper element once,
 * already final), tiles run in any order and on any thread count, the primitive cache under
 * a shape sweep larger than its limit (correct results, bounded count, everything freed with
 * the context: ASan's leak check), and every error path of the products.  Where the build
 * has no oneDNN, the oneDNN cases check the MUON_ERR_NOTBUILT answers instead.  Provider and
 * thread resolution, muon_ns per provider and the query: test_gemm_setup.c.
 */
#include <stdint.h>
#include <cblas.h>

#include "harness.h"
#include "gemm.h"
#include "muon.h"
#include "muon_precision.h"

static muon_ctx *ctx;
static int have_dnnl;

static float urandf (void) { return (float) t_urand (); }     // uniform in [-1, 1)

// x: len random values rounded to bf16 (exact in fp32), h: their bits.
static void fill_bf16 (float *x, uint16_t *h, size_t len)
{
  for (size_t i = 0; i < len; i++)
  {
    x[i] = muon_round_bf16 (urandf ());
    h[i] = muon_f32_to_bf16_bits (x[i]);
  }
}

// Largest |C - op(A) op(B)| over the m x n result, relative to sum |a||b| per element (the
// fp32 accumulation error bound is about k * 2^-24 of that).
static double product_err (int ta, int tb, size_t m, size_t n, size_t k, const float *A,
                           size_t lda, const float *B, size_t ldb, const float *C, size_t ldc)
{
  double worst = 0;
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < m; i++)
    {
      double s = 0, a = 0;
      for (size_t l = 0; l < k; l++)
      {
        double x = ta ? A[l + i * lda] : A[i + l * lda], y = tb ? B[j + l * ldb] : B[l + j * ldb];
        s += x * y;
        a += fabs (x * y);
      }
      double e = fabs (C[i + j * ldc] - s) / (a > 0 ? a : 1);
      if (!(e <= worst)) worst = e;                 // NaN becomes the worst
    }
  return worst;
}

static muon_gemm_cfg config (muon_gemm_provider g, muon_precision p)
{
  muon_gemm_cfg cfg;
  muon_status s = muon_gemm_setup (ctx, g, 0, p, &cfg);
  T_EQ_INT (s, MUON_OK);
  muon_gemm_finish (&cfg);            // thread counts back; cfg stays usable
  return cfg;
}

//---- tests ----------------------------------------------------------------------------------

// Every transpose pair, padded leading dimensions, fp32 operands, on each provider; and bf16
// operands on oneDNN against the OpenBLAS product of the same (exact) values.
static void test_products (void)
{
  enum { M = 37, N = 29, K = 53, PAD = 3, LD = 64 };
  float A[LD * LD], B[LD * LD], C[LD * LD], C2[LD * LD];
  uint16_t Ah[LD * LD], Bh[LD * LD];
  fill_bf16 (A, Ah, LD * LD);
  fill_bf16 (B, Bh, LD * LD);
  muon_gemm_cfg blas = config (MUON_GEMM_OPENBLAS, MUON_PREC_SINGLE);
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
    {
      size_t lda = (ta ? K : M) + PAD, ldb = (tb ? N : K) + PAD, ldc = M + PAD;
      muon_gemm_in a = { A, NULL, NULL }, b = { B, NULL, NULL };
      for (size_t i = 0; i < LD * LD; i++) C[i] = C2[i] = -7.0f;
      T_EQ_INT (muon_gemm_product (ctx, &blas, ta, tb, M, N, K, a, lda, b, ldb, C, ldc), MUON_OK);
      T_LE (product_err (ta, tb, M, N, K, A, lda, B, ldb, C, ldc), 1e-5);
      T_EQ_DBL (C[M], -7.0f);                       // the padding rows are not written
      if (!have_dnnl)
        continue;
      muon_gemm_cfg f32 = config (MUON_GEMM_ONEDNN, MUON_PREC_SINGLE);
      T_EQ_INT (muon_gemm_product (ctx, &f32, ta, tb, M, N, K, a, lda, b, ldb, C2, ldc), MUON_OK);
      T_LE (product_err (ta, tb, M, N, K, A, lda, B, ldb, C2, ldc), 1e-5);
      T_EQ_DBL (C2[M], -7.0f);
      muon_gemm_cfg bf = config (MUON_GEMM_ONEDNN, MUON_PREC_BF16);
      if (!bf.bf16)
        continue;
      muon_gemm_in ah = { A, Ah, NULL }, bh = { B, Bh, NULL };
      T_EQ_INT (muon_gemm_product (ctx, &bf, ta, tb, M, N, K, ah, lda, bh, ldb, C2, ldc), MUON_OK);
      T_LE (product_err (ta, tb, M, N, K, A, lda, B, ldb, C2, ldc), 1e-5);
      // a bf16 call without bf16 operands is an internal error, not a wrong product
      T_EQ_INT (muon_gemm_product (ctx, &bf, ta, tb, M, N, K, a, lda, b, ldb, C2, ldc),
                MUON_ERR_INTERNAL);
    }
}

// Upper triangle of alpha A A' against the triple loop, small (one tile) and large enough
// for 3 x 3 tiles (n > 2 * MUON_GEMM_TILE, last tiles partial).
static void test_symmetric (void)
{
  const size_t ns[] = { 9, 2 * MUON_GEMM_TILE + 37 };
  for (int t = 0; t < 2; t++)
  {
    size_t n = ns[t], k = 70, lda = n + 2;
    float *A = malloc (lda * k * sizeof *A), *C = malloc (n * n * sizeof *C);
    uint16_t *Ah = malloc (lda * k * sizeof *Ah);
    fill_bf16 (A, Ah, lda * k);
    for (int prov = 0; prov < 3; prov++)
    {
      if (prov > 0 && !have_dnnl)
        break;
      muon_gemm_cfg cfg = config (prov == 0 ? MUON_GEMM_OPENBLAS : MUON_GEMM_ONEDNN,
                                  prov == 2 ? MUON_PREC_BF16 : MUON_PREC_SINGLE);
      if (prov == 2 && !cfg.bf16)
        break;
      muon_gemm_in a = { A, prov == 2 ? Ah : NULL, NULL };
      float alpha = t == 0 ? 1.0f : -0.5f;
      T_EQ_INT (muon_gemm_symmetric (ctx, &cfg, n, k, alpha, a, lda, C, n, NULL), MUON_OK);
      double worst = 0;
      for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i <= j; i++)
        {
          double s = 0, mag = 0;
          for (size_t l = 0; l < k; l++)
          {
            s += (double) A[i + l * lda] * A[j + l * lda];
            mag += fabs ((double) A[i + l * lda] * A[j + l * lda]);
          }
          double e = fabs (C[i + j * n] - alpha * s) / (fabs (alpha) * mag + 1e-30);
          if (!(e <= worst)) worst = e;
        }
      T_ASSERT_MSG (worst <= 1e-5, "n %zu provider %d: worst relative error %g", n, prov, worst);
    }
    free (A); free (C); free (Ah);
  }
}

// muon_gemm_product_upper: the upper triangle of A B (f32 and f64, OpenBLAS strips and
// oneDNN whole diagonal tiles) against an fp64 loop, the lower triangle untouched outside
// the diagonal blocks,
// the same bits for 1 and 3 threads, and its operation count (about half of A B).
static void test_product_upper (void)
{
  const size_t ns[] = { 9, 2 * MUON_GEMM_TILE + 37 };
  for (int t = 0; t < 2; t++)
  {
    size_t n = ns[t], k = n, ld = n + 3;
    float *A = malloc (ld * k * sizeof *A), *B = malloc (ld * n * sizeof *B);
    float *C = malloc (n * n * sizeof *C), *C3 = malloc (n * n * sizeof *C3);
    double *Ad = malloc (ld * k * sizeof *Ad), *Bd = malloc (ld * n * sizeof *Bd);
    double *Cd = malloc (n * n * sizeof *Cd);
    for (size_t i = 0; i < ld * k; i++) Ad[i] = A[i] = urandf ();
    for (size_t i = 0; i < ld * n; i++) Bd[i] = B[i] = urandf ();
    for (int prov = 0; prov < 3; prov++)
    {
      int f64 = prov == 2;
      if (prov == 1 && !have_dnnl)
        continue;
      muon_gemm_cfg cfg = config (prov == 1 ? MUON_GEMM_ONEDNN : MUON_GEMM_OPENBLAS,
                                  f64 ? MUON_PREC_DOUBLE : MUON_PREC_SINGLE);
      muon_gemm_in a = { A, NULL, f64 ? Ad : NULL }, b = { B, NULL, f64 ? Bd : NULL };
      for (size_t i = 0; i < n * n; i++) C[i] = C3[i] = 12345.0f, Cd[i] = 12345.0;
      muon_gemm_tally tally = { 0, 0, 0 };   // the products add their work here
      cfg.tally = &tally;
      cfg.threads = 1;
      T_EQ_INT (muon_gemm_product_upper (ctx, &cfg, n, k, a, ld, b, ld, f64 ? (void *) Cd
                                                                         : (void *) C, n, NULL),
                MUON_OK);
      double flops = tally.flops;
      double worst = 0;
      int lower_kept = 1;
      for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
        {
          double c = f64 ? Cd[i + j * n] : C[i + j * n];
          if (i > j)
          {
            // written below the diagonal: oneDNN's whole diagonal tiles, the strips' own
            // square diagonal blocks; nothing else
            int tile = i / MUON_GEMM_TILE == j / MUON_GEMM_TILE;
            int strip = tile && (i % MUON_GEMM_TILE) / MUON_GEMM_STRIP
                                  == (j % MUON_GEMM_TILE) / MUON_GEMM_STRIP;
            lower_kept &= (prov == 1 ? tile : strip) || c == 12345.0;
            continue;
          }
          double s = 0, mag = 0;
          for (size_t l = 0; l < k; l++)
          {
            s += Ad[i + l * ld] * Bd[l + j * ld];
            mag += fabs (Ad[i + l * ld] * Bd[l + j * ld]);
          }
          double e = fabs (c - s) / mag;
          if (!(e <= worst)) worst = e;
        }
      T_ASSERT_MSG (worst <= (f64 ? 1e-14 : 1e-5), "n %zu provider %d: error %g", n, prov, worst);
      T_ASSERT_MSG (lower_kept, "n %zu provider %d: the strict lower triangle was written", n, prov);
      double full = 2.0 * (double) n * (double) n * (double) k;
      T_ASSERT_MSG (flops < (n > MUON_GEMM_TILE && prov != 1 ? 0.56 : 1.0001) * full,
                    "n %zu provider %d: %g of the full product's operations", n, prov, flops / full);
      if (!f64)
      {
        cfg.threads = 3;
        T_EQ_INT (muon_gemm_product_upper (ctx, &cfg, n, k, a, ld, b, ld, C3, n, NULL), MUON_OK);
        T_ASSERT_MSG (memcmp (C, C3, n * n * sizeof *C) == 0, "n %zu provider %d: threads", n,
                      prov);
      }
    }
    free (A); free (B); free (C); free (C3); free (Ad); free (Bd); free (Cd);
  }
}

// muon_gemm_then: each element of the upper triangle of a symmetric or upper product is
// passed to the epilogue exactly once, already final (the value seen equals C after the
// call), on 1 and 3 threads, OpenBLAS and oneDNN; the outputs themselves are those of the
// calls without an epilogue (bitwise).
typedef struct {
  const float *C;
  float *seen;
  int *visits;
  size_t n;
} then_probe;

static void probe_block (void *arg, size_t i0, size_t mi, size_t j0, size_t nj)
{
  then_probe *pr = arg;
  for (size_t j = j0; j < j0 + nj; j++)
    for (size_t i = i0; i < i0 + mi && i <= j; i++)
    {
      pr->visits[i + j * pr->n]++;
      pr->seen[i + j * pr->n] = pr->C[i + j * pr->n];
    }
}

static void test_then (void)
{
  const size_t n = 2 * MUON_GEMM_TILE + 37, k = 70;
  float *A = malloc (n * k * sizeof *A), *B = malloc (n * n * sizeof *B);
  float *C = malloc (n * n * sizeof *C), *C0 = malloc (n * n * sizeof *C0);
  float *seen = malloc (n * n * sizeof *seen);
  int *visits = malloc (n * n * sizeof *visits);
  uint16_t *Ah = malloc (n * k * sizeof *Ah), *Bh = malloc (n * n * sizeof *Bh);
  fill_bf16 (A, Ah, n * k);
  fill_bf16 (B, Bh, n * n);
  muon_gemm_in a = { A, NULL, NULL }, b = { B, NULL, NULL };
  for (int prov = 0; prov < 2; prov++)
    for (int upper = 0; upper < 2; upper++)         // symmetric (A A'), upper (A B, k = n)
      for (int t = 1; t <= 3; t += 2)
      {
        if (prov == 1 && !have_dnnl)
          continue;
        muon_gemm_cfg cfg = config (prov ? MUON_GEMM_ONEDNN : MUON_GEMM_OPENBLAS,
                                    MUON_PREC_SINGLE);
        cfg.threads = t;
        then_probe pr = { C, seen, visits, n };
        muon_gemm_then then = { probe_block, &pr };
        for (size_t i = 0; i < n * n; i++) C[i] = C0[i] = seen[i] = -3.0f, visits[i] = 0;
        if (upper)                                  // B B: its upper tiles, whatever B
        {
          T_EQ_INT (muon_gemm_product_upper (ctx, &cfg, n, n, b, n, b, n, C, n, &then), MUON_OK);
          T_EQ_INT (muon_gemm_product_upper (ctx, &cfg, n, n, b, n, b, n, C0, n, NULL), MUON_OK);
        }
        else
        {
          T_EQ_INT (muon_gemm_symmetric (ctx, &cfg, n, k, 0.5, a, n, C, n, &then), MUON_OK);
          T_EQ_INT (muon_gemm_symmetric (ctx, &cfg, n, k, 0.5, a, n, C0, n, NULL), MUON_OK);
        }
        int once = 1, final = 1, same = 1;
        for (size_t j = 0; j < n; j++)
          for (size_t i = 0; i < n; i++)
          {
            int want = i <= j;
            once &= visits[i + j * n] == want;
            if (want)
            {
              final &= seen[i + j * n] == C[i + j * n];
              same &= C[i + j * n] == C0[i + j * n];
            }
          }
        T_ASSERT_MSG (once, "provider %d upper %d threads %d: an element not seen exactly once",
                      prov, upper, t);
        T_ASSERT_MSG (final, "provider %d upper %d threads %d: a block seen before it was final",
                      prov, upper, t);
        T_ASSERT_MSG (same, "provider %d upper %d threads %d: the epilogue changed the product",
                      prov, upper, t);
      }
  free (A); free (B); free (C); free (C0); free (seen); free (visits); free (Ah); free (Bh);
}

// Same bits for any thread count: every provider and operand type, general and symmetric
// products over several tiles (last ones partial), 1 to 4 threads (also above the cores);
// and each tile is the single library call on that block (what tests/octave/ref_ns.m
// reproduces): here a GEMM tile and a SYRK tile checked against cblas on one thread.
static void test_thread_invariance (void)
{
  const size_t m = 2 * MUON_GEMM_TILE + 41, k = 300, n = MUON_GEMM_TILE + 7;
  float *A = malloc (m * k * sizeof *A), *B = malloc (k * n * sizeof *B);
  float *C1 = malloc (m * m * sizeof *C1), *C2 = malloc (m * m * sizeof *C2);
  double *Ad = malloc (m * k * sizeof *Ad), *Bd = malloc (k * n * sizeof *Bd);
  double *D1 = malloc (m * m * sizeof *D1), *D2 = malloc (m * m * sizeof *D2);
  uint16_t *Ah = malloc (m * k * sizeof *Ah), *Bh = malloc (k * n * sizeof *Bh);
  float *P1 = malloc (m * n * sizeof *P1), *P2 = malloc (m * n * sizeof *P2);
  double *P1d = malloc (m * n * sizeof *P1d), *P2d = malloc (m * n * sizeof *P2d);
  fill_bf16 (A, Ah, m * k);
  fill_bf16 (B, Bh, k * n);
  for (size_t i = 0; i < m * k; i++) Ad[i] = (double) A[i] / 3;
  for (size_t i = 0; i < k * n; i++) Bd[i] = (double) B[i] / 3;
  muon_gemm_in a = { A, Ah, Ad }, b = { B, Bh, Bd };
  for (int kind = 0; kind < 4; kind++)        // OpenBLAS f32, f64, oneDNN f32, oneDNN bf16
  {
    if (kind >= 2 && !have_dnnl)
      break;
    muon_precision p = kind == 1 ? MUON_PREC_DOUBLE : kind == 3 ? MUON_PREC_BF16
                                                                 : MUON_PREC_SINGLE;
    int same_g = 1, same_s = 1;
    for (int t = 1; t <= 4; t++)
    {
      muon_gemm_cfg cfg;
      T_EQ_INT (muon_gemm_setup (ctx, kind >= 2 ? MUON_GEMM_ONEDNN : MUON_GEMM_OPENBLAS, t, p,
                                 &cfg), MUON_OK);
      void *Cg = kind == 1 ? (void *) (t == 1 ? D1 : D2) : (void *) (t == 1 ? C1 : C2);
      void *Cp = kind == 1 ? (void *) (t == 1 ? P1d : P2d) : (void *) (t == 1 ? P1 : P2);
      T_EQ_INT (muon_gemm_product (ctx, &cfg, 0, 0, m, n, k, a, m, b, k, Cp, m), MUON_OK);
      if (t > 1)
        same_g &= kind == 1 ? memcmp (P1d, P2d, m * n * sizeof *P1d) == 0
                            : memcmp (P1, P2, m * n * sizeof *P1) == 0;
      T_EQ_INT (muon_gemm_symmetric (ctx, &cfg, m, k, 0.5, a, m, Cg, m, NULL), MUON_OK);
      if (t > 1)
        for (size_t j = 0; j < m; j++)                // upper triangles bitwise equal
          same_s &= kind == 1 ? memcmp (D1 + j * m, D2 + j * m, (j + 1) * sizeof *D1) == 0
                              : memcmp (C1 + j * m, C2 + j * m, (j + 1) * sizeof *C1) == 0;
      muon_gemm_finish (&cfg);
      if (t == 1 && kind == 0)                          // tiles = single calls (OpenBLAS)
      {
        // on one OpenBLAS thread, as the core calls it: OpenBLAS's own threads may change
        // the bits (its Haswell kernels do, with 2 threads, for this tile)
        int blas_before = 0;
        T_EQ_INT (muon_gemm_blas_threads (ctx, 1, &blas_before), MUON_OK);
        size_t i0 = MUON_GEMM_TILE, j0 = MUON_GEMM_TILE, mi = MUON_GEMM_TILE, nj = 41;
        float *T = malloc (mi * mi * sizeof *T);
        cblas_sgemm (CblasColMajor, CblasNoTrans, CblasTrans, (int) mi, (int) nj, (int) k,
                     0.5f, A + i0, (int) m, A + 2 * MUON_GEMM_TILE, (int) m, 0.0f, T,
                     (int) mi);
        int same = 1;
        for (size_t j = 0; j < nj; j++)
          same &= memcmp (T + j * mi, C1 + i0 + (2 * MUON_GEMM_TILE + j) * m,
                          mi * sizeof *T) == 0;
        cblas_ssyrk (CblasColMajor, CblasUpper, CblasNoTrans, (int) mi, (int) k, 0.5f,
                     A + i0, (int) m, 0.0f, T, (int) mi);
        for (size_t j = 0; j < mi; j++)
          same &= memcmp (T + j * mi, C1 + i0 + (j0 + j) * m, (j + 1) * sizeof *T) == 0;
        T_ASSERT_MSG (same, "a tile differs from its single OpenBLAS call");
        free (T);
        int one_thread = 0;
        T_EQ_INT (muon_gemm_blas_threads (ctx, blas_before, &one_thread), MUON_OK);
      }
    }
    T_ASSERT_MSG (same_g && same_s, "kind %d: threads 1..4 differ (product %d, symmetric %d)",
                  kind, same_g, same_s);
    if (kind != 1)                                      // and right (4 threads, last run)
    {
      double e = product_err (0, 0, m, n, k, A, m, B, k, P2, m);
      T_ASSERT_MSG (e <= 1e-5, "kind %d: 4 threads, worst relative error %g", kind, e);
    }
  }
  free (A); free (B); free (C1); free (C2); free (Ad); free (Bd); free (D1); free (D2);
  free (Ah); free (Bh); free (P1); free (P2); free (P1d); free (P2d);
}

// Changing shapes: more distinct shapes than the cache holds, each checked, each repeated;
// the cache never exceeds its limit and a repeated shape does not add an entry.
static void test_cache_sweep (void)
{
  if (!have_dnnl)
  {
    T_EQ_INT (muon_gemm_onednn_cached (ctx), 0);
    return;
  }
  muon_ctx *c2 = NULL;
  T_EQ_INT (muon_ctx_create (&c2), MUON_OK);
  muon_ctx *keep = ctx;
  ctx = c2;
  muon_gemm_cfg cfg = config (MUON_GEMM_ONEDNN, MUON_PREC_SINGLE);
  enum { SHAPES = MUON_GEMM_CACHE_MAX + 16 };
  size_t maxcount = 0;
  long bad = 0;
  for (int rep = 0; rep < 2; rep++)
    for (int s = 0; s < SHAPES; s++)
    {
      size_t m = 5 + (size_t) s, n = 3 + (size_t) (s * 7) % 23, k = 4 + (size_t) (s * 5) % 31;
      float *A = malloc (m * k * sizeof *A), *B = malloc (k * n * sizeof *B);
      float *C = malloc (m * n * sizeof *C);
      for (size_t i = 0; i < m * k; i++) A[i] = urandf ();
      for (size_t i = 0; i < k * n; i++) B[i] = urandf ();
      muon_gemm_in a = { A, NULL, NULL }, b = { B, NULL, NULL };
      T_EQ_INT (muon_gemm_product (ctx, &cfg, 0, 0, m, n, k, a, m, b, k, C, m), MUON_OK);
      bad += !(product_err (0, 0, m, n, k, A, m, B, k, C, m) <= 1e-5);
      size_t before = muon_gemm_onednn_cached (ctx);
      T_EQ_INT (muon_gemm_product (ctx, &cfg, 0, 0, m, n, k, a, m, b, k, C, m), MUON_OK);
      T_EQ_INT (muon_gemm_onednn_cached (ctx), before);       // a hit adds nothing
      if (before > maxcount) maxcount = before;
      free (A); free (B); free (C);
    }
  T_ASSERT_MSG (bad == 0, "%ld of %d products wrong", bad, 2 * SHAPES);
  T_EQ_INT (maxcount, MUON_GEMM_CACHE_MAX);
  ctx = keep;
  T_EQ_INT (muon_ctx_destroy (&c2), MUON_OK);      // frees the primitives (ASan checks)
}

static void test_errors (void)
{
  float A[16] = { 0 }, C[16];
  muon_gemm_in a = { A, NULL, NULL }, none = { NULL, NULL, NULL };
  for (int prov = 1; prov <= 2; prov++)
  {
    if (prov == 2 && !have_dnnl)
      break;
    muon_gemm_cfg cfg = config ((muon_gemm_provider) prov, MUON_PREC_SINGLE);
    T_EQ_INT (muon_gemm_product (ctx, &cfg, 0, 0, 4, 4, 4, none, 4, a, 4, C, 4), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_gemm_product (ctx, &cfg, 0, 0, 4, 4, 4, a, 4, a, 4, NULL, 4), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_gemm_product (ctx, NULL, 0, 0, 4, 4, 4, a, 4, a, 4, C, 4), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_gemm_product (NULL, &cfg, 0, 0, 4, 4, 4, a, 4, a, 4, C, 4), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_gemm_product (ctx, &cfg, 0, 0, 4, 4, 4, a, 3, a, 4, C, 4), MUON_ERR_BADSHAPE);
    T_ASSERT (strstr (muon_ctx_last_error (ctx), "leading dimensions") != NULL);
    T_EQ_INT (muon_gemm_product (ctx, &cfg, 0, 1, 4, 4, 4, a, 4, a, 3, C, 4), MUON_ERR_BADSHAPE);
    T_EQ_INT (muon_gemm_product (ctx, &cfg, 0, 0, 4, 4, 4, a, 4, a, 4, C, 3), MUON_ERR_BADSHAPE);
    T_EQ_INT (muon_gemm_product (ctx, &cfg, 0, 0, 0, 4, 4, a, 4, a, 4, C, 4), MUON_ERR_BADSHAPE);
    T_EQ_INT (muon_gemm_symmetric (ctx, &cfg, 4, 4, 1, none, 4, C, 4, NULL), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_gemm_symmetric (ctx, &cfg, 4, 4, 1, a, 3, C, 4, NULL), MUON_ERR_BADSHAPE);
    T_EQ_INT (muon_gemm_symmetric (ctx, &cfg, 4, 0, 1, a, 4, C, 4, NULL), MUON_ERR_BADSHAPE);
  }
  // muon_ns's own checks of the new options
  double g[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }, x[12];
  muon_tensor tg = muon_tensor_matrix (MUON_F64, g, 3, 4);
  muon_tensor tx = muon_tensor_matrix (MUON_F64, x, 3, 4);
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.gemm = (muon_gemm_provider) 7;
  T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "unknown GEMM provider 7");
  o.gemm = MUON_GEMM_AUTO;
  o.threads = -2;
  T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "threads must be an integer from 0 (automatic) to 1024");
  o.threads = 0;
  o.gemm = MUON_GEMM_ONEDNN;
  o.precision = MUON_PREC_SINGLE;
  T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), have_dnnl ? MUON_OK : MUON_ERR_NOTBUILT);
}

int main (int argc, char **argv)
{
  (void) argc;
  muon_ctx_create (&ctx);
  t_rng = 777;
  have_dnnl = muon_gemm_onednn_built ();
  printf ("test_gemm: oneDNN %s\n", have_dnnl ? "built" : "not built (NOTBUILT paths checked)");
  T_RUN (test_products);
  T_RUN (test_symmetric);
  T_RUN (test_product_upper);
  T_RUN (test_then);
  T_RUN (test_thread_invariance);
  T_RUN (test_cache_sweep);
  T_RUN (test_errors);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
