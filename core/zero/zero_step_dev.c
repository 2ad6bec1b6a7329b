/* zero_step_dev.c - the distributed Muon step on device memory (muon_zero_step_device,
 * muon_zero.h): the all-reduce designs of the ZeRO-1/2 family (reference, zero12_allreduce)
 * with the gradients, the momenta, the flat buffer and the updates on one device, written
 * once over the raw-memory steps of core/math/dmem.c (CUDA kernels, or host loops on the CPU
 * stand-in device), so the self-tests run the very code a GPU runs.
 *
 * Per local rank, as zstep_allreduce (zero_step_zero12.c) does on the host:
 *   flat = the gradients column-major back to back, zeros up to W S      (device copies)
 *   flat = the average over the ranks of flat                             (one all-reduce)
 *   for every matrix p the rank holds: M, U = muon_update (flat[p], M)    (on the device)
 *   the rank's span of p: row-major elements of U into its update buffer  (a kernel)
 * The average: a communicator that moves the device's memory (muon_comm_moves: nccl on CUDA,
 * mpi on the CPU stand-in) moves it, and the sum runs on the device in the fixed order: an
 * all-gather of pieces, then each element summed in rank order and divided by W
 * (muon_block_sum_at), which is muon_comm_reduce's arithmetic, so the bits are the
 * simulator's; a library communicator sums (ncclAllReduce, MPI_Allreduce), then one division.
 * The simulated ranks (sim, self) of the stand-in are host arrays of this process: their
 * own collective averages them.  One rank alone is its own average (x / 1 = x), on any
 * device and communicator: only the collective is counted.
 */
#include <stdint.h>
#include <stdlib.h>

#include "comm_stage.h"          // MUON_STAGE_ELEMS: the pieces of the fixed order
#include "zero_step_impl.h"

MUON_NAME_TABLE (dev_variant_names, MUON_ZERO_VARIANT_LIST);

int muon_zero_variant_on_device (muon_zero_variant v)
{
  return v == MUON_ZERO_REFERENCE || v == MUON_ZERO12_ALLREDUCE;
}

typedef struct {
  muon_ctx *ctx;
  muon_comm *comm;
  const muon_zero_plan *P;
  const muon_zero_step_opts *o;
  muon_device dev;
  int nl;
  muon_zero_rank_stats *st;
  int warned;
} zdev;

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
  CHECK (MUON_ERR_UNSUPPORTED, muon_zero_variant_on_device (P->variant),
         "'%s' does not run on device arrays: the device step runs '%s' and '%s'",
         MUON_NAME_OF (dev_variant_names, P->variant),
         MUON_NAME_OF (dev_variant_names, MUON_ZERO_REFERENCE),
         MUON_NAME_OF (dev_variant_names, MUON_ZERO12_ALLREDUCE));
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

//---- the step -----------------------------------------------------------------------------

// A double buffer of n elements on the step's device (n >= 1).  [out] *a, *p its memory.
static muon_status scratch (zdev *z, size_t n, muon_darray **a, double **p)
{
  muon_status s = muon_darray_create (z->ctx, z->dev, MUON_PREC_DOUBLE, n ? n : 1, 1, 1, a);
  *p = s == MUON_OK ? muon_darray_f64 (*a) : NULL;
  return s;
}

// flat[l] (N elements per local rank) = its average over the ranks, in place.
static muon_status allreduce_avg (zdev *z, double **flat, size_t N)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  muon_darray *g = NULL;
  double *gp;
  int W = muon_comm_size (z->comm);
  if (W == 1 && !muon_comm_moves (z->comm, z->dev))   // the average of one rank: x / 1 = x
    return muon_comm_count (ctx, z->comm, MUON_COLL_ALLREDUCE, N, MUON_F64);
  if (!muon_comm_moves (z->comm, z->dev))   // sim, self: the stand-in's host arrays
    return muon_comm_allreduce (ctx, z->comm, (const void *const *) flat, (void *const *) flat,
                                N, MUON_F64, MUON_REDUCE_AVG);
  CHECKSTATUS (muon_comm_count (ctx, z->comm, MUON_COLL_ALLREDUCE, N, MUON_F64));
  if (muon_comm_reduction_of (z->comm) == MUON_COMM_REDUCTION_LIBRARY)
  {
    CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_ALLREDUCE, flat[0], flat[0],
                                   N, MUON_F64));
    CHECKSTATUS (muon_dmem_block_sum (ctx, z->dev, flat[0], 1, 0, N, W, flat[0]));
    goto fail;
  }
  size_t piece = MUON_STAGE_ELEMS / (size_t) W;
  piece = piece ? piece : 1;
  piece = piece < N ? piece : N;
  CHECKSTATUS (scratch (z, piece * (size_t) W, &g, &gp));
  for (size_t at = 0; at < N; at += piece)
  {
    size_t m = N - at < piece ? N - at : piece;
    CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_ALL_GATHER, flat[0] + at,
                                   gp, m, MUON_F64));
    CHECKSTATUS (muon_dmem_block_sum (ctx, z->dev, gp, W, m, m, W, flat[0] + at));
  }
fail:
  muon_darray_destroy (ctx, &g);
  return status;
}

// Matrix p of every local rank that holds it: muon_update from flat[l] + goff[p], its span
// into the rank's update buffer.
static muon_status update_held (zdev *z, double **flat, const size_t *goff, double **mom,
                                double **upd, const size_t *upd_at, double *U)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_plan *P = z->P;
  size_t np = P->nparams;
  for (size_t p = 0; p < np; p++)
  {
    const muon_zero_param *q = &P->part->params[p];
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
      muon_status s = muon_dmem_update (ctx, z->dev, flat[l] + goff[p], mom[l] + at, U,
                                        q->rows, q->cols, E, &u);
      if (s < 0)
        CHECKSTATUS (s);
      z->warned |= s == MUON_WARN_NONFINITE;
      z->st[l].ns_calls += E;
      muon_zero_span sp = P->owned[r * np + p];
      CHECKSTATUS (muon_dmem_rm (ctx, z->dev, 1, U, q->rows, q->cols, sp.start, sp.stop,
                                 upd[l] + upd_at[r * np + p]));
    }
  }
fail:
  return status;
}

static muon_status run (zdev *z, const muon_darray *const *grads, double **mom, double **upd,
                        double **flat, const size_t *upd_at, double *U)
{
  muon_ctx *ctx = z->ctx;
  muon_status status = MUON_OK;
  const muon_zero_layout *L = z->P->part;
  size_t np = L->nparams, N = L->partition_size * (size_t) L->world, *goff = NULL;
  CHECKMEM (goff = malloc (np * sizeof *goff));
  for (size_t p = 0, at = 0; p < np; at += L->params[p].numel, p++)
    goff[p] = at;
  for (int l = 0; l < z->nl; l++)
  {
    for (size_t p = 0; p < np; p++)
      CHECKSTATUS (muon_dmem_copy (ctx, z->dev, flat[l] + goff[p],
                                   muon_darray_f64 (grads[(size_t) l * np + p]),
                                   L->params[p].numel));
    CHECKSTATUS (muon_dmem_zero (ctx, z->dev, flat[l] + L->total, N - L->total));
  }
  CHECKSTATUS (allreduce_avg (z, flat, N));
  CHECKSTATUS (update_held (z, flat, goff, mom, upd, upd_at, U));
fail:
  free (goff);
  return status;
}

muon_status muon_zero_step_device (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                                   const muon_zero_step_opts *o,
                                   const muon_darray *const *grads,
                                   muon_darray *const *momentum, muon_darray *const *updates,
                                   muon_zero_rank_stats *stats)
{
  muon_status status = MUON_OK;
  zdev z = { ctx, comm, P, o, MUON_DEVICE_CPU, muon_comm_local_ranks (comm), NULL, 0 };
  muon_darray **bufs = NULL, *work = NULL;
  double **flat = NULL, **mom = NULL, **upd = NULL, *U = NULL;
  size_t *upd_at = NULL;
  CHECKCTX (ctx);
  CHECKSTATUS (check_device_step (&z, grads, momentum, updates));
  int nl = z.nl;
  size_t N = P->part->partition_size * (size_t) P->world, big = 0;
  for (size_t p = 0; p < P->nparams; p++)
    big = P->L->params[p].numel > big ? P->L->params[p].numel : big;
  CHECKMEM (z.st = calloc ((size_t) nl, sizeof *z.st));
  CHECKMEM (bufs = calloc ((size_t) nl, sizeof *bufs));
  CHECKMEM (flat = calloc ((size_t) nl, sizeof *flat));
  CHECKMEM (mom = calloc ((size_t) nl, sizeof *mom));
  CHECKMEM (upd = calloc ((size_t) nl, sizeof *upd));
  for (int l = 0; l < nl; l++)
  {
    CHECKSTATUS (scratch (&z, N, &bufs[l], &flat[l]));
    mom[l] = muon_darray_f64 (momentum[l]);
    upd[l] = muon_darray_f64 (updates[l]);
  }
  CHECKSTATUS (scratch (&z, big, &work, &U));
  CHECKSTATUS (zstep_span_offsets (ctx, P, &upd_at));
  CHECKSTATUS (zstep_stats_begin (ctx, comm, z.st));
  CHECKSTATUS (run (&z, grads, mom, upd, flat, upd_at, U));
  CHECKSTATUS (zstep_stats_end (ctx, comm, P, z.st));
  if (stats)
    for (int l = 0; l < nl; l++)
      stats[l] = z.st[l];
  if (z.warned)
    status = muon_ctx_set_error (ctx, MUON_WARN_NONFINITE, "non-finite values in an update");
fail:
  for (int l = 0; bufs && l < nl; l++)
    muon_darray_destroy (ctx, &bufs[l]);
  muon_darray_destroy (ctx, &work);
  free (bufs);
  free (flat);
  free (mom);
  free (upd);
  free (upd_at);
  free (z.st);
  return status;
}
