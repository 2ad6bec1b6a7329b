/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_lists.h - part of the public C API (included by muon.h): the catalogue of lists
 * (core/lists/), the top layer of the core: every named list and every limit the core checks,
 * for the gateways, inst/ and the tests, which read names, limits and defaults from here
 * instead of typing them again.  This is the one naming API of the core: muon_names (value ->
 * name), muon_name_lookup (name -> value), and the limits below.
 *
 * A list is one MUON_<THING>_LIST X-macro in the public header of its layer (muon_base.h,
 * muon_gemm.h, muon_math.h, muon_comm.h, muon_zero.h), which makes its enum there
 * (MUON_ENUM_ITEM) and its range check (MUON_IN_LIST); a layer below this one that needs a
 * name builds a table from the same X-macro (MUON_NAME_TABLE, base/muon_internal.h).  To add a
 * list: its X-macro and enum in its layer's header, then one line in MUON_LISTS below.  This
 * layer sits above every other (it names all their lists), so nothing in core calls it.
 *
 * Usage
 *   int v;
 *   if (muon_name_lookup (MUON_LIST_PRECISION, "bf16", &v) == MUON_OK) o.precision = v;
 *   for (int i = 0; i < muon_list_size (MUON_LIST_GEMM); i++) puts (muon_names (MUON_LIST_GEMM, i));
 */
#ifndef MUON_LISTS_H
#define MUON_LISTS_H

#include "muon_base.h"
#include "muon_comm.h"
#include "muon_gemm.h"
#include "muon_math.h"
#include "muon_zero.h"

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
  X (MUON_LIST_ZERO_NS_SCOPE,  "zero_ns_scope",  "Newton-Schulz scope", MUON_ZERO_NS_SCOPE_LIST) \
  X (MUON_LIST_COLL,           "coll",           "collective",         MUON_COLL_LIST)           \
  X (MUON_LIST_REDUCE_OP,      "reduce_op",      "reduction operator", MUON_REDUCE_OP_LIST)      \
  X (MUON_LIST_COMM_KIND,      "comm_kind",      "communicator kind",  MUON_COMM_KIND_LIST)      \
  X (MUON_LIST_COMM_REDUCTION, "comm_reduction", "reduction",          MUON_COMM_REDUCTION_LIST) \
  X (MUON_LIST_NORMALIZE,      "normalize",      "normalization",      MUON_NORMALIZE_LIST)      \
  X (MUON_LIST_FILL,           "fill",           "fill",               MUON_FILL_LIST)           \
  X (MUON_LIST_EW,             "elementwise",    "element-wise operation", MUON_EW_LIST)    \
  X (MUON_LIST_MOMENTUM_ARITH, "momentum_arith", "momentum arithmetic", MUON_MOMENTUM_ARITH_LIST)

#define MUON_LIST_ENUM_ITEM(list, name, what, items) list,
typedef enum { MUON_LISTS (MUON_LIST_ENUM_ITEM) MUON_LIST_COUNT } muon_list;
#undef MUON_LIST_ENUM_ITEM

// Limits that inst/ checks before any work (issue 23): generous bounds against a typo or a
// crafted file that would hang Octave or exhaust its memory.  Listed in MUON_LIMITS with the
// core's own, so that __muon_lists__ hands every limit to inst/ from one table.
#define MUON_MAX_CHECKPOINT_MIB 65536     // a checkpoint or shard file, MiB (64 GiB)
#define MUON_MAX_CONFIG_BYTES 16777216    // a config.json file (16 MiB)
#define MUON_MAX_IMPORT_MIB 256           // a CSV or JSON table for muon_import, MiB
#define MUON_MAX_JSON_DEPTH 200           // nesting of arrays and objects in a config.json
#define MUON_MAX_MODEL_LAYERS 10000       // num_hidden_layers of a model config
#define MUON_MAX_MODEL_DIM 16777216       // every other size of a model config (2^24)
#define MUON_MAX_MODEL_EXPERTS 65536      // routed experts per layer of a model config
#define MUON_MAX_MODEL_MATRICES 1000000   // parameters (table rows) of one model
#define MUON_MAX_GRID 1000000             // grid points of ns_restart_autotune
#define MUON_MAX_AUTOTUNE_WORK 1000000000 // restart lists x steps x grid points it simulates

// X (CONSTANT, "name"): the limits the core checks, each a #define of its header, then the
// limits inst/ checks (above).
#define MUON_LIMITS(X)                                                          \
  X (MUON_MAX_STEPS,      "max_steps")      /* muon_math.h */                   \
  X (MUON_MAX_RESTARTS,   "max_restarts")   /* muon_math.h */                   \
  X (MUON_MAX_SYM_BLOCKS, "max_sym_blocks") /* muon_math.h */                   \
  X (MUON_MAX_THREADS,    "max_threads")    /* muon_base.h */                   \
  X (MUON_MAX_SPLITS,     "max_splits")     /* muon_math.h */                   \
  X (MUON_COMM_MAX_WORLD, "comm_max_world") /* muon_comm.h */                   \
  X (MUON_ZERO_MAX_WORLD, "zero_max_world") /* muon_zero.h */                   \
  X (MUON_ZERO_MAX_ALIGN, "zero_max_align") /* muon_zero.h */                   \
  X (MUON_MAX_CHECKPOINT_MIB, "max_checkpoint_mib")                             \
  X (MUON_MAX_CONFIG_BYTES, "max_config_bytes")                                 \
  X (MUON_MAX_IMPORT_MIB, "max_import_mib")                                     \
  X (MUON_MAX_JSON_DEPTH, "max_json_depth")                                     \
  X (MUON_MAX_MODEL_LAYERS, "max_model_layers")                                 \
  X (MUON_MAX_MODEL_DIM, "max_model_dim")                                       \
  X (MUON_MAX_MODEL_EXPERTS, "max_model_experts")                               \
  X (MUON_MAX_MODEL_MATRICES, "max_model_matrices")                             \
  X (MUON_MAX_GRID, "max_grid")                                                 \
  X (MUON_MAX_AUTOTUNE_WORK, "max_autotune_work")

//---- lists ---------------------------------------------------------------------------------

// The list's key ("precision"), and what an entry is ("GEMM provider"); NULL for a value
// that is no list.
const char *muon_list_name (muon_list list);
const char *muon_list_what (muon_list list);
// The number of names in the list (0 for a value that is no list).
int muon_list_size (muon_list list);
// The name of value i of the list ("bf16" for MUON_LIST_PRECISION, MUON_PREC_BF16); NULL
// when i is no value of it (out of range, or a gap of a list that is not contiguous).
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
