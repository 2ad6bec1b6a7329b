/* muon_lists.h - part of the public C API (included by muon.h): the registry of every named
 * list and every limit the core checks (core/lists.c), so that gateways and the Octave
 * functions read names, limits and defaults from the core instead of typing them again.
 *
 * A list is one MUON_<THING>_LIST X-macro in the header of its enum (muon.h, muon_update.h,
 * muon_comm.h, muon_zero.h, muon_zero_step.h).  To add a list: write its X-macro and enum
 * there (MUON_ENUM_ITEM, MUON_DECLARE_NAMES), then one line in MUON_LISTS below; core/lists.c
 * generates its names, its from-name / to-name functions and its registry entry.
 *
 * Usage
 *   int v;
 *   if (muon_name_lookup (MUON_LIST_PRECISION, "bf16", &v) == MUON_OK) o.precision = v;
 *   for (int i = 0; i < muon_list_size (MUON_LIST_GEMM); i++) puts (muon_names (MUON_LIST_GEMM, i));
 */
#ifndef MUON_LISTS_H
#define MUON_LISTS_H

#ifdef __cplusplus
extern "C" {
#endif

// X (LIST, "name", "what an entry is, for messages", ITEMS): "name" is the list's key for
// the gateways and inst/ (a valid Octave field name); "what" reads "unknown <what> 'x'".
#define MUON_LISTS(X)                                                                       \
  X (MUON_LIST_METHOD,         "method",         "method",             MUON_NS_METHOD_LIST)      \
  X (MUON_LIST_PRECISION,      "precision",      "precision",          MUON_PRECISION_LIST)      \
  X (MUON_LIST_SCHEDULE_MODE,  "schedule_mode",  "schedule mode",      MUON_SCHEDULE_MODE_LIST)  \
  X (MUON_LIST_DEVICE,         "device",         "device",             MUON_DEVICE_LIST)         \
  X (MUON_LIST_GEMM,           "gemm",           "GEMM provider",      MUON_GEMM_LIST)           \
  X (MUON_LIST_MOMENTUM_FORM,  "momentum_form",  "momentum form",      MUON_MOMENTUM_FORM_LIST)  \
  X (MUON_LIST_SCALE_RULE,     "scale_rule",     "scale rule",         MUON_SCALE_RULE_LIST)     \
  X (MUON_LIST_ZERO_ORDER,     "zero_order",     "order",              MUON_ZERO_ORDER_LIST)     \
  X (MUON_LIST_ZERO_VARIANT,   "zero_variant",   "variant",            MUON_ZERO_VARIANT_LIST)   \
  X (MUON_LIST_ZERO_PAD_COUNT, "zero_pad_count", "pad count rule",     MUON_ZERO_PAD_COUNT_LIST) \
  X (MUON_LIST_COLL,           "coll",           "collective",         MUON_COLL_LIST)           \
  X (MUON_LIST_REDUCE_OP,      "reduce_op",      "reduction operator", MUON_REDUCE_OP_LIST)      \
  X (MUON_LIST_COMM_KIND,      "comm_kind",      "communicator kind",  MUON_COMM_KIND_LIST)      \
  X (MUON_LIST_COMM_REDUCTION, "comm_reduction", "reduction",          MUON_COMM_REDUCTION_LIST) \
  X (MUON_LIST_NORMALIZE,      "normalize",      "normalization",      MUON_NORMALIZE_LIST)

#define MUON_LIST_ENUM_ITEM(list, name, what, items) list,
typedef enum { MUON_LISTS (MUON_LIST_ENUM_ITEM) MUON_LIST_COUNT } muon_list;
#undef MUON_LIST_ENUM_ITEM

// X (CONSTANT, "name"): the limits the core checks, each a #define of its header.
#define MUON_LIMITS(X)                                                          \
  X (MUON_MAX_STEPS,      "max_steps")      /* muon.h */                        \
  X (MUON_MAX_RESTARTS,   "max_restarts")   /* muon.h */                        \
  X (MUON_MAX_THREADS,    "max_threads")    /* muon.h */                        \
  X (MUON_MAX_SPLITS,     "max_splits")     /* muon_update.h */                 \
  X (MUON_COMM_MAX_WORLD, "comm_max_world") /* muon_comm.h */                   \
  X (MUON_ZERO_MAX_WORLD, "zero_max_world") /* muon_zero.h */                   \
  X (MUON_ZERO_MAX_ALIGN, "zero_max_align") /* muon_zero.h */

//---- lists ---------------------------------------------------------------------------------

// The list's key ("precision"), and what an entry is ("GEMM provider"); NULL for a value
// that is no list.
const char *muon_list_name (muon_list list);
const char *muon_list_what (muon_list list);
// The number of names in the list (0 for a value that is no list).
int muon_list_size (muon_list list);
// The name of value i of the list ("bf16" for MUON_LIST_PRECISION, MUON_PREC_BF16); NULL
// when i is no value of it.
const char *muon_names (muon_list list, int i);
// The value named `name` (exact match).  [out] *value.  MUON_ERR_BADARG for a name not in the
// list or a list that does not exist, MUON_ERR_NULLPTR for NULL name or value.
muon_status muon_name_lookup (muon_list list, const char *name, int *value);

//---- limits --------------------------------------------------------------------------------

// The number of limits, and limit i's key ("max_steps") and value; NULL and 0 past the end.
int muon_limit_count (void);
const char *muon_limit_name (int i);
long muon_limit_value (int i);

#ifdef __cplusplus
}
#endif
#endif
