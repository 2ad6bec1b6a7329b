## -*- texinfo -*-
## @deftypefn  {} {@var{S} =} option_spec (@var{key})
## @deftypefnx {} {@var{keys} =} option_spec ()
## The option tables of muonlab's user functions, compiled for @code{parse_options}, which
## asks for each @var{key} once per session.  With no argument, the keys (a row cell): the
## user functions that take NAME, VALUE options, plus @qcode{"muon_optimizer_param"} (the
## cells of @code{muon_optimizer}'s @qcode{"ParamOptions"}) and @qcode{"loss_scaler"} (the
## fields of its @qcode{"LossScaler"} struct).
##
## @strong{The tables.}  Each group of options is one cell table below, one row per option,
## with six columns:
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
## @code{muon_ns} to @code{ns_rows}, of the update to @code{update_rows}, ...): every
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
  switch (key)
    case "muon_ns"                      # Trace: muon_ns's own (one page, on the CPU)
      S = option_compile ({ns_rows(L), norm_rows(L), {"Trace", "trace", "logical", [], false, ""}});
    case "muon_update"                  # muon_update, muon_optimizer's dry run, muon_step
      S = option_compile ({ns_rows(L), norm_rows(L), update_rows(L), block_rows(L), ...
                           family_rows(L)});
    case "muon_optimizer"
      S = option_compile ({optimizer_rows(L)}, "muon_update");
    case "muon_optimizer_param"
      S = option_compile ({}, "muon_update");
    case "loss_scaler"
      S = option_compile ({loss_scaler_rows(L)}, "", "label", "LOSSSCALER.%s",
                   "unknown", "LOSSSCALER field");
    case "zero_muon_step"
      S = option_compile ({zero_step_rows(L), update_rows(L), ns_rows(L)}, "",
                   "default", {"precision", "double"});
    case "zero_layout"
      S = option_compile ({zero_layout_rows(L)});
    case "zero_train_step"              # the loop's own, then zero_muon_step's (passed on)
      S = option_compile ({train_rows(L)}, "zero_muon_step");
    case "zero_save_state"
      S = option_compile ({shard_rows(L, false)});
    case "zero_load_state"
      S = option_compile ({shard_rows(L, true)});
    case "muon_comm"
      S = option_compile ({comm_rows(L)});
    case "muon_collective"
      S = option_compile ({collective_rows(L)});
    case "muon_mpirun"
      S = option_compile ({mpirun_rows(L)});
    case "ns_flops"
      S = option_compile ({ns_flops_rows(L)});
    case "zero_plot_layout"
      S = option_compile ({plot_rows(L)});
    case "muon_load_state"
      S = option_compile ({load_state_rows(L)});
    case "muon_model"
      S = option_compile ({model_rows(L)});
    case "zero_cost"                    # the NS options that set the work and the rate
      ns = ns_rows (L);
      ns = ns(ismember (ns(:,1), {"Method", "Steps", "Coefficients", "Restarts", ...
                                  "GramMinAspect", "Precision"}), :);
      S = option_compile ({cost_rows(L), display_rows("off"), ns}, "", "default",
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
      ns = ns_rows (L);
      ns = ns(! ismember (ns(:,1), {"Method", "Restarts"}), :);
      S = option_compile ({any_rows({"MaxRestarts", 2}), display_rows("off"), ns}, "",
                   "default", {"precision", "single"});
    case "qk_clip"
      S = option_compile ({qk_clip_rows(L)});
    case "ns_plot_spectrum"             # the schedules and precisions it compares, and
      ns = ns_rows (L);                 # every other muon_ns option (on the CPU)
      ns = ns(! ismember (ns(:,1), {"Coefficients", "Precision", "Device"}), :);
      S = option_compile ({any_rows({"Coefficients", {"keller", "polar_express"}; "Precision", {};
                              "Labels", {}}), plot_rows(L)(1,:), ns, norm_rows(L)});
    case "demo"                         # the demos in demo/ (demo/demo_options.m)
      S = option_compile ({display_rows("final")});
    case "muon_gpu"                     # where a device array lives and in what class
      S = option_compile ({gpu_rows(L)});
    otherwise
      error ("muonlab:internal", "option_spec: no option table for '%s'.", key);
  endswitch
  S.key = key;
endfunction

##---- the groups -----------------------------------------------------------------------------

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
    "Profile",       "profile",         "any",     [],                 "h100",             ""
    "Experts",       "param_experts",   "any",     [],                 [],                 ""
    "SplitRows",     "param_split",     "any",     [],                 [],                 ""
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

## muon_ns, and every function that runs it (muon_update, muon_optimizer, zero_muon_step).
function T = ns_rows (L)
  d = L.defaults.ns;
  x = L.lists;
  m = L.limits;
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Method",        "method",          "enum",    x.method,           d.method,           ""
    "Precision",     "precision",       "enum",    x.precision,        d.precision,        ""
    "ScheduleMode",  "schedule_mode",   "enum",    x.schedule_mode,    d.schedule_mode,    ""
    "Device",        "device",          "enum",    x.device,           d.device,           ""
    "Coefficients",  "coeffs",          "custom",  @coefficients,      [],   "a schedule name or a K x 3 real matrix"
    "Steps",         "steps",           "int",     [1 m.max_steps],    d.steps, ...
                     sprintf("a positive integer (at most %d)", m.max_steps)
    "Restarts",      "restarts",        "intvec",  [0 m.max_restarts], d.restarts,         ""
    "GramMinAspect", "gram_min_aspect", "real",    "[1, Inf)",         d.gram_min_aspect,  ""
    "Eps",           "eps",             "real",    "[0, Inf)",         d.eps,              ""
    "NormalizeFirst","normalize_first", "logical", [],                 d.normalize_first,  ""
    "Fused",         "fused",           "logical", [],                 d.fused,            ""
    "Batched",       "batched",         "logical", [],                 d.batched,          ""
    "SymBlocks",     "sym_blocks",      "int",     [0 m.max_sym_blocks], d.sym_blocks, ...
                     sprintf("an integer from 0 (automatic) to %d", m.max_sym_blocks)
    "Normalize",     "normalize",       "enum",    x.normalize,        d.normalize,        ""
    "Gemm",          "gemm",            "enum",    x.gemm,             d.gemm,             ""
    "Threads",       "threads",         "int",     [0 m.max_threads],  d.threads, ...
                     sprintf("a non-negative integer (0: automatic), at most %d", m.max_threads)
  };
  ## (Coefficients []: the core's default schedule; Steps 0: the schedule's default count)
endfunction

## The normalization conventions of the Newton-Schulz variants that the core's Frobenius
## step does not spell (muon_ns and muon_update; ns_run folds them into the first triple).
function T = norm_rows (L)
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "NormScale",     "norm_scale",      "real",    "(0, Inf)",         1,                  ""
    "EpsPlacement",  "eps_placement",   "enum",    {"add", "max"},     "add",              ""
  };
endfunction

## The Muon family (issue 27): which rule, which reference's conventions, and the rules'
## own settings ([]: the algorithm's own default, family_update says which).
function T = family_rows (L)
  [presets] = family_presets ();
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Algorithm",     "algorithm",       "enum",    {"muon", "normuon", "adamuon", "namo", ...
                                                    "polargrad", "scion", "dion", "dion2"}, "muon", ""
    "Preset",        "preset",          "enum",    presets,            "",                 ""
    "Beta2",         "beta2",           "real",    "[0, 1)",           0.95,               ""
    "NormAxis",      "norm_axis",       "enum",    {"row", "col", "shorter", "element"}, [], ""
    "SignBeforeNS",  "sign_before_ns",  "logical", [],                 false,              ""
    "VEps",          "v_eps",           "real",    "(0, Inf)",         1e-8,               ""
    "VEpsPlacement", "v_eps_placement", "enum",    {"add", "max"},     "add",              ""
    "RMSMatch",      "rms_match",       "custom",  @rms_match,         [], ...
                     "'keep', 'none' or a positive finite RMS"
    "RMSEps",        "rms_eps",         "real",    "(0, Inf)",         1e-8,               ""
    "RMSEpsPlacement","rms_eps_placement","enum",  {"add", "max"},     "add",              ""
    "Rank",          "rank",            "int",     [1 Inf],            [],                 ""
    "DionQ0",        "dion_q0",         "any",     [],                 [],                 ""
    "Fraction",      "fraction",        "real",    "(0, 1]",           0.25,               ""
    "EFDecay",       "ef_decay",        "real",    "[0, 1]",           0.95,               ""
    "DecayFirst",    "decay_first",     "logical", [],                 true,               ""
  };
endfunction

## The momentum and scale of a Muon update (muon_update, muon_optimizer, zero_muon_step).
function T = update_rows (L)
  d = L.defaults.update;
  x = L.lists;
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Beta",          "beta",            "real",    "[0, 1)",           d.beta,             ""
    "Nesterov",      "nesterov",        "logical", [],                 d.nesterov,         ""
    "ScaleFactor",   "scale_factor",    "real",    "(0, Inf)",         d.scale_factor,     ""
    "MomentumForm",  "form",            "enum",    x.momentum_form,    d.form,             ""
    "Scale",         "scale",           "enum",    x.scale_rule,       d.scale,            ""
  };
endfunction

## How muon_update cuts G into blocks (run_update checks them against G).
function T = block_rows (L)
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "Experts",       "experts",         "int",     [1 Inf],            1,                  ""
    "SplitRows",     "split_rows",      "any",     [],                 [],                 ""
    "ConvScale",     "conv_scale",      "enum",    {"flattened", "last_two"}, "flattened", ""
  };
endfunction

## muon_optimizer's own options; the muon_update ones pass through to its dry run.
function T = optimizer_rows (L)
  T = {
  ## Name               Field           Kind       Arg                 Default             Must be
    "LR",               "lr",           "real",    "[0, Inf)",         [],                 ""
    "MuonLR",           "muon_lr",      "real",    "[0, Inf)",         [],                 ""
    "AdamLR",           "adam_lr",      "real",    "[0, Inf)",         [],                 ""
    "WeightDecay",      "weight_decay", "real",    "[0, Inf)",         0,                  ""
    "MuonWeightDecay",  "muon_wd",      "real",    "[0, Inf)",         [],                 ""
    "AdamWeightDecay",  "adam_wd",      "real",    "[0, Inf)",         [],                 ""
    "AdamBetas",        "adam_betas",   "custom",  @betas,             [0.9 0.95],  "two numbers in [0, 1)"
    "AdamEps",          "adam_eps",     "real",    "[0, Inf)",         1e-10,              ""
    "ClipPolicy",       "clip_policy",  "enum",    {"none", "before_ns", "after_ns", "skip_muon"}, "none", ""
    "ClipNorm",         "clip_norm",    "real",    "(0, Inf)",         1,                  ""
    "AccumulationSteps","accum_steps",  "int",     [1 Inf],            1,                  ""
    "PerMicroBatchNS",  "per_micro_ns", "logical", [],                 false,              ""
    "PoisonMomentum",   "poison",       "logical", [],                 false,              ""
    "LossScaler",       "loss_scaler",  "any",     [],                 "none",             ""
    "Route",            "route",        "any",     [],                 [],                 ""
    "ParamOptions",     "param_options","any",     [],                 [],                 ""
    "QKClip",           "qk_clip",      "any",     [],                 {},                 ""
    "Resident",         "resident",     "any",     [],                 [],                 ""
  };
endfunction

## The fields of muon_optimizer's "LossScaler" struct.
function T = loss_scaler_rows (L)
  T = {
  ## Name            Field              Kind       Arg                 Default             Must be
    "InitScale",     "init_scale",      "real",    "(0, Inf)",         2^16,               ""
    "GrowthInterval","growth_interval", "custom",  @interval,          2000,   "a positive integer or Inf"
    "Backoff",       "backoff",         "real",    "(0, 1]",           0.5,                "in (0, 1]"
    "Growth",        "growth",          "real",    "[1, Inf)",         2,                  ""
    "MinScale",      "min_scale",       "real",    "(0, Inf)",         1,   "positive and at most InitScale"
  };
endfunction

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
    "Experts",       "param_experts",   "any",     [],                 [],                 ""
    "SplitRows",     "param_split",     "any",     [],                 [],                 ""
  };
endfunction

## zero_train_step: muon_optimizer's rows of the training loop (the same names, values and
## defaults), and where PR 5395's skip flag sits.
function T = train_rows (L)
  T = optimizer_rows (L);
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

##---- custom kinds ---------------------------------------------------------------------------

## A schedule name (the core's table, any case) or a K x 3 real matrix.
function [c, ok] = coefficients (fname, c)
  ok = true;
  if (ischar (c) && isrow (c))
    [names, C] = coeff_table ();
    k = find (strcmpi (c, names), 1);
    if (isempty (k))
      error ("muonlab:badArg", "%s", unknown_name (fname, "coefficient schedule", c, names));
    endif
    c = C{k};
  elseif (isnumeric (c) && isreal (c) && ismatrix (c) && columns (c) == 3 && rows (c) >= 1
          && all (isfinite (c(:))))
    c = double (c);
  else
    ok = false;
  endif
endfunction

## RMSMatch: "none", "keep" (any case) or a positive finite target RMS.
function [v, ok] = rms_match (fname, v)
  ok = true;
  if (ischar (v) && isrow (v) && any (strcmpi (v, {"none", "keep"})))
    v = lower (v);
  elseif (isnumeric (v) && isreal (v) && isscalar (v) && isfinite (v) && v > 0)
    v = double (v);
  elseif (! (isnumeric (v) && isempty (v)))
    ok = false;
  endif
endfunction

function [b, ok] = betas (fname, b)
  ok = isnumeric (b) && isreal (b) && numel (b) == 2 && all (b >= 0 & b < 1);
  if (ok)
    b = double (b(:).');
  endif
endfunction

function [g, ok] = interval (fname, g)
  ok = (isnumeric (g) && isreal (g) && isscalar (g) && g >= 1
        && (isinf (g) || g == fix (g)));
  g = double (g);
endfunction

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
