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

typedef struct {
  size_t p;                  // matrix
  size_t k0, k1;             // its row-major elements [k0, k1): an expert page or all of it
  int owner;
} ep_unit;

typedef struct {
  zstep *z;
  ep_unit *u;
  size_t nu;
  const muon_zero_piece **piece;   // world * nparams: rank q's piece of p, or NULL
  size_t *sc, *rc;                 // nl * W: all-to-all counts to / from each rank
} ep_plan;

// The elements [*a, *b) rank q holds of unit u (0 when none).
static size_t overlap (const ep_plan *e, int q, const ep_unit *u, size_t *a, size_t *b)
{
  const muon_zero_piece *c = e->piece[(size_t) q * e->z->P->nparams + u->p];
  if (c == NULL)
    return 0;
  *a = c->local_start > u->k0 ? c->local_start : u->k0;
  *b = c->local_stop < u->k1 ? c->local_stop : u->k1;
  return *a < *b ? *b - *a : 0;
}

typedef struct { size_t numel, index; } ep_key;

static int by_numel_desc (const void *x, const void *y)
{
  const ep_key *a = x, *b = y;
  if (a->numel != b->numel)
    return a->numel > b->numel ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

// The units in matrix order, expert pages in page order, with their owners.
static muon_status ep_owners (ep_plan *e)
{
  zstep *z = e->z;
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t np = L->nparams, W = (size_t) L->world, nu = 0, nd = 0, E;
  const size_t *split;
  size_t *load = NULL, nsplit;
  ep_key *dense = NULL;
  for (size_t p = 0; p < np; p++)
  {
    zstep_blocks (z, p, &E, &split, &nsplit);
    nu += E;
  }
  CHECKMEM (e->u = malloc (nu * sizeof *e->u));
  CHECKMEM (load = calloc (W, sizeof *load));
  CHECKMEM (dense = malloc (np * sizeof *dense));
  for (size_t p = 0; p < np; p++)
  {
    const muon_zero_param *q = &L->params[p];
    zstep_blocks (z, p, &E, &split, &nsplit);
    size_t page = q->numel / E;
    if (E == 1)
      dense[nd++] = (ep_key) { q->numel, e->nu };
    for (size_t k = 0; k < E; k++)
    {
      int o = (int) (k * W / E);
      e->u[e->nu++] = (ep_unit) { p, k * page, (k + 1) * page, o };
      load[o] += E > 1 ? page : 0;
    }
  }
  qsort (dense, nd, sizeof *dense, by_numel_desc);
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
static void ep_counts (ep_plan *e, int l)
{
  zstep *z = e->z;
  size_t W = (size_t) z->P->world, a, b;
  int r = zrank (z, l);
  size_t *sc = e->sc + (size_t) l * W, *rc = e->rc + (size_t) l * W;
  memset (sc, 0, W * sizeof *sc);
  memset (rc, 0, W * sizeof *rc);
  for (size_t i = 0; i < e->nu; i++)
  {
    const ep_unit *u = &e->u[i];
    sc[u->owner] += overlap (e, r, u, &a, &b);
    if (u->owner == r)
      for (size_t q = 0; q < W; q++)
        rc[q] += overlap (e, (int) q, u, &a, &b);
  }
}

// Rank r's elements of every unit grouped by owner, units in order within a group: pack
// copies them from base (its partition, pieces at part_start) into buf, unpack copies buf
// into its update buffer (spans at upd_at).
static void ep_by_owner (const ep_plan *e, int l, double *buf, const double *base, int pack)
{
  zstep *z = e->z;
  size_t np = z->P->nparams, at = 0, a, b;
  int r = zrank (z, l);
  for (int o = 0; o < z->P->world; o++)
    for (size_t i = 0; i < e->nu; i++)
    {
      const ep_unit *u = &e->u[i];
      size_t n;
      if (u->owner != o || (n = overlap (e, r, u, &a, &b)) == 0)
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
static muon_status ep_orthogonalize (ep_plan *e, int l, double *recv, size_t *cur)
{
  zstep *z = e->z;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t W = (size_t) z->P->world, a, b;
  int r = zrank (z, l);
  const size_t *rc = e->rc + (size_t) l * W;
  for (size_t q = 0, at = 0; q < W; at += rc[q], q++)
    cur[q] = at;
  for (size_t i = 0; i < e->nu; i++)
  {
    const ep_unit *u = &e->u[i];
    if (u->owner != r)
      continue;
    const muon_zero_param *m = &L->params[u->p];
    size_t n = u->k1 - u->k0, rows = n / m->cols;
    double *X = z->work, *U = z->work + n;
    for (size_t q = 0; q < W; q++)
      if (overlap (e, (int) q, u, &a, &b))
        zstep_scatter_rm (recv + cur[q], rows, m->cols, a - u->k0, b - u->k0, X);
    CHECKSTATUS (zstep_orthogonalize_page (z, l, u->p, X, U, rows, m->cols));
    for (size_t q = 0; q < W; q++)
      if (overlap (e, (int) q, u, &a, &b))
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
  size_t np = L->nparams, W = (size_t) L->world, most = 0;
  ep_plan e = { z, NULL, 0, NULL, NULL, NULL };
  double **x = NULL, **send = NULL, **recv = NULL;
  size_t *cur = NULL;
  (void) flat;
  CHECKSTATUS (ep_owners (&e));
  CHECKMEM (e.piece = calloc (W * np, sizeof *e.piece));
  for (size_t i = 0; i < L->npieces; i++)
    e.piece[(size_t) L->pieces[i].rank * np + L->pieces[i].param] = &L->pieces[i];
  CHECKMEM (e.sc = malloc ((size_t) z->nl * W * sizeof *e.sc));
  CHECKMEM (e.rc = malloc ((size_t) z->nl * W * sizeof *e.rc));
  CHECKMEM (cur = malloc (W * sizeof *cur));
  for (int l = 0; l < z->nl; l++)
  {
    ep_counts (&e, l);
    size_t ns = 0, nr = 0;
    for (size_t q = 0; q < W; q++)
    {
      ns += e.sc[(size_t) l * W + q];
      nr += e.rc[(size_t) l * W + q];
    }
    most = ns > most ? ns : most;
    most = nr > most ? nr : most;
  }
  CHECKSTATUS (zstep_alloc_bufs (z, L->partition_size, 1, &x));
  CHECKSTATUS (zstep_alloc_bufs (z, most, 0, &send));
  CHECKSTATUS (zstep_alloc_bufs (z, most, 0, &recv));
  for (int l = 0; l < z->nl; l++)
  {
    zstep_momentum_part (z, l, part[l], x[l]);
    ep_by_owner (&e, l, send[l], x[l], 1);
  }
  CHECKSTATUS (muon_comm_all_to_all (ctx, z->comm, (const void *const *) send, e.sc,
                                     (void *const *) recv, e.rc, MUON_F64));
  for (int l = 0; l < z->nl; l++)
    CHECKSTATUS (ep_orthogonalize (&e, l, recv[l], cur));
  // the way back: the counts swap
  CHECKSTATUS (muon_comm_all_to_all (ctx, z->comm, (const void *const *) recv, e.rc,
                                     (void *const *) send, e.sc, MUON_F64));
  for (int l = 0; l < z->nl; l++)
    ep_by_owner (&e, l, send[l], NULL, 0);
fail:
  free (e.u);
  free (e.piece);
  free (e.sc);
  free (e.rc);
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
