/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_ep.c - expert parallelism under ZeRO-2 (muon_zero.h's EXPERT_PARALLEL; its row
 * of the variant table, zero_variant.h): the setting of DeepSpeed-MoE and the Moonlight /
 * DeepSeek-V3 AutoEP work, where the fused expert weights sit in ZeRO's flat buffer and each
 * expert lives on one rank of the expert-parallel group (here: the whole world).
 *
 * The Newton-Schulz unit is an expert page (rows [e M, (e + 1) M) of a fused (E M) x N
 * weight: one contiguous range of the row-major flat buffer) or a whole dense matrix.  Each
 * unit has one owner (ep_owners):
 *   expert e of a weight with E > 1 experts: rank floor (e W / E), the experts in contiguous
 *     blocks over the ranks (E / W per rank when W divides E), as expert parallelism places
 *     them;
 *   a dense matrix: LPT after the experts (numel descending, index ascending, onto the
 *     least-loaded rank, the lowest on ties), as Megatron's layer-wise optimizer.
 * A step, on the layout's partition (stages 1-3):
 *   1. reduce-scatter (AVG) of the flat buffer (zstep_reduce_scatter_then);
 *   2. momentum on the partition, the Newton-Schulz input x beside it;
 *   3. one ragged all-to-all: each rank sends each owner its pieces of the owner's units;
 *   4. the owner orthogonalizes each unit once (an expert page with the matrix's split row
 *      blocks, scaled for the page's shape);
 *   5. a second all-to-all returns each rank the update of its pieces.
 * The averaged gradient, the momentum and the NS input are, element for element, the
 * reference's, so the step equals the reference with the same experts bit for bit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zero_step_impl.h"

// The elements [*a, *b) rank q holds of unit u (0 when none).
size_t zstep_ep_overlap (const zstep_ep_plan *e, size_t np, int q, const zstep_ep_unit *u,
                         size_t *a, size_t *b)
{
  const muon_zero_piece *c = e->piece[(size_t) q * np + u->p];
  if (c == NULL)
    return 0;
  *a = c->local_start > u->k0 ? c->local_start : u->k0;
  *b = c->local_stop < u->k1 ? c->local_stop : u->k1;
  return *a < *b ? *b - *a : 0;
}

// The units in matrix order, expert pages in page order, with their owners.
static muon_status ep_owners (muon_ctx *ctx, const muon_zero_plan *P,
                              const muon_zero_step_opts *o, zstep_ep_plan *e)
{
  muon_status status = MUON_OK;
  const muon_zero_layout *L = P->part;
  size_t np = L->nparams, W = (size_t) L->world, nu = 0, nd = 0;
  size_t *load = NULL;
  muon_size_key *dense = NULL;
  for (size_t p = 0; p < np; p++)
    nu += o->blocks ? o->blocks[p].experts : 1;
  CHECKMEM (e->u = malloc (nu * sizeof *e->u));
  CHECKMEM (load = calloc (W, sizeof *load));
  CHECKMEM (dense = malloc (np * sizeof *dense));
  for (size_t p = 0; p < np; p++)
  {
    const muon_zero_param *q = &L->params[p];
    size_t E = o->blocks ? o->blocks[p].experts : 1, page = q->numel / E;
    if (E == 1)
      dense[nd++] = (muon_size_key) { q->numel, e->nu };
    for (size_t k = 0; k < E; k++)
    {
      int owner = (int) (k * W / E);
      e->u[e->nu++] = (zstep_ep_unit) { p, k * page, (k + 1) * page, owner };
      load[owner] += E > 1 ? page : 0;
    }
  }
  qsort (dense, nd, sizeof *dense, muon_size_key_desc);
  for (size_t k = 0; k < nd; k++)
  {
    size_t best = 0;
    for (size_t r = 1; r < W; r++)
      best = load[r] < load[best] ? r : best;
    e->u[dense[k].index].owner = (int) best;
    load[best] += dense[k].numel;
  }
fail:
  free (load);
  free (dense);
  return status;
}

// Local rank l's counts: sc[o] its elements of owner o's units, rc[q] rank q's elements of
// this rank's units.
static void ep_counts (zstep_ep_plan *e, size_t np, size_t W, int l, int r)
{
  size_t a, b, *sc = e->sc + (size_t) l * W, *rc = e->rc + (size_t) l * W;
  memset (sc, 0, W * sizeof *sc);
  memset (rc, 0, W * sizeof *rc);
  for (size_t i = 0; i < e->nu; i++)
  {
    const zstep_ep_unit *u = &e->u[i];
    sc[u->owner] += zstep_ep_overlap (e, np, r, u, &a, &b);
    if (u->owner == r)
      for (size_t q = 0; q < W; q++)
        rc[q] += zstep_ep_overlap (e, np, (int) q, u, &a, &b);
  }
}

muon_status zstep_ep_plan_make (muon_ctx *ctx, const muon_zero_plan *P,
                                const muon_zero_step_opts *o, muon_comm *comm,
                                zstep_ep_plan *e)
{
  muon_status status = MUON_OK;
  const muon_zero_layout *L = P->part;
  size_t np = L->nparams, W = (size_t) L->world;
  int nl = muon_comm_local_ranks (comm);
  memset (e, 0, sizeof *e);
  CHECKSTATUS (ep_owners (ctx, P, o, e));
  CHECKMEM (e->piece = calloc (W * np, sizeof *e->piece));
  for (size_t i = 0; i < L->npieces; i++)
    e->piece[(size_t) L->pieces[i].rank * np + L->pieces[i].param] = &L->pieces[i];
  CHECKMEM (e->sc = malloc ((size_t) nl * W * sizeof *e->sc));
  CHECKMEM (e->rc = malloc ((size_t) nl * W * sizeof *e->rc));
  for (int l = 0; l < nl; l++)
  {
    ep_counts (e, np, W, l, muon_comm_rank (comm, l));
    size_t ns = 0, nr = 0;
    for (size_t q = 0; q < W; q++)
    {
      ns += e->sc[(size_t) l * W + q];
      nr += e->rc[(size_t) l * W + q];
    }
    e->most = ns > e->most ? ns : e->most;
    e->most = nr > e->most ? nr : e->most;
  }
fail:
  return status;
}

void zstep_ep_plan_free (zstep_ep_plan *e)
{
  free (e->u);
  free (e->piece);
  free (e->sc);
  free (e->rc);
  memset (e, 0, sizeof *e);
}

// Rank r's elements of every unit grouped by owner, units in order within a group: pack
// copies them from base (its partition, pieces at part_start) into buf, unpack copies buf
// into its update buffer (spans at upd_at).
static void ep_by_owner (zstep *z, const zstep_ep_plan *e, int l, double *buf,
                         const double *base, int pack)
{
  size_t np = z->P->nparams, at = 0, a, b;
  int r = zrank (z, l);
  for (int o = 0; o < z->P->world; o++)
    for (size_t i = 0; i < e->nu; i++)
    {
      const zstep_ep_unit *u = &e->u[i];
      size_t n;
      if (u->owner != o || (n = zstep_ep_overlap (e, np, r, u, &a, &b)) == 0)
        continue;
      const muon_zero_piece *c = e->piece[(size_t) r * np + u->p];
      if (pack)
        memcpy (buf + at, base + c->part_start + (a - c->local_start), n * sizeof (double));
      else
        memcpy (z->upd[l] + z->upd_at[(size_t) r * np + u->p] + (a - c->local_start),
                buf + at, n * sizeof (double));
      at += n;
    }
}

// 4. The owner's units: gathered from the ranks' pieces (recv, block q from rank q), each
// page orthogonalized once, its update written back in the same places for the way back.
static muon_status ep_orthogonalize (zstep *z, const zstep_ep_plan *e, int l, double *recv,
                                     size_t *cur)
{
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t W = (size_t) z->P->world, np = z->P->nparams, a, b;
  int r = zrank (z, l);
  const size_t *rc = e->rc + (size_t) l * W;
  for (size_t q = 0, at = 0; q < W; at += rc[q], q++)
    cur[q] = at;
  for (size_t i = 0; i < e->nu; i++)
  {
    const zstep_ep_unit *u = &e->u[i];
    if (u->owner != r)
      continue;
    const muon_zero_param *m = &L->params[u->p];
    size_t n = u->k1 - u->k0, rows = n / m->cols;
    double *X = z->work, *U = z->work + n;
    for (size_t q = 0; q < W; q++)
      if (zstep_ep_overlap (e, np, (int) q, u, &a, &b))
        zstep_scatter_rm (recv + cur[q], rows, m->cols, a - u->k0, b - u->k0, X);
    CHECKSTATUS (zstep_orthogonalize_page (z, l, u->p, X, U, rows, m->cols));
    for (size_t q = 0; q < W; q++)
      if (zstep_ep_overlap (e, np, (int) q, u, &a, &b))
      {
        zstep_gather_rm (U, rows, m->cols, a - u->k0, b - u->k0, recv + cur[q]);
        cur[q] += b - a;
      }
  }
fail:
  return status;
}

static muon_status experts_to_owners (zstep *z, double **flat, double **part)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t W = (size_t) L->world;
  zstep_ep_plan e;
  double **x = NULL, **send = NULL, **recv = NULL;
  size_t *cur = NULL;
  (void) flat;
  CHECKSTATUS (zstep_ep_plan_make (ctx, z->P, z->o, z->comm, &e));
  CHECKMEM (cur = malloc (W * sizeof *cur));
  CHECKSTATUS (zstep_alloc_bufs (z, L->partition_size, 1, &x));
  CHECKSTATUS (zstep_alloc_bufs (z, e.most, 0, &send));
  CHECKSTATUS (zstep_alloc_bufs (z, e.most, 0, &recv));
  for (int l = 0; l < z->nl; l++)
  {
    zstep_momentum_part (z, l, part[l], x[l]);
    ep_by_owner (z, &e, l, send[l], x[l], 1);
  }
  CHECKSTATUS (muon_comm_all_to_all (ctx, z->comm, (const void *const *) send, e.sc,
                                     (void *const *) recv, e.rc, MUON_F64));
  for (int l = 0; l < z->nl; l++)
    CHECKSTATUS (ep_orthogonalize (z, &e, l, recv[l], cur));
  // the way back: the counts swap
  CHECKSTATUS (muon_comm_all_to_all (ctx, z->comm, (const void *const *) recv, e.rc,
                                     (void *const *) send, e.sc, MUON_F64));
  for (int l = 0; l < z->nl; l++)
    ep_by_owner (z, &e, l, send[l], NULL, 0);
fail:
  zstep_ep_plan_free (&e);
  free (cur);
  zstep_free_bufs (z, x);
  zstep_free_bufs (z, send);
  zstep_free_bufs (z, recv);
  return status;
}

muon_status zstep_expert_parallel (zstep *z)
{
  return zstep_reduce_scatter_then (z, experts_to_owners);
}
