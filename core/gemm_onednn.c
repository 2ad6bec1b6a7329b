/* gemm_onednn.c - the oneDNN provider of the GEMM layer (gemm.h): matmul primitives with
 * fp32 or bf16 operands and fp32 output, made once per shape and cached in the context.
 *
 * Compiled with -DMUON_HAVE_DNNL when the Makefile's probe finds dnnl.h and libdnnl; without
 * it every entry point answers MUON_ERR_NOTBUILT (or "not built" in the query).
 *
 * Layout.  oneDNN's matmul is row-major, dst (M x N) = src (M x K) weights (K x N), with any
 * strides.  A column-major C (m x n, ldc) is the row-major C' (n x m, row stride ldc), and
 * C' = op(B)' op(A)', so the product runs as src = op(B)' (n x k), weights = op(A)' (k x m),
 * dst = C' (n x m, strides {ldc, 1}); each operand's strides say where its transpose went.
 *
 * Cache.  A primitive is specific to (dtype, transposes, m, n, k, lda, ldb, ldc, threads):
 * oneDNN sizes its blocking and its thread split when the primitive is made.  The memory
 * objects are made without a buffer and pointed at the data on each call.  At most
 * MUON_GEMM_CACHE_MAX entries; a full cache drops the least recently used one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"

#ifdef MUON_HAVE_DNNL
#include <dnnl.h>

typedef struct {
  int bf16, threads, ta, tb;
  size_t m, n, k, lda, ldb, ldc;
} gemm_key;

typedef struct {
  gemm_key key;
  dnnl_primitive_t prim;
  dnnl_memory_t src, wei, dst;
  unsigned long used;           // clock of the last use (least recently used goes first)
} gemm_entry;

typedef struct {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  gemm_entry cache[MUON_GEMM_CACHE_MAX];
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

// bf16 products are native from avx512_core_bf16 on (AMX included); below that oneDNN would
// convert, so the layer multiplies the (exact) fp32 values instead.
int muon_gemm_onednn_native_bf16 (void)
{
  dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa ();
  return (isa & dnnl_cpu_isa_avx512_core_bf16) == dnnl_cpu_isa_avx512_core_bf16;
}

static void entry_free (gemm_entry *e)
{
  if (e->prim) dnnl_primitive_destroy (e->prim);
  if (e->src) dnnl_memory_destroy (e->src);
  if (e->wei) dnnl_memory_destroy (e->wei);
  if (e->dst) dnnl_memory_destroy (e->dst);
  memset (e, 0, sizeof *e);
}

void muon_gemm_onednn_release (muon_ctx *ctx)
{
  if (ctx == NULL || ctx->gemm_state == NULL)
    return;
  gemm_state *st = ctx->gemm_state;
  for (int i = 0; i < st->count; i++)
    entry_free (&st->cache[i]);
  if (st->stream) dnnl_stream_destroy (st->stream);
  if (st->engine) dnnl_engine_destroy (st->engine);
  free (st);
  ctx->gemm_state = NULL;
}

size_t muon_gemm_onednn_cached (const muon_ctx *ctx)
{
  return ctx && ctx->gemm_state ? (size_t) ((gemm_state *) ctx->gemm_state)->count : 0;
}

// The context's engine and stream, made on first use.  [out] *out.
static muon_status state_get (muon_ctx *ctx, gemm_state **out)
{
  muon_status status = MUON_OK;
  gemm_state *st = ctx->gemm_state;
  if (st == NULL)
  {
    st = calloc (1, sizeof *st);
    CHECKMEM (st);
    ctx->gemm_state = st;
    DNNL_CHECK (dnnl_engine_create (&st->engine, dnnl_cpu, 0));
    DNNL_CHECK (dnnl_stream_create (&st->stream, st->engine, dnnl_stream_default_flags));
  }
  else
    CHECK (MUON_ERR_INTERNAL, st->engine && st->stream, "oneDNN: no CPU engine or stream");
  *out = st;
fail:
  return status;
}

// The memory descriptors of the row-major form (file comment).
static muon_status describe (muon_ctx *ctx, const gemm_key *k, dnnl_memory_desc_t *src,
                             dnnl_memory_desc_t *wei, dnnl_memory_desc_t *dst)
{
  muon_status status = MUON_OK;
  dnnl_data_type_t in = k->bf16 ? dnnl_bf16 : dnnl_f32;
  dnnl_dims_t sd = { (dnnl_dim_t) k->n, (dnnl_dim_t) k->k };
  dnnl_dims_t ss = { k->tb ? 1 : (dnnl_dim_t) k->ldb, k->tb ? (dnnl_dim_t) k->ldb : 1 };
  dnnl_dims_t wd = { (dnnl_dim_t) k->k, (dnnl_dim_t) k->m };
  dnnl_dims_t ws = { k->ta ? 1 : (dnnl_dim_t) k->lda, k->ta ? (dnnl_dim_t) k->lda : 1 };
  dnnl_dims_t dd = { (dnnl_dim_t) k->n, (dnnl_dim_t) k->m };
  dnnl_dims_t ds = { (dnnl_dim_t) k->ldc, 1 };
  DNNL_CHECK (dnnl_memory_desc_init_by_strides (src, 2, sd, in, ss));
  DNNL_CHECK (dnnl_memory_desc_init_by_strides (wei, 2, wd, in, ws));
  DNNL_CHECK (dnnl_memory_desc_init_by_strides (dst, 2, dd, dnnl_f32, ds));
fail:
  return status;
}

// A primitive descriptor for key (the caller destroys it).  [out] *pd.
static muon_status make_pd (muon_ctx *ctx, gemm_state *st, const gemm_key *k,
                            dnnl_primitive_desc_t *pd)
{
  muon_status status = MUON_OK;
  dnnl_memory_desc_t src, wei, dst;
  dnnl_matmul_desc_t desc;
  CHECKSTATUS (describe (ctx, k, &src, &wei, &dst));
  DNNL_CHECK (dnnl_matmul_desc_init (&desc, &src, &wei, NULL, &dst));
  DNNL_CHECK (dnnl_primitive_desc_create (pd, &desc, NULL, st->engine, NULL));
fail:
  return status;
}

// The cached entry for key, made (evicting the least recently used) when missing.
static muon_status lookup (muon_ctx *ctx, gemm_state *st, const gemm_key *k, gemm_entry **out)
{
  muon_status status = MUON_OK;
  dnnl_primitive_desc_t pd = NULL;
  gemm_entry *e = NULL;
  for (int i = 0; i < st->count; i++)
    if (memcmp (&st->cache[i].key, k, sizeof *k) == 0)
    {
      e = &st->cache[i];
      goto found;
    }
  if (st->count == MUON_GEMM_CACHE_MAX)
  {
    int old = 0;
    for (int i = 1; i < st->count; i++)
      if (st->cache[i].used < st->cache[old].used)
        old = i;
    entry_free (&st->cache[old]);
    st->cache[old] = st->cache[--st->count];        // keep the live entries packed
    memset (&st->cache[st->count], 0, sizeof st->cache[0]);
  }
  e = &st->cache[st->count];
  memset (e, 0, sizeof *e);
  CHECKSTATUS (make_pd (ctx, st, k, &pd));
  DNNL_CHECK (dnnl_primitive_create (&e->prim, pd));
  const dnnl_memory_desc_t *src = dnnl_primitive_desc_query_md (pd, dnnl_query_src_md, 0),
                           *wei = dnnl_primitive_desc_query_md (pd, dnnl_query_weights_md, 0),
                           *dst = dnnl_primitive_desc_query_md (pd, dnnl_query_dst_md, 0);
  CHECK (MUON_ERR_INTERNAL, src && wei && dst, "oneDNN: a matmul without memory descriptors");
  DNNL_CHECK (dnnl_memory_create (&e->src, src, st->engine, DNNL_MEMORY_NONE));
  DNNL_CHECK (dnnl_memory_create (&e->wei, wei, st->engine, DNNL_MEMORY_NONE));
  DNNL_CHECK (dnnl_memory_create (&e->dst, dst, st->engine, DNNL_MEMORY_NONE));
  e->key = *k;
  st->count++;
found:
  e->used = ++st->clock;
  *out = e;
fail:
  if (status < 0 && e != NULL && e == &st->cache[st->count])
    entry_free (e);                                 // a half-made entry is not kept
  if (pd)
    dnnl_primitive_desc_destroy (pd);
  return status;
}

muon_status muon_gemm_onednn (muon_ctx *ctx, int bf16, int threads, int ta, int tb, size_t m,
                              size_t n, size_t k, const void *A, size_t lda, const void *B,
                              size_t ldb, float *C, size_t ldc)
{
  muon_status status = MUON_OK;
  gemm_state *st = NULL;
  gemm_entry *e = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, A != NULL && B != NULL && C != NULL,
         "GEMM operands must not be NULL");
  gemm_key key;
  memset (&key, 0, sizeof key);                     // compared with memcmp: no stray padding
  key.bf16 = bf16 != 0; key.threads = threads; key.ta = ta != 0; key.tb = tb != 0;
  key.m = m; key.n = n; key.k = k; key.lda = lda; key.ldb = ldb; key.ldc = ldc;
  CHECKSTATUS (state_get (ctx, &st));
  CHECKSTATUS (lookup (ctx, st, &key, &e));
  DNNL_CHECK (dnnl_memory_set_data_handle (e->src, (void *) B));   // src = op(B)'
  DNNL_CHECK (dnnl_memory_set_data_handle (e->wei, (void *) A));   // weights = op(A)'
  DNNL_CHECK (dnnl_memory_set_data_handle (e->dst, C));
  dnnl_exec_arg_t args[3] = { { DNNL_ARG_SRC, e->src }, { DNNL_ARG_WEIGHTS, e->wei },
                              { DNNL_ARG_DST, e->dst } };
  DNNL_CHECK (dnnl_primitive_execute (e->prim, st->stream, 3, args));
  DNNL_CHECK (dnnl_stream_wait (st->stream));
fail:
  return status;
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

// The implementation oneDNN picks for a 64 x 64 x 64 product of this dtype.
static muon_status impl_name (muon_ctx *ctx, gemm_state *st, int bf16, char *buf, size_t len)
{
  muon_status status = MUON_OK;
  dnnl_primitive_desc_t pd = NULL;
  const char *impl = NULL;
  gemm_key k = { bf16, 1, 0, 0, 64, 64, 64, 64, 64, 64 };
  CHECKSTATUS (make_pd (ctx, st, &k, &pd));
  DNNL_CHECK (dnnl_primitive_desc_query (pd, dnnl_query_impl_info_str, 0, &impl));
  snprintf (buf, len, "%s", impl ? impl : "?");
fail:
  if (pd)
    dnnl_primitive_desc_destroy (pd);
  return status;
}

muon_status muon_gemm_onednn_query (muon_ctx *ctx, muon_gemm_info *info)
{
  muon_status status = MUON_OK;
  gemm_state *st = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, info != NULL, "info must not be NULL");
  const dnnl_version_t *v = dnnl_version ();
  int hash = v->hash && *v->hash && strcmp (v->hash, "N/A") != 0;
  snprintf (info->onednn_version, sizeof info->onednn_version, "%d.%d.%d%s%.12s%s", v->major,
            v->minor, v->patch, hash ? " (commit " : "", hash ? v->hash : "", hash ? ")" : "");
  dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa ();
  snprintf (info->onednn_isa, sizeof info->onednn_isa, "%s", isa_name (isa));
  info->onednn_native_bf16 = muon_gemm_onednn_native_bf16 ();
  CHECKSTATUS (state_get (ctx, &st));
  CHECKSTATUS (impl_name (ctx, st, 0, info->onednn_impl_f32, sizeof info->onednn_impl_f32));
  CHECKSTATUS (impl_name (ctx, st, 1, info->onednn_impl_bf16, sizeof info->onednn_impl_bf16));
fail:
  return status;
}

#else  // built without oneDNN ------------------------------------------------------------

int muon_gemm_onednn_built (void)
{
  return 0;
}

int muon_gemm_onednn_native_bf16 (void)
{
  return 0;
}

void muon_gemm_onednn_release (muon_ctx *ctx)
{
  (void) ctx;
}

size_t muon_gemm_onednn_cached (const muon_ctx *ctx)
{
  (void) ctx;
  return 0;
}

muon_status muon_gemm_onednn (muon_ctx *ctx, int bf16, int threads, int ta, int tb, size_t m,
                              size_t n, size_t k, const void *A, size_t lda, const void *B,
                              size_t ldb, float *C, size_t ldc)
{
  CHECKCTX (ctx);
  return muon_ctx_set_error (ctx, MUON_ERR_NOTBUILT,
                             "the oneDNN GEMM provider is not built (the build found no "
                             "oneDNN; install libdnnl-dev and rebuild)");
}

muon_status muon_gemm_onednn_query (muon_ctx *ctx, muon_gemm_info *info)
{
  CHECKCTX (ctx);
  if (info == NULL)
    return muon_ctx_set_error (ctx, MUON_ERR_NULLPTR, "info must not be NULL");
  snprintf (info->onednn_version, sizeof info->onednn_version, "not built");
  return MUON_OK;
}

#endif
