/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* update_fixture.h - what the update tests (test_update.c, test_update_errors.c) share: a
 * deterministic fill in (-1, 1), two norms, fp64 options, the 6 x 10 problem size, and
 * ASan's allocator returning NULL for huge sizes (MUON_ERR_NOMEM, not an abort).
 */
#ifndef MUON_UPDATE_FIXTURE_H
#define MUON_UPDATE_FIXTURE_H

#include <math.h>
#include <stddef.h>

#include "muon.h"

// Huge allocations must come back as NULL (MUON_ERR_NOMEM), not abort under ASan.
const char *__asan_default_options (void);
const char *__asan_default_options (void)
{
  return "allocator_may_return_null=1";
}

// Deterministic pseudo-random values in (-1, 1).
static inline double rnd (unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return ((double) ((*s >> 8) & 0xffffu) / 32768.0) - 1.0 + 1.0 / 65536;
}

static inline void fill (double *x, size_t n, unsigned seed)
{
  for (size_t i = 0; i < n; i++) x[i] = rnd (&seed);
}

static inline double max_abs_diff (const double *a, const double *b, size_t n)
{
  double d = 0;
  for (size_t i = 0; i < n; i++) d = fmax (d, fabs (a[i] - b[i]));
  return d;
}

static inline double fro (const double *a, size_t n)
{
  double s = 0;
  for (size_t i = 0; i < n; i++) s += a[i] * a[i];
  return sqrt (s);
}

static inline muon_update_opts fp64_opts (void)
{
  muon_update_opts o;
  muon_update_opts_default (&o);
  o.ns.precision = MUON_PREC_DOUBLE;
  return o;
}

enum { R = 6, C = 10, N = R * C };

#endif
