/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_comm.c - the communicators (core/comm/comm_self.c, comm_sim.c): every collective
 * against its closed form for W = 1..8 in double and float, the fixed rank-order summation
 * (bitwise against a hand loop, on data where float order matters), in-place and aliased
 * buffers; the ragged all-to-all against the blocks each rank wrote.  Queries, counters,
 * errors, specs and the device entry points: test_comm_api.c.
 */
#include <stdint.h>

#include "harness.h"
#include "muon.h"

static muon_ctx *ctx;

#define MAXW 8
static const size_t SIZES[] = { 0, 1, 5, 16, 37 };
#define NSIZES (sizeof SIZES / sizeof SIZES[0])

// x[q][i] = q + W i: small integers, so every sum is exact in float and double.
static double val (int q, size_t i, int W) { return q + (double) W * (double) i; }

static void fill (void *p, muon_dtype t, int q, size_t n, int W, size_t off)
{
  for (size_t i = 0; i < n; i++)
  {
    if (t == MUON_F32) ((float *) p)[i] = (float) val (q, off + i, W);
    else ((double *) p)[i] = val (q, off + i, W);
  }
}

static double get (const void *p, muon_dtype t, size_t i)
{
  return t == MUON_F32 ? ((const float *) p)[i] : ((const double *) p)[i];
}

// sum over q of val (q, i, W) = W (W - 1) / 2 + W^2 i
static double sum_closed (size_t i, int W) { return W * (W - 1) / 2.0 + (double) W * W * i; }

static muon_comm *make (int W)
{
  muon_comm *c = NULL;
  if (W == 1 && (rand () & 1))
    T_EQ_INT (muon_comm_self_create (ctx, &c), MUON_OK);
  else
    T_EQ_INT (muon_comm_sim_create (ctx, W, &c), MUON_OK);
  return c;
}

//---- collectives against closed forms -----------------------------------------------------

static void test_allreduce (void)
{
  for (int W = 1; W <= MAXW; W++)
    for (int t = 0; t < 2; t++)
      for (int op = 0; op < 2; op++)
        for (size_t k = 0; k < NSIZES; k++)
        {
          muon_dtype dt = t ? MUON_F32 : MUON_F64;
          size_t n = SIZES[k], e = t ? 4 : 8;
          muon_comm *c = make (W);
          if (!c) return;
          const void *send[MAXW];
          void *recv[MAXW];
          for (int q = 0; q < W; q++)
          {
            void *s = malloc (n * e + 1);
            fill (s, dt, q, n, W, 0);
            send[q] = s;
            recv[q] = malloc (n * e + 1);
          }
          T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, n, dt, op), MUON_OK);
          int bad = 0;
          for (int q = 0; q < W; q++)
            for (size_t i = 0; i < n; i++)
            {
              double want = sum_closed (i, W);
              if (op == MUON_REDUCE_AVG)
                want = t ? (double) ((float) want / (float) W) : want / W;
              bad += get (recv[q], dt, i) != want;
            }
          T_ASSERT_MSG (bad == 0, "allreduce W %d dtype %d op %d n %zu: %d wrong", W, t, op, n,
                        bad);
          // the inputs are untouched
          for (int q = 0; q < W; q++)
            for (size_t i = 0; i < n; i++)
              bad += get (send[q], dt, i) != val (q, i, W);
          T_EQ_INT (bad, 0);
          // counters: calls; bytes as the model; 2 (W-1) n e summed over the ranks
          uint64_t tot_s = 0, tot_r = 0;
          for (int q = 0; q < W; q++)
          {
            muon_comm_counters k2;
            uint64_t ms, mr;
            muon_comm_counters_get (ctx, c, q, &k2);
            T_EQ_INT (k2.calls[MUON_COLL_ALLREDUCE], 1);
            muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, W, q, 0, n, dt, &ms, &mr);
            T_EQ_INT (k2.bytes_sent[MUON_COLL_ALLREDUCE], ms);
            T_EQ_INT (k2.bytes_recv[MUON_COLL_ALLREDUCE], mr);
            if (n % (size_t) W == 0)
              T_EQ_INT (ms, 2 * (uint64_t) (W - 1) * (n / W) * e);
            tot_s += k2.bytes_sent[MUON_COLL_ALLREDUCE];
            tot_r += k2.bytes_recv[MUON_COLL_ALLREDUCE];
          }
          T_EQ_INT (tot_s, 2 * (uint64_t) (W - 1) * n * e);
          T_EQ_INT (tot_r, tot_s);
          for (int q = 0; q < W; q++)
          {
            free ((void *) send[q]);
            free (recv[q]);
          }
          muon_comm_destroy (&c);
        }
}

static void test_reduce_scatter (void)
{
  for (int W = 1; W <= MAXW; W++)
    for (int t = 0; t < 2; t++)
      for (size_t k = 0; k < NSIZES; k++)
      {
        muon_dtype dt = t ? MUON_F32 : MUON_F64;
        size_t n = SIZES[k], e = t ? 4 : 8;   // n per rank, W n in
        muon_comm *c = make (W);
        if (!c) return;
        const void *send[MAXW];
        void *recv[MAXW];
        for (int q = 0; q < W; q++)
        {
          void *s = malloc (W * n * e + 1);
          fill (s, dt, q, W * n, W, 0);
          send[q] = s;
          recv[q] = malloc (n * e + 1);
        }
        T_EQ_INT (muon_comm_reduce_scatter (ctx, c, send, recv, n, dt, MUON_REDUCE_SUM),
                  MUON_OK);
        int bad = 0;
        for (int r = 0; r < W; r++)
          for (size_t i = 0; i < n; i++)
            bad += get (recv[r], dt, i) != sum_closed (r * n + i, W);
        T_ASSERT_MSG (bad == 0, "reduce_scatter W %d dtype %d n %zu: %d wrong", W, t, n, bad);
        for (int q = 0; q < W; q++)
        {
          muon_comm_counters k2;
          muon_comm_counters_get (ctx, c, q, &k2);
          T_EQ_INT (k2.calls[MUON_COLL_REDUCE_SCATTER], 1);
          T_EQ_INT (k2.bytes_sent[MUON_COLL_REDUCE_SCATTER], (uint64_t) (W - 1) * n * e);
          T_EQ_INT (k2.bytes_recv[MUON_COLL_REDUCE_SCATTER], (uint64_t) (W - 1) * n * e);
          free ((void *) send[q]);
          free (recv[q]);
        }
        muon_comm_destroy (&c);
      }
}

static void test_all_gather (void)
{
  for (int W = 1; W <= MAXW; W++)
    for (int t = 0; t < 2; t++)
      for (size_t k = 0; k < NSIZES; k++)
      {
        muon_dtype dt = t ? MUON_F32 : MUON_F64;
        size_t n = SIZES[k], e = t ? 4 : 8;
        muon_comm *c = make (W);
        if (!c) return;
        const void *send[MAXW];
        void *out[MAXW], *recv[MAXW * MAXW];
        for (int q = 0; q < W; q++)
        {
          void *s = malloc (n * e + 1);
          fill (s, dt, q, n, W, 0);
          send[q] = s;
          out[q] = malloc (W * n * e + 1);   // contiguous: slots point into one buffer
          for (int s2 = 0; s2 < W; s2++)
            recv[q * W + s2] = (char *) out[q] + s2 * n * e;
        }
        T_EQ_INT (muon_comm_all_gather (ctx, c, send, recv, n, dt), MUON_OK);
        int bad = 0;
        for (int l = 0; l < W; l++)
          for (int s2 = 0; s2 < W; s2++)
            for (size_t i = 0; i < n; i++)
              bad += get (out[l], dt, s2 * n + i) != val (s2, i, W);
        T_ASSERT_MSG (bad == 0, "all_gather W %d dtype %d n %zu: %d wrong", W, t, n, bad);
        for (int q = 0; q < W; q++)
        {
          muon_comm_counters k2;
          muon_comm_counters_get (ctx, c, q, &k2);
          T_EQ_INT (k2.bytes_sent[MUON_COLL_ALL_GATHER], (uint64_t) (W - 1) * n * e);
          T_EQ_INT (k2.bytes_recv[MUON_COLL_ALL_GATHER], (uint64_t) (W - 1) * n * e);
          free ((void *) send[q]);
          free (out[q]);
        }
        muon_comm_destroy (&c);
      }
}

// Ragged all-to-all: rank q sends rank r a block of n(q, r) = (3 q + 5 r + k) % 7 elements
// whose element i is val (q, 100 r + i, W) (0 to 6, some empty); every rank's recv must hold
// the blocks of ranks 0..W-1 in order, the counters the elements to and from the others.
static size_t a2a_n (int q, int r, int k) { return (size_t) ((3 * q + 5 * r + k) % 7); }

static void test_all_to_all (void)
{
  for (int W = 1; W <= MAXW; W++)
    for (int t = 0; t < 2; t++)
      for (int k = 0; k < 3; k++)
      {
        muon_dtype dt = t ? MUON_F32 : MUON_F64;
        size_t e = t ? 4 : 8, sc[MAXW * MAXW], rc[MAXW * MAXW];
        muon_comm *c = make (W);
        if (!c) return;
        const void *send[MAXW];
        void *recv[MAXW];
        for (int q = 0; q < W; q++)
        {
          size_t ns = 0, nr = 0;
          for (int r = 0; r < W; r++)
          {
            sc[q * W + r] = a2a_n (q, r, k);
            rc[q * W + r] = a2a_n (r, q, k);
            ns += sc[q * W + r];
            nr += rc[q * W + r];
          }
          char *s = malloc ((ns + 2 * (size_t) W) * e);   // room for the equal blocks below
          for (int r = 0, off = 0; r < W; off += (int) sc[q * W + r], r++)
            fill (s + off * e, dt, q, sc[q * W + r], W, 100 * (size_t) r);
          send[q] = s;
          recv[q] = calloc (nr + 2 * (size_t) W, e);
        }
        T_EQ_INT (muon_comm_all_to_all (ctx, c, send, sc, recv, rc, dt), MUON_OK);
        int bad = 0;
        for (int r = 0; r < W; r++)
        {
          size_t off = 0, sent = 0, got = 0;
          for (int q = 0; q < W; q++)
          {
            for (size_t i = 0; i < rc[r * W + q]; i++)
              bad += get (recv[r], dt, off + i) != val (q, 100 * (size_t) r + i, W);
            off += rc[r * W + q];
            if (q != r)
            {
              sent += sc[r * W + q];
              got += rc[r * W + q];
            }
          }
          muon_comm_counters k2;
          muon_comm_counters_get (ctx, c, r, &k2);
          T_EQ_INT (k2.calls[MUON_COLL_ALL_TO_ALL], 1);
          T_EQ_INT (k2.bytes_sent[MUON_COLL_ALL_TO_ALL], sent * e);
          T_EQ_INT (k2.bytes_recv[MUON_COLL_ALL_TO_ALL], got * e);
        }
        T_ASSERT_MSG (bad == 0, "all_to_all W %d dtype %d k %d: %d wrong", W, t, k, bad);
        // equal blocks: the counters are muon_comm_model_bytes's (W - 1) c each way
        size_t u[MAXW * MAXW];
        for (int i = 0; i < W * W; i++)
          u[i] = 2;
        muon_comm_counters_reset (ctx, c);
        T_EQ_INT (muon_comm_all_to_all (ctx, c, send, u, recv, u, dt), MUON_OK);
        for (int r = 0; r < W; r++)
        {
          muon_comm_counters k2;
          uint64_t ms = 0, mr = 0;
          muon_comm_counters_get (ctx, c, r, &k2);
          muon_comm_model_bytes (ctx, MUON_COLL_ALL_TO_ALL, W, r, 0, 2, dt, &ms, &mr);
          T_EQ_INT (k2.bytes_sent[MUON_COLL_ALL_TO_ALL], ms);
          T_EQ_INT (k2.bytes_recv[MUON_COLL_ALL_TO_ALL], mr);
          T_EQ_INT (ms, (uint64_t) (W - 1) * 2 * e);
        }
        for (int q = 0; q < W; q++)
        {
          free ((void *) send[q]);
          free (recv[q]);
        }
        muon_comm_destroy (&c);
      }
}

static void test_broadcast (void)
{
  for (int W = 1; W <= MAXW; W++)
    for (int root = 0; root < W; root++)
      for (int t = 0; t < 2; t++)
      {
        muon_dtype dt = t ? MUON_F32 : MUON_F64;
        size_t n = 11, e = t ? 4 : 8;
        muon_comm *c = make (W);
        if (!c) return;
        void *buf[MAXW];
        for (int q = 0; q < W; q++)
        {
          buf[q] = malloc (n * e);
          fill (buf[q], dt, q, n, W, 0);
        }
        T_EQ_INT (muon_comm_broadcast (ctx, c, buf, n, dt, root), MUON_OK);
        int bad = 0;
        for (int q = 0; q < W; q++)
          for (size_t i = 0; i < n; i++)
            bad += get (buf[q], dt, i) != val (root, i, W);
        T_ASSERT_MSG (bad == 0, "broadcast W %d root %d: %d wrong", W, root, bad);
        uint64_t tot = 0;
        for (int q = 0; q < W; q++)
        {
          muon_comm_counters k2;
          muon_comm_counters_get (ctx, c, q, &k2);
          int d = (q - root + W) % W;
          T_EQ_INT (k2.bytes_sent[MUON_COLL_BROADCAST], d < W - 1 ? n * e : 0);
          T_EQ_INT (k2.bytes_recv[MUON_COLL_BROADCAST], d > 0 ? n * e : 0);
          tot += k2.bytes_sent[MUON_COLL_BROADCAST];
          free (buf[q]);
        }
        T_EQ_INT (tot, (uint64_t) (W - 1) * n * e);   // (W-1)/W n per rank on average
        muon_comm_destroy (&c);
      }
}

//---- summation order, in place, aliasing, barrier, counters -------------------------------

static void test_sum_order (void)
{
  // rank order ((1e8 + 1) - 1e8) + 1 = 1 in float; pairwise (1e8 - 1e8) + (1 + 1) = 2
  muon_comm *c = NULL;
  T_EQ_INT (muon_comm_sim_create (ctx, 4, &c), MUON_OK);
  if (!c) return;
  float x[4][1] = { { 1e8f }, { 1.0f }, { -1e8f }, { 1.0f } }, y[4][1];
  const void *send[4] = { x[0], x[1], x[2], x[3] };
  void *recv[4] = { y[0], y[1], y[2], y[3] };
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, 1, MUON_F32, MUON_REDUCE_SUM), MUON_OK);
  for (int q = 0; q < 4; q++)
    T_EQ_DBL (y[q][0], 1.0f);
  volatile float pair = (x[0][0] + x[2][0]) + (x[1][0] + x[3][0]);
  T_EQ_DBL (pair, 2.0f);    // the order matters on this data
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, 1, MUON_F32, MUON_REDUCE_AVG), MUON_OK);
  T_EQ_DBL (y[3][0], 0.25f);
  muon_comm_destroy (&c);

  // random data, W = 1..8: bitwise equal to a hand loop in rank order, then / W
  unsigned seed = 99;
  for (int W = 1; W <= MAXW; W++)
  {
    enum { N = 257 };
    float xs[MAXW][N], ys[MAXW][N];
    double xd[MAXW][N], yd[MAXW][N];
    const void *sf[MAXW], *sd[MAXW];
    void *rf[MAXW], *rd[MAXW];
    for (int q = 0; q < W; q++)
    {
      for (int i = 0; i < N; i++)
      {
        seed = seed * 1664525u + 1013904223u;
        double u = ((seed >> 8) / 16777216.0 - 0.5) * pow (10.0, (int) (seed % 9) - 4);
        xs[q][i] = (float) u;
        xd[q][i] = u;
      }
      sf[q] = xs[q]; sd[q] = xd[q]; rf[q] = ys[q]; rd[q] = yd[q];
    }
    T_EQ_INT (muon_comm_sim_create (ctx, W, &c), MUON_OK);
    if (!c) return;
    T_EQ_INT (muon_comm_allreduce (ctx, c, sf, rf, N, MUON_F32, MUON_REDUCE_AVG), MUON_OK);
    T_EQ_INT (muon_comm_allreduce (ctx, c, sd, rd, N, MUON_F64, MUON_REDUCE_SUM), MUON_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
    {
      float af = xs[0][i];
      double ad = xd[0][i];
      for (int q = 1; q < W; q++)
      {
        af = af + xs[q][i];
        ad = ad + xd[q][i];
      }
      af = af / (float) W;
      for (int q = 0; q < W; q++)
        bad += memcmp (&ys[q][i], &af, sizeof af) != 0 || memcmp (&yd[q][i], &ad, sizeof ad) != 0;
    }
    T_ASSERT_MSG (bad == 0, "rank-order sum W %d: %d elements differ bitwise", W, bad);
    muon_comm_destroy (&c);
  }
}

static void test_in_place_and_aliasing (void)
{
  muon_comm *c = NULL;
  T_EQ_INT (muon_comm_sim_create (ctx, 3, &c), MUON_OK);
  if (!c) return;
  // in-place allreduce: recv[l] == send[l]
  double a[3][4];
  const void *send[3];
  void *recv[3];
  for (int q = 0; q < 3; q++)
  {
    fill (a[q], MUON_F64, q, 4, 3, 0);
    send[q] = recv[q] = a[q];
  }
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, 4, MUON_F64, MUON_REDUCE_SUM), MUON_OK);
  for (int q = 0; q < 3; q++)
    for (int i = 0; i < 4; i++)
      T_EQ_DBL (a[q][i], sum_closed (i, 3));

  // in-place reduce-scatter (recv inside send), MPI style
  double b[3][6];
  for (int q = 0; q < 3; q++)
  {
    fill (b[q], MUON_F64, q, 6, 3, 0);
    send[q] = b[q];
    recv[q] = b[q] + 2 * q;
  }
  T_EQ_INT (muon_comm_reduce_scatter (ctx, c, send, recv, 2, MUON_F64, MUON_REDUCE_SUM),
            MUON_OK);
  for (int q = 0; q < 3; q++)
    for (int i = 0; i < 2; i++)
      T_EQ_DBL (b[q][2 * q + i], sum_closed (2 * q + i, 3));

  // all_gather with every slot of a rank aliased to one buffer (the shipped pad bug):
  // each rank's buffer ends up holding the last source, rank 2's data
  double s[3][2], pad[3][2];
  void *slots[9];
  for (int q = 0; q < 3; q++)
  {
    fill (s[q], MUON_F64, q, 2, 3, 0);
    send[q] = s[q];
    for (int k = 0; k < 3; k++)
      slots[q * 3 + k] = pad[q];
  }
  T_EQ_INT (muon_comm_all_gather (ctx, c, send, slots, 2, MUON_F64), MUON_OK);
  for (int q = 0; q < 3; q++)
    for (int i = 0; i < 2; i++)
      T_EQ_DBL (pad[q][i], val (2, i, 3));
  // the idle-rank case: rank 1 sends the pad it also receives into (all its slots
  // aliased); rank 0 gathers into separate slots and sees what the pad held before the call,
  // because all inputs are read before any output is written
  double out0[3][2];
  for (int k = 0; k < 3; k++)
    slots[k] = out0[k];
  send[1] = pad[1];
  fill (pad[1], MUON_F64, 7, 2, 3, 0);
  T_EQ_INT (muon_comm_all_gather (ctx, c, send, slots, 2, MUON_F64), MUON_OK);
  for (int i = 0; i < 2; i++)
  {
    T_EQ_DBL (out0[0][i], val (0, i, 3));
    T_EQ_DBL (out0[1][i], val (7, i, 3));
    T_EQ_DBL (out0[2][i], val (2, i, 3));
    T_EQ_DBL (pad[1][i], val (2, i, 3));
  }
  muon_comm_destroy (&c);
}

int main (int argc, char **argv)
{
  (void) argc;
  if (muon_ctx_create (&ctx) != MUON_OK)
    return 1;
  srand (3);
  T_RUN (test_allreduce);
  T_RUN (test_reduce_scatter);
  T_RUN (test_all_gather);
  T_RUN (test_all_to_all);
  T_RUN (test_broadcast);
  T_RUN (test_sum_order);
  T_RUN (test_in_place_and_aliasing);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
