/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* list_registry.c - the catalogue of every named list and limit the core checks (muon_lists.h:
 * MUON_LISTS / MUON_LIMITS), for the gateways, inst/ and the tests.  Everything here is
 * generated from the MUON_<THING>_LIST X-macros of the public headers of every layer (this
 * layer sits above them all and sees them all), so that no list is typed twice.
 *
 * Usage
 *   int v;
 *   muon_name_lookup (MUON_LIST_PRECISION, "bf16", &v);    // MUON_PREC_BF16
 *   muon_names (MUON_LIST_GEMM, MUON_GEMM_ONEDNN);          // "onednn"
 */
#include <string.h>

#include "muon.h"
#include "muon_internal.h"

//---- one name table per list ----------------------------------------------------------------

// names_<LIST>[value] = "name" (MUON_NAME_TABLE: a list need not start at 0 or be contiguous;
// a gap is a NULL entry, which no lookup matches).  MUON_IN_LIST works on values below 64:
// a list that grows past it fails to compile here (a negative array size).
#define NAME_TABLE(list, key, what, items)                                      \
  MUON_NAME_TABLE (names_##list, items);                                        \
  typedef char below_64_##list[MUON_NAME_COUNT (names_##list) <= 64 ? 1 : -1];
MUON_LISTS (NAME_TABLE)
#undef NAME_TABLE

typedef struct {
  const char *key, *what;
  const char *const *names;
  int size;
} list_entry;

#define LIST_ENTRY(list, key, what, items)                                      \
  [list] = { key, what, names_##list, MUON_NAME_COUNT (names_##list) },
static const list_entry lists[MUON_LIST_COUNT] = { MUON_LISTS (LIST_ENTRY) };
#undef LIST_ENTRY

//---- the catalogue ------------------------------------------------------------------------

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
  return e ? muon_name_at (e->names, e->size, i) : NULL;
}

muon_status muon_name_lookup (muon_list list, const char *name, int *value)
{
  const list_entry *e = entry (list);
  if (name == NULL || value == NULL)
    return MUON_ERR_NULLPTR;
  return e ? muon_name_find (e->names, e->size, name, value) : MUON_ERR_BADARG;
}

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
