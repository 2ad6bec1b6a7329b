/* cuda_loader.c - finds and opens libmuon_cuda.so on first use and dispatches to it.
 *
 * Search order: $MUON_CUDA_LIB, then libmuon_cuda.so beside the object this code was linked
 * into (the MEX file or a test binary; found with dladdr), then the loader's default path.
 * A missing library is MUON_ERR_NOTBUILT with dlerror's text; a library whose runtime finds
 * no driver or device is MUON_ERR_NODEVICE with the CUDA runtime's text.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "muon_internal.h"

void *muon_dlopen_beside (const char *env_var, const char *name, char *why, size_t len)
{
  const char *env = getenv (env_var);
  if (env && *env)
  {
    void *h = dlopen (env, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      snprintf (why, len, "%s", dlerror ());
    return h;
  }
  Dl_info info;
  char path[4096] = "";
  if (dladdr ((void *) &muon_dlopen_beside, &info) && info.dli_fname)
  {
    snprintf (path, sizeof path, "%s", info.dli_fname);
    char *slash = strrchr (path, '/');
    if (slash)
    {
      snprintf (slash + 1, sizeof path - (size_t) (slash + 1 - path), "%s", name);
      void *h = dlopen (path, RTLD_NOW | RTLD_LOCAL);
      if (h)
        return h;
      snprintf (why, len, "%s", dlerror ());
    }
  }
  void *h = dlopen (name, RTLD_NOW | RTLD_LOCAL);
  if (!h && !*why)
    snprintf (why, len, "%s", dlerror ());
  return h;
}

muon_status muon_cuda_load (muon_ctx *ctx)
{
  CHECKCTX (ctx);
  if (ctx->cuda_tried)
  {
    if (ctx->cuda_load_status != MUON_OK)
      muon_ctx_set_error (ctx, ctx->cuda_load_status, "%s", ctx->cuda_message);
    return ctx->cuda_load_status;
  }
  ctx->cuda_tried = 1;
  char why[192] = "";
  muon_status s = MUON_OK;
  ctx->cuda_lib = muon_dlopen_beside ("MUON_CUDA_LIB", "libmuon_cuda.so", why, sizeof why);
  if (!ctx->cuda_lib)
  {
    s = MUON_ERR_NOTBUILT;
    snprintf (ctx->cuda_message, sizeof ctx->cuda_message,
              "the CUDA back end is not built or cannot be loaded (%s)", why);
  }
  else
  {
    muon_cuda_get_api_fn get;
    *(void **) (&get) = dlsym (ctx->cuda_lib, "muon_cuda_get_api");
    if (!get || get (MUON_CUDA_ABI, &ctx->cuda) != MUON_OK)
    {
      s = MUON_ERR_NOTBUILT;
      snprintf (ctx->cuda_message, sizeof ctx->cuda_message,
                "libmuon_cuda.so does not provide CUDA back end ABI %d", MUON_CUDA_ABI);
    }
    else
    {
      int count = 0;
      char name[200] = "";
      s = ctx->cuda.device_query (&count, name, sizeof name);
      if (s == MUON_OK && count < 1)
        s = MUON_ERR_NODEVICE;
      if (s != MUON_OK)
        snprintf (ctx->cuda_message, sizeof ctx->cuda_message, "no CUDA device (%s)",
                  *name ? name : "no device found");
      else
        snprintf (ctx->cuda_message, sizeof ctx->cuda_message, "%s", name);
    }
  }
  ctx->cuda_load_status = s;
  if (s != MUON_OK)
    muon_ctx_set_error (ctx, s, "%s", ctx->cuda_message);
  return s;
}

void muon_cuda_unload (muon_ctx *ctx)
{
  if (ctx == NULL)
    return;
  if (ctx->cuda_state && ctx->cuda.release)
    ctx->cuda.release (ctx->cuda_state);
  ctx->cuda_state = NULL;
  if (ctx->cuda_lib)
    dlclose (ctx->cuda_lib);
  ctx->cuda_lib = NULL;
  ctx->cuda_tried = 0;
}

muon_status muon_ns_cuda_dispatch (muon_ctx *ctx, const muon_tensor *G, muon_tensor *X,
                                   const muon_ns_opts *o)
{
  muon_status status = MUON_OK;
  double coef[3 * MUON_MAX_STEPS];
  int steps = 0;
  CHECKSTATUS (muon_cuda_load (ctx));
  CHECKSTATUS (muon_tensor_check (ctx, G, "G"));
  CHECKSTATUS (muon_tensor_check (ctx, X, "X"));
  CHECK (MUON_ERR_BADSHAPE, G->rows == X->rows && G->cols == X->cols && G->batch == X->batch,
         "X must be %zu x %zu x %zu like G", G->rows, G->cols, G->batch);
  CHECKSTATUS (muon_ns_schedule (ctx, o, coef, MUON_MAX_STEPS, &steps));
  char msg[256] = "";
  status = ctx->cuda.ns (&ctx->cuda_state, G, X, o, coef, steps, msg, sizeof msg);
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
  muon_status s = muon_cuda_load (ctx);
  info->cuda_built = s != MUON_ERR_NOTBUILT;
  info->cuda_usable = s == MUON_OK;
  if (s == MUON_OK)
    ctx->cuda.device_query (&info->cuda_device_count, info->cuda_message,
                            sizeof info->cuda_message);
  else
    snprintf (info->cuda_message, sizeof info->cuda_message, "%s", ctx->cuda_message);
  if (openblas_get_config)  // weak: present when the BLAS in the process is OpenBLAS
    snprintf (info->blas, sizeof info->blas, "%s, core %s", openblas_get_config (),
              openblas_get_corename ? openblas_get_corename () : "?");
  else
    snprintf (info->blas, sizeof info->blas, "CBLAS (libblas.so.3)");
  muon_ctx_set_error (ctx, MUON_OK, "%s", "");
  return MUON_OK;
}
