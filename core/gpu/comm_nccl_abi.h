/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm_nccl_abi.h - the ABI between comm_nccl.c (in libmuon.a, no CUDA or NCCL headers) and
 * libmuon_nccl.so (comm_nccl_dev.c: CUDA runtime + NCCL, opened with dlopen on first use, so
 * nothing else links NCCL).  The shared object exports one symbol, muon_nccl_get_api.
 *
 * Every entry takes host buffers, staged through device buffers of its state (copy in, NCCL
 * on the state's stream, copy out, synchronize), or device buffers of the state's device,
 * used in place (each pointer is asked which it is).  Reductions are sums; the
 * caller divides for the average.  Failures return a status and write msg (len bytes).
 */
#ifndef MUON_COMM_NCCL_ABI_H
#define MUON_COMM_NCCL_ABI_H

#include "muon_base.h"
#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MUON_NCCL_ABI 2
#define MUON_NCCL_ID_BYTES 128   // NCCL_UNIQUE_ID_BYTES

typedef struct muon_nccl_api {
  int abi;
  // [out] *count CUDA devices; NODEVICE (with the runtime's text) when there is none.
  muon_status (*device_count) (int *count, char *msg, size_t len);
  // [out] id: MUON_NCCL_ID_BYTES bytes from ncclGetUniqueId (called on rank 0 only).
  muon_status (*unique_id) (void *id, char *msg, size_t len);
  // [out] *state: rank `rank` of `world` on device `device`, joined with rank 0's id.
  muon_status (*init) (void **state, int world, int rank, int device, const void *id,
                       char *msg, size_t len);
  // recv = sum over ranks of send (count elements).
  muon_status (*allreduce) (void *state, const void *send, void *recv, size_t count,
                            muon_dtype dtype, char *msg, size_t len);
  // send: W * count; recv: count, the sum of every rank's block `rank`.
  muon_status (*reduce_scatter) (void *state, const void *send, void *recv, size_t count,
                                 muon_dtype dtype, char *msg, size_t len);
  // recv: W * count, block q = rank q's send.
  muon_status (*all_gather) (void *state, const void *send, void *recv, size_t count,
                             muon_dtype dtype, char *msg, size_t len);
  // send, recv: W * count; block q of send goes to rank q, block q of recv comes from rank q.
  muon_status (*all_to_all) (void *state, const void *send, void *recv, size_t count,
                             muon_dtype dtype, char *msg, size_t len);
  // send: blocks of send_counts[q] elements for q = 0..W-1 back to back, block q to rank q;
  // recv: blocks of recv_counts[q] from rank q (the counts agree with the peers').
  muon_status (*all_to_all_v) (void *state, const void *send, const size_t *send_counts,
                               void *recv, const size_t *recv_counts, muon_dtype dtype,
                               char *msg, size_t len);
  muon_status (*broadcast) (void *state, void *buf, size_t count, muon_dtype dtype, int root,
                            char *msg, size_t len);
  muon_status (*barrier) (void *state, char *msg, size_t len);
  // Frees the NCCL communicator, stream and buffers (NULL is fine).
  void (*destroy) (void *state);
} muon_nccl_api;

// Exported by libmuon_nccl.so, a muon_plugin_entry_fn (plugin.h): [out] api, a
// muon_nccl_api.  MUON_ERR_NOTBUILT on an ABI mismatch.
muon_status muon_nccl_get_api (int abi, void *api);

#ifdef __cplusplus
}
#endif
#endif
