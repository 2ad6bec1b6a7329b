/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_sym_impl.h - the pass over the upper triangle that follows a symmetric product in the
 * Newton-Schulz of ns_impl.h, written once for its three storage types (ns_impl.h includes
 * it with its S, T, FN, LOAD, STORE and RND; no include guard, like ns_impl.h).
 */

// Tile edge of the upper-triangle passes: a TILE x TILE block is computed column by column
// and its mirror written from a local copy, row by row, so that both the reads and the
// writes stay contiguous (a mirror written element by element, a matrix column apart, keeps
// missing the cache).
#ifndef NS_TILE
#define NS_TILE 64
#endif

// The pass over the upper triangle that follows a symmetric product, run on each block of
// the product as soon as it is final (muon_gemm_then, gemm.h): out = r(s x + pc P) (x
// non-NULL: double and single, where nothing is rounded and pc is 1, and the fused bf16 /
// fp16 epilogue, rounded once) or out = r(P) (x NULL), on the elements of
// the block with i <= j, each mirrored to (j, i), so out is exactly symmetric.  x is exactly
// symmetric and only its upper elements are read; out must not be an operand of the product
// (other blocks' products may still be reading it).  q (non-NULL): a second output, out
// with qa added on the diagonal, r(out + qa I) (Gram's fresh Q = r(Z + a I)).
typedef struct {
  int p;
  T s;
  const S *x;
  const T *P;
  S *out;
  size_t n;
  S *q;
  T qa;
  T pc;
} FN (sym_job);

NS_CLONES
static void FN (sym_block) (void *arg, size_t i0, size_t mi, size_t j0, size_t nj)
{
  const FN (sym_job) *jb = arg;
  const S *x = jb->x;
  const T *P = jb->P;
  S *out = jb->out, *q = jb->q;
  size_t n = jb->n;
  T s = jb->s, pc = jb->pc;
  int p = jb->p;
  (void) p;                                        // RND ignores it in double
  S buf[NS_TILE * NS_TILE];                        // the chunk, column j at (j - c0) TILE
  for (size_t c0 = j0; c0 < j0 + nj; c0 += NS_TILE)  // chunks of TILE x TILE, those with
  {                                                  // some i <= j
    size_t c1 = j0 + nj - c0 < NS_TILE ? j0 + nj : c0 + NS_TILE;
    for (size_t r0 = i0; r0 < i0 + mi && r0 < c1; r0 += NS_TILE)
    {
      size_t r1 = i0 + mi - r0 < NS_TILE ? i0 + mi : r0 + NS_TILE;
      for (size_t j = c0; j < c1; j++)             // column j: rows r0 .. min (r1, j + 1)
      {
        size_t len = j + 1 < r1 ? (j + 1 > r0 ? j + 1 - r0 : 0) : r1 - r0, o = r0 + j * n;
        S *bc = buf + (j - c0) * NS_TILE;
        if (x)
          for (size_t i = 0; i < len; i++)
            bc[i] = STORE (RND (p, s * LOAD (x[o + i]) + pc * P[o + i]));
        else
          for (size_t i = 0; i < len; i++)
            bc[i] = STORE (RND (p, P[o + i]));
        memcpy (out + o, bc, len * sizeof *out);
        if (q)
          memcpy (q + o, bc, len * sizeof *q);
      }
      // the mirror, (j, i) for j > i: 8 x 8 blocks transposed through registers where the
      // chunk lies above the diagonal, element by element elsewhere
      size_t rb = r1 <= c0 ? (r1 - r0) / 8 * 8 : 0, cb = r1 <= c0 ? (c1 - c0) / 8 * 8 : 0;
      for (size_t ib = 0; ib < rb; ib += 8)
        for (size_t jb8 = 0; jb8 < cb; jb8 += 8)
        {
          S t[8][8];
          for (int a = 0; a < 8; a++)
            for (int b = 0; b < 8; b++)
              t[a][b] = buf[(jb8 + b) * NS_TILE + ib + a];
          for (int a = 0; a < 8; a++)
          {
            memcpy (out + c0 + jb8 + (r0 + ib + a) * n, t[a], sizeof t[a]);
            if (q)
              memcpy (q + c0 + jb8 + (r0 + ib + a) * n, t[a], sizeof t[a]);
          }
        }
      for (size_t i = r0; i < r1 && i < c1; i++)   // the rest, row i
      {
        size_t js = i + 1 > c0 ? i + 1 : c0;
        if (i - r0 < rb)
          js = c0 + cb;
        const S *src = buf + (i - r0);
        for (size_t j = js; j < c1; j++)
          out[j + i * n] = src[(j - c0) * NS_TILE];
        for (size_t j = js; q && j < c1; j++)
          q[j + i * n] = src[(j - c0) * NS_TILE];
      }
      for (size_t d = r0 > c0 ? r0 : c0; q && d < r1 && d < c1; d++)   // q's diagonal
        q[d + d * n] = STORE (RND (p, LOAD (out[d + d * n]) + jb->qa));
    }
  }
}
