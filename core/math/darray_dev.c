/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* darray_dev.c - the devices' own state behind the device arrays (muon_math.h): the CPU
 * stand-in's bytes in use and the wall time of its last call, kept in the context; the
 * device time of the last ns / update (CUDA events on a GPU), the copy floor (pinned
 * host-device copies of a size, or two memcpy on the stand-in) and the caching pool's trim.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darray_impl.h"

muon_status muon_darray_cpu_dev (muon_ctx *ctx, muon_darray_cpu **out)
{
  void *d = NULL;
  muon_status status = muon_ctx_state (ctx, "darray.cpu", sizeof **out, free, MUON_CTX_KEEP,
                                       &d);
  *out = d;
  return status;
}

muon_status muon_darray_record_ms (muon_ctx *ctx, muon_device device, double t0)
{
  muon_darray_cpu *d = NULL;
  muon_status s = device == MUON_DEVICE_CPU ? muon_darray_cpu_dev (ctx, &d) : MUON_OK;
  if (d)
    d->last_ms = (muon_clock () - t0) * 1e3;
  return s;
}

muon_status muon_darray_last_ms (muon_ctx *ctx, muon_device device, double *ms)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, ms != NULL, "ms must not be NULL");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_DEVICE_LIST, device), "unknown device %d",
         (int) device);
  *ms = NAN;
  if (device == MUON_DEVICE_CUDA)
  {
    const muon_cuda_api *api;
    void **st;
    CHECKSTATUS (cuda_of (ctx, &api, &st));
    CHECKSTATUS (cuda_status (ctx, api->last_ms (*st, ms),
                              "reading the device time of the last call (CUDA events) failed"));
  }
  else
  {
    muon_darray_cpu *d = NULL;
    CHECKSTATUS (muon_darray_cpu_dev (ctx, &d));
    *ms = d->last_ms;
  }
fail:
  return status;
}

muon_status muon_darray_copy_time (muon_ctx *ctx, muon_device device, size_t bytes,
                                   double *h2d_ms, double *d2h_ms)
{
  muon_status status = MUON_OK;
  char *a = NULL, *b = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, h2d_ms != NULL && d2h_ms != NULL, "the times must not be NULL");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_DEVICE_LIST, device), "unknown device %d",
         (int) device);
  if (device == MUON_DEVICE_CUDA)
  {
    const muon_cuda_api *api;
    void **st;
    char msg[256] = "";
    CHECKSTATUS (cuda_of (ctx, &api, &st));
    CHECKSTATUS (cuda_status (ctx, api->copy_time (st, bytes, h2d_ms, d2h_ms, msg,
                                                   sizeof msg), msg));
  }
  else
  {
    CHECKMEM (a = malloc (bytes ? bytes : 1));
    CHECKMEM (b = malloc (bytes ? bytes : 1));
    // through a volatile pointer: the copies are timed, never optimized away
    void *(*volatile copy) (void *, const void *, size_t) = memcpy;
    memset (a, 1, bytes);
    double t0 = muon_clock ();
    copy (b, a, bytes);
    double t1 = muon_clock ();
    copy (a, b, bytes);
    *h2d_ms = (t1 - t0) * 1e3;
    *d2h_ms = (muon_clock () - t1) * 1e3;
  }
fail:
  free (a);
  free (b);
  return status;
}

muon_status muon_darray_trim (muon_ctx *ctx, muon_device device, size_t *in_use,
                              size_t *cached)
{
  muon_status status = MUON_OK;
  size_t u = 0, c = 0;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_DEVICE_LIST, device), "unknown device %d",
         (int) device);
  if (device == MUON_DEVICE_CUDA)                 // loads the back end only where some
  {                                                // context of the process used it: 0 and 0
    const muon_cuda_api *api;                      // when CUDA has not been used (or could
    void **st;                                     // not be: the context's last error kept).
    char kept[256];                                // The back end trims the states of every
    muon_status was = muon_ctx_last_status (ctx);  // context (host-array calls of other
    snprintf (kept, sizeof kept, "%s", muon_ctx_last_error (ctx));   // gateways too).
    if ((muon_ctx_lookup (ctx, "cuda") || muon_cuda_resident ())
        && cuda_of (ctx, &api, &st) == MUON_OK)
      CHECKSTATUS (cuda_status (ctx, api->trim (*st, &u, &c), "trimming the pool failed"));
    else
      muon_ctx_set_error (ctx, was, "%s", kept);
  }
  else
  {
    muon_darray_cpu *d = NULL;
    CHECKSTATUS (muon_darray_cpu_dev (ctx, &d));
    u = d->in_use;
  }
  if (in_use)
    *in_use = u;
  if (cached)
    *cached = c;
fail:
  return status;
}
