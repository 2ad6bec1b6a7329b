/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_lists.c - the catalogue of named lists and limits (muon_lists.h MUON_LISTS,
 * core/lists/list_registry.c): every list's names come from its X-macro, each value has one
 * name and each name one value, lookups are exact, bad arguments give NULL / 0 / BADARG /
 * NULLPTR, the range checks (MUON_IN_LIST) and the layers' name tables (MUON_NAME_TABLE,
 * base/muon_internal.h) agree with the catalogue, also on a list with gaps, and the limits
 * are the headers' constants.
 */
#include "harness.h"
#include "muon.h"
#include "muon_internal.h"

// The lists as their X-macros define them, for comparison with the catalogue.
typedef struct { int value; const char *name; } item;
#define ITEM(name, value, text) { value, text },
#define EXPECTED(list, key, what, items)                                        \
  static const item expect_##list[] = { items (ITEM) };
MUON_LISTS (EXPECTED)
#undef EXPECTED
#define EXPECTED_ENTRY(list, key, what, items)                                  \
  { list, key, expect_##list, (int) (sizeof expect_##list / sizeof expect_##list[0]) },
static const struct { muon_list list; const char *key; const item *items; int n; } expect[] = {
  MUON_LISTS (EXPECTED_ENTRY)
};
#define NLISTS ((int) (sizeof expect / sizeof expect[0]))

static int is_identifier (const char *s)
{
  int ok = s && ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'));
  for (; ok && *s; s++)
    ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')
         || *s == '_';
  return ok;
}

static void test_registry (void)
{
  T_EQ_INT (NLISTS, MUON_LIST_COUNT);
  for (int l = 0; l < NLISTS; l++)
  {
    muon_list L = expect[l].list;
    T_EQ_INT ((int) L, l);
    T_EQ_STR (muon_list_name (L), expect[l].key);
    T_ASSERT_MSG (is_identifier (muon_list_name (L)), "list key \"%s\" is an Octave field name",
                  expect[l].key);
    T_ASSERT_MSG (muon_list_what (L) && *muon_list_what (L), "list %s says what it holds",
                  expect[l].key);
    T_EQ_INT (muon_list_size (L), expect[l].n);
    T_ASSERT (expect[l].n >= 2);
    for (int j = 0; j < l; j++)
      T_ASSERT_MSG (strcmp (expect[l].key, expect[j].key) != 0, "two lists named %s",
                    expect[l].key);
  }
}

static void test_names (void)
{
  for (int l = 0; l < NLISTS; l++)
  {
    muon_list L = expect[l].list;
    for (int i = 0; i < expect[l].n; i++)
    {
      const item *it = &expect[l].items[i];
      // values 0..n-1 in list order, so that muon_names (L, i) covers every value
      T_EQ_INT (it->value, i);
      T_EQ_STR (muon_names (L, it->value), it->name);
      T_ASSERT_MSG (is_identifier (it->name), "%s: \"%s\" is a plain name", expect[l].key,
                    it->name);
      int v = -1;
      T_EQ_INT (muon_name_lookup (L, it->name, &v), MUON_OK);
      T_EQ_INT (v, it->value);
      for (int j = 0; j < i; j++)
        T_ASSERT_MSG (strcmp (it->name, expect[l].items[j].name) != 0, "%s: \"%s\" twice",
                      expect[l].key, it->name);
    }
    // past the ends, and lookups that must fail (exact, case-sensitive match)
    T_ASSERT (muon_names (L, -1) == NULL);
    T_ASSERT (muon_names (L, expect[l].n) == NULL);
    int v = 77;
    T_EQ_INT (muon_name_lookup (L, "no_such_name", &v), MUON_ERR_BADARG);
    T_EQ_INT (muon_name_lookup (L, "", &v), MUON_ERR_BADARG);
    T_EQ_INT (v, 77);
    char upper[64];
    snprintf (upper, sizeof upper, "%s", expect[l].items[0].name);
    upper[0] = (char) (upper[0] - 'a' + 'A');
    T_EQ_INT (muon_name_lookup (L, upper, &v), MUON_ERR_BADARG);
    T_EQ_INT (muon_name_lookup (L, NULL, &v), MUON_ERR_NULLPTR);
    T_EQ_INT (muon_name_lookup (L, expect[l].items[0].name, NULL), MUON_ERR_NULLPTR);
  }
  // a value that is no list
  int v = 0;
  T_ASSERT (muon_list_name (MUON_LIST_COUNT) == NULL);
  T_ASSERT (muon_list_what ((muon_list) -1) == NULL);
  T_EQ_INT (muon_list_size (MUON_LIST_COUNT), 0);
  T_ASSERT (muon_names (MUON_LIST_COUNT, 0) == NULL);
  T_EQ_INT (muon_name_lookup (MUON_LIST_COUNT, "double", &v), MUON_ERR_BADARG);
}

// The names the rest of the code relies on, through the one naming API.
static void test_spelled (void)
{
  T_EQ_STR (muon_names (MUON_LIST_PRECISION, MUON_PREC_BF16), "bf16");
  T_EQ_STR (muon_names (MUON_LIST_GEMM, MUON_GEMM_ONEDNN), "onednn");
  T_EQ_STR (muon_names (MUON_LIST_SCALE_RULE, MUON_SCALE_UNIT_RMS), "unit_rms");
  T_EQ_STR (muon_names (MUON_LIST_ZERO_VARIANT, MUON_ZERO3_RR_ALIASED),
            "zero3_round_robin_aliased_pads");
  T_EQ_STR (muon_names (MUON_LIST_ZERO_VARIANT, MUON_ZERO_ALLTOALL_OWNER), "alltoall_owner");
  T_EQ_STR (muon_names (MUON_LIST_COLL, MUON_COLL_REDUCE_SCATTER), "reduce_scatter");
  T_EQ_STR (muon_names (MUON_LIST_COLL, MUON_COLL_ALL_TO_ALL), "all_to_all");
  T_EQ_STR (muon_names (MUON_LIST_COMM_KIND, MUON_COMM_NCCL), "nccl");
  T_EQ_STR (muon_names (MUON_LIST_ZERO_ORDER, MUON_ZERO_ORDER_SIZE_DESC), "size_desc");
  T_EQ_STR (muon_names (MUON_LIST_MOMENTUM_FORM, MUON_MOMENTUM_EMA), "ema");
  // the counts the enums carry
  T_EQ_INT (MUON_COLL_COUNT, muon_list_size (MUON_LIST_COLL));
  T_EQ_INT (MUON_ZERO_VARIANT_COUNT, muon_list_size (MUON_LIST_ZERO_VARIANT));
  T_ASSERT (muon_names (MUON_LIST_COLL, MUON_COLL_COUNT) == NULL);
}

// MUON_IN_LIST (the range checks of the core) says yes exactly for the list's values, and the
// name tables of the layers below the catalogue (MUON_NAME_TABLE) agree with it; a list with
// a gap (values 0, 3, 5) is handled by both.
#define GAPPED_LIST(X) X (G_A, 0, "a") X (G_B, 3, "b") X (G_C, 5, "c")
MUON_NAME_TABLE (gapped_names, GAPPED_LIST);
#define IN_CHECK(list, key, what, items)                                        \
  for (int v = -70; v < 70; v++)                                                \
    T_ASSERT_MSG (MUON_IN_LIST (items, v) == (muon_names (list, v) != NULL),    \
                  "%s: MUON_IN_LIST (%d)", key, v);                             \
  { long long big_ = 1LL << 40; T_ASSERT (!MUON_IN_LIST (items, big_)); }

static void test_in_list (void)
{
  MUON_LISTS (IN_CHECK)
  static const int in[] = { 1, 0, 0, 1, 0, 1, 0 };
  for (int v = 0; v < 7; v++)
  {
    T_EQ_INT (MUON_IN_LIST (GAPPED_LIST, v), in[v]);
    T_EQ_STR (MUON_NAME_OF (gapped_names, v), in[v] ? gapped_names[v] : "unknown");
  }
  T_ASSERT (!MUON_IN_LIST (GAPPED_LIST, -1) && !MUON_IN_LIST (GAPPED_LIST, 64));
  T_EQ_STR (MUON_NAME_OF (gapped_names, -1), "unknown");
  T_EQ_STR (MUON_NAME_OF (gapped_names, 5), "c");
  int v = -1;
  T_EQ_INT (muon_name_find (gapped_names, MUON_NAME_COUNT (gapped_names), "b", &v), MUON_OK);
  T_EQ_INT (v, 3);
  T_EQ_INT (muon_name_find (gapped_names, MUON_NAME_COUNT (gapped_names), "d", &v),
            MUON_ERR_BADARG);
  T_EQ_INT (muon_name_find (gapped_names, MUON_NAME_COUNT (gapped_names), NULL, &v),
            MUON_ERR_NULLPTR);
  T_ASSERT (muon_name_at (gapped_names, MUON_NAME_COUNT (gapped_names), 1) == NULL);
  T_ASSERT (muon_name_at (gapped_names, MUON_NAME_COUNT (gapped_names), 6) == NULL);
  // a range check that reads its list: an options struct with a value past the list fails
  muon_ctx *ctx = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  double g[4] = { 1, 2, 3, 5 }, x[4];
  muon_tensor G = muon_tensor_matrix (MUON_F64, g, 2, 2), X = muon_tensor_matrix (MUON_F64, x, 2, 2);
  muon_ns_opts o;
  muon_ns_opts_default (&o);
  o.precision = (muon_precision) muon_list_size (MUON_LIST_PRECISION);
  T_EQ_INT (muon_ns (ctx, &G, &X, &o), MUON_ERR_BADARG);
  muon_ns_opts_default (&o);
  o.gemm = (muon_gemm_provider) -1;
  T_EQ_INT (muon_ns (ctx, &G, &X, &o), MUON_ERR_BADARG);
  muon_ns_opts_default (&o);
  o.normalize = (muon_normalize) muon_list_size (MUON_LIST_NORMALIZE);
  T_EQ_INT (muon_ns (ctx, &G, &X, &o), MUON_ERR_BADARG);
  muon_ns_opts_default (&o);
  T_EQ_INT (muon_ns (ctx, &G, &X, &o), MUON_OK);
  muon_ctx_destroy (&ctx);
}

// A communicator's name is its kind's.
static void test_comm_names (void)
{
  muon_ctx *ctx = NULL;
  muon_comm *c = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  T_EQ_INT (muon_comm_self_create (ctx, &c), MUON_OK);
  T_EQ_STR (muon_comm_name (c), muon_names (MUON_LIST_COMM_KIND, MUON_COMM_SELF));
  muon_comm_destroy (&c);
  T_EQ_INT (muon_comm_sim_create (ctx, 3, &c), MUON_OK);
  T_EQ_STR (muon_comm_name (c), muon_names (MUON_LIST_COMM_KIND, MUON_COMM_SIM));
  muon_comm_destroy (&c);
  muon_ctx_destroy (&ctx);
}

static void test_limits (void)
{
  static const struct { const char *key; long value; } want[] = {
    { "max_steps", MUON_MAX_STEPS }, { "max_restarts", MUON_MAX_RESTARTS },
    { "max_sym_blocks", MUON_MAX_SYM_BLOCKS },
    { "max_threads", MUON_MAX_THREADS }, { "max_splits", MUON_MAX_SPLITS },
    { "comm_max_world", MUON_COMM_MAX_WORLD }, { "zero_max_world", MUON_ZERO_MAX_WORLD },
    { "zero_max_align", MUON_ZERO_MAX_ALIGN },
    { "max_checkpoint_mib", MUON_MAX_CHECKPOINT_MIB },
    { "max_config_bytes", MUON_MAX_CONFIG_BYTES }, { "max_import_mib", MUON_MAX_IMPORT_MIB },
    { "max_json_depth", MUON_MAX_JSON_DEPTH },
    { "max_model_layers", MUON_MAX_MODEL_LAYERS }, { "max_model_dim", MUON_MAX_MODEL_DIM },
    { "max_model_experts", MUON_MAX_MODEL_EXPERTS },
    { "max_model_matrices", MUON_MAX_MODEL_MATRICES }, { "max_grid", MUON_MAX_GRID },
    { "max_autotune_work", MUON_MAX_AUTOTUNE_WORK }
  };
  int n = muon_limit_count ();
  T_EQ_INT (n, (int) (sizeof want / sizeof want[0]));
  for (int i = 0; i < n; i++)
  {
    T_ASSERT_MSG (is_identifier (muon_limit_name (i)), "limit %d has a key", i);
    T_ASSERT (muon_limit_value (i) > 0);
    for (int j = 0; j < i; j++)
      T_ASSERT (strcmp (muon_limit_name (i), muon_limit_name (j)) != 0);
  }
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
  {
    int found = 0;
    for (int i = 0; i < n; i++)
      if (muon_limit_name (i) && strcmp (muon_limit_name (i), want[k].key) == 0)
      {
        found = 1;
        T_EQ_INT (muon_limit_value (i), want[k].value);
      }
    T_ASSERT_MSG (found, "limit %s is listed", want[k].key);
  }
  T_EQ_INT (MUON_MAX_STEPS, 1000);
  T_EQ_INT (MUON_MAX_RESTARTS, 64);
  T_EQ_INT (MUON_MAX_THREADS, 1024);
  T_ASSERT (muon_limit_name (-1) == NULL && muon_limit_name (n) == NULL);
  T_EQ_INT (muon_limit_value (n), 0);
}

int main (int argc, char **argv)
{
  (void) argc;
  T_RUN (test_registry);
  T_RUN (test_names);
  T_RUN (test_spelled);
  T_RUN (test_in_list);
  T_RUN (test_comm_names);
  T_RUN (test_limits);
  return T_DONE (argv[0]);
}
