/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* names.c - the two lookups over a name table built from a list's X-macro (MUON_NAME_TABLE,
 * muon_internal.h): the catalogue of every list (core/lists/list_registry.c) and the layers
 * that need a name below it use them.
 */
#include <string.h>

#include "muon_internal.h"

muon_status muon_name_find (const char *const *names, int n, const char *name, int *value)
{
  if (name == NULL || value == NULL)
    return MUON_ERR_NULLPTR;
  for (int i = 0; i < n; i++)
    if (names[i] && strcmp (name, names[i]) == 0)
    {
      *value = i;
      return MUON_OK;
    }
  return MUON_ERR_BADARG;
}

const char *muon_name_at (const char *const *names, int n, int i)
{
  return (names != NULL && i >= 0 && i < n) ? names[i] : NULL;
}
