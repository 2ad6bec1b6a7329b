## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{S} =} option_spec (@var{key})
## @deftypefnx {} {@var{keys} =} option_spec ()
## The option tables of muonlab's user functions, compiled for @code{parse_options}, which
## asks for each @var{key} once per session.  With no argument, the keys (a row cell): the
## user functions that take NAME, VALUE options, plus @qcode{"muon_optimizer_param"} (the
## cells of @code{muon_optimizer}'s @qcode{"ParamOptions"}) and @qcode{"loss_scaler"} (the
## fields of its @qcode{"LossScaler"} struct).
##
## @strong{The tables.}  Each group of options is one cell table, one row per option, with
## six columns; the groups of the Muon step on one process (Newton-Schulz, update, family,
## optimizer, loss scaler) are in @code{option_groups_muon}, those of ZeRO and the
## communicators in @code{option_groups_zero}, the other functions' below:
## @table @asis
## @item Name
## the option as the user writes it (any case) and as the help text's option table lists it.
## @item Field
## the field of the parsed struct that receives the value: for the options the core checks,
## the field the gateway reads (mex/muon_mex.h, @code{MUON_MEX_*_FIELDS}).
## @item Kind, Arg
## how the value is checked and converted:
## @table @code
## @item enum
## a name of the cell Arg, any case; the canonical spelling is stored.  Core lists come from
## @code{core_lists}, never typed here.
## @item int
## an integer scalar in [Arg(1), Arg(2)] (Inf allowed as bound), stored as double.
## @item real
## a finite real scalar in the interval Arg, written as text: @qcode{"[0, 1)"},
## @qcode{"(0, Inf)"}.
## @item logical
## true or false (or 1 / 0), stored as logical.
## @item string
## a character row.
## @item intvec
## a vector (or []) of integers >= Arg(1), at most Arg(2) of them, stored as a row.
## @item custom
## Arg is a function handle @code{[v, ok] = f (fname, v)}: it converts v, raises its own
## special errors, and ok false gives the row's standard error.
## @item any
## stored unchecked: the function checks it against its other arguments.
## @end table
## For enum, int, real, logical and string an empty value means the default.
## @item Default
## the value when the option is not given; for options the core checks, the core's own
## default (@code{core_lists ().defaults}).  @code{REQUIRED} marks an option that must be
## given.
## @item Must be
## the end of the error message, @qcode{"@var{fname}: NAME must be <this>."}; @qcode{""}
## words it from the kind and its limits.
## @end table
##
## @strong{How to add an option.}  Add its row to the group it belongs to (an option of
## @code{muon_ns} to @code{ns_rows}, of the update to @code{update_rows}, both in
## @code{option_groups_muon}, ...): every
## function whose table includes that group then accepts it (so a Newton-Schulz option
## works in @code{muon_ns}, @code{muon_update}, @code{muon_optimizer} and
## @code{zero_muon_step} at once).  If the core reads it, add the field to the gateway's
## @code{MUON_MEX_*_FIELDS} list (mex/muon_mex.h) so that the default comes from the core.
## Then document it in the option table (@code{@@table} / @code{@@item "Name"}) of the help
## text of each function that takes it: tests/octave/test_options.m calls every documented
## option and checks that every accepted option is documented.  A function that cannot
## support an option of a group yet must leave the option out of its help (and, if
## needed, reject it itself).
## @end deftypefn

function S = option_spec (key)
  keys = {"muon_ns", "muon_update", "muon_optimizer", "muon_optimizer_param", ...
          "loss_scaler", "zero_muon_step", "zero_layout", "muon_comm", "muon_collective", ...
          "muon_mpirun", "ns_flops", "zero_plot_layout", "muon_load_state", "muon_model", ...
          "zero_cost", "muon_export", "ns_design_coeffs", "ns_restart_autotune", ...
          "ns_restart_search", "zero_save_state", "zero_load_state", "zero_train_step", ...
          "qk_clip", "ns_plot_spectrum", "demo", "muon_gpu"};
  if (nargin == 0)
    S = keys;
    return;
  endif
  L = core_lists ();
  mu = @(group) option_groups_muon (group, L);          # the Muon step's groups
  zr = @(group, varargin) option_groups_zero (group, L, varargin{:});   # ZeRO's, comms
  switch (key)
    case "muon_ns"                      # Trace: muon_ns's own (one page, on the CPU)
      S = option_compile ({mu("ns"), mu("norm"), {"Trace", "trace", "logical", [], false, ""}});
    case "muon_update"                  # muon_update, muon_optimizer's dry run, muon_step
      S = option_compile ({mu("ns"), mu("norm"), mu("update"), mu("block"), mu("family")});
    case "muon_optimizer"
      S = option_compile ({mu("optimizer")}, "muon_update");
    case "muon_optimizer_param"
      S = option_compile ({}, "muon_update");
    case "loss_scaler"
      S = option_compile ({mu("loss_scaler")}, "", "label", "LOSSSCALER.%s",
                   "unknown", "LOSSSCALER field");
    case "zero_muon_step"
      S = option_compile ({zr("step"), mu("update"), mu("ns")}, "",
                   "default", {"precision", "double"});
    case "zero_layout"
      S = option_compile ({zr("layout")});
    case "zero_train_step"              # the loop's own, then zero_muon_step's (passed on)
      S = option_compile ({zr("train")}, "zero_muon_step");
    case "zero_save_state"
      S = option_compile ({zr("shard", false)});
    case "zero_load_state"
      S = option_compile ({zr("shard", true)});
    case "muon_comm"
      S = option_compile ({zr("comm")});
    case "muon_collective"
      S = option_compile ({zr("collective")});
    case "muon_mpirun"
      S = option_compile ({zr("mpirun")});
    case "ns_flops"
      S = option_compile ({ns_flops_rows(L)});
    case "zero_plot_layout"
      S = option_compile ({plot_rows(L)});
    case "muon_load_state"
      S = option_compile ({load_state_rows(L)});
    case "muon_model"
      S = option_compile ({model_rows(L)});
    case "zero_cost"                    # the NS options that set the work and the rate
      ns = mu ("ns");
      ns = ns(ismember (ns(:,1), {"Method", "Steps", "Coefficients", "Restarts", ...
                                  "GramMinAspect", "Precision"}), :);
      S = option_compile ({zr("cost"), display_rows("off"), ns}, "", "default",
                          {"precision", "bf16"});
    case "muon_export"
      S = option_compile ({export_rows(L)});
    case "ns_design_coeffs"             # ns_design_coeffs checks its values itself
      S = option_compile ({any_rows({"Lower", 1e-3; "Cushion", 0; "Safety", 1;
                              "SafetyMode", "construct"; "SafetyLast", false}),
                    display_rows("off")});
    case "ns_restart_autotune"          # Steps, ScheduleMode: [] = muon_ns's defaults
      S = option_compile ({any_rows({"MaxRestarts", 2; "Grid", logspace(0, -10, 1e4);
                              "Shift", -4e-4; "Steps", []; "ScheduleMode", []}),
                    display_rows("off")});
    case "ns_restart_search"            # every muon_ns option but those it searches
      ns = mu ("ns");
      ns = ns(! ismember (ns(:,1), {"Method", "Restarts"}), :);
      S = option_compile ({any_rows({"MaxRestarts", 2}), display_rows("off"), ns}, "",
                   "default", {"precision", "single"});
    case "qk_clip"
      S = option_compile ({qk_clip_rows(L)});
    case "ns_plot_spectrum"             # the schedules and precisions it compares, and
      ns = mu ("ns");                   # every other muon_ns option (on the CPU)
      ns = ns(! ismember (ns(:,1), {"Coefficients", "Precision", "Device"}), :);
      S = option_compile ({any_rows({"Coefficients", {"keller", "polar_express"}; "Precision", {};
                              "Labels", {}}), plot_rows(L)(1,:), ns, mu("norm")});
    case "demo"                         # the demos in demo/ (demo/demo_options.m)
      S = option_compile ({display_rows("final")});
    case "muon_gpu"                     # where a device array lives and in what class
      S = option_compile ({gpu_rows(L)});
    otherwise
      error ("muonlab:internal", "option_spec: no option table for '%s'.", key);
  endswitch
  S.key = key;
endfunction

##---- the groups of the other functions ------------------------------------------------------

## muon_gpu: the device, the storage class ("" = the input's class, or single for data
## made on the device) and the seed of "randn".
function T = gpu_rows (L)
  x = L.lists;
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Device",        "device",          "enum",    x.device,           "cuda",             ""
    "Class",         "class",           "enum",    x.precision,        "",                 ""
    "Seed",          "seed",            "int",     [0, 2^53],          0,                  ""
  };
endfunction

## muon_model: how the shapes are grouped.
function T = model_rows (L)
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "MTP",           "mtp",             "logical", [],                 true,               ""
    "Experts",       "experts",         "enum",    {"separate", "fused"}, "separate",      ""
    "Fuse",          "fuse",            "enum",    {"none", "qkv", "gate_up", "all"}, "none", ""
  };
endfunction

## qk_clip: the attention layout and the clip (Megatron's defaults: tau 100, alpha 0.5); []
## where qk_clip derives the value from the shapes or the other options.
function T = qk_clip_rows (L)
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Layout",        "layout",          "enum",    {"gqa", "mla"},     "gqa",              ""
    "Heads",         "heads",           "int",     [1 Inf],            [],                 ""
    "QueryGroups",   "querygroups",     "int",     [1 Inf],            [],                 ""
    "Threshold",     "threshold",       "real",    "(0, Inf)",         100,                ""
    "Alpha",         "alpha",           "real",    "[0, 1]",           0.5,                ""
    "QKHeadDim",     "qkheaddim",       "int",     [1 Inf],            [],                 ""
    "RopeHeadDim",   "ropeheaddim",     "int",     [0 Inf],            [],                 ""
    "VHeadDim",      "vheaddim",        "int",     [1 Inf],            [],                 ""
  };
endfunction

## Progress output, optimset's convention: "off" prints nothing, "final" a summary at the
## end, "iter" also one line per step or configuration with the elapsed time.
function T = display_rows (dflt)
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Display",       "display",         "enum",    {"off", "final", "iter"}, dflt,         ""
  };
endfunction

## Options a function checks itself: NAME, DEFAULT pairs (rows of a cell) as kind "any",
## each stored in the field lower (NAME).
function T = any_rows (nd)
  T = cell (rows (nd), 6);
  for i = 1:rows (nd)
    T(i,:) = {nd{i,1}, lower(nd{i,1}), "any", [], nd{i,2}, ""};
  endfor
endfunction

## muon_export: which table of a result.
function T = export_rows (L)
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Table",         "table",           "any",     [],                 "",                 ""
  };
endfunction

function T = ns_flops_rows (L)
  m = L.limits;
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Steps",         "steps",           "int",     [1 m.max_steps],    5, ...
                     sprintf("a positive integer (at most %d)", m.max_steps)
    "Restarts",      "restarts",        "intvec",  [0 Inf],            2,                  ""
    "Symmetric",     "symmetric",       "logical", [],                 false,              ""
    "Method",        "method",          "enum",    L.lists.method,     L.defaults.ns.method, ""
  };
endfunction

function T = plot_rows (L)
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "File",          "file",            "string",  [],                 "",                 "a file name"
    "Names",         "names",           "any",     [],                 {},                 ""
  };
endfunction

function T = load_state_rows (L)
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "StatePrecision","state_precision", "enum",    [{"keep"}, L.lists.precision], "keep", ""
    "Device",        "device",          "enum",    {"host", "cpu", "cuda"}, "host",        ""
  };
endfunction
