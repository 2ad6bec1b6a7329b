/* tensor_check.h - the checks of a muon_tensor description, written once: muon_tensor_check
 * (ctx.c) records their message in the context, and the CUDA plug-in (core/gpu/ns_cuda.cu),
 * which cannot call libmuon, runs the same inline code on what it is handed.  Plain C,
 * usable from C++.
 */
#ifndef MUON_TENSOR_CHECK_H
#define MUON_TENSOR_CHECK_H

#include <stdio.h>

#include "muon_base.h"

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
  // stride = rows, ld = E * rows) but one element must not belong to two pages.
  MUON_TENSOR_FAULT (MUON_ERR_BADSHAPE, t->batch == 1 || t->stride >= t->rows,
                     "%s page stride %zu makes its pages overlap", name, t->stride);
  MUON_TENSOR_FAULT (MUON_ERR_BADSHAPE,
                     t->batch == 1 || t->stride >= t->ld * (t->cols - 1) + t->rows
                       || t->ld >= t->stride * t->batch,
                     "%s page stride %zu makes its pages overlap", name, t->stride);
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
