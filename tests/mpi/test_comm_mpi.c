/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_comm_mpi.c - the MPI communicator (core/comm/comm_mpi.c) in C, run on every rank of
 * `mpirun -np 2` and `-np 4` by tests/mpi/run.sh (built by the Makefile's MPI block with
 * mpicc against build/libmuon_mpi.a and build/libmuon.a; no sanitizers: Open MPI's own
 * allocations would drown them).
 *
 * What the Octave suite cannot reach (its gateway copies every buffer): in-place and
 * overlapping send / receive buffers, aliased all-gather slots and the idle-rank pad case of
 * core/zero/zero_step*.c, each checked bit for bit against the sim communicator running all W
 * ranks' data in this process; every collective of both reduction modes on data where the
 * summation order shows, in pieces larger than one staging piece; the counters against
 * muon_comm_model_bytes; argument errors (raised before any communication, so every rank
 * takes the same path); muon_comm_mpi_create before MPI_Init; the ragged all-to-all against
 * sim, in place, and with counts that disagree; the device ZeRO step's transfers
 * (muon_comm_device) on host memory (those two in comm_mpi_transfers.h); a communicator's
 * reduction set after it was made (muon_comm_set_reduction); a ZeRO step's interrupt poll,
 * held while other processes wait in its collectives.  The ranks agree:
 * each test's failure flag is all-reduced, rank 0 prints the summary and appends
 * "mpi <passed> <failed>" to $MUON_MPI_RESULTS.
 */
#include <mpi.h>
#include <stdint.h>

#include "harness.h"
#include "muon.h"

static muon_ctx *ctx;
static muon_comm *mpi[2], *sim;   // mpi[library reduction]
static int R, W;

// Rank q's element i: mixed magnitudes, so a different summation order changes the result.
static double val (int q, size_t i, int seed)
{
  uint64_t x = (uint64_t) seed * 0x9E3779B97F4A7C15ull + (uint64_t) q * 0xBF58476D1CE4E5B9ull
               + (uint64_t) i * 0x94D049BB133111EBull;
  x ^= x >> 31; x *= 0xD6E8FEB86659FD39ull; x ^= x >> 28;
  double m = (double) (x & 0xFFFFF) / 1048576.0 - 0.5;
  int e = (int) ((x >> 20) % 13) - 6;
  return m * pow (10.0, e);
}

static void *filled (int q, size_t n, muon_dtype t, int seed)
{
  void *p = malloc ((n ? n : 1) * (t == MUON_F32 ? 4 : 8));
  for (size_t i = 0; i < n; i++)
  {
    if (t == MUON_F32) ((float *) p)[i] = (float) val (q, i, seed);
    else ((double *) p)[i] = val (q, i, seed);
  }
  return p;
}

static size_t esz (muon_dtype t) { return t == MUON_F32 ? 4 : 8; }

// |a - b| <= 2 W eps sum_q |x_q| element-wise (library order); exact compare otherwise.
static int same (const void *a, const void *b, size_t n, muon_dtype t, int lib, double *bound)
{
  if (!lib || bound == NULL)
    return memcmp (a, b, n * esz (t)) == 0;
  double eps = t == MUON_F32 ? 1.1920929e-07 : 2.220446049250313e-16;
  for (size_t i = 0; i < n; i++)
  {
    double x = t == MUON_F32 ? ((const float *) a)[i] : ((const double *) a)[i];
    double y = t == MUON_F32 ? ((const float *) b)[i] : ((const double *) b)[i];
    if (!(fabs (x - y) <= 2 * W * eps * bound[i]))
      return 0;
  }
  return 1;
}

//---- tests --------------------------------------------------------------------------------

#include "comm_mpi_transfers.h"   // test_all_to_all_vs_sim, test_device_transfers


// allreduce and reduce_scatter of both modes against the sim result (bitwise in fixed mode)
static void test_reductions_vs_sim (void)
{
  // blocks; the last one is more than a staging piece (2^21 / W elements)
  const size_t sizes[] = { 1, 5, 37, 1000, ((size_t) 1 << 21) / (size_t) W + 3 };
  for (int lib = 0; lib < 2; lib++)
    for (int t = 0; t < 2; t++)
      for (int op = 0; op < 2; op++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        {
          muon_dtype dt = t ? MUON_F32 : MUON_F64;
          size_t n = sizes[k] * (size_t) W;   // allreduce n, reduce_scatter W blocks
          void *in[64], *out[64], *mine = malloc (n * esz (dt));
          double *bound = calloc (n, sizeof *bound);
          for (int q = 0; q < W; q++)
          {
            in[q] = filled (q, n, dt, (int) k);
            out[q] = malloc (n * esz (dt));
            for (size_t i = 0; i < n; i++)
              bound[i] += fabs (val (q, i, (int) k)) / (op ? W : 1);
          }
          const void *s1[1] = { in[R] };
          void *r1[1] = { mine };
          T_EQ_INT (muon_comm_allreduce (ctx, sim, (const void *const *) in, out, n, dt, op),
                    MUON_OK);
          T_EQ_INT (muon_comm_allreduce (ctx, mpi[lib], s1, r1, n, dt, op), MUON_OK);
          T_ASSERT_MSG (same (mine, out[R], n, dt, lib, bound), "allreduce lib %d t %d op %d "
                        "n %zu", lib, t, op, n);
          size_t c = sizes[k];
          T_EQ_INT (muon_comm_reduce_scatter (ctx, sim, (const void *const *) in, out, c, dt,
                                              op), MUON_OK);
          T_EQ_INT (muon_comm_reduce_scatter (ctx, mpi[lib], s1, r1, c, dt, op), MUON_OK);
          T_ASSERT_MSG (same (mine, out[R], c, dt, lib, bound + (size_t) R * c),
                        "reduce_scatter lib %d t %d op %d c %zu", lib, t, op, c);
          for (int q = 0; q < W; q++)
          {
            free (in[q]);
            free (out[q]);
          }
          free (mine);
          free (bound);
        }
}

// in place and overlapping buffers give the result of separate buffers
static void test_overlap (void)
{
  for (int lib = 0; lib < 2; lib++)
  {
    muon_comm *c = mpi[lib];
    size_t n = 300 * (size_t) W;
    // buf: room for a recv block that starts half a block in and runs past n (one rank)
    double *ref = malloc (n * 8), *x = filled (R, n, MUON_F64, 3),
           *buf = malloc ((n + n / (size_t) W + 8) * 8);
    const void *s1[1];
    void *r1[1];
    // allreduce: separate, in place, recv one element after send (partial overlap)
    s1[0] = x; r1[0] = ref;
    T_EQ_INT (muon_comm_allreduce (ctx, c, s1, r1, n, MUON_F64, MUON_REDUCE_AVG), MUON_OK);
    for (int shift = 0; shift < 2; shift++)
    {
      memcpy (buf, x, n * 8);
      s1[0] = buf; r1[0] = buf + shift;
      T_EQ_INT (muon_comm_allreduce (ctx, c, s1, r1, n, MUON_F64, MUON_REDUCE_AVG), MUON_OK);
      T_ASSERT_MSG (memcmp (buf + shift, ref, n * 8) == 0, "allreduce lib %d shift %d", lib,
                    shift);
    }
    // reduce_scatter: recv inside send at this rank's block, and straddling two blocks
    size_t cnt = n / (size_t) W;
    s1[0] = x; r1[0] = ref;
    T_EQ_INT (muon_comm_reduce_scatter (ctx, c, s1, r1, cnt, MUON_F64, MUON_REDUCE_SUM),
              MUON_OK);
    size_t at[2] = { (size_t) R * cnt, cnt / 2 };
    for (int k = 0; k < 2; k++)
    {
      memcpy (buf, x, n * 8);
      s1[0] = buf; r1[0] = buf + at[k];
      T_EQ_INT (muon_comm_reduce_scatter (ctx, c, s1, r1, cnt, MUON_F64, MUON_REDUCE_SUM),
                MUON_OK);
      T_ASSERT_MSG (memcmp (buf + at[k], ref, cnt * 8) == 0, "reduce_scatter lib %d at %zu",
                    lib, at[k]);
    }
    free (ref); free (x); free (buf);
  }
}

// all_gather: in place in one buffer, aliased slots (the last source wins, as in sim), and
// the idle-rank pad case (the rank sends the pad all its slots point to)
static void test_all_gather_aliasing (void)
{
  size_t cnt = 5;
  double *buf = malloc ((size_t) W * cnt * 8), pad[5];
  void *slots[64];
  for (int q = 0; q < W; q++)
    slots[q] = buf + (size_t) q * cnt;
  for (size_t i = 0; i < cnt; i++)
    buf[(size_t) R * cnt + i] = val (R, i, 9);
  const void *s1[1] = { buf + (size_t) R * cnt };
  T_EQ_INT (muon_comm_all_gather (ctx, mpi[0], s1, slots, cnt, MUON_F64), MUON_OK);
  for (int q = 0; q < W; q++)
    for (size_t i = 0; i < cnt; i++)
      T_EQ_DBL (buf[(size_t) q * cnt + i], val (q, i, 9));
  // rank 1 is idle: it sends its pad and receives every source into that same pad (two
  // ranks at least)
  if (W < 2)
  {
    free (buf);
    return;
  }
  for (size_t i = 0; i < cnt; i++)
    pad[i] = val (R, i, 10);
  for (int q = 0; q < W; q++)
    slots[q] = R == 1 ? pad : buf + (size_t) q * cnt;
  s1[0] = R == 1 ? (const void *) pad : (const void *) (buf + (size_t) R * cnt);
  if (R != 1)
    for (size_t i = 0; i < cnt; i++)
      buf[(size_t) R * cnt + i] = val (R, i, 10);
  T_EQ_INT (muon_comm_all_gather (ctx, mpi[0], s1, slots, cnt, MUON_F64), MUON_OK);
  for (size_t i = 0; i < cnt; i++)
  {
    if (R == 1)
      T_EQ_DBL (pad[i], val (W - 1, i, 10));        // the last source written
    else
      T_EQ_DBL (buf[cnt + i], val (1, i, 10));      // rank 1's pad as it was sent
  }
  free (buf);
}

static void test_broadcast_and_counters (void)
{
  muon_comm *c = mpi[1];
  T_EQ_INT (muon_comm_counters_reset (ctx, c), MUON_OK);
  float b[7];
  for (int root = 0; root < W; root++)
  {
    for (int i = 0; i < 7; i++)
      b[i] = (float) (R * 10 + i);
    void *p[1] = { b };
    T_EQ_INT (muon_comm_broadcast (ctx, c, p, 7, MUON_F32, root), MUON_OK);
    for (int i = 0; i < 7; i++)
      T_EQ_DBL (b[i], root * 10 + i);
  }
  T_EQ_INT (muon_comm_barrier (ctx, c), MUON_OK);
  muon_comm_counters k;
  T_EQ_INT (muon_comm_counters_get (ctx, c, 0, &k), MUON_OK);
  uint64_t want_s = 0, want_r = 0, s, r;
  for (int root = 0; root < W; root++)
  {
    muon_comm_model_bytes (ctx, MUON_COLL_BROADCAST, W, R, root, 7, MUON_F32, &s, &r);
    want_s += s;
    want_r += r;
  }
  T_EQ_INT (k.calls[MUON_COLL_BROADCAST], W);
  T_EQ_INT (k.calls[MUON_COLL_BARRIER], 1);
  T_EQ_INT (k.bytes_sent[MUON_COLL_BROADCAST], want_s);
  T_EQ_INT (k.bytes_recv[MUON_COLL_BROADCAST], want_r);
  T_EQ_INT (want_s, 28 * (W - 1));                  // every rank but the last of each chain
  T_EQ_STR (muon_comm_name (c), "mpi");
  T_EQ_INT (muon_comm_counts_measured (c), 0);
  T_EQ_INT (muon_comm_size (c), W);
  T_EQ_INT (muon_comm_rank (c, 0), R);
  T_EQ_INT (muon_comm_local_ranks (c), 1);

  // muon_comm_agree: the lowest rank that differs, its entry and both values, the same on
  // every rank; the counters as they were; sim has nothing to compare
  double sig[3] = { 1, 2, R == W - 1 ? 9 : 3 }, v[2] = { 0, 0 };
  int who = -2;
  size_t at = 99;
  T_EQ_INT (muon_comm_agree (ctx, c, sig, 3, &who, &at, v), MUON_OK);
  T_EQ_INT (who, W > 1 ? W - 1 : -1);
  if (W > 1)
  {
    T_EQ_INT (at, 2);
    T_ASSERT (v[0] == 9 && v[1] == 3);
  }
  muon_comm_counters k2;
  T_EQ_INT (muon_comm_counters_get (ctx, c, 0, &k2), MUON_OK);
  T_ASSERT (memcmp (&k, &k2, sizeof k) == 0);
  sig[2] = 3;
  T_EQ_INT (muon_comm_agree (ctx, c, sig, 3, &who, &at, NULL), MUON_OK);
  T_EQ_INT (who, -1);
  sig[2] = R == W - 1 ? 9 : 3;
  T_EQ_INT (muon_comm_agree (ctx, sim, sig, 3, &who, &at, NULL), MUON_OK);
  T_EQ_INT (who, -1);
}

static void test_errors (void)
{
  double x[4] = { 0 };
  const void *s1[1] = { x };
  void *r1[1] = { x };
  T_EQ_INT (muon_comm_broadcast (ctx, mpi[0], r1, 4, MUON_F64, W), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_allreduce (ctx, mpi[0], s1, r1, 4, (muon_dtype) 7, MUON_REDUCE_SUM),
            MUON_ERR_BADTYPE);
  T_EQ_INT (muon_comm_allreduce (ctx, mpi[0], s1, NULL, 4, MUON_F64, MUON_REDUCE_SUM),
            MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_mpi_create (ctx, 0, NULL), MUON_ERR_NULLPTR);
  // a reduction other than 0 (fixed) and 1 (library): refused as muon_comm_set_reduction
  // refuses it (5 was taken as 1)
  for (int r = -1; r <= 5; r += 6)
  {
    muon_comm *c = (muon_comm *) x;
    T_EQ_INT (muon_comm_mpi_create (ctx, r, &c), MUON_ERR_BADARG);
    T_ASSERT (c == NULL);
    char want[64];
    snprintf (want, sizeof want, "unknown reduction %d", r);
    T_EQ_STR (muon_ctx_last_error (ctx), want);
  }
}

// muon_comm_set_reduction: the fixed communicator set to the library's reduction sums as
// the library (within its bound of the sim sum), set back it is bitwise the sim's again;
// self and sim have no library reduction
static void test_set_reduction (void)
{
  const size_t n = 1000 * (size_t) W;
  double *in[64], *out[64], *mine = malloc (n * sizeof *mine), *bound = calloc (n, sizeof *bound);
  for (int q = 0; q < W; q++)
  {
    in[q] = filled (q, n, MUON_F64, 9);
    out[q] = malloc (n * sizeof (double));
    for (size_t i = 0; i < n; i++)
      bound[i] += fabs (val (q, i, 9));
  }
  const void *s1[1] = { in[R] };
  void *r1[1] = { mine };
  T_EQ_INT (muon_comm_allreduce (ctx, sim, (const void *const *) in, (void *const *) out, n,
                                 MUON_F64, MUON_REDUCE_SUM), MUON_OK);
  T_EQ_INT (muon_comm_reduction_of (mpi[0]), MUON_COMM_REDUCTION_FIXED);
  for (int lib = 1; lib >= 0; lib--)
  {
    T_EQ_INT (muon_comm_set_reduction (ctx, mpi[0], lib ? MUON_COMM_REDUCTION_LIBRARY
                                                        : MUON_COMM_REDUCTION_FIXED), MUON_OK);
    T_EQ_INT (muon_comm_reduction_of (mpi[0]), lib ? MUON_COMM_REDUCTION_LIBRARY
                                                   : MUON_COMM_REDUCTION_FIXED);
    T_EQ_INT (muon_comm_allreduce (ctx, mpi[0], s1, r1, n, MUON_F64, MUON_REDUCE_SUM), MUON_OK);
    T_ASSERT_MSG (same (mine, out[R], n, MUON_F64, lib, bound), "set to library %d", lib);
  }
  muon_comm *self = NULL;
  T_EQ_INT (muon_comm_self_create (ctx, &self), MUON_OK);
  T_EQ_INT (muon_comm_set_reduction (ctx, self, MUON_COMM_REDUCTION_LIBRARY), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_set_reduction (ctx, sim, MUON_COMM_REDUCTION_LIBRARY), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_set_reduction (ctx, self, MUON_COMM_REDUCTION_FIXED), MUON_OK);
  T_EQ_INT (muon_comm_set_reduction (ctx, NULL, MUON_COMM_REDUCTION_FIXED), MUON_ERR_NULLPTR);
  muon_comm_destroy (&self);
  for (int q = 0; q < W; q++)
  {
    free (in[q]);
    free (out[q]);
  }
  free (mine);
  free (bound);
}

static int poll_always (void *arg)
{
  ++*(int *) arg;
  return 1;
}

// A ZeRO step whose ranks are in other processes does not poll (core/zero/zero_step_api.c): a
// Ctrl-C that stopped one rank alone would leave the others waiting in the step's
// collectives.  A poll that always fires on the last rank is not called and changes no bit;
// it is the context's poll again after the step.  At one rank nothing waits: it stops the
// step.
static void test_zero_step_poll (void)
{
  size_t rows[2] = { 3, 2 }, cols[2] = { 4, 5 };
  muon_zero_layout_opts lo = { 2, 2, MUON_ZERO_ORDER_GIVEN };
  muon_zero_layout *L = NULL;
  muon_zero_plan *P = NULL;
  muon_zero_step_opts o;
  muon_zero_step_opts_default (&o);
  T_EQ_INT (muon_zero_layout_create (ctx, 2, rows, cols, W, &lo, &L), MUON_OK);
  T_EQ_INT (muon_zero_plan_create (ctx, L, o.variant, &P), MUON_OK);
  double g0[12], g1[10], m[64], u[64], ref[64];
  for (size_t i = 0; i < 12; i++)
    g0[i] = val (R, i, 21);
  for (size_t i = 0; i < 10; i++)
    g1[i] = val (R, i, 22);
  const double *g[2] = { g0, g1 };
  double *mom[1] = { m }, *upd[1] = { u };
  memset (m, 0, sizeof m);
  memset (u, 0, sizeof u);
  T_EQ_INT (muon_zero_step (ctx, mpi[0], P, &o, g, mom, upd, NULL), MUON_OK);
  memcpy (ref, u, sizeof u);
  memset (m, 0, sizeof m);
  memset (u, 0, sizeof u);
  int calls = 0, last = R == W - 1;
  T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, last ? poll_always : NULL, &calls), MUON_OK);
  muon_status s = muon_zero_step (ctx, mpi[0], P, &o, g, mom, upd, NULL);
  if (W > 1)
  {
    T_EQ_INT (s, MUON_OK);
    T_EQ_INT (calls, 0);
    T_ASSERT (memcmp (ref, u, sizeof u) == 0);
  }
  else
  {
    T_EQ_INT (s, MUON_ERR_INTERRUPTED);
    T_EQ_INT (calls, 1);
  }
  if (last)      // the poll is back: muon_ns on this context stops at once
  {
    double x[6] = { 1, 2, 3, 4, 5, 7 }, y[6];
    muon_ns_opts no;
    muon_ns_opts_default (&no);
    muon_tensor tx = muon_tensor_matrix (MUON_F64, x, 2, 3),
                ty = muon_tensor_matrix (MUON_F64, y, 2, 3);
    calls = 0;
    T_EQ_INT (muon_ns (ctx, &tx, &ty, &no), MUON_ERR_INTERRUPTED);
    T_EQ_INT (calls, 1);
  }
  muon_ctx_set_interrupt_poll (ctx, NULL, NULL);
  muon_zero_plan_destroy (&P);
  muon_zero_layout_destroy (&L);
}

int main (int argc, char **argv)
{
  muon_ctx_create (&ctx);
  muon_comm *early = NULL;
  int before = muon_comm_mpi_create (ctx, 0, &early);
  const char *why = muon_ctx_last_error (ctx);
  int before_ok = before == MUON_ERR_MPI && early == NULL && strstr (why, "not initialized");
  int provided;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &R);
  MPI_Comm_size (MPI_COMM_WORLD, &W);
  if (W > 64)
    MPI_Abort (MPI_COMM_WORLD, 2);
  T_EQ_INT (muon_comm_mpi_create (ctx, 0, &mpi[0]), MUON_OK);
  T_EQ_INT (muon_comm_mpi_create (ctx, 1, &mpi[1]), MUON_OK);
  T_EQ_INT (muon_comm_sim_create (ctx, W, &sim), MUON_OK);
  if (!mpi[0] || !mpi[1] || !sim)
    MPI_Abort (MPI_COMM_WORLD, 3);
  static const char *names[] = { "create_before_init", "reductions_vs_sim", "overlap",
                                 "all_gather_aliasing", "broadcast_and_counters", "all_to_all_vs_sim",
                                 "errors", "device_transfers", "set_reduction",
                                 "zero_step_poll" };
  int failed[10] = { 0 }, all[10];
  long f0 = t_failed;
  T_ASSERT_MSG (before_ok, "muon_comm_mpi_create before MPI_Init: %d (%s)", before, why);
  failed[0] = t_failed > f0;
  void (*fns[9]) (void) = { test_reductions_vs_sim, test_overlap, test_all_gather_aliasing,
                            test_broadcast_and_counters, test_all_to_all_vs_sim, test_errors,
                            test_device_transfers, test_set_reduction, test_zero_step_poll };
  for (int k = 0; k < 9; k++)
  {
    f0 = t_failed;
    fns[k] ();
    failed[k + 1] = t_failed > f0;
    if (failed[k + 1])
      printf ("rank %d: %s failed\n", R, names[k + 1]);
  }
  MPI_Allreduce (failed, all, 10, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int np = 0, nf = 0;
  for (int k = 0; k < 10; k++)
    all[k] ? nf++ : np++;
  if (R == 0)
  {
    printf ("test_comm_mpi np=%d: %d passed, %d failed\n", W, np, nf);
    const char *res = getenv ("MUON_MPI_RESULTS");
    FILE *f = res && *res ? fopen (res, "a") : NULL;
    if (f)
    {
      fprintf (f, "mpi %d %d\n", np, nf);
      fclose (f);
    }
  }
  muon_comm_destroy (&mpi[0]);
  muon_comm_destroy (&mpi[1]);
  muon_comm_destroy (&sim);
  muon_ctx_destroy (&ctx);
  MPI_Finalize ();
  return nf ? 1 : 0;
}
