/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm.h - the communicator vtable behind the opaque muon_comm of muon_comm.h, shared by its
 * implementations (comm_self.c, comm_sim.c, comm_mpi.c, comm_nccl.c).
 *
 * The public wrappers (muon_comm_allreduce, ...; comm.c) validate the arguments once for
 * every implementation - NULL pointers, dtype, op, root, sizes, buffers shared between ranks
 * - count the call for every local rank, and then call the entry below, which may assume
 * valid arguments and count > 0 (all_to_all: any counts).  An entry adds the bytes it moves
 * to c->counters[l] (or the model of muon_comm_model_bytes when the library hides them).
 */
#ifndef MUON_COMM_INTERNAL_H
#define MUON_COMM_INTERNAL_H

#include "muon_comm.h"
#include "muon_internal.h"

// An implementation: one static table each (comm_self.c, comm_sim.c, comm_mpi.c,
// comm_nccl.c).
typedef struct {
  muon_comm_kind kind;           // MUON_COMM_KIND_LIST's: its name is muon_comm_name's
  int counts_measured;           // 1: counters count what this implementation sends
  // coll MUON_COLL_ALLREDUCE or MUON_COLL_REDUCE_SCATTER: the two reductions differ only in
  // where the result goes, and every implementation shares their code
  muon_status (*reduce) (muon_comm *c, muon_ctx *ctx, muon_coll coll, const void *const *send,
                         void *const *recv, size_t count, muon_dtype dtype, muon_reduce_op op);
  muon_status (*all_gather) (muon_comm *c, muon_ctx *ctx, const void *const *send,
                             void *const *recv, size_t count, muon_dtype dtype);
  muon_status (*broadcast) (muon_comm *c, muon_ctx *ctx, void *const *buf, size_t count,
                            muon_dtype dtype, int root);
  muon_status (*barrier) (muon_comm *c, muon_ctx *ctx);   // NULL: nothing to wait for
  // muon_comm_all_to_all's arguments, checked (with every rank local, the counts agree);
  // called whatever the counts, since a rank with nothing to move still takes part
  muon_status (*all_to_all) (muon_comm *c, muon_ctx *ctx, const void *const *send,
                             const size_t *send_counts, void *const *recv,
                             const size_t *recv_counts, muon_dtype dtype);
  void (*destroy) (muon_comm *c);  // frees impl (NULL: nothing to free)
  // muon_comm_device's transfer of memory of device_memory, checked (NULL: none; the ranks
  // of self and sim are host arrays of one process, and their collectives move those)
  muon_status (*device) (muon_comm *c, muon_ctx *ctx, muon_coll coll, const void *send,
                         void *recv, size_t count, muon_dtype dtype);
  // muon_comm_device_all_to_all's ragged transfer, checked (NULL with device NULL)
  muon_status (*device_v) (muon_comm *c, muon_ctx *ctx, const void *send,
                           const size_t *send_counts, void *recv, const size_t *recv_counts,
                           muon_dtype dtype);
  muon_device device_memory;
  int staged;                    // 1: impl starts with comm_stage.c's muon_staged, whose
                                 //   reduction may be the library's (muon_comm_set_reduction)
} muon_comm_ops;

struct muon_comm {
  const muon_comm_ops *ops;      // the implementation
  int size;                      // W
  int local_ranks;               // ranks this process drives (sim: W, others: 1)
  int rank0;                     // global rank of local rank 0
  muon_comm_counters *counters;  // local_ranks entries
  void *impl;                    // the implementation's state
};

// A new communicator of implementation ops with zeroed counters and no state.  [out] *c.
muon_status muon_comm_alloc (muon_ctx *ctx, const muon_comm_ops *ops, int size,
                             int local_ranks, int rank0, muon_comm **c);

static inline size_t muon_dtype_size (muon_dtype t)
{
  return t == MUON_F32 ? sizeof (float) : sizeof (double);
}

// The fixed-order reduction of muon_comm.h, written once for every communicator that reduces
// on the host (sim; mpi and nccl in their fixed mode, through comm_stage.c), so that they
// agree bit for bit: out[i] = x_0[i] + x_1[i] + ... + x_{W-1}[i] in rank order, in the type
// of dtype, then / W once for MUON_REDUCE_AVG, i < n.  Rank q's input x_q starts at element
// off of in[q]; when in is NULL, at element q * stride + off of base (W blocks staged in one
// buffer).
void muon_comm_reduce (const void *const *in, const void *base, size_t stride, size_t off,
                       size_t n, int W, muon_dtype dtype, muon_reduce_op op, void *out);

// First element of chunk r when n elements are cut into W chunks (allreduce's ring
// chunks): floor (r n / W) without overflow.
static inline size_t muon_comm_chunk_start (size_t n, int W, int r)
{
  size_t w = (size_t) W, rr = (size_t) r;
  return rr * (n / w) + rr * (n % w) / w;
}

#endif
