// Copyright (C) 2026 muonlab developers
// SPDX-License-Identifier: GPL-3.0-or-later

// nccl_mock.cc - a host stand-in for the NCCL calls of core/gpu/comm_nccl_dev.c, for
// `make check-gpu-mock` (tests/gpu_mock/test_nccl_mock.c) on machines without a GPU or NCCL.
// Built into libmuon_nccl_mockrt.so on top of cuda_mock.cc's runtime (libmuon_cuda_mockrt.so).
//
// What it is: one rank (world 1, rank 0; anything else is ncclInvalidArgument), so every
// reduction is a sum over one rank: ncclAllReduce, ncclReduceScatter, ncclAllGather and
// ncclBroadcast (root 0) copy count elements from send to recv, and a group's ncclSend /
// ncclRecv pairs (peer 0, matched in order, counts and types equal) copy each send into its
// recv at ncclGroupEnd.  Like a real collective, the copy is only queued on the call's
// stream (cuda_mock.cc's lazy streams, through mock_enqueue_copy) and runs when the stream
// is synchronized.  Buffers must be device memory of the mock (cudaMalloc's), else
// ncclInvalidArgument, as NCCL without registered host buffers.  ncclSend / ncclRecv outside a group are ncclInvalidUsage (a rank
// sending to itself alone would hang).
// Failures: every call except ncclCommDestroy and ncclGetErrorString is counted by
// cuda_mock.cc's mock_tick (MOCK_FAIL_AT, mock_fail_at) and fails with ncclInternalError
// when picked; a failing ncclGroupEnd still queues the group's copies first, as a group
// that failed part way may have launched work.
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>
#include <cuda_runtime.h>
#include <nccl.h>

extern "C" int mock_tick (const char *who);
extern "C" int mock_is_device (const void *p);
extern "C" void mock_enqueue_copy (cudaStream_t s, void *d, const void *src, size_t n);

struct ncclComm { int world, rank; };

static size_t tsize (ncclDataType_t t)
{
  switch (t)
  {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
  }
}

struct p2p
{
  bool send;
  const void *sbuf;
  void *rbuf;
  size_t count;
  ncclDataType_t t;
  cudaStream_t s;
};
static int depth = 0;
static std::vector<p2p> pending;

static ncclResult_t check (const void *a, const void *b, size_t count, ncclDataType_t t,
                           ncclComm_t c)
{
  if (c == NULL || tsize (t) == 0) return ncclInvalidArgument;
  if (count > 0 && ((a && !mock_is_device (a)) || (b && !mock_is_device (b))))
    return ncclInvalidArgument;
  return ncclSuccess;
}

extern "C" {
ncclResult_t ncclGetUniqueId (ncclUniqueId *id)
{
  if (mock_tick (__func__)) return ncclInternalError;
  memset (id, 0, sizeof *id);
  strcpy (id->internal, "nccl-mock");
  return ncclSuccess;
}
ncclResult_t ncclCommInitRank (ncclComm_t *comm, int nranks, ncclUniqueId, int rank)
{
  if (mock_tick (__func__)) return ncclInternalError;
  if (nranks != 1 || rank != 0) return ncclInvalidArgument;
  *comm = (ncclComm_t) calloc (1, sizeof (struct ncclComm));
  (*comm)->world = 1;
  return ncclSuccess;
}
ncclResult_t ncclCommDestroy (ncclComm_t comm) { free (comm); return ncclSuccess; }
const char *ncclGetErrorString (ncclResult_t r)
{
  switch (r)
  {
    case ncclSuccess: return "no error";
    case ncclInternalError: return "internal error (mock: injected failure)";
    case ncclInvalidArgument: return "invalid argument (mock)";
    case ncclInvalidUsage: return "invalid usage (mock)";
    default: return "mock NCCL error";
  }
}
static ncclResult_t copy (const char *who, const void *send, void *recv, size_t count,
                          ncclDataType_t t, ncclComm_t c, cudaStream_t s)
{
  if (mock_tick (who)) return ncclInternalError;
  ncclResult_t r = check (send, recv, count, t, c);
  if (r != ncclSuccess) return r;
  if (send != recv) mock_enqueue_copy (s, recv, send, count * tsize (t));
  return ncclSuccess;
}
ncclResult_t ncclAllReduce (const void *send, void *recv, size_t count, ncclDataType_t t,
                            ncclRedOp_t op, ncclComm_t c, cudaStream_t s)
{
  if (op != ncclSum && op != ncclMax && op != ncclMin && op != ncclProd && op != ncclAvg)
    return ncclInvalidArgument;
  return copy (__func__, send, recv, count, t, c, s);
}
ncclResult_t ncclReduceScatter (const void *send, void *recv, size_t count, ncclDataType_t t,
                                ncclRedOp_t, ncclComm_t c, cudaStream_t s)
{
  return copy (__func__, send, recv, count, t, c, s);
}
ncclResult_t ncclAllGather (const void *send, void *recv, size_t count, ncclDataType_t t,
                            ncclComm_t c, cudaStream_t s)
{
  return copy (__func__, send, recv, count, t, c, s);
}
ncclResult_t ncclBroadcast (const void *send, void *recv, size_t count, ncclDataType_t t,
                            int root, ncclComm_t c, cudaStream_t s)
{
  if (root != 0) return ncclInvalidArgument;
  return copy (__func__, send, recv, count, t, c, s);
}
ncclResult_t ncclGroupStart (void)
{
  if (mock_tick (__func__)) return ncclInternalError;
  depth++;
  return ncclSuccess;
}
static ncclResult_t p2p_add (const char *who, bool send, const void *sb, void *rb, size_t count,
                             ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t s)
{
  if (mock_tick (who)) return ncclInternalError;
  ncclResult_t r = check (sb, rb, count, t, c);
  if (r != ncclSuccess) return r;
  if (peer != 0) return ncclInvalidArgument;
  if (depth == 0) return ncclInvalidUsage;
  pending.push_back (p2p {send, sb, rb, count, t, s});
  return ncclSuccess;
}
ncclResult_t ncclSend (const void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t c,
                       cudaStream_t s)
{
  return p2p_add (__func__, true, buf, NULL, count, t, peer, c, s);
}
ncclResult_t ncclRecv (void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t c,
                       cudaStream_t s)
{
  return p2p_add (__func__, false, NULL, buf, count, t, peer, c, s);
}
ncclResult_t ncclGroupEnd (void)
{
  if (depth == 0) return ncclInvalidUsage;
  if (--depth > 0) return ncclSuccess;
  std::vector<p2p> sends, recvs;
  for (auto &p : pending) (p.send ? sends : recvs).push_back (p);
  pending.clear ();
  ncclResult_t r = sends.size () == recvs.size () ? ncclSuccess : ncclInvalidUsage;
  for (size_t i = 0; r == ncclSuccess && i < sends.size (); i++)
    if (sends[i].count != recvs[i].count || sends[i].t != recvs[i].t) r = ncclInvalidUsage;
  if (r != ncclSuccess) return r;
  for (size_t i = 0; i < sends.size (); i++)
    mock_enqueue_copy (recvs[i].s, recvs[i].rbuf, sends[i].sbuf,
                       sends[i].count * tsize (sends[i].t));
  return mock_tick (__func__) ? ncclInternalError : ncclSuccess;
}
}
