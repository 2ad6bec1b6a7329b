/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* cuda_loader.c - the host side of the CUDA back end: opens libmuon_cuda.so on first use
 * (muon_dlopen_beside: $MUON_CUDA_LIB, then beside the MEX file or test binary, then the
 * loader's default path), keeps it with its device state in the context, and runs ns.c's
 * CUDA calls through the ABI of core/gpu/ns_cuda_abi.h.  A missing library is
 * MUON_ERR_NOTBUILT with dlerror's text; a library whose runtime finds no driver or device is
 * MUON_ERR_NODEVICE with the CUDA runtime's text.  Also muon_backend_query.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math_internal.h"
#include "ns_cuda_abi.h"

// Where the library is found (muon_dlopen_beside's search), for the load and the residency test.
#define CUDA_LIB_ENV "MUON_CUDA_LIB"
#define CUDA_LIB_NAME "libmuon_cuda.so"

// The CUDA back end of one context, attached to it under "cuda" on first use: the library,
// its entry points, the device state it made, and the outcome of the load (kept, so a
// context tries once and repeats the reason).
typedef struct {
  void *lib;                  // dlopen handle of libmuon_cuda.so (NULL when it did not load)
  muon_cuda_api api;          // its entry points
  void *state;                // device state owned by the back end (made by api.ns)
  muon_status status;         // the outcome of the load
  char message[256];          // why it failed, or the device's name
} cuda_host;

static void cuda_host_free (void *p)
{
  cuda_host *h = p;
  if (h->state && h->api.release)
    h->api.release (h->state);
  if (h->lib)
    dlclose (h->lib);
  free (h);
}

// Opens the library and asks for a device: h's status and message.
static void cuda_host_open (cuda_host *h)
{
  h->status = muon_plugin_open (CUDA_LIB_ENV, CUDA_LIB_NAME, "muon_cuda_get_api",
                                MUON_CUDA_ABI, "the CUDA back end", &h->api, &h->lib,
                                h->message, sizeof h->message);
  if (h->status != MUON_OK)
    return;
  int count = 0;
  char name[200] = "";
  h->status = h->api.device_query (&count, name, sizeof name);
  if (h->status == MUON_OK && count < 1)
    h->status = MUON_ERR_NODEVICE;
  if (h->status != MUON_OK)
    snprintf (h->message, sizeof h->message, "no CUDA device (%s)",
              *name ? name : "no device found");
  else
    snprintf (h->message, sizeof h->message, "%s", name);
}

// ctx's CUDA back end, loaded on first use.  Returns its load status (NOTBUILT / NODEVICE
// with the message recorded in ctx); *out is set whenever the state exists.
static muon_status cuda_host_get (muon_ctx *ctx, cuda_host **out)
{
  cuda_host *h = muon_ctx_lookup (ctx, "cuda");
  *out = NULL;
  if (h == NULL)
  {
    h = calloc (1, sizeof *h);
    if (h == NULL)
      return muon_ctx_set_error (ctx, MUON_ERR_NOMEM, "out of memory loading the CUDA back end");
    cuda_host_open (h);
    muon_status s = muon_ctx_attach (ctx, "cuda", h, cuda_host_free, MUON_CTX_KEEP);
    if (s != MUON_OK)
      return s;
  }
  *out = h;
  if (h->status != MUON_OK)
    muon_ctx_set_error (ctx, h->status, "%s", h->message);
  return h->status;
}

muon_status muon_cuda_load (muon_ctx *ctx)
{
  cuda_host *h = NULL;
  CHECKCTX (ctx);
  return cuda_host_get (ctx, &h);
}

int muon_cuda_resident (void)
{
  return muon_plugin_resident (CUDA_LIB_ENV, CUDA_LIB_NAME);
}

muon_status muon_cuda_api_of (muon_ctx *ctx, const muon_cuda_api **api, void ***state)
{
  cuda_host *h = NULL;
  muon_status s = cuda_host_get (ctx, &h);
  *api = s == MUON_OK ? &h->api : NULL;
  *state = s == MUON_OK ? &h->state : NULL;
  return s;
}

muon_status muon_cuda_ns (muon_ctx *ctx, const muon_tensor *G, muon_tensor *X,
                          const muon_ns_opts *o, const double *coef, int steps)
{
  muon_status status = MUON_OK;
  cuda_host *h = NULL;
  CHECKSTATUS (cuda_host_get (ctx, &h));
  char msg[256] = "";
  status = h->api.ns (&h->state, G, X, o, coef, steps, msg, sizeof msg);
  if (status != MUON_OK)  // errors and the non-finite warning alike keep their text
    muon_ctx_set_error (ctx, status, "%s", msg);
fail:
  return status;
}

extern char *openblas_get_config (void) __attribute__ ((weak));
extern char *openblas_get_corename (void) __attribute__ ((weak));

muon_status muon_backend_query (muon_ctx *ctx, muon_backend_info *info)
{
  CHECKCTX (ctx);
  if (info == NULL)
    return muon_ctx_set_error (ctx, MUON_ERR_NULLPTR, "info must not be NULL");
  memset (info, 0, sizeof *info);
  cuda_host *h = NULL;
  muon_status s = cuda_host_get (ctx, &h);
  if (h == NULL)
    return s;                                       // no memory for the state
  info->cuda_built = s != MUON_ERR_NOTBUILT;
  info->cuda_usable = s == MUON_OK;
  if (s == MUON_OK)
    h->api.device_query (&info->cuda_device_count, info->cuda_message,
                         sizeof info->cuda_message);
  else
    snprintf (info->cuda_message, sizeof info->cuda_message, "%s", h->message);
  if (openblas_get_config)  // weak: present when the BLAS in the process is OpenBLAS
    snprintf (info->blas, sizeof info->blas, "%s, core %s", openblas_get_config (),
              openblas_get_corename ? openblas_get_corename () : "?");
  else
    snprintf (info->blas, sizeof info->blas, "CBLAS (libblas.so.3)");
  muon_ctx_set_error (ctx, MUON_OK, "%s", "");
  return MUON_OK;
}
