/* zero_step_dev.c - the distributed Muon step on device memory (muon_zero_step_device,
 * muon_zero.h): the table of the designs it runs, the checks, the entry point.  The
 * gradients, the momenta, every per-rank buffer and the updates stay on one device; each
 * design is its host step's twin, buffer for buffer, written once over the raw-memory steps
 * of core/math/dmem.c (CUDA kernels, or host loops on the CPU stand-in device), so the
 * self-tests run the very code a GPU runs:
 *   zero_step_dev_zero12.c  reference and zero12_allreduce (all-reduce of the flat buffer),
 *                           zero2_reduce_scatter_buggy (DeepSpeed #7807) and
 *                           zero2_multi_owner (its fix, PR 8141)
 *   zero_step_dev_a2a.c     alltoall_owner (FSDP2 Muon, Dion) and muon_bp (row shards, a
 *                           ragged all-to-all to each matrix's owner and back)
 *   zero_step_dev_common.c  the buffers and the collectives
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

#include "zero_step_dev.h"

MUON_NAME_TABLE (dev_variant_names, MUON_ZERO_VARIANT_LIST);

// The designs the device step runs, and how.
static const struct { muon_zero_variant v; zdev_fn run; } device_steps[] = {
  { MUON_ZERO_REFERENCE, zdev_allreduce },
  { MUON_ZERO12_ALLREDUCE, zdev_allreduce },
  { MUON_ZERO2_RS_BUGGY, zdev_rs_buggy },
  { MUON_ZERO2_SLICE_ONLY, zdev_slice_only },
  { MUON_ZERO2_MULTI_OWNER, zdev_rs_multi_owner },
  { MUON_ZERO3_ROUND_ROBIN, zdev_round_robin },
  { MUON_ZERO3_RR_ALIASED, zdev_rr_aliased },
  { MUON_ZERO_LAYERWISE_LPT, zdev_lpt },
  { MUON_ZERO_MOONLIGHT_GATHER, zdev_moonlight },
  { MUON_ZERO_ALLTOALL_OWNER, zdev_alltoall_owner },
  { MUON_ZERO_MUON_BP, zdev_muon_bp },
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
    char names[256] = "";      // the designs it does not run
    for (int v = 0, at = 0, k = 0; v < MUON_ZERO_VARIANT_COUNT && at < (int) sizeof names; v++)
      if (!muon_zero_variant_on_device ((muon_zero_variant) v))
        at += snprintf (names + at, sizeof names - (size_t) at, "%s'%s'", k++ ? ", " : "",
                        MUON_NAME_OF (dev_variant_names, v));
    CHECK (MUON_ERR_UNSUPPORTED, 0, "'%s' does not run on device arrays: the device step runs "
           "every design but %s", MUON_NAME_OF (dev_variant_names, P->variant), names);
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

//---- the entry point ------------------------------------------------------------------------

muon_status muon_zero_step_device (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                                   const muon_zero_step_opts *o,
                                   const muon_darray *const *grads,
                                   muon_darray *const *momentum, muon_darray *const *updates,
                                   muon_zero_rank_stats *stats)
{
  muon_status status = MUON_OK;
  zdev z = { ctx, comm, P, o, MUON_DEVICE_CPU, muon_comm_local_ranks (comm), NULL, 0, grads,
             NULL, NULL, NULL, NULL, NULL, NULL };
  muon_darray *ga = NULL, *ma = NULL, *ua = NULL;
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
  CHECKSTATUS (zdev_scratch (&z, big, &ga, &z.G));
  CHECKSTATUS (zdev_scratch (&z, big, &ma, &z.M));
  CHECKSTATUS (zdev_scratch (&z, big, &ua, &z.U));
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
  muon_darray_destroy (ctx, &ma);
  muon_darray_destroy (ctx, &ua);
  free (z.mom);
  free (z.upd);
  free (z.upd_at);
  free (z.st);
  return status;
}
