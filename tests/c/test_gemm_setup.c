/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_gemm_setup.c - the GEMM provider layer's set-up (core/gemm/gemm.c): provider names,
 * provider and thread resolution (options, OMP_NUM_THREADS, the MPI local size), the thread
 * pools put back after every call, muon_ns on each provider (results within the closed
 * tolerances of each other, stats), and the query.  Where the build has no oneDNN, the
 * oneDNN cases check the MUON_ERR_NOTBUILT answers instead.  The products: test_gemm.c.
 */
#define _POSIX_C_SOURCE 200112L   // setenv, unsetenv
#include <ctype.h>
#include <stdint.h>

#include "harness.h"
#include "gemm.h"
#include "muon.h"

static muon_ctx *ctx;
static int have_dnnl;

// The thread counts muon_gemm_setup changes (weak: absent libraries read as "not there").
extern int omp_get_max_threads (void) __attribute__ ((weak));
extern int openblas_get_num_threads (void) __attribute__ ((weak));

static float urandf (void) { return (float) t_urand (); }     // uniform in [-1, 1)

static void test_names (void)
{
  int g = MUON_GEMM_AUTO;
  T_EQ_INT (muon_name_lookup (MUON_LIST_GEMM, "openblas", &g), MUON_OK);
  T_EQ_INT (g, MUON_GEMM_OPENBLAS);
  T_EQ_INT (muon_name_lookup (MUON_LIST_GEMM, "onednn", &g), MUON_OK);
  T_EQ_INT (g, MUON_GEMM_ONEDNN);
  T_EQ_INT (muon_name_lookup (MUON_LIST_GEMM, "auto", &g), MUON_OK);
  T_EQ_INT (g, MUON_GEMM_AUTO);
  T_EQ_INT (muon_name_lookup (MUON_LIST_GEMM, "mkl", &g), MUON_ERR_BADARG);
  T_EQ_STR (muon_names (MUON_LIST_GEMM, MUON_GEMM_ONEDNN), "onednn");
  T_ASSERT (muon_names (MUON_LIST_GEMM, 9) == NULL);
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  T_EQ_INT (o.gemm, MUON_GEMM_AUTO);
  T_EQ_INT (o.threads, 0);
}

static void test_setup (void)
{
  muon_gemm_cfg cfg;
  muon_gemm_info info;
  T_EQ_INT (muon_gemm_query (ctx, &info), MUON_OK);
  T_EQ_INT (muon_gemm_setup (ctx, MUON_GEMM_AUTO, 0, MUON_PREC_SINGLE, &cfg), MUON_OK);
  // auto: OpenBLAS for fp32 (unless MUONLAB_GEMM says otherwise), oneDNN for native bf16
  if (getenv ("MUONLAB_GEMM") == NULL)
    T_EQ_INT (cfg.provider, MUON_GEMM_OPENBLAS);
  T_EQ_INT (cfg.threads, muon_default_threads ());
  T_EQ_INT (cfg.bf16, 0);
  T_EQ_INT (cfg.f64, 0);
  muon_gemm_finish (&cfg);
  // bf16 multiplies natively where oneDNN says the ISA has it
  T_EQ_INT (muon_gemm_setup (ctx, MUON_GEMM_AUTO, 1, MUON_PREC_BF16, &cfg), MUON_OK);
  T_EQ_INT (cfg.bf16, have_dnnl && info.onednn_native_bf16);
  T_EQ_INT (cfg.provider, cfg.bf16 ? MUON_GEMM_ONEDNN : MUON_GEMM_OPENBLAS);
  T_EQ_INT (cfg.threads, 1);
  muon_gemm_finish (&cfg);
  // 'double' stays on OpenBLAS whatever is asked; more threads than cores are honoured
  T_EQ_INT (muon_gemm_setup (ctx, MUON_GEMM_AUTO, info.cores + 3, MUON_PREC_DOUBLE, &cfg),
            MUON_OK);
  T_EQ_INT (cfg.provider, MUON_GEMM_OPENBLAS);
  T_EQ_INT (cfg.f64, 1);
  T_EQ_INT (cfg.threads, info.cores + 3);
  muon_gemm_finish (&cfg);
  T_EQ_INT (muon_gemm_setup (ctx, MUON_GEMM_AUTO, MUON_MAX_THREADS + 1, MUON_PREC_SINGLE,
                             &cfg), MUON_ERR_BADARG);
  T_EQ_INT (muon_gemm_setup (ctx, MUON_GEMM_OPENBLAS, 0, MUON_PREC_BF16, &cfg), MUON_OK);
  T_EQ_INT (cfg.provider, MUON_GEMM_OPENBLAS);
  T_EQ_INT (cfg.bf16, 0);
  muon_gemm_finish (&cfg);
  muon_status s = muon_gemm_setup (ctx, MUON_GEMM_ONEDNN, 0, MUON_PREC_SINGLE, &cfg);
  T_EQ_INT (s, have_dnnl ? MUON_OK : MUON_ERR_NOTBUILT);
  if (!have_dnnl)
    T_ASSERT (strstr (muon_ctx_last_error (ctx), "oneDNN") != NULL);
  muon_gemm_finish (&cfg);
  // errors
  T_EQ_INT (muon_gemm_setup (ctx, (muon_gemm_provider) 3, 0, MUON_PREC_SINGLE, &cfg),
            MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_error (ctx), "unknown GEMM provider 3");
  T_EQ_INT (muon_gemm_setup (ctx, MUON_GEMM_AUTO, -1, MUON_PREC_SINGLE, &cfg), MUON_ERR_BADARG);
  T_EQ_INT (muon_gemm_setup (ctx, MUON_GEMM_AUTO, 0, MUON_PREC_SINGLE, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_gemm_setup (NULL, MUON_GEMM_AUTO, 0, MUON_PREC_SINGLE, &cfg), MUON_ERR_NULLPTR);
  muon_gemm_finish (NULL);                          // no crash
}

// Threads 0 follows OMP_NUM_THREADS, else shares the cores among the local MPI ranks, else
// takes the cores; never the load.
static void test_thread_env (void)
{
  muon_gemm_cfg cfg;
  muon_gemm_info info;
  muon_gemm_query (ctx, &info);
  const char *omp = getenv ("OMP_NUM_THREADS"), *mpi = getenv ("OMPI_COMM_WORLD_LOCAL_SIZE");
  char omp_saved[32] = "", mpi_saved[32] = "";
  if (omp) snprintf (omp_saved, sizeof omp_saved, "%s", omp);
  if (mpi) snprintf (mpi_saved, sizeof mpi_saved, "%s", mpi);
  unsetenv ("OMPI_COMM_WORLD_LOCAL_SIZE");
  setenv ("OMP_NUM_THREADS", "1", 1);
  T_EQ_INT (muon_gemm_setup (ctx, MUON_GEMM_AUTO, 0, MUON_PREC_SINGLE, &cfg), MUON_OK);
  T_EQ_INT (cfg.threads, 1);
  muon_gemm_finish (&cfg);
  T_EQ_INT (muon_gemm_setup (ctx, MUON_GEMM_AUTO, 2, MUON_PREC_SINGLE, &cfg), MUON_OK);
  T_EQ_INT (cfg.threads, 2);                                   // the option wins
  muon_gemm_finish (&cfg);
  unsetenv ("OMP_NUM_THREADS");
  setenv ("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
  T_EQ_INT (muon_gemm_setup (ctx, MUON_GEMM_AUTO, 0, MUON_PREC_SINGLE, &cfg), MUON_OK);
  T_EQ_INT (cfg.threads, info.cores / 2 > 0 ? info.cores / 2 : 1);
  muon_gemm_finish (&cfg);
  unsetenv ("OMPI_COMM_WORLD_LOCAL_SIZE");
  T_EQ_INT (muon_gemm_setup (ctx, MUON_GEMM_AUTO, 0, MUON_PREC_SINGLE, &cfg), MUON_OK);
  T_EQ_INT (cfg.threads, info.cores);                         // the cores, busy or not
  muon_gemm_finish (&cfg);
  // OMP_NUM_THREADS read as libgomp reads it (not atoi): a list's first level, blanks, the
  // cap for any larger count (2^32 + 1 was 1 thread, 2^31 the cores); no number: the cores
  static const struct { const char *v; int n; } forms[] = {
    { "3", 3 }, { " 2 ", 2 }, { "3,2", 3 }, { "4294967297", MUON_MAX_THREADS },
    { "2147483648", MUON_MAX_THREADS }, { "99999999999999999999999", MUON_MAX_THREADS },
    { "1e3", 0 }, { "abc", 0 }, { "-2", 0 }, { "0", 0 }, { "", 0 }, { "2abc", 0 } };
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
  {
    setenv ("OMP_NUM_THREADS", forms[i].v, 1);
    T_EQ_INT (muon_env_count ("OMP_NUM_THREADS", MUON_MAX_THREADS), forms[i].n);
    T_EQ_INT (muon_default_threads (), forms[i].n ? forms[i].n : info.cores);
  }
  unsetenv ("OMP_NUM_THREADS");
  if (omp) setenv ("OMP_NUM_THREADS", omp_saved, 1);
  if (mpi) setenv ("OMPI_COMM_WORLD_LOCAL_SIZE", mpi_saved, 1);
}

// muon_ns sets both pools for its call and puts back what it found, whatever it was.
static void test_threads_restored (void)
{
  double g[64 * 96], x[64 * 96];
  for (int i = 0; i < 64 * 96; i++) g[i] = urandf ();
  muon_tensor tg = muon_tensor_matrix (MUON_F64, g, 64, 96);
  muon_tensor tx = muon_tensor_matrix (MUON_F64, x, 64, 96);
  int omp0 = omp_get_max_threads ? omp_get_max_threads () : -1;
  int blas0 = openblas_get_num_threads ? openblas_get_num_threads () : -1;
  for (int prov = 0; prov <= 2; prov++)
    for (int threads = 0; threads <= 1; threads++)
    {
      muon_ns_opts o;
      muon_ns_opts_default (&o);
      o.gemm = (muon_gemm_provider) prov;
      o.threads = threads;
      o.precision = MUON_PREC_BF16;
      muon_status s = muon_ns (ctx, &tg, &tx, &o);
      T_EQ_INT (s, prov == MUON_GEMM_ONEDNN && !have_dnnl ? MUON_ERR_NOTBUILT : MUON_OK);
      T_EQ_INT (omp_get_max_threads ? omp_get_max_threads () : -1, omp0);
      T_EQ_INT (openblas_get_num_threads ? openblas_get_num_threads () : -1, blas0);
    }
}

// muon_ns on each provider: fp32 within the foundation's fp32 tolerance of fp64 NS, bf16 and
// fp16 within their precision figures (DESIGN.md 6), and Threads 1 a valid answer too.
static void test_ns_providers (void)
{
  enum { R = 48, C = 128 };
  double *g = malloc (R * C * sizeof *g), *x64 = malloc (R * C * sizeof *g);
  double *x = malloc (R * C * sizeof *g);
  for (int i = 0; i < R * C; i++) g[i] = urandf ();
  muon_tensor tg = muon_tensor_matrix (MUON_F64, g, R, C);
  muon_tensor t64 = muon_tensor_matrix (MUON_F64, x64, R, C);
  muon_tensor tx = muon_tensor_matrix (MUON_F64, x, R, C);
  for (int method = 0; method < 2; method++)
  {
    muon_ns_opts o;
    muon_ns_opts_default (&o);
    o.method = (muon_ns_method) method;
    o.precision = MUON_PREC_DOUBLE;
    T_EQ_INT (muon_ns (ctx, &tg, &t64, &o), MUON_OK);
    const double tol[4] = { 1e-12, 3e-5, 0.08, 0.015 };
    for (int prov = 1; prov <= 2; prov++)
      for (int p = 0; p < 4; p++)
        for (int threads = 0; threads <= 1; threads++)
        {
          o.gemm = (muon_gemm_provider) prov;
          o.precision = (muon_precision) p;
          o.threads = threads;
          muon_status s = muon_ns (ctx, &tg, &tx, &o);
          if (prov == MUON_GEMM_ONEDNN && !have_dnnl)   // asked for, not built: an error
          {                                            // even where it would not be used
            T_EQ_INT (s, MUON_ERR_NOTBUILT);
            continue;
          }
          T_EQ_INT (s, MUON_OK);
          double num = 0, den = 0;
          for (int i = 0; i < R * C; i++)
          {
            num += (x[i] - x64[i]) * (x[i] - x64[i]);
            den += x64[i] * x64[i];
          }
          T_ASSERT_MSG (sqrt (num / den) <= tol[p], "%s %s %s threads %d: error %g",
                        muon_names (MUON_LIST_GEMM, o.gemm), muon_names (MUON_LIST_PRECISION, o.precision),
                        method ? "gram" : "standard", threads, sqrt (num / den));
        }
  }
  free (g); free (x64); free (x);
}

// muon_ns_last_stats: the products of a Gram call counted against the algorithm (restart
// before iteration 2 of 5; ns_impl.h's gram), and what a fresh or a failed call leaves.
static void test_ns_stats (void)
{
  enum { N = 16, M = 96 };                      // aspect 6: the Gram path runs
  float *g = malloc (N * M * sizeof *g), *x = malloc (N * M * sizeof *g);
  for (int i = 0; i < N * M; i++) g[i] = urandf ();
  muon_tensor tg = muon_tensor_matrix (MUON_F32, g, N, M);
  muon_tensor tx = muon_tensor_matrix (MUON_F32, x, N, M);
  muon_ctx *fresh = NULL;
  muon_ns_stats st;
  T_EQ_INT (muon_ctx_create (&fresh), MUON_OK);
  T_EQ_INT (muon_ns_last_stats (fresh, &st), MUON_OK);
  T_ASSERT (st.products == 0 && st.product_flops == 0 && st.total_seconds == 0
            && st.gemm[0] == 0);
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.method = MUON_NS_GRAM;
  o.gemm = MUON_GEMM_OPENBLAS;
  o.threads = 1;
  T_EQ_INT (muon_ns (fresh, &tg, &tx, &o), MUON_OK);
  T_EQ_INT (muon_ns_last_stats (fresh, &st), MUON_OK);
  // X X' twice (start, restart), a SYRK polynomial per step, 9 n x n general products
  // (2, 1, 2, 3, 1 in steps 0..4), Q X twice (restart, end): 18 calls
  double syrk_x = (double) N * (N + 1) * M, syrk_r = (double) N * (N + 1) * N;
  T_EQ_INT (st.products, 18);
  T_EQ_DBL (st.product_flops, 2 * syrk_x + 5 * syrk_r + 9 * 2.0 * N * N * N
                                + 2 * 2.0 * N * N * M);
  T_EQ_STR (st.gemm, "openblas");
  T_EQ_INT (st.threads, 1);
  T_EQ_INT (st.bf16_products, 0);
  T_ASSERT (st.product_seconds > 0 && st.product_seconds <= st.total_seconds);
  o.steps = -1;                                 // a failed call starts its count afresh
  T_EQ_INT (muon_ns (fresh, &tg, &tx, &o), MUON_ERR_BADARG);
  T_EQ_INT (muon_ns_last_stats (fresh, &st), MUON_OK);
  T_ASSERT (st.products == 0 && st.product_flops == 0 && st.product_seconds == 0);
  T_EQ_INT (muon_ns_last_stats (NULL, &st), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ns_last_stats (fresh, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ctx_destroy (&fresh), MUON_OK);
  free (g); free (x);
}

static void test_query (void)
{
  muon_gemm_info info;
  T_EQ_INT (muon_gemm_query (ctx, &info), MUON_OK);
  T_EQ_INT (info.onednn_built, have_dnnl);
  T_EQ_STR (info.provider[MUON_PREC_DOUBLE], "openblas");
  if (getenv ("MUONLAB_GEMM") == NULL)
  {
    T_EQ_STR (info.provider[MUON_PREC_SINGLE], "openblas");
    T_EQ_STR (info.provider[MUON_PREC_BF16], info.onednn_native_bf16 ? "onednn" : "openblas");
  }
  for (int p = 0; p < 4; p++)
    T_ASSERT (info.reason[p][0] != 0);
  T_EQ_INT (info.tile, MUON_GEMM_TILE);
  T_ASSERT (info.cores >= 1 && info.threads >= 1);
  if (have_dnnl)
  {
    T_ASSERT (isdigit ((unsigned char) info.onednn_version[0]));
    T_ASSERT (info.onednn_isa[0] != 0 && info.onednn_impl_f32[0] != 0);
    T_ASSERT (info.onednn_impl_bf16[0] != 0);
  }
  else
    T_EQ_STR (info.onednn_version, "not built");
  T_EQ_INT (muon_gemm_query (ctx, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_gemm_query (NULL, &info), MUON_ERR_NULLPTR);
}

int main (int argc, char **argv)
{
  (void) argc;
  muon_ctx_create (&ctx);
  t_rng = 777;
  have_dnnl = muon_gemm_onednn_built ();
  T_RUN (test_names);
  T_RUN (test_setup);
  T_RUN (test_thread_env);
  T_RUN (test_threads_restored);
  T_RUN (test_ns_providers);
  T_RUN (test_ns_stats);
  T_RUN (test_query);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
