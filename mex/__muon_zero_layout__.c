/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: [PAR, PIECES, RANKS, INFO] = __muon_zero_layout__ (SHAPES, WORLD, OPTS)"
/* __muon_zero_layout__ - gateway of zero_layout.m: the ZeRO partition model of muon_zero.h.
 * SHAPES is P x 2 [rows cols] (positive integers), WORLD a scalar, OPTS a struct with fields
 * stage, align_factor, order ('given' | 'size_desc').  Outputs are plain double matrices that
 * zero_layout.m shapes into its struct (0-based ranks / offsets, 1-based parameter indices):
 *   PAR    P x 9  [rows cols numel offset padded slot+1 first_owner last_owner straddles]
 *   PIECES N x 10 [rank param+1 local_start local_stop flat_start part_start row_start
 *                  row_stop first_partial last_partial], rank by rank
 *   RANKS  W x 5  [start stop padding first_piece+1 npieces]
 *   INFO   1 x 4  [total padded_total partition_size padding]
 * A parameter's owners' [start stop) are its pieces (no W x P table: DeepSeek-V3's 45,868
 * parameters at W = 4096 made 3 GB of one).  (A design's momentum map on the layout comes
 * from the layout's plan: __muon_zero_step__ ('map', ...).)
 */
#include "muon_mex.h"

enum { IN_SHAPES, IN_WORLD, IN_OPTS, IN_END };
enum { OUT_PAR, OUT_PIECES, OUT_RANKS, OUT_INFO, OUT_END };

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "zero_layout";
  if (!(nrhs == IN_END && nlhs <= OUT_END))
    muon_mex_error (fname, "badArg", "%s.", USAGE);
  size_t P;
  size_t *rc = muon_mex_shapes (fname, prhs[IN_SHAPES], &P);
  int world = muon_mex_int (fname, "WORLD", prhs[IN_WORLD], 1, MUON_ZERO_MAX_WORLD);
  muon_zero_layout_opts o;
  muon_mex_zero_layout_opts (fname, prhs[IN_OPTS], &o);
  muon_zero_layout *L = NULL;
  muon_ctx *ctx = muon_mex_ctx ();
  muon_mex_check (fname, muon_zero_layout_create (ctx, P, rc, rc + P, world, &o, &L));

  // outputs built here, handed over by muon_mex_outputs (never past nlhs); all allocated
  // first, so that a table that does not fit frees the layout and the others before the
  // error
  mxArray *out[OUT_END] = { NULL };
  size_t W = (size_t) L->world, N = L->npieces;
  mwSize dims[OUT_END][3] = { [OUT_PAR] = { P, 9, 1 }, [OUT_PIECES] = { N, 10, 1 },
                              [OUT_RANKS] = { W, 5, 1 },
                              [OUT_INFO] = { 1, 4, 1 } };
  int fits = 1;
  for (int k = 0; k < OUT_END; k++)
    fits = fits && (out[k] = muon_mex_try_new_array (3, dims[k], mxDOUBLE_CLASS)) != NULL;
  if (!fits)
  {
    muon_zero_layout_destroy (&L);
    for (int k = 0; k < OUT_END; k++)
      if (out[k] != NULL)
        mxDestroyArray (out[k]);
    muon_mex_check (fname, MUON_ERR_NOMEM);
  }
  double *d = mxGetPr (out[OUT_PAR]);
  for (size_t p = 0; p < P; p++)
  {
    const muon_zero_param *q = &L->params[p];
    double v[9] = { q->rows, q->cols, q->numel, q->offset, q->padded, q->slot + 1,
                    q->first_owner, q->last_owner, q->straddles };
    for (int j = 0; j < 9; j++)
      d[p + j * P] = v[j];
  }
  d = mxGetPr (out[OUT_PIECES]);
  for (size_t i = 0; i < N; i++)
  {
    const muon_zero_piece *c = &L->pieces[i];
    double v[10] = { c->rank, c->param + 1, c->local_start, c->local_stop, c->flat_start,
                     c->part_start, c->row_start, c->row_stop, c->first_partial,
                     c->last_partial };
    for (int j = 0; j < 10; j++)
      d[i + j * N] = v[j];
  }
  d = mxGetPr (out[OUT_RANKS]);
  for (size_t r = 0; r < W; r++)
  {
    const muon_zero_rank *k = &L->ranks[r];
    double v[5] = { k->start, k->stop, k->padding, k->first_piece + 1, k->npieces };
    for (int j = 0; j < 5; j++)
      d[r + j * W] = v[j];
  }
  d = mxGetPr (out[OUT_INFO]);
  d[0] = L->total;
  d[1] = L->padded_total;
  d[2] = L->partition_size;
  d[3] = L->padding;
  muon_zero_layout_destroy (&L);
  muon_mex_outputs (nlhs, plhs, out, OUT_END);
}
