/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_ns_steps.cc - the CUDA back end's order of operations (core/gpu/ns_cuda_steps.h) run
 * without a GPU: its templates over the primitives of ns_steps_emu.h, plain loops with the
 * semantics of the cuBLAS calls and kernels of ns_cuda_iter.cu.
 *
 * What it holds the iteration to:
 *   - the fp64 Newton-Schulz polynomial iterated on the same input (an outside reference:
 *     Gram NS, restarts or not, is the same map in exact arithmetic), within each precision's
 *     error, for every precision, method, eager and fused, odd and even step counts, and
 *     with and without the 2 x 2 blocks of X X';
 *   - a batch of three pages run together (strided, with a zero page) equals each page run
 *     alone, bit for bit (here every page's products are the same loops), and the padding
 *     between pages, which starts as NaN, is cleared before any pass reads it;
 *   - the blocks of X X' give the same bits as one product.
 * A wrong buffer, a lost copy back after an odd fused count, a wrong stride or block offset
 * gives errors of order one, far above the tolerances.
 */
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "harness.h"
#include "ns_steps_emu.h"

using muon_emu::emu_run;

static const double KELLER[3] = {3.4445, -4.7750, 2.0315};

// A page n x m with entries N(0,1)-like (a fixed generator), scaled to norm 1, zero when
// zero is set.
static std::vector<double> page (size_t n, size_t m, unsigned seed, int zero)
{
  std::vector<double> x (n * m);
  unsigned long long s = 0x9e3779b97f4a7c15ull * (seed + 1);
  double sum = 0;
  for (size_t i = 0; i < n * m; i++)
  {
    double u = 0;
    for (int k = 0; k < 4; k++)                   // a sum of uniforms: near normal, enough
    {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      u += (double) (s >> 11) / 9007199254740992.0 - 0.5;
    }
    x[i] = zero ? 0 : u;
    sum += x[i] * x[i];
  }
  for (double &v : x)
    v = sum > 0 ? v / sqrt (sum) : 0;
  return x;
}

template <typename T> static T to_work (int p, double v);
template <> double to_work<double> (int, double v) { return v; }
template <> float to_work<float> (int, double v) { return (float) v; }
template <> uint16_t to_work<uint16_t> (int p, double v)
{
  uint16_t h;
  muon_emu::st (p, (float) v, &h);
  return h;
}

// The fp64 iteration X <- a X + (b A + c A A) X, A = X X', on the n x m page x, with the
// triples coef (steps x 3; Keller's by default).
static std::vector<double> reference (std::vector<double> x, size_t n, size_t m, int steps,
                                      const double *coef = NULL)
{
  std::vector<double> A (n * n), B (n * n), Y (n * m);
  for (int s = 0; s < steps; s++)
  {
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++)
      {
        double acc = 0;
        for (size_t k = 0; k < m; k++)
          acc += x[i + k * n] * x[j + k * n];
        A[i + j * n] = acc;
      }
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++)
      {
        double acc = 0;
        for (size_t k = 0; k < n; k++)
          acc += A[i + k * n] * A[k + j * n];
        B[i + j * n] = (coef ? coef[3 * s + 1] : KELLER[1]) * A[i + j * n]
                     + (coef ? coef[3 * s + 2] : KELLER[2]) * acc;
      }
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < m; j++)
      {
        double acc = 0;
        for (size_t k = 0; k < n; k++)
          acc += B[i + k * n] * x[k + j * n];
        Y[i + j * n] = (coef ? coef[3 * s] : KELLER[0]) * x[i + j * n] + acc;
      }
    x = Y;
  }
  return x;
}

struct config {
  int p, gram, restart, fused, steps, sym_blocks;
};

// 1 when the padding after each of count arrays of len elements (laid padded (len) apart
// from A) holds +0 only.
template <typename T>
static int gaps_zero (const T *A, size_t len, size_t count)
{
  size_t pad = muon_cuda::padded (len);
  const T zero = 0;
  for (size_t a = 0; a < count; a++)
    for (size_t i = len; i < pad; i++)
      if (memcmp (&A[a * pad + i], &zero, sizeof zero) != 0)
        return 0;
  return 1;
}

// The iteration of `pages` pages (seeds 0.., page `zero_page` all zeros, -1 none) as one
// run: each page's result, as doubles.  The work starts as NaN everywhere but the pages,
// as a reused device block may hold anything.  [out] *gaps: 1 when every gap between the
// work arrays' pages holds +0 after the run (NULL: not asked).
template <typename T>
static std::vector<std::vector<double>> run_pages (const config &c, size_t n, size_t m,
                                                   int pages, int zero_page, unsigned seed0,
                                                   int *gaps = NULL)
{
  emu_run R = {c.p, n, m, c.sym_blocks, c.fused, pages, muon_cuda::padded (n * m),
               muon_cuda::padded (n * n)};
  std::vector<T> work (muon_cuda::steps_work (n, m, (size_t) pages), to_work<T> (c.p, NAN));
  for (int e = 0; e < pages; e++)
  {
    std::vector<double> x = page (n, m, seed0 + e, e == zero_page);
    for (size_t i = 0; i < n * m; i++)
      work[e * R.sx + i] = to_work<T> (c.p, x[i]);
  }
  muon_ns_opts o;
  memset (&o, 0, sizeof o);
  o.nrestarts = c.restart ? 1 : 0;
  o.restarts[0] = 2;
  std::vector<double> coef;
  for (int k = 0; k < c.steps; k++)
    coef.insert (coef.end (), KELLER, KELLER + 3);
  T_EQ_INT (muon_cuda::iterate_steps (R, &o, coef.data (), c.steps, c.gram, work.data ()),
            MUON_OK);
  std::vector<std::vector<double>> out (pages, std::vector<double> (n * m));
  for (int e = 0; e < pages; e++)
    for (size_t i = 0; i < n * m; i++)
      out[e][i] = (double) muon_emu::ld (c.p, work[e * R.sx + i]);
  if (gaps)
    *gaps = gaps_zero (work.data (), n * m, 2 * (size_t) pages)             // X, Y
            && gaps_zero (work.data () + 2 * pages * R.sx, n * n, 5 * (size_t) pages);
  return out;
}

static std::vector<std::vector<double>> run_any (const config &c, size_t n, size_t m,
                                                 int pages, int zero_page, unsigned seed0,
                                                 int *gaps = NULL)
{
  if (c.p == MUON_PREC_DOUBLE)
    return run_pages<double> (c, n, m, pages, zero_page, seed0, gaps);
  if (c.p == MUON_PREC_SINGLE)
    return run_pages<float> (c, n, m, pages, zero_page, seed0, gaps);
  return run_pages<uint16_t> (c, n, m, pages, zero_page, seed0, gaps);
}

static double rel_err (const std::vector<double> &x, const std::vector<double> &ref)
{
  double d = 0, r = 0;
  for (size_t i = 0; i < x.size (); i++)
  {
    d += (x[i] - ref[i]) * (x[i] - ref[i]);
    r += ref[i] * ref[i];
  }
  return sqrt (d / r);
}

static const char *pname (int p)
{
  return p == MUON_PREC_DOUBLE ? "double" : p == MUON_PREC_SINGLE ? "single"
       : p == MUON_PREC_BF16 ? "bf16" : "fp16";
}

// n = 72 > 64: with sym_blocks the split row is 64, blocks of 64 and 8 rows.
static const size_t N = 72, M = 96;
static const int PRECS[4] = {MUON_PREC_DOUBLE, MUON_PREC_SINGLE, MUON_PREC_BF16, MUON_PREC_FP16};

// Every path against the fp64 polynomial: the error of each precision's rounding, no more.
static void test_against_fp64 (void)
{
  const double tol[4] = {1e-12, 1e-4, 0.08, 0.012};
  for (int steps : {4, 5})
  {
    std::vector<double> ref = reference (page (N, M, 7, 0), N, M, steps);
    for (int k = 0; k < 4; k++)
      for (int method = 0; method < 3; method++)     // standard, gram, gram with restart [2]
        for (int fused = 0; fused < 2; fused++)
          for (int sym = 1; sym <= 2; sym++)           // one product, 2 x 2 blocks
          {
            if (steps == 4 && !fused)                  // an even count matters when fused
              continue;
            config c = {PRECS[k], method > 0, method == 2, fused, steps, sym};
            double e = rel_err (run_any (c, N, M, 1, -1, 7)[0], ref);
            T_ASSERT_MSG (e <= tol[k], "%s %s%s %s steps %d blocks %d: error %.3g > %.3g",
                          pname (c.p), method ? "gram" : "standard",
                          method == 2 ? " [2]" : "", fused ? "fused" : "eager", steps, sym, e,
                          tol[k]);
          }
  }
}

// A batch of three pages (the middle one zero) equals each page alone, bit for bit; the
// zero page stays zero.  At 70 x 90 the pages are 12 and 28 elements short of the next
// multiple of 64: the gaps between them, which the elementwise passes read, are cleared
// first (they start as NaN) and hold +0 at the end.
static void test_batched_equals_pages (void)
{
  const size_t shapes[2][2] = {{N, M}, {70, 90}};
  for (int k = 0; k < 4; k++)
    for (int method = 0; method < 3; method++)
      for (int fused = 0; fused < 2; fused++)
        for (const size_t *nm : shapes)
        {
          config c = {PRECS[k], method > 0, method == 2, fused, 5, k >= 2 ? 2 : 1};
          int gaps = 0;
          std::vector<std::vector<double>> b = run_any (c, nm[0], nm[1], 3, 1, 11, &gaps);
          for (int e = 0; e < 3; e++)
          {
            std::vector<double> one = run_any (c, nm[0], nm[1], 1, e == 1 ? 0 : -1, 11 + e)[0];
            T_ASSERT_MSG (b[e] == one, "%s method %d fused %d %zux%zu: batched page %d differs",
                          pname (c.p), method, fused, nm[0], nm[1], e);
          }
          double z = 0;
          for (double v : b[1])
            z += fabs (v);
          T_ASSERT_MSG (z == 0, "%s method %d fused %d %zux%zu: the zero page is not zero",
                        pname (c.p), method, fused, nm[0], nm[1]);
          T_ASSERT_MSG (gaps, "%s method %d fused %d %zux%zu: a gap between pages is not +0",
                        pname (c.p), method, fused, nm[0], nm[1]);
        }
}

// k x k blocks of the symmetric products (the upper ones, then the mirror) give one
// product's bits, whatever k: at n = 260 (rows split every 128 for k = 2 or 3, every 64 for
// k >= 4: 2, 3 and 5 blocks, the last one short), at n = 72 with k = 16 (2 blocks) and at
// n = 8 < k = 16 (one block).
static void test_blocks_equal_one_product (void)
{
  for (size_t n : {(size_t) 260, (size_t) 72, (size_t) 8})
    for (int method = 0; method < 2; method++)
      for (int fused = 0; fused < 2; fused++)
      {
        config one = {MUON_PREC_BF16, method, 0, fused, 1, 1};
        std::vector<double> x1 = run_any (one, n, n + 8, 1, -1, 3)[0];
        for (int kb : {2, 3, 4, 16})
        {
          if ((n < 260) != (kb == 16))
            continue;
          config c = one;
          c.sym_blocks = kb;
          T_ASSERT_MSG (run_any (c, n, n + 8, 1, -1, 3)[0] == x1,
                        "n %zu method %d fused %d: %d x %d blocks differ", n, method, fused,
                        kb, kb);
        }
      }
  config h = {MUON_PREC_FP16, 1, 1, 1, 3, 3};    // fp16 Gram, a restart before step 3, fused
  config h1 = h;
  h1.sym_blocks = 1;
  T_ASSERT (run_any (h, 200, 232, 1, -1, 4)[0] == run_any (h1, 200, 232, 1, -1, 4)[0]);
}

// The GPU suite's parity test (tests/gpu/gpu_parity.m) foretold: this order of operations
// from the device's normalization (fl(||G||) + fl(eps), divided in the compute type, rounded)
// against the CPU's muon_ns on the same N(0,1) single input, 64 x 320, Keller's five steps,
// Gram with its default restart, eager and fused.  d = |emulated - CPU| / |CPU| must stay
// within that suite's tolerance (0.9 of the CPU's own error e_cpu against the fp64
// polynomial in bf16 / fp16; 3e-5 in single, 1e-12 in double), and the emulated error within
// 1.25 e_cpu in every precision.  The sums here run in another order than OpenBLAS's, as
// cuBLAS's do: measured d / e_cpu up to 0.64 eager and 0.55 fused at 128 x 640 (on an H200,
// cuBLAS gave at most 0.68 eager).  Before symmetrize, single Gram eager had 2.8 e_cpu here.
template <typename T>
static std::vector<double> emulated (const std::vector<double> &G, size_t n, size_t m, int p,
                                     const muon_ns_opts *o, const std::vector<double> &coef)
{
  int steps = (int) coef.size () / 3;
  emu_run R = {p, n, m, 0, o->fused, 1, muon_cuda::padded (n * m), muon_cuda::padded (n * n)};
  std::vector<T> work (muon_cuda::steps_work (n, m, 1));
  muon_emu::load_page (p, o, G.data (), n, m, work.data ());
  T_EQ_INT (muon_cuda::iterate_steps (R, o, coef.data (), steps, o->method == MUON_NS_GRAM,
                                      work.data ()), MUON_OK);
  std::vector<double> x (n * m);
  for (size_t i = 0; i < n * m; i++)
    x[i] = (double) muon_emu::ld (p, work[i]);
  return x;
}

// One parity case: muon_ns on the CPU and the emulated device from the same G (n x m), the
// schedule `name` with its default steps and the restart list given, against the fp64
// polynomial; the assertion of the comment above.  With scale != 1 the input is the double
// page G * scale (a power of two: the same polar factor), whose sum of squares or norm may
// leave its range: both sides then take the scaled normalization (ns_cuda_norm.h), where
// the plain one gave zeros or NaN on the device.
static void parity_case (muon_ctx *ctx, const std::vector<float> &G, size_t n, size_t m,
                         int prec, int method, int fused, const char *name,
                         std::vector<int> restarts, double scale = 1)
{
  const double *triples = NULL;
  int count = 0;
  T_EQ_INT (muon_coeffs_lookup (ctx, name, &triples, &count), MUON_OK);
  int steps = muon_coeffs_default_steps (count);
  std::vector<double> coef (3 * steps);
  T_EQ_INT (muon_coeffs_expand (ctx, triples, count, steps, MUON_SCHEDULE_REPEAT_LAST,
                                coef.data ()), MUON_OK);
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.precision = (muon_precision) prec;
  o.method = method ? MUON_NS_GRAM : MUON_NS_STANDARD;
  o.fused = fused;
  o.threads = 1;
  o.coeffs = triples;
  o.ncoeffs = count;
  if (scale < 1)                                  // eps would swamp a tiny page's norm (G /
    o.eps = 0;                                    // (||G|| + eps) ~ G / eps), as on the CPU
  o.nrestarts = (int) restarts.size ();
  for (size_t r = 0; r < restarts.size (); r++)
    o.restarts[r] = restarts[r];
  std::vector<double> x0 (n * m);
  double sum = 0;
  for (float g : G)
    sum += (double) g * g;
  for (size_t i = 0; i < n * m; i++)
    x0[i] = G[i] / sqrt (sum);
  std::vector<double> ref = reference (x0, n, m, steps, coef.data ());
  std::vector<float> Xc (n * m);
  std::vector<double> Gd (n * m);                 // what the device reads
  for (size_t i = 0; i < n * m; i++)
    Gd[i] = (double) G[i] * scale;
  muon_tensor tg = {MUON_F32, MUON_DEVICE_CPU, n, m, 1, n, n * m, (void *) G.data ()};
  if (scale != 1)
  {
    tg.dtype = MUON_F64;
    tg.data = Gd.data ();
  }
  muon_tensor tx = {MUON_F32, MUON_DEVICE_CPU, n, m, 1, n, n * m, Xc.data ()};
  T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_OK);
  std::vector<double> xc (Xc.begin (), Xc.end ());
  std::vector<double> xe = prec == MUON_PREC_DOUBLE ? emulated<double> (Gd, n, m, prec, &o, coef)
                         : prec == MUON_PREC_SINGLE ? emulated<float> (Gd, n, m, prec, &o, coef)
                         : emulated<uint16_t> (Gd, n, m, prec, &o, coef);
  if (prec == MUON_PREC_DOUBLE)                   // the result is stored in single
    for (double &v : xe)
      v = (double) (float) v;
  double e_cpu = rel_err (xc, ref), e_emu = rel_err (xe, ref), d = rel_err (xe, xc);
  int low = prec == MUON_PREC_BF16 || prec == MUON_PREC_FP16;
  double tol = low ? 0.9 * e_cpu : prec == MUON_PREC_SINGLE ? 3e-5 : 1e-12;
  if (!low && tol < 8 * 6e-8)
    tol = 8 * 6e-8;                               // a single result: 8 eps (gpu_parity)
  T_ASSERT_MSG (d <= tol && e_emu <= 1.25 * e_cpu,
                "%s %s %s, %s, %zu restarts, scale %g: d %.3g (tol %.3g), e_emu %.3g, "
                "e_cpu %.3g", pname (prec), method ? "gram" : "standard",
                fused ? "fused" : "eager", name, restarts.size (), scale, d, tol, e_emu, e_cpu);
}

static void test_parity_with_cpu (void)
{
  const size_t n = 64, m = 320;
  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  for (unsigned seed = 0; seed < 2; seed++)
  {
    std::vector<double> g0 = page (n, m, 100 + seed, 0);
    std::vector<float> G (n * m);
    for (size_t i = 0; i < n * m; i++)
      G[i] = (float) (g0[i] * 40);
    for (int k = 0; k < 4; k++)
      for (int method = 0; method < 2; method++)
        for (int fused = 0; fused < 2; fused++)
          parity_case (ctx, G, n, m, PRECS[k], method, fused, "keller", {2});
    // deepseekv4's ten steps, where R drifts furthest from symmetric, one and two restarts
    for (int k = 1; k < 3; k++)
      for (int fused = 0; fused < 2; fused++)
        for (std::vector<int> r : {std::vector<int> {2}, std::vector<int> {1, 3}})
          parity_case (ctx, G, n, m, PRECS[k], 1, fused, "deepseekv4", r);
  }
  muon_ctx_destroy (&ctx);
}

// Huge and tiny finite pages: 2^600 and 2^-600 (the fp64 sum of squares overflows or
// underflows) and 2^130 (the fp32 norm overflows), in every precision, standard and Gram:
// the device's normalization (ns_cuda_norm.h) takes the scaled form as the CPU does, and
// the result is the polar factor of G itself.  The plain form gave all zeros or NaN.
static void test_parity_huge_and_tiny (void)
{
  const size_t n = 48, m = 160;
  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  std::vector<double> g0 = page (n, m, 7, 0);
  std::vector<float> G (n * m);
  for (size_t i = 0; i < n * m; i++)
    G[i] = (float) (g0[i] * 40);
  for (double scale : {std::ldexp (1.0, 600), std::ldexp (1.0, -600), std::ldexp (1.0, 130)})
    for (int k = 0; k < 4; k++)
      for (int method = 0; method < 2; method++)
        parity_case (ctx, G, n, m, PRECS[k], method, method, "keller", {2}, scale);
  muon_ctx_destroy (&ctx);
}

// A page of subnormal entries (largest magnitude 2^-1060, below eps / DBL_MAX) with the
// default eps, in double: the CPU and the device's normalization (muon_norm_scaled) give
// G / (||G|| + eps) through Keller's steps, bit for bit alike and, since the page is
// nothing beside eps, a^5 G / eps to 1e-12 (eps / max|G| overflowed: zeros on both).
static void test_subnormal_page (void)
{
  const size_t n = 8, m = 24;
  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  std::vector<double> g0 = page (n, m, 11, 0), G (n * m), X (n * m);
  double amax = 0;
  for (double g : g0)
    amax = fabs (g) > amax ? fabs (g) : amax;
  for (size_t i = 0; i < n * m; i++)
    G[i] = std::ldexp (g0[i] / amax, -1060);
  const double *triples = NULL;
  int count = 0;
  T_EQ_INT (muon_coeffs_lookup (ctx, "keller", &triples, &count), MUON_OK);
  std::vector<double> coef (15);
  T_EQ_INT (muon_coeffs_expand (ctx, triples, count, 5, MUON_SCHEDULE_REPEAT_LAST,
                                coef.data ()), MUON_OK);
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.precision = MUON_PREC_DOUBLE;
  o.threads = 1;
  muon_tensor tg = {MUON_F64, MUON_DEVICE_CPU, n, m, 1, n, n * m, G.data ()};
  muon_tensor tx = {MUON_F64, MUON_DEVICE_CPU, n, m, 1, n, n * m, X.data ()};
  T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_OK);
  std::vector<double> xe = emulated<double> (G, n, m, MUON_PREC_DOUBLE, &o, coef);
  double a5 = pow (3.4445, 5), worst = 0;
  for (size_t i = 0; i < n * m; i++)
  {
    T_ASSERT_MSG (xe[i] == X[i], "entry %zu: device %.17g, CPU %.17g", i, xe[i], X[i]);
    double want = a5 * (G[i] / o.eps);
    worst = fmax (worst, fabs (X[i] - want) / (a5 * std::ldexp (1.0, -1060) / o.eps));
  }
  T_ASSERT_MSG (worst < 1e-12, "a^5 G / eps: relative error %.3g", worst);
  muon_ctx_destroy (&ctx);
}

// Fused changes 16-bit results (the rounding model), not double's (the same arithmetic).
static void test_fused_changes_only_16_bit (void)
{
  for (int k = 0; k < 4; k++)
  {
    config e = {PRECS[k], 0, 0, 0, 5, 0}, f = e;
    f.fused = 1;
    int same = run_any (e, N, M, 1, -1, 5)[0] == run_any (f, N, M, 1, -1, 5)[0];
    if (k == 0)
      T_ASSERT_MSG (same, "double: fused and eager differ");
    if (k >= 2)
      T_ASSERT_MSG (!same, "%s: fused gives the eager bits", pname (e.p));
  }
}

int main (int argc, char **argv)
{
  (void) argc;
  T_RUN (test_against_fp64);
  T_RUN (test_batched_equals_pages);
  T_RUN (test_blocks_equal_one_product);
  T_RUN (test_fused_changes_only_16_bit);
  T_RUN (test_parity_with_cpu);
  T_RUN (test_parity_huge_and_tiny);
  T_RUN (test_subnormal_page);
  return T_DONE (argv[0]);
}
