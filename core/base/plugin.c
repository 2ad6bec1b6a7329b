/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* plugin.c - the one plug-in loader (plugin.h): opens a shared object the way every plug-in
 * of muonlab is found (libmuon_cuda.so by core/math/cuda_loader.c, libmuon_nccl.so by
 * core/comm/comm_nccl.c) and checks its ABI, so the search order and the checks are written
 * once:
 *
 *   $ENV_VAR (the path it holds), then NAME beside the object this code was linked into (the
 *   MEX file or a test binary; found with dladdr), then NAME on the loader's default path.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

// dlopen in `mode` along the search order above.
static void *dlopen_beside_mode (const char *env_var, const char *name, char *why, size_t len,
                                 int mode)
{
  const char *env = getenv (env_var);
  if (env && *env)
  {
    void *h = dlopen (env, mode);
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
      void *h = dlopen (path, mode);
      if (h)
        return h;
      snprintf (why, len, "%s", dlerror ());
    }
  }
  void *h = dlopen (name, mode);
  if (!h && !*why)
    snprintf (why, len, "%s", dlerror ());
  return h;
}

void *muon_dlopen_beside (const char *env_var, const char *name, char *why, size_t len)
{
  return dlopen_beside_mode (env_var, name, why, len, RTLD_NOW | RTLD_LOCAL);
}

int muon_plugin_resident (const char *env_var, const char *name)
{
  char why[192] = "";
  void *h = dlopen_beside_mode (env_var, name, why, sizeof why,
                                RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (h)
    dlclose (h);                                   // RTLD_NOLOAD counted a reference
  return h != NULL;
}

muon_status muon_plugin_open (const char *env_var, const char *name, const char *entry,
                              int abi, const char *what, void *api, void **handle, char *why,
                              size_t len)
{
  char err[192] = "";
  *handle = muon_dlopen_beside (env_var, name, err, sizeof err);
  if (*handle == NULL)
  {
    snprintf (why, len, "%s is not built or cannot be loaded (%s)", what, err);
    return MUON_ERR_NOTBUILT;
  }
  muon_plugin_entry_fn get;
  *(void **) (&get) = dlsym (*handle, entry);
  if (get && get (abi, api) == MUON_OK)
    return MUON_OK;
  dlclose (*handle);
  *handle = NULL;
  const char *env = getenv (env_var);       // the file opened: the one $ENV_VAR names
  snprintf (why, len, "%s does not provide %s ABI %d", env && *env ? env : name, what, abi);
  return MUON_ERR_NOTBUILT;
}
