/* zero_cost.c - the plan-only cost of one distributed Muon step for every design of
 * muon_zero_step (and the all-to-all owner design), from the shapes alone
 * (muon_zero.h).
 *
 * The partition follows zero_layout.c without building its pieces: offsets in slot order
 * (stages 1/2) or per-matrix chunks (stage 3), owners first..last.  Sums over "the matrices
 * a rank holds a piece of" are difference arrays over the ranks (add at first, subtract after
 * last, one prefix sum), so a plan is O(P log P + W).  What each design does, collective by
 * collective, is read off zero_step.c and zero_step_rr.c; the bytes are muon_comm.h's ring
 * model (muon_comm_model_bytes), scaled to elem_bytes.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "muon_internal.h"
#include "zero_cost_impl.h"

//---- names and options --------------------------------------------------------------------

static const char *const alltoall_name = "alltoall_owner";

void muon_zero_cost_opts_default (muon_zero_cost_opts *o)
{
  if (o == NULL)
    return;
  memset (o, 0, sizeof *o);
  o->design = MUON_ZERO_REFERENCE;
  o->stage = 2;
  o->align_factor = 2;
  o->order = MUON_ZERO_ORDER_GIVEN;
  o->pad_count = MUON_ZERO_PADS_DEEPSPEED;
  o->elem_bytes = 8;
  muon_ns_opts_default (&o->ns);
  o->symmetric = 0;
}

muon_status muon_zero_cost_design_from_name (const char *name, int *design)
{
  if (name == NULL || design == NULL)
    return MUON_ERR_NULLPTR;
  muon_zero_variant v;
  if (muon_zero_variant_from_name (name, &v) == MUON_OK)
  {
    *design = (int) v;
    return MUON_OK;
  }
  if (strcmp (name, alltoall_name) == 0)
  {
    *design = MUON_ZERO_COST_ALLTOALL;
    return MUON_OK;
  }
  return MUON_ERR_BADARG;
}

const char *muon_zero_cost_design_name (int design)
{
  if (design == MUON_ZERO_COST_ALLTOALL)
    return alltoall_name;
  return muon_zero_variant_name ((muon_zero_variant) design);
}

//---- Newton-Schulz FLOPs (ns_flops.m) -----------------------------------------------------

static int ns_steps (const muon_ns_opts *o)
{
  return o->steps > 0 ? o->steps : muon_coeffs_default_steps (o->coeffs ? o->ncoeffs : 1);
}

// A restart before iteration i (0-based): 1 <= i <= steps - 1 and i in the list.
static int restarts_at (const muon_ns_opts *o, int i, int steps)
{
  if (i < 1 || i > steps - 1)
    return 0;
  for (int k = 0; k < o->nrestarts && k < MUON_MAX_RESTARTS; k++)
    if (o->restarts[k] == i)
      return 1;
  return 0;
}

double muon_ns_flops_matrix (size_t rows, size_t cols, const muon_ns_opts *o, int symmetric)
{
  muon_ns_opts d;
  if (o == NULL)
  {
    muon_ns_opts_default (&d);
    o = &d;
  }
  double n = (double) (rows < cols ? rows : cols), m = (double) (rows < cols ? cols : rows);
  double h = symmetric ? 0.5 : 1.0;
  int s = ns_steps (o);
  if (!muon_ns_uses_gram (rows, cols, o))
    return s * ((2 * h + 2) * m * n * n + 2 * h * n * n * n);
  double c1 = 2 * h + 2, c0 = 0;   // R = X X' at the start, X = Q X at the end
  for (int i = 0; i < s; i++)
  {
    int rs = restarts_at (o, i, s);
    if (rs)
      c1 += 2 + 2 * h;              // X = Q X, R = X X'
    c0 += 2 * h;                    // Z = b R + (c R) R
    if (i > 0 && !rs)
      c0 += 2 * h;                  // Q = Q Z + a Q
    if (i < s - 1 && !restarts_at (o, i + 1, s))
      c0 += 4 * h;                  // RZ, then R
  }
  return c1 * m * n * n + c0 * n * n * n;
}

//---- helpers ------------------------------------------------------------------------------

typedef struct { size_t numel, index; } cost_key;

// numel descending, then index ascending (zero_layout.c's and zero_plan.c's order)
static int by_size_desc (const void *a, const void *b)
{
  const cost_key *x = a, *y = b;
  if (x->numel != y->numel)
    return x->numel > y->numel ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

void zcost_part_free (part_t *q)
{
  free (q->off);
  free (q->chunk);
  free (q->first);
  free (q->last);
  memset (q, 0, sizeof *q);
}

// Elements [*lo, *hi) of matrix p (numel n) that rank r holds.
void zcost_part_range (const part_t *q, size_t p, size_t n, size_t r, size_t *lo, size_t *hi)
{
  if (q->stage == 3)
  {
    *lo = min_sz (r * q->chunk[p], n);
    *hi = min_sz ((r + 1) * q->chunk[p], n);
    return;
  }
  size_t a = r * q->S, b = a + q->S, end = q->off[p] + n;
  *lo = a <= q->off[p] ? 0 : min_sz (a, end) - q->off[p];
  *hi = b <= q->off[p] ? 0 : min_sz (b, end) - q->off[p];
}

muon_status zcost_part_build (cost_job *J, int stage, part_t *q)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  size_t np = J->np, W = J->W;
  memset (q, 0, sizeof *q);
  q->stage = stage;
  CHECKMEM (q->off = calloc (np, sizeof *q->off));
  CHECKMEM (q->chunk = calloc (np, sizeof *q->chunk));
  CHECKMEM (q->first = calloc (np, sizeof *q->first));
  CHECKMEM (q->last = calloc (np, sizeof *q->last));
  size_t off = 0;
  for (size_t k = 0; k < np; k++)
  {
    size_t p = J->order[k], n = J->numel[p];
    q->off[p] = off;
    if (stage == 3)
    {
      q->chunk[p] = n / W + (n % W != 0);
      CHECK (MUON_ERR_BADSHAPE, q->chunk[p] <= SIZE_MAX / W
             && q->S <= SIZE_MAX - q->chunk[p] && off <= SIZE_MAX - q->chunk[p] * W,
             "the padded buffer overflows");
      q->S += q->chunk[p];
      off += q->chunk[p] * W;
    }
    else
      off += n;
  }
  if (stage == 3)
    q->padded_total = off;
  else
  {
    size_t unit = (size_t) J->o->align_factor * W, rem = J->total % unit;
    CHECK (MUON_ERR_BADSHAPE, !rem || J->total <= SIZE_MAX - (unit - rem),
           "the padded buffer overflows");
    q->padded_total = J->total + (rem ? unit - rem : 0);
    q->S = q->padded_total / W;
  }
  for (size_t p = 0; p < np; p++)
  {
    size_t n = J->numel[p];
    q->first[p] = stage == 3 ? 0 : (int) (q->off[p] / q->S);
    q->last[p] = stage == 3 ? (int) ((n - 1) / q->chunk[p]) : (int) ((q->off[p] + n - 1) / q->S);
  }
fail:
  if (status < 0)
    zcost_part_free (q);
  return status;
}

// One collective of `count` elements (as the communicator takes it) on every rank.
muon_status zcost_add_coll (cost_job *J, muon_coll coll, size_t count)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  muon_zero_cost *C = J->C;
  uint64_t s = 0, r = 0, e = (uint64_t) J->o->elem_bytes;
  for (size_t q = 0; q < J->W; q++)
  {
    // every rank's figure is the same but the all-reduce's (chunks of unequal length)
    if (q == 0 || coll == MUON_COLL_ALLREDUCE)
    {
      CHECKSTATUS (muon_comm_model_bytes (ctx, coll, (int) J->W, (int) q, 0, count, MUON_F64,
                                          &s, &r));
      s = s / 8 * e;
      r = r / 8 * e;
    }
    C->calls[q * MUON_COST_COLLS + coll]++;
    C->sent[q * MUON_COST_COLLS + coll] += s;
    C->recv[q * MUON_COST_COLLS + coll] += r;
  }
fail:
  return status;
}

// Prefix sums of difference arrays: d[0..W] -> per rank values in out[0..W-1].
void zcost_prefix_u (const int64_t *d, uint64_t *out, size_t W)
{
  int64_t acc = 0;
  for (size_t r = 0; r < W; r++)
  {
    acc += d[r];
    out[r] = (uint64_t) acc;
  }
}

static void prefix_d (const double *d, double *out, size_t W)
{
  double acc = 0;
  for (size_t r = 0; r < W; r++)
  {
    acc += d[r];
    out[r] = acc;
  }
}

//---- the ZeRO-1/2 family (zero_step.c) ----------------------------------------------------

// Slice only: rank r orthogonalizes the block of rows its piece of each matrix touches.
static void slice_flops (cost_job *J, const part_t *q, double *d)
{
  muon_zero_cost *C = J->C;
  size_t W = J->W;
  for (size_t p = 0; p < J->np; p++)
  {
    size_t n = J->numel[p], cols = J->par[p].cols, f = (size_t) q->first[p];
    size_t l = (size_t) q->last[p], lo, hi;
    if (q->stage == 3 && l > 0 && q->chunk[p] % cols == 0)
    {
      // every piece but the last is chunk / cols whole rows: one value for ranks 0..l-1
      double fl = muon_ns_flops_matrix (q->chunk[p] / cols, cols, &J->o->ns, J->o->symmetric);
      d[0] += fl;
      d[l] -= fl;
      f = l;
    }
    size_t memo_rows[2] = { 0, 0 };   // a matrix's blocks take two or three row counts
    double memo_fl[2] = { 0, 0 };
    for (size_t r = f; r <= l; r++)
    {
      zcost_part_range (q, p, n, r, &lo, &hi);
      size_t rows = (hi + cols - 1) / cols - lo / cols;
      int k = memo_rows[0] == rows ? 0 : memo_rows[1] == rows ? 1 : -1;
      if (k < 0)
      {
        k = memo_rows[0] == 0 ? 0 : 1;
        memo_rows[k] = rows;
        memo_fl[k] = muon_ns_flops_matrix (rows, cols, &J->o->ns, J->o->symmetric);
      }
      C->ns_flops[r] += memo_fl[k];
    }
  }
  (void) W;
}

static muon_status zero12 (cost_job *J)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  muon_zero_cost *C = J->C;
  int v = J->o->design;
  size_t np = J->np, W = J->W;
  part_t q = { 0 };
  int64_t *dcnt = NULL, *dnum = NULL, *down = NULL, *dstr = NULL;
  double *dfl = NULL;
  uint64_t *cnt = NULL, *num = NULL, *strad = NULL, *mid = NULL;
  CHECKSTATUS (zcost_part_build (J, J->o->stage, &q));
  CHECKMEM (dcnt = calloc (W + 1, sizeof *dcnt));
  CHECKMEM (dnum = calloc (W + 1, sizeof *dnum));
  CHECKMEM (down = calloc (W + 1, sizeof *down));
  CHECKMEM (dstr = calloc (W + 1, sizeof *dstr));
  CHECKMEM (dfl = calloc (W + 1, sizeof *dfl));
  CHECKMEM (cnt = calloc (W, sizeof *cnt));
  CHECKMEM (num = calloc (W, sizeof *num));
  CHECKMEM (strad = calloc (W, sizeof *strad));
  CHECKMEM (mid = calloc (W, sizeof *mid));
  size_t S = q.S, N = q.padded_total;
  C->padded_total = N;
  C->partition_size = S;

  for (size_t p = 0; p < np; p++)
  {
    size_t n = J->numel[p], f = (size_t) q.first[p], l = (size_t) q.last[p], lo, hi;
    C->first_owner[p] = q.first[p];
    C->last_owner[p] = q.last[p];
    C->ns_rank[p] = -1;
    // matrices with a piece on the rank: how many, their elements, their NS work
    dcnt[f]++;
    dcnt[l + 1]--;
    dnum[f] += (int64_t) n;
    dnum[l + 1] -= (int64_t) n;
    dfl[f] += J->pf[p];
    dfl[l + 1] -= J->pf[p];
    // owned elements at stage 3: chunk on ranks 0..l-1, the rest on l
    zcost_part_range (&q, p, n, l, &lo, &hi);
    if (q.stage == 3)
    {
      down[0] += (int64_t) q.chunk[p];
      down[l] += (int64_t) (hi - lo) - (int64_t) q.chunk[p];
      down[l + 1] -= (int64_t) (hi - lo);
    }
    // the straddlers' pieces per rank (Moonlight's gather): first, middles, last
    if (l > f)
    {
      C->straddle_total += n;
      C->nstraddle++;
      strad[l] += hi - lo;
      size_t mid_len = q.stage == 3 ? q.chunk[p] : S;
      size_t from = f;
      if (q.stage != 3)
      {
        zcost_part_range (&q, p, n, f, &lo, &hi);
        strad[f] += hi - lo;
        from = f + 1;
      }
      dstr[from] += (int64_t) mid_len;
      dstr[l] -= (int64_t) mid_len;
    }
  }
  zcost_prefix_u (dcnt, cnt, W);
  zcost_prefix_u (dnum, num, W);
  zcost_prefix_u (dstr, mid, W);
  prefix_d (dfl, C->ns_flops, W);
  for (size_t r = 0; r < W; r++)
    strad[r] += mid[r];
  if (q.stage == 3)
    zcost_prefix_u (down, C->owned, W);
  else
    for (size_t r = 0; r < W; r++)
      C->owned[r] = min_sz ((r + 1) * S, J->total) - min_sz (r * S, J->total);

  // the collectives, in the step's order
  if (v == MUON_ZERO_REFERENCE || v == MUON_ZERO12_ALLREDUCE)
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALLREDUCE, N));
  else
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_REDUCE_SCATTER, S));
  if (v == MUON_ZERO2_MULTI_OWNER && C->straddle_total > 0)
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALLREDUCE, C->straddle_total));
  size_t Cg = 0;
  if (v == MUON_ZERO_MOONLIGHT_GATHER)
  {
    for (size_t r = 0; r < W; r++)
      Cg = max_sz (Cg, strad[r]);
    if (Cg > 0)
      CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALL_GATHER, Cg));
  }

  if (v == MUON_ZERO2_SLICE_ONLY)
  {
    memset (dfl, 0, (W + 1) * sizeof *dfl);
    memset (C->ns_flops, 0, W * sizeof *C->ns_flops);
    slice_flops (J, &q, dfl);
    double acc = 0;
    for (size_t r = 0; r < W; r++)
      C->ns_flops[r] += (acc += dfl[r]);
  }

  int full = v == MUON_ZERO_REFERENCE || v == MUON_ZERO12_ALLREDUCE
             || v == MUON_ZERO2_RS_BUGGY || v == MUON_ZERO2_MULTI_OWNER;
  for (size_t r = 0; r < W; r++)
  {
    C->ns_calls[r] = v == MUON_ZERO_REFERENCE ? np : cnt[r];
    C->momentum[r] = v == MUON_ZERO_REFERENCE ? J->total : full ? num[r] : S;
    C->master[r] = v == MUON_ZERO_REFERENCE ? J->total : C->owned[r];
    if (v == MUON_ZERO_REFERENCE)
      C->ns_flops[r] = C->flops_total;
    uint64_t t = N + 3 * J->big;                     // the flat buffer; G, M, U of one matrix
    if (v != MUON_ZERO_REFERENCE && v != MUON_ZERO12_ALLREDUCE)
      t += S;                                         // the reduced partition
    if (v == MUON_ZERO2_MULTI_OWNER)
      t += C->straddle_total;                         // the straddlers' all-reduce
    if (v == MUON_ZERO_MOONLIGHT_GATHER)
      t += S + Cg + Cg * W;                           // NS inputs, send and gather buffers
    C->transient[r] = t;
  }
fail:
  zcost_part_free (&q);
  free (dcnt);
  free (dnum);
  free (down);
  free (dstr);
  free (dfl);
  free (cnt);
  free (num);
  free (strad);
  free (mid);
  return status;
}

//---- round robin (zero_step_rr.c) ---------------------------------------------------------

static muon_status round_robin (cost_job *J)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  muon_zero_cost *C = J->C;
  int aliased = J->o->design == MUON_ZERO3_RR_ALIASED;
  size_t np = J->np, W = J->W;
  part_t q = { 0 };
  int64_t *down = NULL;
  CHECKSTATUS (zcost_part_build (J, 3, &q));
  CHECKMEM (down = calloc (W + 1, sizeof *down));
  size_t S = q.S;
  C->padded_total = q.padded_total;
  C->partition_size = S;
  for (size_t p = 0; p < np; p++)
  {
    size_t n = J->numel[p], l = (size_t) q.last[p], lo, hi;
    C->first_owner[p] = 0;
    C->last_owner[p] = q.last[p];
    if (l > 0)
    {
      C->straddle_total += n;
      C->nstraddle++;
    }
    zcost_part_range (&q, p, n, l, &lo, &hi);
    down[0] += (int64_t) q.chunk[p];
    down[l] += (int64_t) (hi - lo) - (int64_t) q.chunk[p];
    down[l + 1] -= (int64_t) (hi - lo);
  }
  zcost_prefix_u (down, C->owned, W);

  // the shipped pads: one per rank, shaped like the last matrix; a mixed round fails
  size_t pad = J->numel[J->order[np - 1]];
  size_t npads = J->o->pad_count == MUON_ZERO_PADS_KELLER ? W - np % W : (W - np % W) % W;
  if (aliased)
    for (size_t base = 0; base < np && !C->fails; base += W)
    {
      size_t a = J->numel[J->order[base]];
      for (size_t s = base + 1; s < base + W; s++)
      {
        size_t n = s < np ? J->numel[J->order[s]] : pad;
        if (n != a)
        {
          const muon_zero_cost_param *x = &J->par[J->order[base]];
          const muon_zero_cost_param *y = &J->par[s < np ? J->order[s] : J->order[np - 1]];
          C->fails = 1;
          snprintf (C->why, sizeof C->why,
                    "gather round %zu mixes sizes: slot %zu holds matrix %zu (%zu x %zu) and "
                    "slot %zu %s %zu (%zu x %zu) (DeepSpeed PR 8628)", base / W + 1, base + 1,
                    J->order[base] + 1, x->rows, x->cols, s + 1,
                    s < np ? "holds matrix" : "the pad shaped like matrix",
                    (s < np ? J->order[s] : J->order[np - 1]) + 1, y->rows, y->cols);
          break;
        }
      }
    }

  // 1. all-reduce of the gradients, 2. all-gather of the momentum chunks, 3. per round two
  // all-gathers (updates, momenta)
  CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALLREDUCE, J->total));
  CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALL_GATHER, S));
  size_t last_count = 0;
  for (size_t base = 0; base < np; base += W)
  {
    size_t count = 0;
    for (size_t s = base; s < base + W && s < np; s++)
      count = max_sz (count, J->numel[J->order[s]]);
    if (aliased)
      count = J->numel[J->order[base]];
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALL_GATHER, count));
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_ALL_GATHER, count));
    last_count = count;
    C->rounds++;
  }
  size_t idle = (W - np % W) % W;   // the last round's idle slots
  for (size_t s = 0; s < np; s++)
  {
    size_t p = J->order[s], r = s % W;
    C->ns_rank[p] = (int) r;
    C->ns_flops[r] += J->pf[p];
  }
  for (size_t r = 0; r < W; r++)
  {
    C->ns_calls[r] = np / W + (r < np % W);
    C->momentum[r] = S;
    C->master[r] = C->owned[r];
    C->pads[r] = aliased ? (npads > 0 ? 2 * pad : 0) : 2 * idle * last_count;
    C->transient[r] = 2 * J->total + S * W + 2 * J->big + 2 * J->big * W
                      + (aliased && npads > 0 ? 2 * pad : 0);
  }
fail:
  zcost_part_free (&q);
  free (down);
  return status;
}

//---- whole-matrix owners: Megatron's LPT, the all-to-all design ---------------------------

static int heap_less (heap_item a, heap_item b)
{
  return a.load < b.load || (a.load == b.load && a.rank < b.rank);
}

void zcost_heap_down (heap_item *h, size_t n, size_t i)
{
  for (;;)
  {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && heap_less (h[l], h[m]))
      m = l;
    if (r < n && heap_less (h[r], h[m]))
      m = r;
    if (m == i)
      return;
    heap_item t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

static muon_status whole_matrix (cost_job *J, const size_t *sorted)
{
  muon_ctx *ctx = J->ctx;
  muon_status status = MUON_OK;
  muon_zero_cost *C = J->C;
  size_t np = J->np, W = J->W;
  int a2a = J->o->design == MUON_ZERO_COST_ALLTOALL || J->o->design == MUON_ZERO_MUON_BP;
  heap_item *h = NULL;
  int64_t *dsh = NULL;
  uint64_t *shard = NULL, *own = NULL, *gath = NULL;
  size_t seg = 0;
  if (!a2a)
  {
    // LPT (zero_plan.c's lpt_assign in O(P log W)): largest matrix first onto the least-
    // loaded rank, lowest on ties; a binary heap of (load, rank), the root the least
    CHECKMEM (h = malloc (W * sizeof *h));
    for (size_t r = 0; r < W; r++)
      h[r] = (heap_item) { 0, (int) r };
    for (size_t k = 0; k < np; k++)
    {
      size_t p = sorted[k];
      int r = h[0].rank;
      C->ns_rank[p] = r;
      h[0].load += J->numel[p];
      zcost_heap_down (h, W, 0);
    }
  }
  else
    for (size_t k = 0; k < np; k++)
      C->ns_rank[sorted[k]] = (int) (k % W);
  for (size_t p = 0; p < np; p++)
  {
    size_t r = (size_t) C->ns_rank[p];
    C->ns_calls[r]++;
    C->ns_flops[r] += J->pf[p];
    C->momentum[r] += J->numel[p];   // LPT: whole matrices (the all-to-all design: below)
  }
  if (!a2a)
  {
    for (size_t r = 0; r < W; r++)
      seg = max_sz (seg, C->momentum[r]);
    C->padded_total = seg * W;
    C->partition_size = seg;
    for (size_t p = 0; p < np; p++)
      C->first_owner[p] = C->last_owner[p] = C->ns_rank[p];
    CHECKSTATUS (zcost_add_coll (J, MUON_COLL_REDUCE_SCATTER, seg));
    for (size_t r = 0; r < W; r++)
    {
      C->owned[r] = C->master[r] = C->momentum[r];
      C->transient[r] = seg * W + seg + J->big;
    }
    goto fail;
  }

  // all-to-all: dim-0 shards of ceil (rows / W) rows; rank r holds rows [r rc, (r+1) rc)
  CHECKMEM (dsh = calloc (W + 1, sizeof *dsh));
  CHECKMEM (shard = calloc (W, sizeof *shard));
  CHECKMEM (own = calloc (W, sizeof *own));
  CHECKMEM (gath = calloc (W, sizeof *gath));
  size_t Sfs = 0;
  for (size_t p = 0; p < np; p++)
  {
    size_t rows = J->par[p].rows, cols = J->par[p].cols, rc = rows / W + (rows % W != 0);
    size_t k = rows / rc, rem = rows - k * rc, o = (size_t) C->ns_rank[p];
    Sfs += rc * cols;
    dsh[0] += (int64_t) (rc * cols);
    dsh[k] -= (int64_t) (rc * cols);
    if (rem)
    {
      dsh[k] += (int64_t) (rem * cols);
      dsh[k + 1] -= (int64_t) (rem * cols);
    }
    C->first_owner[p] = 0;
    C->last_owner[p] = (int) (k - (rem == 0));
    size_t mine = o < k ? rc * cols : o == k ? rem * cols : 0;
    own[o] += mine;                       // the owner's own shard of its matrices
    gath[o] += J->numel[p] - mine;        // what it gathers of them
    if (C->last_owner[p] > 0)
    {
      C->straddle_total += J->numel[p];
      C->nstraddle++;
    }
  }
  zcost_prefix_u (dsh, shard, W);
  C->padded_total = Sfs * W;
  C->partition_size = Sfs;
  CHECKSTATUS (zcost_add_coll (J, MUON_COLL_REDUCE_SCATTER, Sfs));
  uint64_t e = (uint64_t) J->o->elem_bytes;
  for (size_t r = 0; r < W; r++)
  {
    uint64_t out = shard[r] - own[r];     // its shards of the others' matrices
    // forward: send out, receive gath; back: send gath, receive out
    C->calls[r * MUON_COST_COLLS + MUON_COST_ALL_TO_ALL] += 2;
    C->sent[r * MUON_COST_COLLS + MUON_COST_ALL_TO_ALL] += (out + gath[r]) * e;
    C->recv[r * MUON_COST_COLLS + MUON_COST_ALL_TO_ALL] += (gath[r] + out) * e;
    uint64_t full = C->momentum[r];       // elements of the matrices it owns
    C->momentum[r] = C->owned[r] = C->master[r] = shard[r];
    C->transient[r] = Sfs + 2 * full + 2 * out + J->big;
  }
fail:
  free (h);
  free (dsh);
  free (shard);
  free (own);
  free (gath);
  return status;
}

//---- create / destroy ---------------------------------------------------------------------

muon_status muon_zero_cost_destroy (muon_zero_cost **cost)
{
  if (cost == NULL)
    return MUON_ERR_NULLPTR;
  muon_zero_cost *C = *cost;
  if (C)
  {
    free (C->calls);
    free (C->sent);
    free (C->recv);
    free (C->ns_calls);
    free (C->ns_flops);
    free (C->momentum);
    free (C->pads);
    free (C->owned);
    free (C->master);
    free (C->transient);
    free (C->first_owner);
    free (C->last_owner);
    free (C->ns_rank);
    free (C->slot);
    free (C);
    *cost = NULL;
  }
  return MUON_OK;
}

static muon_status check_opts (muon_ctx *ctx, const muon_zero_cost_opts *o)
{
  muon_status status = MUON_OK;
  CHECK (MUON_ERR_BADARG, o->design >= 0 && o->design < MUON_ZERO_COST_DESIGNS,
         "unknown design %d", o->design);
  CHECK (MUON_ERR_BADARG, o->stage >= 1 && o->stage <= 3, "stage must be 1, 2 or 3 (got %d)",
         o->stage);
  CHECK (MUON_ERR_BADARG, o->align_factor >= 1 && o->align_factor <= MUON_ZERO_MAX_ALIGN,
         "align factor must be in 1..%d (got %d)", MUON_ZERO_MAX_ALIGN, o->align_factor);
  CHECK (MUON_ERR_BADARG,
         o->order == MUON_ZERO_ORDER_GIVEN || o->order == MUON_ZERO_ORDER_SIZE_DESC,
         "unknown parameter order %d", (int) o->order);
  CHECK (MUON_ERR_BADARG, o->pad_count == MUON_ZERO_PADS_DEEPSPEED
                          || o->pad_count == MUON_ZERO_PADS_KELLER,
         "unknown pad count rule %d", (int) o->pad_count);
  CHECK (MUON_ERR_BADARG, o->elem_bytes >= 1 && o->elem_bytes <= 64,
         "element bytes must be in 1..64 (got %d)", o->elem_bytes);
  CHECK (MUON_ERR_BADARG, o->ns.method == MUON_NS_STANDARD || o->ns.method == MUON_NS_GRAM,
         "unknown method %d", (int) o->ns.method);
  CHECK (MUON_ERR_BADARG, o->ns.steps >= 0 && o->ns.steps <= MUON_MAX_STEPS,
         "steps must be in 0..%d (got %d)", MUON_MAX_STEPS, o->ns.steps);
  CHECK (MUON_ERR_BADARG, o->ns.nrestarts >= 0 && o->ns.nrestarts <= MUON_MAX_RESTARTS,
         "at most %d restarts", MUON_MAX_RESTARTS);
  CHECK (MUON_ERR_BADARG, isfinite (o->ns.gram_min_aspect) && o->ns.gram_min_aspect >= 0,
         "the Gram minimum aspect must be finite and >= 0");
fail:
  return status;
}

muon_status muon_zero_cost_create (muon_ctx *ctx, size_t np, const muon_zero_cost_param *par,
                                   int world, const muon_zero_cost_opts *opts,
                                   muon_zero_cost **out)
{
  muon_status status = MUON_OK;
  muon_zero_cost *C = NULL;
  muon_zero_cost_opts o;
  size_t *numel = NULL, *order = NULL, *sorted = NULL;
  double *pf = NULL;
  cost_key *keys = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, out != NULL, "cost pointer must not be NULL");
  *out = NULL;
  if (opts)
    o = *opts;
  else
    muon_zero_cost_opts_default (&o);
  CHECK (MUON_ERR_BADSHAPE, np >= 1, "the plan needs at least one matrix");
  CHECK (MUON_ERR_NULLPTR, par != NULL, "params must not be NULL");
  CHECK (MUON_ERR_BADARG, world >= 1 && world <= MUON_ZERO_MAX_WORLD,
         "world must be in 1..%d (got %d)", MUON_ZERO_MAX_WORLD, world);
  CHECKSTATUS (check_opts (ctx, &o));
  size_t W = (size_t) world;
  CHECK (MUON_ERR_BADSHAPE, np <= SIZE_MAX / W / MUON_COST_COLLS / sizeof (uint64_t),
         "too many matrices (%zu)", np);

  CHECKMEM (numel = malloc (np * sizeof *numel));
  CHECKMEM (pf = malloc (np * sizeof *pf));
  CHECKMEM (keys = malloc (np * sizeof *keys));
  CHECKMEM (order = malloc (np * sizeof *order));
  CHECKMEM (sorted = malloc (np * sizeof *sorted));
  CHECKMEM (C = calloc (1, sizeof *C));
  C->design = o.design;
  C->world = world;
  C->nparams = np;
  size_t total = 0, big = 0;
  for (size_t p = 0; p < np; p++)
  {
    const muon_zero_cost_param *q = &par[p];
    CHECK (MUON_ERR_BADSHAPE, q->rows >= 1 && q->cols >= 1,
           "matrix %zu is %zu x %zu; sizes must be >= 1", p + 1, q->rows, q->cols);
    CHECK (MUON_ERR_BADSHAPE, q->rows <= SIZE_MAX / q->cols,
           "matrix %zu: %zu x %zu elements overflow", p + 1, q->rows, q->cols);
    numel[p] = q->rows * q->cols;
    CHECK (MUON_ERR_BADSHAPE, total <= SIZE_MAX - numel[p] && total + numel[p] < ((size_t) 1 << 62),
           "the total number of elements overflows");
    total += numel[p];
    big = max_sz (big, numel[p]);
    size_t E = q->experts ? q->experts : 1;
    CHECK (MUON_ERR_BADSHAPE, q->rows % E == 0,
           "matrix %zu: %zu experts do not divide its %zu rows", p + 1, E, q->rows);
    size_t page = q->rows / E;
    double f = 0;
    if (q->nsplit > 0)
    {
      CHECK (MUON_ERR_NULLPTR, q->split != NULL, "matrix %zu: split must not be NULL", p + 1);
      size_t sum = 0;
      for (size_t b = 0; b < q->nsplit; b++)
      {
        CHECK (MUON_ERR_BADSHAPE, q->split[b] >= 1 && q->split[b] <= page - sum,
               "matrix %zu: the split row blocks must be >= 1 and sum to %zu", p + 1, page);
        sum += q->split[b];
        f += muon_ns_flops_matrix (q->split[b], q->cols, &o.ns, o.symmetric);
      }
      CHECK (MUON_ERR_BADSHAPE, sum == page,
             "matrix %zu: the split row blocks sum to %zu, not %zu", p + 1, sum, page);
    }
    else
      f = muon_ns_flops_matrix (page, q->cols, &o.ns, o.symmetric);
    pf[p] = (double) E * f;
    C->flops_total += pf[p];
    keys[p] = (cost_key) { numel[p], p };
  }
  C->total = total;
  // the flat order (the layout's); the size-descending one (LPT, all-to-all owners)
  qsort (keys, np, sizeof *keys, by_size_desc);
  for (size_t k = 0; k < np; k++)
  {
    sorted[k] = keys[k].index;
    order[k] = o.order == MUON_ZERO_ORDER_SIZE_DESC ? keys[k].index : k;
  }

  CHECKMEM (C->calls = calloc (W * MUON_COST_COLLS, sizeof *C->calls));
  CHECKMEM (C->sent = calloc (W * MUON_COST_COLLS, sizeof *C->sent));
  CHECKMEM (C->recv = calloc (W * MUON_COST_COLLS, sizeof *C->recv));
  CHECKMEM (C->ns_calls = calloc (W, sizeof *C->ns_calls));
  CHECKMEM (C->ns_flops = calloc (W, sizeof *C->ns_flops));
  CHECKMEM (C->momentum = calloc (W, sizeof *C->momentum));
  CHECKMEM (C->pads = calloc (W, sizeof *C->pads));
  CHECKMEM (C->owned = calloc (W, sizeof *C->owned));
  CHECKMEM (C->master = calloc (W, sizeof *C->master));
  CHECKMEM (C->transient = calloc (W, sizeof *C->transient));
  CHECKMEM (C->first_owner = calloc (np, sizeof *C->first_owner));
  CHECKMEM (C->last_owner = calloc (np, sizeof *C->last_owner));
  CHECKMEM (C->ns_rank = calloc (np, sizeof *C->ns_rank));
  CHECKMEM (C->slot = calloc (np, sizeof *C->slot));
  int whole = o.design == MUON_ZERO_LAYERWISE_LPT || o.design == MUON_ZERO_COST_ALLTOALL
              || o.design == MUON_ZERO_MUON_BP;
  for (size_t k = 0; k < np; k++)
    C->slot[whole ? sorted[k] : order[k]] = k;

  cost_job J = { ctx, &o, par, np, W, total, big, numel, order, sorted, pf, C };
  switch (o.design)
  {
    case MUON_ZERO3_ROUND_ROBIN:
    case MUON_ZERO3_RR_ALIASED: CHECKSTATUS (round_robin (&J)); break;
    case MUON_ZERO_LAYERWISE_LPT:
    case MUON_ZERO_COST_ALLTOALL:
    case MUON_ZERO_MUON_BP: CHECKSTATUS (whole_matrix (&J, sorted)); break;
    case MUON_ZERO_EXPERT_PARALLEL: CHECKSTATUS (zcost_expert_parallel (&J)); break;
    default: CHECKSTATUS (zero12 (&J)); break;
  }
  *out = C;
  C = NULL;
fail:
  free (numel);
  free (pf);
  free (keys);
  free (order);
  free (sorted);
  muon_zero_cost_destroy (&C);
  return status;
}
