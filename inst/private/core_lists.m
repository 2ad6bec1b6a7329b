## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{L} =} core_lists ()
## The core's named lists, limits and option defaults (see @code{__muon_lists__}), asked
## once per session: @code{L.lists.@var{key}} (a 1 x n cell of names in the core's order:
## method, precision, schedule_mode, device, gemm, momentum_form, scale_rule, zero_order,
## zero_variant, zero_pad_count, zero_ns_scope, coll, reduce_op, comm_kind, comm_reduction),
## @code{L.what.@var{key}}, @code{L.limits.@var{name}} (max_steps, max_restarts,
## max_threads, max_splits, comm_max_world, zero_max_world, zero_max_align, and those
## inst/ checks: max_checkpoint_mib, max_config_bytes, max_import_mib, max_json_depth,
## max_model_layers, max_model_dim, max_model_experts, max_model_matrices, max_grid,
## max_autotune_work) and
## @code{L.exact.zero_variant} and @code{L.ns_scope.zero_variant} (per design: whether it
## computes the reference's update, and what it runs Newton-Schulz on),
## @code{L.status.id} and @code{.text} (the status table: the ids the gateways raise),
## @code{L.defaults.ns}, @code{.update}, @code{.layout}, @code{.step} (the gateways' option
## fields as the core's defaults set them).  No inst/ file types these again.
## @end deftypefn

function L = core_lists ()
  persistent C;
  if (isempty (C))
    C = __muon_lists__ ();
  endif
  L = C;
endfunction
