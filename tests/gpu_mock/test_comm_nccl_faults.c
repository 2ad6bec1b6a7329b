/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_comm_nccl_faults.c - the core's NCCL communicator (core/comm/comm_nccl.c, in
 * libmuon.a) through the public API (muon_comm.h) where it fails (split from
 * test_comm_nccl_core.c: creation, the collectives against sim, device memory), over
 * libmuon_nccl.so built against the host stand-ins of the CUDA runtime (cuda_mock.cc) and
 * NCCL (nccl_mock.cc, one rank), found with MUON_NCCL_LIB.  Run by `make check-gpu-mock`
 * with no GPU and no NCCL; the helpers it shares with test_comm_nccl_core.c:
 * comm_nccl_core.h.
 *
 * 1. Errors without a GPU: the plug-in missing (MUON_NCCL_LIB=/nonexistent: NOTBUILT naming
 *    the file), a library that is not the plug-in (libm.so.6: NOTBUILT "libm.so.6 does not
 *    provide ..."), no device (MOCK_DEVICES=0, and cudaGetDeviceCount failing: NODEVICE),
 *    MUON_NCCL_LIB empty (the plug-in beside this binary, plugin.c's second place), bad
 *    arguments (NULL pointers, unknown reductions, a bootstrap of two local ranks, bad
 *    counts, roots, types and collectives) with comm_nccl.c's / comm_coll.c's statuses.
 * 2. Every counted CUDA / NCCL call of muon_comm_nccl_create and of each collective failing
 *    in turn (cuda_mock.cc's mock_fail_at): MUON_ERR_CUDA for a CUDA call, MUON_ERR_NCCL
 *    for an NCCL call (a failing cudaPointerGetAttributes is tolerated: the buffer is staged
 *    as host memory), a message "nccl: ...", no communicator from a failed create, nothing
 *    queued on a stream, and the next call on the same communicator right.  Each failing
 *    collective runs on a fresh communicator, so its first allocations are swept too.
 * Prints "test_comm_nccl_faults: N passed, N failed" (harness.h); with MUON_RESULTS set it
 * writes "gpu-mock N M" there, a line of make check's gpu-mock layer.
 */
#define _POSIX_C_SOURCE 200809L
#include "comm_nccl_core.h"

//---- 1. errors without a GPU ----------------------------------------------------------------

// muon_comm_nccl_create fails with want and a message containing part; *comm is NULL.
static void create_fails (muon_comm *boot, int library, muon_status want, const char *part,
                          const char *what)
{
  case_begin (what);
  muon_comm *c = (muon_comm *) &c;
  muon_status st = muon_comm_nccl_create (ctx, boot, library, &c);
  T_ASSERT_MSG (st == want, "%s: status %d, want %d (%s)", what, (int) st, (int) want, msg ());
  T_ASSERT_MSG (has (msg (), part), "%s: message \"%s\" lacks \"%s\"", what, msg (), part);
  T_ASSERT_MSG (c == NULL, "%s: *comm not NULL", what);
  if (st == MUON_OK)
    muon_comm_destroy (&c);
  case_end ();
}

static void errors (void)
{
  muon_comm *self = NULL, *sim2 = NULL, *s = sim ();
  muon_comm_self_create (ctx, &self);
  muon_comm_sim_create (ctx, 2, &sim2);
  char want[512];

  // the plug-in missing
  use_plugin ("/nonexistent/libmuon_nccl.so");
  create_fails (NULL, 0, MUON_ERR_NOTBUILT,
                "nccl: the NCCL communicator is not built or cannot be loaded (",
                "MUON_NCCL_LIB=/nonexistent: NOTBUILT, not built");
  create_fails (self, 1, MUON_ERR_NOTBUILT, "/nonexistent/libmuon_nccl.so",
                "MUON_NCCL_LIB=/nonexistent, self bootstrap: NOTBUILT naming the file");
  // checked before anything is loaded: BADARG even without the plug-in
  create_fails (NULL, 2, MUON_ERR_BADARG, "unknown reduction 2",
                "reduction 2 without the plug-in: BADARG before loading");

  // a library that is not the plug-in
  use_plugin ("libm.so.6");
  snprintf (want, sizeof want, "nccl: libm.so.6 does not provide the NCCL communicator ABI %d",
            2);
  create_fails (NULL, 0, MUON_ERR_NOTBUILT, want,
                "MUON_NCCL_LIB=libm.so.6: NOTBUILT \"does not provide\"");
  case_begin ("MUON_NCCL_LIB=libm.so.6: the whole message");
  T_EQ_STR (msg (), want);
  case_end ();

  // MUON_NCCL_LIB empty: libmuon_nccl.so beside this binary (build/gpu_mock/)
  use_plugin ("");
  case_begin ("MUON_NCCL_LIB empty: the plug-in beside the binary");
  {
    muon_comm *c = nccl (NULL, 0);
    T_EQ_STR (muon_comm_name (c), "nccl");
    muon_comm_destroy (&c);
  }
  case_end ();
  use_plugin (plugin);

  // no device: the mock's cudaGetDeviceCount finds none, or fails
  setenv ("MOCK_DEVICES", "0", 1);
  create_fails (NULL, 0, MUON_ERR_NODEVICE, "nccl: no CUDA device (no CUDA device found)",
                "no device (MOCK_DEVICES=0): NODEVICE");
  setenv ("MOCK_DEVICES", "-1", 1);
  create_fails (self, 0, MUON_ERR_NODEVICE, "nccl: no CUDA device (",
                "cudaGetDeviceCount failing (MOCK_DEVICES=-1): NODEVICE");
  setenv ("MOCK_DEVICES", "3", 1);   // this process's rank 0 on device 0 of 3
  case_begin ("three devices: created");
  {
    muon_comm *c = nccl (NULL, 0);
    muon_comm_destroy (&c);
  }
  case_end ();
  unsetenv ("MOCK_DEVICES");

  // bad arguments of create
  case_begin ("create: NULL context and NULL output");
  {
    muon_comm *c = NULL;
    T_EQ_INT (muon_comm_nccl_create (NULL, NULL, 0, &c), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_comm_nccl_create (ctx, NULL, 0, NULL), MUON_ERR_NULLPTR);
    T_EQ_STR (msg (), "communicator pointer must not be NULL");
  }
  case_end ();
  create_fails (NULL, -1, MUON_ERR_BADARG, "unknown reduction -1", "create: reduction -1");
  snprintf (want, sizeof want, "nccl: the bootstrap communicator must drive one rank per "
            "process (mpi or self), not 2");
  create_fails (sim2, 0, MUON_ERR_BADARG, want, "create: a sim(2) bootstrap");

  // bad arguments of the collectives: the statuses of sim's, and the same messages
  muon_comm *c = nccl (NULL, 0);
  double a[8] = { 0 }, b[8] = { 0 };
  const void *send[1] = { a }, *nsend[1] = { NULL };
  void *recv[1] = { b }, *nrecv[1] = { NULL };
  size_t c4[1] = { 4 }, c3[1] = { 3 };
  muon_comm *both[2] = { c, s };
  const char *bname[2] = { "nccl", "sim" };
  for (int k = 0; k < 2; k++)
  {
    char what[96];
    snprintf (what, sizeof what, "bad arguments of the collectives on %s", bname[k]);
    case_begin (what);
    muon_comm *x = both[k];
    T_EQ_INT (muon_comm_allreduce (NULL, x, send, recv, 4, MUON_F64, MUON_REDUCE_SUM),
              MUON_ERR_NULLPTR);
    T_EQ_INT (muon_comm_allreduce (ctx, NULL, send, recv, 4, MUON_F64, MUON_REDUCE_SUM),
              MUON_ERR_NULLPTR);
    T_EQ_INT (muon_comm_allreduce (ctx, x, NULL, recv, 4, MUON_F64, MUON_REDUCE_SUM),
              MUON_ERR_NULLPTR);
    T_EQ_INT (muon_comm_allreduce (ctx, x, nsend, recv, 4, MUON_F64, MUON_REDUCE_SUM),
              MUON_ERR_NULLPTR);
    T_EQ_STR (msg (), "allreduce: send buffer of rank 0 is NULL");
    T_EQ_INT (muon_comm_allreduce (ctx, x, send, nrecv, 4, MUON_F64, MUON_REDUCE_SUM),
              MUON_ERR_NULLPTR);
    T_EQ_INT (muon_comm_allreduce (ctx, x, send, recv, 4, (muon_dtype) 9, MUON_REDUCE_SUM),
              MUON_ERR_BADTYPE);
    T_EQ_INT (muon_comm_allreduce (ctx, x, send, recv, 4, MUON_F64, (muon_reduce_op) 5),
              MUON_ERR_BADARG);
    T_EQ_STR (msg (), "allreduce: unknown reduction 5");
    T_EQ_INT (muon_comm_reduce_scatter (ctx, x, send, recv, (size_t) -1 / 4, MUON_F64,
                                        MUON_REDUCE_SUM), MUON_ERR_BADSHAPE);
    T_EQ_INT (muon_comm_all_gather (ctx, x, send, NULL, 4, MUON_F32), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_comm_broadcast (ctx, x, recv, 4, MUON_F64, 1), MUON_ERR_BADARG);
    T_EQ_STR (msg (), "broadcast: root 1 out of range (world 1)");
    T_EQ_INT (muon_comm_broadcast (ctx, x, recv, 4, MUON_F64, -1), MUON_ERR_BADARG);
    T_EQ_INT (muon_comm_barrier (ctx, NULL), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_comm_all_to_all (ctx, x, send, c4, recv, c3, MUON_F64), MUON_ERR_BADARG);
    T_EQ_STR (msg (), "all_to_all: rank 0 expects 3 elements from rank 0, which sends it 4");
    T_EQ_INT (muon_comm_all_to_all (ctx, x, send, NULL, recv, c4, MUON_F64), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_comm_all_to_all (ctx, x, nsend, c4, recv, c4, MUON_F64), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_comm_all_to_all (ctx, x, send, c4, recv, c4, (muon_dtype) 9),
              MUON_ERR_BADTYPE);
    muon_comm_counters k0;
    T_EQ_INT (muon_comm_counters_get (ctx, x, 1, &k0), MUON_ERR_BADARG);
    T_EQ_INT (muon_comm_counters_get (ctx, x, 0, NULL), MUON_ERR_NULLPTR);
    case_end ();
  }
  case_begin ("bad arguments: counters as sim's afterwards");
  T_ASSERT (same_counters (c, s));
  case_end ();
  muon_comm_destroy (&c);
  muon_comm_destroy (&s);
  muon_comm_destroy (&self);
  muon_comm_destroy (&sim2);
}

//---- 2. CUDA and NCCL calls failing ---------------------------------------------------------

static muon_status expected (const char *hit)
{
  if (strcmp (hit, "cudaPointerGetAttributes") == 0)
    return MUON_OK;
  return strncmp (hit, "nccl", 4) == 0 ? MUON_ERR_NCCL : MUON_ERR_CUDA;
}

static void create_sweep (void)
{
  muon_comm *self = NULL;
  muon_comm_self_create (ctx, &self);
  for (int b = 0; b < 2; b++)
  {
    muon_comm *boot = b ? self : NULL, *c = NULL;
    mock_fail_at (0);
    muon_status st = muon_comm_nccl_create (ctx, boot, 0, &c);
    long calls = mock_calls ();
    muon_comm_destroy (&c);
    char what[192];
    snprintf (what, sizeof what, "create (%s bootstrap): a clean create (%ld calls)",
              b ? "self" : "NULL", calls);
    case_begin (what);
    T_ASSERT_MSG (st == MUON_OK && calls > 0, "%s: status %d", what, (int) st);
    case_end ();
    for (long k = 1; k <= calls; k++)
    {
      c = (muon_comm *) &c;
      mock_fail_at (k);
      st = muon_comm_nccl_create (ctx, boot, k & 1, &c);
      char hit[64];
      snprintf (hit, sizeof hit, "%s", mock_last_hit ());
      mock_fail_at (0);
      snprintf (what, sizeof what, "create (%s bootstrap): call %ld of %ld (%s) fails",
                b ? "self" : "NULL", k, calls, hit);
      case_begin (what);
      T_ASSERT_MSG (hit[0] != '\0', "%s: no call failed", what);
      muon_status want = expected (hit);
      T_ASSERT_MSG (st == want && st != MUON_OK, "%s: status %d, want %d (%s)", what, (int) st,
                    (int) want, msg ());
      T_ASSERT_MSG (c == NULL, "%s: a communicator from a failed create", what);
      T_ASSERT_MSG (has (msg (), "nccl: ") && strlen (msg ()) > 8, "%s: message \"%s\"", what,
                    msg ());
      if (strcmp (hit, "ncclGetUniqueId") == 0)
        T_ASSERT_MSG (has (msg (), "nccl: rank 0 could not make the unique id: "),
                      "%s: message \"%s\"", what, msg ());
      T_ASSERT_MSG (mock_pending () == 0, "%s: work left queued", what);
      // the next create works
      muon_comm *d = nccl (boot, 0);
      muon_comm_destroy (&d);
      case_end ();
    }
  }
  muon_comm_destroy (&self);
}

// The calls of the sweep below: a public collective (0..NOPS-1) or a device transfer.
enum { DEV_ALLREDUCE = NOPS, DEV_ALL_TO_ALL, NSWEEP };

static muon_status sweep_call (muon_comm *c, int op, char *buf, void *dbuf, size_t n,
                               muon_reduce_op rop)
{
  size_t counts[1] = { n };
  if (op == DEV_ALLREDUCE)
    return muon_comm_device (ctx, c, MUON_DEVICE_CUDA, MUON_COLL_ALLREDUCE, dbuf,
                             (double *) dbuf + n, n, MUON_F64);
  if (op == DEV_ALL_TO_ALL)
    return muon_comm_device_all_to_all (ctx, c, MUON_DEVICE_CUDA, dbuf, counts,
                                        (double *) dbuf + n, counts, MUON_F64);
  return run_op (c, op, buf, n, MUON_F64, rop, APART);
}

// after the call: recv (or the broadcast buffer) holds send
static int sweep_right (int op, const char *buf, const void *dbuf, size_t n)
{
  if (op == BARRIER)
    return 1;
  if (op == DEV_ALLREDUCE || op == DEV_ALL_TO_ALL)
    return memcmp (dbuf, (const double *) dbuf + n, n * 8) == 0;
  const double *r = (const double *) buf + (op == BROADCAST ? 0 : n + 1);
  for (size_t i = 0; i < n; i++)
    if (r[i] != value (i))
      return 0;
  return 1;
}

static void sweep_fill (char *buf, double *dbuf, size_t n)
{
  fill (buf, n, MUON_F64);
  for (size_t i = 0; i < n; i++)
  {
    dbuf[i] = value (i);
    dbuf[n + i] = -5.0;
  }
}

static void collective_sweep (void)
{
  const size_t n = 23;
  char *buf = malloc ((2 * n + 1) * 8);
  double *dbuf = NULL;
  if (cudaMalloc ((void **) &dbuf, 2 * n * 8) != cudaSuccess)
    dbuf = NULL;
  T_ASSERT (buf && dbuf);
  if (!buf || !dbuf)
    return;
  for (int library = 0; library < 2; library++)
  {
    for (int op = 0; op < NSWEEP; op++)
    {
      // each call on a fresh communicator, so its device buffers' first allocation is
      // among the calls that fail
      muon_comm *c = nccl (NULL, library);
      muon_reduce_op rop = library ? MUON_REDUCE_AVG : MUON_REDUCE_SUM;
      const char *name = op == DEV_ALLREDUCE ? "device allreduce"
                       : op == DEV_ALL_TO_ALL ? "device all_to_all" : op_name[op];
      sweep_fill (buf, dbuf, n);
      mock_fail_at (0);
      muon_status st = sweep_call (c, op, buf, dbuf, n, rop);
      long calls = mock_calls ();
      char what[192];
      snprintf (what, sizeof what, "sweep %s (%s mode): a clean call (%ld calls)", name,
                library ? "library" : "fixed", calls);
      case_begin (what);
      T_ASSERT_MSG (st == MUON_OK && sweep_right (op, buf, dbuf, n) && calls > 0,
                    "%s: status %d (%s)", what, (int) st, msg ());
      case_end ();
      muon_comm_destroy (&c);
      for (long k = 1; k <= calls; k++)
      {
        c = nccl (NULL, library);
        sweep_fill (buf, dbuf, n);
        muon_ctx_set_error (ctx, MUON_OK, "-");
        mock_fail_at (k);
        st = sweep_call (c, op, buf, dbuf, n, rop);
        char hit[64];
        snprintf (hit, sizeof hit, "%s", mock_last_hit ());
        long pending = mock_pending ();
        mock_fail_at (0);
        snprintf (what, sizeof what, "sweep %s (%s mode): call %ld of %ld (%s) fails", name,
                  library ? "library" : "fixed", k, calls, hit);
        case_begin (what);
        T_ASSERT_MSG (hit[0] != '\0', "%s: no call failed", what);
        muon_status want = expected (hit);
        T_ASSERT_MSG (st == want, "%s: status %d, want %d (%s)", what, (int) st, (int) want,
                      msg ());
        if (want != MUON_OK)
          T_ASSERT_MSG (strncmp (msg (), "nccl: ", 6) == 0 && strlen (msg ()) > 6,
                        "%s: message \"%s\"", what, msg ());
        else
          T_ASSERT_MSG (sweep_right (op, buf, dbuf, n), "%s: a tolerated failure gave a wrong "
                        "result", what);
        T_ASSERT_MSG (pending == 0, "%s: %ld operations queued at return", what, pending);
        // the communicator still works
        sweep_fill (buf, dbuf, n);
        st = sweep_call (c, op, buf, dbuf, n, rop);
        T_ASSERT_MSG (st == MUON_OK, "%s: the next call: status %d (%s)", what, (int) st,
                      msg ());
        T_ASSERT_MSG (sweep_right (op, buf, dbuf, n), "%s: the next call's result", what);
        T_ASSERT_MSG (mock_pending () == 0, "%s: the next call left work queued", what);
        case_end ();
        muon_comm_destroy (&c);
      }
    }
  }
  free (buf);
  cudaFree (dbuf);
}

int main (int argc, char **argv)
{
  (void) argc;
  if (!test_start ("test_comm_nccl_faults"))
    return 1;
  errors ();
  use_plugin (plugin);
  create_sweep ();
  collective_sweep ();
  return test_finish (argv[0]);
}
