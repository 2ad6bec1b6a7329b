## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{T} =} option_groups_muon (@var{group}, @var{L})
## The option groups of the Muon step on one process, for @code{option_spec}: @var{group}
## @qcode{"ns"} (@code{muon_ns}, and every function that runs it), @qcode{"norm"} (the
## normalization conventions of the Newton-Schulz variants), @qcode{"update"} (the momentum
## and scale of a Muon update), @qcode{"block"} (how @code{muon_update} cuts G into
## blocks), @qcode{"family"} (the Muon family's rules), @qcode{"optimizer"}
## (@code{muon_optimizer}'s own options) or @qcode{"loss_scaler"} (the fields of its
## @qcode{"LossScaler"} struct).  @var{T} is the group's table, one row per option, in
## @code{option_spec}'s six columns; @var{L} is @code{core_lists ()}, whose lists, defaults
## and limits the rows use.  The custom kinds of these rows (Coefficients, RMSMatch,
## AdamBetas, GrowthInterval) are here too.
## @end deftypefn

function T = option_groups_muon (group, L)
  groups = struct ("ns", @ns_rows, "norm", @norm_rows, "update", @update_rows, ...
                   "block", @block_rows, "family", @family_rows, ...
                   "optimizer", @optimizer_rows, "loss_scaler", @loss_scaler_rows);
  if (! isfield (groups, group))
    error ("muonlab:internal", "option_groups_muon: no option group '%s'.", group);
  endif
  f = groups.(group);
  T = f (L);
endfunction

##---- the groups -----------------------------------------------------------------------------

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
    "NormAxis",      "norm_axis",       "enum",    {"row", "col", "shorter", "element", "conv_kernel"}, [], ""
    "SignBeforeNS",  "sign_before_ns",  "logical", [],                 false,              ""
    "VEps",          "v_eps",           "real",    "(0, Inf)",         1e-8,               ""
    "VEpsPlacement", "v_eps_placement", "enum",    {"add", "max"},     "add",              ""
    "RMSMatch",      "rms_match",       "custom",  @rms_match,         [], ...
                     "'keep', 'none' or a positive finite RMS"
    "RMSShape",      "rms_shape",       "enum",    {"matrix", "min_max"}, "matrix",        ""
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
    "MomentumArith", "arith",           "enum",    x.momentum_arith,   d.arith,            ""
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
    "Hysteresis",    "hysteresis",      "int",     [1 Inf],            1,                  ""
    "ConsecutiveHysteresis", "consecutive", "logical", [],             false,              ""
    "GrowthRule",    "growth_rule",     "enum",    {"interval", "deepspeed"}, "interval",  ""
  };
endfunction

##---- custom kinds ---------------------------------------------------------------------------

## A schedule name (the core's table, any case) or a K x 3 real matrix, K at most
## max_steps: the gateway's limit, checked here before a caller expands or maps the
## schedule (3e5 rows took 90 s in muon_ns before the gateway refused them).
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
    lim = core_lists ().limits.max_steps;
    if (rows (c) > lim)
      error ("muonlab:badShape",
             "%s: COEFFICIENTS must be a K x 3 matrix with K from 1 to %d.", fname, lim);
    endif
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
