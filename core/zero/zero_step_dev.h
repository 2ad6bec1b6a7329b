/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_dev.h - what the files of the device ZeRO step share (muon_zero_step_device,
 * muon_zero.h): zero_step_dev.c has the table of the designs it runs, the checks and the
 * entry point; zero_step_dev_zero12.c the designs of the ZeRO-1/2 family,
 * zero_step_dev_a2a.c the row-shard designs, each its host step's twin (zero_step_zero12.c,
 * zero_step_a2a.c) written over the raw-memory steps of core/math/dmem.c;
 * zero_step_dev_common.c the buffers and collectives they share.  Conventions as
 * zero_step_impl.h's.
 */
#ifndef MUON_ZERO_STEP_DEV_H
#define MUON_ZERO_STEP_DEV_H

#include "zero_step_impl.h"

struct zdev {
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
  double *G, *M, *U;               // three matrices of the largest size
};


//---- zero_step_dev_common.c: buffers and collectives on the step's device --------------------

// A double buffer of n elements (n >= 1).  [out] *a, *p its memory.
muon_status zdev_scratch (zdev *z, size_t n, muon_darray **a, double **p);
// nl buffers of n elements, one per local rank: arrays a[nl], their memory p[nl];
// zdev_scratch_free frees both vectors and the arrays (NULL is fine).
muon_status zdev_scratch_ranks (zdev *z, size_t n, muon_darray ***a, double ***p);
void zdev_scratch_free (zdev *z, muon_darray **a, double **p);
// One rank alone, on a communicator that does not move this device's memory: nothing moves.
int zdev_alone (const zdev *z);
// buf[l] (N) = its average over the ranks, in place.
muon_status zdev_allreduce_avg (zdev *z, double **buf, size_t N);
// out[l] (S) = the average over the ranks of block r of in[l] (W S), r the rank.
muon_status zdev_reduce_scatter_avg (zdev *z, double **in, double **out, size_t S);
// The ragged all-to-all of every local rank (counts nl x W, as muon_comm_all_to_all).
muon_status zdev_all_to_all (zdev *z, double **send, const size_t *sc, double **recv,
                             const size_t *rc);
// buf[l] (W count) = every rank's send[l] (count), block q from rank q.
muon_status zdev_all_gather (zdev *z, double **send, double **buf, size_t count);
// U = scale * NS (X) of matrix p (rows x cols, column-major) cut into its blocks (p ==
// ZSTEP_PLAIN: one block), the scale times factor; counts the call.
muon_status zdev_orthogonalize (zdev *z, int l, size_t p, const double *X, double *U,
                                size_t rows, size_t cols, double factor);
// The same for one page of matrix p (rows / experts of its rows), cut by its split row blocks
// (zstep_orthogonalize_page).
muon_status zdev_orthogonalize_page (zdev *z, int l, size_t p, const double *X, double *U,
                                     size_t rows, size_t cols);
// One muon_update of matrix p (its blocks; ZSTEP_PLAIN: one) from G with momentum M into U,
// rows x cols column-major, distinct buffers; counts the call (zstep_update).
muon_status zdev_update (zdev *z, int l, size_t p, const double *G, double *M, double *U,
                         size_t rows, size_t cols);
// Rank l's span of matrix p's update U (column-major) into its update buffer, row-major.
muon_status zdev_put_owned (zdev *z, int l, size_t p, double *U);
// Matrix p (column-major, into out) from a partitioned buffer W S laid out as `part` says
// (zstep_unpack).
muon_status zdev_unpack (zdev *z, const muon_zero_layout *part, double *buf, size_t p,
                         double *out);
// Momentum on local rank l's partition (zstep_momentum_part): for every element of its
// pieces, the momentum from the averaged gradient part[] and the NS input into x[].
muon_status zdev_momentum_part (zdev *z, int l, double *part, double *x);
// The reduce-scatter frame (zstep_reduce_scatter_then; zero_step_dev_zero12.c): every local
// rank's gradients packed into its partitioned buffer, reduce-scattered (AVG) into part[l]
// (S), written back into its own partition; then `then` on the averaged partitions.
muon_status zdev_rs_then (zdev *z, muon_status (*then) (zdev *z, double **part));
// Local rank l's gradient of matrix p.
double *zdev_grad (const zdev *z, int l, size_t p);

#endif
