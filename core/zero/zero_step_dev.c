/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_dev.c - the distributed Muon step on device memory (muon_zero_step_device,
 * muon_zero.h): the checks and the entry point, dispatching through the DEVICE column of
 * the variant table (zero_variant.h).  The
 * gradients, the momenta, every per-rank buffer and the updates stay on one device; each
 * design is its host step's twin, buffer for buffer, written once over the raw-memory steps
 * of core/math/dmem.c (CUDA kernels, or host loops on the CPU stand-in device), so the
 * self-tests run the very code a GPU runs:
 *   zero_step_dev_zero12.c  the ZeRO-1/2 family: reference and zero12_allreduce (all-reduce
 *                           of the flat buffer), the reduce-scatter frame with
 *                           zero2_reduce_scatter_buggy (DeepSpeed #7807), zero2_slice_only,
 *                           zero2_multi_owner (PR 8141) and moonlight_gather
 *   zero_step_dev_rr.c      zero3_round_robin (correct and shipped pads), layerwise_lpt
 *   zero_step_dev_a2a.c     alltoall_owner (the FSDP2 / Dion idea) and muon_bp (row shards, a
 *                           ragged all-to-all to each matrix's owner and back)
 *   zero_step_dev_ep.c      expert_parallel
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
#include <stdlib.h>

#include "zero_step_dev.h"

// The device step of each variant (zero_variant.h's DEVICE column).
#define ZERO_VARIANT_DEVICE(v, exact, part, holds, updates, keeps, step, cost, dev) [v] = dev,
static const zdev_fn device_steps[] = { ZERO_VARIANTS (ZERO_VARIANT_DEVICE) };
#undef ZERO_VARIANT_DEVICE

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
  const double **gp = NULL;
  double **mp = NULL, **up = NULL;
  // Newton-Schulz runs where the arrays are (muon_darray_update): the options' device is
  // ignored, and its back end not asked for
  muon_zero_step_opts here;
  const muon_zero_step_opts *o = z->o;
  if (o)
  {
    here = *o;
    here.update.ns.device = MUON_DEVICE_CPU;
    o = &here;
  }
  CHECKSTATUS (zstep_check (ctx, z->comm, P, o));
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
  // the host step's sharing rules on the arrays' memory (one device: one address space)
  size_t ng = (size_t) z->nl * P->nparams;
  CHECKMEM (gp = malloc ((ng ? ng : 1) * sizeof *gp));
  CHECKMEM (mp = malloc ((size_t) z->nl * sizeof *mp));
  CHECKMEM (up = malloc ((size_t) z->nl * sizeof *up));
  for (size_t g = 0; g < ng; g++)
    gp[g] = muon_darray_f64 (grads[g]);
  for (int l = 0; l < z->nl; l++)
  {
    mp[l] = muon_darray_f64 (mom[l]);
    up[l] = muon_darray_f64 (upd[l]);
  }
  CHECKSTATUS (zstep_check_buffers (ctx, z->comm, P, gp, mp, up));
  if (z->dev == MUON_DEVICE_CUDA && P->world > 1)   // one that cannot move it says so
  {
    double none = 0;
    CHECKSTATUS (muon_comm_device (ctx, z->comm, z->dev, MUON_COLL_ALLREDUCE, &none, &none, 0,
                                   MUON_F64));
  }
fail:
  free ((void *) gp);
  free (mp);
  free (up);
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
  zstep_poll poll;
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
  zstep_poll_hold (ctx, comm, &poll);
  muon_status stepped = device_steps[P->variant] (&z);
  zstep_poll_resume (ctx, &poll);
  CHECKSTATUS (stepped);
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
