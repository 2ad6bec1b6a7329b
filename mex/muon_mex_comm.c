/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex_comm.c - a gateway's 'Comm' argument as a communicator, and a communicator and
 * its counters as Octave structs (see muon_mex_comm.h; the per-process mpi and nccl
 * communicators are muon_mex_mpi.c's, collectives on Octave arrays muon_mex_coll.c's).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "muon_mex_comm.h"

static void get_string (const char *fname, const mxArray *a, const char *what, char *buf,
                        size_t len)
{
  if (!mxIsChar (a) || mxGetM (a) > 1 || mxGetString (a, buf, len) != 0)
    muon_mex_error (fname, "badArg", "%s must be a short string.", what);
  for (char *p = buf; *p; p++)
    *p = (char) tolower ((unsigned char) *p);
}

// A struct field as an integer in 0..hi (-1 when missing).
static int get_int (const char *fname, const mxArray *s, const char *field, int hi)
{
  const mxArray *f = mxGetField (s, 0, field);
  char what[32];
  snprintf (what, sizeof what, "COMM.%s", field);
  return f == NULL ? -1 : muon_mex_int (fname, what, f, 0, hi);
}

// SPEC's kind and reduction names (lower case) and its size and rank fields (-1 when
// missing, or when !fields: an agreement reads no more than the kind and reduction).
static void read_spec (const char *fname, const mxArray *spec, int fields, char *kind,
                       char *red, int *size, int *rank)
{
  char kinds[96];
  const mxArray *f;
  strcpy (kind, "sim");
  strcpy (red, "fixed");
  *size = *rank = -1;
  if (spec == NULL || (mxIsEmpty (spec) && !mxIsStruct (spec) && !mxIsCell (spec)))
    ;
  else if (mxIsChar (spec))
    get_string (fname, spec, "COMM", kind, 16);
  else if (!mxIsStruct (spec) || mxGetNumberOfElements (spec) != 1)
    muon_mex_error (fname, "badArg", "COMM must be %s, or a struct from muon_comm.",
                    muon_mex_list_text (MUON_LIST_COMM_KIND, 1, kinds, sizeof kinds));
  else if ((f = mxGetField (spec, 0, "kind")) == NULL)
    muon_mex_error (fname, "badArg", "COMM must have a field 'kind' (make it with muon_comm).");
  else
  {
    get_string (fname, f, "COMM.kind", kind, 16);
    if ((f = mxGetField (spec, 0, "reduction")) != NULL)
      get_string (fname, f, "COMM.reduction", red, 16);
    if (fields)
    {
      *size = get_int (fname, spec, "size", MUON_COMM_MAX_WORLD);
      *rank = get_int (fname, spec, "rank", MUON_COMM_MAX_WORLD);
    }
  }
}

muon_comm *muon_mex_comm_agreement_of (const char *fname, const mxArray *spec, double *code)
{
  char kind[16], red[16];
  int size, rank, index = 0;
  muon_comm_kind k;
  muon_comm_reduction r;
  read_spec (fname, spec, 0, kind, red, &size, &rank);
  muon_mex_check (fname, muon_comm_spec (muon_mex_ctx (), kind, red, -1, &k, &r));
  muon_name_lookup (MUON_LIST_COMM_KIND, kind, &index);
  *code = 2.0 * index + (r == MUON_COMM_REDUCTION_LIBRARY);
  return k == MUON_COMM_SELF || k == MUON_COMM_SIM ? NULL : muon_mex_comm_agree_on (fname);
}

// muon_mex_comm_get, or with checking set, the communicator a call's checks run on: for
// NCCL the process's MPI one (the same ranks), so that checks before the ranks agree make
// no NCCL communicator (making one is collective).
static muon_comm *get (const char *fname, const mxArray *spec, int default_world, int *owned,
                       int checking)
{
  char kind[16], red[16];
  int size, rank;
  *owned = 0;
  read_spec (fname, spec, 1, kind, red, &size, &rank);

  muon_comm_kind k;
  muon_comm_reduction r;
  muon_comm *c = NULL;
  muon_ctx *ctx = muon_mex_ctx ();
  muon_mex_check (fname, muon_comm_spec (ctx, kind, red, size, &k, &r));
  if (k == MUON_COMM_SELF || k == MUON_COMM_SIM)
  {
    muon_mex_check (fname, k == MUON_COMM_SELF ? muon_comm_self_create (ctx, &c)
                    : muon_comm_sim_create (ctx, size >= 0 ? size : default_world, &c));
    *owned = 1;
    return c;
  }
  if (checking && k == MUON_COMM_NCCL)
    c = muon_mex_comm_agree_on (fname);
  if (c == NULL)
    c = muon_mex_comm_process (fname, k, r == MUON_COMM_REDUCTION_LIBRARY);
  if (size >= 0 && size != muon_comm_size (c))
    muon_mex_error (fname, "mpi", "COMM was made for %d ranks, but this process's %s world "
                    "has %d.", size, kind, muon_comm_size (c));
  if (rank >= 0 && rank != muon_comm_rank (c, 0))
    muon_mex_error (fname, "mpi", "COMM was made for rank %d, but this process is rank %d.",
                    rank, muon_comm_rank (c, 0));
  return c;
}

muon_comm *muon_mex_comm_get (const char *fname, const mxArray *spec, int default_world,
                              int *owned)
{
  return get (fname, spec, default_world, owned, 0);
}

muon_comm *muon_mex_comm_for_checks (const char *fname, const mxArray *spec, int *owned)
{
  return get (fname, spec, 1, owned, 1);
}

//---- a communicator and its counters as structs ---------------------------------------------

#define COUNTS(c) mxCreateString (muon_comm_counts_measured (c) ? "measured" : "modelled")

mxArray *muon_mex_comm_info (const muon_comm *c)
{
  static const char *names[] = { "kind", "size", "rank", "local_ranks", "counts",
                                 "reduction" };
  mxArray *s = mxCreateStructMatrix (1, 1, 6, names);
  mxSetField (s, 0, "kind", mxCreateString (muon_comm_name (c)));
  mxSetField (s, 0, "size", mxCreateDoubleScalar (muon_comm_size (c)));
  mxSetField (s, 0, "rank", mxCreateDoubleScalar (muon_comm_rank (c, 0)));
  mxSetField (s, 0, "local_ranks", mxCreateDoubleScalar (muon_comm_local_ranks (c)));
  mxSetField (s, 0, "counts", COUNTS (c));
  mxSetField (s, 0, "reduction", mxCreateString (muon_mex_comm_library (c)   // the kind's name
                ? muon_comm_name (c) : muon_names (MUON_LIST_COMM_REDUCTION, MUON_COMM_REDUCTION_FIXED)));
  return s;
}

// s.name = v for a 1 x 1 struct s; returns v.
static mxArray *put (mxArray *s, const char *name, mxArray *v)
{
  mxAddField (s, name);
  mxSetField (s, 0, name, v);
  return v;
}
#define column(s, name, L) mxGetPr (put (s, name, mxCreateDoubleMatrix ((mwSize) (L), 1, mxREAL)))

// Adds the L x 1 columns calls, sent, recv to the struct s: collective k's counters of each
// local rank minus before[l] (before NULL: since creation).  Sets *st.
static void add_counts (mxArray *s, muon_ctx *ctx, const muon_comm *c, muon_coll k,
                        const muon_comm_counters *before, muon_status *st)
{
  static const muon_comm_counters zero;
  int L = muon_comm_local_ranks (c);
  double *calls = column (s, "calls", L), *sent = column (s, "sent", L),
         *recv = column (s, "recv", L);
  for (int l = 0; l < L && *st >= 0; l++)
  {
    muon_comm_counters n;
    const muon_comm_counters *b = before ? &before[l] : &zero;
    if ((*st = muon_comm_counters_get (ctx, c, l, &n)) < 0)
      break;
    calls[l] = (double) (n.calls[k] - b->calls[k]);
    sent[l] = (double) (n.bytes_sent[k] - b->bytes_sent[k]);
    recv[l] = (double) (n.bytes_recv[k] - b->bytes_recv[k]);
  }
}

mxArray *muon_mex_comm_counters (muon_ctx *ctx, const muon_comm *c, muon_coll k,
                                 const muon_comm_counters *before, size_t count,
                                 muon_dtype dtype, int root, muon_status *st)
{
  static const char *names[] = { "coll", "counts" };
  mxArray *s = mxCreateStructMatrix (1, 1, 2, names);
  mxSetField (s, 0, "coll", mxCreateString (muon_names (MUON_LIST_COLL, k)));
  mxSetField (s, 0, "counts", COUNTS (c));
  int L = muon_comm_local_ranks (c);
  *st = MUON_OK;
  add_counts (s, ctx, c, k, before, st);
  double *ms = column (s, "model_sent", L), *mr = column (s, "model_recv", L);
  for (int l = 0; l < L && *st >= 0 && k != MUON_COLL_BARRIER; l++)
  {
    uint64_t sent, recv;
    *st = muon_comm_model_bytes (ctx, k, muon_comm_size (c), muon_comm_rank (c, l), root,
                                 count, dtype, &sent, &recv);
    ms[l] = (double) sent;
    mr[l] = (double) recv;
  }
  return s;
}

mxArray *muon_mex_comm_totals (muon_ctx *ctx, const muon_comm *c, muon_status *st)
{
  mxArray *s = mxCreateStructMatrix (1, 1, 0, NULL);
  *st = MUON_OK;
  for (int k = 0; k < MUON_COLL_COUNT; k++)
  {
    mxArray *t = put (s, muon_names (MUON_LIST_COLL, k), mxCreateStructMatrix (1, 1, 0, NULL));
    add_counts (t, ctx, c, (muon_coll) k, NULL, st);
  }
  return s;
}
