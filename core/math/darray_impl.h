/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* darray_impl.h - what the files of device arrays share: the array itself, the CPU
 * stand-in's state and the small helpers around the CUDA back end (darray.c: create, copies,
 * NS and the update; darray_ops.c: the element-wise steps of the optimizer; darray_dev.c:
 * the devices' times, copy floor and pool).
 */
#ifndef MUON_DARRAY_IMPL_H
#define MUON_DARRAY_IMPL_H

#include "math_internal.h"
#include "muon_darray_math.h"
#include "ns_cuda_abi.h"

struct muon_darray {
  muon_device device;
  muon_precision storage;
  size_t rows, cols, batch, numel, bytes;
  void *data;                 // device memory (cuda) or host memory (cpu)
  const muon_ctx *owner;      // the context that made it (muon_darray_destroy checks it)
};

static inline muon_dtype host_dtype (muon_precision storage)
{
  return storage == MUON_PREC_DOUBLE ? MUON_F64 : MUON_F32;
}

static inline int is_half (muon_precision storage)
{
  return storage == MUON_PREC_BF16 || storage == MUON_PREC_FP16;
}

// A tensor over a's data (double / single storage), marked with a's device.
static inline muon_tensor view (const muon_darray *a)
{
  muon_tensor t = muon_tensor_batch (host_dtype (a->storage), a->data, a->rows, a->cols,
                                     a->batch);
  t.device = a->device;
  return t;
}

static inline const char *device_text (muon_device d)
{
  return d == MUON_DEVICE_CUDA ? "the CUDA device" : "the CPU stand-in device";
}

// The CPU stand-in's state in the context (darray_dev.c), made on first use.
typedef struct {
  double last_ms;             // wall time of the last ns / update
  size_t in_use;              // bytes held by arrays
} muon_darray_cpu;
muon_status muon_darray_cpu_dev (muon_ctx *ctx, muon_darray_cpu **out);
// Records on the stand-in the wall time since t0 (muon_clock) as its last call's.
muon_status muon_darray_record_ms (muon_ctx *ctx, muon_device device, double t0);

// The back end of a CUDA array: the plug-in's entries and its state.
static inline muon_status cuda_of (muon_ctx *ctx, const muon_cuda_api **api, void ***state)
{
  return muon_cuda_api_of (ctx, (const struct muon_cuda_api **) api, state);
}

// Runs a plug-in entry's status through the context's error text.
static inline muon_status cuda_status (muon_ctx *ctx, muon_status s, const char *msg)
{
  return s == MUON_OK ? s : muon_ctx_set_error (ctx, s, "%s", msg);
}

// Same shape and device, or the error naming both.
static inline muon_status check_pair (muon_ctx *ctx, const muon_darray *a, const char *an,
                               const muon_darray *b, const char *bn)
{
  muon_status status = MUON_OK;
  CHECK (MUON_ERR_NULLPTR, a != NULL && b != NULL, "%s and %s must not be NULL", an, bn);
  CHECK (MUON_ERR_UNSUPPORTED, a->device == b->device,
         "%s is on %s and %s on %s: the arrays of one call must share a device", an,
         device_text (a->device), bn, device_text (b->device));
  CHECK (MUON_ERR_BADSHAPE, a->rows == b->rows && a->cols == b->cols && a->batch == b->batch,
         "%s must be %zu x %zu x %zu like %s", bn, a->rows, a->cols, a->batch, an);
fail:
  return status;
}

#endif
