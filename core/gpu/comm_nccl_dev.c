/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm_nccl_dev.c - the device side of the NCCL communicator, built into libmuon_nccl.so
 * (CUDA runtime + NCCL, when nvcc and nccl.h are found) and reached only through
 * muon_nccl_get_api (comm_nccl_abi.h) after comm_nccl.c has opened it with dlopen.  Not part
 * of libmuon.a.
 *
 * One state per communicator: the NCCL communicator, the device it runs on, a non-blocking
 * stream and two device buffers grown on demand.  Every call copies a host input to the
 * device, runs the NCCL collective on the stream, copies a host result back and
 * synchronizes, so host buffers stay ordinary host memory, free to reuse on return; a
 * buffer that is device memory (the device ZeRO step's, through muon_comm_device) is used in
 * place, with no copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "comm_nccl_abi.h"

typedef struct {
  ncclComm_t comm;
  cudaStream_t stream;
  int device, rank, world;
  void *a, *b;                  // device buffers
  size_t a_bytes, b_bytes;
} dev_state;

#define CUDA_TRY(call)                                                                  \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess)                                                              \
    {                                                                                   \
      cudaGetLastError ();                                                              \
      snprintf (msg, len, "%s: %s", #call, cudaGetErrorString (e_));                    \
      return MUON_ERR_CUDA;                                                             \
    }                                                                                   \
  } while (0)

#define NCCL_TRY(call)                                                                  \
  do {                                                                                  \
    ncclResult_t r_ = (call);                                                           \
    if (r_ != ncclSuccess)                                                              \
    {                                                                                   \
      snprintf (msg, len, "%s: %s", #call, ncclGetErrorString (r_));                    \
      return MUON_ERR_NCCL;                                                             \
    }                                                                                   \
  } while (0)

// A collective's error exit, after its stage_in: this call's upload (and whatever a failed
// group had queued) may still be on the stream, reading or writing buffers the caller
// gives back on return (the device ZeRO step's pool blocks), so the stream drains first.
// A dead peer hangs this wait as it would hang stage_out's on success.
static muon_status drained (dev_state *s, muon_status st)
{
  cudaStreamSynchronize (s->stream);
  cudaGetLastError ();
  return st;
}

// NCCL_TRY for the calls after stage_in (s in scope).
#define COLL_TRY(call)                                                                  \
  do {                                                                                  \
    ncclResult_t r_ = (call);                                                           \
    if (r_ != ncclSuccess)                                                              \
    {                                                                                   \
      snprintf (msg, len, "%s: %s", #call, ncclGetErrorString (r_));                    \
      return drained (s, MUON_ERR_NCCL);                                                \
    }                                                                                   \
  } while (0)

static ncclDataType_t nccl_type (muon_dtype t) { return t == MUON_F32 ? ncclFloat32 : ncclFloat64; }
static size_t esize (muon_dtype t) { return t == MUON_F32 ? sizeof (float) : sizeof (double); }

// Grows the device buffer *p to at least `bytes`.
static muon_status grow (void **p, size_t *have, size_t bytes, char *msg, size_t len)
{
  if (bytes <= *have)
    return MUON_OK;
  if (*p)
    cudaFree (*p);
  *p = NULL;
  *have = 0;
  CUDA_TRY (cudaMalloc (p, bytes));
  *have = bytes;
  return MUON_OK;
}

// Whether p is memory of the communicator's device: a buffer there (muon_comm_device's) is
// used in place; a host one, or one on another device (a launcher that sets no local rank
// leaves the CUDA back end on the current device and NCCL on rank % devices), is staged,
// the copies' direction left to unified addressing.
static int on_device (const dev_state *s, const void *p)
{
  struct cudaPointerAttributes a;
  if (p == NULL || cudaPointerGetAttributes (&a, p) != cudaSuccess)
  {
    cudaGetLastError ();
    return 0;
  }
  return (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged)
         && a.device == s->device;
}

// The device buffers of one call, on the right device: *din = in itself when it is device
// memory, else a copy of it (in_bytes) in a; *dout = out itself when it is device memory,
// else b, sized for out_bytes (stage_out copies it back).
static muon_status stage_in (dev_state *s, const void *in, size_t in_bytes, void *out,
                             size_t out_bytes, const void **din, void **dout, char *msg,
                             size_t len)
{
  muon_status st;
  CUDA_TRY (cudaSetDevice (s->device));
  *din = in;
  *dout = out;
  if (!on_device (s, in))
  {
    if ((st = grow (&s->a, &s->a_bytes, in_bytes, msg, len)) != MUON_OK)
      return st;
    cudaError_t e = in_bytes > 0 ? cudaMemcpyAsync (s->a, in, in_bytes, cudaMemcpyDefault,
                                                    s->stream)
                                 : cudaSuccess;
    if (e != cudaSuccess)
    {
      cudaGetLastError ();
      snprintf (msg, len, "cudaMemcpyAsync (upload): %s", cudaGetErrorString (e));
      return drained (s, MUON_ERR_CUDA);
    }
    *din = s->a;
  }
  if (!on_device (s, out))
  {
    if ((st = grow (&s->b, &s->b_bytes, out_bytes, msg, len)) != MUON_OK)
      return drained (s, st);                     // the upload above may be queued
    *dout = s->b;
  }
  return MUON_OK;
}

// out (host, or another device's) <- device dout (bytes) when they differ, then waits for
// the stream.
static muon_status stage_out (dev_state *s, void *out, const void *dout, size_t bytes,
                              char *msg, size_t len)
{
  cudaError_t e = bytes > 0 && dout != out
                  ? cudaMemcpyAsync (out, dout, bytes, cudaMemcpyDefault, s->stream)
                  : cudaSuccess;
  if (e != cudaSuccess)
  {
    cudaGetLastError ();
    snprintf (msg, len, "cudaMemcpyAsync (download): %s", cudaGetErrorString (e));
    return drained (s, MUON_ERR_CUDA);
  }
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

#define STAGE(call) do { muon_status st_ = (call); if (st_ != MUON_OK) return st_; } while (0)

//---- the ABI ------------------------------------------------------------------------------

static muon_status device_count (int *count, char *msg, size_t len)
{
  int c = 0;
  *count = 0;
  cudaError_t e = cudaGetDeviceCount (&c);
  if (e != cudaSuccess)                       // no driver, no device, driver too old ...
  {
    cudaGetLastError ();
    snprintf (msg, len, "%s", cudaGetErrorString (e));
    return MUON_ERR_NODEVICE;
  }
  *count = c;
  if (c < 1)
  {
    snprintf (msg, len, "no CUDA device found");
    return MUON_ERR_NODEVICE;
  }
  return MUON_OK;
}

static muon_status unique_id (void *id, char *msg, size_t len)
{
  ncclUniqueId u;
  NCCL_TRY (ncclGetUniqueId (&u));
  memcpy (id, &u, sizeof u < MUON_NCCL_ID_BYTES ? sizeof u : MUON_NCCL_ID_BYTES);
  return MUON_OK;
}

static void destroy (void *state)
{
  dev_state *s = state;
  if (s == NULL)
    return;
  cudaSetDevice (s->device);
  if (s->comm)
    ncclCommDestroy (s->comm);
  if (s->stream)
    cudaStreamDestroy (s->stream);
  if (s->a)
    cudaFree (s->a);
  if (s->b)
    cudaFree (s->b);
  free (s);
}

static muon_status init (void **state, int world, int rank, int device, const void *id,
                         char *msg, size_t len)
{
  dev_state *s = calloc (1, sizeof *s);
  muon_status st = MUON_OK;
  *state = NULL;
  if (s == NULL)
  {
    snprintf (msg, len, "out of memory");
    return MUON_ERR_NOMEM;
  }
  s->device = device;
  s->rank = rank;
  s->world = world;
  ncclUniqueId u;
  memcpy (&u, id, sizeof u);
  cudaError_t e = cudaSetDevice (device);
  if (e == cudaSuccess)
    e = cudaStreamCreateWithFlags (&s->stream, cudaStreamNonBlocking);
  if (e != cudaSuccess)
  {
    cudaGetLastError ();
    snprintf (msg, len, "device %d: %s", device, cudaGetErrorString (e));
    st = MUON_ERR_CUDA;
  }
  else
  {
    ncclResult_t r = ncclCommInitRank (&s->comm, world, u, rank);
    if (r != ncclSuccess)
    {
      s->comm = NULL;
      snprintf (msg, len, "ncclCommInitRank (rank %d of %d, device %d): %s", rank, world,
                device, ncclGetErrorString (r));
      st = MUON_ERR_NCCL;
    }
  }
  if (st != MUON_OK)
    destroy (s);
  else
    *state = s;
  return st;
}

static muon_status allreduce (void *state, const void *send, void *recv, size_t count,
                              muon_dtype dtype, char *msg, size_t len)
{
  dev_state *s = state;
  size_t n = count * esize (dtype);
  const void *in;
  void *out;
  STAGE (stage_in (s, send, n, recv, n, &in, &out, msg, len));
  COLL_TRY (ncclAllReduce (in, out, count, nccl_type (dtype), ncclSum, s->comm, s->stream));
  return stage_out (s, recv, out, n, msg, len);
}

static muon_status reduce_scatter (void *state, const void *send, void *recv, size_t count,
                                   muon_dtype dtype, char *msg, size_t len)
{
  dev_state *s = state;
  size_t n = count * esize (dtype);
  const void *in;
  void *out;
  STAGE (stage_in (s, send, (size_t) s->world * n, recv, n, &in, &out, msg, len));
  COLL_TRY (ncclReduceScatter (in, out, count, nccl_type (dtype), ncclSum, s->comm,
                               s->stream));
  return stage_out (s, recv, out, n, msg, len);
}

static muon_status all_gather (void *state, const void *send, void *recv, size_t count,
                               muon_dtype dtype, char *msg, size_t len)
{
  dev_state *s = state;
  size_t n = count * esize (dtype);
  const void *in;
  void *out;
  STAGE (stage_in (s, send, n, recv, (size_t) s->world * n, &in, &out, msg, len));
  COLL_TRY (ncclAllGather (in, out, count, nccl_type (dtype), s->comm, s->stream));
  return stage_out (s, recv, out, (size_t) s->world * n, msg, len);
}

static muon_status all_to_all (void *state, const void *send, void *recv, size_t count,
                               muon_dtype dtype, char *msg, size_t len)
{
  dev_state *s = state;
  size_t n = count * esize (dtype), total = (size_t) s->world * n;
  const void *in;
  void *out;
  STAGE (stage_in (s, send, total, recv, total, &in, &out, msg, len));
  COLL_TRY (ncclGroupStart ());
  for (int q = 0; q < s->world; q++)
  {
    ncclResult_t r = ncclSend ((const char *) in + (size_t) q * n, count, nccl_type (dtype),
                               q, s->comm, s->stream);
    if (r == ncclSuccess)
      r = ncclRecv ((char *) out + (size_t) q * n, count, nccl_type (dtype), q, s->comm,
                    s->stream);
    if (r != ncclSuccess)
    {
      ncclGroupEnd ();
      snprintf (msg, len, "ncclSend/ncclRecv with rank %d: %s", q, ncclGetErrorString (r));
      return drained (s, MUON_ERR_NCCL);
    }
  }
  COLL_TRY (ncclGroupEnd ());
  return stage_out (s, recv, out, total, msg, len);
}

static muon_status all_to_all_v (void *state, const void *send, const size_t *send_counts,
                                 void *recv, const size_t *recv_counts, muon_dtype dtype,
                                 char *msg, size_t len)
{
  dev_state *s = state;
  size_t e = esize (dtype), ns = 0, nr = 0;
  for (int q = 0; q < s->world; q++)
  {
    ns += send_counts[q];
    nr += recv_counts[q];
  }
  const void *in;
  void *out;
  STAGE (stage_in (s, send, ns * e, recv, nr * e, &in, &out, msg, len));
  COLL_TRY (ncclGroupStart ());
  size_t so = 0, ro = 0;
  for (int q = 0; q < s->world; q++)
  {
    ncclResult_t r = ncclSuccess;
    if (send_counts[q] > 0)
      r = ncclSend ((const char *) in + so * e, send_counts[q], nccl_type (dtype), q,
                    s->comm, s->stream);
    if (r == ncclSuccess && recv_counts[q] > 0)
      r = ncclRecv ((char *) out + ro * e, recv_counts[q], nccl_type (dtype), q, s->comm,
                    s->stream);
    if (r != ncclSuccess)
    {
      ncclGroupEnd ();
      snprintf (msg, len, "ncclSend/ncclRecv with rank %d: %s", q, ncclGetErrorString (r));
      return drained (s, MUON_ERR_NCCL);
    }
    so += send_counts[q];
    ro += recv_counts[q];
  }
  COLL_TRY (ncclGroupEnd ());
  return stage_out (s, recv, out, nr * e, msg, len);
}

static muon_status broadcast (void *state, void *buf, size_t count, muon_dtype dtype, int root,
                              char *msg, size_t len)
{
  dev_state *s = state;
  size_t n = count * esize (dtype);
  const void *in;
  void *out;
  STAGE (stage_in (s, buf, n, buf, n, &in, &out, msg, len));
  COLL_TRY (ncclBroadcast (in, out, count, nccl_type (dtype), root, s->comm, s->stream));
  return stage_out (s, buf, out, n, msg, len);
}

// NCCL has no barrier: a one-element all-reduce that every rank must join, then a sync.
static muon_status barrier (void *state, char *msg, size_t len)
{
  dev_state *s = state;
  float one = 1.0f, out = 0.0f;
  return allreduce (s, &one, &out, 1, MUON_F32, msg, len);
}

__attribute__ ((visibility ("default")))
muon_status muon_nccl_get_api (int abi, void *table)
{
  muon_nccl_api *api = table;
  if (api == NULL || abi != MUON_NCCL_ABI)
    return MUON_ERR_NOTBUILT;
  memset (api, 0, sizeof *api);
  api->abi = MUON_NCCL_ABI;
  api->device_count = device_count;
  api->unique_id = unique_id;
  api->init = init;
  api->allreduce = allreduce;
  api->reduce_scatter = reduce_scatter;
  api->all_gather = all_gather;
  api->all_to_all = all_to_all;
  api->all_to_all_v = all_to_all_v;
  api->broadcast = broadcast;
  api->barrier = barrier;
  api->destroy = destroy;
  return MUON_OK;
}
