## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_checkpoint ()
## Suite (run with @code{test test_checkpoint}): muon_save_state / muon_load_state
## checkpoints (format version 2) against corruption and out-of-domain values.
## @itemize
## @item 1,000 random single-byte changes of a checkpoint (fixed seed, every byte of the
## file a candidate) and truncations at many lengths, and appended bytes: each one a
## clean @code{muonlab:badState} error or a load of exactly the saved state (isequal),
## never a different state; the counts are printed;
## @item out-of-domain values (NaN / Inf momentum, negative or NaN second moment, wrong
## class, wrong shape, bad counters, options and structure) written into an otherwise
## valid file by an independent writer of the documented layout (so the checksum is
## right and only the domain check can catch them): each a @code{muonlab:badState};
## @item what is in the domain still loads: a poisoned momentum under PoisonMomentum,
## NaN in a pending accumulation buffer, a file written by the independent writer;
## @item the state passed back to muon_update / muon_step: a cell or string state, a
## momentum of the wrong class or shape, is @code{muonlab:badState}, never a fresh start,
## while [] still starts fresh.
## @end itemize
## @end deftypefn

function test_checkpoint ()
  help test_checkpoint
endfunction

## outcome of loading FILE: "error" (muonlab:badState), "exact" (isequal to OPT), or
## what else happened ("different", or "other error: <id> <message>")
%!function r = outcome (file, P, opt)
%!  try
%!    o = muon_load_state (file, P);
%!    if (isequal (o, opt))
%!      r = "exact";
%!    else
%!      r = "different";
%!    endif
%!  catch err
%!    if (strcmp (err.identifier, "muonlab:badState"))
%!      r = "error";
%!    else
%!      r = sprintf ("other error: %s %s", err.identifier, err.message);
%!    endif
%!  end_try_catch

%!function [P, opt] = trained_state ()
%!  randn ("state", 31);
%!  P = struct ("W", randn (12, 8), "V", single (randn (6, 10)), "T", randn (5, 4, 2),
%!              "b", randn (12, 1), "embed", randn (20, 4));
%!  opt = muon_optimizer (P, "AccumulationSteps", 2, "LossScaler", "dynamic",
%!                        "WeightDecay", 0.1, "ParamOptions", struct ("V", {{"Beta", 0.9}}));
%!  for t = 1:5                      # ends mid-window: accumulation buffers pending
%!    G = struct ();
%!    for n = fieldnames (P).'
%!      G.(n{1}) = opt.scaler.scale * randn (size (P.(n{1})));
%!    endfor
%!    G.V = single (G.V);
%!    [P, opt] = muon_step (opt, P, G);
%!  endfor

%!shared P, opt, f, g
%! [P, opt] = trained_state ();
%! f = [tempname() ".ckpt"];
%! g = [tempname() ".ckpt"];
%! muon_save_state (f, opt);

%!test
%! ## the state is the one the flips below are compared against
%! assert (opt.micro, 1);
%! assert (! isempty (opt.accum.W) && ! isempty (opt.muon.V));
%! assert (outcome (f, P, opt), "exact");

%!test
%! ## 1,000 random single-byte changes: a clean error or the exact state, never another
%! b0 = file_bytes (f);
%! nb = numel (b0);
%! rand ("state", 2026);
%! pos = randi (nb, 1000, 1);
%! mask = uint8 (randi (255, 1000, 1));     # XOR with 1..255: the byte always changes
%! counts = struct ("error", 0, "exact", 0);
%! for i = 1:1000
%!   b = b0;
%!   b(pos(i)) = bitxor (b(pos(i)), mask(i));
%!   put_bytes (g, b);
%!   r = outcome (g, P, opt);
%!   if (! isfield (counts, r))
%!     error ("flip %d (byte %d ^ %d): %s", i, pos(i), mask(i), r);
%!   endif
%!   counts.(r) += 1;
%! endfor
%! printf ("      1000 byte flips of a %d-byte checkpoint: %d errors, %d exact loads\n",
%!         nb, counts.error, counts.exact);
%! assert (counts.error + counts.exact, 1000);

%!test
%! ## truncations at many lengths, and appended bytes
%! b0 = file_bytes (f);
%! nb = numel (b0);
%! lens = unique ([0:130, 131:97:nb-1, nb-40:nb-1]);
%! lens = lens(lens < nb);
%! for L = lens
%!   put_bytes (g, b0(1:L));
%!   r = outcome (g, P, opt);
%!   if (! strcmp (r, "error"))
%!     error ("truncation to %d of %d bytes: %s", L, nb, r);
%!   endif
%! endfor
%! for extra = {uint8(0), uint8([10 0 0 0]), b0(1:100)}
%!   put_bytes (g, [b0, extra{1}]);
%!   assert (outcome (g, P, opt), "error");
%! endfor
%! printf ("      %d truncations and 3 extensions: all errors\n", numel (lens));

## ---------------------------------------------------------------- the domain
%!function check_bad (f, P, o, pattern)
%!  write_ckpt (f, "muon_optimizer", o);
%!  try
%!    muon_load_state (f, P);
%!    error ("test:noError", "no error for '%s'", pattern);
%!  catch err
%!    if (! strcmp (err.identifier, "muonlab:badState"))
%!      error ("%s: got %s: %s", pattern, err.identifier, err.message);
%!    endif
%!    if (isempty (strfind (err.message, pattern)))
%!      error ("expected '%s' in: %s", pattern, err.message);
%!    endif
%!  end_try_catch

%!test
%! ## the independent writer's file loads: so a rejection below is the domain check's
%! write_ckpt (g, "muon_optimizer", opt);
%! assert (outcome (g, P, opt), "exact");
%! c = {};
%! o = opt; o.muon.W.momentum(3) = NaN;          c(end+1,:) = {o, "OPT.muon.W.momentum must not contain NaN or Inf"};
%! o = opt; o.muon.T.momentum(end) = -Inf;       c(end+1,:) = {o, "OPT.muon.T.momentum must not contain NaN or Inf"};
%! o = opt; o.adam.b.v(2) = -1e-30;              c(end+1,:) = {o, "OPT.adam.b.v must not be negative"};
%! o = opt; o.adam.embed.v(1) = NaN;             c(end+1,:) = {o, "OPT.adam.embed.v must not contain NaN or Inf"};
%! o = opt; o.adam.b.m(1) = Inf;                 c(end+1,:) = {o, "OPT.adam.b.m must not contain NaN or Inf"};
%! o = opt; o.muon.W.momentum = int32 (o.muon.W.momentum);  c(end+1,:) = {o, "OPT.muon.W.momentum must be a real double or single array"};
%! o = opt; o.muon.W.momentum(1) += 1e-3i;       c(end+1,:) = {o, "OPT.muon.W.momentum must be a real double or single array"};
%! o = opt; o.muon.V.momentum = {};              c(end+1,:) = {o, "OPT.muon.V.momentum must be a real double or single array"};
%! o = opt; o.adam.b.v = o.adam.b.v > 0;         c(end+1,:) = {o, "OPT.adam.b.v must be a real double or single array"};
%! o = opt; o.muon.W.momentum = o.muon.W.momentum.';        c(end+1,:) = {o, "OPT.muon.W.momentum must be of size 12 x 8"};
%! o = opt; o.muon.T.momentum = o.muon.T.momentum(:,:,1);   c(end+1,:) = {o, "OPT.muon.T.momentum must be of size 5 x 4 x 2"};
%! o = opt; o.adam.embed.m = [];                 c(end+1,:) = {o, "OPT.adam.embed.m must be of size 20 x 4"};
%! o = opt; o.accum.W = o.accum.W(1:end-1,:);    c(end+1,:) = {o, "OPT.accum.W must be of size 12 x 8"};
%! o = opt; o.muon.W = {};                       c(end+1,:) = {o, "OPT.muon.W must be [] or a muon_update state"};
%! o = opt; o.muon.W.step = -1;                  c(end+1,:) = {o, "OPT.muon.W.step must be a non-negative integer"};
%! o = opt; o.adam.b.step = 2.5;                 c(end+1,:) = {o, "OPT.adam.b.step must be a non-negative integer"};
%! o = opt; o.muon.W.form = "sgd";               c(end+1,:) = {o, "OPT.muon.W.form is 'sgd' but the parameter's MOMENTUMFORM is 'ema'"};
%! o = opt; o.muon.W.form = "adam";              c(end+1,:) = {o, "OPT.muon.W.form must be 'ema' or 'sgd'"};
%! o = opt; o.muon.W = rmfield (o.muon.W, "step");          c(end+1,:) = {o, "OPT.muon.W lacks the field 'step'"};
%! o = opt; o.step = NaN;                        c(end+1,:) = {o, "OPT.step must be a non-negative integer"};
%! o = opt; o.ns_calls = -3;                     c(end+1,:) = {o, "OPT.ns_calls must be a non-negative integer"};
%! o = opt; o.micro = 2;                         c(end+1,:) = {o, "OPT.micro must be an integer in [0, accum_steps)"};
%! o = opt; o.skipped = int8 (0);                c(end+1,:) = {o, "OPT.skipped must be a non-negative integer"};
%! o = opt; o.scaler.scale = 0;                  c(end+1,:) = {o, "OPT.scaler.scale must be finite, at least min_scale"};
%! o = opt; o.scaler.backoff = NaN;              c(end+1,:) = {o, "OPT.scaler.backoff must be in (0, 1]"};
%! o = opt; o.muon_lr = -0.1;                    c(end+1,:) = {o, "OPT.muon_lr must be a non-negative finite scalar"};
%! o = opt; o.adam_betas = [0.9 1];              c(end+1,:) = {o, "OPT.adam_betas must be two numbers in [0, 1)"};
%! o = opt; o.clip_policy = "sometimes";         c(end+1,:) = {o, "OPT.clip_policy must be"};
%! o = opt; o.poison = 1;                        c(end+1,:) = {o, "OPT.poison must be true or false"};
%! o = opt; o.update_args.V = {"Beta", 2};       c(end+1,:) = {o, "OPT.update_args.V: BETA must be a scalar in [0, 1)"};
%! o = opt; o.update_args.V = {"Bogus", 2};      c(end+1,:) = {o, "OPT.update_args.V: unknown option 'Bogus'"};
%! o = opt; o.route.b = "muon";                  c(end+1,:) = {o, "OPT.update_args lacks the field 'b'"};
%! o = opt; o.route.W = "adamw";                 c(end+1,:) = {o, "OPT.update_args has the unknown field 'W'"};
%! o = opt; o.names{2} = "U";                    c(end+1,:) = {o, "OPT.route lacks the field 'U'"};
%! o = opt; o.shapes{1} = [12 8 1.5];            c(end+1,:) = {o, "OPT.shapes must hold one size vector per parameter"};
%! o = opt; o.classes{1} = "int8";               c(end+1,:) = {o, "OPT.classes must be 'double' or 'single' per parameter"};
%! o = rmfield (opt, "scaler");                  c(end+1,:) = {o, "OPT lacks the field 'scaler'"};
%! o = opt; o.extra = 1;                         c(end+1,:) = {o, "OPT has the unknown field 'extra'"};
%! o = opt; o.version = 2;                       c(end+1,:) = {o, "OPT.version must be 1"};
%! o = opt; o.type = "other";                    c(end+1,:) = {o, "OPT.type must be 'muonlab.optimizer'"};
%! c(end+1,:) = {42, "OPT must be a scalar struct"};
%! for i = 1:rows (c)
%!   check_bad (g, P, c{i,:});
%! endfor
%! printf ("      %d out-of-domain states with valid checksums: all errors\n", rows (c));

%!test
%! ## the Muon family's buffer (NorMuon's V, AdaMuon's V, Dion's Q, NAMO's v, Dion2's empty
%! ## one): of the parameter's algorithm, size and class (NAMO's v in double), there; the
%! ## sizes from the closed forms of muon_update's help for a 6 x 8 W
%! Q = struct ("W", reshape (sin (1:48), 6, 8));
%! GQ = struct ("W", reshape (cos (1:48), 6, 8));
%! c = {};
%! sizes = {"normuon", [6 1], "single"; "adamuon", [6 8], "single"; "dion", [6 6], "single";
%!          "namo", [1 1], "single"; "dion2", [0 0], ""};
%! for k = 1:rows (sizes)
%!   a = sizes{k,1};
%!   o = muon_optimizer (Q, "Algorithm", a);
%!   [~, o] = muon_step (o, Q, GQ);
%!   assert (size (o.muon.W.family.buffer), sizes{k,2});
%!   write_ckpt (g, "muon_optimizer", o);
%!   assert (outcome (g, Q, o), "exact");
%!   b = o; b.muon.W.family.buffer = ones (sizes{k,2} + 1);  c(end+1,:) = {b, "OPT.muon.W.family.buffer must be "};
%!   b = o; b.muon.W = rmfield (b.muon.W, "family");             c(end+1,:) = {b, sprintf("OPT.muon.W.family must hold the state of ALGORITHM '%s'", a)};
%!   b = o; b.muon.W.family.algorithm = "muon";                  c(end+1,:) = {b, sprintf("OPT.muon.W.family must hold the state of ALGORITHM '%s'", a)};
%!   if (! isempty (sizes{k,3}))                 # the other class
%!     b = o; b.muon.W.family.buffer = cast (b.muon.W.family.buffer, sizes{k,3});
%!     c(end+1,:) = {b, sprintf("OPT.muon.W.family.buffer must be double, as %s's buffer is", upper (a))};
%!   endif
%!   for i = 1:rows (c)
%!     check_bad (g, Q, c{i,:});
%!     ## muon_step refuses the same state (the one definition, family_state)
%!     try
%!       muon_step (c{i,1}, Q, GQ);
%!       error ("test:noError", "muon_step: no error for '%s'", c{i,2});
%!     catch err
%!       assert (err.identifier, "muonlab:badState");
%!       assert (! isempty (strfind (err.message, strrep (c{i,2}, "OPT.muon.W", "STATE"))),
%!               err.message);
%!     end_try_catch
%!   endfor
%!   c = {};
%! endfor
%! ## a single-precision parameter keeps NAMO's v in double and the rest in single
%! S1 = struct ("W", single (Q.W));
%! o = muon_optimizer (S1, "Algorithm", "namo");
%! [~, o] = muon_step (o, S1, struct ("W", single (GQ.W)));
%! write_ckpt (g, "muon_optimizer", o);
%! assert (outcome (g, S1, o), "exact");
%! b = o; b.muon.W.family.buffer = single (b.muon.W.family.buffer);
%! check_bad (g, S1, b, "OPT.muon.W.family.buffer must be double, as NAMO's buffer is");
%! o = muon_optimizer (S1, "Algorithm", "normuon");
%! [~, o] = muon_step (o, S1, struct ("W", single (GQ.W)));
%! write_ckpt (g, "muon_optimizer", o);
%! assert (outcome (g, S1, o), "exact");
%! b = o; b.muon.W.family.buffer = double (b.muon.W.family.buffer);
%! check_bad (g, S1, b, "OPT.muon.W.family.buffer must be single, as NORMUON's buffer is");

%!test
%! ## dion and dion2 (M += G) refuse torch's momentum arithmetic: a state that names both
%! ## fails the check where it is saved and loaded, as the step refuses it
%! Q = struct ("W", reshape (sin (1:48), 6, 8));
%! GQ = struct ("W", reshape (cos (1:48), 6, 8));
%! for a = {"dion", "dion2"}
%!   [~, o] = muon_step (muon_optimizer (Q, "Algorithm", a{1}), Q, GQ);
%!   o.update_args.W(end+1:end+2) = {"MomentumArith", "torch"};
%!   msg = sprintf ("OPT.update_args.W: MOMENTUMARITH 'torch' does not apply to ALGORITHM '%s' (its momentum is M += G).", a{1});
%!   check_bad (g, Q, o, msg);
%!   fail ("muon_save_state (g, o)", regexptranslate ("escape", msg));
%! endfor

%!test
%! ## a convolution weight under normuon_zichongli5 (NormAxis conv_kernel): its V is
%! ## out x in x kh; saved, loaded and stepped on as the uninterrupted run; a per-row V
%! ## (the flattened matrix's) is refused by the load and by muon_step
%! K = struct ("K", reshape (sin (1:216), 6, 4, 3, 3));
%! GK = struct ("K", reshape (cos (1:216), 6, 4, 3, 3));
%! o = muon_optimizer (K, "Preset", "normuon_zichongli5", "LR", 0.02);
%! [K1, o] = muon_step (o, K, GK);
%! assert (size (o.muon.K.family.buffer), [6 4 3]);
%! write_ckpt (g, "muon_optimizer", o);
%! assert (outcome (g, K1, o), "exact");
%! muon_save_state (g, o);
%! o2 = muon_load_state (g, K1);
%! assert (isequal (o2, o));
%! [Ka, oa] = muon_step (o, K1, GK);
%! [Kb, ob] = muon_step (o2, K1, GK);
%! assert (isequal (Ka, Kb) && isequal (oa, ob));
%! b = o; b.muon.K.family.buffer = ones (6, 1);
%! check_bad (g, K1, b, "OPT.muon.K.family.buffer must be the 6 x 4 x 3 V of NORMAXIS 'conv_kernel'");
%! try
%!   muon_step (b, K1, GK);
%!   error ("test:noError", "muon_step: no error for a per-row V");
%! catch err
%!   assert (err.identifier, "muonlab:badState");
%!   assert (! isempty (strfind (err.message, "STATE.family.buffer must be the 6 x 4 x 3 V of NORMAXIS 'conv_kernel'")), err.message);
%! end_try_catch

%!test
%! ## wrong kind, or a payload under another variable name, in a valid container
%! write_ckpt (g, "zero_shard", opt);
%! fail ("muon_load_state (g, P)", "holds a 'zero_shard' checkpoint, not a 'muon_optimizer' one");
%! write_ckpt (g, "muon_optimizer", opt, "state");
%! fail ("muon_load_state (g, P)", "has a payload without the variable 'payload'");

%!test
%! ## in the domain: a poisoned momentum (PoisonMomentum), NaN in a pending accumulation
%! Q = struct ("W", randn (6, 4), "b", randn (6, 1));
%! o = muon_optimizer (Q, "PoisonMomentum", true, "LossScaler", "dynamic",
%!                     "AccumulationSteps", 2);
%! G = struct ("W", Inf (6, 4), "b", randn (6, 1));
%! [Q, o] = muon_step (o, Q, G);
%! [Q, o, info] = muon_step (o, Q, G);
%! assert (info.skipped && ! all (isfinite (o.muon.W.momentum(:))));
%! [Q, o] = muon_step (o, Q, G);          # mid-window, Inf pending in accum.W
%! assert (! all (isfinite (o.accum.W(:))));
%! muon_save_state (g, o);
%! assert (outcome (g, Q, o), "exact");
%! ## without PoisonMomentum the same momentum is out of the domain
%! o.poison = false;
%! fail ("muon_save_state (g, o)", "OPT.muon.W.momentum must not contain NaN or Inf");

## ---------------------------------------------------------------- state passed back
%!test
%! randn ("state", 5);
%! G = randn (6, 4);
%! [~, s] = muon_update (G, []);
%! bad = {{}, "", zeros(0, 4), {s}};
%! bad{end+1} = struct ("momentum", {{}}, "step", 1, "form", "ema");
%! bad{end+1} = setfield (s, "momentum", single (s.momentum(1:3, :)));
%! bad{end+1} = setfield (s, "momentum", int8 (s.momentum));
%! bad{end+1} = setfield (s, "momentum", []);
%! bad{end+1} = setfield (s, "step", NaN);
%! for bad = bad
%!   try
%!     muon_update (G, bad{1});
%!     error ("test:noError", "a malformed state was accepted");
%!   catch err
%!     assert (err.identifier, "muonlab:badState");
%!   end_try_catch
%! endfor
%! ## [] starts fresh, a returned state goes on
%! [~, s1] = muon_update (G, []);
%! [~, s2] = muon_update (G, s1);
%! assert ([s1.step s2.step], [1 2]);

%!test
%! [~, o] = muon_step (opt, P, struct ("W", randn (12, 8), "V", randn (6, 10),
%!                                     "T", randn (5, 4, 2), "b", randn (12, 1),
%!                                     "embed", randn (20, 4)));
%! G = struct ("W", randn (12, 8), "V", randn (6, 10), "T", randn (5, 4, 2),
%!             "b", randn (12, 1), "embed", randn (20, 4));
%! T = o.muon.T;
%! T.momentum = {};
%! W = o.muon.W;
%! W.momentum = single (W.momentum(:, 1:4));
%! for c = {{"W", {}}, {"V", "fresh"}, {"T", T}, {"W", W}, {"V", zeros(0, 3)}}
%!   o2 = o;
%!   o2.muon.(c{1}{1}) = c{1}{2};
%!   try
%!     muon_step (o2, P, G);
%!     error ("test:noError", "a malformed state was accepted");
%!   catch err
%!     assert (err.identifier, "muonlab:badState");
%!   end_try_catch
%! endfor

%!test
%! unlink (f);
%! if (exist (g, "file"))
%!   unlink (g);
%! endif

%!test
%! ## a pending overflow skip is only ever held inside a PerMicroBatchNS window (muon_step
%! ## sets it when a micro-batch's own update overflows, clears it where the window ends):
%! ## a state holding one elsewhere would skip its next step silently, so muon_step,
%! ## muon_save_state and muon_load_state refuse it
%! randn ("state", 3);
%! P = struct ("W1", randn (8, 6), "b", randn (6, 1));
%! G = structfun (@(x) randn (size (x)), P, "UniformOutput", false);
%! f = [tempname() ".ckpt"];
%! unwind_protect
%!   ## the oracle: a real pending skip (an overflowed micro-batch of a PerMicroBatchNS
%!   ## window) is kept by a round trip and skips the window's step
%!   o = muon_optimizer (P, "AccumulationSteps", 2, "PerMicroBatchNS", true,
%!                       "LossScaler", "dynamic");
%!   Gi = G; Gi.W1(1) = Inf;
%!   [~, o] = muon_step (o, P, Gi);
%!   assert (struct (o).overflow_pending && struct (o).micro == 1);
%!   muon_save_state (f, o);
%!   [~, ~, info] = muon_step (muon_load_state (f, P), P, G);
%!   assert (info.skipped && ! info.applied);
%!   ## forged: without PerMicroBatchNS, and between windows
%!   c = {};
%!   o = struct (muon_optimizer (P, "AccumulationSteps", 2));
%!   o.overflow_pending = true;
%!   c(end+1,:) = {o, "OPT.overflow_pending must be false without per_micro_ns (only a PerMicroBatchNS window holds a pending skip)"};
%!   o = struct (muon_optimizer (P, "AccumulationSteps", 2, "PerMicroBatchNS", true));
%!   o.overflow_pending = true;
%!   c(end+1,:) = {o, "OPT.overflow_pending must be false between windows (OPT.micro is 0)"};
%!   for i = 1:rows (c)
%!     o = c{i,1};
%!     try
%!       muon_step (o, P, G);
%!       error ("test:noError", "no error");
%!     catch err
%!       assert ({err.identifier, err.message}, {"muonlab:badState", ["muon_step: " c{i,2} "."]});
%!     end_try_catch
%!     try
%!       muon_save_state (f, o);
%!       error ("test:noError", "no error");
%!     catch err
%!       assert ({err.identifier, err.message},
%!               {"muonlab:badState", ["muon_save_state: " c{i,2} "."]});
%!     end_try_catch
%!     write_ckpt (f, "muon_optimizer", o);
%!     try
%!       muon_load_state (f, P);
%!       error ("test:noError", "no error");
%!     catch err
%!       assert ({err.identifier, err.message},
%!               {"muonlab:badState", sprintf("muon_load_state: '%s' holds an invalid state: %s.", f, c{i,2})});
%!     end_try_catch
%!   endfor
%! unwind_protect_cleanup
%!   if (exist (f, "file"))
%!     unlink (f);
%!   endif
%! end_unwind_protect

%!test
%! ## a write-protected (0444) checkpoint as a user who is not root: muon_save_state and
%! ## zero_save_state refuse it as Octave's save does ("Permission denied"), leaving the
%! ## files as they were and no temporaries; a 0600 file re-saved stays 0600.  Run in a
%! ## child under setpriv when this suite runs as root (CI), here otherwise; skipped where
%! ## the privileges cannot be dropped
%! d = tempname ();
%! u = umask (0);
%! mkdir (d);                            # 0777: the child may write here
%! umask (u);
%! unwind_protect
%!   out = fullfile (d, "out.txt");
%!   code = {
%!     "addpath ('@INST@', '@MEX@');"
%!     "fid = fopen ('@OUT@', 'w'); fprintf (fid, 'started\\n');"
%!     "umask (22); f = fullfile ('@D@', 'c.ckpt'); p = fullfile ('@D@', 'z');"
%!     "opt = muon_optimizer (struct ('W', reshape (1:12, 4, 3)));"
%!     "[~, o2] = muon_step (opt, struct ('W', zeros (4, 3)), struct ('W', ones (4, 3)));"
%!     "L = zero_layout ({[6 4]}, 2); g = {ones(6,4); ones(6,4)};"
%!     "[~, s] = zero_muon_step (L, g, []); [~, s2] = zero_muon_step (L, g, s);"
%!     "muon_save_state (f, opt); z = zero_save_state (p, L, s);"
%!     "function copy_as (f, m)"
%!     "  b = fileread (f); unlink (f); u = umask (m);"
%!     "  x = fopen (f, 'w'); fwrite (x, b); fclose (x); umask (u);"
%!     "end"
%!     "copy_as (f, 77); muon_save_state (f, opt);"
%!     "fprintf (fid, '%o\\n', bitand (stat (f).mode, 511));"
%!     "copy_as (f, 333); b = fileread (f); bz = fileread (z{2}); copy_as (z{2}, 333);"
%!     "try, muon_save_state (f, o2); fprintf (fid, 'saved\\n');"
%!     "catch e, fprintf (fid, '%s\\n', e.message); end"
%!     "try, zero_save_state (p, L, s2); fprintf (fid, 'saved\\n');"
%!     "catch e, fprintf (fid, '%s\\n', e.message); end"
%!     "fprintf (fid, '%d %d %o\\n', strcmp (fileread (f), b), strcmp (fileread (z{2}), bz),"
%!     "         bitand (stat (f).mode, 511));"
%!     "x = dir ('@D@'); fprintf (fid, '%s\\n', strjoin (sort ({x.name}), ' ')); fclose (fid);"};
%!   code = strjoin (code.', "\n");
%!   code = strrep (code, "@INST@", fileparts (which ("muon_save_state")));
%!   code = strrep (code, "@MEX@", fileparts (which ("__muon_ns__")));
%!   code = strrep (code, "@OUT@", out);
%!   code = strrep (code, "@D@", d);
%!   script = fullfile (d, "child.m");
%!   fid = fopen (script, "w");
%!   fputs (fid, ["1;\n" code "\n"]);
%!   fclose (fid);
%!   octave = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%!   cmd = sprintf ("'%s' --no-gui --norc --silent --no-history '%s' 2>&1", octave, script);
%!   if (geteuid () == 0)
%!     cmd = sprintf ("env HOME='%s' setpriv --reuid=65534 --regid=65534 --clear-groups %s",
%!                    d, cmd);
%!   endif
%!   [rc, txt] = system (sprintf ("cd '%s' && timeout -k 5 120 %s", d, cmd));
%!   if (! exist (out, "file"))
%!     printf ("      skipped: no child as a user who is not root (%s)\n", strtrim (txt));
%!   else
%!     assert (rc == 0, "exit %d: %s", rc, txt);
%!     r = strsplit (strtrim (fileread (out)), "\n");
%!     no = "%s: cannot write '%s': Permission denied.";
%!     assert (r, {"started", "600", ...
%!                 sprintf(no, "muon_save_state", fullfile (d, "c.ckpt")), ...
%!                 sprintf(no, "zero_save_state", fullfile (d, "z.rank1.ckpt")), ...
%!                 "1 1 444", ". .. c.ckpt child.m out.txt z.rank0.ckpt z.rank1.ckpt"});
%!   endif
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect
