/* comm.h - the communicator vtable behind the opaque muon_comm of muon_comm.h, shared by its
 * implementations (comm_self.c, comm_sim.c; later comm_mpi.c, comm_nccl.c) and the
 * algorithms in core/.
 *
 * The public wrappers (muon_comm_allreduce, ...; generic part of comm_self.c) validate the
 * arguments once for every implementation - NULL pointers, dtype, op, root, sizes, buffers
 * shared between ranks - count the call for every local rank, and then call the entry
 * below, which may assume valid arguments and count > 0.  An entry adds the bytes it moves
 * to c->counters[l] (or the model of muon_comm_model_bytes when the library hides them).
 */
#ifndef MUON_COMM_INTERNAL_H
#define MUON_COMM_INTERNAL_H

#include "muon_comm.h"
#include "muon_internal.h"

struct muon_comm {
  const char *name;              // "self", "sim", "mpi", "nccl"
  int size;                      // W
  int local_ranks;               // ranks this process drives (sim: W, others: 1)
  int rank0;                     // global rank of local rank 0
  int counts_measured;           // 1: counters count what this implementation sends
  muon_comm_counters *counters;  // local_ranks entries
  void *impl;                    // the implementation's state
  muon_status (*allreduce) (muon_comm *c, muon_ctx *ctx, const void *const *send,
                            void *const *recv, size_t count, muon_dtype dtype,
                            muon_reduce_op op);
  muon_status (*reduce_scatter) (muon_comm *c, muon_ctx *ctx, const void *const *send,
                                 void *const *recv, size_t count, muon_dtype dtype,
                                 muon_reduce_op op);
  muon_status (*all_gather) (muon_comm *c, muon_ctx *ctx, const void *const *send,
                             void *const *recv, size_t count, muon_dtype dtype);
  muon_status (*broadcast) (muon_comm *c, muon_ctx *ctx, void *const *buf, size_t count,
                            muon_dtype dtype, int root);
  muon_status (*barrier) (muon_comm *c, muon_ctx *ctx);
  void (*destroy) (muon_comm *c);  // frees impl (may be NULL)
};

// A new communicator with zeroed counters and no entries set.  [out] *c.
muon_status muon_comm_alloc (muon_ctx *ctx, const char *name, int size, int local_ranks,
                             int rank0, muon_comm **c);

static inline size_t muon_dtype_size (muon_dtype t)
{
  return t == MUON_F32 ? sizeof (float) : sizeof (double);
}

// First element of chunk r when n elements are cut into W chunks (allreduce's ring
// chunks): floor (r n / W) without overflow.
static inline size_t muon_comm_chunk_start (size_t n, int W, int r)
{
  size_t w = (size_t) W, rr = (size_t) r;
  return rr * (n / w) + rr * (n % w) / w;
}

#endif
