## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{msg} =} opt_check_state (@var{opt}, @var{mode})
## Check the optimizer state @var{opt} of @code{muon_optimizer} / @code{muon_step}; return
## "" when it is well formed, else what is wrong, as @qcode{"OPT.muon.W.momentum must
## not contain NaN or Inf"} (no final period), for the caller to raise as
## @code{muonlab:badState}.
##
## @var{mode} @qcode{"step"} (@code{muon_step}, every call; cheap) checks that every field
## of an optimizer state is there, the scalars a user may edit between steps (learning
## rates, weight decays and @code{adam_eps} non-negative and finite, @code{adam_betas} in
## [0, 1)), the counters (@code{micro} below @code{accum_steps}; @code{overflow_pending}
## true only inside a PerMicroBatchNS window, @code{micro} > 0, as @code{muon_step} sets it),
## and each parameter's state: @code{OPT.muon.(name)} is [] or a @code{muon_update} state
## (momentum a real double or single array of the parameter's size, finite unless
## @code{OPT.poison}, of the parameter's class; step a non-negative integer; form
## @qcode{"ema"} or @qcode{"sgd"};
## a Muon-family buffer real, finite unless @code{OPT.poison}, and not negative where it
## is a second moment: NorMuon's and AdaMuon's V, NAMO's v; in full mode also of the
## parameter's algorithm, size and class, as @code{family_state} defines them and
## @code{muon_update} checks them at each step);
## @code{OPT.adam.(name)} has finite @code{m} and @code{v} of the parameter's size and
## class with
## @code{v >= 0} and an integer step; @code{OPT.accum.(name)} is [] or an array of the
## parameter's size (NaN allowed: an overflowing micro-batch waits there for its skip).
## A momentum or moment may be a device array (@code{muon_gpuarray}, a state kept on a
## device): of the parameter's size and storage class, its values unread.
##
## @var{mode} @qcode{"train"} (@code{zero_save_state}, @code{zero_load_state}: the
## training part of a @code{zero_train_step} checkpoint) checks a struct with the fields
## @code{scaler} (the loss scaler, as @code{OPT.scaler}), @code{ref} (the one-process
## reference momenta, each [] or a @code{muon_update} state of the double matrix
## @code{shapes(p,:)}, as @code{OPT.muon.(name)}), @code{shapes}, @code{form} (the
## momentum form @code{ref} must have) and @code{poison}; its messages name
## @code{STATE.scaler} and @code{STATE.ref@{p@}}.
##
## @var{mode} @qcode{"full"} (@code{muon_save_state}, @code{muon_load_state}) checks
## everything: the set of fields, names / shapes / classes, routing, the
## @code{muon_update} options of each Muon parameter (names from @code{run_update}'s
## list, values parsed by the same code as @code{muon_update}), learning rates, AdamW and
## clipping settings, the loss scaler, the counters, then the per-parameter states as
## above and each momentum's form against its parameter's @qcode{"MomentumForm"}.
##
## The parts: the state's fields, parameters, routing, options, settings and loss scaler
## here; the arrays (each parameter's state, a checkpoint's reference momenta) in
## @code{opt_check_buffers}; a struct's exact set of fields in @code{opt_check_fields}, a
## count in @code{opt_check_count}.  Each check raises what it finds with
## @code{opt_check_fail} (@code{muonlab:stateCheck}), caught here.
## @end deftypefn

function msg = opt_check_state (opt, mode)
  full = strcmp (mode, "full");
  msg = "";
  try
    if (strcmp (mode, "train"))
      check_train (opt);
      return;
    endif
    if (! (isstruct (opt) && isscalar (opt)))
      opt_check_fail ("OPT must be a scalar struct");
    endif
    if (full)
      check_top (opt);
    else                                # every field muon_step reads is there
      f = top_fields ();
      k = find (! isfield (opt, f), 1);
      if (! isempty (k))
        opt_check_fail ("OPT lacks the field '%s'", f{k});
      endif
      check_settings (opt);
    endif
    check_params (opt, mode);
  catch err
    if (strcmp (err.identifier, "muonlab:stateCheck"))
      msg = err.message;
    else
      msg = sprintf ("OPT is malformed (%s)", regexprep (err.message, '\.$', ""));
    endif
  end_try_catch
endfunction

## the settings and counters a user may edit between steps (both modes: a negative
## clip_norm or loss scale would negate the gradients without a word)
function check_settings (opt)
  each_ (opt, "OPT", {"muon_lr", "adam_lr", "muon_wd", "adam_wd", "adam_eps"},
         @(x) real_scalar (x) && isfinite (x) && x >= 0, "a non-negative finite scalar");
  b = opt.adam_betas;
  if (! (isfloat (b) && isreal (b) && isequal (size (b), [1 2]) && all (b >= 0 & b < 1)))
    opt_check_fail ("OPT.adam_betas must be two numbers in [0, 1)");
  endif
  if (! (ischar (opt.clip_policy)
         && any (strcmp (opt.clip_policy, {"none", "before_ns", "after_ns", "skip_muon"}))))
    opt_check_fail ("OPT.clip_policy must be 'none', 'before_ns', 'after_ns' or 'skip_muon'");
  endif
  if (! (real_scalar (opt.clip_norm) && isfinite (opt.clip_norm) && opt.clip_norm > 0))
    opt_check_fail ("OPT.clip_norm must be a positive finite scalar");
  endif
  k = opt.accum_steps;
  if (! opt_check_count (k) || k < 1)
    opt_check_fail ("OPT.accum_steps must be a positive integer");
  endif
  each_ (opt, "OPT", {"per_micro_ns", "poison", "overflow_pending"}, @logical_scalar,
         "true or false");
  if (opt.per_micro_ns && strcmp (opt.clip_policy, "before_ns"))
    opt_check_fail ("OPT.per_micro_ns cannot be combined with clip_policy 'before_ns'");
  endif

  check_scaler (opt.scaler, "OPT.scaler");

  ## counters
  if (! (opt_check_count (opt.micro) && opt.micro < k))
    opt_check_fail ("OPT.micro must be an integer in [0, accum_steps)");
  endif
  ## a pending skip is only ever held inside a PerMicroBatchNS window (muon_step sets it
  ## when a micro-batch's own update overflows, and clears it where the window ends)
  if (opt.overflow_pending && ! opt.per_micro_ns)
    opt_check_fail ("OPT.overflow_pending must be false without per_micro_ns (only a PerMicroBatchNS window holds a pending skip)");
  endif
  if (opt.overflow_pending && opt.micro == 0)
    opt_check_fail ("OPT.overflow_pending must be false between windows (OPT.micro is 0)");
  endif
  each_ (opt, "OPT", {"step", "skipped", "ns_calls"}, @opt_check_count,
         "a non-negative integer");
endfunction

## the loss scaler S (opt_loss_scaler's struct, as opt_scaler_update advances it) at WHERE
function check_scaler (s, where)
  opt_check_fields (s, where, {"enabled", "scale", "growth_interval", "backoff", ...
                               "growth", "min_scale", "good_steps", "overflows", ...
                               "hysteresis", "consecutive", "growth_rule", "hysteresis_left"});
  each_ (s, where, {"enabled"}, @logical_scalar, "true or false");
  if (! (real_scalar (s.min_scale) && isfinite (s.min_scale) && s.min_scale > 0))
    opt_check_fail ("%s.min_scale must be a positive finite scalar", where);
  endif
  if (! (real_scalar (s.scale) && isfinite (s.scale) && s.scale >= s.min_scale
         && (s.enabled || s.scale == 1)))
    opt_check_fail ("%s.scale must be finite, at least min_scale, and 1 without a scaler",
                    where);
  endif
  gi = s.growth_interval;
  if (! (real_scalar (gi) && gi >= 1 && (isinf (gi) || gi == fix (gi))))
    opt_check_fail ("%s.growth_interval must be a positive integer or Inf", where);
  endif
  if (! (real_scalar (s.backoff) && s.backoff > 0 && s.backoff <= 1))
    opt_check_fail ("%s.backoff must be in (0, 1]", where);
  endif
  if (! (real_scalar (s.growth) && isfinite (s.growth) && s.growth >= 1))
    opt_check_fail ("%s.growth must be a finite scalar of at least 1", where);
  endif
  each_ (s, where, {"good_steps", "overflows"}, @opt_check_count, "a non-negative integer");
  each_ (s, where, {"consecutive"}, @logical_scalar, "true or false");
  if (! (opt_check_count (s.hysteresis) && s.hysteresis >= 1))
    opt_check_fail ("%s.hysteresis must be a positive integer", where);
  endif
  if (! (opt_check_count (s.hysteresis_left) && s.hysteresis_left >= 1
         && s.hysteresis_left <= s.hysteresis))
    opt_check_fail ("%s.hysteresis_left must be an integer from 1 to hysteresis", where);
  endif
  if (! (ischar (s.growth_rule) && any (strcmp (s.growth_rule, {"interval", "deepspeed"}))))
    opt_check_fail ("%s.growth_rule must be 'interval' or 'deepspeed'", where);
  endif
endfunction

## mode "train": the training part T of a zero_train_step checkpoint (zero_train_ckpt): its
## loss scaler T.scaler, and its one-process reference momenta T.ref (opt_check_buffers);
## messages name STATE.<field>
function check_train (t)
  check_scaler (t.scaler, "STATE.scaler");
  opt_check_buffers (t, "train");
endfunction

## the parameters (every mode: the rest of the state is indexed by them)
function check_names (opt)
  names = opt.names;
  if (! (iscellstr (names) && iscolumn (names) && ! isempty (names)
         && all (cellfun (@(n) isrow (n) && isvarname (n), names))
         && numel (unique (names)) == numel (names)))
    opt_check_fail ("OPT.names must be a column cell of distinct parameter names");
  endif
  np = numel (names);
  if (! (iscell (opt.shapes) && isequal (size (opt.shapes), [np 1])
         && all (cellfun (@size_vector, opt.shapes))))
    opt_check_fail ("OPT.shapes must hold one size vector per parameter");
  endif
  if (! (iscellstr (opt.classes) && isequal (size (opt.classes), [np 1])
         && all (ismember (opt.classes, {"double", "single"}))))
    opt_check_fail ("OPT.classes must be 'double' or 'single' per parameter");
  endif
endfunction

## the fields of an optimizer state (muon_optimizer's)
function f = top_fields ()
  f = {"type", "version", "names", "shapes", "classes", "muon_lr", "adam_lr", ...
       "muon_wd", "adam_wd", "adam_betas", "adam_eps", "clip_policy", "clip_norm", ...
       "accum_steps", "per_micro_ns", "poison", "scaler", "route", "update_args", ...
       "muon", "adam", "accum", "micro", "overflow_pending", "step", "skipped", ...
       "ns_calls", "qk_clip", "resident"};
endfunction

function check_top (opt)
  opt_check_fields (opt, "OPT", top_fields ());
  if (! (ischar (opt.type) && strcmp (opt.type, "muonlab.optimizer")))
    opt_check_fail ("OPT.type must be 'muonlab.optimizer'");
  endif
  if (! isequal (opt.version, 1))
    opt_check_fail ("OPT.version must be 1");
  endif
  if (! (ischar (opt.resident) && any (strcmp (opt.resident, {"", "cpu", "cuda"}))))
    opt_check_fail ("OPT.resident must be '', 'cpu' or 'cuda'");
  endif

  check_names (opt);
  names = opt.names;
  np = numel (names);

  ## routing and the muon_update options of each Muon parameter
  opt_check_fields (opt.route, "OPT.route", names);
  for i = 1:np
    n = names{i};
    r = opt.route.(n);
    if (! (ischar (r) && any (strcmp (r, {"muon", "adamw"}))))
      opt_check_fail ("OPT.route.%s must be 'muon' or 'adamw'", n);
    endif
    if (strcmp (r, "muon") && any (opt.shapes{i} == 0))
      opt_check_fail ("OPT.route.%s is 'muon' but the parameter is empty", n);
    endif
  endfor
  q = opt.qk_clip;                        # muon_optimizer's QKClip pairs
  if (! (isstruct (q) && iscolumn (q) && all (isfield (q, {"q", "k", "heads", "args"}))
         && all (ismember ([{q.q}, {q.k}], names))))
    opt_check_fail ("OPT.qk_clip must be muon_optimizer's QKClip pairs, naming parameters");
  endif
  ismuon = cellfun (@(n) strcmp (opt.route.(n), "muon"), names);
  opt_check_fields (opt.update_args, "OPT.update_args", names(ismuon));
  known = option_spec ("muon_update").names;   # every option muon_update takes
  for i = find (ismuon(:).')
    n = names{i};
    a = opt.update_args.(n);
    where = sprintf ("OPT.update_args.%s", n);
    if (! (iscell (a) && (isempty (a) || isrow (a)) && mod (numel (a), 2) == 0))
      opt_check_fail ("%s must be a row cell of NAME, VALUE pairs", where);
    endif
    ## every name one that muon_update takes; the values of its own options (Beta, ...,
    ## the NS options) as it checks them; Experts, SplitRows and ConvScale depend on the
    ## gradient and are checked by muon_update at the next step
    for j = 1:2:numel (a)
      if (! (ischar (a{j}) && any (strcmpi (a{j}, known))))
        opt_check_fail ("%s: unknown option '%s'", where, disp_name (a{j}));
      endif
    endfor
    try
      check_momentum_arith (where, parse_options (where, "muon_update", a, "precision",
                                                  opt.classes{i}));
    catch err
      opt_check_fail ("%s", regexprep (err.message, '\.$', ""));
    end_try_catch
  endfor

  ## settings
  check_settings (opt);

  opt_check_fields (opt.muon, "OPT.muon", names(ismuon));
  opt_check_fields (opt.adam, "OPT.adam", names(! ismuon));
  opt_check_fields (opt.accum, "OPT.accum", names);
endfunction

## the containers of the parameters' states (every mode: the rest of the state is indexed
## by the parameters), then each parameter's state (opt_check_buffers)
function check_params (opt, mode)
  for f = {"names", "shapes", "route", "muon", "adam", "accum", "poison"}
    if (! isfield (opt, f{1}))
      opt_check_fail ("OPT lacks the field '%s'", f{1});
    endif
  endfor
  for f = {"muon", "adam", "accum"}
    if (! (isstruct (opt.(f{1})) && isscalar (opt.(f{1}))))
      opt_check_fail ("OPT.%s must be a scalar struct", f{1});
    endif
  endfor
  if (! strcmp (mode, "full"))          # (the full check has done it)
    check_names (opt);
  endif
  opt_check_buffers (opt, mode);
endfunction

## fails unless test (s.(name)) holds for each of names: "<where>.<name> must be <what>"
function each_ (s, where, names, test, what)
  for f = names
    if (! test (s.(f{1})))
      opt_check_fail ("%s.%s must be %s", where, f{1}, what);
    endif
  endfor
endfunction

function tf = logical_scalar (x)
  tf = islogical (x) && isscalar (x);
endfunction

function tf = size_vector (s)
  tf = (isa (s, "double") && isrow (s) && numel (s) >= 2
        && all (s >= 1 & s == fix (s) & isfinite (s)));
endfunction

function tf = real_scalar (x)
  tf = isfloat (x) && isreal (x) && isscalar (x) && ! isnan (x);
endfunction

function s = disp_name (x)
  if (ischar (x) && isrow (x))
    s = x;
  else
    s = "?";
  endif
endfunction
