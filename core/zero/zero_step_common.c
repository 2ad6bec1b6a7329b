/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_common.c - the helpers every distributed Muon variant uses (zero_step_impl.h):
 * an owned span into the update buffer, one muon_update or Newton-Schulz call with its count,
 * a matrix out of a partitioned buffer, the reduce-scatter frame of the designs on the
 * layout's partition (zstep_reduce_scatter_then: the ZeRO-1/2 family and expert
 * parallelism), per-rank buffers.  The variants, one file per family, each paired with its
 * cost model (zero_cost_<family>.c): zero_step_zero12.c (the ZeRO-1/2 family),
 * zero_step_rr.c (the ZeRO-3 round robin, LPT), zero_step_a2a.c (the row-shard designs:
 * all-to-all owner, MuonBP) and zero_step_ep.c (expert parallelism).  They all call down to
 * this file, and none calls another's functions.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "muon_update_math.h"
#include "zero_step_impl.h"

//---- row-major pieces of column-major matrices -------------------------------------------
// Full rows go in tiles of ZT x ZT, so that both the strided side and the contiguous side
// stay in the cache; the partial first and last rows go element by element.

#define ZT 32

static size_t zmin (size_t a, size_t b) { return a < b ? a : b; }

// the copy of each tile: to = 1 writes the row-major side (gather), 0 the column-major one
static void tiles (double *A, double *R, size_t rows, size_t cols, size_t r0, size_t r1,
                   int to_rm)
{
  for (size_t i0 = r0; i0 < r1; i0 += ZT)
    for (size_t j0 = 0; j0 < cols; j0 += ZT)
    {
      size_t i1 = zmin (i0 + ZT, r1), j1 = zmin (j0 + ZT, cols);
      for (size_t i = i0; i < i1; i++)
        for (size_t j = j0; j < j1; j++)
          if (to_rm)
            R[(i - r0) * cols + j] = A[j * rows + i];
          else
            A[j * rows + i] = R[(i - r0) * cols + j];
    }
}

static void rm_copy (double *A, double *R, size_t rows, size_t cols, size_t k0, size_t k1,
                     int to_rm)
{
  size_t r0 = (k0 + cols - 1) / cols, r1 = k1 / cols;    // rows [r0, r1) are whole
  size_t head = zmin (r0 * cols, k1), tail = r1 > r0 ? r1 * cols : head;
  for (size_t k = k0; k < head; k++)
    if (to_rm)
      R[k - k0] = A[zcm (k, rows, cols)];
    else
      A[zcm (k, rows, cols)] = R[k - k0];
  if (r1 > r0)
    tiles (A, R + (head - k0), rows, cols, r0, r1, to_rm);
  for (size_t k = tail; k < k1; k++)
    if (to_rm)
      R[k - k0] = A[zcm (k, rows, cols)];
    else
      A[zcm (k, rows, cols)] = R[k - k0];
}

void zstep_gather_rm (const double *A, size_t rows, size_t cols, size_t k0, size_t k1,
                      double *dst)
{
  rm_copy ((double *) A, dst, rows, cols, k0, k1, 1);
}

void zstep_scatter_rm (const double *src, size_t rows, size_t cols, size_t k0, size_t k1,
                       double *A)
{
  rm_copy (A, (double *) src, rows, cols, k0, k1, 0);
}

//---- the step's helpers --------------------------------------------------------------------

void zstep_put_owned (zstep *z, int l, size_t p, const double *U)
{
  const muon_zero_plan *P = z->P;
  size_t r = (size_t) zrank (z, l);
  muon_zero_span s = P->owned[r * P->nparams + p];
  const muon_zero_param *q = &P->L->params[p];
  zstep_gather_rm (U, q->rows, q->cols, s.start, s.stop, z->upd[l] + z->upd_at[r * P->nparams + p]);
}

void zstep_blocks (const zstep *z, size_t p, size_t *experts, const size_t **split,
                   size_t *nsplit)
{
  const muon_zero_blocks *b = p != ZSTEP_PLAIN && z->o->blocks ? &z->o->blocks[p] : NULL;
  *experts = b ? b->experts : 1;
  *split = b ? b->split : NULL;
  *nsplit = b ? b->nsplit : 0;
}

// One call of muon_update (M != NULL) or muon_update_orthogonalize on matrix p's pages: a
// fused (E M) x cols column-major matrix holds page e at row e M (leading dimension rows,
// page stride M).
static muon_status run_blocks (zstep *z, int l, size_t p, int whole, const double *G,
                               double *M, double *U, size_t rows, size_t cols)
{
  size_t E;
  muon_update_opts u = z->o->update;
  u.scale_factor *= z->factor;
  zstep_blocks (z, p, &E, &u.split_rows, &u.nsplit);
  E = whole ? E : 1;
  size_t page = rows / E;
  muon_tensor tg = muon_tensor_matrix (MUON_F64, (void *) G, page, cols);
  muon_tensor tm = muon_tensor_matrix (MUON_F64, M, page, cols);
  muon_tensor tu = muon_tensor_matrix (MUON_F64, U, page, cols);
  muon_tensor *t[3] = { &tg, &tm, &tu };
  for (int k = 0; k < 3 && E > 1; k++)
  {
    t[k]->batch = E;
    t[k]->ld = rows;
    t[k]->stride = page;
  }
  muon_status s = M ? muon_update (z->ctx, &tg, &tm, &tu, &u)
                    : muon_update_orthogonalize (z->ctx, &tg, &tu, &u);
  z->warned |= s == MUON_WARN_NONFINITE;
  z->st[l].ns_calls += E;              // one Newton-Schulz call per expert page
  return s < 0 ? s : MUON_OK;
}

muon_status zstep_update (zstep *z, int l, size_t p, const double *G, double *M, double *U,
                          size_t rows, size_t cols)
{
  return run_blocks (z, l, p, 1, G, M, U, rows, cols);
}

muon_status zstep_orthogonalize (zstep *z, int l, size_t p, const double *X, double *U,
                                 size_t rows, size_t cols)
{
  return run_blocks (z, l, p, 1, X, NULL, U, rows, cols);
}

muon_status zstep_orthogonalize_page (zstep *z, int l, size_t p, const double *X, double *U,
                                      size_t rows, size_t cols)
{
  return run_blocks (z, l, p, 0, X, NULL, U, rows, cols);
}

void zstep_momentum_part (zstep *z, int l, const double *part, double *x)
{
  const muon_zero_layout *L = z->P->part;
  const muon_update_opts *uo = &z->o->update;
  int form = (int) uo->form;
  const muon_zero_rank *k = &L->ranks[zrank (z, l)];
  for (size_t i = 0; i < k->npieces; i++)
  {
    const muon_zero_piece *c = &L->pieces[k->first_piece + i];
    for (size_t e = c->part_start; e < c->part_start + c->local_stop - c->local_start; e++)
    {
      double g = part[e];
      double m = z->mom[l][e] = muon_momentum_step (form, uo->beta, z->mom[l][e], g);
      x[e] = uo->nesterov ? muon_nesterov_input (form, uo->beta, m, g) : m;
    }
  }
}

void zstep_unpack (const muon_zero_layout *part, const double *buf, size_t p, double *out)
{
  const muon_zero_param *q = &part->params[p];
  size_t S = part->partition_size;
  for (size_t i = 0; i < part->npieces; i++)
  {
    const muon_zero_piece *c = &part->pieces[i];
    if (c->param != p)
      continue;
    zstep_scatter_rm (buf + (size_t) c->rank * S + c->part_start, q->rows, q->cols,
                      c->local_start, c->local_stop, out);
  }
}

//---- the reduce-scatter frame -------------------------------------------------------------

// Local rank l's gradients into its partitioned buffer, the padding between and after the
// pieces of each partition set to zero (the buffer comes uninitialised).
static void pack_grads (const zstep *z, int l, double *buf)
{
  const muon_zero_layout *part = z->P->part;
  size_t S = part->partition_size;
  for (int r = 0; r < part->world; r++)
  {
    const muon_zero_rank *k = &part->ranks[r];
    double *dst = buf + (size_t) r * S;
    size_t at = 0;                      // end of the previous piece in the partition
    for (size_t i = k->first_piece; i < k->first_piece + k->npieces; i++)
    {
      const muon_zero_piece *c = &part->pieces[i];
      const muon_zero_param *q = &part->params[c->param];
      memset (dst + at, 0, (c->part_start - at) * sizeof (double));
      zstep_gather_rm (zgrad (z, l, c->param), q->rows, q->cols, c->local_start,
                       c->local_stop, dst + c->part_start);
      at = c->part_start + c->local_stop - c->local_start;
    }
    memset (dst + at, 0, (S - at) * sizeof (double));
  }
}

// Every local rank's gradients packed into its partitioned buffer flat[l] (W S), then
// reduce-scattered into part[l] (S) and written back into the rank's own partition of
// flat[l], which stays LOCAL elsewhere.
static muon_status reduce_grads (zstep *z, double ***flat, double ***part)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t S = L->partition_size, N = S * (size_t) z->P->world;
  CHECKSTATUS (zstep_alloc_bufs (z, N, 0, flat));
  CHECKSTATUS (zstep_alloc_bufs (z, S, 0, part));
  for (int l = 0; l < z->nl; l++)
    pack_grads (z, l, (*flat)[l]);
  CHECKSTATUS (muon_comm_reduce_scatter (ctx, z->comm, (const void *const *) *flat,
                                         (void *const *) *part, S, MUON_F64, MUON_REDUCE_AVG));
  for (int l = 0; l < z->nl; l++)
    memcpy ((*flat)[l] + (size_t) zrank (z, l) * S, (*part)[l], S * sizeof (double));
fail:
  return status;
}

muon_status zstep_reduce_scatter_then (zstep *z, zstep_after_rs then)
{
  muon_status status = MUON_OK;
  double **flat = NULL, **part = NULL;
  CHECKSTATUS (reduce_grads (z, &flat, &part));
  CHECKSTATUS (then (z, flat, part));
fail:
  zstep_free_bufs (z, flat);
  zstep_free_bufs (z, part);
  return status;
}

//---- per-rank buffers --------------------------------------------------------------------
// A step's buffers come from one block the context keeps ("zero.scratch"), handed out in
// order (a bump allocator, reset by zstep_scratch_begin); what does not fit is allocated on
// its own and freed with its vector, and the block grows to the step's whole demand at the
// next step, so steps after the first allocate nothing (no page faults on gigabytes of
// per-rank copies).

typedef struct {
  double *mem;
  size_t cap, used, demand;       // doubles: held, handed out this step, asked for this step
} zscratch;

static void scratch_free (void *state)
{
  zscratch *a = state;
  free (a->mem);
  free (a);
}

muon_status zstep_scratch_begin (zstep *z)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  void *slot = NULL;
  CHECKSTATUS (muon_ctx_state (ctx, "zero.scratch", sizeof (zscratch), scratch_free,
                               MUON_CTX_CACHE, &slot));
  zscratch *a = slot;
  if (a->demand > a->cap)
  {
    free (a->mem);
    a->cap = 0;
    a->mem = malloc (a->demand * sizeof *a->mem);   // NULL: this step allocates on its own
    a->cap = a->mem ? a->demand : 0;
  }
  a->used = a->demand = 0;
  z->scratch = a;
fail:
  return status;
}

muon_status zstep_alloc_bufs (zstep *z, size_t count, int zero, double ***bufs)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  zscratch *a = z->scratch;
  size_t nl = (size_t) z->nl, n = (count + 7) / 8 * 8;   // 64-byte steps
  double **b = NULL;
  n = n ? n : 8;
  CHECK (MUON_ERR_NOMEM, n <= SIZE_MAX / sizeof (double) / nl, "buffers too large");
  if (a)
  {
    // the step holds its whole demand from the next step on (the block grows to it): a
    // world whose per-rank copies outgrow the machine is refused here, before its pages are
    // touched (the kernel would end the process, not fail the allocation)
    double mem = muon_memory_bytes (), need = ((double) a->demand + (double) (n * nl))
                                                * sizeof (double);
    CHECK (MUON_ERR_NOMEM, mem == 0 || need <= mem,
           "the buffers of %d simulated ranks need %.1f GB, more than this machine's %.1f GB"
           " of memory (fewer ranks, or one process per rank under MPI)",
           z->nl, need / 1e9, mem / 1e9);
    a->demand += n * nl;
  }
  CHECKMEM (b = calloc (nl + 1, sizeof *b));   // b[nl]: the block allocated on its own
  if (a && a->used + n * nl <= a->cap && a->used + n * nl >= a->used)
  {
    b[0] = a->mem + a->used;
    a->used += n * nl;
  }
  else
    CHECKMEM (b[0] = b[nl] = malloc (n * nl * sizeof *b[0]));
  for (size_t l = 1; l < nl; l++)
    b[l] = b[0] + l * n;
  if (zero)
    memset (b[0], 0, n * nl * sizeof *b[0]);
  *bufs = b;
  return MUON_OK;
fail:
  free (b);
  *bufs = NULL;
  return status;
}

void zstep_free_bufs (zstep *z, double **bufs)
{
  if (bufs == NULL)
    return;
  free (bufs[z->nl]);
  free (bufs);
}
