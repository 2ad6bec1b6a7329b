/* names.c - the lookup behind every list's from-name function (MUON_DEFINE_NAMES,
 * muon_internal.h) and the names of base's own lists (muon_base.h: device, precision).  The
 * other layers define their lists' names in one of their sources; the registry of every
 * list for the gateways is core/zero/list_registry.c.
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

MUON_DEFINE_NAMES (muon_device, muon_device, MUON_DEVICE_LIST)
MUON_DEFINE_NAMES (muon_precision, muon_precision, MUON_PRECISION_LIST)
