/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm_mpi_transfers.h - the cases of tests/mpi/test_comm_mpi.c that move ragged and device
 * data: the ragged all-to-all against sim, and the device ZeRO step's transfers
 * (muon_comm_device) on host memory.  Included once, by test_comm_mpi.c, after its shared
 * state (ctx, mpi[], sim, R, W) and helpers (val, filled, esz, same): one translation unit,
 * so the harness's counters are one.
 */
#ifndef MUON_COMM_MPI_TRANSFERS_H
#define MUON_COMM_MPI_TRANSFERS_H

// Ragged all-to-all: rank q sends rank r (q + 2 r + k) % 5 * 1000 + r elements (large and
// ragged, one empty pair per k), in both modes and both types: this rank's recv and counters
// equal those of rank R of the sim communicator running every rank's data; a send buffer
// overlapping the recv one; counts that disagree fail on the receiver only, leave its recv
// alone, and the next collective still runs on every rank.
static size_t a2a_n (int q, int r, int k)
{
  return (size_t) ((q + 2 * r + k) % 5) * 1000 + (size_t) r * ((q + r + k) % 3 != 0);
}

static void test_all_to_all_vs_sim (void)
{
  size_t *sc = malloc ((size_t) W * W * sizeof *sc), *rc = malloc ((size_t) W * W * sizeof *rc);
  const void **ssend = malloc ((size_t) W * sizeof *ssend);
  void **srecv = malloc ((size_t) W * sizeof *srecv);
  for (int k = 0; k < 3; k++)
    for (int t = 0; t < 2; t++)
      for (int lib = 0; lib < 2; lib++)
      {
        muon_dtype dt = t ? MUON_F32 : MUON_F64;
        size_t e = esz (dt), nr = 0;
        for (int q = 0; q < W; q++)
          for (int r = 0; r < W; r++)
          {
            sc[q * W + r] = a2a_n (q, r, k);
            rc[r * W + q] = a2a_n (q, r, k);
          }
        for (int q = 0; q < W; q++)
        {
          size_t a = 0, b = 0;
          for (int r = 0; r < W; r++)
          {
            a += sc[q * W + r];
            b += rc[q * W + r];
          }
          ssend[q] = filled (q, a, dt, 40 + k);
          srecv[q] = calloc (b + 1, e);
          if (q == R)
            nr = b;
        }
        muon_comm_counters_reset (ctx, sim);
        muon_comm_counters_reset (ctx, mpi[lib]);
        T_EQ_INT (muon_comm_all_to_all (ctx, sim, ssend, sc, srecv, rc, dt), MUON_OK);
        void *mine = calloc (nr + 1, e);
        const void *s1[1] = { ssend[R] };
        void *r1[1] = { mine };
        T_EQ_INT (muon_comm_all_to_all (ctx, mpi[lib], s1, sc + (size_t) R * W, r1,
                                        rc + (size_t) R * W, dt), MUON_OK);
        T_ASSERT_MSG (memcmp (mine, srecv[R], nr * e) == 0, "all_to_all k %d t %d lib %d: "
                      "rank %d differs from sim", k, t, lib, R);
        muon_comm_counters a, b;
        muon_comm_counters_get (ctx, sim, R, &a);
        muon_comm_counters_get (ctx, mpi[lib], 0, &b);
        T_EQ_INT (b.calls[MUON_COLL_ALL_TO_ALL], 1);
        T_EQ_INT (b.bytes_sent[MUON_COLL_ALL_TO_ALL], a.bytes_sent[MUON_COLL_ALL_TO_ALL]);
        T_EQ_INT (b.bytes_recv[MUON_COLL_ALL_TO_ALL], a.bytes_recv[MUON_COLL_ALL_TO_ALL]);
        // one buffer, send in its head, receive over it (equal sizes: rank r sends every
        // rank 7 elements)
        size_t u[64];
        for (int q = 0; q < W; q++)
          u[q] = 7;
        char *both = malloc ((size_t) W * 7 * e);
        const void *s2[1] = { both };
        void *r2[1] = { both };
        for (int q = 0; q < W * W; q++)
          sc[q] = rc[q] = 7;
        const void **ss = malloc ((size_t) W * sizeof *ss);
        void **sr = malloc ((size_t) W * sizeof *sr);
        for (int q = 0; q < W; q++)
        {
          ss[q] = malloc ((size_t) W * 7 * e);
          sr[q] = malloc ((size_t) W * 7 * e);
          size_t aq = 0;
          for (int r = 0; r < W; r++)
            aq += a2a_n (q, r, k);
          memcpy ((void *) ss[q], ssend[q], ((size_t) W * 7 < aq ? (size_t) W * 7 : aq) * e);
          if ((size_t) W * 7 > aq)
            memset ((char *) ss[q] + aq * e, 0, ((size_t) W * 7 - aq) * e);
          if (q == R)
            memcpy (both, ss[q], (size_t) W * 7 * e);
        }
        T_EQ_INT (muon_comm_all_to_all (ctx, sim, ss, sc, sr, rc, dt), MUON_OK);
        T_EQ_INT (muon_comm_all_to_all (ctx, mpi[lib], s2, u, r2, u, dt), MUON_OK);
        T_ASSERT_MSG (memcmp (both, sr[R], (size_t) W * 7 * e) == 0, "all_to_all in place "
                      "k %d t %d lib %d: rank %d differs from sim", k, t, lib, R);
        for (int q = 0; q < W; q++)
        {
          free ((void *) ss[q]);
          free (sr[q]);
          free ((void *) ssend[q]);
          free (srecv[q]);
        }
        free (ss);
        free (sr);
        free (both);
        free (mine);
      }
  // rank 0 expects one element more from rank W - 1 than it sends: rank 0 alone fails
  size_t u[64], v[64];
  double x[64 * 2], y[64 * 2];
  for (int q = 0; q < W; q++)
  {
    u[q] = v[q] = 1;
    x[q] = R * 100 + q;
    y[q] = -1;
  }
  if (R == 0)
    v[W - 1] = 2;
  const void *s1[1] = { x };
  void *r1[1] = { y };
  muon_status st = muon_comm_all_to_all (ctx, mpi[0], s1, u, r1, v, MUON_F64);
  T_EQ_INT (st, R == 0 ? MUON_ERR_BADARG : MUON_OK);
  if (R == 0)
  {
    char want[160];
    snprintf (want, sizeof want, "all_to_all: rank 0 expects 2 elements from rank %d, which "
              "sends it 1", W - 1);
    T_EQ_STR (muon_ctx_last_error (ctx), want);
    T_EQ_DBL (y[0], -1);
  }
  else
    for (int q = 0; q < W; q++)
      T_EQ_DBL (y[q], q * 100 + R);
  T_EQ_INT (muon_comm_barrier (ctx, mpi[0]), MUON_OK);
  free (sc);
  free (rc);
  free (ssend);
  free (srecv);
}

// muon_comm_device / muon_comm_device_all_to_all, the device ZeRO step's transfers, on the
// CPU stand-in device's memory (host memory, which the MPI communicator moves): an
// all-gather and an all-to-all equal sim's bit for bit, the sums (the library's, both
// modes: plain sums) within the library's round-off of sim's SUM, the ragged all-to-all and
// its counters equal sim's; the CUDA device's memory and sim are MUON_ERR_UNSUPPORTED.
static void test_device_transfers (void)
{
  const size_t n = 37;
  for (int lib = 0; lib < 2; lib++)
  {
    muon_comm *c = mpi[lib];
    T_ASSERT (muon_comm_moves (c, MUON_DEVICE_CPU) && !muon_comm_moves (c, MUON_DEVICE_CUDA));
    void *in[64], *out[64], *mine = calloc ((size_t) W * n, 8);
    double *bound = calloc ((size_t) W * n, sizeof *bound);
    for (int q = 0; q < W; q++)
    {
      in[q] = filled (q, (size_t) W * n, MUON_F64, 71);
      out[q] = calloc ((size_t) W * n, 8);
      for (size_t i = 0; i < (size_t) W * n; i++)
        bound[i] += fabs (val (q, i, 71));
    }
    void **slots = malloc ((size_t) W * W * sizeof *slots);
    for (int q = 0; q < W; q++)
      for (int r = 0; r < W; r++)
        slots[q * W + r] = (double *) out[q] + (size_t) r * n;
    // all-gather: rank q's first n elements as block q
    T_EQ_INT (muon_comm_all_gather (ctx, sim, (const void *const *) in, slots, n, MUON_F64),
              MUON_OK);
    T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CPU, MUON_COLL_ALL_GATHER, in[R], mine, n,
                                MUON_F64), MUON_OK);
    T_ASSERT_MSG (memcmp (mine, out[R], (size_t) W * n * 8) == 0, "device all_gather lib %d",
                  lib);
    // equal-block all-to-all
    size_t *cnt = malloc ((size_t) W * W * sizeof *cnt);
    for (int q = 0; q < W * W; q++)
      cnt[q] = n;
    T_EQ_INT (muon_comm_all_to_all (ctx, sim, (const void *const *) in, cnt, out, cnt,
                                    MUON_F64), MUON_OK);
    T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CPU, MUON_COLL_ALL_TO_ALL, in[R], mine, n,
                                MUON_F64), MUON_OK);
    T_ASSERT_MSG (memcmp (mine, out[R], (size_t) W * n * 8) == 0, "device all_to_all lib %d",
                  lib);
    // the ragged one, and its counters
    muon_comm_counters_reset (ctx, c);
    muon_comm_counters_reset (ctx, sim);
    size_t *sc = malloc ((size_t) W * W * sizeof *sc), *rc = malloc ((size_t) W * W * sizeof *rc);
    for (int q = 0; q < W; q++)
      for (int r = 0; r < W; r++)
      {
        sc[q * W + r] = (size_t) ((q + 2 * r) % 3) * 5;
        rc[r * W + q] = sc[q * W + r];
      }
    T_EQ_INT (muon_comm_all_to_all (ctx, sim, (const void *const *) in, sc, out, rc, MUON_F64),
              MUON_OK);
    T_EQ_INT (muon_comm_device_all_to_all (ctx, c, MUON_DEVICE_CPU, in[R], sc + (size_t) R * W,
                                           mine, rc + (size_t) R * W, MUON_F64), MUON_OK);
    size_t nr = 0;
    for (int q = 0; q < W; q++)
      nr += rc[(size_t) R * W + q];
    T_ASSERT_MSG (memcmp (mine, out[R], nr * 8) == 0, "device ragged all_to_all lib %d", lib);
    muon_comm_counters a, b;
    muon_comm_counters_get (ctx, sim, R, &a);
    muon_comm_counters_get (ctx, c, 0, &b);
    T_EQ_INT (b.calls[MUON_COLL_ALL_TO_ALL], 1);
    T_EQ_INT (b.bytes_sent[MUON_COLL_ALL_TO_ALL], a.bytes_sent[MUON_COLL_ALL_TO_ALL]);
    T_EQ_INT (b.bytes_recv[MUON_COLL_ALL_TO_ALL], a.bytes_recv[MUON_COLL_ALL_TO_ALL]);
    // the plain sums: allreduce of W n, reduce-scatter of blocks of n
    T_EQ_INT (muon_comm_allreduce (ctx, sim, (const void *const *) in, out, (size_t) W * n,
                                   MUON_F64, MUON_REDUCE_SUM), MUON_OK);
    T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CPU, MUON_COLL_ALLREDUCE, in[R], mine,
                                (size_t) W * n, MUON_F64), MUON_OK);
    T_ASSERT_MSG (same (mine, out[R], (size_t) W * n, MUON_F64, 1, bound),
                  "device allreduce sum lib %d", lib);
    T_EQ_INT (muon_comm_reduce_scatter (ctx, sim, (const void *const *) in, out, n, MUON_F64,
                                        MUON_REDUCE_SUM), MUON_OK);
    T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CPU, MUON_COLL_REDUCE_SCATTER, in[R], mine,
                                n, MUON_F64), MUON_OK);
    T_ASSERT_MSG (same (mine, out[R], n, MUON_F64, 1, bound + (size_t) R * n),
                  "device reduce_scatter sum lib %d", lib);
    // what it refuses, before anything moves
    T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CUDA, MUON_COLL_ALL_GATHER, in[R], mine, n,
                                MUON_F64), MUON_ERR_UNSUPPORTED);
    T_EQ_INT (muon_comm_device (ctx, sim, MUON_DEVICE_CPU, MUON_COLL_ALL_GATHER, in[R], mine,
                                n, MUON_F64), MUON_ERR_UNSUPPORTED);
    T_EQ_INT (muon_comm_device (ctx, c, MUON_DEVICE_CPU, MUON_COLL_BROADCAST, in[R], mine, n,
                                MUON_F64), MUON_ERR_BADARG);
    for (int q = 0; q < W; q++)
    {
      free (in[q]);
      free (out[q]);
    }
    free (mine);
    free (bound);
    free (slots);
    free (cnt);
    free (sc);
    free (rc);
  }
}

#endif
