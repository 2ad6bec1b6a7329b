/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex_coll.c - the collectives of a communicator on Octave arrays (see muon_mex_comm.h).
 * Nothing here raises: the caller may hold a communicator made for the call, which it frees
 * before it raises.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "muon_mex_comm.h"

// What can be wrong with X, each with its status (the error's id) and message (printf'd
// with L or W, then n), in the order muon_mex_coll_check tries them.
#define X_ERRORS(X)                                                                     \
  X (X_FORM,  MUON_ERR_BADARG,   "X must be a 1 x %d cell, one array per local rank.")    \
  X (X_TYPE,  MUON_ERR_BADTYPE,  "X must hold real full double or single arrays.")        \
  X (X_ALIKE, MUON_ERR_BADSHAPE, "every rank's X must have the same class and number of " \
                                 "elements.")                                            \
  X (X_SPLIT, MUON_ERR_BADSHAPE, "X must have a multiple of %d elements (the world "      \
                                 "size), not %zu.")
#define X_ENUM(e, status, text) e,
#define X_ENTRY(e, status, text) { status, text },
enum { X_OK = -1, X_ERRORS (X_ENUM) };
static const struct { muon_status status; const char *text; } x_errors[] = { X_ERRORS (X_ENTRY) };

// Local rank l's array of X (a cell of L arrays, or the array when L = 1).
static const mxArray *x_rank (const mxArray *X, int l)
{
  return mxIsCell (X) ? mxGetCell (X, (mwIndex) l) : X;
}

// X_OK when X suits collective k on L local ranks of W (n: elements per rank).
static int x_check (const mxArray *X, muon_coll k, int L, int W, size_t *n)
{
  if (mxIsCell (X) ? (int) mxGetNumberOfElements (X) != L : L != 1)
    return X_FORM;
  for (int l = 0; l < L; l++)
  {
    const mxArray *a = x_rank (X, l);
    if (a == NULL || !(mxIsDouble (a) || mxIsSingle (a)) || mxIsComplex (a) || mxIsSparse (a))
      return X_TYPE;
    if (l == 0)
      *n = mxGetNumberOfElements (a);
    else if (mxGetClassID (a) != mxGetClassID (x_rank (X, 0)) || mxGetNumberOfElements (a) != *n)
      return X_ALIKE;
  }
  return (k == MUON_COLL_REDUCE_SCATTER || k == MUON_COLL_ALL_TO_ALL) && *n % (size_t) W
         ? X_SPLIT : X_OK;
}

muon_status muon_mex_coll_check (const mxArray *X, muon_coll k, const muon_comm *c, size_t *n,
                                 char *why, size_t len)
{
  int L = muon_comm_local_ranks (c), W = muon_comm_size (c);
  int bad = x_check (X, k, L, W, n);
  if (bad == X_OK)
    return MUON_OK;
  snprintf (why, len, x_errors[bad].text, bad == X_FORM ? L : W, *n);
  return x_errors[bad].status;
}

muon_status muon_mex_coll_run (muon_ctx *ctx, muon_comm *c, muon_coll k, const mxArray *X,
                               size_t n, muon_reduce_op op, int root, mxArray **Y,
                               size_t *count, muon_dtype *dtype)
{
  int L = muon_comm_local_ranks (c), W = muon_comm_size (c);
  const mxArray *X0 = x_rank (X, 0);
  mxClassID cls = mxGetClassID (X0);
  size_t e = mxGetElementSize (X0), w = (size_t) W;
  *count = k == MUON_COLL_REDUCE_SCATTER || k == MUON_COLL_ALL_TO_ALL ? n / w : n;
  *dtype = cls == mxSINGLE_CLASS ? MUON_F32 : MUON_F64;
  int in_place = k == MUON_COLL_ALLREDUCE || k == MUON_COLL_BROADCAST;
  size_t nrecv = k == MUON_COLL_ALL_GATHER ? w : 1;
  // the tables and copies from malloc, freed here: an allocation that raises would leave
  // the caller's communicator behind (__muon_comm__ frees it after this returns)
  // every local rank's result and staged copy and the tables of their addresses, asked
  // for at once: a world whose results do not fit fails here, naming their total (it failed
  // after filling most of them, naming one: all_gather's 8.6 GB at W = 16384 was "a result
  // of 1 MB", after 24 s)
  if (L < 1)                             // a communicator always has local ranks
    return muon_ctx_set_error (ctx, MUON_ERR_INTERNAL, "a communicator without local ranks");
  double need = (double) L * (double) (nrecv + 2) * sizeof (void *);
  for (int l = 0; l < L; l++)
  {
    double x = (double) mxGetNumberOfElements (x_rank (X, l)) * (double) e;
    need += in_place ? x : x + x * (k == MUON_COLL_ALL_GATHER ? (double) w
                                    : k == MUON_COLL_REDUCE_SCATTER ? 1.0 / (double) w : 1.0);
  }
  if (L > 1 && !muon_mex_have_room (need))
    return muon_ctx_set_error (ctx, MUON_ERR_NOMEM,
                               "out of memory for the results of %d ranks (%.0f MB)", L,
                               need / 1e6);
  void **send = calloc ((size_t) L, sizeof *send);
  void **recv = calloc ((size_t) L * nrecv, sizeof *recv);
  mxArray **y = calloc ((size_t) L, sizeof *y);
  size_t *counts = NULL;
  muon_status st = MUON_ERR_NOMEM;      // (a result that does not fit has set its message)
  if (send == NULL || recv == NULL || y == NULL)
    goto nomem;
  for (int l = 0; l < L; l++)            // copies: cells may share data, which the core rejects
  {
    if (in_place)
    {
      if ((y[l] = muon_mex_try_copy (x_rank (X, l))) == NULL)
        goto done;
      send[l] = mxGetData (y[l]);
    }
    else
    {
      // Y of reduce_scatter and all_gather: the rows of this rank's X when it is a matrix
      // (m x 0 too) whose columns split (reduce_scatter) or join (all_gather), else a
      // column (each local rank's own X: they may differ in shape); all_to_all: like X
      const mxArray *Xl = x_rank (X, l);
      int is2d = mxGetNumberOfDimensions (Xl) == 2;
      size_t cols = is2d ? mxGetN (Xl) : 0;
      int whole = is2d && (k == MUON_COLL_ALL_GATHER || cols % w == 0);
      size_t out_n = !whole ? 1 : k == MUON_COLL_ALL_GATHER ? cols * w : cols / w;
      size_t out_m = whole ? mxGetM (Xl) : k == MUON_COLL_ALL_GATHER ? n * w : *count;
      y[l] = k == MUON_COLL_ALL_TO_ALL ? muon_mex_try_copy (Xl)
                                       : muon_mex_try_new_array (2, (mwSize[]) { out_m, out_n },
                                                                 cls);
      if (y[l] == NULL)
        goto done;
      if ((send[l] = malloc (n * e + 1)) == NULL)
        goto nomem;
      memcpy (send[l], mxGetData (x_rank (X, l)), n * e);
    }
    for (size_t q = 0; q < nrecv; q++)
      recv[(size_t) l * nrecv + q] = (char *) mxGetData (y[l]) + q * *count * e;
  }
  const void *const *in = (const void *const *) send;
  st = MUON_ERR_INTERNAL;                // no other collective takes X
  if (k == MUON_COLL_ALLREDUCE)
    st = muon_comm_allreduce (ctx, c, in, recv, n, *dtype, op);
  else if (k == MUON_COLL_REDUCE_SCATTER)
    st = muon_comm_reduce_scatter (ctx, c, in, recv, *count, *dtype, op);
  else if (k == MUON_COLL_ALL_GATHER)
    st = muon_comm_all_gather (ctx, c, in, recv, n, *dtype);
  else if (k == MUON_COLL_BROADCAST)
    st = muon_comm_broadcast (ctx, c, recv, n, *dtype, root);
  else if (k == MUON_COLL_ALL_TO_ALL)     // equal blocks of count, to and from every rank
  {
    if ((counts = malloc ((size_t) L * w * sizeof *counts)) == NULL)
      goto nomem;
    for (size_t i = 0; i < (size_t) L * w; i++)
      counts[i] = *count;
    st = muon_comm_all_to_all (ctx, c, in, counts, recv, counts, *dtype);
  }
  *Y = y[0];
  if (mxIsCell (X))
  {
    *Y = mxCreateCellMatrix (1, (mwSize) L);
    for (int l = 0; l < L; l++)
      mxSetCell (*Y, (mwIndex) l, y[l]);
  }
  goto done;
nomem:
  st = muon_ctx_set_error (ctx, MUON_ERR_NOMEM, "out of memory for the buffers of %d ranks", L);
done:
  if (!in_place && send != NULL)
    for (int l = 0; l < L; l++)
      free (send[l]);
  free (send);
  free (recv);
  free (y);
  free (counts);
  return st;
}
