/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* tensor_check.h - the checks of a muon_tensor description, written once: muon_tensor_check
 * (ctx.c) records their message in the context, and the CUDA plug-in (core/gpu/ns_cuda.cu),
 * which cannot call libmuon, runs the same inline code on what it is handed.  Plain C,
 * usable from C++.
 */
#ifndef MUON_TENSOR_CHECK_H
#define MUON_TENSOR_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "muon_base.h"

// The bytes from t->data to one past t's last element into *bytes; 0 when that does not
// fit a size_t (a description no memory could hold).
static inline int muon_tensor_extent (const muon_tensor *t, size_t *bytes)
{
  size_t e = t->dtype == MUON_F64 ? 8 : 4, a = t->batch - 1, b = t->cols - 1, x, y;
  if ((a && t->stride > SIZE_MAX / a) || (b && t->ld > SIZE_MAX / b))
    return 0;
  x = a * t->stride;
  y = b * t->ld;
  if (x > SIZE_MAX - y || x + y > SIZE_MAX - t->rows || x + y + t->rows > SIZE_MAX / e)
    return 0;
  *bytes = (x + y + t->rows) * e;
  return 1;
}

// Whether the memory spans of two (checked) host tensors overlap.
static inline int muon_tensors_overlap (const muon_tensor *a, const muon_tensor *b)
{
  size_t na = 0, nb = 0;
  muon_tensor_extent (a, &na);
  muon_tensor_extent (b, &nb);
  uintptr_t a0 = (uintptr_t) a->data, b0 = (uintptr_t) b->data;
  return a0 < b0 + nb && b0 < a0 + na;
}

#define MUON_TENSOR_FAULT(code, cond, ...)                                            \
  do {                                                                                \
    if (!(cond)) { snprintf (msg, len, __VA_ARGS__); return (code); }                 \
  } while (0)

// MUON_OK, or the status of the first fault of t (named `name` in the text) with its text
// in msg (len bytes): NULL or no data, an unknown type, not on the device `where`, empty,
// ld < rows, pages that overlap.
static inline muon_status muon_tensor_fault_on (const muon_tensor *t, const char *name,
                                                muon_device where, char *msg, size_t len)
{
  if (name == NULL)                     // (NULL must not reach "%s")
    name = "the tensor";
  MUON_TENSOR_FAULT (MUON_ERR_NULLPTR, t != NULL, "%s must not be NULL", name);
  MUON_TENSOR_FAULT (MUON_ERR_NULLPTR, t->data != NULL, "%s has no data", name);
  MUON_TENSOR_FAULT (MUON_ERR_BADTYPE, t->dtype == MUON_F64 || t->dtype == MUON_F32,
                     "%s has an unknown data type", name);
  MUON_TENSOR_FAULT (MUON_ERR_UNSUPPORTED, t->device == where, "%s must live on the %s", name,
                     where == MUON_DEVICE_CPU ? "CPU" : "CUDA device");
  MUON_TENSOR_FAULT (MUON_ERR_BADSHAPE, t->rows >= 1 && t->cols >= 1 && t->batch >= 1,
                     "%s must not be empty", name);
  MUON_TENSOR_FAULT (MUON_ERR_BADSHAPE, t->ld >= t->rows,
                     "%s leading dimension %zu is smaller than its %zu rows", name, t->ld,
                     t->rows);
  // A page occupies ld * (cols - 1) + rows elements; pages may interleave (fused experts:
  // stride = rows, ld = E * rows; the last page's rows end by ld: (batch - 1) stride + rows
  // <= ld) but one element must not belong to two pages.
  MUON_TENSOR_FAULT (MUON_ERR_BADSHAPE, t->batch == 1 || t->stride >= t->rows,
                     "%s page stride %zu makes its pages overlap", name, t->stride);
  MUON_TENSOR_FAULT (MUON_ERR_BADSHAPE,
                     t->batch == 1 || t->stride >= t->ld * (t->cols - 1) + t->rows
                       || t->stride <= (t->ld - t->rows) / (t->batch - 1),
                     "%s page stride %zu makes its pages overlap", name, t->stride);
  size_t bytes;
  MUON_TENSOR_FAULT (MUON_ERR_BADSHAPE, muon_tensor_extent (t, &bytes),
                     "%s spans more bytes than an address holds", name);
  return MUON_OK;
}

// muon_tensor_fault_on for a tensor in host memory.
static inline muon_status muon_tensor_fault (const muon_tensor *t, const char *name, char *msg,
                                             size_t len)
{
  return muon_tensor_fault_on (t, name, MUON_DEVICE_CPU, msg, len);
}

#undef MUON_TENSOR_FAULT
#endif
