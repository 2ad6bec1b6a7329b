/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_closed_form.h - the closed-form case runner of the CPU Newton-Schulz tests (test_ns.c,
 * test_ns_precision.c): pages G = U diag(s) V' built from orthogonal factors made here
 * (products of two Householder reflections and a permutation, no SVD), run through muon_ns
 * in a chosen layout, and the largest relative error against U diag(phi(s / (||G||_F +
 * eps))) V', phi the composition of x -> a x + b x^3 + c x^5 over the schedule expanded
 * here from DESIGN.md 4 (not with coeffs.c's expansion).  Uses the including test's
 * context `ctx`.
 */
#ifndef MUON_NS_CLOSED_FORM_H
#define MUON_NS_CLOSED_FORM_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "muon.h"

static muon_ctx *ctx;

//---- small helpers --------------------------------------------------------------------------

// Q (n x n, column-major) = P H(v1) H(v2), P a permutation, H(v) = I - 2 v v' / v'v.
static void orthogonal (size_t n, double *Q)
{
  double *v1 = malloc (n * sizeof *v1), *v2 = malloc (n * sizeof *v2);
  double *H = malloc (n * n * sizeof *H);
  size_t *perm = malloc (n * sizeof *perm);
  double n1 = 0, n2 = 0;
  for (size_t i = 0; i < n; i++)
  {
    v1[i] = t_urand () + 0.1; v2[i] = t_urand () - 0.1;
    n1 += v1[i] * v1[i]; n2 += v2[i] * v2[i];
    perm[i] = i;
  }
  for (size_t i = n; i > 1; i--)          // Fisher-Yates
  {
    size_t j = (size_t) ((t_urand () + 1) * 0.5 * (double) i);
    if (j >= i) j = i - 1;
    size_t t = perm[i - 1]; perm[i - 1] = perm[j]; perm[j] = t;
  }
  // H = H(v1) H(v2) = (I - 2 v1 v1'/n1)(I - 2 v2 v2'/n2)
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < n; i++)
    {
      double h = 0;
      for (size_t l = 0; l < n; l++)
      {
        double a = (i == l) - 2 * v1[i] * v1[l] / n1, b = (l == j) - 2 * v2[l] * v2[j] / n2;
        h += a * b;
      }
      H[i + j * n] = h;
    }
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < n; i++)
      Q[perm[i] + j * n] = H[i + j * n];
  free (v1); free (v2); free (H); free (perm);
}

static const double KELLER[3] = { 3.4445, -4.7750, 2.0315 };

// The schedule o asks for, expanded here from the rules of DESIGN.md 4 (not with coeffs.c's
// expansion).  Returns the step count; coef: steps x 3.
static int schedule (const muon_ns_opts *o, double *coef, int cap)
{
  const double *t = o->coeffs ? o->coeffs : KELLER;
  int count = o->coeffs ? o->ncoeffs : 1;
  int steps = o->steps > 0 ? o->steps : (count == 1 ? 5 : count);
  if (steps > cap) steps = cap;
  for (int k = 0; k < steps; k++)
  {
    int src = k < count ? k : o->schedule_mode == MUON_SCHEDULE_CYCLE ? k % count : count - 1;
    memcpy (coef + 3 * k, t + 3 * src, 3 * sizeof *coef);
  }
  return steps;
}

static double phi (double x, const double *coef, int steps)
{
  for (int k = 0; k < steps; k++)
  {
    double x2 = x * x;
    x = coef[3 * k] * x + coef[3 * k + 1] * x2 * x + coef[3 * k + 2] * x2 * x2 * x;
  }
  return x;
}

//---- the closed-form case runner ------------------------------------------------------------

enum { DENSE = 0, FUSED = 1, PADDED = 2 };
#define SENTINEL 12345.25

typedef struct {
  size_t rows, cols, batch;
  int layout;
  const double *scale;   // per page (NULL: 1); 0 makes an all-zero page
  muon_ns_opts o;
} ns_case;

typedef struct { muon_status status; double err; int untouched_ok, zero_ok, finite; } ns_result;

static void layout_of (const ns_case *c, size_t *ld, size_t *stride)
{
  switch (c->layout)
  {
  case FUSED:  *ld = c->batch * c->rows; *stride = c->rows; break;
  case PADDED: *ld = c->rows + 3; *stride = (c->rows + 3) * c->cols + 5; break;
  default:     *ld = c->rows; *stride = c->rows * c->cols;
  }
}

// Builds the pages, runs muon_ns in fp64 storage, and returns the largest relative Frobenius
// error against the closed form over the non-zero pages.
static ns_result run_case (const ns_case *c)
{
  ns_result res = { MUON_OK, 0, 1, 1, 1 };
  size_t rows = c->rows, cols = c->cols, k = rows < cols ? rows : cols, ld, stride;
  layout_of (c, &ld, &stride);
  size_t total = (c->batch - 1) * stride + ld * (cols - 1) + rows;
  double *G = calloc (total, sizeof *G), *X = malloc (total * sizeof *X);
  double *E = calloc (total, sizeof *E);
  unsigned char *in_page = calloc (total, 1);
  double *U = malloc (rows * rows * sizeof *U), *V = malloc (cols * cols * sizeof *V);
  double *s = malloc (k * sizeof *s), coef[3 * 64];
  int steps = schedule (&c->o, coef, 64);
  for (size_t i = 0; i < total; i++) X[i] = SENTINEL;
  for (size_t e = 0; e < c->batch; e++)
  {
    double scale = c->scale ? c->scale[e] : 1.0;
    orthogonal (rows, U);
    orthogonal (cols, V);
    double ss = 0;
    for (size_t l = 0; l < k; l++)     // distinct singular values in [0.3, 1] * scale
    {
      s[l] = scale * (0.3 + 0.7 * (double) (l + 1) / (double) k + 0.01 * t_urand ());
      ss += s[l] * s[l];
    }
    double *g = G + e * stride, *ex = E + e * stride;
    for (size_t j = 0; j < cols; j++)
      for (size_t i = 0; i < rows; i++)
      {
        double v = 0;
        for (size_t l = 0; l < k; l++) v += U[i + l * rows] * s[l] * V[j + l * cols];
        g[i + j * ld] = v;
        in_page[e * stride + i + j * ld] = 1;
      }
    // ||G||_F as the core sums it (fp64, column-major); then the closed form
    double sum = 0;
    for (size_t j = 0; j < cols; j++)
      for (size_t i = 0; i < rows; i++) sum += g[i + j * ld] * g[i + j * ld];
    double nrm = sqrt (sum) + c->o.eps;
    for (size_t l = 0; l < k; l++) s[l] = scale == 0 ? 0 : phi (s[l] / nrm, coef, steps);
    for (size_t j = 0; j < cols; j++)
      for (size_t i = 0; i < rows; i++)
      {
        double v = 0;
        for (size_t l = 0; l < k; l++) v += U[i + l * rows] * s[l] * V[j + l * cols];
        ex[i + j * ld] = v;
      }
    (void) ss;
  }
  muon_tensor tg = muon_tensor_batch (MUON_F64, G, rows, cols, c->batch), tx = tg;
  tg.ld = tx.ld = ld;
  tg.stride = tx.stride = stride;
  tx.data = X;
  res.status = muon_ns (ctx, &tg, &tx, &c->o);
  for (size_t e = 0; e < c->batch; e++)
  {
    double num = 0, den = 0;
    int zero = c->scale && c->scale[e] == 0;
    for (size_t j = 0; j < cols; j++)
      for (size_t i = 0; i < rows; i++)
      {
        size_t at = e * stride + i + j * ld;
        double d = X[at] - E[at];
        num += d * d;
        den += E[at] * E[at];
        if (!isfinite (X[at])) res.finite = 0;
        if (zero && (X[at] != 0 || signbit (X[at]))) res.zero_ok = 0;
      }
    if (!zero)
    {
      double err = den > 0 ? sqrt (num / den) : INFINITY;
      if (!(err <= res.err)) res.err = err;      // NaN propagates as a failure
    }
  }
  for (size_t i = 0; i < total; i++)
    if (!in_page[i] && X[i] != SENTINEL) res.untouched_ok = 0;
  free (G); free (X); free (E); free (in_page); free (U); free (V); free (s);
  return res;
}

static ns_case base_case (size_t rows, size_t cols, size_t batch)
{
  ns_case c;
  memset (&c, 0, sizeof c);
  c.rows = rows; c.cols = cols; c.batch = batch;
  muon_ns_opts_default (&c.o);
  c.o.precision = MUON_PREC_DOUBLE;
  c.o.gemm = MUON_GEMM_OPENBLAS;      // a fixed provider here; test_gemm.c covers oneDNN
  return c;
}

// fp64 against the closed form
#define TOL64 1e-12

static void expect_case (const ns_case *c, double tol, const char *what, int line)
{
  ns_result r = run_case (c);
  t_check (r.status == MUON_OK, __FILE__, line, "%s: status %d (%s: %s)", what, (int) r.status,
           muon_status_string (r.status), muon_ctx_last_error (ctx));
  t_check (r.err <= tol, __FILE__, line, "%s: %zux%zux%zu %s relative error %.3g > %.3g", what,
           c->rows, c->cols, c->batch, c->o.method == MUON_NS_GRAM ? "gram" : "standard",
           r.err, tol);
  t_check (r.untouched_ok, __FILE__, line, "%s: elements outside the pages were written", what);
  t_check (r.zero_ok, __FILE__, line, "%s: a zero page did not give exact +0", what);
  t_check (r.finite, __FILE__, line, "%s: non-finite output", what);
}
#define EXPECT(c, tol, what) expect_case (&(c), (tol), (what), __LINE__)

#endif
