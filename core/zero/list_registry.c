/* list_registry.c - the registry of every named list and limit the core checks (muon_zero.h,
 * MUON_LISTS / MUON_LIMITS), for the gateways and inst/, and the name functions of zero's own
 * lists.  Everything here is generated from the MUON_<THING>_LIST X-macros of the public
 * headers of every layer (it sits in the top layer, which sees them all), so that no list is
 * typed twice; each layer's <prefix>_from_name / <prefix>_name pair is MUON_DEFINE_NAMES in a
 * source of that layer (base/muon_internal.h).
 *
 * Usage
 *   muon_precision p;
 *   muon_precision_from_name ("bf16", &p);                  // MUON_PREC_BF16
 *   muon_names (MUON_LIST_GEMM, MUON_GEMM_ONEDNN);          // "onednn"
 */
#include <string.h>

#include "muon.h"
#include "muon_internal.h"

//---- one name table per list ----------------------------------------------------------------

// names_<LIST>[value] = "name" (designated initializers: a list need not start at 0 or be
// contiguous; a gap is a NULL entry, which no lookup matches).
#define NAME_ENTRY(name, value, text) [value] = text,
#define NAME_TABLE(list, key, what, items)                                      \
  static const char *const names_##list[] = { items (NAME_ENTRY) };
MUON_LISTS (NAME_TABLE)
#undef NAME_TABLE

typedef struct {
  const char *key, *what;
  const char *const *names;
  int size;
} list_entry;

#define LIST_ENTRY(list, key, what, items)                                      \
  [list] = { key, what, names_##list, (int) (sizeof names_##list / sizeof names_##list[0]) },
static const list_entry lists[MUON_LIST_COUNT] = { MUON_LISTS (LIST_ENTRY) };
#undef LIST_ENTRY

//---- the registry -------------------------------------------------------------------------

static const list_entry *entry (muon_list list)
{
  return ((int) list >= 0 && list < MUON_LIST_COUNT) ? &lists[list] : NULL;
}

const char *muon_list_name (muon_list list)
{
  const list_entry *e = entry (list);
  return e ? e->key : NULL;
}

const char *muon_list_what (muon_list list)
{
  const list_entry *e = entry (list);
  return e ? e->what : NULL;
}

int muon_list_size (muon_list list)
{
  const list_entry *e = entry (list);
  return e ? e->size : 0;
}

const char *muon_names (muon_list list, int i)
{
  const list_entry *e = entry (list);
  return (e && i >= 0 && i < e->size) ? e->names[i] : NULL;
}

muon_status muon_name_lookup (muon_list list, const char *name, int *value)
{
  const list_entry *e = entry (list);
  if (name == NULL || value == NULL)
    return MUON_ERR_NULLPTR;
  return e ? muon_name_find (e->names, e->size, name, value) : MUON_ERR_BADARG;
}

//---- the typed name functions of zero's lists (the other layers define theirs) -----------

MUON_DEFINE_NAMES (muon_zero_order, muon_zero_order, MUON_ZERO_ORDER_LIST)
MUON_DEFINE_NAMES (muon_zero_variant, muon_zero_variant, MUON_ZERO_VARIANT_LIST)
MUON_DEFINE_NAMES (muon_zero_pad_count, muon_zero_pad_count, MUON_ZERO_PAD_COUNT_LIST)

//---- limits -------------------------------------------------------------------------------

#define LIMIT_ENTRY(constant, key) { key, (long) (constant) },
static const struct { const char *key; long value; } limits[] = { MUON_LIMITS (LIMIT_ENTRY) };
#undef LIMIT_ENTRY
#define NLIMITS ((int) (sizeof limits / sizeof limits[0]))

int muon_limit_count (void)
{
  return NLIMITS;
}

const char *muon_limit_name (int i)
{
  return (i >= 0 && i < NLIMITS) ? limits[i].key : NULL;
}

long muon_limit_value (int i)
{
  return (i >= 0 && i < NLIMITS) ? limits[i].value : 0;
}
