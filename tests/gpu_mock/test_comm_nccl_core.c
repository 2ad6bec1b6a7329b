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
 * 4. Errors without a GPU: the plug-in missing (MUON_NCCL_LIB=/nonexistent: NOTBUILT naming
 *    the file), a library that is not the plug-in (libm.so.6: NOTBUILT "libm.so.6 does not
 *    provide ..."), no device (MOCK_DEVICES=0, and cudaGetDeviceCount failing: NODEVICE),
 *    MUON_NCCL_LIB empty (the plug-in beside this binary, plugin.c's second place), bad
 *    arguments (NULL pointers, unknown reductions, a bootstrap of two local ranks, bad
 *    counts, roots, types and collectives) with comm_nccl.c's / comm_coll.c's statuses.
 * 5. Every counted CUDA / NCCL call of muon_comm_nccl_create and of each collective failing
 *    in turn (cuda_mock.cc's mock_fail_at): MUON_ERR_CUDA for a CUDA call, MUON_ERR_NCCL
 *    for an NCCL call (a failing cudaPointerGetAttributes is tolerated: the buffer is staged
 *    as host memory), a message "nccl: ...", no communicator from a failed create, nothing
 *    queued on a stream, and the next call on the same communicator right.  Each failing
 *    collective runs on a fresh communicator, so its first allocations are swept too.
 * Prints "test_comm_nccl_core: N passed, N failed" (harness.h); with MUON_RESULTS set it
 * writes "gpu-mock N M" there, a line of make check's gpu-mock layer.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "harness.h"
#include "muon.h"

// cuda_mock.cc's control functions
void mock_fail_at (long k);
long mock_calls (void);
const char *mock_last_hit (void);
void mock_count_all (int on);
long mock_pending (void);

static muon_ctx *ctx;
static char plugin[4096];          // the mock-built libmuon_nccl.so ($MUON_NCCL_LIB at start)

// one test: its assertions all hold (harness.h's case counters, named when it begins)
static const char *case_what;
static void case_begin (const char *what) { t_case_begin (); case_what = what; }
static void case_end (void) { t_case_end (case_what); }

static const char *msg (void) { const char *m = muon_ctx_last_error (ctx); return m ? m : ""; }
static int has (const char *s, const char *part) { return s && strstr (s, part) != NULL; }

static size_t esize (muon_dtype t) { return t == MUON_F32 ? 4 : 8; }

static void use_plugin (const char *path) { setenv ("MUON_NCCL_LIB", path, 1); }

static muon_comm *nccl (muon_comm *boot, int library)
{
  muon_comm *c = NULL;
  mock_fail_at (0);
  muon_status st = muon_comm_nccl_create (ctx, boot, library, &c);
  T_ASSERT_MSG (st == MUON_OK && c != NULL, "nccl create: status %d (%s)", (int) st, msg ());
  return c;
}

static muon_comm *sim (void)
{
  muon_comm *c = NULL;
  muon_status st = muon_comm_sim_create (ctx, 1, &c);
  T_ASSERT_MSG (st == MUON_OK && c != NULL, "sim create: status %d (%s)", (int) st, msg ());
  return c;
}

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

enum { ALLREDUCE, REDUCE_SCATTER, ALL_GATHER, BROADCAST, BARRIER, ALL_TO_ALL, NOPS };
static const char *op_name[NOPS] = { "allreduce", "reduce_scatter", "all_gather", "broadcast",
                                     "barrier", "all_to_all" };

static double value (size_t i)
{
  return (double) ((i * 7919u) % 1013u) / 7.0 - 61.0 + 1e-9 * (double) i;
}

// layouts of a call's buffers within one allocation of 2 n + 1 elements
enum { APART, IN_PLACE, OVERLAP, NLAYOUTS };
static const char *layout_name[NLAYOUTS] = { "apart", "in place", "overlapping" };

// One collective on c, its buffers inside buf (2 n + 1 elements of e bytes, filled by the
// caller): send at 0, recv at n + 1 (apart), 0 (in place) or 1 (overlapping).
static muon_status run_op (muon_comm *c, int op, char *buf, size_t n, muon_dtype t,
                           muon_reduce_op rop, int layout)
{
  size_t e = esize (t);
  const void *send[1] = { buf };
  void *recv[1] = { buf + (layout == APART ? n + 1 : layout == IN_PLACE ? 0 : 1) * e };
  size_t counts[1] = { n };
  switch (op)
  {
    case ALLREDUCE: return muon_comm_allreduce (ctx, c, send, recv, n, t, rop);
    case REDUCE_SCATTER: return muon_comm_reduce_scatter (ctx, c, send, recv, n, t, rop);
    case ALL_GATHER: return muon_comm_all_gather (ctx, c, send, recv, n, t);
    case BROADCAST: return muon_comm_broadcast (ctx, c, recv, n, t, 0);
    case BARRIER: return muon_comm_barrier (ctx, c);
    default: return muon_comm_all_to_all (ctx, c, send, counts, recv, counts, t);
  }
}

static void fill (char *buf, size_t n, muon_dtype t)
{
  for (size_t i = 0; i < 2 * n + 1; i++)
    if (t == MUON_F64)
      ((double *) buf)[i] = i <= n ? value (i) : -999.0;
    else
      ((float *) buf)[i] = i <= n ? (float) value (i) : -999.0f;
}

static int same_counters (const muon_comm *a, const muon_comm *b)
{
  muon_comm_counters x, y;
  memset (&x, 0, sizeof x);
  memset (&y, 1, sizeof y);
  return muon_comm_counters_get (ctx, a, 0, &x) == MUON_OK
         && muon_comm_counters_get (ctx, b, 0, &y) == MUON_OK && memcmp (&x, &y, sizeof x) == 0;
}

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

//---- 4. errors without a GPU ----------------------------------------------------------------

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

//---- 5. CUDA and NCCL calls failing ---------------------------------------------------------

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
  const char *lib = getenv ("MUON_NCCL_LIB");
  if (lib == NULL || *lib == '\0' || muon_ctx_create (&ctx) != MUON_OK)
  {
    printf ("test_comm_nccl_core: set MUON_NCCL_LIB to the mock-built libmuon_nccl.so\n");
    return 1;
  }
  snprintf (plugin, sizeof plugin, "%s", lib);
  mock_count_all (1);                          // cudaSetDevice and friends can fail too
  creation ();
  collectives ();
  set_reduction ();
  device_memory ();
  errors ();
  use_plugin (plugin);
  create_sweep ();
  collective_sweep ();
  muon_ctx_destroy (&ctx);
  int rc = T_DONE (argv[0]);
  const char *res = getenv ("MUON_RESULTS");
  FILE *f = res ? fopen (res, "w") : NULL;
  if (f)
  {
    fprintf (f, "gpu-mock %ld %ld\n", t_tests_passed, t_tests_failed);
    fclose (f);
  }
  return rc;
}
