/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_ctx.c - the context object (core/base/ctx.c): create / destroy, last error and status,
 * the reusable 64-byte aligned workspace, the subsystem state it holds (muon_ctx_attach),
 * tensor descriptions and their checks, and the back end query (core/math/cuda_loader.c).
 * Every error code of these functions.
 */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "muon.h"
#include "muon_internal.h"   // muon_ctx_attach / lookup / detach

// Huge allocations must come back as NULL (MUON_ERR_NOMEM), not abort under ASan.
const char *__asan_default_options (void);
const char *__asan_default_options (void)
{
  return "allocator_may_return_null=1";
}

static void test_create_destroy (void)
{
  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  T_ASSERT (ctx != NULL);
  T_EQ_STR (muon_ctx_last_error (ctx), "");
  T_EQ_INT (muon_ctx_last_status (ctx), MUON_OK);
  T_EQ_INT (muon_workspace_size (ctx), 0);
  T_EQ_INT (muon_ctx_destroy (&ctx), MUON_OK);
  T_ASSERT (ctx == NULL);
  T_EQ_INT (muon_ctx_destroy (&ctx), MUON_OK);          // *ctx == NULL is fine
  muon_status s = muon_ctx_destroy (NULL);              // no pointer at all: no crash
  T_ASSERT (s == MUON_ERR_NULLPTR || s == MUON_OK);
  // two contexts are independent
  muon_ctx *c1 = NULL, *c2 = NULL;
  T_EQ_INT (muon_ctx_create (&c1), MUON_OK);
  T_EQ_INT (muon_ctx_create (&c2), MUON_OK);
  T_ASSERT (c1 != c2);
  muon_ctx_set_error (c1, MUON_ERR_BADARG, "one");
  T_EQ_STR (muon_ctx_last_error (c2), "");
  muon_ctx_destroy (&c1);
  muon_ctx_destroy (&c2);
}

static void test_errors (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  T_EQ_INT (muon_ctx_set_error (ctx, MUON_ERR_BADSHAPE, "shape %d x %s", 3, "four"),
            MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), "shape 3 x four");
  T_EQ_INT (muon_ctx_last_status (ctx), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_ctx_set_error (ctx, MUON_WARN_NONFINITE, "%s", "warned"), MUON_WARN_NONFINITE);
  T_EQ_STR (muon_ctx_last_error (ctx), "warned");
  T_EQ_INT (muon_ctx_last_status (ctx), MUON_WARN_NONFINITE);
  // a long message is truncated, not overflowed
  char big[2000];
  memset (big, 'x', sizeof big - 1);
  big[sizeof big - 1] = 0;
  T_EQ_INT (muon_ctx_set_error (ctx, MUON_ERR_INTERNAL, "%s", big), MUON_ERR_INTERNAL);
  size_t len = strlen (muon_ctx_last_error (ctx));
  T_ASSERT (len > 100 && len < sizeof big - 1);
  T_ASSERT (strspn (muon_ctx_last_error (ctx), "x") == len);
  // a NULL format (it reached vsnprintf): NULLPTR recorded with a fixed text, no place, for
  // the public function and core's macro alike
  const char *volatile nofmt = NULL;                // (no -Wformat warning here)
  T_EQ_INT ((muon_ctx_set_error) (ctx, MUON_ERR_BADARG, nofmt), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ctx_last_status (ctx), MUON_ERR_NULLPTR);
  T_EQ_STR (muon_ctx_last_error (ctx), "the error message's format must not be NULL");
  T_EQ_STR (muon_ctx_last_where (ctx), "");
  T_EQ_INT (muon_ctx_set_error (ctx, MUON_ERR_BADSHAPE, nofmt), MUON_ERR_NULLPTR);
  T_EQ_STR (muon_ctx_last_error (ctx), "the error message's format must not be NULL");
  T_EQ_INT ((muon_ctx_set_error) (NULL, MUON_ERR_BADARG, nofmt), MUON_ERR_NULLPTR);
  // no context: the code still comes back, and the queries do not crash
  T_EQ_INT (muon_ctx_set_error (NULL, MUON_ERR_MPI, "x"), MUON_ERR_MPI);
  T_ASSERT (muon_ctx_last_error (NULL) != NULL);
  T_EQ_INT (muon_ctx_last_status (NULL), MUON_ERR_NULLPTR);
  muon_ctx_destroy (&ctx);
}

// The place of the check that fired (muon_ctx_last_where): innermost, kept by CHECKSTATUS;
// the public muon_ctx_set_error (a gateway's error) and MUON_OK leave no place.
static void test_where (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  T_EQ_STR (muon_ctx_last_where (ctx), "");
  T_EQ_STR (muon_ctx_last_where (NULL), "");
  T_EQ_INT (muon_workspace_get (ctx, 8, NULL), MUON_ERR_NULLPTR);
  const char *w = muon_ctx_last_where (ctx);
  T_ASSERT_MSG (strstr (w, "core/base/ctx.c:") == w && strstr (w, " (muon_workspace_get)"),
                "where: %s", w);
  T_EQ_STR (muon_ctx_last_error (ctx), "workspace pointer must not be NULL");   // text as before
  // an error deep in a call keeps the innermost place: muon_ns -> muon_tensor_check
  double g[4] = { 1, 2, 3, 4 }, x[4];
  muon_tensor G = muon_tensor_matrix (MUON_F64, g, 2, 2), X = muon_tensor_matrix (MUON_F64, x, 2, 2);
  G.ld = 1;
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  T_EQ_INT (muon_ns (ctx, &G, &X, &o), MUON_ERR_BADSHAPE);
  w = muon_ctx_last_where (ctx);
  T_ASSERT_MSG (strstr (w, "core/base/") == w && strstr (w, " (muon_tensor_check_on)"),
                "where: %s", w);
  // from outside core (the public function, as the gateways call it): no place
  T_EQ_INT ((muon_ctx_set_error) (ctx, MUON_ERR_BADARG, "gateway %d", 1), MUON_ERR_BADARG);
  T_EQ_STR (muon_ctx_last_where (ctx), "");
  T_EQ_STR (muon_ctx_last_error (ctx), "gateway 1");
  // inside core (the macro, as here with muon_internal.h), then success clears it
  muon_ctx_set_error (ctx, MUON_ERR_BADARG, "here");
  T_ASSERT (strstr (muon_ctx_last_where (ctx), "test_ctx.c:") != NULL);
  muon_ctx_set_error (ctx, MUON_OK, "%s", "");
  T_EQ_STR (muon_ctx_last_where (ctx), "");
  muon_ctx_destroy (&ctx);
}

static void test_workspace (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  void *p = NULL, *q = NULL;
  T_EQ_INT (muon_workspace_get (ctx, 1000, &p), MUON_OK);
  T_ASSERT (p != NULL);
  T_EQ_INT ((uintptr_t) p % 64, 0);
  T_ASSERT (muon_workspace_size (ctx) >= 1000);
  if (p) memset (p, 0xab, 1000);                       // ASan: really 1000 bytes
  size_t held = muon_workspace_size (ctx);
  T_EQ_INT (muon_workspace_get (ctx, 10, &q), MUON_OK);  // smaller: same buffer
  T_ASSERT (q == p);
  T_EQ_INT (muon_workspace_size (ctx), held);
  T_EQ_INT (muon_workspace_get (ctx, 1000, &q), MUON_OK);  // equal: same buffer
  T_ASSERT (q == p);
  T_EQ_INT (muon_workspace_get (ctx, 100000, &q), MUON_OK); // larger: grows
  T_ASSERT (q != NULL);
  T_EQ_INT ((uintptr_t) q % 64, 0);
  T_ASSERT (muon_workspace_size (ctx) >= 100000);
  if (q) memset (q, 0xcd, 100000);
  void *r = NULL;
  T_EQ_INT (muon_workspace_get (ctx, 5000, &r), MUON_OK);
  T_ASSERT (r == q);
  // odd sizes stay aligned
  for (size_t b = 100001; b < 100001 + 64 * 50; b += 333)
  {
    T_EQ_INT (muon_workspace_get (ctx, b, &r), MUON_OK);
    T_EQ_INT ((uintptr_t) r % 64, 0);
  }
  // errors
  T_EQ_INT (muon_workspace_get (NULL, 10, &r), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_workspace_get (ctx, 10, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ctx_last_status (ctx), MUON_ERR_NULLPTR);
  T_ASSERT (*muon_ctx_last_error (ctx) != 0);
  T_EQ_INT (muon_workspace_size (NULL), 0);
  // out of memory: recorded, and the context stays usable
  r = (void *) 1;
  T_EQ_INT (muon_workspace_get (ctx, SIZE_MAX / 2, &r), MUON_ERR_NOMEM);
  T_EQ_INT (muon_ctx_last_status (ctx), MUON_ERR_NOMEM);
  T_ASSERT (*muon_ctx_last_error (ctx) != 0);
  T_EQ_INT (muon_workspace_get (ctx, 4096, &r), MUON_OK);
  T_ASSERT (r != NULL && muon_workspace_size (ctx) >= 4096);
  if (r) memset (r, 0, 4096);
  muon_ctx_destroy (&ctx);                              // LSan: the workspace is freed
}

// A call whose workspace passes MUON_WORKSPACE_KEEP gives it back when it ends; a small one
// keeps it for the next call; muon_ctx_release (ctx, 0, ...) frees whatever is held.
static void test_workspace_release (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  size_t n = 512, m = 8192, freed = 1;              // fp64 work: 16 n m + 40 n^2 > 64 MiB
  double *g = malloc (n * m * sizeof *g), *x = malloc (n * m * sizeof *x);
  for (size_t i = 0; i < n * m; i++)
    g[i] = (double) ((i * 2654435761u) % 1000) / 500.0 - 1.0;
  muon_tensor tg = muon_tensor_matrix (MUON_F64, g, n, m);
  muon_tensor tx = muon_tensor_matrix (MUON_F64, x, n, m);
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.precision = MUON_PREC_DOUBLE;
  o.steps = 1;
  T_EQ_INT (muon_ns (ctx, &tg, &tx, &o), MUON_OK);
  T_EQ_INT (muon_workspace_size (ctx), 0);          // released
  muon_tensor sg = muon_tensor_matrix (MUON_F64, g, 16, 32);
  muon_tensor sx = muon_tensor_matrix (MUON_F64, x, 16, 32);
  T_EQ_INT (muon_ns (ctx, &sg, &sx, &o), MUON_OK);
  size_t held = muon_workspace_size (ctx);
  T_ASSERT (held > 0 && held <= MUON_WORKSPACE_KEEP); // kept
  T_EQ_INT (muon_ctx_release (ctx, MUON_WORKSPACE_KEEP, &freed), MUON_OK);
  T_EQ_INT (freed, 0);
  T_EQ_INT (muon_workspace_size (ctx), held);
  T_EQ_INT (muon_ctx_release (ctx, 0, &freed), MUON_OK);
  T_EQ_INT (freed, held);
  T_EQ_INT (muon_workspace_size (ctx), 0);
  T_EQ_INT (muon_ctx_release (ctx, 0, NULL), MUON_OK);
  T_EQ_INT (muon_ctx_release (NULL, 0, NULL), MUON_ERR_NULLPTR);
  free (g);
  free (x);
  muon_ctx_destroy (&ctx);
}

// Destructors that log which state they freed, in order.
static char freed_log[64];
static void log_free (void *state)
{
  size_t n = strlen (freed_log);
  if (n + 1 < sizeof freed_log)
  {
    freed_log[n] = *(const char *) state;
    freed_log[n + 1] = 0;
  }
}

static void test_attach (void)
{
  muon_ctx *ctx = NULL;
  static char a[] = "a", b[] = "b", c[] = "c", d[] = "d", x[] = "x";
  freed_log[0] = 0;
  muon_ctx_create (&ctx);
  T_ASSERT (muon_ctx_lookup (ctx, "one") == NULL);
  T_ASSERT (muon_ctx_lookup (NULL, "one") == NULL);
  T_EQ_INT (muon_ctx_attach (ctx, "one", a, log_free, MUON_CTX_KEEP), MUON_OK);
  T_EQ_INT (muon_ctx_attach (ctx, "two", b, log_free, MUON_CTX_CACHE), MUON_OK);
  T_EQ_INT (muon_ctx_attach (ctx, "three", c, log_free, MUON_CTX_KEEP), MUON_OK);
  T_ASSERT (muon_ctx_lookup (ctx, "one") == a);
  T_ASSERT (muon_ctx_lookup (ctx, "two") == b);
  // a key taken: BADARG, and the state offered is freed at once
  T_EQ_INT (muon_ctx_attach (ctx, "one", x, log_free, MUON_CTX_KEEP), MUON_ERR_BADARG);
  T_EQ_STR (freed_log, "x");
  T_ASSERT (muon_ctx_lookup (ctx, "one") == a);
  T_EQ_INT (muon_ctx_attach (ctx, NULL, x, log_free, MUON_CTX_KEEP), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ctx_attach (NULL, "k", x, log_free, MUON_CTX_KEEP), MUON_ERR_NULLPTR);
  T_EQ_STR (freed_log, "xxx");
  // releasing everything frees the caches only
  T_EQ_INT (muon_ctx_release (ctx, 0, NULL), MUON_OK);
  T_EQ_STR (freed_log, "xxxb");
  T_ASSERT (muon_ctx_lookup (ctx, "two") == NULL);
  T_ASSERT (muon_ctx_lookup (ctx, "one") == a);
  // detach frees at once; an unknown key is nothing
  muon_ctx_detach (ctx, "one");
  muon_ctx_detach (ctx, "one");
  muon_ctx_detach (ctx, "nothing");
  T_EQ_STR (freed_log, "xxxba");
  // the slots fill up: NOMEM, the state offered freed
  static char keys[MUON_CTX_SLOTS + 1][8];
  int held = 1;                                   // "three"
  for (int i = 0; held < MUON_CTX_SLOTS; i++, held++)
  {
    snprintf (keys[i], sizeof keys[i], "k%d", i);
    T_EQ_INT (muon_ctx_attach (ctx, keys[i], NULL, NULL, MUON_CTX_KEEP), MUON_OK);
  }
  T_EQ_INT (muon_ctx_attach (ctx, "full", d, log_free, MUON_CTX_KEEP), MUON_ERR_NOMEM);
  T_EQ_STR (freed_log, "xxxbad");
  // destroy frees what is left, last attached first
  T_EQ_INT (muon_ctx_attach (ctx, "k0", NULL, NULL, MUON_CTX_KEEP), MUON_ERR_BADARG);
  muon_ctx_detach (ctx, "k0");
  T_EQ_INT (muon_ctx_attach (ctx, "last", b, log_free, MUON_CTX_KEEP), MUON_OK);
  muon_ctx_destroy (&ctx);
  T_EQ_STR (freed_log, "xxxbadbc");
}

static void test_tensor_make (void)
{
  double buf[24];
  muon_tensor t = muon_tensor_batch (MUON_F32, buf, 2, 3, 4);
  T_EQ_INT (t.dtype, MUON_F32);
  T_EQ_INT (t.device, MUON_DEVICE_CPU);
  T_EQ_INT (t.rows, 2);
  T_EQ_INT (t.cols, 3);
  T_EQ_INT (t.batch, 4);
  T_EQ_INT (t.ld, 2);
  T_EQ_INT (t.stride, 6);
  T_ASSERT (t.data == buf);
  muon_tensor m = muon_tensor_matrix (MUON_F64, buf, 4, 5);
  T_EQ_INT (m.dtype, MUON_F64);
  T_EQ_INT (m.rows, 4);
  T_EQ_INT (m.cols, 5);
  T_EQ_INT (m.batch, 1);
  T_EQ_INT (m.ld, 4);
  T_EQ_INT (m.stride, 20);
}

// muon_tensor_check on t, expecting code; on an error the message must name the tensor.
static void expect_check (muon_ctx *ctx, muon_tensor t, muon_status code, int line)
{
  muon_status s = muon_tensor_check (ctx, &t, "Gname");
  t_check (s == code, __FILE__, line, "muon_tensor_check gave %d (%s), expected %d (%s)",
           (int) s, muon_status_string (s), (int) code, muon_status_string (code));
  if (code < 0)
  {
    t_check (muon_ctx_last_status (ctx) == code, __FILE__, line, "last status %d, expected %d",
             (int) muon_ctx_last_status (ctx), (int) code);
    t_check (strstr (muon_ctx_last_error (ctx), "Gname") != NULL, __FILE__, line,
             "message \"%s\" names the tensor", muon_ctx_last_error (ctx));
  }
}
#define EXPECT_CHECK(t, code) expect_check (ctx, (t), (code), __LINE__)

static void test_tensor_check (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  double buf[4096];
  muon_tensor ok = muon_tensor_batch (MUON_F64, buf, 4, 5, 3), t;
  EXPECT_CHECK (ok, MUON_OK);
  EXPECT_CHECK (muon_tensor_matrix (MUON_F32, buf, 1, 1), MUON_OK);
  T_EQ_INT (muon_tensor_check (NULL, &ok, "G"), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_tensor_check (ctx, NULL, "G"), MUON_ERR_NULLPTR);
  t = ok; t.data = NULL;            EXPECT_CHECK (t, MUON_ERR_NULLPTR);
  // a NULL name is "the tensor" (it went to "%s": "(null) has no data")
  t = ok; t.data = NULL;
  T_EQ_INT (muon_tensor_check (ctx, &t, NULL), MUON_ERR_NULLPTR);
  T_EQ_STR (muon_ctx_last_error (ctx), "the tensor has no data");
  T_EQ_INT (muon_tensor_check (ctx, NULL, NULL), MUON_ERR_NULLPTR);
  T_EQ_STR (muon_ctx_last_error (ctx), "the tensor must not be NULL");
  t = ok; t.dtype = (muon_dtype) 7; EXPECT_CHECK (t, MUON_ERR_BADTYPE);
  t = ok; t.device = MUON_DEVICE_CUDA; EXPECT_CHECK (t, MUON_ERR_UNSUPPORTED);
  t = ok; t.rows = 0;               EXPECT_CHECK (t, MUON_ERR_BADSHAPE);
  t = ok; t.cols = 0;               EXPECT_CHECK (t, MUON_ERR_BADSHAPE);
  t = ok; t.batch = 0;              EXPECT_CHECK (t, MUON_ERR_BADSHAPE);
  t = ok; t.ld = 3;                 EXPECT_CHECK (t, MUON_ERR_BADSHAPE);   // ld < rows
  t = ok; t.ld = 0;                 EXPECT_CHECK (t, MUON_ERR_BADSHAPE);
  t = ok; t.ld = 6; t.stride = 6 * 4 + 4; EXPECT_CHECK (t, MUON_OK);     // padded pages
  t = ok; t.ld = 6; t.stride = 6 * 4 + 3; EXPECT_CHECK (t, MUON_ERR_BADSHAPE); // last column hits next page
  t = ok; t.stride = 19;            EXPECT_CHECK (t, MUON_ERR_BADSHAPE);   // dense pages overlap
  t = ok; t.stride = 0;             EXPECT_CHECK (t, MUON_ERR_BADSHAPE);   // all pages the same
  t = ok; t.batch = 1; t.stride = 0; EXPECT_CHECK (t, MUON_OK);            // one page: stride unused
  // fused experts: E pages of rows x cols interleaved in an (E rows) x cols matrix
  t = ok; t.ld = 12; t.stride = 4;  EXPECT_CHECK (t, MUON_OK);
  t = ok; t.ld = 11; t.stride = 4;  EXPECT_CHECK (t, MUON_ERR_BADSHAPE);   // 3 x 4 rows > 11
  t = ok; t.ld = 12; t.stride = 3;  EXPECT_CHECK (t, MUON_ERR_BADSHAPE);   // stride < rows
  t = ok; t.ld = 16; t.stride = 5;  EXPECT_CHECK (t, MUON_OK);             // gaps between experts
  t = ok; t.ld = 14; t.stride = 5;  EXPECT_CHECK (t, MUON_OK);             // last ends at ld: 2*5+4
  t = ok; t.ld = 13; t.stride = 5;  EXPECT_CHECK (t, MUON_ERR_BADSHAPE);   // ... past it
  muon_ctx_destroy (&ctx);
}

static void test_backend_query (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  muon_backend_info info;
  memset (&info, 0x5a, sizeof info);
  T_EQ_INT (muon_backend_query (NULL, &info), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_backend_query (ctx, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ctx_last_status (ctx), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_backend_query (ctx, &info), MUON_OK);  // a missing back end is not an error
  T_ASSERT (info.cuda_built == 0 || info.cuda_built == 1);
  T_ASSERT (info.cuda_usable == 0 || info.cuda_usable == 1);
  T_ASSERT (!info.cuda_usable || info.cuda_built);
  T_ASSERT (info.cuda_usable ? info.cuda_device_count >= 1 : 1);
  T_ASSERT (memchr (info.cuda_message, 0, sizeof info.cuda_message) != NULL);
  T_ASSERT (memchr (info.blas, 0, sizeof info.blas) != NULL);
  if (!info.cuda_usable)
    T_ASSERT (info.cuda_message[0] != 0);               // says why
  T_EQ_INT (muon_backend_query (ctx, &info), MUON_OK);  // asking twice is fine
  muon_ctx_destroy (&ctx);
}

int main (int argc, char **argv)
{
  (void) argc;
  T_RUN (test_create_destroy);
  T_RUN (test_errors);
  T_RUN (test_where);
  T_RUN (test_workspace);
  T_RUN (test_workspace_release);
  T_RUN (test_attach);
  T_RUN (test_tensor_make);
  T_RUN (test_tensor_check);
  T_RUN (test_backend_query);
  return T_DONE (argv[0]);
}
