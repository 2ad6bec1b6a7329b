/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_comm.h - part of the public C API (included by muon.h): communicators, the collectives
 * the distributed algorithms (core/zero/) are written against once (core/comm/).
 *
 * A communicator spans `size` ranks, of which this process drives `local_ranks`: all of
 * them for `sim` (W ranks in one process), one for `self` and for the MPI / NCCL
 * communicators.  Every collective therefore takes ARRAYS of per-local-rank buffer pointers,
 * so the same algorithm code runs W simulated ranks in one process or one rank per process:
 *
 *   for (int l = 0; l < muon_comm_local_ranks (c); l++) { send[l] = ...; recv[l] = ...; }
 *   muon_comm_allreduce (ctx, c, send, recv, n, MUON_F64, MUON_REDUCE_AVG);
 *
 * Local rank l is global rank muon_comm_rank (c, l).  Each rank's buffers must be its own:
 * a buffer of one rank overlapping a buffer of another rank is MUON_ERR_BADARG (no real
 * rank can see another's memory).  Within one rank, send and recv may overlap: every
 * collective reads all its inputs before it writes any output.
 *
 * Arithmetic (the fixed order the MPI communicator reproduces bit for bit): element i of a
 * reduction is acc = x_0[i]; acc = acc + x_1[i]; ... acc = acc + x_{W-1}[i] in rank order, in
 * the buffers' type (float sums in float, double in double), then for MUON_REDUCE_AVG
 * acc = acc / W (one correctly rounded division by the integer W in that type).
 *
 * Byte counters, per local rank and per collective kind (n = elements, e = element size,
 * W = size, global rank r; these are the payload bytes of the ring algorithms):
 *   allreduce(n):        a reduce-scatter then an all-gather over W chunks, chunk c holding
 *                        elements [c n / W, (c + 1) n / W) (integer division); rank r sends
 *                        and receives (n - len_r) + (W - 1) len_r elements: 2 (W-1)/W n when
 *                        W divides n, and 2 (W-1) n summed over the ranks always.
 *   reduce_scatter(c):   (c per rank, W c in) sends and receives (W - 1) c elements.
 *   all_gather(c):       (c per rank, W c out) sends and receives (W - 1) c elements.
 *   broadcast(n, root):  a chain root -> root+1 -> ... (mod W): every rank but the last in
 *                        the chain sends n, every rank but the root receives n; on average
 *                        (W - 1)/W n each.
 *   barrier:             no payload; only calls are counted.
 *   all_to_all(counts):  every rank sends its block q straight to rank q: rank r sends the
 *                        elements of its blocks for the other ranks and receives those the
 *                        other ranks send it (its own block is a local copy, not counted);
 *                        (W - 1) c each way for blocks of c elements.
 * times e bytes.  muon_comm_model_bytes gives these figures.  A communicator that moves the
 * data itself (self, sim) counts what it sends (counts_measured = 1); one whose library hides
 * its internals (MPI, NCCL) reports the model (counts_measured = 0).
 */
#ifndef MUON_COMM_H
#define MUON_COMM_H

#include "muon_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct muon_comm muon_comm;

// The kinds of communicator (muon_comm_name answers one of these names).
#define MUON_COMM_KIND_LIST(X)                                                  \
  X (MUON_COMM_SELF, 0, "self")                                                 \
  X (MUON_COMM_SIM,  1, "sim")                                                  \
  X (MUON_COMM_MPI,  2, "mpi")                                                  \
  X (MUON_COMM_NCCL, 3, "nccl")
typedef enum { MUON_COMM_KIND_LIST (MUON_ENUM_ITEM) } muon_comm_kind;

// How an MPI or NCCL communicator reduces (use_library_reduction below): the fixed order,
// or the library's own reduction.
#define MUON_COMM_REDUCTION_LIST(X)                                             \
  X (MUON_COMM_REDUCTION_FIXED,   0, "fixed")                                   \
  X (MUON_COMM_REDUCTION_LIBRARY, 1, "library")
typedef enum { MUON_COMM_REDUCTION_LIST (MUON_ENUM_ITEM) } muon_comm_reduction;

#define MUON_REDUCE_OP_LIST(X)                                                  \
  X (MUON_REDUCE_SUM, 0, "sum")                                                 \
  X (MUON_REDUCE_AVG, 1, "avg")
typedef enum { MUON_REDUCE_OP_LIST (MUON_ENUM_ITEM) } muon_reduce_op;

#define MUON_COLL_LIST(X)                                                       \
  X (MUON_COLL_ALLREDUCE,      0, "allreduce")                                  \
  X (MUON_COLL_REDUCE_SCATTER, 1, "reduce_scatter")                             \
  X (MUON_COLL_ALL_GATHER,     2, "all_gather")                                 \
  X (MUON_COLL_BROADCAST,      3, "broadcast")                                  \
  X (MUON_COLL_BARRIER,        4, "barrier")                                    \
  X (MUON_COLL_ALL_TO_ALL,     5, "all_to_all")
typedef enum {
  MUON_COLL_LIST (MUON_ENUM_ITEM)
  MUON_COLL_COUNT = 0 MUON_COLL_LIST (MUON_ENUM_PLUS_ONE)
} muon_coll;

typedef struct {
  uint64_t calls[MUON_COLL_COUNT];
  uint64_t bytes_sent[MUON_COLL_COUNT];
  uint64_t bytes_recv[MUON_COLL_COUNT];
} muon_comm_counters;

#define MUON_COMM_MAX_WORLD 65536

//---- create / destroy / query -------------------------------------------------------------

// One rank (rank 0 of 1); every collective is a local copy.  [out] *comm.
muon_status muon_comm_self_create (muon_ctx *ctx, muon_comm **comm);
// `world` ranks (1..MUON_COMM_MAX_WORLD) in this process, deterministic.  [out] *comm.
muon_status muon_comm_sim_create (muon_ctx *ctx, int world, muon_comm **comm);
// This process's rank of MPI_COMM_WORLD (on a duplicate of it; the caller has initialized
// MPI and finalizes it after muon_comm_destroy).  use_library_reduction 0: the fixed order
// above, bit for bit the sim result (each rank gathers every contribution and reduces it
// itself); 1: MPI_Allreduce / MPI_Reduce_scatter_block (equal to round-off); another value
// is BADARG (MUON_COMM_REDUCTION_LIST).  Counters are
// the model (counts_measured = 0).  Defined in build/libmuon_mpi.a (link it before
// libmuon.a); MUON_ERR_NOTBUILT when that was built without MPI, MUON_ERR_MPI when MPI is not
// initialized or fails.  [out] *comm.  See core/comm_mpi.c for the costs.
muon_status muon_comm_mpi_create (muon_ctx *ctx, int use_library_reduction, muon_comm **comm);
// The same ranks as `bootstrap` (NULL: one rank; else a communicator with one local rank,
// e.g. the MPI one, which broadcasts NCCL's unique id) over NCCL on GPU rank % devices.
// Buffers stay host memory (staged to the device for each call).  use_library_reduction 0:
// the fixed order (an all-gather, reduced on the host); 1: ncclAllReduce /
// ncclReduceScatter; another value is BADARG, before anything is loaded or agreed.  Every
// rank of bootstrap must call it; all fail together:
// MUON_ERR_NOTBUILT without libmuon_nccl.so (dlopen-ed; $MUON_NCCL_LIB overrides where),
// MUON_ERR_NODEVICE without a driver or GPU, MUON_ERR_NCCL / MUON_ERR_CUDA.  [out] *comm.
muon_status muon_comm_nccl_create (muon_ctx *ctx, muon_comm *bootstrap,
                                   int use_library_reduction, muon_comm **comm);
// [in,out] *comm: frees it and sets *comm = NULL (NULL is fine).
muon_status muon_comm_destroy (muon_comm **comm);
// Reads a communicator's description by names, as muon_comm.m and the gateways take it:
// kind (MUON_COMM_KIND_LIST), reduction (MUON_COMM_REDUCTION_LIST, or the kind's own name,
// which stands for the library's) and size (-1: not given).  self and sim reduce only in the
// fixed order; self has one rank, sim 1..MUON_COMM_MAX_WORLD (the size of the mpi and nccl
// worlds is MPI's).  [out] *k, *r.  BADARG (the message says what is wrong), NULLPTR.
muon_status muon_comm_spec (muon_ctx *ctx, const char *kind, const char *reduction, int size,
                            muon_comm_kind *k, muon_comm_reduction *r);

int muon_comm_size (const muon_comm *c);          // W (0 for NULL)
int muon_comm_local_ranks (const muon_comm *c);   // ranks driven here (0 for NULL)
int muon_comm_rank (const muon_comm *c, int local); // global rank of local rank l (-1 if bad)
const char *muon_comm_name (const muon_comm *c);  // "self", "sim", ...
int muon_comm_counts_measured (const muon_comm *c); // 1 measured, 0 modelled
// How it reduces: MUON_COMM_REDUCTION_LIBRARY for an mpi or nccl communicator made or set
// so, else MUON_COMM_REDUCTION_FIXED.
muon_comm_reduction muon_comm_reduction_of (const muon_comm *c);
// Sets how an mpi or nccl communicator reduces from its next collective on (no
// communication: every rank of a call must have set the same, which the caller checks, e.g.
// with muon_comm_agree).  MUON_COMM_REDUCTION_FIXED is accepted by every kind (self and sim
// always reduce so); LIBRARY by mpi and nccl only (else BADARG); a value outside the list is
// BADARG ("unknown reduction N").
muon_status muon_comm_set_reduction (muon_ctx *ctx, muon_comm *c, muon_comm_reduction r);

//---- collectives (dtype MUON_F64 or MUON_F32; count 0 is a no-op that is still counted) ----

// recv[l][i] = reduce over ranks of send[.][i], i < count.  [in] send[local_ranks],
// [out] recv[local_ranks] (recv[l] == send[l] is in place).
muon_status muon_comm_allreduce (muon_ctx *ctx, muon_comm *c, const void *const *send,
                                 void *const *recv, size_t count, muon_dtype dtype,
                                 muon_reduce_op op);
// Rank r gets block r: recv[l][i] = reduce over ranks of send[.][r * count + i].
// [in] send[local_ranks] of size * count elements, [out] recv[local_ranks] of count.
muon_status muon_comm_reduce_scatter (muon_ctx *ctx, muon_comm *c, const void *const *send,
                                      void *const *recv, size_t count, muon_dtype dtype,
                                      muon_reduce_op op);
// recv[l * size + s] receives rank s's send (count elements each), written for s = 0..W-1
// in order (so aliased slots of one rank end up holding the last source written: the list
// form of torch's all_gather, where such aliasing bugs happen).  [in] send[local_ranks],
// [out] recv[local_ranks * size].  A contiguous gather passes pointers into one buffer.
muon_status muon_comm_all_gather (muon_ctx *ctx, muon_comm *c, const void *const *send,
                                  void *const *recv, size_t count, muon_dtype dtype);
// Whether every rank called with the same n doubles sig (the arguments of a collective or a
// step, as its caller encodes them), before a call on which ranks that disagree would hang,
// fail in the library's words, or pair unlike data.  One all-gather of n doubles; the
// counters are left as they were (it is not the caller's traffic).  A communicator whose
// ranks are all this process's (sim, self) has nothing to compare.  [out] *rank: the lowest
// rank whose sig differs from rank 0's (bit for bit), -1 when all agree; *index: the first
// entry that differs there (0-based); values[2] (may be NULL): that entry on that rank and
// on rank 0.  Every rank gets the same answer.
muon_status muon_comm_agree (muon_ctx *ctx, muon_comm *c, const double *sig, size_t n,
                             int *rank, size_t *index, double *values);
//---- device memory (the device ZeRO step, core/zero/zero_step_dev.c) ----------------------

// Whether c moves memory of device d itself, for its one local rank: nccl moves CUDA device
// memory (no host staging), mpi the CPU stand-in device's (host memory); self and sim move
// none (their ranks' buffers are host arrays of one process: their collectives above).
int muon_comm_moves (const muon_comm *c, muon_device d);
// One transfer of memory of device d by a communicator that moves it (muon_comm_moves;
// else MUON_ERR_UNSUPPORTED).  coll MUON_COLL_ALL_GATHER: recv (W count) gets rank q's send
// (count) as block q; MUON_COLL_ALL_TO_ALL: block q of send (W count) goes to rank q, block
// q of recv (W count) comes from rank q; MUON_COLL_ALLREDUCE (count, may be in place) and
// MUON_COLL_REDUCE_SCATTER (send W count, recv count): the library's SUM, in its order (an
// average or the fixed order is the caller's to compute on the device, from a sum or an
// all-gather).  Counts nothing: the caller counts the collective its design runs with
// muon_comm_count.
muon_status muon_comm_device (muon_ctx *ctx, muon_comm *c, muon_device d, muon_coll coll,
                              const void *send, void *recv, size_t count, muon_dtype dtype);
// muon_comm_all_to_all on memory of device d, for one local rank (muon_comm_moves; else
// MUON_ERR_UNSUPPORTED): send_counts[q] elements to rank q packed in send, recv_counts[q]
// from rank q packed in recv (send and recv distinct; the counts must agree with the peers':
// they are not exchanged).  Counts the call and its payload as muon_comm_all_to_all does.
muon_status muon_comm_device_all_to_all (muon_ctx *ctx, muon_comm *c, muon_device d,
                                         const void *send, const size_t *send_counts,
                                         void *recv, const size_t *recv_counts,
                                         muon_dtype dtype);
// Counts one call of coll with count elements (per rank; W count in for a reduce-scatter)
// on every local rank, with the bytes of muon_comm_model_bytes: a collective run by other
// means (muon_comm_device).
muon_status muon_comm_count (muon_ctx *ctx, muon_comm *c, muon_coll coll, size_t count,
                             muon_dtype dtype);

// Every rank's buf gets root's.  [in,out] buf[local_ranks].
muon_status muon_comm_broadcast (muon_ctx *ctx, muon_comm *c, void *const *buf, size_t count,
                                 muon_dtype dtype, int root);
muon_status muon_comm_barrier (muon_ctx *ctx, muon_comm *c);
// Personalized exchange (MPI_Alltoallv): local rank l (global rank r) sends
// send_counts[l * size + q] elements to rank q, packed in send[l] block after block for
// q = 0..W-1, and receives recv_counts[l * size + q] elements from rank q, packed the same
// way in recv[l].  What rank q sends rank r must be what r expects from q: the sim
// communicator checks it before it moves anything; mpi and nccl exchange the counts first
// (one small all-to-all of W numbers, not counted as payload) and a rank that expects
// other counts than its senders send gets MUON_ERR_BADARG after the exchange, its recv left
// untouched (its peers complete normally).  A rank with nothing to send or receive may pass
// NULL for that buffer.  Counters: the elements sent to (received from) the other ranks.
// [in] send[local_ranks], send_counts[local_ranks * size], recv_counts[local_ranks * size];
// [out] recv[local_ranks].
muon_status muon_comm_all_to_all (muon_ctx *ctx, muon_comm *c, const void *const *send,
                                  const size_t *send_counts, void *const *recv,
                                  const size_t *recv_counts, muon_dtype dtype);

//---- counters -----------------------------------------------------------------------------

// [out] *out: the counters of local rank l since creation or the last reset.
muon_status muon_comm_counters_get (muon_ctx *ctx, const muon_comm *c, int local,
                                    muon_comm_counters *out);
muon_status muon_comm_counters_reset (muon_ctx *ctx, muon_comm *c);
// The byte model above for global rank `rank` of `world` (count as the collective takes it;
// root for broadcast only; all_to_all: blocks of count elements to and from every rank).  [out] *sent, *recv in bytes.
muon_status muon_comm_model_bytes (muon_ctx *ctx, muon_coll coll, int world, int rank,
                                   int root, size_t count, muon_dtype dtype, uint64_t *sent,
                                   uint64_t *recv);

#ifdef __cplusplus
}
#endif
#endif
