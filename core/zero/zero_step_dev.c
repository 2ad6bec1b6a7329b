/* zero_step_dev.c - the distributed Muon step on device memory (muon_zero_step_device,
 * muon_zero.h): the designs of the ZeRO-1/2 family that average over the flat buffer -
 * reference and zero12_allreduce (all-reduce), zero2_reduce_scatter_buggy (DeepSpeed #7807)
 * and zero2_multi_owner (its fix, PR 8141) - with the gradients, the momenta, the
 * partitioned buffers and the updates on one device, written once over the raw-memory steps
 * of core/math/dmem.c (CUDA kernels, or host loops on the CPU stand-in device), so the
 * self-tests run the very code a GPU runs.  Each design follows its host step in
 * zero_step_zero12.c / zero_step_common.c, buffer for buffer:
 *   all-reduce   flat = the gradients column-major back to back, zeros up to W S; its
 *                average over the ranks; every matrix the rank holds updated from it
 *   reduce-scatter   flat = the gradients packed row-major into the partitioned buffer
 *                (zeros in the pads); its average reduce-scattered into the rank's own
 *                partition, the rest LOCAL (the #7807 bug); multi-owner first all-reduces the
 *                straddling matrices into every owner's view; every matrix the rank has a
 *                piece of updated from its view, unpacked column-major
 * and each rank's span of a matrix's update is written row-major into its update buffer.
 *
 * The averages: a communicator that moves the device's memory (muon_comm_moves: nccl on
 * CUDA, mpi on the stand-in) moves it, and the sum runs on the device in the fixed order - an
 * all-gather of pieces (all-reduce) or an all-to-all of the blocks (reduce-scatter), then each
 * element summed in rank order and divided by W (muon_block_sum_at), which is
 * muon_comm_reduce's arithmetic, so the bits are the simulator's; a library communicator
 * sums (ncclAllReduce / ncclReduceScatter, MPI's), then one division.  The simulated ranks
 * (sim, self) of the stand-in are host arrays of this process: their own collectives average
 * them.  One rank alone is its own average (x / 1 = x), on any device and communicator: only
 * the collective is counted.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "comm_stage.h"          // MUON_STAGE_ELEMS: the pieces of the fixed order
#include "zero_step_impl.h"

MUON_NAME_TABLE (dev_variant_names, MUON_ZERO_VARIANT_LIST);

typedef struct {
  muon_ctx *ctx;
  muon_comm *comm;
  const muon_zero_plan *P;
  const muon_zero_step_opts *o;
  muon_device dev;
  int nl;
  muon_zero_rank_stats *st;
  int warned;
  const muon_darray *const *grads;  // [nl * nparams]
  double **mom, **upd;             // [nl]: the momenta, the update buffers
  size_t *upd_at;                  // where p's span starts in upd of rank r
  double *G, *U;                   // two matrices of the largest size
} zdev;

typedef muon_status (*zdev_fn) (zdev *z);
static muon_status dev_allreduce (zdev *z);
static muon_status dev_rs_buggy (zdev *z);
static muon_status dev_rs_multi_owner (zdev *z);

// The designs the device step runs, and how.
static const struct { muon_zero_variant v; zdev_fn run; } device_steps[] = {
  { MUON_ZERO_REFERENCE, dev_allreduce },
  { MUON_ZERO12_ALLREDUCE, dev_allreduce },
  { MUON_ZERO2_RS_BUGGY, dev_rs_buggy },
  { MUON_ZERO2_MULTI_OWNER, dev_rs_multi_owner },
};
#define NDEVICE (sizeof device_steps / sizeof device_steps[0])

static zdev_fn device_step_of (muon_zero_variant v)
{
  for (size_t k = 0; k < NDEVICE; k++)
    if (device_steps[k].v == v)
      return device_steps[k].run;
  return NULL;
}

int muon_zero_variant_on_device (muon_zero_variant v)
{
  return device_step_of (v) != NULL;
}

//---- checks -------------------------------------------------------------------------------

// a is a double array of n elements on device d (rows x cols when cols > 0), or NULL when
// n is 0.  what, index: its name in messages.
static muon_status check_array (muon_ctx *ctx, const muon_darray *a, muon_device d,
                                size_t rows, size_t cols, size_t n, const char *what,
                                int index)
{
  muon_status status = MUON_OK;
  muon_darray_info i;
  if (a == NULL && n == 0)
    return MUON_OK;
  CHECK (MUON_ERR_NULLPTR, a != NULL && muon_darray_describe (a, &i) == MUON_OK,
         "the %s of local rank %d must not be NULL", what, index);
  CHECK (MUON_ERR_UNSUPPORTED, i.device == d,
         "the %s of local rank %d is on another device than the first gradient", what, index);
  CHECK (MUON_ERR_BADTYPE, i.storage == MUON_PREC_DOUBLE,
         "the %s of local rank %d must be a double array", what, index);
  if (cols > 0)
    CHECK (MUON_ERR_BADSHAPE, i.rows == rows && i.cols == cols && i.batch == 1,
           "the %s of local rank %d must be %zu x %zu", what, index, rows, cols);
  else
    CHECK (MUON_ERR_BADSHAPE, i.rows * i.cols * i.batch == n,
           "the %s of local rank %d must hold %zu elements", what, index, n);
fail:
  return status;
}

static muon_status check_device_step (zdev *z, const muon_darray *const *grads,
                                      muon_darray *const *mom, muon_darray *const *upd)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  CHECKSTATUS (zstep_check (ctx, z->comm, P, z->o));
  if (!muon_zero_variant_on_device (P->variant))
  {
    char names[256] = "";
    for (size_t k = 0, at = 0; k < NDEVICE && at < sizeof names; k++)
      at += (size_t) snprintf (names + at, sizeof names - at, "%s'%s'",
                               k == 0 ? "" : k + 1 < NDEVICE ? ", " : " and ",
                               MUON_NAME_OF (dev_variant_names, device_steps[k].v));
    CHECK (MUON_ERR_UNSUPPORTED, 0, "'%s' does not run on device arrays: the device step runs %s",
           MUON_NAME_OF (dev_variant_names, P->variant), names);
  }
  CHECK (MUON_ERR_NULLPTR, grads && mom && upd && grads[0],
         "the device arrays must not be NULL");
  muon_darray_info first;
  CHECKSTATUS (muon_darray_describe (grads[0], &first));
  z->dev = first.device;
  for (int l = 0; l < z->nl; l++)
  {
    int r = muon_comm_rank (z->comm, l);
    for (size_t p = 0; p < P->nparams; p++)
    {
      const muon_zero_param *q = &P->L->params[p];
      CHECKSTATUS (check_array (ctx, grads[(size_t) l * P->nparams + p], z->dev, q->rows,
                                q->cols, q->numel, "gradient", l));
    }
    CHECKSTATUS (check_array (ctx, mom[l], z->dev, 0, 0, P->momentum_len[r], "momentum", l));
    CHECKSTATUS (check_array (ctx, upd[l], z->dev, 0, 0, P->owned_len[r], "update buffer", l));
  }
  if (z->dev == MUON_DEVICE_CUDA && P->world > 1)   // one that cannot move it says so
  {
    double none = 0;
    CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_ALLREDUCE, &none, &none, 0,
                                   MUON_F64));
  }
fail:
  return status;
}

//---- device buffers and averages -----------------------------------------------------------

// A double buffer of n elements on the step's device (n >= 1).  [out] *a, *p its memory.
static muon_status scratch (zdev *z, size_t n, muon_darray **a, double **p)
{
  muon_status s = muon_darray_create (z->ctx, z->dev, MUON_PREC_DOUBLE, n ? n : 1, 1, 1, a);
  *p = s == MUON_OK ? muon_darray_f64 (*a) : NULL;
  return s;
}

// nl buffers of n elements, one per local rank: arrays a[nl], their memory p[nl].
static muon_status scratch_ranks (zdev *z, size_t n, muon_darray ***a, double ***p)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  CHECKMEM (*a = calloc ((size_t) z->nl, sizeof **a));
  CHECKMEM (*p = calloc ((size_t) z->nl, sizeof **p));
  for (int l = 0; l < z->nl; l++)
    CHECKSTATUS (scratch (z, n, &(*a)[l], &(*p)[l]));
fail:
  return status;
}

static void scratch_ranks_free (zdev *z, muon_darray **a, double **p)
{
  for (int l = 0; a && l < z->nl; l++)
    muon_darray_destroy (z->ctx, &a[l]);
  free (a);
  free (p);
}

// One rank alone, on a communicator that does not move this device's memory: nothing moves.
static int alone (const zdev *z)
{
  return muon_comm_size (z->comm) == 1 && !muon_comm_moves (z->comm, z->dev);
}

// buf[l] (N elements per local rank) = its average over the ranks, in place.
static muon_status allreduce_avg (zdev *z, double **buf, size_t N)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  muon_darray *g = NULL;
  double *gp;
  int W = muon_comm_size (z->comm);
  if (alone (z))
    return muon_comm_count (ctx, z->comm, MUON_COLL_ALLREDUCE, N, MUON_F64);
  if (!muon_comm_moves (z->comm, z->dev))   // sim, self: the stand-in's host arrays
    return muon_comm_allreduce (ctx, z->comm, (const void *const *) buf, (void *const *) buf,
                                N, MUON_F64, MUON_REDUCE_AVG);
  CHECKSTATUS (muon_comm_count (ctx, z->comm, MUON_COLL_ALLREDUCE, N, MUON_F64));
  if (muon_comm_reduction_of (z->comm) == MUON_COMM_REDUCTION_LIBRARY)
  {
    CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_ALLREDUCE, buf[0], buf[0],
                                   N, MUON_F64));
    CHECKSTATUS (muon_dmem_block_sum (ctx, z->dev, buf[0], 1, 0, N, W, buf[0]));
    goto fail;
  }
  size_t piece = MUON_STAGE_ELEMS / (size_t) W;
  piece = piece ? piece : 1;
  piece = piece < N ? piece : N;
  CHECKSTATUS (scratch (z, piece * (size_t) W, &g, &gp));
  for (size_t at = 0; at < N; at += piece)
  {
    size_t m = N - at < piece ? N - at : piece;
    CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_ALL_GATHER, buf[0] + at,
                                   gp, m, MUON_F64));
    CHECKSTATUS (muon_dmem_block_sum (ctx, z->dev, gp, W, m, m, W, buf[0] + at));
  }
fail:
  muon_darray_destroy (ctx, &g);
  return status;
}

// out[l] (S) = the average over the ranks of block r of in[l] (W S), r the rank.
static muon_status reduce_scatter_avg (zdev *z, double **in, double **out, size_t S)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  muon_darray *g = NULL;
  double *gp;
  int W = muon_comm_size (z->comm);
  if (alone (z))
  {
    CHECKSTATUS (muon_dmem_copy (ctx, z->dev, out[0], in[0], S));
    return muon_comm_count (ctx, z->comm, MUON_COLL_REDUCE_SCATTER, S, MUON_F64);
  }
  if (!muon_comm_moves (z->comm, z->dev))
    return muon_comm_reduce_scatter (ctx, z->comm, (const void *const *) in,
                                     (void *const *) out, S, MUON_F64, MUON_REDUCE_AVG);
  CHECKSTATUS (muon_comm_count (ctx, z->comm, MUON_COLL_REDUCE_SCATTER, S, MUON_F64));
  if (muon_comm_reduction_of (z->comm) == MUON_COMM_REDUCTION_LIBRARY)
  {
    CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_REDUCE_SCATTER, in[0],
                                   out[0], S, MUON_F64));
    CHECKSTATUS (muon_dmem_block_sum (ctx, z->dev, out[0], 1, 0, S, W, out[0]));
    goto fail;
  }
  // every rank's block r here (block q from rank q), then their rank-order sum
  CHECKSTATUS (scratch (z, S * (size_t) W, &g, &gp));
  CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_ALL_TO_ALL, in[0], gp, S,
                                 MUON_F64));
  CHECKSTATUS (muon_dmem_block_sum (ctx, z->dev, gp, W, S, S, W, out[0]));
fail:
  muon_darray_destroy (ctx, &g);
  return status;
}

//---- the designs ------------------------------------------------------------------------

// Local rank l's gradient of matrix p.
static double *dgrad (const zdev *z, int l, size_t p)
{
  return muon_darray_f64 (z->grads[(size_t) l * z->P->nparams + p]);
}

// Matrix p of every local rank that holds its momentum: muon_update from flat[l] + goff[p]
// (column-major), or (goff NULL) from the rank's view of the partitioned buffer flat[l],
// unpacked; its span into the rank's update buffer.
static muon_status update_held (zdev *z, double **flat, const size_t *goff)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  const muon_zero_layout *part = P->part;
  size_t np = P->nparams, S = part->partition_size;
  for (size_t p = 0; p < np; p++)
  {
    const muon_zero_param *q = &part->params[p];
    const muon_zero_blocks *b = z->o->blocks ? &z->o->blocks[p] : NULL;
    muon_update_opts u = z->o->update;
    size_t E = b ? b->experts : 1;
    u.split_rows = b ? b->split : NULL;
    u.nsplit = b ? b->nsplit : 0;
    for (int l = 0; l < z->nl; l++)
    {
      size_t r = (size_t) muon_comm_rank (z->comm, l), at = P->momentum_at[r * np + p];
      if (at == SIZE_MAX)
        continue;
      double *G = goff ? flat[l] + goff[p] : z->G;
      for (size_t i = 0; !goff && i < part->npieces; i++)   // zstep_unpack
      {
        const muon_zero_piece *c = &part->pieces[i];
        if (c->param == p)
          CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 0, G, q->rows, q->cols, c->local_start,
                                     c->local_stop, flat[l] + (size_t) c->rank * S
                                                    + c->part_start));
      }
      muon_status s = muon_dmem_update (ctx, z->dev, G, z->mom[l] + at, z->U, q->rows,
                                        q->cols, E, &u);
      if (s < 0)
        CHECKSTATUS (s);
      z->warned |= s == MUON_WARN_NONFINITE;
      z->st[l].ns_calls += E;
      muon_zero_span sp = P->owned[r * np + p];
      CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, z->U, q->rows, q->cols, sp.start, sp.stop,
                                 z->upd[l] + z->upd_at[r * np + p]));
    }
  }
fail:
  return status;
}

// reference, zero12_allreduce (zstep_allreduce): the matrices column-major back to back,
// zeros up to W S, all-reduced; every matrix the rank holds.
static muon_status dev_allreduce (zdev *z)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t np = L->nparams, N = L->partition_size * (size_t) L->world, *goff = NULL;
  muon_darray **fa = NULL;
  double **flat = NULL;
  CHECKMEM (goff = malloc (np * sizeof *goff));
  for (size_t p = 0, at = 0; p < np; at += L->params[p].numel, p++)
    goff[p] = at;
  CHECKSTATUS (scratch_ranks (z, N, &fa, &flat));
  for (int l = 0; l < z->nl; l++)
  {
    for (size_t p = 0; p < np; p++)
      CHECKSTATUS (muon_dmem_copy (ctx, z->dev, flat[l] + goff[p], dgrad (z, l, p),
                                   L->params[p].numel));
    CHECKSTATUS (muon_dmem_zero (ctx, z->dev, flat[l] + L->total, N - L->total));
  }
  CHECKSTATUS (allreduce_avg (z, flat, N));
  CHECKSTATUS (update_held (z, flat, goff));
fail:
  free (goff);
  scratch_ranks_free (z, fa, flat);
  return status;
}

// The reduce-scatter frame (zstep_reduce_scatter_then): each rank's gradients packed into
// its partitioned buffer flat[l] (W S, zeros between and after the pieces), the average
// reduce-scattered into part[l] (S) and written back into its own partition of flat[l].
static muon_status rs_frame (zdev *z, double **flat, double **part)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t S = L->partition_size;
  for (int l = 0; l < z->nl; l++)
    for (int r = 0; r < L->world; r++)
    {
      const muon_zero_rank *k = &L->ranks[r];
      double *dst = flat[l] + (size_t) r * S;
      size_t at = 0;                      // end of the previous piece in the partition
      for (size_t i = k->first_piece; i < k->first_piece + k->npieces; i++)
      {
        const muon_zero_piece *c = &L->pieces[i];
        const muon_zero_param *q = &L->params[c->param];
        CHECKSTATUS (muon_dmem_zero (ctx, z->dev, dst + at, c->part_start - at));
        CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, dgrad (z, l, c->param), q->rows, q->cols,
                                   c->local_start, c->local_stop, dst + c->part_start));
        at = c->part_start + c->local_stop - c->local_start;
      }
      CHECKSTATUS (muon_dmem_zero (ctx, z->dev, dst + at, S - at));
    }
  CHECKSTATUS (reduce_scatter_avg (z, flat, part, S));
  for (int l = 0; l < z->nl; l++)
    CHECKSTATUS (muon_dmem_copy (ctx, z->dev, flat[l] + (size_t) muon_comm_rank (z->comm, l) * S,
                                 part[l], S));
fail:
  return status;
}

// Multi-owner (allreduce_straddlers): the straddling matrices, column-major back to back,
// all-reduced, then their pieces written into every rank's view flat[l].
static muon_status straddlers (zdev *z, double **flat)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t S = L->partition_size, total = z->P->straddle_total;
  muon_darray **sa = NULL;
  double **s = NULL;
  if (total == 0)
    return MUON_OK;
  CHECKSTATUS (scratch_ranks (z, total, &sa, &s));
  for (int l = 0; l < z->nl; l++)
    for (size_t p = 0, at = 0; p < L->nparams; p++)
      if (L->params[p].straddles)
      {
        CHECKSTATUS (muon_dmem_copy (ctx, z->dev, s[l] + at, dgrad (z, l, p),
                                     L->params[p].numel));
        at += L->params[p].numel;
      }
  CHECKSTATUS (allreduce_avg (z, s, total));
  for (int l = 0; l < z->nl; l++)
    for (size_t i = 0; i < L->npieces; i++)
    {
      const muon_zero_piece *c = &L->pieces[i];
      const muon_zero_param *q = &L->params[c->param];
      if (!q->straddles)
        continue;
      size_t at = 0;
      for (size_t p = 0; p < c->param; p++)
        at += L->params[p].straddles ? L->params[p].numel : 0;
      CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, s[l] + at, q->rows, q->cols, c->local_start,
                                 c->local_stop, flat[l] + (size_t) c->rank * S
                                                + c->part_start));
    }
fail:
  scratch_ranks_free (z, sa, s);
  return status;
}

// zero2_reduce_scatter_buggy and zero2_multi_owner: the frame, the straddlers for the
// latter, then every matrix the rank has a piece of, as its view shows it.
static muon_status rs_held (zdev *z, int fix_straddlers)
{
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t S = L->partition_size;
  muon_darray **fa = NULL, **pa = NULL;
  double **flat = NULL, **part = NULL;
  CHECKSTATUS (scratch_ranks (z, S * (size_t) L->world, &fa, &flat));
  CHECKSTATUS (scratch_ranks (z, S, &pa, &part));
  CHECKSTATUS (rs_frame (z, flat, part));
  if (fix_straddlers)
    CHECKSTATUS (straddlers (z, flat));
  CHECKSTATUS (update_held (z, flat, NULL));
fail:
  scratch_ranks_free (z, fa, flat);
  scratch_ranks_free (z, pa, part);
  return status;
}

static muon_status dev_rs_buggy (zdev *z) { return rs_held (z, 0); }
static muon_status dev_rs_multi_owner (zdev *z) { return rs_held (z, 1); }

//---- the entry point ------------------------------------------------------------------------

muon_status muon_zero_step_device (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                                   const muon_zero_step_opts *o,
                                   const muon_darray *const *grads,
                                   muon_darray *const *momentum, muon_darray *const *updates,
                                   muon_zero_rank_stats *stats)
{
  muon_status status = MUON_OK;
  zdev z = { ctx, comm, P, o, MUON_DEVICE_CPU, muon_comm_local_ranks (comm), NULL, 0, grads,
             NULL, NULL, NULL, NULL, NULL };
  muon_darray *ga = NULL, *ua = NULL;
  CHECKCTX (ctx);
  CHECKSTATUS (check_device_step (&z, grads, momentum, updates));
  int nl = z.nl;
  size_t big = 0;
  for (size_t p = 0; p < P->nparams; p++)
    big = P->L->params[p].numel > big ? P->L->params[p].numel : big;
  CHECKMEM (z.st = calloc ((size_t) nl, sizeof *z.st));
  CHECKMEM (z.mom = calloc ((size_t) nl, sizeof *z.mom));
  CHECKMEM (z.upd = calloc ((size_t) nl, sizeof *z.upd));
  for (int l = 0; l < nl; l++)
  {
    z.mom[l] = muon_darray_f64 (momentum[l]);
    z.upd[l] = muon_darray_f64 (updates[l]);
  }
  CHECKSTATUS (scratch (&z, big, &ga, &z.G));
  CHECKSTATUS (scratch (&z, big, &ua, &z.U));
  CHECKSTATUS (zstep_span_offsets (ctx, P, &z.upd_at));
  CHECKSTATUS (zstep_stats_begin (ctx, comm, z.st));
  CHECKSTATUS (device_step_of (P->variant) (&z));
  CHECKSTATUS (zstep_stats_end (ctx, comm, P, z.st));
  if (stats)
    for (int l = 0; l < nl; l++)
      stats[l] = z.st[l];
  if (z.warned)
    status = muon_ctx_set_error (ctx, MUON_WARN_NONFINITE, "non-finite values in an update");
fail:
  muon_darray_destroy (ctx, &ga);
  muon_darray_destroy (ctx, &ua);
  free (z.mom);
  free (z.upd);
  free (z.upd_at);
  free (z.st);
  return status;
}
