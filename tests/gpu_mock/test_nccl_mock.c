/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_nccl_mock.c - libmuon_nccl.so (core/gpu/comm_nccl_dev.c) built against the host
 * stand-ins of the CUDA runtime (cuda_mock.cc, lazy streams) and NCCL (nccl_mock.cc, one
 * rank), run by `make check-gpu-mock` with no GPU and no NCCL.
 *
 * 1. Every collective of the ABI (comm_nccl_abi.h), F64 and F32, on host buffers and on
 *    mock-device buffers: world 1, so the result is the plain sum over one rank, out = in
 *    (recv is filled with a sentinel first), and nothing is left queued on the stream.
 * 2. For each collective and each kind of buffer, a sweep over every counted CUDA and NCCL
 *    call the collective makes on a fresh state (so the device buffers' first allocation is
 *    among them): the k-th fails, and then the status is MUON_ERR_CUDA for a CUDA call and
 *    MUON_ERR_NCCL for an NCCL call (cudaPointerGetAttributes failing is not an error: the
 *    buffer is staged as host memory, so the result must be right), a message is set,
 *    nothing is pending on the stream at return (a queued upload would still read the
 *    caller's buffer), and the next call on the same state succeeds with the right result.
 * 3. The same sweep over init's and unique_id's calls: the status, a message, no state.
 * Prints "test_nccl_mock: N passed, N failed" (harness.h); with MUON_RESULTS set it writes
 * "gpu-mock N M" there, a line of make check's gpu-mock layer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "harness.h"
#include "comm_nccl_abi.h"

// cuda_mock.cc's control functions
void mock_fail_at (long k);
long mock_calls (void);
const char *mock_last_hit (void);
void mock_count_all (int on);
long mock_pending (void);

enum { ALLREDUCE, REDUCE_SCATTER, ALL_GATHER, ALL_TO_ALL, ALL_TO_ALL_V, BROADCAST, BARRIER,
       NOPS };
static const char *op_name[NOPS] = { "allreduce", "reduce_scatter", "all_gather",
                                     "all_to_all", "all_to_all_v", "broadcast", "barrier" };
#define N 37                        // elements per call

static muon_nccl_api api;
static char id[MUON_NCCL_ID_BYTES];

// The inputs and outputs of one call: host or mock-device (cudaMalloc'd, host-addressable in
// the mock) memory.
typedef struct { void *in, *out; int device; } bufs;

static void *get (size_t bytes, int device)
{
  void *p = NULL;
  if (device)
  {
    if (cudaMalloc (&p, bytes) != cudaSuccess)
      p = NULL;
  }
  else
    p = malloc (bytes);
  return p;
}
static void put (void *p, int device) { if (device) cudaFree (p); else free (p); }

static double value (size_t i) { return 0.25 * (double) i - 3.0; }

static void fill (bufs *b, muon_dtype t)
{
  for (size_t i = 0; i < N; i++)
    if (t == MUON_F64)
    {
      ((double *) b->in)[i] = value (i);
      ((double *) b->out)[i] = -999.0;
    }
    else
    {
      ((float *) b->in)[i] = (float) value (i);
      ((float *) b->out)[i] = -999.0f;
    }
}

// out == in, element by element (world 1: the sum over one rank); broadcast works in place on
// in, which must be unchanged.
static int right (const bufs *b, int op, muon_dtype t)
{
  if (op == BARRIER)
    return 1;
  const void *r = op == BROADCAST ? b->in : b->out;
  for (size_t i = 0; i < N; i++)
    if (t == MUON_F64 ? ((const double *) r)[i] != value (i)
                      : ((const float *) r)[i] != (float) value (i))
      return 0;
  return 1;
}

static muon_status call (void *s, int op, bufs *b, muon_dtype t, char *msg, size_t len)
{
  size_t counts[1] = { N };
  switch (op)
  {
    case ALLREDUCE: return api.allreduce (s, b->in, b->out, N, t, msg, len);
    case REDUCE_SCATTER: return api.reduce_scatter (s, b->in, b->out, N, t, msg, len);
    case ALL_GATHER: return api.all_gather (s, b->in, b->out, N, t, msg, len);
    case ALL_TO_ALL: return api.all_to_all (s, b->in, b->out, N, t, msg, len);
    case ALL_TO_ALL_V: return api.all_to_all_v (s, b->in, counts, b->out, counts, t, msg, len);
    case BROADCAST: return api.broadcast (s, b->in, N, t, 0, msg, len);
    default: return api.barrier (s, msg, len);
  }
}

static void *new_state (void)
{
  char msg[256] = "";
  void *s = NULL;
  mock_fail_at (0);
  muon_status st = api.init (&s, 1, 0, 0, id, msg, sizeof msg);
  T_ASSERT_MSG (st == MUON_OK && s != NULL, "init: status %d (%s)", (int) st, msg);
  return s;
}


// 1: every collective, both types, host and device buffers, on one state
static void results (void)
{
  void *s = new_state ();
  for (int device = 0; device < 2; device++)
    for (int ti = 0; ti < 2; ti++)
      for (int op = 0; op < NOPS; op++)
      {
        muon_dtype t = ti ? MUON_F32 : MUON_F64;
        char what[128], msg[256] = "";
        snprintf (what, sizeof what, "%s %s on %s buffers", op_name[op], ti ? "F32" : "F64",
                  device ? "device" : "host");
        t_case_begin ();
        bufs b = { get (N * 8, device), get (N * 8, device), device };
        fill (&b, t);
        muon_status st = call (s, op, &b, t, msg, sizeof msg);
        T_ASSERT_MSG (st == MUON_OK, "%s: status %d (%s)", what, (int) st, msg);
        T_ASSERT_MSG (right (&b, op, t), "%s: out is not in", what);
        T_ASSERT_MSG (mock_pending () == 0, "%s: %ld operations pending at return", what,
                      mock_pending ());
        put (b.in, device);
        put (b.out, device);
        t_case_end (what);
      }
  api.destroy (s);
}

static muon_status expected (const char *hit)
{
  if (strcmp (hit, "cudaPointerGetAttributes") == 0)
    return MUON_OK;
  return strncmp (hit, "nccl", 4) == 0 ? MUON_ERR_NCCL : MUON_ERR_CUDA;
}

// 2: the failure sweep of one collective
static void sweep (int op, int device)
{
  muon_dtype t = MUON_F64;
  bufs b = { get (N * 8, device), get (N * 8, device), device };
  char what[160], msg[256];
  // the calls of one clean call on a fresh state
  void *s = new_state ();
  fill (&b, t);
  mock_fail_at (0);
  muon_status st = call (s, op, &b, t, msg, sizeof msg);
  long calls = mock_calls ();
  api.destroy (s);
  snprintf (what, sizeof what, "sweep %s on %s buffers: a clean call (%ld calls)", op_name[op],
            device ? "device" : "host", calls);
  t_case_begin ();
  T_ASSERT_MSG (st == MUON_OK && right (&b, op, t) && calls > 0, "%s", what);
  t_case_end (what);
  for (long k = 1; k <= calls; k++)
  {
    s = new_state ();
    fill (&b, t);
    msg[0] = '\0';
    mock_fail_at (k);
    st = call (s, op, &b, t, msg, sizeof msg);
    long pending = mock_pending ();
    char hit[64];
    snprintf (hit, sizeof hit, "%s", mock_last_hit ());
    snprintf (what, sizeof what, "sweep %s on %s buffers: call %ld of %ld (%s) fails",
              op_name[op], device ? "device" : "host", k, calls, hit);
    t_case_begin ();
    T_ASSERT_MSG (hit[0] != '\0', "%s: no call failed", what);
    muon_status want = expected (hit);
    T_ASSERT_MSG (st == want, "%s: status %d, want %d (%s)", what, (int) st, (int) want, msg);
    if (want != MUON_OK)
      T_ASSERT_MSG (msg[0] != '\0', "%s: no message", what);
    else
      T_ASSERT_MSG (right (&b, op, t), "%s: a tolerated failure gave a wrong result", what);
    T_ASSERT_MSG (pending == 0, "%s: %ld operations still queued on the stream at return",
                  what, pending);
    // the next call on the same state
    mock_fail_at (0);
    fill (&b, t);
    msg[0] = '\0';
    st = call (s, op, &b, t, msg, sizeof msg);
    T_ASSERT_MSG (st == MUON_OK, "%s: the next call: status %d (%s)", what, (int) st, msg);
    T_ASSERT_MSG (right (&b, op, t), "%s: the next call's result is wrong", what);
    T_ASSERT_MSG (mock_pending () == 0, "%s: the next call left work queued", what);
    t_case_end (what);
    api.destroy (s);
  }
  put (b.in, device);
  put (b.out, device);
}

// 3: init's and unique_id's calls failing in turn
static void setup_sweep (void)
{
  char msg[256], what[128];
  void *s = NULL;
  mock_fail_at (0);
  muon_status st = api.init (&s, 1, 0, 0, id, msg, sizeof msg);
  long calls = mock_calls ();
  api.destroy (s);
  for (long k = 1; k <= calls; k++)
  {
    s = (void *) &s;
    msg[0] = '\0';
    mock_fail_at (k);
    st = api.init (&s, 1, 0, 0, id, msg, sizeof msg);
    const char *hit = mock_last_hit ();
    snprintf (what, sizeof what, "init: call %ld of %ld (%s) fails", k, calls, hit);
    t_case_begin ();
    T_ASSERT_MSG (st == expected (hit) && st != MUON_OK && msg[0] && s == NULL,
                  "%s: status %d, msg \"%s\"", what, (int) st, msg);
    t_case_end (what);
  }
  char other[MUON_NCCL_ID_BYTES];
  msg[0] = '\0';
  mock_fail_at (1);
  st = api.unique_id (other, msg, sizeof msg);
  t_case_begin ();
  T_ASSERT_MSG (st == MUON_ERR_NCCL && msg[0], "unique_id failing: status %d", (int) st);
  t_case_end ("unique_id: ncclGetUniqueId fails");
  mock_fail_at (0);
}

int main (int argc, char **argv)
{
  char msg[256] = "";
  int count = 0;
  if (muon_nccl_get_api (MUON_NCCL_ABI, &api) != MUON_OK
      || api.device_count (&count, msg, sizeof msg) != MUON_OK
      || api.unique_id (id, msg, sizeof msg) != MUON_OK)
  {
    printf ("test_nccl_mock: the plug-in does not start: %s\n", msg);
    return 1;
  }
  mock_count_all (1);                          // cudaSetDevice and friends can fail too
  results ();
  for (int op = 0; op < NOPS; op++)
    for (int device = 0; device < 2; device++)
      sweep (op, device);
  setup_sweep ();
  return t_done_results (argv[0], "gpu-mock");
}
