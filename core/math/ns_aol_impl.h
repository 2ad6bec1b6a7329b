/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_aol_impl.h - the AOL scaling of Turbo-Muon ('Normalize', "aol") on one page, written
 * once for the three storage types of ns_impl.h, which includes it (with its S, T, FN,
 * LOAD, STORE, RND, PRODUCT and SYMMETRIC_T; no include guard, like ns_impl.h).
 */

// AOL scaling (Turbo-Muon; 'Normalize', "aol") of page e of G into X (n x m, transposed
// when rows > cols): X = r(D X0) with D = diag (max (sum_j |(X0 X0')_ij|, eps))^(-1/2), so
// that ||X||_2 <= 1 (the Almost-Orthogonal-Layer bound).  The first step reuses the
// scaling's Gram: A holds r(D A0 D) (upper triangle, mirrored) for it.  Returns 0 for an
// all-zero page.  Y (n x m) and P (n x n) in T are scratch.
//   normalize first (default): X0 = G / ||G||_F in fp64 (the scaled form when the sum of
//     squares leaves fp64's range), held in T; A0 = X0 X0' a T product; the row sums, D
//     and D A0 D in fp64; X = r(D X0), A = r(D A0 D): one rounding each.
//   cast first (the peers' order, Turbo-Muon's): X0 = r(G), no Frobenius step;
//     A0 = r(X0 X0') with the run's products; d = r(sum_j |A0_ij|) summed in T;
//     s = r(1 / sqrt (max (d, r(eps)))); X = r(X0 s_i); A = r(r(A0_ij s_i) s_j).
// s: n doubles of scratch.
NS_CLONES
static muon_status FN (aol_page) (ns_env *env, int p, const muon_tensor *G, size_t e,
                                  const muon_ns_opts *o, S *X, int transposed, T *Y, T *P,
                                  S *A, double *s, int *nonzero)
{
  muon_status status = MUON_OK;
  size_t rows = G->rows, cols = G->cols, n = transposed ? cols : rows;
  size_t m = transposed ? rows : cols;
#define AOL_G(i, j) (G->dtype == MUON_F64                                                   \
                     ? ((const double *) G->data)[e * G->stride + (i) + (j) * G->ld]       \
                     : (double) ((const float *) G->data)[e * G->stride + (i) + (j) * G->ld])
#define AOL_AT(i, j) ((i) <= (j) ? (i) + (j) * n : (j) + (i) * n)   // upper triangle
  *nonzero = 0;
  if (o->normalize_first)
  {
    double sum = 0, amax = 0;
    int bad = 0;                                   // a non-finite page: NaN out, the warning
    for (size_t j = 0; j < cols; j++)
      for (size_t i = 0; i < rows; i++)
      {
        double g = AOL_G (i, j);
        sum += g * g;
        amax = fabs (g) > amax ? fabs (g) : amax;
        bad |= !isfinite (g);
      }
    if (amax == 0 && !bad)
      return MUON_OK;
    double root = sqrt (sum), pre = 1;
    if (!bad && !(sum >= DBL_MIN && sum <= DBL_MAX))   // scaled by the largest magnitude
    {
      double ssq = 0;
      for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rows; i++)
        {
          double t = AOL_G (i, j) / amax;
          ssq += t * t;
        }
      pre = amax;
      root = sqrt (ssq);
    }
    for (size_t j = 0; j < cols; j++)
      for (size_t i = 0; i < rows; i++)
        Y[transposed ? j + i * n : i + j * n] = (T) (AOL_G (i, j) / pre / root);
    CHECKSTATUS (SYMMETRIC_T (env, 1, Y, n, m, P));          // upper triangle of X0 X0'
    for (size_t i = 0; i < n; i++)
    {
      double d = 0;
      for (size_t j = 0; j < n; j++)
        d += fabs ((double) P[AOL_AT (i, j)]);
      // the floor Eps as Turbo-Muon's clamp_min: a row whose sum underflowed to 0 is
      // scaled by Eps^(-1/2), not zeroed; with Eps 0 such a row stays zero (not NaN)
      s[i] = d > 0 || o->eps > 0 ? 1 / sqrt (d > o->eps ? d : o->eps) : 0;
    }
    for (size_t j = 0; j < m; j++)
      for (size_t i = 0; i < n; i++)
        X[i + j * n] = STORE (RND (p, (T) (s[i] * (double) Y[i + j * n])));
    for (size_t j = 0; j < n; j++)
      for (size_t i = 0; i <= j; i++)
      {
        S v = STORE (RND (p, (T) ((double) P[i + j * n] * s[i] * s[j])));
        A[i + j * n] = v;
        A[j + i * n] = v;
      }
  }
  else
  {
    int any = 0;
    for (size_t j = 0; j < cols; j++)
      for (size_t i = 0; i < rows; i++)
      {
        T v = RND (p, (T) AOL_G (i, j));
        X[transposed ? j + i * n : i + j * n] = STORE (v);
        any |= v != 0;
      }
    if (!any)
      return MUON_OK;
    CHECKSTATUS (FN (gram_product) (env, p, 1, X, n, m, P, A));   // A = r(X0 X0')
    T floor_ = RND (p, (T) o->eps);
    for (size_t i = 0; i < n; i++)
    {
      T d = 0;
      for (size_t j = 0; j < n; j++)
        d += (T) fabs ((double) LOAD (A[i + j * n]));
      d = RND (p, d);
      s[i] = d > 0 || floor_ > 0                   // (the floor as above, in p)
             ? (double) RND (p, (T) 1 / (T) sqrt ((double) (d > floor_ ? d : floor_))) : 0;
    }
    for (size_t j = 0; j < m; j++)
      for (size_t i = 0; i < n; i++)
        X[i + j * n] = STORE (RND (p, LOAD (X[i + j * n]) * (T) s[i]));
    for (size_t j = 0; j < n; j++)
      for (size_t i = 0; i <= j; i++)
      {
        S v = STORE (RND (p, RND (p, LOAD (A[i + j * n]) * (T) s[i]) * (T) s[j]));
        A[i + j * n] = v;
        A[j + i * n] = v;
      }
  }
  *nonzero = 1;
#undef AOL_G
#undef AOL_AT
fail:
  return status;
}

