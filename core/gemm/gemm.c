/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* gemm.c - the GEMM provider layer (see gemm.h): who runs which precision, the thread
 * policy, the tiled products (OpenBLAS or oneDNN per tile) and muon_gemm_query for
 * muon_info.
 *
 * Threads.  Every tile is one single-threaded library call: OpenBLAS is set to one thread
 * while any muon_ns call runs (muon_gemm_setup; the last muon_gemm_finish of the calls in
 * flight, on whatever threads and contexts, puts back what the first one found) and oneDNN's primitives are made for one thread.  OpenMP shares the tiles among the
 * call's threads (schedule dynamic: a thread that loses its core takes fewer tiles, the
 * result is the same), the costliest first; the strips of an upper product's diagonal tiles
 * are shared out one by one, and a caller's epilogue (muon_gemm_then) runs on each block as
 * soon as it is final, in the same parallel loop.  The library calls are weak references: a
 * BLAS that is not OpenBLAS keeps its own setting (its products then follow its own
 * threading).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <pthread.h>
#include <cblas.h>

#include "gemm.h"

MUON_NAME_TABLE (gemm_names, MUON_GEMM_LIST);

extern void openblas_set_num_threads (int n) __attribute__ ((weak));
extern int openblas_get_num_threads (void) __attribute__ ((weak));
extern char *openblas_get_config (void) __attribute__ ((weak));
extern char *openblas_get_corename (void) __attribute__ ((weak));
extern void omp_set_num_threads (int n) __attribute__ ((weak));
extern int omp_get_max_threads (void) __attribute__ ((weak));

//---- who runs what ------------------------------------------------------------------------

// MUONLAB_GEMM, read at every call: the provider 'auto' stands for (AUTO when unset or not a
// provider's name; `text` gets what was read, for muon_info).  Not kept: libmuon is linked
// into every gateway, so a value kept per copy would let a setenv between calls give
// muon_ns and muon_update different providers for the same "auto".
static muon_gemm_provider env_default (char *text, size_t len)
{
  const char *e = getenv ("MUONLAB_GEMM");
  int v = MUON_GEMM_AUTO;
  if (text)
    snprintf (text, len, "%s", e ? e : "");
  if (e != NULL && muon_name_find (gemm_names, MUON_NAME_COUNT (gemm_names), e, &v) != MUON_OK)
    v = MUON_GEMM_AUTO;
  return (muon_gemm_provider) v;
}

void muon_gemm_choose (muon_gemm_provider requested, muon_precision p,
                       muon_gemm_provider *provider, int *bf16, char *why, size_t len)
{
  char env[64], kernel[96] = "";
  const char *from = "";
  *provider = MUON_GEMM_OPENBLAS;
  *bf16 = 0;
  muon_gemm_provider from_env = env_default (env, sizeof env);
  if (requested == MUON_GEMM_AUTO && from_env != MUON_GEMM_AUTO)
  {
    requested = from_env;
    from = " (MUONLAB_GEMM)";
  }
  if (p == MUON_PREC_DOUBLE)
  {
    snprintf (why, len, "fp64 products always run on OpenBLAS (dgemm, dsyrk)");
    return;
  }
  if (requested == MUON_GEMM_OPENBLAS)
  {
    snprintf (why, len, "OpenBLAS asked for%s", from);
    return;
  }
  if (requested == MUON_GEMM_AUTO)
  {
    if (p == MUON_PREC_BF16 && muon_gemm_onednn_native_bf16 ())
    {
      *provider = MUON_GEMM_ONEDNN;
      *bf16 = 1;
      snprintf (why, len, "oneDNN multiplies bf16 natively here");
    }
    else if (p == MUON_PREC_BF16)
      snprintf (why, len, "OpenBLAS: no native bf16 products here (%s)",
                muon_gemm_onednn_built () ? "oneDNN below avx512_core_bf16"
                                          : "oneDNN not built");
    else
      snprintf (why, len, "OpenBLAS: the default for fp32 products; 'Gemm' 'onednn' or "
                          "MUONLAB_GEMM=onednn runs oneDNN's");
    return;
  }
  // ONEDNN (asked, or MUONLAB_GEMM's default): oneDNN where it has a kernel here
  int native = p == MUON_PREC_BF16 && muon_gemm_onednn_native_bf16 ();
  if (!muon_gemm_onednn_built ())
    snprintf (why, len, "OpenBLAS: oneDNN%s is not built", from);
  else if (!native && !muon_gemm_onednn_kernel (0, kernel, sizeof kernel))
    snprintf (why, len, "OpenBLAS: oneDNN%s has no fp32 matmul here (%s)", from, kernel);
  else
  {
    *provider = MUON_GEMM_ONEDNN;
    *bf16 = native;
    snprintf (why, len, "oneDNN asked for%s%s", from,
              p == MUON_PREC_BF16 && !native ? ", fp32 products of bf16 values (no native "
                                               "bf16 here)" : "");
  }
}

//---- threads (the policy is core/base/threads.c) --------------------------------------------

// OpenBLAS's thread count is one setting for the whole process, and its own threads may
// change the bits of a product, so it must stay at 1 while any muon_ns call of any thread
// (each with its own context) runs its tiles.  blas_calls counts the calls in flight: the
// first in saves the count it finds (blas_saved; 0: it was 1 already) and sets 1, the last
// out puts the saved count back.  blas_lock guards both.
static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static int blas_calls, blas_saved;

static void blas_pin (void)
{
  pthread_mutex_lock (&blas_lock);
  if (blas_calls++ == 0 && openblas_get_num_threads && openblas_set_num_threads)
  {
    int now = openblas_get_num_threads ();
    blas_saved = now != 1 ? now : 0;
    if (now != 1)
      openblas_set_num_threads (1);
  }
  pthread_mutex_unlock (&blas_lock);
}

static void blas_unpin (void)
{
  pthread_mutex_lock (&blas_lock);
  if (--blas_calls == 0 && blas_saved > 0 && openblas_set_num_threads)
  {
    openblas_set_num_threads (blas_saved);
    blas_saved = 0;
  }
  pthread_mutex_unlock (&blas_lock);
}

muon_status muon_gemm_check_provider (muon_ctx *ctx, muon_gemm_provider requested)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_GEMM_LIST, requested),
         "unknown GEMM provider %d", (int) requested);
  CHECK (MUON_ERR_NOTBUILT, requested != MUON_GEMM_ONEDNN || muon_gemm_onednn_built (),
         "the oneDNN GEMM provider is not built (the build found no oneDNN; install "
         "libdnnl-dev and rebuild)");
fail:
  return status;
}

muon_status muon_gemm_setup (muon_ctx *ctx, muon_gemm_provider requested, int threads,
                             muon_precision p, muon_gemm_cfg *cfg)
{
  muon_status status = MUON_OK;
  char why[128];
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, cfg != NULL, "the GEMM configuration must not be NULL");
  memset (cfg, 0, sizeof *cfg);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_GEMM_LIST, requested),
         "unknown GEMM provider %d", (int) requested);
  CHECK (MUON_ERR_BADARG, threads >= 0 && threads <= MUON_MAX_THREADS,
         "threads must be an integer from 0 (automatic) to %d", MUON_MAX_THREADS);
  CHECKSTATUS (muon_gemm_check_provider (ctx, requested));
  muon_gemm_choose (requested, p, &cfg->provider, &cfg->bf16, why, sizeof why);
  cfg->f64 = p == MUON_PREC_DOUBLE;
  cfg->threads = muon_threads_that_fit (threads > 0 ? threads : muon_default_threads ());
  blas_pin ();
  cfg->blas_pinned = 1;
  if (omp_get_max_threads && omp_set_num_threads)
  {
    int now = omp_get_max_threads ();
    if (now != cfg->threads)
    {
      cfg->saved_omp = now;
      omp_set_num_threads (cfg->threads);
    }
  }
fail:
  return status;
}

void muon_gemm_finish (muon_gemm_cfg *cfg)
{
  if (cfg == NULL)
    return;
  if (cfg->blas_pinned)
    blas_unpin ();
  if (cfg->saved_omp > 0 && omp_set_num_threads)
    omp_set_num_threads (cfg->saved_omp);
  cfg->blas_pinned = cfg->saved_omp = 0;
}

muon_status muon_gemm_blas_threads (muon_ctx *ctx, int n, int *previous)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, previous != NULL, "previous must not be NULL");
  CHECK (MUON_ERR_BADARG, n >= 0 && n <= MUON_MAX_THREADS,
         "threads must be an integer from 0 to %d", MUON_MAX_THREADS);
  CHECK (MUON_ERR_UNSUPPORTED, openblas_get_num_threads && openblas_set_num_threads,
         "the BLAS is not OpenBLAS");
  pthread_mutex_lock (&blas_lock);
  if (blas_calls > 0)              // calls in flight: the count the last one out puts back
  {
    *previous = blas_saved > 0 ? blas_saved : 1;
    if (n > 0)
      blas_saved = n;
  }
  else
  {
    *previous = openblas_get_num_threads ();
    if (n > 0)
      openblas_set_num_threads (n);
  }
  pthread_mutex_unlock (&blas_lock);
fail:
  return status;
}

//---- tiles --------------------------------------------------------------------------------

// One tiled product: C = op(A) op(B) (general), or the tiles on and above the diagonal of
// alpha A A' (sym; then ta = 0, tb = 1 and B = A).  Tile (I, J) covers rows I*TILE.. and
// columns J*TILE.. of C.  plan[r][c]: the oneDNN plan of the tiles whose rows (r) and
// columns (c) are a full TILE (0) or the shorter last ones (1).
typedef struct {
  const muon_gemm_cfg *cfg;
  int sym, ta, tb;
  size_t m, n, k, lda, ldb, ldc, tm, tn;   // tm x tn tiles
  double alpha;
  muon_gemm_in A, B;
  void *C;
  const void *plan[2][2];
  int upper;            // muon_gemm_product_upper: tiles on and above the diagonal only
  const muon_gemm_then *then;
} tiled;

// One unit of work: tile t (column-major over the tm x tn grid), or for a diagonal tile of
// an upper product on OpenBLAS one of its strips (strip >= 0: columns strip*STRIP.. of the
// tile); cost: its operations.
typedef struct {
  size_t t;
  long strip;
  double cost;
} work_item;

// Costliest first (the threads take items in this order: the long ones start early and the
// short ones fill in at the end), then in grid order; the order decides only who computes
// what, never how.
static int work_cmp (const void *pa, const void *pb)
{
  const work_item *a = pa, *b = pb;
  if (a->cost != b->cost)
    return a->cost > b->cost ? -1 : 1;
  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  return (a->strip > b->strip) - (a->strip < b->strip);
}

// Strip s0.. of a diagonal tile of an upper product (OpenBLAS): columns s0.. of the tile and
// its rows up to the strip's last column.  wd: the strip's width.
static void upper_strip (const tiled *w, const void *A, const void *B, size_t co, size_t s0,
                         size_t wd)
{
  size_t rows = s0 + wd;
  if (w->cfg->f64)
    cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (int) rows, (int) wd, (int) w->k,
                 1.0, A, (int) w->lda, (const double *) B + s0 * w->ldb, (int) w->ldb, 0.0,
                 (double *) w->C + co + s0 * w->ldc, (int) w->ldc);
  else
    cblas_sgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, (int) rows, (int) wd, (int) w->k,
                 1.0f, A, (int) w->lda, (const float *) B + s0 * w->ldb, (int) w->ldb, 0.0f,
                 (float *) w->C + co + s0 * w->ldc, (int) w->ldc);
}

// Element offset of rows i.. of op(X) (op(X) rows are X's columns when transposed).
static size_t rows_at (int trans, size_t i, size_t ld)
{
  return trans ? i * ld : i;
}

static const void *at (muon_gemm_in x, int f64, int bf16, size_t off)
{
  if (f64)
    return x.d + off;
  return bf16 ? (const void *) (x.h + off) : (const void *) (x.f + off);
}

// Rows and columns of tile t: [*i0, *i0 + *mi) x [*j0, *j0 + *nj).
static void tile_box (const tiled *w, size_t t, size_t *i0, size_t *mi, size_t *j0, size_t *nj)
{
  *i0 = t % w->tm * MUON_GEMM_TILE;
  *j0 = t / w->tm * MUON_GEMM_TILE;
  *mi = w->m - *i0 < MUON_GEMM_TILE ? w->m - *i0 : MUON_GEMM_TILE;
  *nj = w->n - *j0 < MUON_GEMM_TILE ? w->n - *j0 : MUON_GEMM_TILE;
}

// Work item it on the calling thread, then its block's epilogue (w->then): 0 or a oneDNN
// status.  [in,out] *epi: seconds spent in the epilogue, added.
static int item_run (const tiled *w, const work_item *it, double *epi)
{
  size_t i0, mi, j0, nj;
  tile_box (w, it->t, &i0, &mi, &j0, &nj);
  int diag = i0 == j0;
  const muon_gemm_cfg *cfg = w->cfg;
  size_t ao = rows_at (w->ta, i0, w->lda), bo = rows_at (!w->tb, j0, w->ldb);
  size_t co = i0 + j0 * w->ldc;
  const void *A = at (w->A, cfg->f64, cfg->bf16, ao), *B = at (w->B, cfg->f64, cfg->bf16, bo);
  CBLAS_TRANSPOSE ta = w->ta ? CblasTrans : CblasNoTrans, tb = w->tb ? CblasTrans : CblasNoTrans;
  if (cfg->provider == MUON_GEMM_ONEDNN)
  {
    float *C = (float *) w->C + co;
    int s = muon_gemm_onednn_run (w->plan[mi != MUON_GEMM_TILE][nj != MUON_GEMM_TILE], A, B, C);
    if (s != 0)
      return s;
    if (w->alpha != 1)
      for (size_t j = 0; j < nj; j++)
        for (size_t i = 0; i < mi; i++)
          C[i + j * w->ldc] *= (float) w->alpha;
  }
  else if (it->strip >= 0)
  {
    size_t s0 = (size_t) it->strip * MUON_GEMM_STRIP;
    size_t wd = mi - s0 < MUON_GEMM_STRIP ? mi - s0 : MUON_GEMM_STRIP;
    upper_strip (w, A, B, co, s0, wd);
    mi = s0 + wd;                                  // the strip's block: rows i0.., its columns
    j0 += s0;
    nj = wd;
  }
  else if (cfg->f64 && w->sym && diag)
    cblas_dsyrk (CblasColMajor, CblasUpper, CblasNoTrans, (int) mi, (int) w->k, w->alpha, A,
                 (int) w->lda, 0.0, (double *) w->C + co, (int) w->ldc);
  else if (cfg->f64)
    cblas_dgemm (CblasColMajor, ta, tb, (int) mi, (int) nj, (int) w->k, w->alpha, A,
                 (int) w->lda, B, (int) w->ldb, 0.0, (double *) w->C + co, (int) w->ldc);
  else if (w->sym && diag)
    cblas_ssyrk (CblasColMajor, CblasUpper, CblasNoTrans, (int) mi, (int) w->k,
                 (float) w->alpha, A, (int) w->lda, 0.0f, (float *) w->C + co, (int) w->ldc);
  else
    cblas_sgemm (CblasColMajor, ta, tb, (int) mi, (int) nj, (int) w->k, (float) w->alpha, A,
                 (int) w->lda, B, (int) w->ldb, 0.0f, (float *) w->C + co, (int) w->ldc);
  if (w->then)
  {
    double t0 = muon_clock ();
    w->then->fn (w->then->arg, i0, mi, j0, nj);
    *epi += muon_clock () - t0;
  }
  return 0;
}

// Checks w's operands, prepares its oneDNN plans, lists the work (costliest first), runs it
// and counts it.  The tally's seconds leave out the epilogues' share: their time summed over
// the threads, over the threads.
static muon_status tiled_run (muon_ctx *ctx, tiled *w)
{
  muon_status status = MUON_OK;
  const muon_gemm_cfg *cfg = w->cfg;
  work_item *items = NULL;
  double t0 = muon_clock (), flops = 0, epi = 0;
  CHECK (MUON_ERR_NULLPTR, cfg != NULL && w->C != NULL, "GEMM operands must not be NULL");
  int want_d = cfg->f64, want_h = !cfg->f64 && cfg->bf16, want_f = !want_d && !want_h;
  const char *kind = want_d ? "fp64" : want_h ? "bf16" : "fp32";
  CHECK (MUON_ERR_NULLPTR, (w->A.f || w->A.h || w->A.d) && (w->B.f || w->B.h || w->B.d),
         "GEMM operands must not be NULL");
  CHECK (MUON_ERR_INTERNAL, (want_d ? w->A.d && w->B.d : want_h ? w->A.h && w->B.h
                                                                : w->A.f && w->B.f) != 0,
         "a%s %s product needs %s operands", want_f ? "n" : "", kind, kind);
  CHECK (MUON_ERR_BADSHAPE, w->m >= 1 && w->n >= 1 && w->k >= 1 && w->ldc >= w->m
           && w->lda >= (w->ta ? w->k : w->m) && w->ldb >= (w->tb ? w->n : w->k),
         "GEMM shape %zu x %zu x %zu does not fit its leading dimensions", w->m, w->n, w->k);
  CHECK (MUON_ERR_BADSHAPE, w->m <= INT_MAX && w->n <= INT_MAX && w->k <= INT_MAX
           && w->lda <= INT_MAX && w->ldb <= INT_MAX && w->ldc <= INT_MAX,
         "GEMM dimensions must fit a BLAS int");
  w->tm = (w->m + MUON_GEMM_TILE - 1) / MUON_GEMM_TILE;
  w->tn = (w->n + MUON_GEMM_TILE - 1) / MUON_GEMM_TILE;
  size_t tiles = w->tm * w->tn, count = 0;
  int onednn = cfg->provider == MUON_GEMM_ONEDNN;
  int strips = w->upper && !onednn;                // diagonal tiles cut into their strips
  size_t per_diag = strips ? (MUON_GEMM_TILE + MUON_GEMM_STRIP - 1) / MUON_GEMM_STRIP : 1;
  CHECKMEM (items = malloc ((tiles + w->tm * per_diag) * sizeof *items));
  for (size_t t = 0; t < tiles; t++)              // the plans, the work items and their cost
  {
    size_t i0, mi, j0, nj;
    tile_box (w, t, &i0, &mi, &j0, &nj);
    if ((w->sym || w->upper) && i0 > j0)
      continue;
    double k = (double) w->k;
    if (strips && i0 == j0)
      for (size_t s0 = 0; s0 < mi; s0 += MUON_GEMM_STRIP)
      {
        size_t wd = mi - s0 < MUON_GEMM_STRIP ? mi - s0 : MUON_GEMM_STRIP;
        work_item it = { t, (long) (s0 / MUON_GEMM_STRIP), 2.0 * (double) (s0 + wd) * wd * k };
        items[count++] = it;
      }
    else
    {
      work_item it = { t, -1, w->sym && i0 == j0 && !onednn ? (double) mi * (mi + 1) * k
                                                             : 2.0 * (double) mi * nj * k };
      items[count++] = it;
    }
    const void **plan = &w->plan[mi != MUON_GEMM_TILE][nj != MUON_GEMM_TILE];
    if (onednn && *plan == NULL)
      CHECKSTATUS (muon_gemm_onednn_prepare (ctx, cfg->bf16, w->ta, w->tb, mi, nj, w->k,
                                             w->lda, w->ldb, w->ldc, plan));
  }
  for (size_t i = 0; i < count; i++)
    flops += items[i].cost;
  qsort (items, count, sizeof *items, work_cmp);
  int failed = 0, threads = cfg->threads < (int) count ? cfg->threads : (int) count;
  long n_items = (long) count;
#pragma omp parallel for schedule (dynamic, 1) num_threads (threads) if (threads > 1) \
  reduction (+:epi)
  for (long i = 0; i < n_items; i++)
  {
    int s = item_run (w, &items[i], &epi);
    if (s != 0)
    {
#pragma omp atomic write
      failed = s;
    }
  }
  CHECK (MUON_ERR_INTERNAL, failed == 0, "oneDNN: a matmul failed (status %d)", failed);
  if (cfg->tally)
  {
    cfg->tally->products++;
    cfg->tally->flops += flops;
    cfg->tally->seconds += muon_clock () - t0 - epi / (threads > 1 ? threads : 1);
  }
fail:
  free (items);
  return status;
}

muon_status muon_gemm_product (muon_ctx *ctx, const muon_gemm_cfg *cfg, int ta, int tb,
                               size_t m, size_t n, size_t k, muon_gemm_in A, size_t lda,
                               muon_gemm_in B, size_t ldb, void *C, size_t ldc)
{
  CHECKCTX (ctx);
  tiled w = { cfg, 0, ta != 0, tb != 0, m, n, k, lda, ldb, ldc, 0, 0, 1.0, A, B, C,
              { { NULL, NULL }, { NULL, NULL } }, 0, NULL };
  return tiled_run (ctx, &w);
}

muon_status muon_gemm_symmetric (muon_ctx *ctx, const muon_gemm_cfg *cfg, size_t n, size_t k,
                                 double alpha, muon_gemm_in A, size_t lda, void *C,
                                 size_t ldc, const muon_gemm_then *then)
{
  CHECKCTX (ctx);
  tiled w = { cfg, 1, 0, 1, n, n, k, lda, lda, ldc, 0, 0, alpha, A, A, C,
              { { NULL, NULL }, { NULL, NULL } }, 0, then };
  return tiled_run (ctx, &w);
}

muon_status muon_gemm_product_upper (muon_ctx *ctx, const muon_gemm_cfg *cfg, size_t n,
                                     size_t k, muon_gemm_in A, size_t lda, muon_gemm_in B,
                                     size_t ldb, void *C, size_t ldc,
                                     const muon_gemm_then *then)
{
  CHECKCTX (ctx);
  tiled w = { cfg, 0, 0, 0, n, n, k, lda, ldb, ldc, 0, 0, 1.0, A, B, C,
              { { NULL, NULL }, { NULL, NULL } }, 1, then };
  return tiled_run (ctx, &w);
}

//---- information --------------------------------------------------------------------------

muon_status muon_gemm_query (muon_ctx *ctx, muon_gemm_info *info)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, info != NULL, "info must not be NULL");
  memset (info, 0, sizeof *info);
  info->onednn_built = muon_gemm_onednn_built ();
  env_default (info->env, sizeof info->env);
  for (int p = MUON_PREC_DOUBLE; p <= MUON_PREC_FP16; p++)
  {
    muon_gemm_provider g;
    int bf16;
    muon_gemm_choose (MUON_GEMM_AUTO, (muon_precision) p, &g, &bf16, info->reason[p],
                      sizeof info->reason[p]);
    snprintf (info->provider[p], sizeof info->provider[p], "%s", MUON_NAME_OF (gemm_names, g));
  }
  info->cores = muon_core_count ();
  info->threads = muon_default_threads ();
  info->tile = MUON_GEMM_TILE;
  if (openblas_get_config)
    snprintf (info->openblas, sizeof info->openblas, "%s, core %s", openblas_get_config (),
              openblas_get_corename ? openblas_get_corename () : "?");
  muon_gemm_onednn_describe (info);
fail:
  return status;
}
