/* test_interrupt.c - the context's interrupt poll (muon_ctx_set_interrupt_poll): muon_ns polls
 * between pages and Newton-Schulz steps on the calling thread; a poll returning nonzero stops
 * the call with MUON_ERR_INTERRUPTED ("interrupted"), one returning 0 changes no bit of the
 * result (standard and Gram paths, double and single), and the context works on afterwards;
 * the ZeRO step (a muon_ns per matrix) stops the same way, freeing what it made (the
 * sanitizers' leak check).
 */
#include <string.h>

#include "harness.h"
#include "zero_problem.h"   // (the context `ctx`)

typedef struct {
  int calls;      // polls so far
  int stop_at;    // the poll that returns 1 first (0: never)
} poll_state;

static int poll_fn (void *arg)
{
  poll_state *s = arg;
  s->calls++;
  return s->stop_at > 0 && s->calls >= s->stop_at;
}

enum { ROWS = 12, COLS = 40, PAGES = 2, STEPS = 7 };

// X = muon_ns (G) for a fixed G, page 2 x ROWS x COLS, in `dtype`, method `method`.
static muon_status run (muon_dtype dtype, int method, void *x)
{
  static double g64[ROWS * COLS * PAGES];
  static float g32[ROWS * COLS * PAGES];
  t_rng = 777;
  for (int i = 0; i < ROWS * COLS * PAGES; i++)
    g32[i] = (float) (g64[i] = t_urand () - 0.5);
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.method = method;
  o.steps = STEPS;
  o.precision = dtype == MUON_F64 ? MUON_PREC_DOUBLE : MUON_PREC_SINGLE;
  muon_tensor g = muon_tensor_batch (dtype, dtype == MUON_F64 ? (void *) g64 : (void *) g32,
                                     ROWS, COLS, PAGES);
  muon_tensor t = muon_tensor_batch (dtype, x, ROWS, COLS, PAGES);
  return muon_ns (ctx, &g, &t, &o);
}

static void test_setter (void)
{
  poll_state s = { 0, 0 };
  T_EQ_INT (muon_ctx_set_interrupt_poll (NULL, poll_fn, &s), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, poll_fn, &s), MUON_OK);
  T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, NULL, NULL), MUON_OK);
  T_EQ_STR (muon_status_id (MUON_ERR_INTERRUPTED), "interrupted");
  T_EQ_STR (muon_status_string (MUON_ERR_INTERRUPTED), "interrupted");
}

// A poll that never fires: the same bits as no poll, and it is called once per page and step.
static void test_no_change (void)
{
  static double ref[ROWS * COLS * PAGES], got[ROWS * COLS * PAGES];
  int methods[2] = { MUON_NS_STANDARD, MUON_NS_GRAM };
  muon_dtype dtypes[2] = { MUON_F64, MUON_F32 };
  for (int m = 0; m < 2; m++)
    for (int d = 0; d < 2; d++)
    {
      size_t bytes = (size_t) ROWS * COLS * PAGES * (dtypes[d] == MUON_F64 ? 8 : 4);
      memset (ref, 0, sizeof ref);
      memset (got, 0xff, sizeof got);
      T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, NULL, NULL), MUON_OK);
      T_EQ_INT (run (dtypes[d], methods[m], ref), MUON_OK);
      poll_state s = { 0, 0 };
      T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, poll_fn, &s), MUON_OK);
      T_EQ_INT (run (dtypes[d], methods[m], got), MUON_OK);
      T_ASSERT_MSG (memcmp (ref, got, bytes) == 0, "method %d dtype %d: bits differ", m, d);
      T_EQ_INT (s.calls, PAGES * (STEPS + 1));      // each page, and each of its steps
    }
  muon_ctx_set_interrupt_poll (ctx, NULL, NULL);
}

// A poll that fires: MUON_ERR_INTERRUPTED with "interrupted", at once or in the middle of a
// page, on both paths; the context then runs the same call to the same bits.
static void test_stops (void)
{
  static double ref[ROWS * COLS * PAGES], got[ROWS * COLS * PAGES];
  int methods[2] = { MUON_NS_STANDARD, MUON_NS_GRAM };
  int stops[3] = { 1, 4, PAGES * (STEPS + 1) };     // before anything, page 1 step 3, last step
  for (int m = 0; m < 2; m++)
    for (int k = 0; k < 3; k++)
    {
      T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, NULL, NULL), MUON_OK);
      T_EQ_INT (run (MUON_F64, methods[m], ref), MUON_OK);
      poll_state s = { 0, stops[k] };
      T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, poll_fn, &s), MUON_OK);
      T_EQ_INT (run (MUON_F64, methods[m], got), MUON_ERR_INTERRUPTED);
      T_EQ_INT (s.calls, stops[k]);                 // stopped at the first nonzero poll
      T_EQ_INT (muon_ctx_last_status (ctx), MUON_ERR_INTERRUPTED);
      T_EQ_STR (muon_ctx_last_error (ctx), "interrupted");
      T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, NULL, NULL), MUON_OK);
      T_EQ_INT (run (MUON_F64, methods[m], got), MUON_OK);
      T_ASSERT (memcmp (ref, got, sizeof ref) == 0);
    }
}

// The ZeRO step on two simulated ranks: interrupted at its first poll and at a later one
// (another page or matrix), then the same bits as before once the poll is gone.
static void test_zero_step (void)
{
  problem pb;
  size_t rows[] = { 3, 2 }, cols[] = { 4, 5 };
  problem_init (&pb, 2, 2, rows, cols, 2, MUON_ZERO_ORDER_GIVEN);
  muon_zero_plan *P = NULL;
  muon_comm *c = NULL;
  muon_zero_step_opts o;
  muon_zero_step_opts_default (&o);
  T_EQ_INT (muon_zero_plan_create (ctx, pb.L, o.variant, &P), MUON_OK);
  T_EQ_INT (muon_comm_sim_create (ctx, 2, &c), MUON_OK);
  double m[2][32], u[2][32], ref[2][32];
  double *mom[2] = { m[0], m[1] }, *upd[2] = { u[0], u[1] };
  const double *const *g = (const double *const *) pb.g;
  memset (m, 0, sizeof m);
  memset (u, 0, sizeof u);
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_OK);
  memcpy (ref, u, sizeof u);
  int stops[2] = { 1, 2 };
  for (int k = 0; k < 2; k++)
  {
    poll_state s = { 0, stops[k] };
    memset (m, 0, sizeof m);
    T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, poll_fn, &s), MUON_OK);
    T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_ERR_INTERRUPTED);
    T_EQ_INT (s.calls, stops[k]);
    T_EQ_STR (muon_ctx_last_error (ctx), "interrupted");
  }
  T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, NULL, NULL), MUON_OK);
  memset (m, 0, sizeof m);
  memset (u, 0, sizeof u);
  T_EQ_INT (muon_zero_step (ctx, c, P, &o, g, mom, upd, NULL), MUON_OK);
  T_ASSERT (memcmp (ref, u, sizeof u) == 0);
  muon_comm_destroy (&c);
  muon_zero_plan_destroy (&P);
  problem_free (&pb);
}

int main (int argc, char **argv)
{
  (void) argc;
  muon_ctx_create (&ctx);
  T_RUN (test_setter);
  T_RUN (test_no_change);
  T_RUN (test_stops);
  T_RUN (test_zero_step);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
