/* plugin.c - the one plug-in loader: opens a shared object the way every plug-in of muonlab
 * is found (libmuon_cuda.so by core/math/cuda_loader.c, libmuon_nccl.so by
 * core/comm/comm_nccl.c), so the search order is written once:
 *
 *   $ENV_VAR (the path it holds), then NAME beside the object this code was linked into (the
 *   MEX file or a test binary; found with dladdr), then NAME on the loader's default path.
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
