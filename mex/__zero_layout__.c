#define USAGE "usage: [PAR, PIECES, RANKS, RANGES, INFO] = __zero_layout__ (SHAPES, WORLD, OPTS)" \
              " or [SEG, LEN] = __zero_layout__ (SHAPES, WORLD, OPTS, VARIANT)"
/* __zero_layout__ - gateway of zero_layout.m: the ZeRO partition model of muon_zero.h.
 * SHAPES is P x 2 [rows cols] (positive integers), WORLD a scalar, OPTS a struct with fields
 * stage, align_factor, order ('given' | 'size_desc').  Outputs are plain double matrices that
 * zero_layout.m shapes into its struct (0-based ranks / offsets, 1-based parameter indices):
 *   PAR    P x 9  [rows cols numel offset padded slot+1 first_owner last_owner straddles]
 *   PIECES N x 10 [rank param+1 local_start local_stop flat_start part_start row_start
 *                  row_stop first_partial last_partial], rank by rank
 *   RANKS  W x 5  [start stop padding first_piece+1 npieces]
 *   RANGES W x 2 x P, rank r's [start stop) of parameter p (muon_zero_layout_range)
 *   INFO   1 x 4  [total padded_total partition_size padding]
 * With VARIANT (a name of the variant list), the momentum map of that design's plan on the
 * layout (muon_zero_plan_momentum_map), for the sharded checkpoints (zero_shard_map.m):
 *   SEG    W x 1 cell, entry r+1 K x 5 [param+1 at start stop rowmajor], one row per stretch
 *          of rank r's momentum buffer, in buffer order
 *   LEN    W x 1, the length of each rank's buffer
 */
#include "muon_mex.h"

enum { IN_SHAPES, IN_WORLD, IN_OPTS, IN_END, IN_VARIANT = IN_END, IN_MAP_END };
enum { OUT_PAR, OUT_PIECES, OUT_RANKS, OUT_RANGES, OUT_INFO, OUT_END };
enum { OUT_SEG, OUT_LEN, OUT_MAP_END };

// The variant named by VARIANT (checked before anything is allocated).
static muon_zero_variant variant_arg (const char *fname, const mxArray *name)
{
  char buf[64];
  int v = 0;
  if (!mxIsChar (name) || mxGetString (name, buf, sizeof buf) != 0
      || muon_name_lookup (MUON_LIST_ZERO_VARIANT, buf, &v) != MUON_OK)
    muon_mex_error (fname, "badArg", "VARIANT must be a design's name.");
  return (muon_zero_variant) v;
}

// [SEG, LEN]: the momentum map of variant v's plan on L; destroys L (also on an error)
static void momentum_map (const char *fname, muon_ctx *ctx, muon_zero_layout *L,
                          muon_zero_variant v, int nlhs, mxArray *plhs[])
{
  muon_zero_plan *P = NULL;
  muon_status s = muon_zero_plan_create (ctx, L, v, &P);
  muon_zero_mom_seg *seg = mxMalloc ((L->nparams ? L->nparams : 1) * sizeof *seg);
  mxArray *out[OUT_MAP_END] = { mxCreateCellMatrix ((mwSize) L->world, 1),
                                mxCreateDoubleMatrix ((mwSize) L->world, 1, mxREAL) };
  for (int r = 0; r < L->world && s >= 0; r++)
  {
    size_t n = 0;
    s = muon_zero_plan_momentum_map (ctx, P, r, seg, &n);
    mxArray *m = mxCreateDoubleMatrix ((mwSize) n, 5, mxREAL);
    double *d = mxGetPr (m);
    for (size_t k = 0; k < n && s >= 0; k++)
    {
      double row[5] = { seg[k].param + 1, seg[k].at, seg[k].start, seg[k].stop,
                        seg[k].rowmajor };
      for (int j = 0; j < 5; j++)
        d[k + j * n] = row[j];
    }
    mxSetCell (out[OUT_SEG], (mwIndex) r, m);
    mxGetPr (out[OUT_LEN])[r] = s >= 0 ? (double) P->momentum_len[r] : 0;
  }
  muon_zero_plan_destroy (&P);
  muon_zero_layout_destroy (&L);
  if (s < 0)
  {
    mxDestroyArray (out[OUT_SEG]);
    mxDestroyArray (out[OUT_LEN]);
    muon_mex_check (fname, s);
  }
  muon_mex_outputs (nlhs, plhs, out, OUT_MAP_END);
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "zero_layout";
  int map = nrhs == IN_MAP_END;
  if (!(nrhs == IN_END && nlhs <= OUT_END) && !(map && nlhs <= OUT_MAP_END))
    muon_mex_error (fname, "badArg", "%s", USAGE);
  muon_zero_variant variant = map ? variant_arg (fname, prhs[IN_VARIANT]) : MUON_ZERO_REFERENCE;
  size_t P;
  size_t *rc = muon_mex_shapes (fname, prhs[IN_SHAPES], &P);
  int world = muon_mex_int (fname, "WORLD", prhs[IN_WORLD], 1, MUON_ZERO_MAX_WORLD);
  muon_zero_layout_opts o;
  muon_mex_zero_layout_opts (fname, prhs[IN_OPTS], &o);
  muon_zero_layout *L = NULL;
  muon_ctx *ctx = muon_mex_ctx ();
  muon_mex_check (fname, muon_zero_layout_create (ctx, P, rc, rc + P, world, &o, &L));
  if (map)
  {
    momentum_map (fname, ctx, L, variant, nlhs, plhs);
    return;
  }

  // outputs built here, handed over by muon_mex_outputs (never past nlhs)
  mxArray *out[OUT_END] = { NULL };
  size_t W = (size_t) L->world, N = L->npieces;
  double *d = mxGetPr (out[OUT_PAR] = mxCreateDoubleMatrix (P, 9, mxREAL));
  for (size_t p = 0; p < P; p++)
  {
    const muon_zero_param *q = &L->params[p];
    double v[9] = { q->rows, q->cols, q->numel, q->offset, q->padded, q->slot + 1,
                    q->first_owner, q->last_owner, q->straddles };
    for (int j = 0; j < 9; j++)
      d[p + j * P] = v[j];
  }
  d = mxGetPr (out[OUT_PIECES] = mxCreateDoubleMatrix (N, 10, mxREAL));
  for (size_t i = 0; i < N; i++)
  {
    const muon_zero_piece *c = &L->pieces[i];
    double v[10] = { c->rank, c->param + 1, c->local_start, c->local_stop, c->flat_start,
                     c->part_start, c->row_start, c->row_stop, c->first_partial,
                     c->last_partial };
    for (int j = 0; j < 10; j++)
      d[i + j * N] = v[j];
  }
  d = mxGetPr (out[OUT_RANKS] = mxCreateDoubleMatrix (W, 5, mxREAL));
  for (size_t r = 0; r < W; r++)
  {
    const muon_zero_rank *k = &L->ranks[r];
    double v[5] = { k->start, k->stop, k->padding, k->first_piece + 1, k->npieces };
    for (int j = 0; j < 5; j++)
      d[r + j * W] = v[j];
  }
  mwSize dims[3] = { W, 2, P };
  d = mxGetPr (out[OUT_RANGES] = mxCreateNumericArray (3, dims, mxDOUBLE_CLASS, mxREAL));
  for (size_t p = 0; p < P; p++)
    for (size_t r = 0; r < W; r++)
    {
      size_t lo, hi;
      muon_zero_layout_range (ctx, L, p, (int) r, &lo, &hi);
      d[r + 2 * W * p] = lo;
      d[r + W + 2 * W * p] = hi;
    }
  d = mxGetPr (out[OUT_INFO] = mxCreateDoubleMatrix (1, 4, mxREAL));
  d[0] = L->total;
  d[1] = L->padded_total;
  d[2] = L->partition_size;
  d[3] = L->padding;
  muon_zero_layout_destroy (&L);
  muon_mex_outputs (nlhs, plhs, out, OUT_END);
}
