/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_a2a.c - the steps of the designs on dim-0 (row) shards (muon_zero.h; their rows
 * of the variant table, zero_variant.h): the all-to-all owner idea of FSDP2 Muon and Dion
 * (its owner rule and ragged all-to-alls muonlab's, not Dion's padded groups), and
 * block-periodic Muon (MuonBP).  zero_plan.c gives their shards (owned spans, momentum
 * beside them) and owners (lpt_owner).
 *
 * Every rank r holds rows [r rc, (r + 1) rc) of every matrix (rc = ceil (rows / W), the last
 * ranks fewer or none), row-major, matrix after matrix: its update buffer and its momentum
 * share that layout.  A step:
 *   1. reduce-scatter (AVG) of the shards, each padded to rc rows (FSDP2 pads dim 0 to a
 *      multiple of W): W blocks of S = sum rc cols per rank; block q is rank q's shards;
 *   2. momentum on the shard, the Newton-Schulz input x beside it;
 *   3. full step (always for ALLTOALL_OWNER; MUON_BP when step % period == 0): one ragged
 *      all-to-all sends each matrix's x shards to its owner (round robin over the matrices in
 *      size-descending order, index ascending on ties: zero_cost.c's alltoall_owner), the
 *      owner orthogonalizes the full matrix, and a second all-to-all returns each rank its
 *      rows of the update;
 *      block step (MUON_BP otherwise): each rank orthogonalizes its own rc x cols block, with
 *      the scale rule applied to the block's shape, and nothing more is sent.
 * The averaged gradient, the momentum and the Newton-Schulz input are, element for element,
 * the reference's, so a full step equals it bit for bit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "muon_update_math.h"
#include "zero_step_impl.h"

//---- the step -----------------------------------------------------------------------------

typedef struct {
  zstep *z;
  size_t S;                  // padded shard elements per rank (one reduce-scatter block)
  size_t *off;               // nparams: where p's padded shard starts in a block
  size_t *sc, *rc;           // nl * W: counts of the all-to-all (to / from the owners)
  double **x;                // nl: the reduce-scatter's block, then the NS input in place
} shards;

// Elements of rank r's shard of p.
static size_t shard_len (const zstep *z, int r, size_t p)
{
  const muon_zero_param *q = &z->P->L->params[p];
  size_t r0, nr;
  zshard_rows (q->rows, z->P->world, r, &r0, &nr);
  return nr * q->cols;
}

// 1. Every rank's gradients packed as W blocks of padded shards, reduce-scattered (AVG).
static muon_status average_shards (shards *h)
{
  zstep *z = h->z;
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->L;
  int W = z->P->world;
  double **flat = NULL;
  CHECKSTATUS (zstep_alloc_bufs (z, h->S * (size_t) W, 1, &flat));   // padding stays zero
  for (int l = 0; l < z->nl; l++)
    for (int q = 0; q < W; q++)
      for (size_t p = 0; p < z->P->nparams; p++)
      {
        const muon_zero_param *m = &L->params[p];
        const double *g = zgrad (z, l, p);
        size_t r0, nr;
        zshard_rows (m->rows, W, q, &r0, &nr);
        double *dst = flat[l] + (size_t) q * h->S + h->off[p];
        for (size_t i = 0; i < nr; i++)
          for (size_t j = 0; j < m->cols; j++)
            dst[i * m->cols + j] = g[j * m->rows + r0 + i];
      }
  CHECKSTATUS (muon_comm_reduce_scatter (ctx, z->comm, (const void *const *) flat,
                                         (void *const *) h->x, h->S, MUON_F64,
                                         MUON_REDUCE_AVG));
fail:
  zstep_free_bufs (z, flat);
  return status;
}

// 2. Momentum on the shards; the Newton-Schulz input replaces the averaged gradient in x.
static void momentum_on_shards (shards *h)
{
  zstep *z = h->z;
  const muon_update_opts *uo = &z->o->update;
  int form = (int) uo->form;
  for (int l = 0; l < z->nl; l++)
  {
    int r = zrank (z, l);
    for (size_t p = 0; p < z->P->nparams; p++)
    {
      double *x = h->x[l] + h->off[p];
      double *m = z->mom[l] + z->P->momentum_at[(size_t) r * z->P->nparams + p];
      for (size_t e = 0, n = shard_len (z, r, p); e < n; e++)
      {
        double g = x[e];
        m[e] = muon_momentum_step (form, uo->beta, m[e], g);
        x[e] = uo->nesterov ? muon_nesterov_input (form, uo->beta, m[e], g) : m[e];
      }
    }
  }
}

// 3b. A block step: each rank's own rows orthogonalized, each piece of them that lies in one
// block of the matrix (an expert page, a split row block) on its own, scaled for the
// piece's shape (muon_update_orthogonalize's rule on the rows it is given).
static muon_status block_step (shards *h, double *work)
{
  zstep *z = h->z;
  muon_status status = MUON_OK;
  z->factor = z->o->block_scale;       // the paper's block step size over the full one
  for (int l = 0; l < z->nl; l++)
  {
    int r = zrank (z, l);
    for (size_t p = 0; p < z->P->nparams; p++)
    {
      const muon_zero_param *q = &z->P->L->params[p];
      size_t r0, nr, E, nsplit, n = q->cols;
      const size_t *split;
      zshard_rows (q->rows, z->P->world, r, &r0, &nr);
      zstep_blocks (z, p, &E, &split, &nsplit);
      const double *x = h->x[l] + h->off[p];
      double *dst = z->upd[l] + z->upd_at[(size_t) r * z->P->nparams + p];
      // the blocks, page by page: rows [a, b) of the matrix
      for (size_t e = 0, page = q->rows / E; e < E; e++)
        for (size_t k = 0, a = e * page; k < (nsplit ? nsplit : 1); k++)
        {
          size_t b = a + (nsplit ? split[k] : page);
          size_t i0 = a > r0 ? a : r0, i1 = b < r0 + nr ? b : r0 + nr;
          a = b;
          if (i0 >= i1)
            continue;
          size_t m = i1 - i0;
          double *X = work, *U = work + m * n;
          for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
              X[j * m + i] = x[(i0 - r0 + i) * n + j];
          CHECKSTATUS (zstep_orthogonalize (z, l, ZSTEP_PLAIN, X, U, m, n));
          for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
              dst[(i0 - r0 + i) * n + j] = U[j * m + i];
        }
    }
  }
fail:
  z->factor = 1;
  return status;
}

// Fills the all-to-all counts of local rank l: sc[q] what it sends owner q (its shards of
// q's matrices), rc[q] what it receives from rank q (q's shards of its own matrices).
static void owner_counts (shards *h, int l)
{
  zstep *z = h->z;
  int W = z->P->world, r = zrank (z, l);
  size_t *sc = h->sc + (size_t) l * (size_t) W, *rc = h->rc + (size_t) l * (size_t) W;
  memset (sc, 0, (size_t) W * sizeof *sc);
  memset (rc, 0, (size_t) W * sizeof *rc);
  for (size_t p = 0; p < z->P->nparams; p++)
  {
    int o = z->P->lpt_owner[p];
    sc[o] += shard_len (z, r, p);
    if (o == r)
      for (int q = 0; q < W; q++)
        rc[q] += shard_len (z, q, p);
  }
}

// Rank r's shards of every matrix grouped by owner, as the all-to-all sends them: block q
// holds its shards of owner q's matrices, in matrix order.  Shard p sits at base + off[p];
// pack copies the shards into buf, unpack copies buf back into the shards.
static void by_owner (const zstep *z, int r, double *buf, double *base, const size_t *off,
                      int pack)
{
  const muon_zero_plan *P = z->P;
  size_t at = 0;
  for (int q = 0; q < P->world; q++)
    for (size_t p = 0; p < P->nparams; p++)
      if (P->lpt_owner[p] == q)
      {
        size_t n = shard_len (z, r, p);
        if (pack)
          memcpy (buf + at, base + off[p], n * sizeof (double));
        else
          memcpy (base + off[p], buf + at, n * sizeof (double));
        at += n;
      }
}

// 3a. A full step: x shards to the owners, NS on the full matrices, the rows back.
static muon_status full_step (shards *h, double *work)
{
  zstep *z = h->z;
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  int W = P->world;
  size_t np = P->nparams, Wz = (size_t) W;
  double **send = NULL, **recv = NULL;
  size_t *cur = NULL, most = 0;
  CHECKMEM (cur = malloc (Wz * sizeof *cur));
  for (int l = 0; l < z->nl; l++)
  {
    owner_counts (h, l);
    size_t ns = 0, nr = 0;
    for (size_t q = 0; q < Wz; q++)
    {
      ns += h->sc[(size_t) l * Wz + q];
      nr += h->rc[(size_t) l * Wz + q];
    }
    most = ns > most ? ns : most;
    most = nr > most ? nr : most;
  }
  CHECKSTATUS (zstep_alloc_bufs (z, most, 0, &send));
  CHECKSTATUS (zstep_alloc_bufs (z, most, 0, &recv));
  for (int l = 0; l < z->nl; l++)
    by_owner (z, zrank (z, l), send[l], h->x[l], h->off, 1);
  CHECKSTATUS (muon_comm_all_to_all (ctx, z->comm, (const void *const *) send, h->sc,
                                     (void *const *) recv, h->rc, MUON_F64));
  for (int l = 0; l < z->nl; l++)
  {
    int r = zrank (z, l);
    const size_t *rc = h->rc + (size_t) l * Wz;
    // cur[q]: the next element of block q (from rank q), in both directions: the rows of
    // the update go back in the order the shards came
    for (size_t q = 0, a = 0; q < Wz; a += rc[q], q++)
      cur[q] = a;
    for (size_t p = 0; p < np; p++)
    {
      if (P->lpt_owner[p] != r)
        continue;
      const muon_zero_param *m = &P->L->params[p];
      double *X = work, *U = work + m->numel;
      for (int q = 0; q < W; q++)
      {
        size_t r0, nr;
        zshard_rows (m->rows, W, q, &r0, &nr);
        const double *src = recv[l] + cur[q];
        for (size_t i = 0; i < nr; i++)
          for (size_t j = 0; j < m->cols; j++)
            X[j * m->rows + r0 + i] = src[i * m->cols + j];
      }
      CHECKSTATUS (zstep_orthogonalize (z, l, p, X, U, m->rows, m->cols));
      for (int q = 0; q < W; q++)
      {
        size_t r0, nr;
        zshard_rows (m->rows, W, q, &r0, &nr);
        double *dst = send[l] + cur[q];
        for (size_t i = 0; i < nr; i++)
          for (size_t j = 0; j < m->cols; j++)
            dst[i * m->cols + j] = U[j * m->rows + r0 + i];
        cur[q] += nr * m->cols;
      }
    }
  }
  // the way back: the counts swap
  CHECKSTATUS (muon_comm_all_to_all (ctx, z->comm, (const void *const *) send, h->rc,
                                     (void *const *) recv, h->sc, MUON_F64));
  for (int l = 0; l < z->nl; l++)
    by_owner (z, zrank (z, l), recv[l], z->upd[l], z->upd_at + (size_t) zrank (z, l) * np, 0);
fail:
  zstep_free_bufs (z, send);
  zstep_free_bufs (z, recv);
  free (cur);
  return status;
}

// One step, full or a block step.
static muon_status row_shard_step (zstep *z, int full)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->L;
  size_t np = z->P->nparams, W = (size_t) z->P->world;
  shards h = { z, 0, NULL, NULL, NULL, NULL };
  CHECKMEM (h.off = malloc (np * sizeof *h.off));
  for (size_t p = 0; p < np; p++)
  {
    h.off[p] = h.S;
    h.S += zshard_rc (L->params[p].rows, z->P->world) * L->params[p].cols;
  }
  CHECKMEM (h.sc = malloc ((size_t) z->nl * W * sizeof *h.sc));
  CHECKMEM (h.rc = malloc ((size_t) z->nl * W * sizeof *h.rc));
  CHECKSTATUS (zstep_alloc_bufs (z, h.S, 0, &h.x));
  CHECKSTATUS (average_shards (&h));
  momentum_on_shards (&h);
  if (full)
    CHECKSTATUS (full_step (&h, z->work));
  else
    CHECKSTATUS (block_step (&h, z->work));
fail:
  free (h.off);
  free (h.sc);
  free (h.rc);
  zstep_free_bufs (z, h.x);
  return status;
}

muon_status zstep_alltoall_owner (zstep *z)
{
  return row_shard_step (z, 1);
}

muon_status zstep_muon_bp (zstep *z)
{
  return row_shard_step (z, z->o->step % z->o->period == 0);
}
