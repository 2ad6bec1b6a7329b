/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_cuda_update_mock.c - the update entry of libmuon_cuda.so (core/gpu/opt_cuda.cu) built
 * against the host stand-in of the CUDA runtime (cuda_mock.cc), called directly through the
 * ABI table (ns_cuda_abi.h) as a caller other than libmuon would, run by
 * `make check-gpu-mock` with no GPU.
 *
 * A call the plug-in refuses (bad precision, bad steps, row blocks that do not sum to the
 * rows) must leave M as it was: the status, a message, and not one counted CUDA call
 * (cuda_mock.cc counts launches, copies, memsets and event records), so no kernel was
 * queued that writes M.  The mock's kernels do nothing, so M's bytes alone cannot tell; the
 * count can (before the checks moved, the refused call recorded an event and launched the
 * momentum kernel on M first).  A valid call on the same tensors is the control: it
 * succeeds and makes counted calls.
 * Prints "test_cuda_update_mock: N passed, N failed" (harness.h); with MUON_RESULTS set it
 * writes "gpu-mock N M" there, a line of make check's gpu-mock layer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ns_cuda_abi.h"

// cuda_mock.cc's control functions
void mock_fail_at (long k);
long mock_calls (void);
long mock_pending (void);

#define R 6
#define C 4
#define NE (R * C)

static muon_cuda_api api;
static void *state;
static muon_tensor G, M, U;
static double coef[3 * 5];
static const int steps = 5;

static muon_tensor dev_tensor (void *data)
{
  muon_tensor t = { MUON_F64, MUON_DEVICE_CUDA, R, C, 1, R, (size_t) NE, data };
  return t;
}

static void setup (void)
{
  char msg[256] = "";
  void *g = NULL, *m = NULL, *u = NULL;
  T_EQ_INT (api.alloc (&state, NE * sizeof (double), &g, msg, sizeof msg), MUON_OK);
  T_EQ_INT (api.alloc (&state, NE * sizeof (double), &m, msg, sizeof msg), MUON_OK);
  T_EQ_INT (api.alloc (&state, NE * sizeof (double), &u, msg, sizeof msg), MUON_OK);
  for (int i = 0; i < NE; i++)                  // mock device memory is host-addressable
  {
    ((double *) g)[i] = 0.5 * i - 3;
    ((double *) m)[i] = 100.0 + i;
    ((double *) u)[i] = 0;
  }
  G = dev_tensor (g);
  M = dev_tensor (m);
  U = dev_tensor (u);
  for (int k = 0; k < steps; k++)               // Keller's quintic, any valid numbers do
  {
    coef[3 * k] = 3.4445;
    coef[3 * k + 1] = -4.7750;
    coef[3 * k + 2] = 2.0315;
  }
}

// One refused call: its status, a message, no counted CUDA call, nothing queued, M intact.
static void refused (const char *what, const muon_update_opts *o, int n, muon_status want)
{
  char msg[256] = "";
  double before[NE];
  memcpy (before, M.data, sizeof before);
  mock_fail_at (0);                             // count from here, fail nothing
  muon_status st = api.update (&state, &G, &M, &U, o, coef, n, msg, sizeof msg);
  long calls = mock_calls ();
  T_ASSERT_MSG (st == want, "%s: status %d, want %d (%s)", what, (int) st, (int) want, msg);
  T_ASSERT_MSG (msg[0] != '\0', "%s: no message", what);
  T_ASSERT_MSG (calls == 0, "%s: %ld CUDA calls (launches, event records) before the "
                "refusal, want 0: M was queued for writing", what, calls);
  T_ASSERT_MSG (mock_pending () == 0, "%s: %ld operations left queued", what, mock_pending ());
  T_ASSERT_MSG (memcmp (before, M.data, sizeof before) == 0, "%s: M changed", what);
}

static void test_refused_leave_m (void)
{
  muon_update_opts o;
  muon_update_opts_default (&o);
  o.ns.precision = MUON_PREC_DOUBLE;
  o.ns.device = MUON_DEVICE_CUDA;

  muon_update_opts bad = o;
  bad.ns.precision = (muon_precision) 99;
  refused ("precision 99", &bad, steps, MUON_ERR_BADARG);
  bad.nesterov = 0;                             // the plain momentum path too
  refused ("precision 99, no Nesterov", &bad, steps, MUON_ERR_BADARG);
  refused ("steps 0", &o, 0, MUON_ERR_BADARG);
  refused ("steps -3", &o, -3, MUON_ERR_BADARG);
  size_t split[2] = { 2, 3 };                   // 5 of the 6 rows
  bad = o;
  bad.split_rows = split;
  bad.nsplit = 2;
  refused ("row blocks 2 + 3 of 6 rows", &bad, steps, MUON_ERR_BADSHAPE);
  size_t split0[2] = { 0, 6 };
  bad.split_rows = split0;
  refused ("an empty row block", &bad, steps, MUON_ERR_BADSHAPE);
  bad.split_rows = NULL;
  refused ("nsplit 2, split_rows NULL", &bad, steps, MUON_ERR_BADARG);

  // the control: the same tensors and a valid call go through, with counted calls
  char msg[256] = "";
  mock_fail_at (0);
  muon_status st = api.update (&state, &G, &M, &U, &o, coef, steps, msg, sizeof msg);
  T_ASSERT_MSG (st == MUON_OK || st == MUON_WARN_NONFINITE, "valid call: %d (%s)", (int) st,
                msg);
  T_ASSERT_MSG (mock_calls () > 0, "valid call: %ld counted calls", mock_calls ());
  bad = o;
  size_t split1[2] = { 2, 4 };
  bad.split_rows = split1;
  bad.nsplit = 2;
  mock_fail_at (0);
  st = api.update (&state, &G, &M, &U, &bad, coef, steps, msg, sizeof msg);
  T_ASSERT_MSG (st == MUON_OK || st == MUON_WARN_NONFINITE, "row blocks 2 + 4: %d (%s)",
                (int) st, msg);
}

int main (int argc, char **argv)
{
  (void) argc;
  if (muon_cuda_get_api (MUON_CUDA_ABI, &api) != MUON_OK)
  {
    printf ("test_cuda_update_mock: the plug-in does not start\n");
    return 1;
  }
  T_RUN (setup);
  T_RUN (test_refused_leave_m);
  api.free (state, G.data);
  api.free (state, M.data);
  api.free (state, U.data);
  api.release (state);
  return t_done_results (argv[0], "gpu-mock");
}
