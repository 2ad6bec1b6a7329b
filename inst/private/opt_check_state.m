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
      fail_ ("OPT must be a scalar struct");
    endif
    if (full)
      check_top (opt);
    else                                # every field muon_step reads is there
      f = top_fields ();
      k = find (! isfield (opt, f), 1);
      if (! isempty (k))
        fail_ ("OPT lacks the field '%s'", f{k});
      endif
      check_settings (opt);
    endif
    check_params (opt, full);
  catch err
    if (strcmp (err.identifier, "muonlab:stateCheck"))
      msg = err.message;
    else
      msg = sprintf ("OPT is malformed (%s)", regexprep (err.message, '\.$', ""));
    endif
  end_try_catch
endfunction

function fail_ (fmt, varargin)
  error ("muonlab:stateCheck", fmt, varargin{:});
endfunction

## the settings and counters a user may edit between steps (both modes: a negative
## clip_norm or loss scale would negate the gradients without a word)
function check_settings (opt)
  each_ (opt, "OPT", {"muon_lr", "adam_lr", "muon_wd", "adam_wd", "adam_eps"},
         @(x) real_scalar (x) && isfinite (x) && x >= 0, "a non-negative finite scalar");
  b = opt.adam_betas;
  if (! (isfloat (b) && isreal (b) && isequal (size (b), [1 2]) && all (b >= 0 & b < 1)))
    fail_ ("OPT.adam_betas must be two numbers in [0, 1)");
  endif
  if (! (ischar (opt.clip_policy)
         && any (strcmp (opt.clip_policy, {"none", "before_ns", "after_ns", "skip_muon"}))))
    fail_ ("OPT.clip_policy must be 'none', 'before_ns', 'after_ns' or 'skip_muon'");
  endif
  if (! (real_scalar (opt.clip_norm) && isfinite (opt.clip_norm) && opt.clip_norm > 0))
    fail_ ("OPT.clip_norm must be a positive finite scalar");
  endif
  k = opt.accum_steps;
  if (! count_ (k) || k < 1)
    fail_ ("OPT.accum_steps must be a positive integer");
  endif
  each_ (opt, "OPT", {"per_micro_ns", "poison", "overflow_pending"}, @logical_scalar,
         "true or false");
  if (opt.per_micro_ns && strcmp (opt.clip_policy, "before_ns"))
    fail_ ("OPT.per_micro_ns cannot be combined with clip_policy 'before_ns'");
  endif

  check_scaler (opt.scaler, "OPT.scaler");

  ## counters
  if (! (count_ (opt.micro) && opt.micro < k))
    fail_ ("OPT.micro must be an integer in [0, accum_steps)");
  endif
  ## a pending skip is only ever held inside a PerMicroBatchNS window (muon_step sets it
  ## when a micro-batch's own update overflows, and clears it where the window ends)
  if (opt.overflow_pending && ! opt.per_micro_ns)
    fail_ ("OPT.overflow_pending must be false without per_micro_ns (only a PerMicroBatchNS window holds a pending skip)");
  endif
  if (opt.overflow_pending && opt.micro == 0)
    fail_ ("OPT.overflow_pending must be false between windows (OPT.micro is 0)");
  endif
  each_ (opt, "OPT", {"step", "skipped", "ns_calls"}, @count_, "a non-negative integer");
endfunction

## the loss scaler S (opt_loss_scaler's struct, as opt_scaler_update advances it) at WHERE
function check_scaler (s, where)
  field_set (s, where, {"enabled", "scale", "growth_interval", "backoff", "growth", ...
                        "min_scale", "good_steps", "overflows"});
  each_ (s, where, {"enabled"}, @logical_scalar, "true or false");
  if (! (real_scalar (s.min_scale) && isfinite (s.min_scale) && s.min_scale > 0))
    fail_ ("%s.min_scale must be a positive finite scalar", where);
  endif
  if (! (real_scalar (s.scale) && isfinite (s.scale) && s.scale >= s.min_scale
         && (s.enabled || s.scale == 1)))
    fail_ ("%s.scale must be finite, at least min_scale, and 1 without a scaler", where);
  endif
  gi = s.growth_interval;
  if (! (real_scalar (gi) && gi >= 1 && (isinf (gi) || gi == fix (gi))))
    fail_ ("%s.growth_interval must be a positive integer or Inf", where);
  endif
  if (! (real_scalar (s.backoff) && s.backoff > 0 && s.backoff <= 1))
    fail_ ("%s.backoff must be in (0, 1]", where);
  endif
  if (! (real_scalar (s.growth) && isfinite (s.growth) && s.growth >= 1))
    fail_ ("%s.growth must be a finite scalar of at least 1", where);
  endif
  each_ (s, where, {"good_steps", "overflows"}, @count_, "a non-negative integer");
endfunction

## mode "train": the training part T of a zero_train_step checkpoint (zero_train_ckpt): its
## loss scaler T.scaler, and its one-process reference momenta T.ref (1 x P cell, each []
## or a muon_update state of the double matrix T.shapes(p,:) in the form T.form, finite
## unless T.poison); messages name STATE.<field>
function check_train (t)
  check_scaler (t.scaler, "STATE.scaler");
  if (! (iscell (t.ref) && numel (t.ref) == rows (t.shapes)))
    fail_ ("STATE.ref must hold one reference momentum per matrix");
  endif
  for p = 1:numel (t.ref)
    check_muon (t.ref{p}, sprintf ("STATE.ref{%d}", p), t.shapes(p,:), "double", t.poison,
                t.form);
  endfor
endfunction

## the parameters (every mode: the rest of the state is indexed by them)
function check_names (opt)
  names = opt.names;
  if (! (iscellstr (names) && iscolumn (names) && ! isempty (names)
         && all (cellfun (@(n) isrow (n) && isvarname (n), names))
         && numel (unique (names)) == numel (names)))
    fail_ ("OPT.names must be a column cell of distinct parameter names");
  endif
  np = numel (names);
  if (! (iscell (opt.shapes) && isequal (size (opt.shapes), [np 1])
         && all (cellfun (@size_vector, opt.shapes))))
    fail_ ("OPT.shapes must hold one size vector per parameter");
  endif
  if (! (iscellstr (opt.classes) && isequal (size (opt.classes), [np 1])
         && all (ismember (opt.classes, {"double", "single"}))))
    fail_ ("OPT.classes must be 'double' or 'single' per parameter");
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
  field_set (opt, "OPT", top_fields ());
  if (! (ischar (opt.type) && strcmp (opt.type, "muonlab.optimizer")))
    fail_ ("OPT.type must be 'muonlab.optimizer'");
  endif
  if (! isequal (opt.version, 1))
    fail_ ("OPT.version must be 1");
  endif
  if (! (ischar (opt.resident) && any (strcmp (opt.resident, {"", "cpu", "cuda"}))))
    fail_ ("OPT.resident must be '', 'cpu' or 'cuda'");
  endif

  check_names (opt);
  names = opt.names;
  np = numel (names);

  ## routing and the muon_update options of each Muon parameter
  field_set (opt.route, "OPT.route", names);
  for i = 1:np
    n = names{i};
    r = opt.route.(n);
    if (! (ischar (r) && any (strcmp (r, {"muon", "adamw"}))))
      fail_ ("OPT.route.%s must be 'muon' or 'adamw'", n);
    endif
    if (strcmp (r, "muon") && ! (opt.shapes{i}(1) > 1 && opt.shapes{i}(2) > 1))
      fail_ ("OPT.route.%s is 'muon' but the parameter is not a matrix", n);
    endif
  endfor
  q = opt.qk_clip;                        # muon_optimizer's QKClip pairs
  if (! (isstruct (q) && iscolumn (q) && all (isfield (q, {"q", "k", "heads", "args"}))
         && all (ismember ([{q.q}, {q.k}], names))))
    fail_ ("OPT.qk_clip must be muon_optimizer's QKClip pairs, naming parameters");
  endif
  ismuon = cellfun (@(n) strcmp (opt.route.(n), "muon"), names);
  field_set (opt.update_args, "OPT.update_args", names(ismuon));
  known = option_spec ("muon_update").names;   # every option muon_update takes
  for i = find (ismuon(:).')
    n = names{i};
    a = opt.update_args.(n);
    where = sprintf ("OPT.update_args.%s", n);
    if (! (iscell (a) && (isempty (a) || isrow (a)) && mod (numel (a), 2) == 0))
      fail_ ("%s must be a row cell of NAME, VALUE pairs", where);
    endif
    ## every name one that muon_update takes; the values of its own options (Beta, ...,
    ## the NS options) as it checks them; Experts, SplitRows and ConvScale depend on the
    ## gradient and are checked by muon_update at the next step
    for j = 1:2:numel (a)
      if (! (ischar (a{j}) && any (strcmpi (a{j}, known))))
        fail_ ("%s: unknown option '%s'", where, disp_name (a{j}));
      endif
    endfor
    try
      parse_options (where, "muon_update", a, "precision", opt.classes{i});
    catch err
      fail_ ("%s", regexprep (err.message, '\.$', ""));
    end_try_catch
  endfor

  ## settings
  check_settings (opt);

  field_set (opt.muon, "OPT.muon", names(ismuon));
  field_set (opt.adam, "OPT.adam", names(! ismuon));
  field_set (opt.accum, "OPT.accum", names);
endfunction

## each parameter's state: a fast test of each one with built-in functions only (this
## runs on every muon_step), and the detailed check, which names what is wrong, when the
## fast test fails (or always, in full mode)
function check_params (opt, full)
  for f = {"names", "shapes", "route", "muon", "adam", "accum", "poison"}
    if (! isfield (opt, f{1}))
      fail_ ("OPT lacks the field '%s'", f{1});
    endif
  endfor
  for f = {"muon", "adam", "accum"}
    if (! (isstruct (opt.(f{1})) && isscalar (opt.(f{1}))))
      fail_ ("OPT.%s must be a scalar struct", f{1});
    endif
  endfor
  if (! full)                           # (the full check has done it)
    check_names (opt);
  endif
  names = opt.names;
  poison = opt.poison;
  classes = opt.classes;
  forms = core_lists ().lists.momentum_form;    # (once, not per parameter)
  for i = 1:numel (names)
    n = names{i};
    sz = opt.shapes{i};
    cls = classes{i};
    if (! (isfield (opt.route, n) && ischar (opt.route.(n))))
      fail_ ("OPT.route lacks the parameter '%s'", n);
    endif
    group = merge (strcmp (opt.route.(n), "muon"), "muon", "adam");
    for g = {group, "accum"}
      if (! isfield (opt.(g{1}), n))
        fail_ ("OPT.%s lacks the parameter '%s'", g{1}, n);
      endif
    endfor
    st = opt.(group).(n);
    if (strcmp (group, "muon"))
      ok = isa (st, "double") && ndims (st) == 2 && ! any (size (st));
      if (! ok && isstruct (st) && isscalar (st) && numfields (st) == 3
          && all (isfield (st, {"momentum", "step", "form"})))
        M = st.momentum;
        k = st.step;
        ok = ((on_device (M, sz, cls) || (isfloat (M) && isreal (M) && ! issparse (M)
                                      && ndims (M) == numel (sz) && all (size (M) == sz)
                                      && strcmp (class (M), cls)
                                      && (poison || all (isfinite (M(:))))))
              && isa (k, "double") && isscalar (k) && isreal (k) && isfinite (k) && k >= 0
              && k == fix (k) && ischar (st.form)
              && any (strcmp (st.form, forms)));
      endif
      if (! ok || full)
        form = false;
        uopts = [];
        if (full)
          form = momentum_form (opt.update_args.(n));
          uopts = update_opts (opt.update_args.(n), cls);
        endif
        check_muon (st, sprintf ("OPT.muon.%s", n), sz, cls, poison, form, uopts);
      endif
    else
      ok = (isstruct (st) && isscalar (st) && numfields (st) == 3
            && all (isfield (st, {"m", "v", "step"})));
      if (ok)
        m = st.m;
        v = st.v;
        k = st.step;
        ok = (((on_device (m, sz, cls) && on_device (v, sz, cls))
               || (isfloat (m) && isreal (m) && ! issparse (m) && ndims (m) == numel (sz)
                   && all (size (m) == sz) && all (isfinite (m(:)))
                   && isfloat (v) && isreal (v) && ! issparse (v) && ndims (v) == numel (sz)
                   && all (size (v) == sz) && all (isfinite (v(:))) && ! any (v(:) < 0)
                   && strcmp (class (m), cls) && strcmp (class (v), cls)))
              && isa (k, "double") && isscalar (k) && isreal (k) && isfinite (k) && k >= 0
              && k == fix (k));
      endif
      if (! ok)
        check_adam (st, sprintf ("OPT.adam.%s", n), sz, cls);
      endif
    endif
    a = opt.accum.(n);
    ok = ((isa (a, "double") && ndims (a) == 2 && ! any (size (a))) || on_device (a, sz)
          || (isfloat (a) && isreal (a) && ! issparse (a) && ndims (a) == numel (sz)
              && all (size (a) == sz)));
    if (! ok)
      array_ (a, sprintf ("OPT.accum.%s", n), sz, false);
    endif
  endfor
endfunction

function check_adam (st, where, sz, cls)
  field_set (st, where, {"m", "v", "step"});
  array_ (st.m, [where ".m"], sz, true);
  array_ (st.v, [where ".v"], sz, true);
  class_ (st.m, [where ".m"], sz, cls);
  class_ (st.v, [where ".v"], sz, cls);
  if (! on_device (st.v, sz) && any (st.v(:) < 0))
    fail_ ("%s.v must not be negative", where);
  endif
  if (! count_ (st.step))
    fail_ ("%s.step must be a non-negative integer", where);
  endif
endfunction

## [] (no step yet) or a muon_update state; FORM: the MomentumForm it must have, or false;
## UOPTS: the parameter's parsed muon_update options, whose family buffer (family_state)
## the state must hold, or [] (not checked here: muon_update checks it at the step)
function check_muon (st, where, sz, cls, poison, form, uopts)
  if (nargin < 7)
    uopts = [];
  endif
  if (isa (st, "double") && ndims (st) == 2 && ! any (size (st)))
    return;                                   # [] : no step yet
  endif
  if (! isstruct (st))
    fail_ ("%s must be [] or a muon_update state", where);
  endif
  if (isfield (st, "family"))                 # the Muon family's buffer (run_update)
    field_set (st, where, {"momentum", "step", "form", "family"});
    f = st.family;
    if (! (isstruct (f) && isscalar (f) && numfields (f) == 2
           && all (isfield (f, {"algorithm", "buffer"})) && ischar (f.algorithm)
           && isfloat (f.buffer) && isreal (f.buffer)
           && (poison || all (isfinite (f.buffer(:))))))
      fail_ ("%s.family must be a struct with an algorithm name and a finite real buffer",
             where);
    endif
    if (any (strcmp (f.algorithm, {"normuon", "adamuon", "namo"})) && any (f.buffer(:) < 0))
      fail_ ("%s.family.buffer must not be negative (the second moment of %s)", where,
             upper (f.algorithm));
    endif
  else
    field_set (st, where, {"momentum", "step", "form"});
  endif
  array_ (st.momentum, [where ".momentum"], sz, ! poison);
  class_ (st.momentum, [where ".momentum"], sz, cls);
  if (! count_ (st.step))
    fail_ ("%s.step must be a non-negative integer", where);
  endif
  if (! (ischar (st.form) && any (strcmp (st.form, core_lists ().lists.momentum_form))))
    fail_ ("%s.form must be 'ema' or 'sgd'", where);
  endif
  if (ischar (form) && ! strcmp (st.form, form))
    fail_ ("%s.form is '%s' but the parameter's MOMENTUMFORM is '%s'", where, st.form,
           form);
  endif
  if (isstruct (uopts))
    msg = family_state (where, st, uopts, sz(1), prod (sz(2:end)), cls);
    if (! isempty (msg))
      fail_ ("%s", msg);
    endif
  endif
endfunction

## the parsed muon_update options of an argument list (its presets expanded)
function o = update_opts (args, cls)
  args = family_presets ("expand", "opt_check_state", args);
  o = parse_options ("opt_check_state", "muon_update", args, "precision", cls);
endfunction

## a scalar struct whose fields are exactly NAMES (any order)
function field_set (s, where, names)
  if (! (isstruct (s) && isscalar (s)))
    fail_ ("%s must be a scalar struct", where);
  endif
  f = fieldnames (s);
  if (numel (f) == numel (names) && all (isfield (s, names)))
    return;
  endif
  missing = setdiff (names, f);
  extra = setdiff (f, names);
  if (! isempty (missing))
    fail_ ("%s lacks the field '%s'", where, missing{1});
  elseif (! isempty (extra))
    fail_ ("%s has the unknown field '%s'", where, extra{1});
  endif
endfunction

## a device array (muon_gpu) of size sz (and storage class cls, when given and not ""):
## its values stay on the device, unchecked here (reading them would copy the state to the
## host every step; a host state's values are checked).  muon_save_state gathers the state
## and checks it again, values included, so a saved file always loads.
function tf = on_device (x, sz, cls)
  tf = isa (x, "muon_gpuarray") && isequal (size (x), sz);
  if (tf && nargin > 2 && ! isempty (cls))
    tf = strcmp (x.Storage, cls);
  endif
endfunction

function array_ (x, where, sz, finite)
  if (on_device (x, sz))
    return;
  endif
  dev = isa (x, "muon_gpuarray");      # of another size: said as for a host array
  if (! (dev || (isfloat (x) && isreal (x) && ! issparse (x))))
    fail_ ("%s must be a real double or single array", where);
  endif
  if (! (ndims (x) == numel (sz) && all (size (x) == sz)))
    fail_ ("%s must be of size %s", where,
           strjoin (arrayfun (@num2str, sz, "UniformOutput", false), " x "));
  endif
  if (finite && ! all (isfinite (x(:))))
    fail_ ("%s must not contain NaN or Inf", where);
  endif
endfunction

## a buffer, on the host or on the device, must have its parameter's class CLS ("" : not
## known here)
function class_ (x, where, sz, cls)
  if (isempty (cls))
    return;
  endif
  if (on_device (x, sz))
    c = x.Storage;
  else
    c = class (x);
  endif
  if (! strcmp (c, cls))
    fail_ ("%s must be %s, the class of its parameter", where, cls);
  endif
endfunction

## fails unless test (s.(name)) holds for each of names: "<where>.<name> must be <what>"
function each_ (s, where, names, test, what)
  for f = names
    if (! test (s.(f{1})))
      fail_ ("%s.%s must be %s", where, f{1}, what);
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

## a non-negative integer, finite, held in a double
function tf = count_ (x)
  tf = (isa (x, "double") && isreal (x) && isscalar (x) && isfinite (x) && x >= 0
        && x == fix (x));
endfunction

function s = disp_name (x)
  if (ischar (x) && isrow (x))
    s = x;
  else
    s = "?";
  endif
endfunction

## the MomentumForm a muon_update argument list asks for (its last mention wins)
function f = momentum_form (args)
  args = family_presets ("expand", "opt_check_state", args);
  f = "ema";
  for i = 1:2:numel (args)
    if (strcmpi (args{i}, "MomentumForm"))
      f = lower (args{i+1});
    endif
  endfor
endfunction
