## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_zero_train_ckpt ()
## Suite (run with @code{test test_zero_train_ckpt}): a training loop of
## @code{zero_train_step} checkpointed with @code{zero_save_state} and loaded with
## @code{zero_load_state}.
## @itemize
## @item the oracle: the same loop run without a break.  Saved in the middle of a window
## (micro-batches accumulated, an overflowed one among them, a dynamic loss scaler that
## has backed off; and with PerMicroBatchNS), loaded on the same world: the state is the
## saved one (isequal) and every later call returns what the unbroken loop returns
## (isequal);
## @item resharding between two windows: saved at W = 4 (stage 2, zero12_allreduce),
## loaded at W = 2 (stage 3, zero3_round_robin); the oracle is the loop run at the new
## world, stage and design from the start through the same history, which gives every
## rank the same dyadic gradient (multiples of 1/64, times a power-of-two loss scale) so
## the rank average is exact at any W: the loaded state equals the oracle's (isequal),
## and the next window on random gradients returns what the oracle's returns;
## @item a window in progress cannot move to another world or design; a file of another
## save mixed in is refused; a loop saved before its first step comes back unstarted.
## @end itemize
## @end deftypefn

function test_zero_train_ckpt ()
  help test_zero_train_ckpt
endfunction

## micro-batch j of the history: every one of n ranks the same dyadic gradient, times scale;
## bad: rank 2's first matrix Inf (an overflowed fp16 micro-batch)
%!function g = grads (shapes, n, j, scale, bad)
%!  randn ("state", 100 + j);
%!  one = cellfun (@(s) round (64 * randn (s)) / 64 * scale, shapes, "UniformOutput", false);
%!  g = repmat (one, n, 1);
%!  if (nargin > 4 && bad)
%!    g{2,1}(1) = Inf;
%!  endif

%!function [R, T] = loop (L, shapes, T, js, args, bad)
%!  R = {};
%!  for j = js
%!    s = 1;
%!    if (! isempty (T))
%!      s = T.scaler.scale;
%!    endif
%!    [R{end+1}, T] = zero_train_step (L, grads (shapes, L.world, j, s, any (j == bad)), T,
%!                                     args{:});
%!  endfor

%!shared shapes, scaler
%! shapes = {[6 4], [5 4], [8 4]};
%! scaler = struct ("InitScale", 2^10, "GrowthInterval", 2);

%!test
%! ## mid-window, same world: the state comes back as saved, the loop goes on as unbroken
%! L = zero_layout (shapes, 4);
%! args = {"Variant", "zero12_allreduce", "AccumulationSteps", 3, "LossScaler", scaler};
%! [R, T9] = loop (L, shapes, [], 1:9, args, 4);
%! [~, T5] = loop (L, shapes, [], 1:5, args, 4);
%! assert ([T5.micro, T5.skipped, T5.step], [2 0 1]);
%! assert (! all (isfinite (T5.accum{2,1}(:))));      # the overflowed micro-batch, kept
%! pre = tempname ();
%! f = zero_save_state (pre, L, T5);
%! unwind_protect
%!   T = zero_load_state (pre, L);
%!   assert (isequal (T, T5));
%!   [R2, T2] = loop (L, shapes, T, 6:9, args, 4);
%!   assert (isequaln (R2, R(6:9)));        # NaN: no norm before a window ends
%!   assert (isequal (T2, T9));
%!   assert ([T9.skipped, T9.step, T9.scaler.scale], [1 2 2^9]);
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

%!test
%! ## PerMicroBatchNS: the updates summed so far travel with each rank's file
%! L = zero_layout (shapes, 2, "Stage", 3);
%! args = {"Variant", "zero3_round_robin", "AccumulationSteps", 2, "PerMicroBatchNS", true};
%! [R, T4] = loop (L, shapes, [], 1:4, args, []);
%! [~, T3] = loop (L, shapes, [], 1:3, args, []);
%! assert (T3.micro, 1);
%! assert (! isempty (T3.upd{1}));
%! pre = tempname ();
%! f = zero_save_state (pre, L, T3);
%! unwind_protect
%!   T = zero_load_state (pre, L);
%!   assert (isequal (T, T3));
%!   [R2, T] = loop (L, shapes, T, 4, args, []);
%!   assert (isequaln (R2{1}, R{4}));
%!   assert (isequal (T, T4));
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

%!test
%! ## between two windows: W = 4, stage 2 -> W = 2, stage 3, another design; the oracle is
%! ## the loop run there from the start
%! L4 = zero_layout (shapes, 4);
%! L2 = zero_layout (shapes, 2, "Stage", 3);
%! a4 = {"Variant", "zero12_allreduce", "AccumulationSteps", 2, "LossScaler", scaler};
%! a2 = {"Variant", "zero3_round_robin", "AccumulationSteps", 2, "LossScaler", scaler};
%! [~, T4] = loop (L4, shapes, [], 1:6, a4, 3);
%! [~, O] = loop (L2, shapes, [], 1:6, a2, 3);
%! assert ([T4.micro, T4.step, T4.skipped], [0 2 1]);
%! pre = tempname ();
%! f = zero_save_state (pre, L4, T4);
%! unwind_protect
%!   T = zero_load_state (pre, L2, "Variant", "zero3_round_robin");
%!   assert (isequal (T, O));
%!   ## the next window on random (non-dyadic) gradients: as the oracle's
%!   randn ("state", 7);
%!   for j = 1:2
%!     g = cellfun (@(s) randn (s) * T.scaler.scale, repmat (shapes, 2, 1), "UniformOutput", false);
%!     [R, T] = zero_train_step (L2, g, T, a2{:});
%!     [Ro, O] = zero_train_step (L2, g, O, a2{:});
%!   endfor
%!   assert (R.applied);
%!   assert (isequaln (R, Ro));
%!   assert (isequal (T, O));
%!   assert (max (R.rel_err) <= 1e-12);
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

%!test
%! ## a window in progress stays where it was saved; a mixed-in file of another save fails
%! L = zero_layout (shapes, 4);
%! args = {"Variant", "zero12_allreduce", "AccumulationSteps", 2};
%! [~, T] = loop (L, shapes, [], 1:3, args, []);
%! pre = tempname ();
%! pz = tempname ();
%! f = [zero_save_state(pre, L, T), zero_save_state(pz, L, T.zero)];
%! unwind_protect
%!   msg = sprintf (["zero_load_state: the files under '%s' hold a window in progress " ...
%!                   "(micro-batch 1 of 2): it resumes only on the world, layout, design " ...
%!                   "and bucket size it was saved with."], pre);
%!   for other = {{zero_layout(shapes, 2)}, {L, "Variant", "zero2_multi_owner"}, ...
%!                {zero_layout(shapes, 4, "Stage", 3)}}
%!     try
%!       zero_load_state (pre, other{1}{:});
%!       error ("no error");
%!     catch err
%!       assert (err.identifier, "muonlab:badState");
%!       assert (err.message, msg);
%!     end_try_catch
%!   endfor
%!   ## the momentum alone (a zero_muon_step state) still loads anywhere
%!   assert (zero_load_state (pz, zero_layout (shapes, 2)).step, 1);
%!   copyfile ([pre ".rank1.ckpt"], [pz ".rank1.ckpt"]);
%!   try
%!     zero_load_state (pz, L);
%!     error ("no error");
%!   catch err
%!     assert (err.identifier, "muonlab:badState");
%!     assert (err.message, sprintf (["zero_load_state: '%s.rank1.ckpt' is a file of " ...
%!                                    "another save than rank 0's (its digests differ)."], pz));
%!   end_try_catch
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

%!test
%! ## before the first step (one overflowed window, skipped): unstarted at any world
%! L = zero_layout (shapes, 4);
%! args = {"Variant", "zero12_allreduce", "LossScaler", scaler};
%! [~, T] = loop (L, shapes, [], 1, args, 1);
%! [~, O] = loop (zero_layout (shapes, 2), shapes, [], 1, args, 1);
%! assert ([T.step, T.skipped, isempty(T.zero)], [0 1 1]);
%! pre = tempname ();
%! f = zero_save_state (pre, L, T);
%! unwind_protect
%!   assert (isequal (zero_load_state (pre, L), T));
%!   assert (isequal (zero_load_state (pre, zero_layout (shapes, 2)), O));
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

%!error <zero_save_state: STATE must be a state returned by zero_train_step.>
%! L = zero_layout ({[4 4], [2 4]}, 2);
%! [~, T] = zero_train_step (L, {ones(4), ones(2, 4); ones(4), ones(2, 4)}, [],
%!                           "Variant", "zero12_allreduce");
%! zero_save_state (tempname (), L, rmfield (T, "accum"));
%!error <zero_save_state: STATE belongs to another layout than L.>
%! L = zero_layout ({[4 4], [2 4]}, 2);
%! [~, T] = zero_train_step (L, {ones(4), ones(2, 4); ones(4), ones(2, 4)}, [],
%!                           "Variant", "zero12_allreduce");
%! zero_save_state (tempname (), zero_layout ({[4 4], [2 4]}, 4), T);
%!error <zero_save_state: STATE is not a valid state of zero_train_step: its counters or options are no valid values.>
%! L = zero_layout ({[4 4], [2 4]}, 2);
%! [~, T] = zero_train_step (L, {ones(4), ones(2, 4); ones(4), ones(2, 4)}, [],
%!                           "Variant", "zero12_allreduce", "AccumulationSteps", 2);
%! T.micro = 2;                                   # past the window
%! zero_save_state (tempname (), L, T);
%!error <zero_save_state: STATE is not a valid state of zero_train_step: its loss scaler is not one of zero_train_step.>
%! L = zero_layout ({[4 4], [2 4]}, 2);
%! [~, T] = zero_train_step (L, {ones(4), ones(2, 4); ones(4), ones(2, 4)}, [],
%!                           "Variant", "zero12_allreduce", "LossScaler", "dynamic");
%! T.scaler.scale = NaN;
%! zero_save_state (tempname (), L, T);
%!error <zero_save_state: STATE.zero.momentum\{1\} must not contain NaN or Inf.>
%! ## a momentum poisoned by PoisonMomentum (#8432): the save refuses it, as the helps of
%! ## zero_train_step and zero_save_state say
%! L = zero_layout ({[4 4], [2 4]}, 2);
%! [R, T] = zero_train_step (L, {[Inf, ones(1, 3); ones(3, 4)], ones(2, 4); ones(4), ones(2, 4)},
%!                           [], "PoisonMomentum", true);
%! assert (R.skipped && ! all (isfinite (T.zero.momentum{1})));
%! zero_save_state (tempname (), L, T);

%!test
%! ## the training part's options, loss scaler and reference momenta are checked on load
%! ## (files resealed with a valid checksum) and on save: each a muonlab:badState error
%! ## naming what is wrong, never a silent NaN or a changed trajectory at the next step
%! L = zero_layout ({[8 8], [6 8]}, 2);
%! g = {ones(8), ones(6, 8); ones(8), ones(6, 8)};
%! T = [];
%! for t = 1:2
%!   [~, T] = zero_train_step (L, cellfun (@(x) x * t, g, "UniformOutput", false), T);
%! endfor
%! c = {};
%! t = T; t.ref{1}.momentum(1) = NaN;      c(end+1,:) = {t, "STATE.ref{1}.momentum must not contain NaN or Inf"};
%! t = T; t.ref{2}.momentum = single (t.ref{2}.momentum);  c(end+1,:) = {t, "STATE.ref{2}.momentum must be double"};
%! t = T; t.ref{2}.momentum = ones (6, 7); c(end+1,:) = {t, "STATE.ref{2}.momentum must be of size 6 x 8"};
%! t = T; t.ref{1}.form = "sgd";           c(end+1,:) = {t, "STATE.ref{1}.form is 'sgd'"};
%! t = T; t.key.clip_norm = -1;            c(end+1,:) = {t, "CLIPNORM must be a positive finite scalar"};
%! t = T; t.key.clip_policy = "bogus";     c(end+1,:) = {t, "CLIPPOLICY must be"};
%! t = T; t.scaler.growth = 0.5; t.key.scaler.growth = 0.5;  c(end+1,:) = {t, "STATE.scaler.growth must be a finite scalar of at least 1"};
%! t = T; t.scaler.backoff = 2; t.key.scaler.backoff = 2;    c(end+1,:) = {t, "STATE.scaler.backoff must be in (0, 1]"};
%! t = T; t.scaler.min_scale = 0; t.key.scaler.min_scale = 0; c(end+1,:) = {t, "STATE.scaler.min_scale must be a positive finite scalar"};
%! t = T; t.scaler.growth = 4;             c(end+1,:) = {t, "its loss scaler's settings differ"};
%! pre = tempname ();
%! f = zero_save_state (pre, L, T);
%! unwind_protect
%!   assert (isequal (zero_load_state (pre, L), T));
%!   S0 = cellfun (@read_payload, f, "UniformOutput", false);
%!   for i = 1:rows (c)
%!     t = c{i,1};
%!     ## the save refuses it
%!     try
%!       zero_save_state (tempname (), L, t);
%!       error ("test:noError", "save: no error for '%s'", c{i,2});
%!     catch err
%!       assert (err.identifier, "muonlab:badState");
%!       assert (! isempty (strfind (err.message, c{i,2})), err.message);
%!     end_try_catch
%!     ## the load refuses the same change in the files (written as version 2, which has no
%!     ## digests to tell the change first)
%!     for r = 1:2
%!       S = setfield (rmfield (S0{r}, "digests"), "version", 2);
%!       S.train.ref = t.ref;
%!       S.train.scaler = t.scaler;
%!       for fn = fieldnames (S.train.options).'
%!         S.train.options.(fn{1}) = t.key.(fn{1});
%!       endfor
%!       write_ckpt (f{r}, "zero_shard", S);
%!     endfor
%!     try
%!       zero_load_state (pre, L);
%!       error ("test:noError", "load: no error for '%s'", c{i,2});
%!     catch err
%!       assert (err.identifier, "muonlab:badState");
%!       assert (! isempty (strfind (err.message, c{i,2})), err.message);
%!       assert (! isempty (strfind (err.message, f{1})), err.message);
%!     end_try_catch
%!   endfor
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

%!test
%! ## states zero_train_step never makes are refused by the step, the save and the load
%! ## (files resealed with a valid checksum): a pending skip outside a PerMicroBatchNS
%! ## window or without its reason, a reason without a pending skip (each would skip the
%! ## next step silently), and shards whose step disagrees with the loop's
%! L = zero_layout ({[8 8], [6 8]}, 2);
%! g = {ones(8), ones(6, 8); ones(8), ones(6, 8)};
%! T = [];
%! for t = 1:2
%!   [~, T] = zero_train_step (L, cellfun (@(x) x * t, g, "UniformOutput", false), T);
%! endfor
%! assert ([T.step, T.zero.step, T.ref{1}.step, T.micro], [2 2 2 0]);
%! [~, Tm] = zero_train_step (L, g, [], "AccumulationSteps", 2);   # in a window
%! assert (Tm.micro, 1);
%! c = {};   # {state, options, the step's message, the save's and the load's reason}
%! t = T; t.pending = true; t.why = "overflow";
%! c(end+1,:) = {t, {}, "STATE.pending must be false between windows (STATE.micro is 0)", ...
%!               "it holds a pending skip between windows (micro-batch count 0)"};
%! t = T; t.why = "bogus";
%! c(end+1,:) = {t, {}, "STATE.why must be the reason of a pending skip: non-empty exactly when STATE.pending is true", ...
%!               "its skip reason (why) must be non-empty exactly when a skip is pending"};
%! t = Tm; t.pending = true; t.why = "overflow";
%! c(end+1,:) = {t, {"AccumulationSteps", 2}, "STATE.pending must be false without PerMicroBatchNS (only its window holds a pending skip)", ...
%!               "it holds a pending skip without PerMicroBatchNS"};
%! for i = 1:rows (c)
%!   t = c{i,1};
%!   try
%!     zero_train_step (L, g, t, c{i,2}{:});
%!     error ("test:noError", "no error");
%!   catch err
%!     assert ({err.identifier, err.message},
%!             {"muonlab:badState", ["zero_train_step: " c{i,3} "."]});
%!   end_try_catch
%!   try
%!     zero_save_state (tempname (), L, t);
%!     error ("test:noError", "no error");
%!   catch err
%!     assert ({err.identifier, err.message},
%!             {"muonlab:badState", ["zero_save_state: STATE is not a valid state of zero_train_step: " c{i,4} "."]});
%!   end_try_catch
%! endfor
%! ## the save of a step count the design's momentum does not share
%! t = T; t.zero.step = 7;
%! msg = "the design's momentum has taken 7 steps, the loop 2 (without PerMicroBatchNS or PoisonMomentum they step together)";
%! try
%!   zero_save_state (tempname (), L, t);
%!   error ("test:noError", "no error");
%! catch err
%!   assert ({err.identifier, err.message},
%!           {"muonlab:badState", ["zero_save_state: STATE is not a valid state of zero_train_step: " msg "."]});
%! end_try_catch
%! ## the load: each edit in every rank's file (version 2: no digests to tell it first)
%! pre = tempname ();
%! f = zero_save_state (pre, L, T);
%! unwind_protect
%!   S0 = cellfun (@read_payload, f, "UniformOutput", false);
%!   e = {@(S) setfield(S, "step", 7), msg;
%!        @(S) setfield(S, "train", setfield(S.train, "step", 9)), ...
%!        "the step of its reference momentum of matrix 1 (2) differs from its step count (9)";
%!        @(S) setfield(S, "train", setfield(setfield(S.train, "pending", true), "why", "overflow")), ...
%!        c{1,4};
%!        @(S) setfield(S, "train", setfield(S.train, "why", "bogus")), c{2,4}};
%!   for i = 1:rows (e)
%!     for r = 1:2
%!       S = e{i,1} (setfield (rmfield (S0{r}, "digests"), "version", 2));
%!       write_ckpt (f{r}, "zero_shard", S);
%!     endfor
%!     try
%!       zero_load_state (pre, L);
%!       error ("test:noError", "no error");
%!     catch err
%!       assert ({err.identifier, err.message},
%!               {"muonlab:badState", sprintf("zero_load_state: '%s' holds an invalid training state: %s.", f{1}, e{i,2})});
%!     end_try_catch
%!   endfor
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect
%! ## what the loop does make still goes through: PerMicroBatchNS steps the momentum at
%! ## every micro-batch (4 steps for 2 windows of 2), and a pending skip mid-window
%! o = {"AccumulationSteps", 2, "PerMicroBatchNS", true};
%! T = [];
%! for t = 1:4
%!   [~, T] = zero_train_step (L, cellfun (@(x) x * t, g, "UniformOutput", false), T, o{:});
%! endfor
%! gi = g; gi{2,1}(1) = Inf;
%! [~, T] = zero_train_step (L, gi, T, o{:});
%! assert ([T.step, T.zero.step, T.micro, T.pending], [2 4 1 1]);
%! assert (! isempty (T.why));
%! pre = tempname ();
%! f = zero_save_state (pre, L, T);
%! unwind_protect
%!   assert (isequal (zero_load_state (pre, L), T));
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect
