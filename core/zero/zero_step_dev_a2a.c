/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_dev_a2a.c - the row-shard designs of the device step (zero_step_dev.h):
 * alltoall_owner (the FSDP2 / Dion idea) and muon_bp, buffer for buffer as zero_step_a2a.c runs
 * them on the host: the padded shards reduce-scattered, the momentum on the shards, then a
 * full step (the shards to each matrix's owner by a ragged all-to-all, NS there, the rows
 * back) or a MuonBP block step (each rank's own rows).
 */
#include <stdint.h>
#include <stdlib.h>

#include "zero_step_dev.h"

typedef struct {
  size_t S;                  // padded shard elements per rank (one reduce-scatter block)
  size_t *off;               // nparams: where p's padded shard starts in a block
  double **x;                // nl: the averaged shards, then the Newton-Schulz input
} dshards;

static size_t shard_len (const zdev *z, int r, size_t p)
{
  const muon_zero_param *q = &z->P->L->params[p];
  size_t r0, nr;
  zshard_rows (q->rows, z->P->world, r, &r0, &nr);
  return nr * q->cols;
}

// 1. and 2.: the shards of every rank's gradients reduce-scattered (AVG) into h->x, then the
// momentum on the shards with the Newton-Schulz input in place.
static muon_status average_shards (zdev *z, dshards *h)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  int W = P->world;
  muon_darray **fa = NULL;
  double **flat = NULL;
  CHECKSTATUS (zdev_scratch_ranks (z, h->S * (size_t) W, &fa, &flat));
  for (int l = 0; l < z->nl; l++)
  {
    CHECKSTATUS (muon_dmem_zero (ctx, z->dev, flat[l], h->S * (size_t) W));   // the pads
    for (int q = 0; q < W; q++)
      for (size_t p = 0; p < P->nparams; p++)
      {
        const muon_zero_param *m = &P->L->params[p];
        size_t r0, nr;
        zshard_rows (m->rows, W, q, &r0, &nr);
        CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, zdev_grad (z, l, p), m->rows, m->cols,
                                   r0 * m->cols, (r0 + nr) * m->cols,
                                   flat[l] + (size_t) q * h->S + h->off[p]));
      }
  }
  CHECKSTATUS (zdev_reduce_scatter_avg (z, flat, h->x, h->S));
  for (int l = 0; l < z->nl; l++)
  {
    int r = muon_comm_rank (z->comm, l);
    for (size_t p = 0; p < P->nparams; p++)
      CHECKSTATUS (muon_dmem_momentum (ctx, z->dev, &z->o->update, z->mom[l]
                                       + P->momentum_at[(size_t) r * P->nparams + p],
                                       h->x[l] + h->off[p], shard_len (z, r, p)));
  }
fail:
  zdev_scratch_free (z, fa, flat);
  return status;
}

// Rank r's shards grouped by owner (by_owner): pack 1 copies them from base + off[p] into
// buf, 0 back.
static muon_status by_owner (zdev *z, int r, double *buf, double *base, const size_t *off,
                             int pack)
{
  const muon_zero_plan *P = z->P;
  size_t at = 0;
  for (int q = 0; q < P->world; q++)
    for (size_t p = 0; p < P->nparams; p++)
      if (P->lpt_owner[p] == q)
      {
        size_t n = shard_len (z, r, p);
        muon_status s = pack ? muon_dmem_copy (z->ctx, z->dev, buf + at, base + off[p], n)
                             : muon_dmem_copy (z->ctx, z->dev, base + off[p], buf + at, n);
        if (s < 0)
          return s;
        at += n;
      }
  return MUON_OK;
}

// 3a. A full step: the x shards to each matrix's owner, NS there, the rows back.
static muon_status full_step (zdev *z, dshards *h)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  size_t np = P->nparams, W = (size_t) P->world, most = 1, *sc = NULL, *rc = NULL,
         *cur = NULL;
  muon_darray **sa = NULL, **ra = NULL;
  double **send = NULL, **recv = NULL;
  CHECKMEM (sc = calloc ((size_t) z->nl * W, sizeof *sc));
  CHECKMEM (rc = calloc ((size_t) z->nl * W, sizeof *rc));
  CHECKMEM (cur = malloc (W * sizeof *cur));
  for (int l = 0; l < z->nl; l++)      // owner_counts
  {
    int r = muon_comm_rank (z->comm, l);
    size_t ns = 0, nr = 0;
    for (size_t p = 0; p < np; p++)
    {
      int o = P->lpt_owner[p];
      sc[(size_t) l * W + (size_t) o] += shard_len (z, r, p);
      for (size_t q = 0; o == r && q < W; q++)
        rc[(size_t) l * W + q] += shard_len (z, (int) q, p);
    }
    for (size_t q = 0; q < W; q++)
    {
      ns += sc[(size_t) l * W + q];
      nr += rc[(size_t) l * W + q];
    }
    most = ns > most ? ns : most;
    most = nr > most ? nr : most;
  }
  CHECKSTATUS (zdev_scratch_ranks (z, most, &sa, &send));
  CHECKSTATUS (zdev_scratch_ranks (z, most, &ra, &recv));
  for (int l = 0; l < z->nl; l++)
    CHECKSTATUS (by_owner (z, muon_comm_rank (z->comm, l), send[l], h->x[l], h->off, 1));
  CHECKSTATUS (zdev_all_to_all (z, send, sc, recv, rc));
  for (int l = 0; l < z->nl; l++)
  {
    int r = muon_comm_rank (z->comm, l);
    for (size_t q = 0, a = 0; q < W; a += rc[(size_t) l * W + q], q++)
      cur[q] = a;
    for (size_t p = 0; p < np; p++)
    {
      if (P->lpt_owner[p] != r)
        continue;
      const muon_zero_param *m = &P->L->params[p];
      for (int pass = 0; pass < 2; pass++)   // 0: the shards into X; 1: U's rows out
      {
        if (pass == 1)
          CHECKSTATUS (zdev_orthogonalize (z, l, p, z->G, z->U, m->rows, m->cols, 1));
        for (size_t q = 0; q < W; q++)
        {
          size_t r0, nr;
          zshard_rows (m->rows, (int) W, (int) q, &r0, &nr);
          CHECKSTATUS (muon_dmem_rm (ctx, z->dev, pass, pass ? z->U : z->G, m->rows, m->cols,
                                     r0 * m->cols, (r0 + nr) * m->cols,
                                     (pass ? send[l] : recv[l]) + cur[q]));
          if (pass)
            cur[q] += nr * m->cols;
        }
      }
    }
  }
  CHECKSTATUS (zdev_all_to_all (z, send, rc, recv, sc));   // the way back: the counts swap
  for (int l = 0; l < z->nl; l++)
  {
    int r = muon_comm_rank (z->comm, l);
    CHECKSTATUS (by_owner (z, r, recv[l], z->upd[l], z->upd_at + (size_t) r * np, 0));
  }
fail:
  zdev_scratch_free (z, sa, send);
  zdev_scratch_free (z, ra, recv);
  free (sc);
  free (rc);
  free (cur);
  return status;
}

// 3b. A MuonBP block step: each rank's rows, each piece of them in one block of the matrix
// orthogonalized on its own with the block step's scale.
static muon_status block_step (zdev *z, dshards *h)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  for (int l = 0; l < z->nl; l++)
  {
    int r = muon_comm_rank (z->comm, l);
    for (size_t p = 0; p < P->nparams; p++)
    {
      const muon_zero_param *q = &P->L->params[p];
      const muon_zero_blocks *b = z->o->blocks ? &z->o->blocks[p] : NULL;
      size_t r0, nr, E = b ? b->experts : 1, nsplit = b ? b->nsplit : 0, n = q->cols;
      zshard_rows (q->rows, P->world, r, &r0, &nr);
      double *x = h->x[l] + h->off[p];
      double *dst = z->upd[l] + z->upd_at[(size_t) r * P->nparams + p];
      for (size_t e = 0, page = q->rows / E; e < E; e++)
        for (size_t k = 0, a = e * page; k < (nsplit ? nsplit : 1); k++)
        {
          size_t c = a + (nsplit ? b->split[k] : page);
          size_t i0 = a > r0 ? a : r0, i1 = c < r0 + nr ? c : r0 + nr;
          a = c;
          if (i0 >= i1)
            continue;
          size_t m = i1 - i0;
          CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 0, z->G, m, n, 0, m * n,
                                     x + (i0 - r0) * n));
          CHECKSTATUS (zdev_orthogonalize (z, l, ZSTEP_PLAIN, z->G, z->U, m, n,
                                      z->o->block_scale));
          CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, z->U, m, n, 0, m * n,
                                     dst + (i0 - r0) * n));
        }
    }
  }
fail:
  return status;
}

static muon_status row_shard_step (zdev *z, int full)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->L;
  size_t np = z->P->nparams;
  dshards h = { 0, NULL, NULL };
  muon_darray **xa = NULL;
  CHECKMEM (h.off = malloc (np * sizeof *h.off));
  for (size_t p = 0; p < np; p++)
  {
    h.off[p] = h.S;
    h.S += zshard_rc (L->params[p].rows, z->P->world) * L->params[p].cols;
  }
  CHECKSTATUS (zdev_scratch_ranks (z, h.S, &xa, &h.x));
  CHECKSTATUS (average_shards (z, &h));
  CHECKSTATUS (full ? full_step (z, &h) : block_step (z, &h));
fail:
  free (h.off);
  zdev_scratch_free (z, xa, h.x);
  return status;
}

muon_status zdev_alltoall_owner (zdev *z) { return row_shard_step (z, 1); }
muon_status zdev_muon_bp (zdev *z)
{
  return row_shard_step (z, z->o->step % z->o->period == 0);
}
