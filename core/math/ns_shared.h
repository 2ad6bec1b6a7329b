/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_shared.h - the Newton-Schulz decisions that the CPU reference (ns.c, ns_impl.h) and the
 * CUDA back end (core/gpu/ns_cuda.cu, which cannot call libmuon) take alike, written once:
 * whether a Gram restart comes before an iteration, and whether a page takes the Gram path.
 * Plain C, static inline, usable from C++.
 */
#ifndef MUON_NS_SHARED_H
#define MUON_NS_SHARED_H

#include "muon_math.h"

// Whether a restart happens before iteration i (0-based; index 0 is never a restart).
static inline int muon_ns_restart_before (int i, const muon_ns_opts *o)
{
  for (int r = 0; r < o->nrestarts; r++)
    if (o->restarts[r] == i && i != 0)
      return 1;
  return 0;
}

// Whether the Gram path runs for a rows x cols page under o: method gram, unless the page's
// aspect (long side / short side) is at most gram_min_aspect (then standard, as DeepSpeed).
static inline int muon_ns_gram_path (size_t rows, size_t cols, const muon_ns_opts *o)
{
  if (o->method != MUON_NS_GRAM)
    return 0;
  double lo = (double) (rows < cols ? rows : cols), hi = (double) (rows < cols ? cols : rows);
  return hi / lo > o->gram_min_aspect;
}

#endif
