/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_interrupt.c - the context's interrupt poll (muon_ctx_set_interrupt_poll): muon_ns polls
 * between pages and Newton-Schulz steps on the calling thread; a poll returning nonzero stops
 * the call with MUON_ERR_INTERRUPTED ("interrupted"), one returning 0 changes no bit of the
 * result (standard and Gram paths, double and single), and the context works on afterwards;
 * the ZeRO step (a muon_ns per matrix) stops the same way, freeing what it made (the
 * sanitizers' leak check).
 */
#include <stdio.h>
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

// A poll that calls libmuon with the context of the call that polls it (finding 1 of the C
// API review: muon_ctx_release freed the running muon_ns's workspace, a use-after-free; a
// nested muon_ns reused it and 512 of 2048 results were wrong): each such call is refused
// with BADARG and its message, the running call's result is bit for bit the call's without
// a poll, and the poll may still use another context.
typedef struct {
  int calls;
  muon_status release, ns, destroy, other;
  char release_msg[160], ns_msg[160];
  int destroy_kept;     // muon_ctx_destroy left the handle alone
  muon_darray *arr;     // an array of ctx, which the poll may not destroy
  muon_status arr_destroy;
} reentry_state;

static int poll_reenter (void *arg)
{
  reentry_state *s = arg;
  if (++s->calls != 3)
    return 0;
  size_t freed = 12345;
  s->release = muon_ctx_release (ctx, 0, &freed);
  snprintf (s->release_msg, sizeof s->release_msg, "%s", muon_ctx_last_error (ctx));
  if (freed != 12345)
    s->release = 99;                          // (it must touch nothing)
  double a[4] = { 1, 2, 3, 4 }, b[4] = { 7, 7, 7, 7 };
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  muon_tensor A = muon_tensor_matrix (MUON_F64, a, 2, 2);
  muon_tensor B = muon_tensor_matrix (MUON_F64, b, 2, 2);
  s->ns = muon_ns (ctx, &A, &B, &o);
  snprintf (s->ns_msg, sizeof s->ns_msg, "%s", muon_ctx_last_error (ctx));
  if (b[0] != 7 || b[3] != 7)
    s->ns = 99;
  muon_ctx *c = ctx;
  s->destroy = muon_ctx_destroy (&c);
  s->destroy_kept = c == ctx;
  muon_darray *arr = s->arr;
  s->arr_destroy = muon_darray_destroy (ctx, &arr);
  if (arr != s->arr)
    s->arr_destroy = 99;
  muon_ctx *other = NULL;                     // another context is fine
  muon_ctx_create (&other);
  s->other = muon_ns (other, &A, &B, &o);
  muon_ctx_destroy (&other);
  return 0;
}

static void test_reentry (void)
{
  static double ref[ROWS * COLS * PAGES], got[ROWS * COLS * PAGES];
  const char *busy =
    "the context is in use by a running call (called from its interrupt poll?)";
  int methods[2] = { MUON_NS_STANDARD, MUON_NS_GRAM };
  for (int m = 0; m < 2; m++)
  {
    memset (ref, 0, sizeof ref);
    memset (got, 0xff, sizeof got);
    T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, NULL, NULL), MUON_OK);
    T_EQ_INT (run (MUON_F64, methods[m], ref), MUON_OK);
    reentry_state s = { 0, 0, 0, 0, 0, "", "", 0, NULL, 0 };
    T_EQ_INT (muon_darray_create (ctx, MUON_DEVICE_CPU, MUON_PREC_DOUBLE, 2, 2, 1, &s.arr),
              MUON_OK);
    T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, poll_reenter, &s), MUON_OK);
    T_EQ_INT (run (MUON_F64, methods[m], got), MUON_OK);
    T_ASSERT_MSG (memcmp (ref, got, sizeof ref) == 0, "method %d: bits differ", m);
    T_EQ_INT (s.release, MUON_ERR_BADARG);
    T_EQ_STR (s.release_msg, busy);
    T_EQ_INT (s.ns, MUON_ERR_BADARG);
    T_EQ_STR (s.ns_msg, busy);
    T_EQ_INT (s.destroy, MUON_ERR_BADARG);
    T_EQ_INT (s.destroy_kept, 1);
    T_EQ_INT (s.arr_destroy, MUON_ERR_BADARG);
    T_EQ_INT (s.other, MUON_OK);
    // the poll is done: the context takes calls again
    T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, NULL, NULL), MUON_OK);
    T_EQ_INT (muon_ctx_release (ctx, 0, NULL), MUON_OK);
    T_EQ_INT (muon_darray_destroy (ctx, &s.arr), MUON_OK);
  }
  // a poll that stops the call clears the guard too
  poll_state st = { 0, 2 };
  T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, poll_fn, &st), MUON_OK);
  T_EQ_INT (run (MUON_F64, MUON_NS_STANDARD, got), MUON_ERR_INTERRUPTED);
  T_EQ_INT (muon_ctx_release (ctx, 0, NULL), MUON_OK);
  T_EQ_INT (muon_ctx_set_interrupt_poll (ctx, NULL, NULL), MUON_OK);
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
  T_RUN (test_reentry);
  T_RUN (test_zero_step);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
