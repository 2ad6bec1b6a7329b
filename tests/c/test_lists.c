/* test_lists.c - the registry of named lists and limits (muon_zero.h MUON_LISTS,
 * core/zero/list_registry.c; names: MUON_DEFINE_NAMES in each layer): every list's names come from its X-macro, each value has one name and each
 * name one value, lookups are exact, the typed name functions agree with the registry, bad
 * arguments give NULL / 0 / BADARG / NULLPTR, and the limits are the headers' constants.
 */
#include "harness.h"
#include "muon.h"

// The lists as their X-macros define them, for comparison with the registry.
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

// The typed pairs agree with the registry (a few spelled out, the rest by round trip).
#define ROUND_TRIP(prefix, type, list)                                          \
  for (int i = 0; i < muon_list_size (list); i++)                               \
  {                                                                             \
    type t;                                                                     \
    T_EQ_INT (prefix##_from_name (muon_names (list, i), &t), MUON_OK);          \
    T_EQ_INT ((int) t, i);                                                      \
    T_EQ_STR (prefix##_name ((type) i), muon_names (list, i));                  \
  }                                                                             \
  T_EQ_STR (prefix##_name ((type) muon_list_size (list)), "unknown");           \
  T_EQ_STR (prefix##_name ((type) -1), "unknown");                              \
  {                                                                             \
    type t;                                                                     \
    T_EQ_INT (prefix##_from_name ("bogus", &t), MUON_ERR_BADARG);               \
    T_EQ_INT (prefix##_from_name (NULL, &t), MUON_ERR_NULLPTR);                 \
    T_EQ_INT (prefix##_from_name (muon_names (list, 0), NULL), MUON_ERR_NULLPTR); \
  }

static void test_typed (void)
{
  ROUND_TRIP (muon_ns_method, muon_ns_method, MUON_LIST_METHOD)
  ROUND_TRIP (muon_precision, muon_precision, MUON_LIST_PRECISION)
  ROUND_TRIP (muon_schedule_mode, muon_schedule_mode, MUON_LIST_SCHEDULE_MODE)
  ROUND_TRIP (muon_device, muon_device, MUON_LIST_DEVICE)
  ROUND_TRIP (muon_gemm, muon_gemm_provider, MUON_LIST_GEMM)
  ROUND_TRIP (muon_momentum_form, muon_momentum_form, MUON_LIST_MOMENTUM_FORM)
  ROUND_TRIP (muon_scale_rule, muon_scale_rule, MUON_LIST_SCALE_RULE)
  ROUND_TRIP (muon_zero_order, muon_zero_order, MUON_LIST_ZERO_ORDER)
  ROUND_TRIP (muon_zero_variant, muon_zero_variant, MUON_LIST_ZERO_VARIANT)
  ROUND_TRIP (muon_zero_pad_count, muon_zero_pad_count, MUON_LIST_ZERO_PAD_COUNT)
  ROUND_TRIP (muon_coll, muon_coll, MUON_LIST_COLL)
  ROUND_TRIP (muon_reduce_op, muon_reduce_op, MUON_LIST_REDUCE_OP)
  ROUND_TRIP (muon_comm_kind, muon_comm_kind, MUON_LIST_COMM_KIND)
  ROUND_TRIP (muon_comm_reduction, muon_comm_reduction, MUON_LIST_COMM_REDUCTION)
  // the names the rest of the code relies on
  T_EQ_STR (muon_precision_name (MUON_PREC_BF16), "bf16");
  T_EQ_STR (muon_gemm_name (MUON_GEMM_ONEDNN), "onednn");
  T_EQ_STR (muon_scale_rule_name (MUON_SCALE_UNIT_RMS), "unit_rms");
  T_EQ_STR (muon_zero_variant_name (MUON_ZERO3_RR_ALIASED), "zero3_round_robin_aliased_pads");
  T_EQ_STR (muon_coll_name (MUON_COLL_REDUCE_SCATTER), "reduce_scatter");
  T_EQ_STR (muon_comm_kind_name (MUON_COMM_NCCL), "nccl");
  // the counts the enums carry
  T_EQ_INT (MUON_COLL_COUNT, muon_list_size (MUON_LIST_COLL));
  T_EQ_INT (MUON_ZERO_VARIANT_COUNT, muon_list_size (MUON_LIST_ZERO_VARIANT));
  T_EQ_STR (muon_coll_name (MUON_COLL_COUNT), "unknown");
}

// A communicator's name is its kind's.
static void test_comm_names (void)
{
  muon_ctx *ctx = NULL;
  muon_comm *c = NULL;
  T_EQ_INT (muon_ctx_create (&ctx), MUON_OK);
  T_EQ_INT (muon_comm_self_create (ctx, &c), MUON_OK);
  T_EQ_STR (muon_comm_name (c), muon_comm_kind_name (MUON_COMM_SELF));
  muon_comm_destroy (&c);
  T_EQ_INT (muon_comm_sim_create (ctx, 3, &c), MUON_OK);
  T_EQ_STR (muon_comm_name (c), muon_comm_kind_name (MUON_COMM_SIM));
  muon_comm_destroy (&c);
  muon_ctx_destroy (&ctx);
}

static void test_limits (void)
{
  static const struct { const char *key; long value; } want[] = {
    { "max_steps", MUON_MAX_STEPS }, { "max_restarts", MUON_MAX_RESTARTS },
    { "max_threads", MUON_MAX_THREADS }, { "max_splits", MUON_MAX_SPLITS },
    { "comm_max_world", MUON_COMM_MAX_WORLD }, { "zero_max_world", MUON_ZERO_MAX_WORLD },
    { "zero_max_align", MUON_ZERO_MAX_ALIGN },
    { "max_checkpoint_mib", MUON_MAX_CHECKPOINT_MIB },
    { "max_config_bytes", MUON_MAX_CONFIG_BYTES }, { "max_json_depth", MUON_MAX_JSON_DEPTH },
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
  T_RUN (test_typed);
  T_RUN (test_comm_names);
  T_RUN (test_limits);
  return T_DONE (argv[0]);
}
