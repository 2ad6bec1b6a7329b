/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm_self.c - the `self` communicator: one rank, every collective a local copy, no bytes
 * moved.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"

//---- self: one rank -----------------------------------------------------------------------

static muon_status self_reduce (muon_comm *c, muon_ctx *ctx, muon_coll coll,
                                const void *const *send, void *const *recv, size_t count,
                                muon_dtype dtype, muon_reduce_op op)
{
  // the sum over one rank is the value; the average divides by W = 1, which is exact
  memmove (recv[0], send[0], count * muon_dtype_size (dtype));
  return MUON_OK;
}

static muon_status self_all_gather (muon_comm *c, muon_ctx *ctx, const void *const *send,
                                    void *const *recv, size_t count, muon_dtype dtype)
{
  memmove (recv[0], send[0], count * muon_dtype_size (dtype));
  return MUON_OK;
}

static muon_status self_broadcast (muon_comm *c, muon_ctx *ctx, void *const *buf, size_t count,
                                   muon_dtype dtype, int root)
{
  return MUON_OK;
}

static muon_status self_all_to_all (muon_comm *c, muon_ctx *ctx, const void *const *send,
                                    const size_t *send_counts, void *const *recv,
                                    const size_t *recv_counts, muon_dtype dtype)
{
  if (send_counts[0] > 0)
    memmove (recv[0], send[0], send_counts[0] * muon_dtype_size (dtype));
  return MUON_OK;
}

static const muon_comm_ops self_ops = {
  MUON_COMM_SELF, 1, self_reduce, self_all_gather, self_broadcast, NULL, self_all_to_all, NULL,
  NULL, NULL, MUON_DEVICE_CPU, 0   // moves no device memory: its ranks are host arrays
};

muon_status muon_comm_self_create (muon_ctx *ctx, muon_comm **comm)
{
  CHECKCTX (ctx);
  return muon_comm_alloc (ctx, &self_ops, 1, 1, 0, comm);
}
