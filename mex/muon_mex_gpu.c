/* muon_mex_gpu.c - the table of device arrays of __muon_gpu__ (muon_mex_gpu.h).  Ids grow
 * and are never reused within a session, so a copied handle of a freed array stays stale.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <time.h>

#include "muon_mex_gpu.h"

typedef struct {
  double id;
  muon_darray *a;
} entry;

static entry *table = NULL;
static size_t count = 0, cap = 0;
static double session = 0, next_id = 1;

// Frees every array; the exit hook of the MEX file, and muon_gpu ("reset").
static void clear_all (void)
{
  muon_ctx *ctx = muon_mex_ctx ();
  for (size_t k = 0; k < count; k++)
    muon_darray_destroy (ctx, &table[k].a);
  free (table);
  table = NULL;
  count = cap = 0;
  session = 0;
}

double muon_mex_gpu_session (void)
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
  p[0] = muon_mex_gpu_session ();
  p[1] = id;
  return h;
}

mxArray *muon_mex_gpu_handle (const char *fname, muon_darray *a)
{
  muon_mex_gpu_session ();
  if (count == cap)
  {
    size_t ncap = cap ? 2 * cap : 64;
    entry *t = realloc (table, ncap * sizeof *t);
    if (t == NULL)
    {
      muon_darray_destroy (muon_mex_ctx (), &a);
      muon_mex_error (fname, "noMemory", "out of memory registering a device array.");
    }
    table = t;
    cap = ncap;
  }
  table[count].id = next_id++;
  table[count].a = a;
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

muon_darray *muon_mex_gpu_get (const char *fname, const char *what, const mxArray *h)
{
  long k = find (h);
  if (k == -2)
    muon_mex_error (fname, "badArg", "%s must be a device array handle.", what);
  if (k < 0)
    muon_mex_error (fname, "staleHandle", "%s is a device array of an earlier session "
                    "(cleared by clear mex or muon_gpu (\"reset\")); make it again.", what);
  return table[k].a;
}

void muon_mex_gpu_free (const mxArray *h)
{
  long k = find (h);
  if (k < 0)
    return;
  muon_darray_destroy (muon_mex_ctx (), &table[k].a);
  table[k] = table[--count];
}

void muon_mex_gpu_clear (void)
{
  clear_all ();
  muon_mex_gpu_session ();
}

size_t muon_mex_gpu_count (void)
{
  return count;
}
