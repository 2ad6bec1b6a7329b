## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {[@var{zs}, @var{T}] =} zero_train_ckpt ("split", @var{fname}, @var{state}, @var{L}, @var{W}, @var{shapes}, @var{nl})
## @deftypefnx {} {@var{part} =} zero_train_ckpt ("rank", @var{T}, @var{l})
## @deftypefnx {} {@var{state} =} zero_train_ckpt ("join", @var{fname}, @var{prefix}, @var{S}, @var{zs}, @var{L}, @var{ranks}, @var{same})
## The checkpoint of a @code{zero_train_step} state, for @code{zero_save_state} and
## @code{zero_load_state}: the design's momentum goes into the shard files as a
## @code{zero_muon_step} state does (and is resharded as one), the rest of the training
## loop rides along in each rank's file as the field @code{train}.
##
## @qcode{"split"}: checks the training state @var{state} (a struct of type
## @qcode{"muonlab.zero_train"}) against the layout (@var{W} ranks, @var{shapes}) and the
## @var{nl} local ranks, and returns its @code{zero_muon_step} state @var{zs} (a fresh one
## of step 0 before the first step) and the rest @var{T}.  @qcode{"rank"}: what the file
## of local rank @var{l} holds, a struct: the loop's global part (its training options,
## the micro-batch count, the pending skip, the loss scaler, the one-process reference
## momenta, the counters) and that rank's own (its accumulated gradients; with
## PerMicroBatchNS its summed updates so far).  @qcode{"join"}: the training state again
## from the payloads @var{S} (1 x W0 cell, rank by rank, each with its @code{train} field)
## and the loaded @code{zero_muon_step} state @var{zs} (for @var{L}, its local ranks
## @var{ranks}).  Between two windows (no micro-batch accumulated) it loads onto any
## world, layout and design as the momentum does; a window in progress resumes only where
## it was saved (@var{same}: the same world, layout and design), since each rank's
## accumulated gradient is its own data's.  Errors are @code{muonlab:badState} and name
## @var{fname}.
## @end deftypefn

function varargout = zero_train_ckpt (cmd, varargin)
  switch (cmd)
    case "split"
      [varargout{1:2}] = split (varargin{:});
    case "rank"
      varargout{1} = rank_part (varargin{:});
    case "join"
      varargout{1} = join (varargin{:});
  endswitch
endfunction

## the fields of a training state, of its key, and of the key's layout part
function f = state_fields ()
  f = {"type", "key", "zero", "micro", "accum", "upd", "full", "owned", "ns_calls", ...
       "bytes", "pending", "why", "scaler", "ref", "step", "skipped"};
endfunction
function f = layout_fields ()
  f = {"variant", "world", "shapes", "stage", "align_factor", "order", "form", ...
       "local_ranks", "bucket_size"};
endfunction

function [zs, T] = split (fname, state, L, W, shapes, nl)
  P = rows (shapes);
  if (! (isscalar (state) && isempty (setxor (fieldnames (state), state_fields ()))
         && isstruct (state.key) && isscalar (state.key)
         && all (isfield (state.key, [layout_fields(), {"accum_steps", "scaler"}]))))
    error ("muonlab:badState", "%s: STATE must be a state returned by zero_train_step.", fname);
  endif
  k = state.key;
  zero_check_key (fname, k, L, W, shapes, nl);
  if (! (isequal (size (state.accum), [nl P]) && iscell (state.upd) && numel (state.upd) == nl
         && iscell (state.owned) && numel (state.owned) == nl && iscell (state.full)
         && numel (state.full) == P && iscell (state.ref) && numel (state.ref) == P
         && isequal (size (state.ns_calls), [nl 1]) && isequal (size (state.bytes), [nl 1])))
    error ("muonlab:badState", "%s: STATE must be a state returned by zero_train_step.", fname);
  endif
  zs = state.zero;
  if (isempty (zs))                     # no step yet: a design's state of step 0
    zs = struct ("key", rmfield (k, setdiff (fieldnames (k), layout_fields ())), "step", 0,
                 "momentum", [], "reference", [], "has_ref", false);
  endif
  T = rmfield (state, {"type", "zero"});
  T.started = ! isempty (state.zero);
  for l = 1:nl
    msg = check_part (fname, rank_part (T, l), shapes, k.form);
    if (isempty (msg) && l == 1)
      msg = step_msg (zs, T.step, T.key);
    endif
    if (! isempty (msg))
      error ("muonlab:badState", "%s: STATE is not a valid state of zero_train_step: %s.",
             fname, msg);
    endif
  endfor
endfunction

function part = rank_part (T, l)
  part = struct ("options", rmfield (T.key, layout_fields ()), "started", T.started,
                 "micro", T.micro, "pending", T.pending, "why", T.why, "full", {T.full},
                 "scaler", T.scaler, "ref", {T.ref}, "step", T.step, "skipped", T.skipped,
                 "accum", {T.accum(l,:)}, "upd", {T.upd(l)}, "owned", {T.owned(l)},
                 "ns_calls", T.ns_calls(l), "bytes", T.bytes(l));
endfunction

function state = join (fname, prefix, S, zs, L, ranks, same)
  W0 = numel (S);
  P = rows (S{1}.shapes);
  nl = numel (ranks);
  for r = 1:W0                            # an older muonlab's scaler: no hysteresis
    t = S{r}.train;
    if (isstruct (t) && isscalar (t) && isfield (t, "scaler"))
      S{r}.train.scaler = opt_scaler_upgrade (t.scaler);
      if (isstruct (t.options) && isscalar (t.options) && isfield (t.options, "scaler"))
        S{r}.train.options.scaler = opt_scaler_upgrade (t.options.scaler);
      endif
    endif
  endfor
  t0 = S{1}.train;
  bad = @(r, msg) error ("muonlab:badState", "%s: '%s' holds an invalid training state: %s.",
                         fname, zero_shard_file (prefix, r), msg);
  glob = {"options", "started", "micro", "pending", "why", "full", "scaler", "ref", "step", ...
          "skipped"};
  fields = [glob, {"accum", "upd", "owned", "ns_calls", "bytes"}];
  for r = 0:W0-1
    t = S{r+1}.train;
    if (! (isstruct (t) && isscalar (t) && isempty (setxor (fieldnames (t), fields))))
      bad (r, "not the fields of a zero_train_step checkpoint");
    endif
    for f = glob
      if (! isequaln (t.(f{1}), t0.(f{1})))   # NaN: a poisoned momentum, as saved
        error ("muonlab:badState",
               "%s: '%s' does not belong to the save of rank 0's file (its %s differs).",
               fname, zero_shard_file (prefix, r), f{1});
      endif
    endfor
    msg = check_part (fname, t, S{1}.shapes, zs.key.form);
    if (! isempty (msg))
      bad (r, msg);
    endif
  endfor
  msg = step_msg (zs, t0.step, t0.options);
  if (! isempty (msg))
    bad (0, msg);
  endif
  if ((t0.micro > 0 || t0.pending) && ! same)
    error ("muonlab:badState",
           ["%s: the files under '%s' hold a window in progress (micro-batch %d of %d): it " ...
            "resumes only on the world, layout, design and bucket size it was saved with."], fname,
           prefix, t0.micro, t0.options.accum_steps);
  endif

  ## the state zero_train_step keeps, for L and this process's ranks
  key = zs.key;
  for f = fieldnames (t0.options).'
    key.(f{1}) = t0.options.(f{1});
  endfor
  state = struct ("type", "muonlab.zero_train", "key", key, "zero", [], "micro", t0.micro,
                  "accum", {cell(nl, P)}, "upd", {cell(nl, 1)}, "full", {t0.full},
                  "owned", {cell(nl, 1)}, "ns_calls", zeros (nl, 1), "bytes", zeros (nl, 1),
                  "pending", t0.pending, "why", t0.why, "scaler", t0.scaler, "ref", {t0.ref},
                  "step", t0.step, "skipped", t0.skipped);
  if (t0.started)
    state.zero = zs;
  endif
  if (t0.micro > 0 || t0.pending)         # the same world: rank l's own buffers back
    for l = 1:nl
      t = S{ranks(l)+1}.train;
      state.accum(l,:) = t.accum;
      state.upd(l) = t.upd;
      state.owned(l) = t.owned;
      state.ns_calls(l) = t.ns_calls;
      state.bytes(l) = t.bytes;
    endfor
  endif
endfunction

## what is wrong with one rank's part t (rank_part's struct) for the matrices shapes and
## the momentum form form, or "": its counters and buffers, its training options (as
## zero_train_step's option table checks them), its loss scaler and reference momenta (as
## opt_check_state checks an optimizer's)
function msg = check_part (fname, t, shapes, form)
  msg = "";
  P = rows (shapes);
  count = @(x) isa (x, "double") && isscalar (x) && isreal (x) && x >= 0 && x == fix (x);
  o = t.options;
  if (! (isstruct (o) && isscalar (o) && isfield (o, "accum_steps") && count (o.accum_steps)
         && o.accum_steps >= 1 && count (t.micro) && t.micro < o.accum_steps
         && count (t.step) && count (t.skipped) && count (t.ns_calls) && count (t.bytes)
         && islogical (t.started) && isscalar (t.started) && islogical (t.pending)
         && isscalar (t.pending) && ischar (t.why)))
    msg = "its counters or options are no valid values";
  elseif (t.pending && t.micro == 0)
    ## (zero_train_step holds a pending skip only inside a PerMicroBatchNS window, with
    ## its reason in why, and clears both where the window ends)
    msg = "it holds a pending skip between windows (micro-batch count 0)";
  elseif (t.pending && ! isequal (o.per_micro_ns, true))
    msg = "it holds a pending skip without PerMicroBatchNS";
  elseif (t.pending == isempty (t.why))
    msg = "its skip reason (why) must be non-empty exactly when a skip is pending";
  elseif (! (iscell (t.accum) && numel (t.accum) == P && iscell (t.full)
             && numel (t.full) == P && iscell (t.ref) && numel (t.ref) == P && iscell (t.upd)
             && numel (t.upd) == 1 && iscell (t.owned) && numel (t.owned) == 1))
    msg = "its buffers are not one per matrix";
  else
    for p = 1:P
      a = t.accum{p};
      if (! ((t.micro == 0 && isempty (a))
             || (t.micro > 0 && isa (a, "double") && isreal (a)
                 && isequal (size (a), shapes(p,:)))))
        msg = sprintf ("the accumulated gradient of matrix %d does not match its micro-batch count",
                       p);
        return;
      endif
    endfor
    s0 = opt_loss_scaler (fname, "none");
    sc = t.scaler;
    if (! (isstruct (sc) && isscalar (sc) && isempty (setxor (fieldnames (sc), fieldnames (s0)))
           && isa (sc.scale, "double") && isscalar (sc.scale) && sc.scale > 0
           && isfinite (sc.scale) && count (sc.good_steps) && count (sc.overflows)))
      msg = "its loss scaler is not one of zero_train_step";
      return;
    endif
    msg = opt_check_state (struct ("scaler", sc, "ref", {t.ref}, "shapes", shapes,
                                   "form", form, "poison", isequal (o.poison, true)),
                           "train");
    if (isempty (msg))
      ## the reference advances once per applied step, as the loop's step count does
      for p = 1:P
        if (! isempty (t.ref{p}) && ! isequal (t.ref{p}.step, t.step))
          msg = sprintf ("the step of its reference momentum of matrix %d (%d) differs from its step count (%d)",
                         p, t.ref{p}.step, t.step);
          return;
        endif
      endfor
    endif
    if (isempty (msg))
      msg = check_options (fname, o, sc);
    endif
  endif
endfunction

## what is wrong with the design's step count against the loop's step count step, or "":
## the design's state zs steps with each applied window (so never fewer times); exactly
## as often unless PerMicroBatchNS (a step per micro-batch) or PoisonMomentum (a step
## folded into a skipped window) is on, o holding those options
function msg = step_msg (zs, step, o)
  msg = "";
  n = zs.step;
  if (! (isnumeric (n) && isscalar (n) && isnumeric (step) && isscalar (step)))
    return;                               # (named by the callers' own checks)
  endif
  together = ! (isequal (o.per_micro_ns, true) || isequal (o.poison, true));
  if (n < step || (together && n != step))
    msg = sprintf ("the design's momentum has taken %d steps, the loop %d (%s)", n, step,
                   merge (together, "without PerMicroBatchNS or PoisonMomentum they step together",
                          "the momentum steps at least once per applied step"));
  endif
endfunction

## what is wrong with the training options o (the key's, with the loss scaler's settings
## of the running scaler sc), or "": each as zero_train_step's option table checks it
function msg = check_options (fname, o, sc)
  msg = "";
  names = {"accum_steps", "per_micro_ns", "poison", "clip_policy", "clip_norm", ...
           "clip_flag", "reference", "scaler"};
  if (! isempty (setxor (fieldnames (o), names)))
    msg = "its training options are not those of zero_train_step";
    return;
  endif
  args = {"AccumulationSteps", o.accum_steps, "PerMicroBatchNS", o.per_micro_ns, ...
          "PoisonMomentum", o.poison, "ClipPolicy", o.clip_policy, "ClipNorm", o.clip_norm, ...
          "ClipSkipFlag", o.clip_flag};
  try
    v = parse_options (fname, "zero_train_step", args);
  catch err
    msg = sprintf ("its training options are invalid (%s)", regexprep (err.message, '\.$', ""));
    return;
  end_try_catch
  for i = 1:2:numel (args)
    f = names{(i + 1) / 2};
    if (! isequal (v.(f), o.(f)))      # parsed (canonical) as zero_train_step stores it
      msg = sprintf ("its training option %s is invalid", args{i});
      return;
    endif
  endfor
  if (! (islogical (o.reference) && isscalar (o.reference)))
    msg = "its training option reference must be true or false";
  elseif (! (isstruct (o.scaler) && isscalar (o.scaler)
             && isequal (o.scaler, rmfield (sc, {"scale", "good_steps", "overflows", ...
                                                 "hysteresis_left"}))))
    msg = "its loss scaler's settings differ from those of its training options";
  endif
endfunction
