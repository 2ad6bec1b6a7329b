/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* plugin.h - what a plug-in (libmuon_cuda.so, libmuon_nccl.so; sources in core/gpu/) and the
 * host side that loads it share.  A plug-in exports one entry point of type
 * muon_plugin_entry_fn that fills its table of entry points (its *_abi.h) for an ABI
 * version; the host opens it with muon_plugin_open (plugin.c), the one loader of core.
 * Plain C, no CUDA: the plug-ins include it too.
 */
#ifndef MUON_PLUGIN_H
#define MUON_PLUGIN_H

#include <stdlib.h>

#include "muon_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// Fills the table `api` for ABI version abi; MUON_ERR_NOTBUILT on a mismatch.
typedef muon_status (*muon_plugin_entry_fn) (int abi, void *api);

// dlopen of the path in $env_var when set, else of `name` beside the object this code was
// linked into (the MEX file or a test binary; found with dladdr), else of `name` on the
// loader's default path.  NULL with the reason in why (len bytes) when none opens.
void *muon_dlopen_beside (const char *env_var, const char *name, char *why, size_t len);

// 1 when the object muon_dlopen_beside would open is already loaded in this process (by
// another MEX file's context, say), else 0; loads nothing.
int muon_plugin_resident (const char *env_var, const char *name);

// Opens the plug-in `name` as muon_dlopen_beside does and has its entry point `entry` fill
// api for ABI version abi.  MUON_OK with *handle set (dlclose it when done), or
// MUON_ERR_NOTBUILT with *handle NULL and the reason in why (len bytes): "<what> is not built
// or cannot be loaded (<the loader's text>)", or "<name> does not provide <what> ABI <abi>".
muon_status muon_plugin_open (const char *env_var, const char *name, const char *entry,
                              int abi, const char *what, void *api, void **handle, char *why,
                              size_t len);

// This process's rank on its machine, from the launcher's environment (Open MPI, MPICH /
// Intel MPI, Slurm), else `fallback`: the GPU back ends place local rank r on device
// r % devices, so that every rank of a node gets its own GPU.
static inline int muon_node_rank (int fallback)
{
  const char *vars[] = { "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID" };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
  {
    const char *v = getenv (vars[i]);
    if (v && *v)
      return atoi (v);
  }
  return fallback;
}

#ifdef __cplusplus
}
#endif
#endif
