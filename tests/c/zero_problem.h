/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_problem.h - the test problem of the ZeRO step tests (test_zero_step.c,
 * test_zero_step_api.c, test_zero_step_device.c): np matrices of given shapes on W ranks, a
 * layout of them, and each rank's gradient of each matrix (uniform in [-1, 1), harness.h's
 * stream).  Uses the including test's context `ctx`.
 */
#ifndef MUON_ZERO_PROBLEM_H
#define MUON_ZERO_PROBLEM_H

#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "muon.h"

static muon_ctx *ctx;

#define MAXP 6
#define MAXW 5

typedef struct {
  int W;
  size_t np, rows[MAXP], cols[MAXP];
  muon_zero_layout *L;
  double *g[MAXW * MAXP];           // g[r * np + p], column-major
} problem;


static void problem_init (problem *pb, int W, size_t np, const size_t *rows,
                          const size_t *cols, int stage, muon_zero_order order)
{
  memset (pb, 0, sizeof *pb);
  pb->W = W;
  pb->np = np;
  memcpy (pb->rows, rows, np * sizeof *rows);
  memcpy (pb->cols, cols, np * sizeof *cols);
  muon_zero_layout_opts o = { stage, 2, order };
  T_EQ_INT (muon_zero_layout_create (ctx, np, rows, cols, W, &o, &pb->L), MUON_OK);
  for (int r = 0; r < W; r++)
    for (size_t p = 0; p < np; p++)
    {
      size_t n = rows[p] * cols[p];
      double *a = pb->g[r * np + p] = malloc (n * sizeof *a);
      for (size_t i = 0; i < n; i++)
        a[i] = t_urand ();
    }
}

static void problem_free (problem *pb)
{
  for (size_t i = 0; i < (size_t) pb->W * pb->np; i++)
    free (pb->g[i]);
  muon_zero_layout_destroy (&pb->L);
}

#endif
