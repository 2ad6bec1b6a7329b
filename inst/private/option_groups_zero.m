## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{T} =} option_groups_zero (@var{group}, @var{L})
## @deftypefnx {} {@var{T} =} option_groups_zero ("shard", @var{L}, @var{load})
## The option groups of ZeRO and the communicators, for @code{option_spec}: @var{group}
## @qcode{"step"} (@code{zero_muon_step}'s own options), @qcode{"train"}
## (@code{zero_train_step}'s own, muon_optimizer's rows of the training loop),
## @qcode{"shard"} (@code{zero_save_state}, or with @var{load} true
## @code{zero_load_state}), @qcode{"layout"} (@code{zero_layout}), @qcode{"cost"}
## (@code{zero_cost}'s own), @qcode{"comm"} (@code{muon_comm}), @qcode{"collective"}
## (@code{muon_collective}) or @qcode{"mpirun"} (the fields of @code{muon_mpirun}'s OPTS).
## @var{T} is the group's table, one row per option, in @code{option_spec}'s six columns;
## @var{L} is @code{core_lists ()}, whose lists, defaults and limits the rows use.
## @end deftypefn

function T = option_groups_zero (group, L, varargin)
  groups = struct ("step", @zero_step_rows, "train", @train_rows, "shard", @shard_rows, ...
                   "layout", @zero_layout_rows, "cost", @cost_rows, "comm", @comm_rows, ...
                   "collective", @collective_rows, "mpirun", @mpirun_rows);
  if (! isfield (groups, group))
    error ("muonlab:internal", "option_groups_zero: no option group '%s'.", group);
  endif
  f = groups.(group);
  T = f (L, varargin{:});
endfunction

##---- the groups -----------------------------------------------------------------------------

## zero_muon_step's own options (with the update and Newton-Schulz ones).
function T = zero_step_rows (L)
  d = L.defaults.step;
  x = L.lists;
  pmax = 2^31 - 1;                      # Period: the core reads it as a C int
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Variant",       "variant",         "enum",    x.zero_variant,     d.variant,          ""
    "Comm",          "comm",            "custom",  @comm_arg,          "sim",  "\"sim\" or a handle from muon_comm"
    "Reference",     "reference",       "logical", [],                 true,               ""
    "Assemble",      "assemble",        "logical", [],                 [],                 ""
    "PadCount",      "pad_count",       "enum",    x.zero_pad_count,   d.pad_count,        ""
    "Period",        "period",          "int",     [1 pmax],           d.period, ...
                                                  sprintf("a positive integer (at most %d)", pmax)
    "BlockScale",    "block_scale",     "real",    "(0, Inf)",         d.block_scale,      ""
    "BucketSize",    "bucket_size",     "int",     [1 2^53],           [],  "a positive integer (at most 2^53)"
    "Experts",       "param_experts",   "any",     [],                 [],                 ""
    "SplitRows",     "param_split",     "any",     [],                 [],                 ""
  };
endfunction

## zero_train_step: muon_optimizer's rows of the training loop (the same names, values and
## defaults), and where PR 5395's skip flag sits.
function T = train_rows (L)
  T = option_groups_muon ("optimizer", L);
  T = T(ismember (T(:,1), {"ClipPolicy", "ClipNorm", "AccumulationSteps", "PerMicroBatchNS", ...
                           "PoisonMomentum", "LossScaler"}), :);
  T(end+1,:) = {"ClipSkipFlag", "clip_flag", "enum", {"members", "container"}, "members", ""};
endfunction

## zero_save_state / zero_load_state: the communicator, and (load) the design to load into,
## by default the saved one.
function T = shard_rows (L, load)
  T = zero_step_rows (L);
  T = T(strcmp (T(:,1), "Comm"), :);
  if (load)
    T(end+1,:) = {"Variant", "variant", "enum", L.lists.zero_variant, [], ""};
    B = zero_step_rows (L);
    T(end+1,:) = B(strcmp (B(:,1), "BucketSize"), :);
  endif
endfunction

function T = zero_layout_rows (L)
  d = L.defaults.layout;
  m = L.limits;
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Stage",         "stage",           "int",     [1 3],              d.stage,            "1, 2 or 3"
    "AlignFactor",   "align_factor",    "int",     [1 m.zero_max_align], d.align_factor, ...
                             sprintf("a positive integer (at most %d)", m.zero_max_align)
    "Order",         "order",           "enum",    L.lists.zero_order, d.order,            ""
  };
endfunction

## zero_cost: the layout (defaults: the layout's own, when one is planned; zero_cost checks
## these), the designs, the byte widths and the machine profile.
function T = cost_rows (L)
  x = L.lists;
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Design",        "design",          "any",     [],                 "all",              ""
    "Stage",         "stage",           "any",     [],                 [],                 ""
    "AlignFactor",   "align_factor",    "any",     [],                 [],                 ""
    "Order",         "order",           "any",     [],                 [],                 ""
    "PadCount",      "pad_count",       "enum",    x.zero_pad_count,   "deepspeed",        ""
    "ElementBytes",  "elem_bytes",      "any",     [],                 2,                  ""
    "MomentumBytes", "momentum_bytes",  "any",     [],                 4,                  ""
    "MasterBytes",   "master_bytes",    "any",     [],                 4,                  ""
    "AdamBytes",     "adam_bytes",      "any",     [],                 8,                  ""
    "Symmetric",     "symmetric",       "logical", [],                 false,              ""
    "BucketSize",    "bucket_size",     "int",     [1 2^53],           [],  "a positive integer (at most 2^53)"
    "Profile",       "profile",         "any",     [],                 "h100",             ""
    "Experts",       "param_experts",   "any",     [],                 [],                 ""
    "SplitRows",     "param_split",     "any",     [],                 [],                 ""
  };
endfunction

## muon_comm: the reduction's allowed names depend on the kind (muon_comm checks them).
function T = comm_rows (L)
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Reduction",     "reduction",       "any",     [],                 "fixed",            ""
  };
endfunction

function T = collective_rows (L)
  x = L.lists;
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Op",            "op",              "enum",    x.reduce_op,        x.reduce_op{1},     ""
    "Root",          "root",            "int",     [0 Inf],            0,                  ""
    "Reset",         "reset",           "logical", [],                 false,              ""
  };
endfunction

## The fields of muon_mpirun's OPTS struct (NP also alone); 1024 bounds a typo that would
## start a runaway number of Octave processes.
function T = mpirun_rows (L)
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "np",            "np",              "int",     [1 1024],           REQUIRED,           ""
    "oversubscribe", "oversubscribe",   "logical", [],                 false,              ""
    "timeout",       "timeout",         "real",    "(0, Inf)",         3600,   "a positive number of seconds"
    "mpirun_args",   "mpirun_args",     "any",     [],                 "",                 ""
  };
endfunction

##---- custom kinds ---------------------------------------------------------------------------

## "sim" (any case) or a communicator handle from muon_comm.
function [c, ok] = comm_arg (fname, c)
  ok = true;
  if (ischar (c) && isrow (c) && strcmpi (c, "sim"))
    c = "sim";
  elseif (! (isstruct (c) && isscalar (c) && all (isfield (c, {"kind", "size", "local_ranks"}))))
    ok = false;
  endif
endfunction

## The marker of an option that must be given (option_compile's).
function r = REQUIRED ()
  r = option_compile ();
endfunction
