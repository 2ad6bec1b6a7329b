/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_dev_ep.c - expert parallelism under ZeRO-2 on the device (zero_step_dev.h), as
 * zero_step_ep.c runs it on the host, with the host's plan of the units, owners and counts
 * (zstep_ep_plan_make): the reduce-scatter frame, the momentum on the partition, one ragged
 * all-to-all of each rank's pieces of every unit to its owner, each expert page (or dense
 * matrix) orthogonalized once there, the pieces back by a second all-to-all.
 */
#include <stdint.h>
#include <stdlib.h>

#include "zero_step_dev.h"

// Rank l's elements of every unit grouped by owner (ep_by_owner): pack 1 copies them from
// its partition x into buf, 0 copies buf into its update buffer.
static muon_status by_owner (zdev *z, const zstep_ep_plan *e, int l, double *buf, double *x,
                             int pack)
{
  size_t np = z->P->nparams, at = 0, a, b;
  int r = muon_comm_rank (z->comm, l);
  for (int o = 0; o < z->P->world; o++)
    for (size_t i = 0; i < e->nu; i++)
    {
      const zstep_ep_unit *u = &e->u[i];
      size_t n;
      if (u->owner != o || (n = zstep_ep_overlap (e, np, r, u, &a, &b)) == 0)
        continue;
      const muon_zero_piece *c = e->piece[(size_t) r * np + u->p];
      double *mine = pack ? x + c->part_start + (a - c->local_start)
                          : z->upd[l] + z->upd_at[(size_t) r * np + u->p] + (a - c->local_start);
      muon_status s = pack ? muon_dmem_copy (z->ctx, z->dev, buf + at, mine, n)
                           : muon_dmem_copy (z->ctx, z->dev, mine, buf + at, n);
      if (s < 0)
        return s;
      at += n;
    }
  return MUON_OK;
}

// The owner's units (ep_orthogonalize): gathered from the ranks' pieces (recv, block q from
// rank q), each page orthogonalized once, its update written back in the same places.
static muon_status owned_units (zdev *z, const zstep_ep_plan *e, int l, double *recv,
                                size_t *cur)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t W = (size_t) z->P->world, np = z->P->nparams, a, b;
  int r = muon_comm_rank (z->comm, l);
  const size_t *rc = e->rc + (size_t) l * W;
  for (size_t q = 0, at = 0; q < W; at += rc[q], q++)
    cur[q] = at;
  for (size_t i = 0; i < e->nu; i++)
  {
    const zstep_ep_unit *u = &e->u[i];
    if (u->owner != r)
      continue;
    const muon_zero_param *m = &L->params[u->p];
    size_t rows = (u->k1 - u->k0) / m->cols;
    for (size_t q = 0; q < W; q++)
      if (zstep_ep_overlap (e, np, (int) q, u, &a, &b))
        CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 0, z->G, rows, m->cols, a - u->k0, b - u->k0,
                                   recv + cur[q]));
    CHECKSTATUS (zdev_orthogonalize_page (z, l, u->p, z->G, z->U, rows, m->cols));
    for (size_t q = 0; q < W; q++)
      if (zstep_ep_overlap (e, np, (int) q, u, &a, &b))
      {
        CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, z->U, rows, m->cols, a - u->k0, b - u->k0,
                                   recv + cur[q]));
        cur[q] += b - a;
      }
  }
fail:
  return status;
}

static muon_status experts_to_owners (zdev *z, double **part)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t W = (size_t) L->world;
  zstep_ep_plan e;
  muon_darray **xa = NULL, **sa = NULL, **ra = NULL;
  double **x = NULL, **send = NULL, **recv = NULL;
  size_t *cur = NULL;
  CHECKSTATUS (zstep_ep_plan_make (ctx, z->P, z->o, z->comm, &e));
  CHECKMEM (cur = malloc (W * sizeof *cur));
  CHECKSTATUS (zdev_scratch_ranks (z, L->partition_size, &xa, &x));
  CHECKSTATUS (zdev_scratch_ranks (z, e.most, &sa, &send));
  CHECKSTATUS (zdev_scratch_ranks (z, e.most, &ra, &recv));
  for (int l = 0; l < z->nl; l++)
  {
    CHECKSTATUS (muon_dmem_zero (ctx, z->dev, x[l], L->partition_size));
    CHECKSTATUS (zdev_momentum_part (z, l, part[l], x[l]));
    CHECKSTATUS (by_owner (z, &e, l, send[l], x[l], 1));
  }
  CHECKSTATUS (zdev_all_to_all (z, send, e.sc, recv, e.rc));
  for (int l = 0; l < z->nl; l++)
    CHECKSTATUS (owned_units (z, &e, l, recv[l], cur));
  CHECKSTATUS (zdev_all_to_all (z, recv, e.rc, send, e.sc));   // back: the counts swap
  for (int l = 0; l < z->nl; l++)
    CHECKSTATUS (by_owner (z, &e, l, send[l], NULL, 0));
fail:
  zstep_ep_plan_free (&e);
  free (cur);
  zdev_scratch_free (z, xa, x);
  zdev_scratch_free (z, sa, send);
  zdev_scratch_free (z, ra, recv);
  return status;
}

muon_status zdev_expert_parallel (zdev *z)
{
  return zdev_rs_then (z, experts_to_owners);
}
