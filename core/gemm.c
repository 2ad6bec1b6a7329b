/* gemm.c - the GEMM provider layer (see gemm.h): provider and thread resolution, the
 * OpenBLAS products, the block form of the symmetric product on oneDNN, and muon_gemm_query
 * for muon_info.
 *
 * Threads.  OpenBLAS (the Debian pthread build) and oneDNN (OpenMP) keep separate pools.
 * muon_gemm_setup sizes the pool of the provider in use for the duration of one muon_ns
 * call (the elementwise passes follow: OpenMP with oneDNN, one thread with OpenBLAS), so the
 * cores are used once, and muon_gemm_finish puts back what it found.  The library calls are
 * weak references: a BLAS that is not OpenBLAS, or a process without OpenMP, simply keeps
 * its own setting.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cblas.h>

#include "gemm.h"

extern void openblas_set_num_threads (int n) __attribute__ ((weak));
extern int openblas_get_num_threads (void) __attribute__ ((weak));
extern char *openblas_get_config (void) __attribute__ ((weak));
extern char *openblas_get_corename (void) __attribute__ ((weak));
extern void omp_set_num_threads (int n) __attribute__ ((weak));
extern int omp_get_max_threads (void) __attribute__ ((weak));

//---- names --------------------------------------------------------------------------------

static const char *const gemm_names[] = { "auto", "openblas", "onednn" };

muon_status muon_gemm_from_name (const char *name, muon_gemm_provider *g)
{
  if (name == NULL || g == NULL)
    return MUON_ERR_NULLPTR;
  for (int i = 0; i < 3; i++)
    if (strcmp (name, gemm_names[i]) == 0)
    {
      *g = (muon_gemm_provider) i;
      return MUON_OK;
    }
  return MUON_ERR_BADARG;
}

const char *muon_gemm_name (muon_gemm_provider g)
{
  return (g >= MUON_GEMM_AUTO && g <= MUON_GEMM_ONEDNN) ? gemm_names[g] : "unknown";
}

//---- threads ------------------------------------------------------------------------------

// Cores this process may run on (its affinity mask; the online count as a fallback).
static int core_count (void)
{
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return CPU_COUNT (&set);
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int) n : 1;
}

// Tasks of other processes running right now (Linux): the runnable count of /proc/loadavg
// less this process's running threads (/proc/self/task/*/stat); 0 where unknown.
static int busy_elsewhere (void)
{
  int running = 0, own = 0;
#ifdef __linux__
  FILE *f = fopen ("/proc/loadavg", "r");
  double l1, l5, l15;
  int total, ok = f && fscanf (f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total) == 5;
  if (f)
    fclose (f);
  DIR *d = ok ? opendir ("/proc/self/task") : NULL;
  struct dirent *t;
  while (d && (t = readdir (d)) != NULL)
  {
    char path[64], buf[256];
    if (t->d_name[0] == '.')
      continue;
    snprintf (path, sizeof path, "/proc/self/task/%.32s/stat", t->d_name);
    FILE *s = fopen (path, "r");
    size_t len = s ? fread (buf, 1, sizeof buf - 1, s) : 0;
    if (s)
      fclose (s);
    buf[len] = 0;
    char *c = strrchr (buf, ')');                  // "tid (name) S ...": state after the name
    own += c && c[1] == ' ' && c[2] == 'R';
  }
  if (d)
    closedir (d);
#endif
  return running > own ? running - own : 0;
}

// Cores busy with other processes, counted at most every 0.1 s per context.
static int busy_cores (muon_ctx *ctx)
{
  double now = muon_clock ();
  if (ctx->gemm_busy_time == 0 || now - ctx->gemm_busy_time > 0.1)
  {
    ctx->gemm_busy = busy_elsewhere ();
    ctx->gemm_busy_time = now;
  }
  return ctx->gemm_busy;
}

// Threads for `requested` (0: OMP_NUM_THREADS's first entry when set, else the cores that
// other processes leave free, shared out among the ranks of an MPI job on this machine).
// OpenMP's spinning barriers stall when another process holds one of the team's cores
// (measured: 8 ms -> 440 ms for a bf16 256 x 1024 NS next to one busy process), so the
// automatic count leaves the busy cores alone.
static int thread_count (muon_ctx *ctx, int requested)
{
  int cores = core_count (), n = requested;
  if (n <= 0)
  {
    const char *env = getenv ("OMP_NUM_THREADS");
    n = env ? atoi (env) : 0;
  }
  if (n <= 0)
  {
    const char *local = getenv ("OMPI_COMM_WORLD_LOCAL_SIZE");     // Open MPI
    if (local == NULL)
      local = getenv ("MPI_LOCALNRANKS");                          // MPICH (Hydra)
    int ranks = local ? atoi (local) : 1;
    n = ranks > 1 ? cores / ranks : cores - (ctx ? busy_cores (ctx) : 0);
    if (n < 1)
      n = 1;
  }
  return n < cores ? n : cores;
}

muon_status muon_gemm_setup (muon_ctx *ctx, muon_gemm_provider requested, int threads,
                             muon_precision p, muon_gemm_cfg *cfg)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, cfg != NULL, "the GEMM configuration must not be NULL");
  memset (cfg, 0, sizeof *cfg);
  CHECK (MUON_ERR_BADARG, requested >= MUON_GEMM_AUTO && requested <= MUON_GEMM_ONEDNN,
         "unknown GEMM provider %d", (int) requested);
  CHECK (MUON_ERR_BADARG, threads >= 0, "threads must be a non-negative integer (0: auto)");
  CHECK (MUON_ERR_NOTBUILT, requested != MUON_GEMM_ONEDNN || muon_gemm_onednn_built (),
         "the oneDNN GEMM provider is not built (the build found no oneDNN; install "
         "libdnnl-dev and rebuild)");
  cfg->provider = requested == MUON_GEMM_AUTO
                    ? (muon_gemm_onednn_built () ? MUON_GEMM_ONEDNN : MUON_GEMM_OPENBLAS)
                    : requested;
  if (p == MUON_PREC_DOUBLE)
    cfg->provider = MUON_GEMM_OPENBLAS;             // dgemm / dsyrk whatever was asked
  if (cfg->provider == MUON_GEMM_ONEDNN && p == MUON_PREC_BF16)
    cfg->bf16 = muon_gemm_onednn_native_bf16 ();    // else fp32 products of bf16 values
  cfg->threads = thread_count (ctx, threads);
  if (cfg->provider == MUON_GEMM_OPENBLAS && openblas_get_num_threads
      && openblas_set_num_threads)
  {
    int now = openblas_get_num_threads ();
    if (now != cfg->threads)
    {
      cfg->saved_blas = now;
      openblas_set_num_threads (cfg->threads);
    }
  }
  // OpenMP runs oneDNN and ns_impl.h's elementwise passes.  With OpenBLAS products those
  // passes stay on one thread: idle OpenMP workers spin for a while after each pass and
  // would take the cores from OpenBLAS's own pool (measured: about 20% slower).
  int omp = cfg->provider == MUON_GEMM_ONEDNN ? cfg->threads : 1;
  if (omp_get_max_threads && omp_set_num_threads)
  {
    int now = omp_get_max_threads ();
    if (now != omp)
    {
      cfg->saved_omp = now;
      omp_set_num_threads (omp);
    }
  }
fail:
  return status;
}

void muon_gemm_finish (muon_gemm_cfg *cfg)
{
  if (cfg == NULL)
    return;
  if (cfg->saved_blas > 0 && openblas_set_num_threads)
    openblas_set_num_threads (cfg->saved_blas);
  if (cfg->saved_omp > 0 && omp_set_num_threads)
    omp_set_num_threads (cfg->saved_omp);
  cfg->saved_blas = cfg->saved_omp = 0;
}

//---- products -----------------------------------------------------------------------------

void muon_gemm_count (muon_ctx *ctx, double flops, double t0)
{
  ctx->ns_stats.products++;
  ctx->ns_stats.product_flops += flops;
  ctx->ns_stats.product_seconds += muon_clock () - t0;
}

// muon_gemm_product without the counting (the symmetric block form counts once for all).
static muon_status product (muon_ctx *ctx, const muon_gemm_cfg *cfg, int ta, int tb,
                            size_t m, size_t n, size_t k, muon_gemm_in A, size_t lda,
                            muon_gemm_in B, size_t ldb, float *C, size_t ldc)
{
  muon_status status = MUON_OK;
  CHECK (MUON_ERR_NULLPTR, cfg != NULL && (A.f || A.h) && (B.f || B.h) && C != NULL,
         "GEMM operands must not be NULL");
  CHECK (MUON_ERR_INTERNAL, cfg->bf16 ? A.h && B.h : A.f && B.f,
         "a%s product needs %s operands", cfg->bf16 ? " bf16" : "n fp32",
         cfg->bf16 ? "bf16" : "fp32");
  CHECK (MUON_ERR_BADSHAPE, m >= 1 && n >= 1 && k >= 1 && ldc >= m
           && lda >= (ta ? k : m) && ldb >= (tb ? n : k),
         "GEMM shape %zu x %zu x %zu does not fit its leading dimensions", m, n, k);
  if (cfg->provider == MUON_GEMM_ONEDNN)
    CHECKSTATUS (muon_gemm_onednn (ctx, cfg->bf16, cfg->threads, ta, tb, m, n, k,
                                   cfg->bf16 ? (const void *) A.h : (const void *) A.f, lda,
                                   cfg->bf16 ? (const void *) B.h : (const void *) B.f, ldb,
                                   C, ldc));
  else
  {
    CHECK (MUON_ERR_BADSHAPE, m <= 0x7fffffff && n <= 0x7fffffff && k <= 0x7fffffff
             && lda <= 0x7fffffff && ldb <= 0x7fffffff && ldc <= 0x7fffffff,
           "GEMM dimensions must fit a BLAS int");
    cblas_sgemm (CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                 (int) m, (int) n, (int) k, 1.0f, A.f, (int) lda, B.f, (int) ldb, 0.0f, C,
                 (int) ldc);
  }
fail:
  return status;
}

muon_status muon_gemm_product (muon_ctx *ctx, const muon_gemm_cfg *cfg, int ta, int tb,
                               size_t m, size_t n, size_t k, muon_gemm_in A, size_t lda,
                               muon_gemm_in B, size_t ldb, float *C, size_t ldc)
{
  CHECKCTX (ctx);
  double t0 = muon_clock ();
  muon_status status = product (ctx, cfg, ta, tb, m, n, k, A, lda, B, ldb, C, ldc);
  if (status >= 0)
    muon_gemm_count (ctx, 2.0 * (double) m * (double) n * (double) k, t0);
  return status;
}

muon_status muon_gemm_symmetric (muon_ctx *ctx, const muon_gemm_cfg *cfg, size_t n, size_t k,
                                 float alpha, muon_gemm_in A, size_t lda, float *C,
                                 size_t ldc)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  double t0 = muon_clock (), flops = (double) n * (double) (n + 1) * (double) k;
  CHECK (MUON_ERR_NULLPTR, cfg != NULL && (A.f || A.h) && C != NULL,
         "GEMM operands must not be NULL");
  CHECK (MUON_ERR_INTERNAL, cfg->bf16 ? A.h != NULL : A.f != NULL,
         "a%s product needs %s operands", cfg->bf16 ? " bf16" : "n fp32",
         cfg->bf16 ? "bf16" : "fp32");
  CHECK (MUON_ERR_BADSHAPE, n >= 1 && k >= 1 && lda >= n && ldc >= n,
         "symmetric product %zu x %zu does not fit its leading dimensions", n, k);
  if (cfg->provider != MUON_GEMM_ONEDNN)
  {
    CHECK (MUON_ERR_BADSHAPE, n <= 0x7fffffff && k <= 0x7fffffff && lda <= 0x7fffffff
             && ldc <= 0x7fffffff, "GEMM dimensions must fit a BLAS int");
    cblas_ssyrk (CblasColMajor, CblasUpper, CblasNoTrans, (int) n, (int) k, alpha, A.f,
                 (int) lda, 0.0f, C, (int) ldc);
  }
  else
  {
    // Block row [r0, r0 + rows) of C from column r0 on: A(r0:r0+rows, :) A(r0:n, :)'.  A
    // small matrix is one full product.
    size_t nb = n < 2 * MUON_GEMM_SYM_BLOCK ? n : MUON_GEMM_SYM_BLOCK;
    flops = 0;
    for (size_t r0 = 0; r0 < n; r0 += nb)
    {
      size_t rows = n - r0 < nb ? n - r0 : nb;
      muon_gemm_in Ar = { A.f ? A.f + r0 : NULL, A.h ? A.h + r0 : NULL };
      CHECKSTATUS (product (ctx, cfg, 0, 1, rows, n - r0, k, Ar, lda, Ar, lda,
                            C + r0 + r0 * ldc, ldc));
      flops += 2.0 * (double) rows * (double) (n - r0) * (double) k;
    }
    if (alpha != 1.0f)
      for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i <= j; i++)
          C[i + j * ldc] *= alpha;
  }
  muon_gemm_count (ctx, flops, t0);
fail:
  return status;
}

//---- information --------------------------------------------------------------------------

muon_status muon_gemm_query (muon_ctx *ctx, muon_gemm_info *info)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, info != NULL, "info must not be NULL");
  memset (info, 0, sizeof *info);
  info->onednn_built = muon_gemm_onednn_built ();
  snprintf (info->default_provider, sizeof info->default_provider, "%s",
            info->onednn_built ? "onednn" : "openblas");
  info->cores = core_count ();
  info->threads = thread_count (ctx, 0);
  if (openblas_get_config)
    snprintf (info->openblas, sizeof info->openblas, "%s, core %s", openblas_get_config (),
              openblas_get_corename ? openblas_get_corename () : "?");
  CHECKSTATUS (muon_gemm_onednn_query (ctx, info));
fail:
  return status;
}
