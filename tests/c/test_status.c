/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_status.c - the status table (core/include/muon.h MUON_STATUS_LIST, core/ctx.c): every
 * status has its own text and Octave id, both taken from the table, and unknown values give
 * "unknown status" / "unknown".
 */
#include "harness.h"
#include "muon.h"

#define X_ENTRY(name, value, text, id) { name, value, #name, text, id },
static const struct { muon_status s; int value; const char *ename, *text, *id; } table[] = {
  MUON_STATUS_LIST (X_ENTRY)
};
#undef X_ENTRY
#define NSTATUS ((int) (sizeof table / sizeof table[0]))

static void test_values (void)
{
  T_EQ_INT (MUON_OK, 0);
  T_ASSERT (MUON_WARN_NONFINITE > 0);
  for (int i = 0; i < NSTATUS; i++)
  {
    T_EQ_INT ((int) table[i].s, table[i].value);
    // errors are negative, warnings positive (by the name's prefix)
    if (strncmp (table[i].ename, "MUON_ERR_", 9) == 0)
      T_ASSERT_MSG (table[i].value < 0, "%s must be negative", table[i].ename);
    else if (strncmp (table[i].ename, "MUON_WARN_", 10) == 0)
      T_ASSERT_MSG (table[i].value > 0, "%s must be positive", table[i].ename);
    else
      T_ASSERT_MSG (table[i].value == 0, "%s must be 0", table[i].ename);
    for (int j = 0; j < i; j++)
      T_ASSERT_MSG (table[i].value != table[j].value, "%s and %s share a value",
                    table[i].ename, table[j].ename);
  }
}

static void test_text_and_id (void)
{
  for (int i = 0; i < NSTATUS; i++)
  {
    const char *text = muon_status_string (table[i].s), *id = muon_status_id (table[i].s);
    T_EQ_STR (text, table[i].text);
    T_EQ_STR (id, table[i].id);
    T_ASSERT_MSG (text && *text && strcmp (text, "unknown status") != 0, "%s has a text",
                  table[i].ename);
    // Octave ids: an identifier (letters and digits, starting with a lower-case letter)
    int ok = id && *id >= 'a' && *id <= 'z';
    for (const char *c = id; ok && *c; c++)
      ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9');
    T_ASSERT_MSG (ok, "%s: id \"%s\" is a valid Octave id component", table[i].ename, id);
    for (int j = 0; j < i; j++)
    {
      T_ASSERT_MSG (strcmp (text, muon_status_string (table[j].s)) != 0,
                    "%s and %s share the text \"%s\"", table[i].ename, table[j].ename, text);
      T_ASSERT_MSG (strcmp (id, muon_status_id (table[j].s)) != 0,
                    "%s and %s share the id \"%s\"", table[i].ename, table[j].ename, id);
    }
  }
  // the ids DESIGN.md 3 names
  T_EQ_STR (muon_status_id (MUON_ERR_BADSHAPE), "badShape");
  T_EQ_STR (muon_status_id (MUON_ERR_NOMEM), "noMemory");
  T_EQ_STR (muon_status_id (MUON_ERR_NODEVICE), "noDevice");
  T_EQ_STR (muon_status_id (MUON_ERR_NOTBUILT), "notBuilt");
  T_EQ_STR (muon_status_id (MUON_ERR_MPI), "mpi");
  T_EQ_STR (muon_status_string (MUON_OK), "success");
}

static void test_unknown (void)
{
  const int unknown[] = { 2, 3, 100, -14, -100, 12345, -99999 };
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
  {
    int known = 0;
    for (int j = 0; j < NSTATUS; j++) known |= table[j].value == unknown[i];
    if (known) continue;   // the table grew: not unknown any more
    T_EQ_STR (muon_status_string ((muon_status) unknown[i]), "unknown status");
    T_EQ_STR (muon_status_id ((muon_status) unknown[i]), "unknown");
  }
}

int main (int argc, char **argv)
{
  (void) argc;
  T_RUN (test_values);
  T_RUN (test_text_and_id);
  T_RUN (test_unknown);
  return T_DONE (argv[0]);
}
