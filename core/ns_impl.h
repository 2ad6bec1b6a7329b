/* ns_impl.h - Newton-Schulz on one page, written once for two element types.
 *
 * Included by ns.c with T = double (precision 'double', nothing rounded) and T = float
 * (precision 'single', 'bf16' or 'fp16': fp32 storage holding compute-precision values, every
 * GEMM accumulating in fp32 and rounded once, every elementwise op rounded once; DESIGN.md 4).
 * The caller defines T, FN(name), GEMM, SYRK, and the elementwise macros RND and SCALE_ADD.
 *
 * Shapes: the page has been copied (and transposed when rows > cols) into X, n x m with
 * n <= m, column-major with leading dimension n.  A, B, R, Z, Q, RZ, P are n x n.
 */

// C = upper triangle of alpha * A A' (SYRK), mirrored to the lower triangle, then rounded.
static void FN (gram_product) (int p, T alpha, const T *A, size_t n, size_t k, T *C)
{
  SYRK (CblasColMajor, CblasUpper, CblasNoTrans, (int) n, (int) k, alpha, A, (int) n, 0, C,
        (int) n);
  for (size_t j = 0; j < n; j++)
  {
    for (size_t i = 0; i < j; i++)
      C[j + i * n] = C[i + j * n] = RND (p, C[i + j * n]);
    C[j + j * n] = RND (p, C[j + j * n]);
  }
}

// C = A B with A n x n, B n x k (GEMM, fp32 or fp64 accumulation, output not yet rounded).
static void FN (product) (const T *A, const T *B, size_t n, size_t k, T *C)
{
  GEMM (CblasColMajor, CblasNoTrans, CblasNoTrans, (int) n, (int) k, (int) n, 1, A, (int) n,
        B, (int) n, 0, C, (int) n);
}

// out[i] = r(r(s x[i]) + r(prod[i])) over len elements; out may alias x or prod.
static void FN (scale_add) (int p, T s, const T *x, const T *prod, T *out, size_t len)
{
  switch (p)
  {
  case MUON_PREC_BF16:
    for (size_t i = 0; i < len; i++) out[i] = SCALE_ADD (MUON_PREC_BF16, s, x[i], prod[i]);
    break;
  case MUON_PREC_FP16:
    for (size_t i = 0; i < len; i++) out[i] = SCALE_ADD (MUON_PREC_FP16, s, x[i], prod[i]);
    break;
  default:
    for (size_t i = 0; i < len; i++) out[i] = s * x[i] + prod[i];
  }
}

// out[i] = r(s x[i])
static void FN (scale) (int p, T s, const T *x, T *out, size_t len)
{
  for (size_t i = 0; i < len; i++)
    out[i] = RND (p, s * x[i]);
}

// B = b A + c A A, rounded as r(r(b A) + r(r(c A) A)) in low precision.  P, B: n x n scratch.
static void FN (poly) (int p, T b, T c, const T *A, size_t n, T *P, T *B)
{
  if (p == MUON_PREC_BF16 || p == MUON_PREC_FP16)
  {
    FN (scale) (p, c, A, B, n * n);        // B holds r(c A) for a moment
    FN (product) (B, A, n, n, P);          // P = (c A) A: a general product, as eager torch
  }
  else
    FN (gram_product) (p, c, A, n, n, P);  // A symmetric: c A A' by SYRK, no rounding modelled
  FN (scale_add) (p, b, A, P, B, n * n);
}

// Standard iteration: A = r(X X'); B = r(r(b A) + r(r(c A) A)); X = r(r(a X) + r(B X)).
static void FN (standard) (int p, const double *coef, int steps, T *X, size_t n, size_t m,
                           T *Y, T *A, T *B, T *P)
{
  for (int k = 0; k < steps; k++)
  {
    T a = (T) coef[3 * k], b = (T) coef[3 * k + 1], c = (T) coef[3 * k + 2];
    FN (gram_product) (p, 1, X, n, m, A);
    FN (poly) (p, b, c, A, n, P, B);
    FN (product) (B, X, n, m, Y);
    FN (scale_add) (p, a, X, Y, X, n * m);
  }
}

// Gram iteration (MUON_FACTS 1.3, DESIGN.md 4): everything but the first R, the restarts
// and the final Q X is n x n.  X_k = Q_k X_0 and R_k = X_k X_k', polynomials in R_0.
static void FN (gram) (int p, const double *coef, int steps, const muon_ns_opts *o, T *X,
                       size_t n, size_t m, T *Y, T *R, T *Z, T *Q, T *RZ, T *P)
{
  int fresh = 1;                                   // Q is "None": start or just restarted
  FN (gram_product) (p, 1, X, n, m, R);            // R = r(X X')
  for (int i = 0; i < steps; i++)
  {
    T a = (T) coef[3 * i], b = (T) coef[3 * i + 1], c = (T) coef[3 * i + 2];
    if (is_restart (i, o))
    {
      FN (product) (Q, X, n, m, Y);                // X = r(Q X); R = r(X X')
      for (size_t e = 0; e < n * m; e++) X[e] = RND (p, Y[e]);
      FN (gram_product) (p, 1, X, n, m, R);
      fresh = 1;
    }
    FN (poly) (p, b, c, R, n, P, Z);               // Z = r(r(b R) + r(r(c R) R))
    if (fresh)
    {
      memcpy (Q, Z, n * n * sizeof *Q);            // Q = r(Z + a I)
      for (size_t d = 0; d < n; d++) Q[d + d * n] = RND (p, Q[d + d * n] + a);
      fresh = 0;
    }
    else
    {
      FN (product) (Z, Q, n, n, P);                // Q = r(r(a Q) + r(Z Q))
      FN (scale_add) (p, a, Q, P, Q, n * n);
    }
    if (i < steps - 1 && !is_restart (i + 1, o))
    {
      FN (product) (Z, R, n, n, P);                // RZ = r(r(a R) + r(Z R))
      FN (scale_add) (p, a, R, P, RZ, n * n);
      FN (product) (Z, RZ, n, n, P);               // R = r(r(a RZ) + r(Z RZ))
      FN (scale_add) (p, a, RZ, P, R, n * n);
    }
  }
  FN (product) (Q, X, n, m, Y);                    // X = r(Q X)
  for (size_t e = 0; e < n * m; e++) X[e] = RND (p, Y[e]);
}

// Copy page e of G into X (n x m, transposed when rows > cols) and normalize it.  Returns 0
// for an all-zero page (X is then left all zero, and so is the result).
static int FN (load_page) (int p, const muon_tensor *G, size_t e, const muon_ns_opts *o, T *X,
                           int transposed)
{
  size_t rows = G->rows, cols = G->cols, ld = G->ld, n = transposed ? cols : rows;
  double sum = 0;                                  // fp64 sum of squares, column-major order
  for (size_t j = 0; j < cols; j++)
    for (size_t i = 0; i < rows; i++)
    {
      size_t at = e * G->stride + i + j * ld;
      double g = G->dtype == MUON_F64 ? ((const double *) G->data)[at]
                                      : (double) ((const float *) G->data)[at];
      T v = (T) g;
      if (!o->normalize_first)                     // peers' order: cast first, X = r(G)
        v = RND (p, v);
      X[transposed ? j + i * n : i + j * n] = v;
      sum += o->normalize_first ? g * g : (double) v * (double) v;  // norm of what is divided
    }
  if (sum == 0)
    return 0;
  size_t len = rows * cols;
  if (p == MUON_PREC_DOUBLE)
  {
    T denom = (T) (sqrt (sum) + o->eps);
    for (size_t i = 0; i < len; i++) X[i] = X[i] / denom;
  }
  else if (o->normalize_first)                     // X = r(G / (fl32(||G||) + fl32(eps)))
  {
    T denom = (T) sqrt (sum) + (T) o->eps;
    for (size_t i = 0; i < len; i++) X[i] = RND (p, X[i] / denom);
  }
  else                                             // X = r(X / r(r(||X||) + eps))
  {
    T denom = RND (p, RND (p, (T) sqrt (sum)) + (T) o->eps);
    for (size_t i = 0; i < len; i++) X[i] = RND (p, X[i] / denom);
  }
  return 1;
}

// Write X (n x m) back to page e of out, undoing the transpose; counts non-finite values.
static size_t FN (store_page) (const T *X, int transposed, muon_tensor *out, size_t e)
{
  size_t rows = out->rows, cols = out->cols, n = transposed ? cols : rows, bad = 0;
  for (size_t j = 0; j < cols; j++)
    for (size_t i = 0; i < rows; i++)
    {
      T v = X[transposed ? j + i * n : i + j * n];
      size_t at = e * out->stride + i + j * out->ld;
      if (out->dtype == MUON_F64)
        ((double *) out->data)[at] = (double) v;
      else
        ((float *) out->data)[at] = (float) v;
      bad += !isfinite (v);
    }
  return bad;
}

// The whole batch.  work holds 2 n m + 5 n^2 elements of T.
static size_t FN (batch) (const muon_tensor *G, muon_tensor *out, const muon_ns_opts *o,
                          const double *coef, int steps, T *work)
{
  int p = (int) o->precision, transposed = G->rows > G->cols;
  size_t n = transposed ? G->cols : G->rows, m = transposed ? G->rows : G->cols, bad = 0;
  int gram = muon_ns_uses_gram (G->rows, G->cols, o);
  T *X = work, *Y = X + n * m, *S1 = Y + n * m, *S2 = S1 + n * n, *S3 = S2 + n * n,
    *S4 = S3 + n * n, *S5 = S4 + n * n;
  for (size_t e = 0; e < G->batch; e++)
  {
    if (!FN (load_page) (p, G, e, o, X, transposed))
      memset (X, 0, n * m * sizeof *X);            // zero in, exact zeros out
    else if (gram)
      FN (gram) (p, coef, steps, o, X, n, m, Y, S1, S2, S3, S4, S5);
    else
      FN (standard) (p, coef, steps, X, n, m, Y, S1, S2, S3);
    bad += FN (store_page) (X, transposed, out, e);
  }
  return bad;
}
