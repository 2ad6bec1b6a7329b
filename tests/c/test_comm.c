/* test_comm.c - the communicators (core/comm/comm_self.c, comm_sim.c): every collective
 * against its closed form for W = 1..8 in double and float, the fixed rank-order summation
 * (bitwise against a hand loop, on data where float order matters), in-place and aliased
 * buffers, byte counters against the closed forms of muon_comm.h, and every error code; the
 * ragged all-to-all against the blocks each rank wrote.
 */
#include <stdint.h>

#include "harness.h"
#include "muon.h"

// The NOMEM case asks for an impossible allocation: let ASan return NULL instead of aborting.
const char *__asan_default_options (void);
const char *__asan_default_options (void) { return "allocator_may_return_null=1"; }

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

static void test_queries_and_counters (void)
{
  muon_comm *c = NULL;
  T_EQ_INT (muon_comm_sim_create (ctx, 5, &c), MUON_OK);
  if (!c) return;
  T_EQ_INT (muon_comm_size (c), 5);
  T_EQ_INT (muon_comm_local_ranks (c), 5);
  T_EQ_INT (muon_comm_rank (c, 3), 3);
  T_EQ_INT (muon_comm_rank (c, 5), -1);
  T_EQ_INT (muon_comm_rank (NULL, 0), -1);
  T_EQ_STR (muon_comm_name (c), "sim");
  T_EQ_INT (muon_comm_counts_measured (c), 1);
  T_EQ_INT (muon_comm_barrier (ctx, c), MUON_OK);
  T_EQ_INT (muon_comm_barrier (ctx, c), MUON_OK);
  muon_comm_counters k;
  T_EQ_INT (muon_comm_counters_get (ctx, c, 4, &k), MUON_OK);
  T_EQ_INT (k.calls[MUON_COLL_BARRIER], 2);
  T_EQ_INT (k.bytes_sent[MUON_COLL_BARRIER], 0);
  // count 0 is a call with no bytes (and NULL buffers are fine)
  T_EQ_INT (muon_comm_allreduce (ctx, c, NULL, NULL, 0, MUON_F32, MUON_REDUCE_SUM), MUON_OK);
  T_EQ_INT (muon_comm_counters_get (ctx, c, 0, &k), MUON_OK);
  T_EQ_INT (k.calls[MUON_COLL_ALLREDUCE], 1);
  T_EQ_INT (k.bytes_sent[MUON_COLL_ALLREDUCE], 0);
  T_EQ_INT (muon_comm_counters_reset (ctx, c), MUON_OK);
  T_EQ_INT (muon_comm_counters_get (ctx, c, 4, &k), MUON_OK);
  T_EQ_INT (k.calls[MUON_COLL_BARRIER], 0);
  muon_comm_destroy (&c);

  T_EQ_INT (muon_comm_self_create (ctx, &c), MUON_OK);
  if (!c) return;
  T_EQ_STR (muon_comm_name (c), "self");
  T_EQ_INT (muon_comm_size (c), 1);
  T_EQ_INT (muon_comm_local_ranks (c), 1);
  double x[3] = { 1, 2, 3 }, y[3];
  const void *send[1] = { x };
  void *recv[1] = { y };
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, 3, MUON_F64, MUON_REDUCE_AVG), MUON_OK);
  T_EQ_DBL (y[2], 3);
  T_EQ_INT (muon_comm_broadcast (ctx, c, recv, 3, MUON_F64, 0), MUON_OK);
  T_EQ_INT (muon_comm_counters_get (ctx, c, 0, &k), MUON_OK);
  T_EQ_INT (k.calls[MUON_COLL_ALLREDUCE] + k.calls[MUON_COLL_BROADCAST], 2);
  T_EQ_INT (k.bytes_sent[MUON_COLL_ALLREDUCE] + k.bytes_recv[MUON_COLL_ALLREDUCE], 0);
  muon_comm_destroy (&c);

  // the model: broadcast from root 2 of 4, ranks in chain order 2 3 0 1
  uint64_t s, r;
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_BROADCAST, 4, 1, 2, 10, MUON_F32, &s, &r),
            MUON_OK);
  T_EQ_INT (s, 0);
  T_EQ_INT (r, 40);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 4, 3, 0, 10, MUON_F64, &s, &r),
            MUON_OK);
  T_EQ_INT (s, (10 - 3 + 3 * 3) * 8);   // chunks 2 3 2 3: rank 3 owns 3 elements
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_BARRIER, 4, 3, 0, 10, MUON_F64, &s, &r),
            MUON_OK);
  T_EQ_INT (s + r, 0);
  T_EQ_STR (muon_names (MUON_LIST_COLL, MUON_COLL_REDUCE_SCATTER), "reduce_scatter");
  T_ASSERT (muon_names (MUON_LIST_COLL, MUON_COLL_COUNT) == NULL);
}

//---- errors -------------------------------------------------------------------------------

static void test_errors (void)
{
  muon_comm *c = NULL, *one = NULL;
  T_EQ_INT (muon_comm_sim_create (NULL, 2, &c), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_sim_create (ctx, 2, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_self_create (NULL, &c), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_self_create (ctx, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_sim_create (ctx, 0, &c), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_sim_create (ctx, MUON_COMM_MAX_WORLD + 1, &c), MUON_ERR_BADARG);
  T_ASSERT (c == NULL);
  T_EQ_INT (muon_comm_destroy (NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_destroy (&c), MUON_OK);

  T_EQ_INT (muon_comm_sim_create (ctx, 2, &c), MUON_OK);
  T_EQ_INT (muon_comm_sim_create (ctx, 1, &one), MUON_OK);
  if (!c || !one) return;
  double a[2][4] = { { 0 } }, b[2][4] = { { 0 } };
  const void *send[2] = { a[0], a[1] };
  void *recv[2] = { b[0], b[1] };
  const void *send_null[2] = { a[0], NULL };
  void *recv_null[2] = { b[0], NULL };
  void *slots[4] = { b[0], b[0] + 1, b[1], b[1] + 1 };

  T_EQ_INT (muon_comm_allreduce (NULL, c, send, recv, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, NULL, send, recv, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, c, NULL, recv, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, NULL, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send_null, recv, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv_null, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, 4, (muon_dtype) 5, 0), MUON_ERR_BADTYPE);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, 4, MUON_F64, (muon_reduce_op) 9),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv, SIZE_MAX / 4, MUON_F64, 0),
            MUON_ERR_BADSHAPE);
  // rank 1 receiving into rank 0's buffer: no real rank can
  void *recv_shared[2] = { b[0], b[0] + 2 };
  T_EQ_INT (muon_comm_allreduce (ctx, c, send, recv_shared, 4, MUON_F64, 0), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx),
            "allreduce: buffers of ranks 0 and 1 overlap; each rank's buffers must be its own");
  const void *send_shared[2] = { a[0], a[0] };
  T_EQ_INT (muon_comm_allreduce (ctx, c, send_shared, recv, 4, MUON_F64, 0), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_reduce_scatter (ctx, c, send, recv, 2, MUON_F64, (muon_reduce_op) 9),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_reduce_scatter (ctx, c, send, recv, 2, MUON_F32, 0), MUON_OK);
  T_EQ_INT (muon_comm_reduce_scatter (NULL, c, send, recv, 2, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_reduce_scatter (ctx, NULL, send, recv, 2, MUON_F64, 0),
            MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_gather (ctx, c, send, slots, 2, (muon_dtype) -1), MUON_ERR_BADTYPE);
  T_EQ_INT (muon_comm_all_gather (ctx, c, send, NULL, 2, MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_gather (NULL, c, send, slots, 2, MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_gather (ctx, NULL, send, slots, 2, MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_gather (ctx, c, send, slots, 1, MUON_F64), MUON_OK);
  T_EQ_INT (muon_comm_broadcast (ctx, c, recv, 4, MUON_F64, 2), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_broadcast (ctx, c, recv, 4, MUON_F64, -1), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_broadcast (ctx, c, recv_null, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_broadcast (NULL, c, recv, 4, MUON_F64, 0), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_barrier (ctx, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_barrier (NULL, c), MUON_ERR_NULLPTR);

  // all_to_all: counts that disagree (rank 0 sends rank 1 two, rank 1 expects one), NULLs,
  // shared buffers, a bad dtype, overflowing counts
  size_t sc[4] = { 1, 2, 1, 1 }, rc[4] = { 1, 1, 1, 1 }, ok4[4] = { 1, 1, 1, 1 };
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send, sc, recv, rc, MUON_F64), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx),
            "all_to_all: rank 1 expects 1 elements from rank 0, which sends it 2");
  T_EQ_INT (muon_comm_all_to_all (NULL, c, send, ok4, recv, ok4, MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_to_all (ctx, NULL, send, ok4, recv, ok4, MUON_F64),
            MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send, NULL, recv, ok4, MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send_null, ok4, recv, ok4, MUON_F64),
            MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send, ok4, slots, ok4, MUON_F64),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send, ok4, recv, ok4, (muon_dtype) 7),
            MUON_ERR_BADTYPE);
  size_t zero[4] = { 0, 0, 0, 0 }, big[4] = { SIZE_MAX / 8, SIZE_MAX / 8, 0, 0 };
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send_null, zero, recv_null, zero, MUON_F64), MUON_OK);
  T_EQ_INT (muon_comm_all_to_all (ctx, c, send, big, recv, ok4, MUON_F64), MUON_ERR_BADSHAPE);

  muon_comm_counters k;
  T_EQ_INT (muon_comm_counters_get (ctx, c, 2, &k), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_counters_get (ctx, c, -1, &k), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_counters_get (ctx, c, 0, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_counters_get (NULL, c, 0, &k), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_counters_reset (ctx, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_counters_reset (NULL, c), MUON_ERR_NULLPTR);
  uint64_t s, r;
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 4, 4, 0, 1, MUON_F64, &s, &r),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 0, 0, 0, 1, MUON_F64, &s, &r),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_BROADCAST, 4, 0, 4, 1, MUON_F64, &s, &r),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_COUNT, 4, 0, 0, 1, MUON_F64, &s, &r),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 4, 0, 0, 1, (muon_dtype) 3, &s,
                                   &r), MUON_ERR_BADTYPE);
  T_EQ_INT (muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 4, 0, 0, 1, MUON_F64, NULL, &r),
            MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_model_bytes (NULL, MUON_COLL_ALLREDUCE, 4, 0, 0, 1, MUON_F64, &s, &r),
            MUON_ERR_NULLPTR);

  // staging an impossible size (one rank, so no overlap check on the huge spans)
  size_t huge = SIZE_MAX / 8 - 1;
  const void *s1[1] = { a[0] };
  void *r1[1] = { a[0] };
  T_EQ_INT (muon_comm_allreduce (ctx, one, s1, r1, huge, MUON_F64, 0), MUON_ERR_NOMEM);
  T_EQ_INT (muon_comm_broadcast (ctx, one, r1, huge, MUON_F64, 0), MUON_ERR_NOMEM);
  muon_comm_destroy (&c);
  muon_comm_destroy (&one);
}

// muon_comm_spec: every accepted description and every message of a rejected one
// The device-memory API on communicators of this process: sim and self move no device
// memory (every call UNSUPPORTED, before anything moves), count as the model says, and
// reduce in the fixed order.
static void test_device_api (void)
{
  muon_comm *s = NULL, *one = NULL;
  T_EQ_INT (muon_comm_sim_create (ctx, 3, &s), MUON_OK);
  T_EQ_INT (muon_comm_self_create (ctx, &one), MUON_OK);
  double x[12] = { 0 }, y[12] = { 0 };
  size_t cnt[3] = { 1, 1, 1 };
  for (int d = 0; d < 2; d++)
  {
    muon_device dev = d ? MUON_DEVICE_CUDA : MUON_DEVICE_CPU;
    T_ASSERT (!muon_comm_moves (s, dev) && !muon_comm_moves (one, dev) && !muon_comm_moves (NULL, dev));
    T_EQ_INT (muon_comm_device (ctx, s, dev, MUON_COLL_ALL_GATHER, x, y, 1, MUON_F64),
              MUON_ERR_UNSUPPORTED);
    T_EQ_INT (muon_comm_device (ctx, one, dev, MUON_COLL_ALLREDUCE, x, y, 1, MUON_F64),
              MUON_ERR_UNSUPPORTED);
    T_EQ_INT (muon_comm_device_all_to_all (ctx, one, dev, x, cnt, y, cnt, MUON_F64),
              MUON_ERR_UNSUPPORTED);
  }
  T_EQ_INT (muon_comm_device (ctx, s, MUON_DEVICE_CPU, MUON_COLL_ALL_GATHER, NULL, y, 1,
                              MUON_F64), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_reduction_of (s), MUON_COMM_REDUCTION_FIXED);
  T_EQ_INT (muon_comm_reduction_of (NULL), MUON_COMM_REDUCTION_FIXED);
  // counted as the model: an allreduce of 12 doubles on every local rank
  muon_comm_counters_reset (ctx, s);
  T_EQ_INT (muon_comm_count (ctx, s, MUON_COLL_ALLREDUCE, 12, MUON_F64), MUON_OK);
  for (int l = 0; l < 3; l++)
  {
    muon_comm_counters c;
    uint64_t sent, recv;
    muon_comm_counters_get (ctx, s, l, &c);
    muon_comm_model_bytes (ctx, MUON_COLL_ALLREDUCE, 3, l, 0, 12, MUON_F64, &sent, &recv);
    T_ASSERT (c.calls[MUON_COLL_ALLREDUCE] == 1 && c.bytes_sent[MUON_COLL_ALLREDUCE] == sent
              && c.bytes_recv[MUON_COLL_ALLREDUCE] == recv && sent == 16 * 8);
  }
  T_EQ_INT (muon_comm_count (ctx, s, MUON_COLL_COUNT, 1, MUON_F64), MUON_ERR_BADARG);
  T_EQ_INT (muon_comm_count (ctx, NULL, MUON_COLL_ALLREDUCE, 1, MUON_F64), MUON_ERR_NULLPTR);
  muon_comm_destroy (&s);
  muon_comm_destroy (&one);
}

static void test_spec (void)
{
  muon_comm_kind k;
  muon_comm_reduction r;
  static const struct { const char *kind, *red; int size; muon_comm_kind k; int r; } ok[] = {
    { "sim", "fixed", -1, MUON_COMM_SIM, MUON_COMM_REDUCTION_FIXED },
    { "sim", "fixed", MUON_COMM_MAX_WORLD, MUON_COMM_SIM, MUON_COMM_REDUCTION_FIXED },
    { "self", "fixed", 1, MUON_COMM_SELF, MUON_COMM_REDUCTION_FIXED },
    { "self", "fixed", -1, MUON_COMM_SELF, MUON_COMM_REDUCTION_FIXED },
    { "mpi", "fixed", 3, MUON_COMM_MPI, MUON_COMM_REDUCTION_FIXED },
    { "mpi", "mpi", -1, MUON_COMM_MPI, MUON_COMM_REDUCTION_LIBRARY },
    { "mpi", "library", -1, MUON_COMM_MPI, MUON_COMM_REDUCTION_LIBRARY },
    { "nccl", "nccl", -1, MUON_COMM_NCCL, MUON_COMM_REDUCTION_LIBRARY },
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
  {
    T_EQ_INT (muon_comm_spec (ctx, ok[i].kind, ok[i].red, ok[i].size, &k, &r), MUON_OK);
    T_EQ_INT (k, ok[i].k);
    T_EQ_INT (r, ok[i].r);
  }
  static const struct { const char *kind, *red; int size; const char *msg; } bad[] = {
    { "tcp", "fixed", -1, "unknown communicator kind 'tcp'" },
    { "sim", "mpi", 2, "a sim communicator has only the 'fixed' reduction" },
    { "self", "self", -1, "a self communicator has only the 'fixed' reduction" },
    { "self", "fixed", 2, "a self communicator has size 1, not 2" },
    { "sim", "fixed", 0, "the world size must be an integer in 1..65536" },
    { "sim", "fixed", MUON_COMM_MAX_WORLD + 1, "the world size must be an integer in 1..65536" },
    { "mpi", "nccl", -1, "the reduction of an mpi communicator must be 'fixed' or 'mpi'" },
    { "nccl", "max", -1, "the reduction of a nccl communicator must be 'fixed' or 'nccl'" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
  {
    T_EQ_INT (muon_comm_spec (ctx, bad[i].kind, bad[i].red, bad[i].size, &k, &r),
              MUON_ERR_BADARG);
    T_EQ_STR (muon_ctx_last_error (ctx), bad[i].msg);
  }
  T_EQ_INT (muon_comm_spec (NULL, "sim", "fixed", -1, &k, &r), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_spec (ctx, NULL, "fixed", -1, &k, &r), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_spec (ctx, "sim", NULL, -1, &k, &r), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_spec (ctx, "sim", "fixed", -1, NULL, &r), MUON_ERR_NULLPTR);
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
  T_RUN (test_queries_and_counters);
  T_RUN (test_errors);
  T_RUN (test_spec);
  T_RUN (test_device_api);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
