/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* gemm_onednn.c - the oneDNN provider of the GEMM layer (gemm.h): matmul primitives with
 * fp32 or bf16 operands and fp32 output, one per tile shape, made for one thread and cached
 * in the context; run from the threads that share the tiles.
 *
 * Compiled with -DMUON_HAVE_DNNL when the Makefile's probe finds dnnl.h and libdnnl; without
 * it the plans answer MUON_ERR_NOTBUILT and the probes "not built".
 *
 * Layout.  oneDNN's matmul is row-major, dst (M x N) = src (M x K) weights (K x N), with any
 * strides.  A column-major C (m x n, ldc) is the row-major C' (n x m, row stride ldc), and
 * C' = op(B)' op(A)', so the product runs as src = op(B)' (n x k), weights = op(A)' (k x m),
 * dst = C' (n x m, strides {ldc, 1}); each operand's strides say where its transpose went.
 *
 * One thread per primitive.  oneDNN sizes a primitive's blocking, and most implementations
 * their thread split, when the primitive is made, from OpenMP's thread count then; some
 * (gemm:jit, which the strided and transposed tiles get) split when they run.  So prepare
 * makes it, and run executes it, with that count at 1: its sums do not depend on the
 * call's threads or on OMP_DYNAMIC, and the tiles' parallel region is the only one.  A run makes its own memory objects,
 * stream and scratchpad (the primitive is made in the user scratchpad mode: with the
 * library's, two threads running one primitive share its scratchpad and get garbage), so
 * several threads can run one primitive at once.
 *
 * Cache.  A primitive is specific to (dtype, transposes, m, n, k, lda, ldb, ldc).  At most
 * MUON_GEMM_CACHE_MAX entries, each its own allocation (a plan's address stays put); a full
 * cache drops the least recently used one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"

#ifdef MUON_HAVE_DNNL
#include <dnnl.h>

extern void omp_set_num_threads (int n) __attribute__ ((weak));
extern int omp_get_max_threads (void) __attribute__ ((weak));

typedef struct {
  int bf16, ta, tb;
  size_t m, n, k, lda, ldb, ldc;
} gemm_key;

typedef struct {
  gemm_key key;
  dnnl_engine_t engine;         // the context's (not owned)
  dnnl_primitive_t prim;
  dnnl_memory_desc_t src, wei, dst, scratch;
  size_t scratch_bytes;         // the run's own scratchpad (user mode: see the file comment)
  unsigned long used;           // clock of the last use (least recently used goes first)
} gemm_entry;

typedef struct {
  dnnl_engine_t engine;
  gemm_entry *cache[MUON_GEMM_CACHE_MAX];
  int count;
  unsigned long clock;
} gemm_state;

static const char *dnnl_text (dnnl_status_t s)
{
  switch (s)
  {
  case dnnl_out_of_memory: return "out of memory";
  case dnnl_invalid_arguments: return "invalid arguments";
  case dnnl_unimplemented: return "no implementation";
  case dnnl_runtime_error: return "runtime error";
  default: return "error";
  }
}

// Runs a oneDNN call; on failure records "oneDNN: <call> failed (<why>)" and jumps to fail.
#define DNNL_CHECK(call)                                                                  \
  do {                                                                                    \
    dnnl_status_t d_ = (call);                                                            \
    CHECK (d_ == dnnl_out_of_memory ? MUON_ERR_NOMEM : MUON_ERR_INTERNAL, d_ == dnnl_success, \
           "oneDNN: %s failed (%s, status %d)", #call, dnnl_text (d_), (int) d_);          \
  } while (0)

int muon_gemm_onednn_built (void)
{
  return 1;
}

static void entry_free (gemm_entry *e)
{
  if (e == NULL)
    return;
  if (e->prim) dnnl_primitive_destroy (e->prim);
  free (e);
}

// The engine and the primitives, attached to the context under "onednn" as a cache (freed by
// muon_ctx_destroy, and by muon_ctx_release with keep 0).
static void state_free (void *p)
{
  gemm_state *st = p;
  for (int i = 0; i < st->count; i++)
    entry_free (st->cache[i]);
  if (st->engine) dnnl_engine_destroy (st->engine);
  free (st);
}

size_t muon_gemm_onednn_cached (const muon_ctx *ctx)
{
  const gemm_state *st = muon_ctx_lookup (ctx, "onednn");
  return st ? (size_t) st->count : 0;
}

// The memory descriptors of the row-major form (file comment).
static dnnl_status_t describe (const gemm_key *k, dnnl_memory_desc_t *src,
                               dnnl_memory_desc_t *wei, dnnl_memory_desc_t *dst)
{
  dnnl_data_type_t in = k->bf16 ? dnnl_bf16 : dnnl_f32;
  dnnl_dims_t sd = { (dnnl_dim_t) k->n, (dnnl_dim_t) k->k };
  dnnl_dims_t ss = { k->tb ? 1 : (dnnl_dim_t) k->ldb, k->tb ? (dnnl_dim_t) k->ldb : 1 };
  dnnl_dims_t wd = { (dnnl_dim_t) k->k, (dnnl_dim_t) k->m };
  dnnl_dims_t ws = { k->ta ? 1 : (dnnl_dim_t) k->lda, k->ta ? (dnnl_dim_t) k->lda : 1 };
  dnnl_dims_t dd = { (dnnl_dim_t) k->n, (dnnl_dim_t) k->m };
  dnnl_dims_t ds = { (dnnl_dim_t) k->ldc, 1 };
  dnnl_status_t s = dnnl_memory_desc_init_by_strides (src, 2, sd, in, ss);
  if (s == dnnl_success)
    s = dnnl_memory_desc_init_by_strides (wei, 2, wd, in, ws);
  if (s == dnnl_success)
    s = dnnl_memory_desc_init_by_strides (dst, 2, dd, dnnl_f32, ds);
  return s;
}

// A primitive descriptor for key, made with OpenMP's thread count at 1 (file comment); the
// caller destroys it.  [out] *pd.
static dnnl_status_t make_pd (dnnl_engine_t engine, const gemm_key *k,
                              dnnl_primitive_desc_t *pd)
{
  dnnl_memory_desc_t src, wei, dst;
  dnnl_matmul_desc_t desc;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_status_t s = describe (k, &src, &wei, &dst);
  if (s == dnnl_success)
    s = dnnl_matmul_desc_init (&desc, &src, &wei, NULL, &dst);
  if (s == dnnl_success)
    s = dnnl_primitive_attr_create (&attr);
  if (s == dnnl_success)
    s = dnnl_primitive_attr_set_scratchpad_mode (attr, dnnl_scratchpad_mode_user);
  if (s == dnnl_success)
  {
    int saved = omp_get_max_threads ? omp_get_max_threads () : 1;
    if (saved != 1 && omp_set_num_threads)
      omp_set_num_threads (1);
    s = dnnl_primitive_desc_create (pd, &desc, attr, engine, NULL);
    if (saved != 1 && omp_set_num_threads)
      omp_set_num_threads (saved);
  }
  if (attr)
    dnnl_primitive_attr_destroy (attr);
  return s;
}

// The context's engine, made on first use.  [out] *out.
static muon_status state_get (muon_ctx *ctx, gemm_state **out)
{
  muon_status status = MUON_OK;
  gemm_state *st = muon_ctx_lookup (ctx, "onednn");
  if (st == NULL)
  {
    st = calloc (1, sizeof *st);
    CHECKMEM (st);
    CHECKSTATUS (muon_ctx_attach (ctx, "onednn", st, state_free, MUON_CTX_CACHE));
    DNNL_CHECK (dnnl_engine_create (&st->engine, dnnl_cpu, 0));
  }
  CHECK (MUON_ERR_INTERNAL, st->engine != NULL, "oneDNN: no CPU engine");
  *out = st;
fail:
  return status;
}

muon_status muon_gemm_onednn_prepare (muon_ctx *ctx, int bf16, int ta, int tb, size_t m,
                                      size_t n, size_t k, size_t lda, size_t ldb, size_t ldc,
                                      const void **plan)
{
  muon_status status = MUON_OK;
  dnnl_primitive_desc_t pd = NULL;
  gemm_state *st = NULL;
  gemm_entry *e = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, plan != NULL, "plan must not be NULL");
  gemm_key key;
  memset (&key, 0, sizeof key);                     // compared with memcmp: no stray padding
  key.bf16 = bf16 != 0; key.ta = ta != 0; key.tb = tb != 0;
  key.m = m; key.n = n; key.k = k; key.lda = lda; key.ldb = ldb; key.ldc = ldc;
  CHECKSTATUS (state_get (ctx, &st));
  for (int i = 0; i < st->count; i++)
    if (memcmp (&st->cache[i]->key, &key, sizeof key) == 0)
    {
      st->cache[i]->used = ++st->clock;
      *plan = st->cache[i];
      return MUON_OK;
    }
  if (st->count == MUON_GEMM_CACHE_MAX)
  {
    int old = 0;
    for (int i = 1; i < st->count; i++)
      if (st->cache[i]->used < st->cache[old]->used)
        old = i;
    entry_free (st->cache[old]);
    st->cache[old] = st->cache[--st->count];        // keep the live entries packed
  }
  e = calloc (1, sizeof *e);
  CHECKMEM (e);
  DNNL_CHECK (make_pd (st->engine, &key, &pd));
  DNNL_CHECK (dnnl_primitive_create (&e->prim, pd));
  const dnnl_memory_desc_t *src = dnnl_primitive_desc_query_md (pd, dnnl_query_src_md, 0),
                           *wei = dnnl_primitive_desc_query_md (pd, dnnl_query_weights_md, 0),
                           *dst = dnnl_primitive_desc_query_md (pd, dnnl_query_dst_md, 0),
                           *scr = dnnl_primitive_desc_query_md (pd, dnnl_query_scratchpad_md, 0);
  CHECK (MUON_ERR_INTERNAL, src && wei && dst, "oneDNN: a matmul without memory descriptors");
  e->src = *src;
  e->wei = *wei;
  e->dst = *dst;
  if (scr)
  {
    e->scratch = *scr;
    e->scratch_bytes = dnnl_memory_desc_get_size (scr);
  }
  e->engine = st->engine;
  e->key = key;
  e->used = ++st->clock;
  st->cache[st->count++] = e;
  *plan = e;
  e = NULL;
fail:
  entry_free (e);                                   // a half-made entry is not kept
  if (pd)
    dnnl_primitive_desc_destroy (pd);
  return status;
}

int muon_gemm_onednn_run (const void *plan, const void *A, const void *B, float *C)
{
  const gemm_entry *e = plan;
  dnnl_memory_t src = NULL, wei = NULL, dst = NULL, scr = NULL;
  dnnl_stream_t stream = NULL;
  void *scratch = NULL;
  if (e == NULL || A == NULL || B == NULL || C == NULL)
    return (int) dnnl_invalid_arguments;
  if (e->scratch_bytes > 0 && (scratch = muon_aligned_alloc (e->scratch_bytes)) == NULL)
    return (int) dnnl_out_of_memory;
  dnnl_status_t s = dnnl_memory_create (&src, &e->src, e->engine, (void *) B);  // op(B)'
  if (s == dnnl_success)
    s = dnnl_memory_create (&wei, &e->wei, e->engine, (void *) A);            // op(A)'
  if (s == dnnl_success)
    s = dnnl_memory_create (&dst, &e->dst, e->engine, C);
  if (s == dnnl_success && scratch)
    s = dnnl_memory_create (&scr, &e->scratch, e->engine, scratch);
  if (s == dnnl_success)
    s = dnnl_stream_create (&stream, e->engine, dnnl_stream_default_flags);
  if (s == dnnl_success)
  {
    // on the calling thread alone: some implementations (gemm:jit, which strided and
    // transposed tiles get) choose their thread split when they run, from OpenMP's count
    // then, and a run outside the tiles' parallel region (one tile) would split its sums
    // by the call's threads; under OMP_DYNAMIC the team they get may be smaller than the
    // split, and parts of the tile were never computed
    int saved = omp_get_max_threads ? omp_get_max_threads () : 1;
    if (saved != 1 && omp_set_num_threads)
      omp_set_num_threads (1);
    dnnl_exec_arg_t args[4] = { { DNNL_ARG_SRC, src }, { DNNL_ARG_WEIGHTS, wei },
                                { DNNL_ARG_DST, dst }, { DNNL_ARG_SCRATCHPAD, scr } };
    s = dnnl_primitive_execute (e->prim, stream, scr ? 4 : 3, args);
    if (saved != 1 && omp_set_num_threads)
      omp_set_num_threads (saved);
  }
  if (s == dnnl_success)
    s = dnnl_stream_wait (stream);
  if (stream) dnnl_stream_destroy (stream);
  if (src) dnnl_memory_destroy (src);
  if (wei) dnnl_memory_destroy (wei);
  if (dst) dnnl_memory_destroy (dst);
  if (scr) dnnl_memory_destroy (scr);
  muon_aligned_free (scratch);
  return s == dnnl_success ? 0 : (int) s;
}

static const char *isa_name (dnnl_cpu_isa_t isa)
{
  switch (isa)
  {
  case dnnl_cpu_isa_sse41: return "sse41";
  case dnnl_cpu_isa_avx: return "avx";
  case dnnl_cpu_isa_avx2: return "avx2";
  case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
  case dnnl_cpu_isa_avx512_core: return "avx512_core";
  case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
  case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
  case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
  default: return "other";
  }
}

int muon_gemm_onednn_kernel (int bf16, char *why, size_t len)
{
  static int asked[2], has[2];
  static char text[2][96];
  bf16 = bf16 != 0;
  if (!asked[bf16])                                 // once: a tile of X X' (NS's first
  {                                                 // product), 64 x 64 x 64 of 256-row
    dnnl_engine_t engine = NULL;                    // operands, strided and transposed as
    dnnl_primitive_desc_t pd = NULL;                // the tiles are (a dense product gets
    const char *impl = NULL;                        // another implementation)
    gemm_key k = { bf16, 0, 1, 64, 64, 64, 256, 256, 256 };
    dnnl_status_t s = dnnl_engine_create (&engine, dnnl_cpu, 0);
    if (s == dnnl_success)
      s = make_pd (engine, &k, &pd);
    if (s == dnnl_success)
      s = dnnl_primitive_desc_query (pd, dnnl_query_impl_info_str, 0, &impl);
    has[bf16] = s == dnnl_success;
    if (has[bf16])
      snprintf (text[bf16], sizeof text[bf16], "%s", impl ? impl : "?");
    else
      snprintf (text[bf16], sizeof text[bf16], "no: oneDNN has no %s matmul for ISA %s (%s)",
                bf16 ? "bf16" : "fp32", isa_name (dnnl_get_effective_cpu_isa ()),
                dnnl_text (s));
    if (pd) dnnl_primitive_desc_destroy (pd);
    if (engine) dnnl_engine_destroy (engine);
    asked[bf16] = 1;
  }
  if (why)
    snprintf (why, len, "%s", text[bf16]);
  return has[bf16];
}

// bf16 products are native from avx512_core_bf16 on (AMX included); below that oneDNN would
// convert, so the layer multiplies the (exact) fp32 values instead.
int muon_gemm_onednn_native_bf16 (void)
{
  dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa ();
  return (isa & dnnl_cpu_isa_avx512_core_bf16) == dnnl_cpu_isa_avx512_core_bf16
         && muon_gemm_onednn_kernel (1, NULL, 0);
}

void muon_gemm_onednn_describe (muon_gemm_info *info)
{
  const dnnl_version_t *v = dnnl_version ();
  int hash = v->hash && *v->hash && strcmp (v->hash, "N/A") != 0;
  snprintf (info->onednn_version, sizeof info->onednn_version, "%d.%d.%d%s%.12s%s", v->major,
            v->minor, v->patch, hash ? " (commit " : "", hash ? v->hash : "", hash ? ")" : "");
  snprintf (info->onednn_isa, sizeof info->onednn_isa, "%s",
            isa_name (dnnl_get_effective_cpu_isa ()));
  info->onednn_native_bf16 = muon_gemm_onednn_native_bf16 ();
  muon_gemm_onednn_kernel (0, info->onednn_impl_f32, sizeof info->onednn_impl_f32);
  muon_gemm_onednn_kernel (1, info->onednn_impl_bf16, sizeof info->onednn_impl_bf16);
}

#else  // built without oneDNN ------------------------------------------------------------

int muon_gemm_onednn_built (void)
{
  return 0;
}

int muon_gemm_onednn_kernel (int bf16, char *why, size_t len)
{
  if (why)
    snprintf (why, len, "no: oneDNN not built");
  return 0;
}

int muon_gemm_onednn_native_bf16 (void)
{
  return 0;
}

size_t muon_gemm_onednn_cached (const muon_ctx *ctx)
{
  (void) ctx;
  return 0;
}

muon_status muon_gemm_onednn_prepare (muon_ctx *ctx, int bf16, int ta, int tb, size_t m,
                                      size_t n, size_t k, size_t lda, size_t ldb, size_t ldc,
                                      const void **plan)
{
  CHECKCTX (ctx);
  return muon_ctx_set_error (ctx, MUON_ERR_NOTBUILT,
                             "the oneDNN GEMM provider is not built (the build found no "
                             "oneDNN; install libdnnl-dev and rebuild)");
}

int muon_gemm_onednn_run (const void *plan, const void *A, const void *B, float *C)
{
  return -1;
}

void muon_gemm_onednn_describe (muon_gemm_info *info)
{
  snprintf (info->onednn_version, sizeof info->onednn_version, "not built");
  snprintf (info->onednn_impl_f32, sizeof info->onednn_impl_f32, "no: oneDNN not built");
  snprintf (info->onednn_impl_bf16, sizeof info->onednn_impl_bf16, "no: oneDNN not built");
}

#endif
