/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_comm_nccl_core.c - the core's NCCL communicator (core/comm/comm_nccl.c, in libmuon.a)
 * through the public API (muon_comm.h), over libmuon_nccl.so built against the host
 * stand-ins of the CUDA runtime (cuda_mock.cc) and NCCL (nccl_mock.cc, one rank), found with
 * MUON_NCCL_LIB as a user's would be.  Run by `make check-gpu-mock` with no GPU and no NCCL;
 * test_nccl_mock.c calls the plug-in's ABI directly, this one goes through comm_nccl.c.
 *
 * 1. Creation: with a NULL, self and one-rank sim bootstrap, in both reduction modes; the
 *    getters (size, local ranks, rank, name, counts_measured, reduction_of).
 * 2. Every collective of muon_comm.h (allreduce SUM / AVG, reduce_scatter SUM / AVG,
 *    all_gather, broadcast, barrier, all_to_all), F64 and F32, on host buffers, in place,
 *    overlapping, count 0 and a count over one staging piece, in the fixed and the library
 *    mode: status, result bit for bit and the counters equal to the sim communicator's of
 *    world 1 (muon_comm_sim_create) given the same calls; muon_comm_set_reduction both ways.
 * 3. Device memory: muon_comm_moves (nccl moves CUDA memory, sim none), muon_comm_device and
 *    muon_comm_device_all_to_all on the mock's cudaMalloc memory and on host memory.
 * Errors without a GPU and every CUDA / NCCL call failing in turn: test_comm_nccl_faults.c;
 * the helpers both use: comm_nccl_core.h.
 * Prints "test_comm_nccl_core: N passed, N failed" (harness.h); with MUON_RESULTS set it
 * writes "gpu-mock N M" there, a line of make check's gpu-mock layer.
 */
#define _POSIX_C_SOURCE 200809L
#include "comm_nccl_core.h"

//---- 1. creation and getters ---------------------------------------------------------------

static void creation (void)
{
  const char *boots[3] = { "NULL", "self", "sim(1)" };
  for (int b = 0; b < 3; b++)
    for (int library = 0; library < 2; library++)
    {
      char what[128];
      snprintf (what, sizeof what, "create with a %s bootstrap, reduction %s: the getters",
                boots[b], library ? "library" : "fixed");
      case_begin (what);
      muon_comm *boot = NULL;
      if (b == 1)
        T_EQ_INT (muon_comm_self_create (ctx, &boot), MUON_OK);
      else if (b == 2)
        T_EQ_INT (muon_comm_sim_create (ctx, 1, &boot), MUON_OK);
      muon_comm *c = nccl (boot, library);
      T_EQ_INT (muon_comm_size (c), 1);
      T_EQ_INT (muon_comm_local_ranks (c), 1);
      T_EQ_INT (muon_comm_rank (c, 0), 0);
      T_EQ_INT (muon_comm_rank (c, 1), -1);
      T_EQ_INT (muon_comm_rank (c, -1), -1);
      T_EQ_STR (muon_comm_name (c), "nccl");
      T_EQ_INT (muon_comm_counts_measured (c), 0);
      T_EQ_INT (muon_comm_reduction_of (c),
                library ? MUON_COMM_REDUCTION_LIBRARY : MUON_COMM_REDUCTION_FIXED);
      muon_comm_counters k;
      memset (&k, 0xff, sizeof k);
      T_EQ_INT (muon_comm_counters_get (ctx, c, 0, &k), MUON_OK);
      for (int i = 0; i < MUON_COLL_COUNT; i++)
        T_ASSERT (k.calls[i] == 0 && k.bytes_sent[i] == 0 && k.bytes_recv[i] == 0);
      T_EQ_INT (muon_comm_destroy (&c), MUON_OK);
      T_ASSERT (c == NULL);
      muon_comm_destroy (&boot);
      case_end ();
    }
}

//---- 2. the collectives against sim ---------------------------------------------------------

static const char *layout_name[NLAYOUTS] = { "apart", "in place", "overlapping" };

// The op on nccl and on sim with the same input: same status, same bytes, same counters.
static void compare (muon_comm *c, muon_comm *s, int op, size_t n, muon_dtype t,
                     muon_reduce_op rop, int layout, const char *mode)
{
  char what[192];
  snprintf (what, sizeof what, "%s %s %s, %zu elements, %s, %s mode: as sim", op_name[op],
            t == MUON_F64 ? "F64" : "F32", rop == MUON_REDUCE_AVG ? "avg" : "sum", n,
            layout_name[layout], mode);
  case_begin (what);
  size_t bytes = (2 * n + 1) * esize (t);
  char *a = malloc (bytes), *b = malloc (bytes);
  T_ASSERT (a && b);
  if (a && b)
  {
    fill (a, n, t);
    fill (b, n, t);
    muon_status sa = run_op (c, op, a, n, t, rop, layout);
    muon_status sb = run_op (s, op, b, n, t, rop, layout);
    T_ASSERT_MSG (sa == MUON_OK && sb == MUON_OK, "%s: status nccl %d sim %d (%s)", what,
                  (int) sa, (int) sb, msg ());
    T_ASSERT_MSG (memcmp (a, b, bytes) == 0, "%s: results differ", what);
    T_ASSERT_MSG (same_counters (c, s), "%s: counters differ", what);
    T_ASSERT_MSG (mock_pending () == 0, "%s: work left queued", what);
  }
  free (a);
  free (b);
  case_end ();
}

static void collectives (void)
{
  muon_comm *s = sim ();
  for (int library = 0; library < 2; library++)
  {
    muon_comm *c = nccl (NULL, library);
    const char *mode = library ? "library" : "fixed";
    const size_t ns[3] = { 1, 37, 0 };
    for (int ti = 0; ti < 2; ti++)
      for (int op = 0; op < NOPS; op++)
        for (int ni = 0; ni < 3; ni++)
          for (int layout = 0; layout < NLAYOUTS; layout++)
            for (int rop = 0; rop < 2; rop++)
            {
              if (rop && op != ALLREDUCE && op != REDUCE_SCATTER)
                continue;
              // an overlap of send and recv within a rank is allowed for the reductions
              // and all-gather; broadcast and all-to-all take their buffers apart
              if (layout != APART && (op == BROADCAST || op == BARRIER || op == ALL_TO_ALL))
                continue;
              compare (c, s, op, ns[ni], ti ? MUON_F32 : MUON_F64,
                       rop ? MUON_REDUCE_AVG : MUON_REDUCE_SUM, layout, mode);
            }
    // more than one staging piece (MUON_STAGE_ELEMS per rank) in the fixed order
    size_t big = ((size_t) 1 << 21) + 5;
    compare (c, s, ALLREDUCE, big, MUON_F32, MUON_REDUCE_AVG, APART, mode);
    compare (c, s, REDUCE_SCATTER, big, MUON_F32, MUON_REDUCE_SUM, OVERLAP, mode);
    compare (c, s, ALL_GATHER, big, MUON_F32, MUON_REDUCE_SUM, APART, mode);

    // all_to_all with nothing to move: NULL buffers are fine
    case_begin ("all_to_all of 0 elements with NULL buffers: as sim");
    {
      const void *send[1] = { NULL };
      void *recv[1] = { NULL };
      size_t zero[1] = { 0 };
      T_EQ_INT (muon_comm_all_to_all (ctx, c, send, zero, recv, zero, MUON_F64), MUON_OK);
      T_EQ_INT (muon_comm_all_to_all (ctx, s, send, zero, recv, zero, MUON_F64), MUON_OK);
      T_ASSERT (same_counters (c, s));
    }
    case_end ();

    // muon_comm_count, then reset
    case_begin ("muon_comm_count and muon_comm_counters_reset: as sim");
    for (int k = 0; k < MUON_COLL_COUNT; k++)
    {
      T_EQ_INT (muon_comm_count (ctx, c, (muon_coll) k, 11, MUON_F32), MUON_OK);
      T_EQ_INT (muon_comm_count (ctx, s, (muon_coll) k, 11, MUON_F32), MUON_OK);
    }
    T_ASSERT (same_counters (c, s));
    T_EQ_INT (muon_comm_counters_reset (ctx, c), MUON_OK);
    T_EQ_INT (muon_comm_counters_reset (ctx, s), MUON_OK);
    T_ASSERT (same_counters (c, s));
    case_end ();
    muon_comm_destroy (&c);
  }
  muon_comm_destroy (&s);
}

// muon_comm_set_reduction on nccl (both ways, then the results) and on sim
static void set_reduction (void)
{
  muon_comm *c = nccl (NULL, 0), *s = sim ();
  case_begin ("set_reduction: nccl takes fixed and library, sim only fixed");
  T_EQ_INT (muon_comm_set_reduction (ctx, c, MUON_COMM_REDUCTION_LIBRARY), MUON_OK);
  T_EQ_INT (muon_comm_reduction_of (c), MUON_COMM_REDUCTION_LIBRARY);
  T_EQ_INT (muon_comm_set_reduction (ctx, c, MUON_COMM_REDUCTION_FIXED), MUON_OK);
  T_EQ_INT (muon_comm_reduction_of (c), MUON_COMM_REDUCTION_FIXED);
  T_EQ_INT (muon_comm_set_reduction (ctx, c, (muon_comm_reduction) 2), MUON_ERR_BADARG);
  T_EQ_STR (msg (), "unknown reduction 2");
  T_EQ_INT (muon_comm_reduction_of (c), MUON_COMM_REDUCTION_FIXED);
  T_EQ_INT (muon_comm_set_reduction (ctx, s, MUON_COMM_REDUCTION_LIBRARY), MUON_ERR_BADARG);
  T_EQ_STR (msg (), "the sim communicator has no library reduction");
  T_EQ_INT (muon_comm_set_reduction (ctx, s, MUON_COMM_REDUCTION_FIXED), MUON_OK);
  T_EQ_INT (muon_comm_set_reduction (ctx, NULL, MUON_COMM_REDUCTION_FIXED), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_reduction_of (NULL), MUON_COMM_REDUCTION_FIXED);
  case_end ();
  // switched to library after creation: the reductions still as sim
  T_EQ_INT (muon_comm_set_reduction (ctx, c, MUON_COMM_REDUCTION_LIBRARY), MUON_OK);
  for (int ti = 0; ti < 2; ti++)
    for (int rop = 0; rop < 2; rop++)
    {
      compare (c, s, ALLREDUCE, 37, ti ? MUON_F32 : MUON_F64, (muon_reduce_op) rop, IN_PLACE,
               "set-library");
      compare (c, s, REDUCE_SCATTER, 37, ti ? MUON_F32 : MUON_F64, (muon_reduce_op) rop,
               APART, "set-library");
    }
  muon_comm_destroy (&c);
  muon_comm_destroy (&s);
}

//---- 3. device memory -----------------------------------------------------------------------

#define DN 29

static void device_memory (void)
{
  muon_comm *c = nccl (NULL, 0), *s = sim ();
  case_begin ("muon_comm_moves: nccl moves CUDA memory only, sim none");
  T_EQ_INT (muon_comm_moves (c, MUON_DEVICE_CUDA), 1);
  T_EQ_INT (muon_comm_moves (c, MUON_DEVICE_CPU), 0);
  T_EQ_INT (muon_comm_moves (s, MUON_DEVICE_CUDA), 0);
  T_EQ_INT (muon_comm_moves (s, MUON_DEVICE_CPU), 0);
  T_EQ_INT (muon_comm_moves (NULL, MUON_DEVICE_CUDA), 0);
  case_end ();

  const muon_coll colls[4] = { MUON_COLL_ALL_GATHER, MUON_COLL_ALL_TO_ALL, MUON_COLL_ALLREDUCE,
                               MUON_COLL_REDUCE_SCATTER };
  const char *coll_name[4] = { " all_gather", " all_to_all", " allreduce", " reduce_scatter" };
  for (int dev = 0; dev < 2; dev++)
    for (int ti = 0; ti < 2; ti++)
      for (int k = 0; k < 5; k++)
      {
        muon_dtype t = ti ? MUON_F32 : MUON_F64;
        size_t e = esize (t);
        char what[160];
        snprintf (what, sizeof what, "muon_comm_device%s%s on %s memory: out = in",
                  k < 4 ? "" : "_all_to_all", k < 4 ? coll_name[k] : "",
                  dev ? "CUDA (mock)" : "host");
        case_begin (what);
        void *in = NULL, *out = NULL;
        if (dev)
        {
          T_ASSERT (cudaMalloc (&in, DN * 8) == cudaSuccess);
          T_ASSERT (cudaMalloc (&out, DN * 8) == cudaSuccess);
        }
        else
        {
          in = malloc (DN * 8);
          out = malloc (DN * 8);
        }
        for (size_t i = 0; i < DN; i++)
          if (t == MUON_F64)
          {
            ((double *) in)[i] = value (i);
            ((double *) out)[i] = -1.0;
          }
          else
          {
            ((float *) in)[i] = (float) value (i);
            ((float *) out)[i] = -1.0f;
          }
        muon_comm_counters before, after;
        muon_comm_counters_get (ctx, c, 0, &before);
        size_t counts[1] = { DN };
        muon_status st = k < 4
          ? muon_comm_device (ctx, c, MUON_DEVICE_CUDA, colls[k], in, out, DN, t)
          : muon_comm_device_all_to_all (ctx, c, MUON_DEVICE_CUDA, in, counts, out, counts, t);
        T_ASSERT_MSG (st == MUON_OK, "%s: status %d (%s)", what, (int) st, msg ());
        T_ASSERT_MSG (memcmp (in, out, DN * e) == 0, "%s: out is not in", what);
        T_ASSERT_MSG (mock_pending () == 0, "%s: work left queued", what);
        muon_comm_counters_get (ctx, c, 0, &after);
        // muon_comm_device counts nothing; the device all_to_all counts its call (world 1:
        // no payload to other ranks)
        before.calls[MUON_COLL_ALL_TO_ALL] += k == 4;
        T_ASSERT_MSG (memcmp (&before, &after, sizeof before) == 0, "%s: counters", what);
        if (dev)
        {
          cudaFree (in);
          cudaFree (out);
        }
        else
        {
          free (in);
          free (out);
        }
        case_end ();
      }

  case_begin ("muon_comm_device: the errors");
  double x[4] = { 1, 2, 3, 4 }, y[4];
  size_t counts[1] = { 4 };
  T_EQ_INT (muon_comm_device (ctx, s, MUON_DEVICE_CUDA, MUON_COLL_ALLREDUCE, x, y, 4, MUON_F64),
            MUON_ERR_UNSUPPORTED);
  T_EQ_STR (msg (), "the 'sim' communicator does not move CUDA device memory: device arrays "
            "on CUDA need 'nccl'");
  T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CPU, MUON_COLL_ALLREDUCE, x, y, 4, MUON_F64),
            MUON_ERR_UNSUPPORTED);
  T_EQ_STR (msg (), "the 'nccl' communicator does not move the CPU stand-in device's memory");
  T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CUDA, MUON_COLL_BROADCAST, x, y, 4, MUON_F64),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CUDA, MUON_COLL_ALLREDUCE, x, y, 4,
                              (muon_dtype) 77), MUON_ERR_BADTYPE);
  T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CUDA, MUON_COLL_ALLREDUCE, NULL, y, 4,
                              MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CUDA, MUON_COLL_ALLREDUCE, x, y, 0, MUON_F64),
            MUON_OK);
  T_EQ_INT (muon_comm_device_all_to_all (ctx, s, MUON_DEVICE_CUDA, x, counts, y, counts,
                                         MUON_F64), MUON_ERR_UNSUPPORTED);
  T_EQ_INT (muon_comm_device_all_to_all (ctx, c, MUON_DEVICE_CUDA, x, NULL, y, counts,
                                         MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_device_all_to_all (ctx, c, MUON_DEVICE_CUDA, x, counts, y, counts,
                                         (muon_dtype) 77), MUON_ERR_BADTYPE);
  case_end ();
  muon_comm_destroy (&c);
  muon_comm_destroy (&s);
}

int main (int argc, char **argv)
{
  (void) argc;
  if (!test_start ("test_comm_nccl_core"))
    return 1;
  creation ();
  collectives ();
  set_reduction ();
  device_memory ();
  return test_finish (argv[0]);
}
