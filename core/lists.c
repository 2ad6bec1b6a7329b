/* lists.c - the names of every enumerated list the core checks and the registry of lists and
 * limits (muon_lists.h).  Everything here is generated from the MUON_<THING>_LIST X-macros of
 * the public headers: a name table per list, its <prefix>_from_name / <prefix>_name pair, and
 * one registry entry, so that no list is typed twice.  It includes only the public headers.
 *
 * Usage
 *   muon_precision p;
 *   muon_precision_from_name ("bf16", &p);                  // MUON_PREC_BF16
 *   muon_names (MUON_LIST_GEMM, MUON_GEMM_ONEDNN);          // "onednn"
 */
#include <string.h>

#include "muon.h"

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
  for (int i = 0; e && i < e->size; i++)
    if (e->names[i] && strcmp (name, e->names[i]) == 0)
    {
      *value = i;
      return MUON_OK;
    }
  return MUON_ERR_BADARG;
}

//---- the typed name functions of each list ------------------------------------------------

#define DEFINE_NAMES(prefix, type, list)                                        \
  muon_status prefix##_from_name (const char *name, type *v)                    \
  {                                                                             \
    int i = 0;                                                                  \
    muon_status s = v ? muon_name_lookup (list, name, &i) : MUON_ERR_NULLPTR;   \
    if (s == MUON_OK)                                                           \
      *v = (type) i;                                                            \
    return s;                                                                   \
  }                                                                             \
  const char *prefix##_name (type v)                                            \
  {                                                                             \
    const char *s = muon_names (list, (int) v);                                 \
    return s ? s : "unknown";                                                   \
  }

DEFINE_NAMES (muon_ns_method, muon_ns_method, MUON_LIST_METHOD)
DEFINE_NAMES (muon_precision, muon_precision, MUON_LIST_PRECISION)
DEFINE_NAMES (muon_schedule_mode, muon_schedule_mode, MUON_LIST_SCHEDULE_MODE)
DEFINE_NAMES (muon_device, muon_device, MUON_LIST_DEVICE)
DEFINE_NAMES (muon_gemm, muon_gemm_provider, MUON_LIST_GEMM)
DEFINE_NAMES (muon_momentum_form, muon_momentum_form, MUON_LIST_MOMENTUM_FORM)
DEFINE_NAMES (muon_scale_rule, muon_scale_rule, MUON_LIST_SCALE_RULE)
DEFINE_NAMES (muon_zero_order, muon_zero_order, MUON_LIST_ZERO_ORDER)
DEFINE_NAMES (muon_zero_variant, muon_zero_variant, MUON_LIST_ZERO_VARIANT)
DEFINE_NAMES (muon_zero_pad_count, muon_zero_pad_count, MUON_LIST_ZERO_PAD_COUNT)
DEFINE_NAMES (muon_coll, muon_coll, MUON_LIST_COLL)
DEFINE_NAMES (muon_reduce_op, muon_reduce_op, MUON_LIST_REDUCE_OP)
DEFINE_NAMES (muon_comm_kind, muon_comm_kind, MUON_LIST_COMM_KIND)
DEFINE_NAMES (muon_normalize, muon_normalize, MUON_LIST_NORMALIZE)
DEFINE_NAMES (muon_comm_reduction, muon_comm_reduction, MUON_LIST_COMM_REDUCTION)

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
