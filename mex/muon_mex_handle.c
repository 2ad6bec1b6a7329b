/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex_handle.c - the table of core objects of one MEX file (muon_mex_handle.h).  Ids
 * grow and are never reused within a session, so a copied handle of a freed object stays
 * stale.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <time.h>

#include "muon_mex_handle.h"

typedef struct {
  double id;
  void *obj;
  int claimed;     // held by an Octave object (muon_mex_handle_claim)
} entry;

static const muon_mex_handle_kind *kind = NULL;
static entry *table = NULL;
static size_t count = 0, cap = 0;
static double session = 0, next_id = 1;

// Destroys every object; the exit hook of the MEX file, and muon_mex_handle_clear.
static void clear_all (void)
{
  for (size_t k = 0; k < count; k++)
    kind->destroy (table[k].obj);
  free (table);
  table = NULL;
  count = cap = 0;
  session = 0;
}

void muon_mex_handle_init (const muon_mex_handle_kind *k)
{
  kind = k;
}

static double session_of_load (void)
{
  if (session == 0)
  {
    // nanoseconds of the monotonic clock: a new number at every load of the MEX file
    struct timespec t;
    clock_gettime (CLOCK_MONOTONIC, &t);
    session = (double) ((t.tv_sec % 1000000) * 1000000000LL + t.tv_nsec) + 1;
    muon_mex_at_exit (clear_all);
  }
  return session;
}

static mxArray *handle_of (double id)
{
  mxArray *h = mxCreateDoubleMatrix (1, 2, mxREAL);
  double *p = mxGetPr (h);
  p[0] = session_of_load ();
  p[1] = id;
  return h;
}

mxArray *muon_mex_handle_new (const char *fname, void *obj)
{
  session_of_load ();
  if (count == cap)
  {
    size_t ncap = cap ? 2 * cap : 64;
    entry *t = realloc (table, ncap * sizeof *t);
    if (t == NULL)
    {
      kind->destroy (obj);
      muon_mex_error (fname, "noMemory", "out of memory registering %s.", kind->noun);
    }
    table = t;
    cap = ncap;
  }
  table[count].id = next_id++;
  table[count].obj = obj;
  table[count].claimed = 0;
  return handle_of (table[count++].id);
}

// The index of h's entry, -1 when the table does not hold it, -2 when h is no handle.
static long find (const mxArray *h)
{
  if (!(mxIsDouble (h) && !mxIsComplex (h) && mxGetNumberOfElements (h) == 2))
    return -2;
  const double *p = mxGetPr (h);
  if (session == 0 || p[0] != session)
    return -1;
  for (size_t k = 0; k < count; k++)
    if (table[k].id == p[1])
      return (long) k;
  return -1;
}

void *muon_mex_handle_get (const char *fname, const char *what, const mxArray *h)
{
  long k = find (h);
  if (k == -2)
    muon_mex_error (fname, "badArg", "%s must be %s handle.", what, kind->noun);
  const double *p = mxGetPr (h);
  if (k < 0 && kind->freed != NULL && session != 0 && p[0] == session && p[1] >= 1
      && p[1] < next_id)
    muon_mex_error (fname, "staleHandle", "%s is %s %s.", what, kind->noun, kind->freed);
  if (k < 0)
    muon_mex_error (fname, "staleHandle", "%s is %s of an earlier session %s.", what,
                    kind->noun, kind->remedy);
  return table[k].obj;
}

void *muon_mex_handle_find (const mxArray *h)
{
  long k = find (h);
  return k < 0 ? NULL : table[k].obj;
}

void muon_mex_handle_free (const mxArray *h)
{
  long k = find (h);
  if (k < 0)
    return;
  kind->destroy (table[k].obj);
  table[k] = table[--count];
}

void muon_mex_handle_clear (void)
{
  clear_all ();
  session_of_load ();
}

size_t muon_mex_handle_count (void)
{
  return count;
}

int muon_mex_handle_claimed (const mxArray *h)
{
  long k = find (h);
  return k >= 0 && table[k].claimed;
}

void muon_mex_handle_claim (const mxArray *h)
{
  long k = find (h);
  if (k >= 0)
    table[k].claimed = 1;
}

double muon_mex_handle_mark (void)
{
  return next_id;
}

size_t muon_mex_handle_drop (double mark)
{
  size_t n = 0;
  for (size_t k = 0; k < count;)
    if (!table[k].claimed && table[k].id >= mark)
    {
      kind->destroy (table[k].obj);
      table[k] = table[--count];
      n++;
    }
    else
      k++;
  return n;
}
