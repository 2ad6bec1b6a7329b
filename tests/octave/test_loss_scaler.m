## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_loss_scaler ()
## Suite (run with @code{test test_loss_scaler}): the dynamic loss scaler of
## @code{muon_optimizer} / @code{muon_step} and @code{zero_train_step} (option
## @qcode{"LossScaler"}), its hysteresis and its growth rules.
## @itemize
## @item the scale trace of an overflow pattern (clean x3, overflow, clean, overflow x2,
## clean x7; window 2, hysteresis 2, initial scale 16), step for step as
## @code{info.loss_scale}, against traces written out by hand from DeepSpeed's
## DynamicLossScaler.update_scale (deepspeed/runtime/fp16/loss_scaler.py at edaa7221:
## a back-off only when the hysteresis counter is 1, else the counter drops; growth when
## stable_interval = cur_iter - last_overflow_iter - 1 is a positive multiple of the
## window, the counter refilled then, or on every clean step with consecutive_hysteresis),
## and from Megatron's DynamicGradScaler (growth after the window's clean steps in a row);
## Hysteresis 1 keeps the trace muonlab gave before;
## @item a skipped step leaves the parameters and the optimizer's state alone, but for its
## counters (step skipped, the scaler's);
## @item a checkpoint saved mid-hysteresis (muon_save_state, zero_save_state) resumes the
## same trace; an older checkpoint without the hysteresis fields loads as Hysteresis 1;
## @item the option's errors, and the answers to a peer's name of a setting (DeepSpeed's,
## Megatron's, torch's GradScaler's), inside the struct and as an option.
## @end itemize
## @end deftypefn

function test_loss_scaler ()
  help test_loss_scaler
endfunction

## the scales info.loss_scale reports over the overflow pattern pat (1: the gradient holds an
## Inf), from state opt on; the parameters, the state and the infos at the end
%!function [sc, opt, P, infos] = run_pattern (opt, P, pat)
%!  sc = zeros (1, numel (pat));
%!  infos = cell (1, numel (pat));
%!  for t = 1:numel (pat)
%!    s = opt.scaler.scale;
%!    G = struct ("W", s * reshape (1:12, 4, 3) / 16, "b", s * [1; 2; 3; 4] / 8);
%!    if (pat(t))
%!      G.W(2,2) = Inf;
%!    endif
%!    [P, opt, infos{t}] = muon_step (opt, P, G);
%!    sc(t) = infos{t}.loss_scale;
%!  endfor

%!shared P0, pat, ds
%! P0 = struct ("W", reshape (sin (1:12), 4, 3), "b", cos ((1:4).'));
%! pat = [0 0 0 1 0 1 1 0 0 0 0 0 0 0];
%! ds = struct ("InitScale", 16, "GrowthInterval", 2, "Hysteresis", 2, "GrowthRule", "deepspeed");

%!test
%! ## DeepSpeed, hysteresis 2, consecutive_hysteresis false, scale_window 2, init_scale 16:
%! ## iters 0-2 clean (stable_interval 0, 1, 2: grows at 2); iter 3 overflows with the
%! ## counter 2 (counter 1, scale kept); iter 4 clean (stable 0); iters 5, 6 overflow with
%! ## the counter 1 (back-off twice, the counter stays 1); iters 7.. clean: stable 0, 1, 2
%! ## (grow, counter 2), 3, 4 (grow), 5, 6 (grow)
%! opt = muon_optimizer (P0, "LossScaler", ds);
%! [sc, opt] = run_pattern (opt, P0, pat);
%! assert (sc, [16 16 16 32 32 32 16 8 8 8 16 16 32 32]);
%! assert (opt.scaler.scale, 64);
%! assert ([opt.scaler.hysteresis_left opt.scaler.overflows opt.scaler.good_steps], [2 3 7]);
%! assert ([opt.step opt.skipped], [11 3]);          # (step: the steps applied)

%!test
%! ## the same with consecutive_hysteresis true: iter 4's clean step refills the counter,
%! ## so iter 5 only drops it and iter 6 backs off once; growth as before from iter 7
%! opt = muon_optimizer (P0, "LossScaler", setfield (ds, "ConsecutiveHysteresis", true));
%! [sc, opt] = run_pattern (opt, P0, pat);
%! assert (sc, [16 16 16 32 32 32 32 16 16 16 32 32 64 64]);
%! assert ([opt.scaler.scale opt.scaler.hysteresis_left], [128 2]);

%!test
%! ## Megatron's DynamicGradScaler (hysteresis 2, growth_interval 2): growth after 2 clean
%! ## steps in a row (t 2; t 9, 11, 13), the counter refilled only by a growth
%! opt = muon_optimizer (P0, "LossScaler", rmfield (ds, "GrowthRule"));
%! [sc, opt] = run_pattern (opt, P0, pat);
%! assert (sc, [16 16 32 32 32 32 16 8 8 16 16 32 32 64]);
%! assert ([opt.scaler.scale opt.scaler.good_steps], [64 1]);

%!test
%! ## Hysteresis 1 (the default): every overflow backs off, as muonlab always did
%! opt = muon_optimizer (P0, "LossScaler", struct ("InitScale", 16, "GrowthInterval", 2));
%! [sc, opt] = run_pattern (opt, P0, pat);
%! assert (sc, [16 16 32 32 16 16 8 4 4 8 8 16 16 32]);
%! assert ([opt.scaler.scale opt.scaler.hysteresis opt.scaler.hysteresis_left], [32 1 1]);
%! assert (opt.scaler.consecutive, false);
%! assert (opt.scaler.growth_rule, "interval");
%! ## and the DeepSpeed rule with hysteresis 1: growth one clean step later than the
%! ## interval rule after each overflow (stable_interval 0 on the first clean step)
%! opt = muon_optimizer (P0, "LossScaler", rmfield (ds, "Hysteresis"));
%! sc = run_pattern (opt, P0, pat);
%! assert (sc, [16 16 16 32 16 16 8 4 4 4 8 8 16 16]);

%!test
%! ## the preset "deepspeed": DeepSpeed's fp16 defaults (initial_scale_power 16,
%! ## loss_scale_window 1000, hysteresis 2, min_loss_scale 1); the first growth on
%! ## iter 1000 (stable_interval 1000), the next 1000 steps later
%! Q = struct ("b", 1);
%! opt = muon_optimizer (Q, "LossScaler", "deepspeed");
%! s = opt.scaler;
%! assert ({s.enabled s.scale s.growth_interval s.backoff s.growth s.min_scale s.hysteresis ...
%!          s.consecutive s.growth_rule s.hysteresis_left},
%!         {true 2^16 1000 0.5 2 1 2 false "deepspeed" 2});
%! sc = zeros (1, 2001);
%! for t = 1:2001
%!   [Q, opt, info] = muon_step (opt, Q, struct ("b", opt.scaler.scale * 1e-6));
%!   sc(t) = info.loss_scale;
%! endfor
%! ## iter 1000 (t 1001) grows, the next step uses it; iter 2000 (t 2001), the last, too
%! assert (find (diff (sc)), 1001);
%! assert ([sc(1) sc(1002) opt.scaler.scale], [2^16 2^17 2^18]);

%!test
%! ## a skipped step (the counter drops, the scale stays): parameters, moments and the
%! ## scale unchanged; only the counters move
%! opt = muon_optimizer (P0, "LossScaler", ds);
%! [~, opt, P] = run_pattern (opt, P0, [0 0 0]);
%! [~, o2, P2, infos] = run_pattern (opt, P, 1);
%! assert (infos{1}.skipped && ! infos{1}.applied);
%! assert (P2, P);
%! assert (o2.muon, opt.muon);
%! assert (o2.adam, opt.adam);
%! assert ([o2.scaler.scale o2.scaler.hysteresis_left o2.scaler.overflows], [32 1 1]);
%! assert ([o2.step o2.skipped], [opt.step, opt.skipped + 1]);
%! ## the back-off (counter at 1) skips as well
%! [~, o3, P3, infos] = run_pattern (o2, P2, 1);
%! assert (infos{1}.skipped && isequal (P3, P) && isequal (o3.muon, opt.muon));
%! assert ([o3.scaler.scale o3.scaler.hysteresis_left], [16 1]);

%!test
%! ## muon_save_state / muon_load_state mid-hysteresis (counter 1 after iter 3's overflow):
%! ## the loaded run continues the unbroken trace
%! opt = muon_optimizer (P0, "LossScaler", ds);
%! [sc1, o1, P1] = run_pattern (opt, P0, pat(1:4));
%! assert (o1.scaler.hysteresis_left, 1);
%! f = [tempname() ".ckpt"];
%! unwind_protect
%!   muon_save_state (f, o1);
%!   o2 = muon_load_state (f, P1);
%!   assert (o2.scaler, o1.scaler);
%!   sc2 = run_pattern (o2, P1, pat(5:end));
%!   assert ([sc1 sc2], [16 16 16 32 32 32 16 8 8 8 16 16 32 32]);
%!   ## a checkpoint of an older muonlab (no hysteresis fields): Hysteresis 1, counter 1
%!   o3 = struct (o1);
%!   o3.scaler = rmfield (o3.scaler, {"hysteresis", "consecutive", "growth_rule", ...
%!                                    "hysteresis_left"});
%!   write_ckpt (f, "muon_optimizer", o3);
%!   o4 = muon_load_state (f, P1);
%!   assert ([o4.scaler.hysteresis o4.scaler.hysteresis_left], [1 1]);
%!   assert (o4.scaler.consecutive, false);
%!   assert (o4.scaler.growth_rule, "interval");
%!   sc4 = run_pattern (o4, P1, pat(5:end));
%!   assert (sc4, [32 32 16 8 8 16 16 32 32 64]);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## zero_train_step: the same DeepSpeed trace, and zero_save_state / zero_load_state
%! ## mid-hysteresis resume it
%! shapes = {[4 3], [5 2]};
%! L = zero_layout (shapes, 2);
%! args = {"Variant", "zero12_allreduce", "LossScaler", ds};
%! T = [];
%! sc = [];
%! pre = tempname ();
%! f = {};
%! unwind_protect
%!   for t = 1:numel (pat)
%!     s = 1;
%!     if (! isempty (T))
%!       s = T.scaler.scale;
%!     endif
%!     g = {s * ones(4, 3), s * ones(5, 2); s * ones(4, 3), s * ones(5, 2)};
%!     if (pat(t))
%!       g{2,1}(1) = Inf;
%!     endif
%!     [R, T] = zero_train_step (L, g, T, args{:});
%!     sc(t) = R.loss_scale;
%!     if (t == 4)
%!       assert (T.scaler.hysteresis_left, 1);
%!       f = zero_save_state (pre, L, T);
%!       T = zero_load_state (pre, L);
%!     endif
%!   endfor
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect
%! assert (sc, [16 16 16 32 32 32 16 8 8 8 16 16 32 32]);
%! assert (T.scaler.scale, 64);

%!test
%! ## a zero_train_step checkpoint of an older muonlab (its scaler and its options' scaler
%! ## without the hysteresis fields; format version 2, no digests to redo) loads as the
%! ## state of Hysteresis 1: the one a run with the table's defaults has
%! shapes = {[4 3], [5 2]};
%! L = zero_layout (shapes, 2);
%! args = {"Variant", "zero12_allreduce", "LossScaler", rmfield(ds, {"Hysteresis", "GrowthRule"})};
%! T = [];
%! for t = 1:4
%!   s = 1;
%!   if (! isempty (T))
%!     s = T.scaler.scale;
%!   endif
%!   g = {s * ones(4, 3), s * ones(5, 2); s * ones(4, 3), s * ones(5, 2)};
%!   g{2,1}(1) = merge (t == 4, Inf, g{2,1}(1));
%!   [~, T] = zero_train_step (L, g, T, args{:});
%! endfor
%! assert ([T.scaler.scale T.scaler.hysteresis_left T.scaler.overflows], [16 1 1]);
%! pre = tempname ();
%! f = zero_save_state (pre, L, T);
%! unwind_protect
%!   for r = 1:numel (f)
%!     S = read_payload (f{r});
%!     S.train.scaler = rmfield (S.train.scaler, {"hysteresis", "consecutive", ...
%!                                                "growth_rule", "hysteresis_left"});
%!     S.train.options.scaler = rmfield (S.train.options.scaler, {"hysteresis", ...
%!                                                                "consecutive", "growth_rule"});
%!     write_ckpt (f{r}, "zero_shard", setfield (rmfield (S, "digests"), "version", 2));
%!   endfor
%!   assert (isequal (zero_load_state (pre, L), T));
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

## the option's errors (the LossScaler tests of muon_optimizer.m's %! block, moved here)
%!error <^muon_optimizer: LOSSSCALER must be 'none', 'dynamic', 'deepspeed' or a struct\.$> muon_optimizer (P0, "LossScaler", "static")
%!error <^muon_optimizer: unknown LOSSSCALER field 'Foo'\. LOSSSCALER fields: InitScale, GrowthInterval, Backoff, Growth, MinScale, Hysteresis, ConsecutiveHysteresis, GrowthRule\.$> muon_optimizer (P0, "LossScaler", struct ("Foo", 1))
%!error <^muon_optimizer: LOSSSCALER\.InitScale must be a positive finite scalar\.$> muon_optimizer (P0, "LossScaler", struct ("InitScale", 0))
%!error <^muon_optimizer: LOSSSCALER\.GrowthInterval must be a positive integer or Inf\.$> muon_optimizer (P0, "LossScaler", struct ("GrowthInterval", 0.5))
%!error <^muon_optimizer: LOSSSCALER\.Backoff must be in \(0, 1\]\.$> muon_optimizer (P0, "LossScaler", struct ("Backoff", 2))
%!error <^muon_optimizer: LOSSSCALER\.Growth must be a finite scalar of at least 1\.$> muon_optimizer (P0, "LossScaler", struct ("Growth", 0.5))
%!error <^muon_optimizer: LOSSSCALER\.MinScale must be positive and at most InitScale\.$> muon_optimizer (P0, "LossScaler", struct ("InitScale", 4, "MinScale", 8))
## a peer's name of a setting (DeepSpeed's fp16 config, Megatron's, torch's GradScaler;
## README's table "Coming from torch, DeepSpeed or Dion"): inside the struct, the field it
## is; typed as an option, the LOSSSCALER field and the call with the value given
%!error <^muon_optimizer: unknown LOSSSCALER field 'loss_scale_window': "loss_scale_window" \(DeepSpeed, Megatron\) is "GrowthInterval" here: the same count \(their default 1000, muonlab's 2000\); DeepSpeed counts it as GrowthRule deepspeed does, Megatron as interval \(muonlab's default\)\. LOSSSCALER fields: InitScale, GrowthInterval, Backoff, Growth, MinScale, Hysteresis, ConsecutiveHysteresis, GrowthRule\.$> muon_optimizer (P0, "LossScaler", struct ("loss_scale_window", 1000))
%!error <^muon_optimizer: unknown LOSSSCALER field 'initial_scale_power': "initial_scale_power" \(DeepSpeed\) is "InitScale" here: a power p is InitScale 2\^p \(DeepSpeed's default 16: 2\^16, muonlab's too\)\. LOSSSCALER fields: InitScale, GrowthInterval, Backoff, Growth, MinScale, Hysteresis, ConsecutiveHysteresis, GrowthRule\.$> muon_optimizer (P0, "LossScaler", struct ("initial_scale_power", 16))
%!error <^muon_optimizer: unknown LOSSSCALER field 'growth_factor': "growth_factor" \(torch GradScaler\) is "Growth" here: the same factor \(2\)\. LOSSSCALER fields: InitScale, GrowthInterval, Backoff, Growth, MinScale, Hysteresis, ConsecutiveHysteresis, GrowthRule\.$> muon_optimizer (P0, "LossScaler", struct ("InitScale", 8, "growth_factor", 2))
%!error <^muon_optimizer: unknown option 'hysteresis': "hysteresis" \(DeepSpeed, Megatron\) is the LOSSSCALER field "Hysteresis" here \("LossScaler", struct \("Hysteresis", 2\)\): the same count \(their default 2, muonlab's 1\)\. Options: LR, .*, DecayFirst\.$> muon_optimizer (P0, "hysteresis", 2)
%!error <^muon_optimizer: unknown option 'initial_scale_power': "initial_scale_power" \(DeepSpeed\) is the LOSSSCALER field "InitScale" here \("LossScaler", struct \("InitScale", 2\^16\)\): a power p is InitScale 2\^p \(DeepSpeed's default 16: 2\^16, muonlab's too\)\. Options: LR, .*, DecayFirst\.$> muon_optimizer (P0, "initial_scale_power", 16)
%!error <^muon_optimizer: unknown option 'loss_scale': "loss_scale" \(DeepSpeed\) is the LOSSSCALER field "InitScale" here \("LossScaler", "deepspeed"\): 0 \(DeepSpeed's default\) is dynamic: "LossScaler", "deepspeed"; a fixed scale s is InitScale s with GrowthInterval Inf and Backoff 1 \(and MinScale s below 1\)\. Options: LR, .*, DecayFirst\.$> muon_optimizer (P0, "loss_scale", 0)
%!error <^muon_optimizer: unknown option 'loss_scale': "loss_scale" \(DeepSpeed\) is the LOSSSCALER field "InitScale" here \("LossScaler", struct \("InitScale", 0\.5, "GrowthInterval", Inf, "Backoff", 1, "MinScale", 0\.5\)\): 0 \(DeepSpeed's default\) .*\. Options: LR, .*, DecayFirst\.$> muon_optimizer (P0, "loss_scale", 0.5)
%!error <^muon_optimizer: unknown option 'init_scale': "init_scale" \(torch GradScaler\) is the LOSSSCALER field "InitScale" here \("LossScaler", struct \("InitScale", \.\.\.\)\): the same number \(2\^16\)\. Options: LR, .*, DecayFirst\.$> muon_optimizer (P0, "init_scale", "big")
%!error <^muon_optimizer: unknown option 'consecutive_hysteresis': "consecutive_hysteresis" \(DeepSpeed\) is the LOSSSCALER field "ConsecutiveHysteresis" here \("LossScaler", struct \("ConsecutiveHysteresis", true\)\): the same logical \(false\)\. Options: LR, .*, DecayFirst\.$> muon_optimizer (P0, "consecutive_hysteresis", true)
%!error <^muon_update: unknown option 'hysteresis': "hysteresis" \(DeepSpeed, Megatron\) is the LOSSSCALER field "Hysteresis" here, of muon_optimizer and zero_train_step, not of muon_update\. Options: Method, .*, DecayFirst\.$> muon_update (ones (3), [], "hysteresis", 2)
%!test
%! ## the same settings under muonlab's names (hysteresis is its own name, any case)
%! opt = muon_optimizer (P0, "LossScaler", struct ("InitScale", 2^16, "GrowthInterval", 1000, "hysteresis", 2));
%! assert ([opt.scaler.scale opt.scaler.growth_interval opt.scaler.hysteresis], [65536 1000 2]);
%!error <^muon_optimizer: LOSSSCALER\.Hysteresis must be a positive integer\.$> muon_optimizer (P0, "LossScaler", struct ("Hysteresis", 0))
%!error <^muon_optimizer: LOSSSCALER\.Hysteresis must be a positive integer\.$> muon_optimizer (P0, "LossScaler", struct ("Hysteresis", 1.5))
%!error <^muon_optimizer: LOSSSCALER\.ConsecutiveHysteresis must be true or false\.$> muon_optimizer (P0, "LossScaler", struct ("ConsecutiveHysteresis", "yes"))
%!error <^muon_optimizer: LOSSSCALER\.GrowthRule must be 'interval' or 'deepspeed'\.$> muon_optimizer (P0, "LossScaler", struct ("GrowthRule", "torch"))
%!error <^zero_train_step: LOSSSCALER\.Hysteresis must be a positive integer\.$> zero_train_step (zero_layout ({[3 2]}, 1), {ones(3, 2)}, [], "LossScaler", struct ("Hysteresis", 0))
%!error <^muon_step: OPT\.scaler\.hysteresis_left must be an integer from 1 to hysteresis\.$>
%! opt = muon_optimizer (P0, "LossScaler", ds);
%! opt.scaler.hysteresis_left = 3;
%! muon_step (opt, P0, P0);
%!error <^zero_train_step: STATE belongs to another layout, design, communicator or training option: its scaler's hysteresis is 2, this call's 3\.$>
%! L = zero_layout ({[3 2]}, 1);
%! [~, T] = zero_train_step (L, {ones(3, 2)}, [], "LossScaler", ds);
%! zero_train_step (L, {ones(3, 2)}, T, "LossScaler", setfield (ds, "Hysteresis", 3));

%!test
%! ## zero_train_step refuses a state whose hysteresis counter is out of [1, Hysteresis]
%! ## (NaN ran three overflows without a back-off; muon_step refused it already)
%! L = zero_layout ({[3 2]}, 1);
%! ds = struct ("InitScale", 16, "GrowthInterval", 2, "Hysteresis", 2, "GrowthRule", "deepspeed");
%! [~, T] = zero_train_step (L, {16*ones(3,2)}, [], "LossScaler", ds);
%! T = struct (T);
%! for bad = {NaN, 0, 1.5, 3}
%!   T.scaler.hysteresis_left = bad{1};
%!   fail ("zero_train_step (L, {Inf(3,2)}, T, \"LossScaler\", ds)",
%!         "zero_train_step: STATE.scaler must be the loss scaler of a previous call\\.");
%! endfor
%! T.scaler.hysteresis_left = 2;
%! [R, T2] = zero_train_step (L, {Inf(3,2)}, T, "LossScaler", ds);
%! assert (R.skipped && T2.scaler.scale == 16 && T2.scaler.hysteresis_left == 1);
