/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_darray.c - device arrays (core/math/darray.c, muon_darray_math.h) on the CPU stand-in
 * device: round trips in every storage class (16-bit ones against the rounding written out
 * here), the normal generator's moments and purity, NS and the update against the direct
 * core calls on host tensors (bitwise), AdamW against its formula written out in double,
 * copies (between classes too), the error codes (shapes, devices, classes, an allocation
 * no memory can hold), a CUDA array without a device or back end (NODEVICE / NOTBUILT,
 * never a crash), raw device copies (overlapping ranges refused), and each page's sum of
 * squares.
 */
#include <stdint.h>

#include "harness.h"
#include "muon.h"
#include "math_internal.h"
#include "muon_darray_math.h"

// Huge allocations must come back as NULL (MUON_ERR_DEVMEM), not abort under ASan.
const char *__asan_default_options (void);
const char *__asan_default_options (void)
{
  return "allocator_may_return_null=1";
}

static void fill_rand (double *x, size_t n, unsigned s)
{
  for (size_t i = 0; i < n; i++)
  {
    s = s * 1103515245u + 12345u;
    x[i] = ((double) ((s >> 8) & 0xffffu) / 32768.0) - 1.0;
  }
}

static muon_darray *upload (muon_ctx *ctx, muon_precision st, double *x, size_t m, size_t n,
                            size_t e)
{
  muon_darray *a = NULL;
  muon_tensor t = muon_tensor_batch (MUON_F64, x, m, n, e);
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, st, m, n, e, &a), MUON_OK);
  T_EQ_INT (muon_darray_upload (ctx, a, &t), MUON_OK);
  return a;
}

static void download (muon_ctx *ctx, const muon_darray *a, double *y, size_t m, size_t n,
                      size_t e)
{
  muon_tensor t = muon_tensor_batch (MUON_F64, y, m, n, e);
  T_EQ_INT (muon_darray_download (ctx, a, &t), MUON_OK);
}

// x rounded into storage class st as written out here: the nearest value with 8 (bf16) or
// 11 (fp16) significant bits, ties to even; fp16 past 65504 is Inf
static double rounded (int st, double x)
{
  if (st == MUON_PREC_DOUBLE)
    return x;
  if (st == MUON_PREC_SINGLE)
    return (float) x;
  int bits = st == MUON_PREC_BF16 ? 8 : 11, ex;
  double f = frexp (x, &ex), s = ldexp (1, bits);
  double want = ldexp (nearbyint (f * s) / s, ex);   // the default mode: ties to even
  if (st == MUON_PREC_FP16 && fabs (want) > 65504)
    want = copysign (INFINITY, want);
  return want;
}

static int all_rounded (int st, const double *x, const double *y, size_t n)
{
  int ok = 1;
  for (size_t k = 0; k < n; k++)
    ok &= y[k] == rounded (st, x[k]) || (isnan (y[k]) && isnan (rounded (st, x[k])));
  return ok;
}

// Uploads and downloads in every class, and the copies between classes on the device
// (muon_darray_copy converts as an upload does).
static void test_round_trip (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  enum { M = 7, N = 9, E = 2 };
  double x[M * N * E], y[M * N * E], xs[M * N * E];
  fill_rand (x, M * N * E, 3);
  x[0] = 1 + 0x1p-9 + 0x1p-40;     // just above a bf16 tie: rounds up (a false tie via fp32)
  x[1] = 65520;                    // fp16: ties to even -> Inf
  muon_darray *d = upload (ctx, MUON_PREC_DOUBLE, x, M, N, E);
  muon_darray *f = upload (ctx, MUON_PREC_SINGLE, x, M, N, E);
  for (size_t k = 0; k < M * N * E; k++)
    xs[k] = (float) x[k];
  for (int st = MUON_PREC_DOUBLE; st <= MUON_PREC_FP16; st++)
  {
    muon_darray *a = upload (ctx, st, x, M, N, E);
    download (ctx, a, y, M, N, E);
    muon_darray_info i;
    T_EQ_INT (muon_darray_describe (a, &i), MUON_OK);
    T_EQ_INT (i.bytes, (size_t) M * N * E * (st == 0 ? 8 : st == 1 ? 4 : 2));
    T_ASSERT_MSG (all_rounded (st, x, y, M * N * E), "storage %d round trip", st);
    T_EQ_INT (muon_darray_copy (ctx, d, a), MUON_OK);          // double -> st on the device
    download (ctx, a, y, M, N, E);
    T_ASSERT_MSG (all_rounded (st, x, y, M * N * E), "storage %d from double", st);
    T_EQ_INT (muon_darray_copy (ctx, f, a), MUON_OK);          // single -> st
    download (ctx, a, y, M, N, E);
    T_ASSERT_MSG (all_rounded (st, xs, y, M * N * E), "storage %d from single", st);
    T_EQ_INT (muon_darray_copy (ctx, a, d), MUON_OK);          // st -> double: exact
    download (ctx, d, y, M, N, E);
    T_ASSERT_MSG (all_rounded (st, xs, y, M * N * E), "storage %d to double", st);
    T_EQ_INT (muon_darray_destroy (ctx, &a), MUON_OK);
    T_ASSERT (a == NULL);
    T_EQ_INT (muon_darray_destroy (ctx, &a), MUON_OK);     // *a NULL: nothing to free
    T_EQ_INT (muon_darray_destroy (ctx, NULL), MUON_ERR_NULLPTR);
    muon_tensor t = muon_tensor_batch (MUON_F64, x, M, N, E);
    T_EQ_INT (muon_darray_upload (ctx, d, &t), MUON_OK);
  }
  muon_darray_destroy (ctx, &d);
  muon_darray_destroy (ctx, &f);
  muon_ctx_destroy (&ctx);
}

static void test_randn (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  enum { M = 300, N = 200 };
  static double y[M * N], z[M * N];
  muon_darray *a = NULL, *b = NULL;
  muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, M, N, 1, &a);
  muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, M, N, 1, &b);
  T_EQ_INT (muon_darray_fill (ctx, a, MUON_FILL_RANDN, 11), MUON_OK);
  T_EQ_INT (muon_darray_fill (ctx, b, MUON_FILL_RANDN, 11), MUON_OK);
  download (ctx, a, y, M, N, 1);
  download (ctx, b, z, M, N, 1);
  T_ASSERT (memcmp (y, z, sizeof y) == 0);
  double s = 0, s2 = 0;
  for (size_t k = 0; k < M * N; k++)
  {
    s += y[k];
    s2 += y[k] * y[k];
  }
  double mean = s / (M * N), var = s2 / (M * N) - mean * mean;
  T_ASSERT_MSG (fabs (mean) < 5 / sqrt (M * N), "mean %g", mean);
  T_ASSERT_MSG (fabs (var - 1) < 5 * sqrt (2.0 / (M * N)), "variance %g", var);
  T_EQ_DBL (y[123], muon_randn_at (11, 123));            // a pure function of (seed, i)
  T_EQ_INT (muon_darray_fill (ctx, a, MUON_FILL_ZEROS, 0), MUON_OK);
  download (ctx, a, y, M, N, 1);
  T_ASSERT (y[0] == 0 && !signbit (y[0]) && y[M * N - 1] == 0);
  T_EQ_INT (muon_darray_fill (ctx, a, (muon_fill) 7, 0), MUON_ERR_BADARG);
  muon_darray_destroy (ctx, &a);
  muon_darray_destroy (ctx, &b);
  muon_ctx_destroy (&ctx);
}

static void test_ns_and_update (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  enum { M = 12, N = 20, E = 2 };
  double g[M * N * E], x1[M * N * E], x2[M * N * E], mh[M * N * E], u1[M * N * E],
    u2[M * N * E];
  fill_rand (g, M * N * E, 5);
  muon_darray *G = upload (ctx, MUON_PREC_DOUBLE, g, M, N, E), *X = NULL, *Md = NULL,
    *U = NULL;
  muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, M, N, E, &X);
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.precision = MUON_PREC_DOUBLE;
  T_EQ_INT (muon_darray_ns (ctx, G, X, &o), MUON_OK);
  download (ctx, X, x1, M, N, E);
  muon_tensor tg = muon_tensor_batch (MUON_F64, g, M, N, E), tx = muon_tensor_batch (MUON_F64,
                                                                                     x2, M, N, E);
  T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_OK);
  T_ASSERT (memcmp (x1, x2, sizeof x1) == 0);
  double ms = -1;
  T_EQ_INT (muon_darray_last_ms (ctx, MUON_DEVICE_CPU, &ms), MUON_OK);
  T_ASSERT (ms >= 0);

  // two updates against muon_update on host tensors
  muon_update_opts uo;
  muon_update_opts_default (&uo);
  uo.ns.precision = MUON_PREC_DOUBLE;
  memset (mh, 0, sizeof mh);
  muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, M, N, E, &Md);
  muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, M, N, E, &U);
  muon_darray_fill (ctx, Md, MUON_FILL_ZEROS, 0);
  muon_tensor tm = muon_tensor_batch (MUON_F64, mh, M, N, E), tu = muon_tensor_batch (MUON_F64,
                                                                                      u2, M, N, E);
  for (int k = 0; k < 2; k++)
  {
    T_EQ_INT (muon_darray_update (ctx, G, Md, U, &uo, 1), MUON_OK);
    T_EQ_INT (muon_update (ctx, &tg, &tm, &tu, &uo), MUON_OK);
  }
  download (ctx, U, u1, M, N, E);
  T_ASSERT (memcmp (u1, u2, sizeof u1) == 0);
  download (ctx, Md, x1, M, N, E);
  T_ASSERT (memcmp (x1, mh, sizeof x1) == 0);

  // an fp16 result past 65504 is Inf in its class: MUON_WARN_NONFINITE, as the NS counts its
  // own (the same update in single storage stays finite)
  {
    float u16[M * N * E];
    muon_darray *G16 = upload (ctx, MUON_PREC_FP16, g, M, N, E), *U16 = NULL, *G32 = NULL,
      *U32 = NULL;
    muon_update_opts big = uo;
    big.ns.precision = MUON_PREC_SINGLE;
    big.scale_factor = 1e6;
    muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_FP16, M, N, E, &U16);
    T_EQ_INT (muon_darray_update (ctx, G16, NULL, U16, &big, 1), MUON_WARN_NONFINITE);
    T_ASSERT (*muon_ctx_last_error (ctx) != 0);
    big.scale_factor = 1;
    T_EQ_INT (muon_darray_update (ctx, G16, NULL, U16, &big, 1), MUON_OK);
    T_EQ_INT (muon_darray_ns (ctx, G16, U16, &big.ns), MUON_OK);
    big.scale_factor = 1e6;
    G32 = upload (ctx, MUON_PREC_SINGLE, g, M, N, E);
    muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_SINGLE, M, N, E, &U32);
    T_EQ_INT (muon_darray_update (ctx, G32, NULL, U32, &big, 1), MUON_OK);
    muon_tensor t32 = muon_tensor_batch (MUON_F32, u16, M, N, E);
    T_EQ_INT (muon_darray_download (ctx, U32, &t32), MUON_OK);
    int past = 0;
    for (int i = 0; i < M * N * E; i++)
      past += fabsf (u16[i]) > 65504;
    T_ASSERT_MSG (past > 0, "the single update must pass fp16's range for this test");
    muon_darray *mine[] = { G16, U16, G32, U32 };
    for (int k = 0; k < 4; k++)
      muon_darray_destroy (ctx, &mine[k]);
  }

  // errors: shapes, the same array twice, experts
  muon_darray *small = NULL;
  muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, 2, 2, 1, &small);
  T_EQ_INT (muon_darray_ns (ctx, G, small, &o), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_darray_update (ctx, G, Md, Md, &uo, 1), MUON_ERR_BADARG);
  T_EQ_INT (muon_darray_update (ctx, G, Md, U, &uo, 5), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_darray_ns (ctx, G, X, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_darray_copy (ctx, G, small), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_darray_copy (ctx, G, X), MUON_OK);
  download (ctx, X, x1, M, N, E);
  T_ASSERT (memcmp (x1, g, sizeof x1) == 0);
  muon_darray *arrays[] = { G, X, Md, U, small };
  for (int k = 0; k < 5; k++)
    muon_darray_destroy (ctx, &arrays[k]);
  size_t in_use = 1, cached = 1;
  T_EQ_INT (muon_darray_trim (ctx, MUON_DEVICE_CPU, &in_use, &cached), MUON_OK);
  T_EQ_INT (in_use, 0);
  muon_ctx_destroy (&ctx);
}

static void test_adamw (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  enum { M = 5, N = 3 };
  double p[M * N], g[M * N], m[M * N], v[M * N], out[M * N];
  fill_rand (p, M * N, 1);
  fill_rand (g, M * N, 2);
  fill_rand (m, M * N, 3);
  fill_rand (v, M * N, 4);
  for (int k = 0; k < M * N; k++)
    v[k] = fabs (v[k]);
  muon_darray *P = upload (ctx, MUON_PREC_DOUBLE, p, M, N, 1), *G = upload (ctx,
    MUON_PREC_DOUBLE, g, M, N, 1), *Mm = upload (ctx, MUON_PREC_DOUBLE, m, M, N, 1),
    *V = upload (ctx, MUON_PREC_DOUBLE, v, M, N, 1);
  double b1 = 0.9, b2 = 0.95, lr = 1e-3, wd = 0.1, eps = 1e-8;
  int t = 3;
  double c[7] = { 1 - b1, 1 - b2, 1 - pow (b1, t), 1 - pow (b2, t), 1 - lr * wd, lr, eps };
  T_EQ_INT (muon_darray_adamw (ctx, P, G, Mm, V, c), MUON_OK);
  download (ctx, P, out, M, N, 1);
  int ok = 1;
  for (int k = 0; k < M * N; k++)
  {
    double mk = m[k] + (1 - b1) * (g[k] - m[k]), vk = v[k] + (1 - b2) * (g[k] * g[k] - v[k]);
    double mh = mk / (1 - pow (b1, t)), vh = vk / (1 - pow (b2, t));
    double pk = p[k] * (1 - lr * wd);
    pk = pk - lr * (mh / (sqrt (vh) + eps));
    ok &= out[k] == pk;
  }
  T_ASSERT (ok);
  muon_darray *S = NULL;
  muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_SINGLE, M, N, 1, &S);
  T_EQ_INT (muon_darray_adamw (ctx, P, S, Mm, V, c), MUON_ERR_BADTYPE);
  T_EQ_INT (muon_darray_adamw (ctx, P, G, P, V, c), MUON_ERR_BADARG);
  muon_darray *arrays[] = { P, G, Mm, V, S };
  for (int k = 0; k < 5; k++)
    muon_darray_destroy (ctx, &arrays[k]);
  muon_ctx_destroy (&ctx);
}

static void test_errors (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  muon_darray *a = NULL;
  size_t u, c;
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, 1000000, 1000000, 1000,
                                &a), MUON_ERR_DEVMEM);
  T_ASSERT (a == NULL);
  T_ASSERT (strstr (muon_ctx_last_error (ctx), "no room") != NULL);
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, SIZE_MAX / 2, 4, 1, &a),
            MUON_ERR_DEVMEM);
  T_ASSERT (strstr (muon_ctx_last_error (ctx), "do not fit in memory") != NULL);
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, 0, 4, 1, &a),
            MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, (muon_precision) 9, 2, 2, 1, &a),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, 2, 2, 1, NULL),
            MUON_ERR_NULLPTR);
  // no GPU on the test machines: a CUDA array is a clean NODEVICE or NOTBUILT
  muon_status s = muon_darray_create (ctx, MUON_DEVICE_CUDA, MUON_PREC_SINGLE, 2, 2, 1, &a);
  if (s == MUON_OK)
    muon_darray_destroy (ctx, &a);
  else
    T_ASSERT_MSG (s == MUON_ERR_NODEVICE || s == MUON_ERR_NOTBUILT, "status %d", (int) s);
  // a host tensor of another shape
  double x[4];
  muon_tensor t = muon_tensor_matrix (MUON_F64, x, 2, 2);
  muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, 2, 3, 1, &a);
  T_EQ_INT (muon_darray_upload (ctx, a, &t), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_darray_download (ctx, a, &t), MUON_ERR_BADSHAPE);
  muon_darray_destroy (ctx, &a);
  muon_darray_destroy (ctx, NULL);                  // fine
  // another context's destroy is refused (it took 6 x 8 bytes off c2's in-use count of 0,
  // 2^64 - 48) and the array stays its maker's
  muon_ctx *c2 = NULL;
  muon_ctx_create (&c2);
  size_t u2 = 99, c2c = 0, u1 = 0, u1c = 0;
  T_EQ_INT (muon_darray_create (c2, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, 1, 1, 1, &a), MUON_OK);
  muon_darray_destroy (c2, &a);                     // (c2's stand-in state: 0 bytes)
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, 2, 3, 1, &a), MUON_OK);
  T_EQ_INT (muon_darray_trim (ctx, MUON_DEVICE_CPU, &u1, &u1c), MUON_OK);
  T_EQ_INT (muon_darray_destroy (c2, &a), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (c2), "the array belongs to another context");
  T_ASSERT (a != NULL);
  T_EQ_INT (muon_darray_trim (c2, MUON_DEVICE_CPU, &u2, &c2c), MUON_OK);
  T_EQ_INT (u2, 0);
  T_EQ_INT (muon_darray_destroy (ctx, &a), MUON_OK);
  T_ASSERT (a == NULL);
  T_EQ_INT (muon_darray_trim (ctx, MUON_DEVICE_CPU, &u, &c), MUON_OK);
  T_EQ_INT (u1 - u, 6 * sizeof (double));
  muon_ctx_destroy (&c2);
  // no context is refused too (it freed the 6 x 8 bytes but left them in the owner's
  // in_use: trim still said 48 with no array held): the array stays, then its owner frees it
  T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, 2, 3, 1, &a), MUON_OK);
  T_EQ_INT (muon_darray_trim (ctx, MUON_DEVICE_CPU, &u1, &u1c), MUON_OK);
  T_EQ_INT (u1 - u, 6 * sizeof (double));
  T_EQ_INT (muon_darray_destroy (NULL, &a), MUON_ERR_NULLPTR);
  T_ASSERT (a != NULL);
  T_EQ_INT (muon_darray_trim (ctx, MUON_DEVICE_CPU, &u2, &c2c), MUON_OK);
  T_EQ_INT (u2, u1);                                // still held, still counted
  T_EQ_INT (muon_darray_destroy (ctx, &a), MUON_OK);
  T_ASSERT (a == NULL);
  T_EQ_INT (muon_darray_trim (ctx, MUON_DEVICE_CPU, &u2, &c2c), MUON_OK);
  T_EQ_INT (u2, u);                                 // back to the count before it
  T_EQ_INT (muon_darray_destroy (NULL, &a), MUON_OK);   // *a NULL: nothing to free
  // an unknown device is refused (it was taken as the CPU)
  double ms, h, d;
  T_EQ_INT (muon_darray_last_ms (ctx, (muon_device) 7, &ms), MUON_ERR_BADARG);
  T_EQ_INT (muon_darray_copy_time (ctx, (muon_device) 9, 16, &h, &d), MUON_ERR_BADARG);
  T_EQ_INT (muon_darray_trim (ctx, (muon_device) 7, &u, &c), MUON_ERR_BADARG);
  // trimming CUDA where it cannot load leaves the context's last error as it was
  muon_ctx_set_error (ctx, MUON_OK, "%s", "");
  T_EQ_INT (muon_darray_trim (ctx, MUON_DEVICE_CUDA, &u, &c), MUON_OK);
  T_EQ_INT (muon_ctx_last_status (ctx), MUON_OK);
  T_EQ_STR (muon_ctx_last_error (ctx), "");
  // raw device copies (the device ZeRO step's): distinct ranges copy, equal ones are left
  // alone, overlapping ones are refused on the stand-in as cudaMemcpy's rule wants
  double buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  T_EQ_INT (muon_dmem_copy (ctx, MUON_DEVICE_CPU, buf + 4, buf, 4), MUON_OK);
  T_EQ_INT (muon_dmem_copy (ctx, MUON_DEVICE_CPU, buf, buf, 8), MUON_OK);
  T_EQ_INT (muon_dmem_copy (ctx, MUON_DEVICE_CPU, buf + 1, buf, 4), MUON_ERR_BADARG);
  T_EQ_INT (muon_dmem_copy (ctx, MUON_DEVICE_CPU, buf, buf + 3, 4), MUON_ERR_BADARG);
  for (int i = 0; i < 8; i++)
    T_ASSERT_MSG (buf[i] == 1 + i % 4, "buf[%d] = %g", i, buf[i]);
  muon_ctx_destroy (&ctx);
}

// Each page's sum of squares and finiteness, in every storage class: the ordered sum of
// the stored values written out here; a page with a NaN, one whose squares overflow (finite
// elements, Inf sum) and the NULL arguments.
static void test_page_sumsq (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  enum { M = 5, N = 3, E = 3 };
  double x[M * N * E], y[M * N * E], ss[E];
  int finite[E];
  fill_rand (x, M * N * E, 7);
  x[M * N + 4] = NAN;                       // page 1
  for (int st = MUON_PREC_DOUBLE; st <= MUON_PREC_FP16; st++)
  {
    x[2 * M * N] = st == MUON_PREC_DOUBLE ? 1e200 : 3e38 * (st != MUON_PREC_FP16);  // page 2
    muon_darray *a = upload (ctx, st, x, M, N, E);
    download (ctx, a, y, M, N, E);          // the stored values
    T_EQ_INT (muon_darray_page_sumsq (ctx, a, ss, finite), MUON_OK);
    for (int k = 0; k < E; k++)
    {
      double want = 0;
      int fin = 1;
      for (int i = 0; i < M * N; i++)
      {
        want += y[k * M * N + i] * y[k * M * N + i];
        fin &= isfinite (y[k * M * N + i]) != 0;
      }
      T_ASSERT_MSG (finite[k] == fin, "storage %d page %d finite %d", st, k, finite[k]);
      T_ASSERT_MSG (ss[k] == want || (isnan (ss[k]) && isnan (want)),
                    "storage %d page %d: %g, want %g", st, k, ss[k], want);
    }
    T_ASSERT (!finite[1] && finite[0] && finite[2]);
    T_EQ_INT (muon_darray_page_sumsq (ctx, a, NULL, finite), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_darray_page_sumsq (ctx, a, ss, NULL), MUON_ERR_NULLPTR);
    muon_darray_destroy (ctx, &a);
  }
  T_EQ_INT (muon_darray_page_sumsq (ctx, NULL, ss, finite), MUON_ERR_NULLPTR);
  muon_ctx_destroy (&ctx);
}

int main (int argc, char **argv)
{
  (void) argc;
  T_RUN (test_round_trip);
  T_RUN (test_randn);
  T_RUN (test_ns_and_update);
  T_RUN (test_adamw);
  T_RUN (test_errors);
  T_RUN (test_page_sumsq);
  return T_DONE (argv[0]);
}
