/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_cuda_steps.h - the Newton-Schulz iteration of the CUDA back end as its order of
 * operations (which product, scale-add, copy or mirror, on which buffer, in which step),
 * written once over the primitives of a run type: ns_cuda_iter.cu instantiates it over
 * cuBLAS and the kernels (muon_cuda::run), and tests/c/test_ns_steps.cc over plain loops
 * that keep cuBLAS's semantics, so every path (eager and fused, one page or a batch of
 * pages, the 2 x 2 blocks, Gram restarts) runs without a GPU.  Host C++, no CUDA syntax.
 *
 * Same algorithm, op order and rounding model as the CPU reference (ns.c, ns_impl.h,
 * DESIGN.md 4).  A run R has the members p (muon_precision), n <= m (the page), sym_blocks,
 * fused, pages, sx and sn (ns_cuda_iter.h), and these functions, found in R's namespace by
 * argument-dependent lookup (T the work element: double, float, or uint16_t holding the bits
 * of a bf16 / fp16 value; F = num<T>::acc the arithmetic type):
 *   gram_product (R, alpha, A, n, k, beta, C)   C (n x n) = alpha A A' + beta C, symmetric
 *                                               (double, float; 16-bit: gram_blocks below)
 *   gram_block (R, alpha, A, n, k, r0, h1, c0, h2, beta, C)
 *                                               the 16-bit block rows r0.., cols c0.. of it
 *   product (R, A, B, n, k, C [, beta, alpha])  C (n x k) = alpha A B + beta C, A n x n
 *   scale (R, s, x, out, len)                   out = r(s x)
 *   scale_add (R, s, x, prod, out, len)         out = r(r(s x) + r(prod))
 *   mirror (R, C, n)                            C's lower triangle = its upper one
 *   copy (R, dst, src, len)
 *   add_diag (R, a, Q, n)                       Q = r(Q + a I)
 * each over all R.pages pages (the work arrays' pages R.sx or R.sn elements apart), each
 * returning a muon_status.
 */
#ifndef MUON_NS_CUDA_STEPS_H
#define MUON_NS_CUDA_STEPS_H

#include <cstddef>
#include <cstdint>

#include "ns_shared.h"

namespace muon_cuda {

// The arithmetic type of a work element: 16-bit values combine in fp32.
template <typename T> struct num { typedef T acc; };
template <> struct num<uint16_t> { typedef float acc; };

// Elements rounded up to a multiple of 64, so every work matrix starts 128-byte aligned
// (cuBLAS's tensor-core kernels want 16).
inline size_t padded (size_t len)
{
  return (len + 63) / 64 * 64;
}

#define STEP_TRY(call)                                                              \
  do {                                                                              \
    muon_status s_ = (call);                                                        \
    if (s_ != MUON_OK) return s_;                                                   \
  } while (0)

// C = r(alpha A A' + beta C) of 16-bit A (n x k): one product, or with R.sym_blocks = kb > 1
// the upper triangle as blocks: rows split every h = n / kb rounded up to a multiple of 64
// (every block stays aligned), the last block to n (fewer than kb where n is small), then
// the mirror.  Fused, a full product keeps both halves as computed, as torch's X X' (the
// fused steps read whole matrices, so a nearly symmetric one serves): no mirror.
template <typename Run>
muon_status gram_blocks (Run &R, float alpha, const uint16_t *A, size_t n, size_t k,
                         float beta, uint16_t *C)
{
  size_t kb = R.sym_blocks > 1 ? (size_t) R.sym_blocks : 1;
  size_t h = (n / kb > 0 ? n / kb + 63 : 64) / 64 * 64;      // n < kb: one block of 64
  size_t nb = (n + h - 1) / h < kb ? (n + h - 1) / h : kb;
  if (nb <= 1)
  {
    STEP_TRY (gram_block (R, alpha, A, n, k, 0, n, 0, n, beta, C));
    if (R.fused)
      return MUON_OK;
  }
  else
    for (size_t i = 0; i < nb; i++)             // block row i: rows i h .. (the last: to n)
      for (size_t j = i; j < nb; j++)
      {
        size_t r0 = i * h, c0 = j * h;
        size_t h1 = i == nb - 1 ? n - r0 : h, h2 = j == nb - 1 ? n - c0 : h;
        STEP_TRY (gram_block (R, alpha, A, n, k, r0, h1, c0, h2, beta, C));
      }
  return mirror (R, C, n);                      // the lower blocks, and the diagonal blocks'
}                                               // lower halves

// The fused scale-add: out = r(s x + Zm B), the product's epilogue (the copy first, as
// torch's addmm into a new tensor).  Zm n x n, x and out n x k; out must not be Zm, B or x.
template <typename Run, typename T>
muon_status product_add (Run &R, typename num<T>::acc s, const T *x, const T *Zm, const T *B,
                         size_t n, size_t k, T *out)
{
  STEP_TRY (copy (R, out, x, n * k));
  return product (R, Zm, B, n, k, out, s);
}

// B = b A + c A A, rounded as r(r(b A) + r(r(c A) A)) in 16 bits.  P, B: n x n scratch.
// Fused: B = r(b A + c A A), once: in the symmetric product's epilogue where A is exactly
// symmetric (sym: the mirrored X X'), else in a general product's (the CPU's choice, ns_impl.h).
template <typename Run, typename T>
muon_status poly (Run &R, typename num<T>::acc b, typename num<T>::acc c, const T *A, int sym,
                  size_t n, T *P, T *B)
{
  typedef typename num<T>::acc F;
  if (R.fused)
  {
    STEP_TRY (copy (R, B, A, n * n));
    if (sym)
      return gram_product (R, c, A, n, n, (F) b, B);
    return product (R, A, A, n, n, B, b, c);
  }
  if (sizeof (T) == sizeof (uint16_t))
  {
    STEP_TRY (scale (R, c, A, B, n * n));    // B holds r(c A) for a moment
    STEP_TRY (product (R, B, A, n, n, P));   // P = r((c A) A): a general product, as eager torch
  }
  else
    STEP_TRY (gram_product (R, c, A, n, n, (F) 0, P));  // A symmetric: c A A' by SYRK, no
  return scale_add (R, b, A, P, B, n * n);               // rounding modelled
}

// In double and single, an eager Gram update out = a B + Z B of two commuting symmetric
// matrices made exactly symmetric (the upper triangle mirrored), as the CPU's sym_update
// leaves it: poly then forms c R R by SYRK as c R R', which a general product's nearly
// symmetric R would bend (the fp32 Gram error of up to 5.7e-3 that the CPU once had).  16-bit
// updates stay the peers' general products (poly takes R R as such).  RZ and R only: Q stays
// the general product (mirrored, it drifts from the standard iteration over long schedules,
// as ns_impl.h's FN (gram) measures).
template <typename Run, typename T>
muon_status symmetrize (Run &R, T *out, size_t n)
{
  if (sizeof (T) == sizeof (uint16_t))
    return MUON_OK;
  return mirror (R, out, n);
}

// Standard iteration: A = r(X X'); B = r(r(b A) + r(r(c A) A)); X = r(r(a X) + r(B X)).
// Fused: B = r(b A + c A A'), X = r(a X + B X), each the epilogue of its product; X and Y
// trade places every step (a product cannot write its own operand), and the result is
// copied back into X after an odd count.
template <typename Run, typename T>
muon_status standard (Run &R, const double *coef, int steps, T *X, T *Y, T *A, T *B, T *P)
{
  typedef typename num<T>::acc F;
  size_t n = R.n, m = R.m;
  T *X0 = X;
  for (int k = 0; k < steps; k++)
  {
    F a = (F) coef[3 * k], b = (F) coef[3 * k + 1], c = (F) coef[3 * k + 2];
    STEP_TRY (gram_product (R, (F) 1, X, n, m, (F) 0, A));
    STEP_TRY (poly (R, b, c, A, 1, n, P, B));
    if (R.fused)
    {
      STEP_TRY (product_add (R, a, X, B, X, n, m, Y));
      T *t = X;
      X = Y;
      Y = t;
    }
    else
    {
      STEP_TRY (product (R, B, X, n, m, Y));
      STEP_TRY (scale_add (R, a, X, Y, X, n * m));
    }
  }
  return X == X0 ? MUON_OK : copy (R, X0, X, n * m);
}

// Gram iteration, as ns_impl.h: everything but the first R, the restarts and the final Q X
// is n x n.  (Every product's output is already in the compute precision, so r(Q X) is the
// product itself.)  Eager double and single keep RZ and R exactly symmetric (symmetrize);
// Q = r(r(a Q) + r(Z Q)) is the general product as it comes, in every precision (a mirrored
// Q drifts over long schedules: ns_impl.h).
// Fused: Z = r(b R + c R R), Q = r(a Q + Z Q), RZ = r(a R + Z R), R = r(a RZ + Z RZ), each
// the epilogue of a general product (R is only nearly symmetric; poly takes R R as such); Q
// and P trade places.
template <typename Run, typename T>
muon_status gram (Run &R, const double *coef, int steps, const muon_ns_opts *o, T *X, T *Y,
                  T *Rg, T *Z, T *Q, T *RZ, T *P)
{
  typedef typename num<T>::acc F;
  size_t n = R.n, m = R.m;
  int fresh = 1;                                      // Q is "None": start or just restarted
  STEP_TRY (gram_product (R, (F) 1, X, n, m, (F) 0, Rg));   // R = r(X X')
  for (int i = 0; i < steps; i++)
  {
    F a = (F) coef[3 * i], b = (F) coef[3 * i + 1], c = (F) coef[3 * i + 2];
    if (muon_ns_restart_before (i, o))
    {
      STEP_TRY (product (R, Q, X, n, m, Y));          // X = r(Q X); R = r(X X')
      STEP_TRY (copy (R, X, Y, n * m));
      STEP_TRY (gram_product (R, (F) 1, X, n, m, (F) 0, Rg));
      fresh = 1;
    }
    STEP_TRY (poly (R, b, c, Rg, 0, n, P, Z));        // Z = r(r(b R) + r(r(c R) R))
    if (fresh)
    {
      STEP_TRY (copy (R, Q, Z, n * n));               // Q = r(Z + a I)
      STEP_TRY (add_diag (R, a, Q, n));
      fresh = 0;
    }
    else if (R.fused)
    {
      STEP_TRY (product_add (R, a, Q, Z, Q, n, n, P));
      T *t = Q;
      Q = P;
      P = t;
    }
    else
    {
      STEP_TRY (product (R, Z, Q, n, n, P));          // Q = r(r(a Q) + r(Z Q))
      STEP_TRY (scale_add (R, a, Q, P, Q, n * n));  // not mirrored (see above)
    }
    if (i < steps - 1 && !muon_ns_restart_before (i + 1, o) && R.fused)
    {
      STEP_TRY (product_add (R, a, Rg, Z, Rg, n, n, RZ));
      STEP_TRY (product_add (R, a, RZ, Z, RZ, n, n, Rg));
    }
    else if (i < steps - 1 && !muon_ns_restart_before (i + 1, o))
    {
      STEP_TRY (product (R, Z, Rg, n, n, P));         // RZ = r(r(a R) + r(Z R))
      STEP_TRY (scale_add (R, a, Rg, P, RZ, n * n));
      STEP_TRY (symmetrize (R, RZ, n));
      STEP_TRY (product (R, Z, RZ, n, n, P));         // R = r(r(a RZ) + r(Z RZ))
      STEP_TRY (scale_add (R, a, RZ, P, Rg, n * n));
      STEP_TRY (symmetrize (R, Rg, n));
    }
  }
  STEP_TRY (product (R, Q, X, n, m, Y));              // X = r(Q X)
  return copy (R, X, Y, n * m);
}

// The work elements the iteration of R.pages pages needs from X on: X and Y (n x m each),
// S1..S5 (n x n each), each kind for every page one after another.
inline size_t steps_work (size_t n, size_t m, size_t pages)
{
  return pages * (2 * padded (n * m) + 5 * padded (n * n));
}

// The iteration of one page in X (n x m), or of R.pages pages side by side (X, then each
// array below, R.pages of its kind one after another); work after X: Y (n x m), S1..S5
// (n x n each).
template <typename Run, typename T>
muon_status iterate_steps (Run &R, const muon_ns_opts *o, const double *coef, int steps,
                           int use_gram, T *X)
{
  size_t P = (size_t) R.pages, nm = P * padded (R.n * R.m), nn = P * padded (R.n * R.n);
  T *Y = X + nm, *S1 = Y + nm, *S2 = S1 + nn, *S3 = S2 + nn, *S4 = S3 + nn, *S5 = S4 + nn;
  if (P > 1)          // the elementwise passes read the padding between pages: zeros there
  {
    STEP_TRY (clear_gaps (R, X, R.n * R.m, 2 * P));        // X and Y
    STEP_TRY (clear_gaps (R, S1, R.n * R.n, 5 * P));       // S1..S5
  }
  if (use_gram)
    return gram (R, coef, steps, o, X, Y, S1, S2, S3, S4, S5);
  return standard (R, coef, steps, X, Y, S1, S2, S3);
}

}  // namespace muon_cuda

#undef STEP_TRY

#endif
