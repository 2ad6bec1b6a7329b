## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {[@var{params}, @var{opt}, @var{info}] =} muon_step (@var{opt}, @var{params}, @var{grads})
## @deftypefnx {muonlab} {[@var{params}, @var{opt}, @var{info}] =} muon_step (@var{opt}, @var{params}, @var{grads}, @var{maxlogits})
## Hand one micro-batch gradient to the hybrid Muon + AdamW optimizer @var{opt} (made by
## @code{muon_optimizer}) and, at an accumulation boundary, apply one optimizer step.
##
## @var{opt}'s per-parameter state is checked on every call: a Muon state that is neither
## [] nor a @code{muon_update} state with a finite momentum of the parameter's size (a
## cell, a momentum of another class or size, a NaN momentum without
## @qcode{"PoisonMomentum"}, a negative second moment of NorMuon, AdaMuon or NAMO), or
## AdamW moments that are not finite or a negative second moment, is a
## @code{muonlab:badState} error (never a silent reset or a NaN carried on).  Of a state
## kept on a device (@code{muon_optimizer}'s @qcode{"Resident"}) every call checks the
## layout, sizes and classes, but not the values of its device arrays: reading them would
## copy the whole state to the host every step.  @code{muon_save_state} and
## @code{muon_load_state} check those values (a negative or non-finite moment made on the
## device is found there, not by the step).
## So are the scalars that may be edited between steps (@code{opt.muon_lr},
## @code{adam_lr}, @code{muon_wd}, @code{adam_wd}, @code{adam_eps}: non-negative finite;
## @code{adam_betas}: two numbers in [0, 1)); the message names the field.  NaN or Inf in
## @var{params} is a @code{muonlab:nonFinite} error naming the parameter.
##
## @var{grads} has the fields and sizes of @var{params}; a gradient of another class is
## converted to its parameter's, as every buffer of the state (momentum, AdamW moments,
## accumulation) has the class of its parameter.  A parameter, host or device, must have
## the class of its state (else @code{muonlab:badType}).  Either may hold device arrays
## (@code{muon_gpu}) when @var{opt} keeps its state on their device
## (@code{muon_optimizer}'s @qcode{"Resident"}): a device gradient may be double, single,
## bf16 or fp16 (converted on the device, the bits of casting it on the host).  Device
## parameters come back as device arrays: the whole step runs where they live, with the
## bits of host parameters (@qcode{"MomentumArith"} @qcode{"torch"}'s fused apply
## included, on the device's element-wise fma; see @code{muon_optimizer}).  With a loss
## scaler the gradients are expected multiplied by the current scale
## @code{opt.scaler.scale}.  Each call:
##
## @enumerate
## @item accumulates @var{grads} (the first k-1 of every k calls, k =
## @qcode{"AccumulationSteps"}, return @var{params} unchanged with @code{info.applied}
## false);
## @item at the k-th call forms the mean gradient, divided by the loss scale;
## @item with @qcode{"ClipPolicy"} @qcode{"before_ns"} clips all raw gradients by their
## global norm;
## @item checks for overflow (any NaN or Inf, before or after the unscaling; a gradient as
## handed in, times the scale, so large that its fp64 sum of squares overflows, as torch's
## and DeepSpeed's checks look at the scaled gradient: below a scale of 1 an unscaled sum
## past realmax of finite values is left to the global norm, which takes it; or an AdamW
## gradient whose squares overflow its class, single
## entries past 1.8e19: either would turn AdamW's second moment into Inf and its
## parameter into NaN): the step is then skipped (@code{info.skipped}), nothing in
## @var{params} or in the optimizer state changes (but for @qcode{"PerMicroBatchNS"}: the
## Muon momenta keep the advances of the window's clean micro-batches, each of which ran
## its update when it came), and the loss scaler counts it (backs off, or counts down its
## Hysteresis).  Without a loss scaler such a gradient skips the step too (the policy of
## @code{zero_muon_step}; @code{muon_ns} and @code{muon_update} reject NaN and Inf and give
## the scale-invariant answer for huge finite inputs).  With
## @qcode{"PoisonMomentum"} the Muon momenta are advanced before this check (DeepSpeed
## #8432), so a non-finite gradient lands in them.  A step whose new parameters would not
## all be finite (finite inputs, a non-finite update) is skipped the same way at step 7,
## nothing written;
## @item runs @code{muon_update} (one NS) on each Muon parameter's gradient;
## @item with @qcode{"after_ns"} clips the Muon updates and the AdamW gradients by their
## joint global norm, with @qcode{"skip_muon"} the AdamW gradients by theirs;
## @item applies @code{p = p*(1 - lr*wd) - lr*U} to Muon parameters (with
## @qcode{"DecayFirst"} false @code{p = (p - lr*U)*(1 - lr*wd)}; @qcode{"Algorithm"}
## @qcode{"scion"} decays with wd = 1 whatever the weight decay, as Emerging-Optimizers'
## Scion does; with @qcode{"MomentumArith"} @qcode{"torch"} a single or double matrix
## (host, resident or device array) under the Muon rule, decay first, takes torch.optim.Muon's fused
## @code{add_ (O, alpha=-lr*scale)}, one rounding of @code{p*(1 - lr*wd) - (lr*scale)*O}
## with O the NS output before the scale: @code{muon_optimizer} says where) and AdamW to
## the rest, and grows a dynamic scale after
## @code{GrowthInterval} clean steps;
## @item with @qcode{"QKClip"} pairs, clips them (@code{qk_clip}) with
## @code{@var{maxlogits}.QNAME}, the largest attention logit of each head of the query
## parameter QNAME that the caller measured in this step's forward passes (required then;
## @code{info.qk_clip.QNAME} has @code{clipped} and @code{eta}, and @code{info.qk_clip} is
## an empty struct on a call that applies no step; @code{update_norm} and
## @code{step_norm} are of the step before the clip).
## @end enumerate
##
## @var{info} is a plain scalar struct (@code{isstruct (info)} is true), small enough to
## read at the prompt (one line per field, one per parameter in @code{update_norm}).  It has
## the fields:
## @table @code
## @item applied
## true when an optimizer step was applied by this call.
## @item skipped
## true when this call ended an accumulation window with an overflow.
## @item micro
## the micro-batch index within the window (1..k).
## @item step
## optimizer steps applied so far.
## @item global_norm
## the norm the clip policy looks at (@qcode{"none"}, @qcode{"before_ns"}: all mean
## gradients; @qcode{"after_ns"}: Muon updates and AdamW gradients; @qcode{"skip_muon"}:
## AdamW gradients); NaN when no step ended.  With @qcode{"PerMicroBatchNS"} a Muon
## matrix holds no mean gradient at the window's end, only the sum of its micro-batches'
## updates, which takes the gradient's place in this norm.
## @item clip_coef
## the factor applied (1 when no clipping happened).
## @item loss_scale
## the scale this call's gradients were divided by (@code{opt.scaler.scale} is the next).
## @item ns_calls
## @code{muon_update} calls made by this call.
## @item update_norm
## a struct: per parameter, the Frobenius norm of the applied change (0 if none).
## @item step_norm
## the norm of the whole applied change.
## @end table
##
## @seealso{muon_optimizer, muon_update, muon_save_state, muon_load_state}
## @end deftypefn

function [params, opt, info] = muon_step (opt, params, grads, maxlogits)
  if (nargin < 3 || nargin > 4)
    print_usage ();
  elseif (nargin < 4)
    maxlogits = [];                     # "QKClip" pairs need them: opt_qk_clip says so
  endif
  fname = "muon_step";
  opt = state_plain (opt);
  if (! (isstruct (opt) && isscalar (opt) && isfield (opt, "type")
         && strcmp (opt.type, "muonlab.optimizer")))
    error ("muonlab:badArg", "%s: OPT must be an optimizer state made by muon_optimizer.",
           fname);
  endif
  msg = opt_check_state (opt, "step");
  if (! isempty (msg))
    error ("muonlab:badState", "%s: %s.", fname, msg);
  endif
  opt = opt_settings_double (opt);
  ## the step's own check is cheap (every field there, the per-parameter states sound); a
  ## state malformed deeper (a setting, an option list) is found by the full check of
  ## muon_save_state when the step trips over it, and reported as such
  try
    [params, opt, info] = step (fname, opt, params, grads);
    if (info.applied && ! isempty (opt.qk_clip))
      [params, info.qk_clip] = opt_qk_clip (fname, opt.qk_clip, params, maxlogits);
    elseif (! isempty (opt.qk_clip))
      info.qk_clip = struct ();         # the same fields on every call: infos(t) = info
    endif
  catch err
    if (strncmp (err.identifier, "muonlab:", 8))
      rethrow (err);
    endif
    msg = opt_check_state (opt, "full");
    if (! isempty (msg))
      error ("muonlab:badState", "%s: %s.", fname, msg);
    endif
    rethrow (err);
  end_try_catch
  opt = muon_state ("optimizer", opt);
endfunction

function [params, opt, info] = step (fname, opt, params, grads)
  opt_check_tree (fname, "PARAMS", params, opt.names, opt.shapes, true);
  opt_check_tree (fname, "GRADS", grads, opt.names, opt.shapes, false);
  opt_check_device (fname, opt, params, grads);

  names = opt.names;
  np = numel (names);
  ismuon = cellfun (@(n) strcmp (opt.route.(n), "muon"), names);
  k = opt.accum_steps;
  s = opt.scaler.scale;
  info = struct ("applied", false, "skipped", false, "micro", 0, "step", opt.step,
                 "global_norm", NaN, "clip_coef", 1, "loss_scale", s, "ns_calls", 0,
                 "update_norm", zero_norms (names), "step_norm", 0);

  ## 1. accumulate this micro-batch (PerMicroBatchNS: its Muon update, DeepSpeed #8443)
  opt.micro += 1;
  info.micro = opt.micro;
  for i = 1:np
    n = names{i};
    g = grads.(n);
    if (isa (g, "muon_gpuarray"))       # the state keeps the parameter's class
      if (! strcmp (g.Storage, opt.classes{i}))
        g = muon_gpu (g, "Class", opt.classes{i});
      endif
    elseif (! strcmp (class (g), opt.classes{i}))
      g = cast (g, opt.classes{i});
    endif
    if (ismuon(i) && opt.per_micro_ns)
      g = unscale (g, s);
      if (k > 1)
        g = g / k;
      endif
      [g, opt.muon.(n), bad, called] = opt_advance (fname, n, opt.muon.(n), g,
                                                opt.update_args.(n), opt.poison);
      info.ns_calls += called;
      opt.overflow_pending = opt.overflow_pending || bad;
    endif
    if (opt.micro == 1 || isempty (opt.accum.(n)))
      opt.accum.(n) = g;
    else
      [a, g] = same_place (opt.accum.(n), g);
      opt.accum.(n) = a + g;
    endif
  endfor
  if (opt.micro < k)
    opt.ns_calls += info.ns_calls;
    return;
  endif

  ## 2. the mean, unscaled gradient (or the summed per-micro-batch Muon updates)
  opt.micro = 0;
  g = struct ();
  U = struct ();
  overflow = opt.overflow_pending;
  opt.overflow_pending = false;
  total_sq = [0 0];              # the global norm's squares (opt_norm_sq), one pass per array
  for i = 1:np
    n = names{i};
    x = opt.accum.(n);
    opt.accum.(n) = [];
    micro_ns = ismuon(i) && opt.per_micro_ns;
    if (micro_ns)
      U.(n) = x;
    else
      if (k > 1)
        x = x / k;
      endif
      g.(n) = unscale (x, s);
    endif
    sx = opt_sumsq (x);            # the overflow check (opt_overflows) and, mostly, the norm
    overflow = overflow || ! isfinite (sx) || (! ismuon(i) && opt_squares_overflow (g.(n)));
    if (! overflow && s != 1 && ! micro_ns)
      x = g.(n);
      [sx, finite] = opt_sumsq (x);  # (a sum past realmax of finite values is a norm's
      overflow = ! finite;           # business: hypot) a scale below 1 (MinScale < 1): the
    endif                            # unscaled gradient can overflow where the scaled did not
    if (overflow)
      continue;
    endif
    total_sq += opt_norm_sq ("part", x, sx);
  endfor
  if (! overflow)
    info.global_norm = opt_norm_sq ("norm", total_sq);
  endif

  ## 3. before_ns: clip every raw gradient by the global norm
  if (strcmp (opt.clip_policy, "before_ns") && ! overflow)
    info.clip_coef = opt_clip_coef (info.global_norm, opt.clip_norm);
    if (info.clip_coef < 1)
      for i = 1:np
        g.(names{i}) = g.(names{i}) * info.clip_coef;
      endfor
    endif
  endif

  ## 4. Muon momentum and NS: before the overflow check on the poisoned path (#8432).
  ## A parameter that takes torch's fused apply (fused_scale) gets its NS output unscaled
  todo = find (ismuon & ! opt.per_micro_ns);
  uargs = opt.update_args;
  fscale = struct ();
  for i = todo(:).'
    n = names{i};
    fscale.(n) = fused_scale (fname, n, opt, params.(n), g.(n));
    if (! isempty (fscale.(n)))
      uargs.(n) = [uargs.(n)(:).', {"Scale", "none", "ScaleFactor", 1}];
    endif
  endfor
  if (opt.poison)
    for i = todo(:).'
      n = names{i};
      [U.(n), opt.muon.(n), bad, called] = opt_advance (fname, n, opt.muon.(n), g.(n),
                                                    uargs.(n), true);
      info.ns_calls += called;
      overflow = overflow || bad;
    endfor
  endif
  if (overflow)
    opt = skip_step (opt, info);
    info.skipped = true;
    info.global_norm = NaN;
    return;
  endif
  muon0 = opt.muon;                     # restored if the step ends non-finite
  if (! opt.poison)
    for i = todo(:).'
      n = names{i};
      gn = g.(n);
      if (! isempty (opt.resident) && isempty (opt.muon.(n)) && ndims (gn) <= 3
          && ! isa (gn, "muon_gpuarray"))
        gn = gpu_upload (fname, gn, opt.resident);   # the momentum starts on the device
      endif
      [U.(n), opt.muon.(n)] = run_update (sprintf ("%s: parameter '%s'", fname, n), gn,
                                          opt.muon.(n), uargs.(n));
      if (isa (U.(n), "muon_gpuarray") && ! isa (params.(n), "muon_gpuarray"))
        U.(n) = gather (U.(n));                     # host parameters: one copy a step
      endif
      info.ns_calls += 1;
    endfor
  endif

  ## 5. clipping after NS
  switch (opt.clip_policy)
    case "after_ns"
      info.global_norm = global_norm ([struct2cell(U); adam_cells(g, names, ismuon)]);
      info.clip_coef = opt_clip_coef (info.global_norm, opt.clip_norm);
      if (info.clip_coef < 1)
        for i = 1:np
          n = names{i};
          if (ismuon(i))
            U.(n) = U.(n) * info.clip_coef;
          else
            g.(n) = g.(n) * info.clip_coef;
          endif
        endfor
      endif
    case "skip_muon"
      info.global_norm = global_norm (adam_cells (g, names, ismuon));
      info.clip_coef = opt_clip_coef (info.global_norm, opt.clip_norm);
      if (info.clip_coef < 1)
        for i = find (! ismuon(:).')
          g.(names{i}) = g.(names{i}) * info.clip_coef;
        endfor
      endif
  endswitch

  ## 6. apply: every new value first; one that is not finite (a NaN or Inf update from
  ## finite inputs) skips the step as an overflow does, nothing written
  total = 0;
  adam = opt.adam;
  newp = params;
  for i = 1:np
    n = names{i};
    p0 = params.(n);
    if (ismuon(i))
      [wd, first] = opt_muon_decay (fname, n, opt);
      if (isfield (fscale, n) && ! isempty (fscale.(n)))
        ## torch.optim.Muon: param.mul_ (1 - lr*wd); param.add_ (O, alpha=-lr*scale)
        p = p0 * (1 - opt.muon_lr * wd);
        p = opt_fused_add (p, -(opt.muon_lr * fscale.(n)), U.(n));
      elseif (first)
        p = p0 * (1 - opt.muon_lr * wd);
        p = p - opt.muon_lr * U.(n);
      else
        p = p0 - opt.muon_lr * U.(n);
        p = p * (1 - opt.muon_lr * wd);
      endif
    else
      [p, adam.(n)] = opt_adamw (p0, g.(n), opt.adam.(n), opt.adam_lr, opt.adam_wd,
                                 opt.adam_betas, opt.adam_eps);
    endif
    if (! isa (p, "muon_gpuarray"))
      p = cast (p, class (p0));
    endif
    d = opt_sumsq (p, p0);        # one pass in double (single: the difference of two close
    if (! isfinite (d))           # singles); finite: so is p (p0 is)
      [~, finite] = opt_sumsq (p);
      if (! finite)
        opt.muon = muon0;
        opt = skip_step (opt, info);
        info.skipped = true;
        info.global_norm = NaN;
        info.clip_coef = 1;
        info.update_norm = zero_norms (names);
        return;
      endif
    endif
    newp.(n) = p;
    info.update_norm.(n) = sqrt (d);
    total += d;
  endfor
  params = newp;
  opt.adam = adam;
  info.step_norm = sqrt (total);
  info.applied = true;
  opt.step += 1;
  info.step = opt.step;
  opt.scaler = opt_scaler_update (opt.scaler, false);
  opt.ns_calls += info.ns_calls;
endfunction

## MomentumArith torch: the scale of Muon parameter N's update when its step applies as
## torch.optim.Muon's does (p = fma (alpha, O, p), O the NS output unscaled, alpha = -lr *
## scale rounded once into p's class), else []: a single or double parameter (host, or a
## device array: the device arrays' fma, the same bits; a resident state too: U comes back
## to the host for host parameters) and gradient of its class, one 2-D matrix, the Muon
## rule (no Algorithm of the family), no Experts or SplitRows, the decay first, no clipping
## after the NS or per-micro-batch NS (these keep U = scale * O; so do bf16 / fp16 device
## parameters: torch's 16-bit add with alpha rounds two ways)
function s = fused_scale (fname, n, opt, p, g)
  s = [];
  args = opt.update_args.(n);
  if (isempty (args) || ! any (strcmp (elem_class (p), {"single", "double"}))
      || ! strcmp (elem_class (g), elem_class (p)) || numel (size (p)) != 2
      || opt.per_micro_ns || strcmp (opt.clip_policy, "after_ns"))
    return;
  endif
  names = args(1:2:end);
  if (! any (strcmpi (names(cellfun (@ischar, names)), "MomentumArith")))
    return;                             # no preset sets it: the common case stays cheap
  endif
  try                                   # a bad option: run_update raises its error
    o = parse_options (fname, "muon_update", family_presets ("expand", fname, args));
  catch
    return;
  end_try_catch
  if (strcmp (o.arith, "torch") && strcmp (o.algorithm, "muon") && o.experts == 1
      && isempty (o.split_rows) && o.decay_first)
    s = family_scale (o, rows (p), columns (p));     # in double, as torch's _adjust_lr
  endif
endfunction

## the class of X's elements: a device array's storage class
function c = elem_class (x)
  if (isa (x, "muon_gpuarray"))
    c = x.Storage;
  else
    c = class (x);
  endif
endfunction

## the counters of a skipped step (the loss scaler's too)
function opt = skip_step (opt, info)
  opt.skipped += 1;
  opt.scaler = opt_scaler_update (opt.scaler, true);
  opt.ns_calls += info.ns_calls;
endfunction

function x = unscale (x, s)
  if (s != 1)
    x = x / s;
  endif
endfunction

function z = zero_norms (names)
  z = struct ();
  for i = 1:numel (names)
    z.(names{i}) = 0;
  endfor
endfunction

function c = adam_cells (g, names, ismuon)
  c = cellfun (@(n) g.(n), names(! ismuon), "UniformOutput", false);
endfunction

## global 2-norm over a cell of arrays, summed in double (opt_norm_sq: no overflow)
function t = global_norm (c)
  t = [0 0];
  for i = 1:numel (c)
    t += opt_norm_sq ("part", c{i});
  endfor
  t = opt_norm_sq ("norm", t);
endfunction

## A and B on one device when either is a device array (the other uploaded in its class):
## a window may mix host and device gradients.  A host part holding NaN or Inf cannot be
## uploaded (muon_gpu refuses it): the device part comes to the host instead, so the sum
## holds the non-finite values and the window ends skipped, as an all-host one does
function [a, b] = same_place (a, b)
  if (isa (a, "muon_gpuarray") && ! isa (b, "muon_gpuarray"))
    if (all (isfinite (b(:))))
      b = muon_gpu (b, "Device", a.Device, "Class", a.Storage);
    else
      a = gather (a);
    endif
  elseif (isa (b, "muon_gpuarray") && ! isa (a, "muon_gpuarray"))
    if (all (isfinite (a(:))))
      a = muon_gpu (a, "Device", b.Device, "Class", b.Storage);
    else
      b = gather (b);
    endif
  endif
endfunction

%!demo
%! ## fit W x + b to a random linear map: W through Muon, b through AdamW
%! randn ("state", 1);
%! A = randn (16, 8);  X = randn (8, 64);  Y = A * X + 0.5;
%! P = struct ("W", zeros (16, 8), "b", zeros (16, 1));
%! opt = muon_optimizer (P, "LR", 0.05);
%! for t = 1:200
%!   R = P.W * X + P.b - Y;
%!   G = struct ("W", R * X.' / 64, "b", mean (R, 2));
%!   [P, opt, info] = muon_step (opt, P, G);
%! endfor
%! printf ("relative error of W %.3g, of b %.3g after %d steps\n",
%!         norm (P.W - A, "fro") / norm (A, "fro"), norm (P.b - 0.5) / norm (0.5 * ones (16, 1)),
%!         info.step);

%!shared P, G
%! randn ("state", 2);
%! P = struct ("W", randn (8, 5), "b", randn (8, 1));
%! G = struct ("W", randn (8, 5), "b", randn (8, 1));

%!error <Invalid call> muon_step (1, 2)
%!error <muon_step: OPT must be an optimizer state made by muon_optimizer.> muon_step (struct (), P, G)
%!error <muon_step: GRADS lacks the parameter 'b'.> muon_step (muon_optimizer (P), P, rmfield (G, "b"))
%!error <muon_step: PARAMS has the unknown parameter 'c'.> muon_step (muon_optimizer (P), setfield (P, "c", 1), G)
%!error <muon_step: GRADS.W must be of size 8 x 5.> muon_step (muon_optimizer (P), P, setfield (G, "W", 1))
%!error <muon_step: GRADS.b must be a real, non-empty double or single array.> muon_step (muon_optimizer (P), P, setfield (G, "b", int8 (G.b)))
%!error <^muon_step: GRADS.b must be a full matrix, not sparse \(convert it: full \(GRADS.b\)\)\.$> muon_step (muon_optimizer (P), P, setfield (G, "b", sparse (G.b)))
%!error id=muonlab:badShape muon_step (muon_optimizer (P), P, setfield (G, "W", 1))
%!error <muon_step: PARAMS.W must be double, the class of its optimizer state, not single.> muon_step (muon_optimizer (P), setfield (P, "W", single (P.W)), G)
%!error <muon_step: PARAMS.b must be single, the class of its optimizer state, not double.> muon_step (muon_optimizer (setfield (P, "b", single (P.b))), P, G)
