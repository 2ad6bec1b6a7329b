## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_train_ranks ()
## Suite (run with @code{test test_train_ranks}): the training-step failure modes on
## simulated ranks (@code{zero_train_step}), over several steps, against plain Octave
## references: the correct step is one Newton-Schulz (@code{ref_ns}, fp64) per matrix and
## step on the mean gradient (each rank's micro-batches summed in order and divided by k,
## then the ranks added in rank order and divided by W), with EMA momentum, Nesterov and
## Keller's scale written out here.
## @itemize
## @item gradient accumulation, k = 4 micro-batches, W = 4, five designs (stages 2 and 3):
## every step equals the reference within 1e-12, on every rank, with the design's NS calls
## per step;
## @item DeepSpeed #8443's per-micro-batch NS: k times the NS calls on every rank, the
## update equal (1e-12) to a plain port of the bug (each micro-batch divided by k through
## momentum and NS at once, the k updates summed), and its error against the correct step
## measured, per matrix and per rank (printed);
## @item clipping: the global norm (Megatron: all-reduced over the ranks' partitions) equals
## the norm of all mean gradients; before_ns and after_ns equal the reference with the clip
## factor computed here; skip_muon equals no clipping bit for bit, and skip_muon with the
## flag on the container (PR 5395's nested case) equals before_ns bit for bit; with one
## matrix's gradient 1e12 larger (Megatron #5394), before_ns pushes the others under the NS
## eps and their update collapses, skip_muon does not;
## @item the fp16 loss scaler: gradients scaled and rounded to fp16 per rank, one rank's
## spike overflows: every rank skips, the momentum is untouched, the scale backs off, and
## the skip / scale sequence equals @code{muon_step}'s on the same mean gradients; with
## PoisonMomentum (#8432) the momentum turns non-finite on the ranks holding the matrix
## and every later step is skipped down to the minimum scale, as in @code{muon_step};
## @item non-finite gradients without a scaler: skipped on every rank and reported.
## @end itemize
## @end deftypefn

function test_train_ranks ()
  help test_train_ranks
endfunction

## the plain fp64 Muon update (EMA momentum, Nesterov, Keller's scale)
%!function [U, M] = ref_update (G, M, beta)
%!  if (isempty (M))
%!    M = zeros (size (G));
%!  endif
%!  M = beta * M + (1 - beta) * G;
%!  X = (1 - beta) * G + beta * M;
%!  U = ref_ns (X, "Precision", "double") * sqrt (max (1, rows (G) / columns (G)));

## micro-batch j of step t: W x P gradients
%!function g = micro (shapes, W, t, j, shift)
%!  randn ("state", 1000 * t + j);
%!  g = cell (W, numel (shapes));
%!  for i = 1:numel (g)
%!    [~, p] = ind2sub (size (g), i);
%!    g{i} = randn (shapes{p}) + shift;
%!  endfor

## the mean gradient of a window: each rank's sum in order, / k, then the ranks / W
%!function G = window_mean (gs, k)
%!  [W, P] = size (gs{1});
%!  G = cell (1, P);
%!  for p = 1:P
%!    acc = 0;
%!    for r = 1:W
%!      a = gs{1}{r,p};
%!      for j = 2:k
%!        a = a + gs{j}{r,p};
%!      endfor
%!      if (k > 1)
%!        a = a / k;
%!      endif
%!      if (r == 1)
%!        acc = a;
%!      else
%!        acc = acc + a;
%!      endif
%!    endfor
%!    G{p} = acc / W;
%!  endfor

%!function e = relerr (U, Uref)
%!  e = norm (U - Uref, "fro") / (norm (Uref, "fro") + 1e-8);

%!shared shapes
%! shapes = {[16 16], [16 8], [24 16], [8 16], [12 12]};

%!test
%! ## accumulation over k = 4 micro-batches: the correct step, every design, every rank
%! k = 4;  W = 4;  P = numel (shapes);
%! for c = {"zero12_allreduce", 2; "zero2_multi_owner", 2; "zero3_round_robin", 3;
%!          "layerwise_lpt", 2; "moonlight_gather", 3}.'
%!   L = zero_layout (shapes, W, "Stage", c{2});
%!   C = zero_cost (L, [], "Design", c{1});
%!   T = [];  M = cell (1, P);
%!   for t = 1:3
%!     gs = cell (1, k);
%!     for j = 1:k
%!       gs{j} = micro (shapes, W, t, j, 0.3);
%!       [R, T] = zero_train_step (L, gs{j}, T, "Variant", c{1}, "AccumulationSteps", k);
%!       assert (R.applied, j == k);
%!     endfor
%!     G = window_mean (gs, k);
%!     for p = 1:P
%!       [U, M{p}] = ref_update (G{p}, M{p}, 0.95);
%!       assert (relerr (R.updates{p}, U) <= 1e-12, sprintf ("%s step %d matrix %d", c{1}, t, p));
%!     endfor
%!     assert ([R.ranks.rel_err] <= 1e-12);
%!     assert ([R.ranks.ns_calls], C.ranks.ns_calls(:).');
%!     assert (R.step, t);
%!   endfor
%! endfor

%!test
%! ## DeepSpeed #8443: NS per micro-batch: k times the calls, the bug's arithmetic, and its
%! ## error against the correct step, per matrix and per rank
%! k = 4;  W = 4;  P = numel (shapes);
%! L = zero_layout (shapes, W, "Stage", 3);
%! for v = {"zero3_round_robin", "zero12_allreduce"}
%!   C = zero_cost (L, [], "Design", v{1});
%!   T = [];  Mb = cell (1, P);  Mc = cell (1, P);
%!   for t = 1:3
%!     gs = cell (1, k);
%!     Ub = cellfun (@(s) zeros (s), shapes, "UniformOutput", false);
%!     for j = 1:k
%!       gs{j} = micro (shapes, W, t, j, 0.3);
%!       [R, T] = zero_train_step (L, gs{j}, T, "Variant", v{1}, "AccumulationSteps", k,
%!                                 "PerMicroBatchNS", true);
%!       Gj = window_mean (gs(j), 1);
%!       for p = 1:P
%!         [U, Mb{p}] = ref_update (Gj{p} / k, Mb{p}, 0.95);
%!         Ub{p} = Ub{p} + U;
%!       endfor
%!     endfor
%!     G = window_mean (gs, k);
%!     for p = 1:P
%!       [Uc, Mc{p}] = ref_update (G{p}, Mc{p}, 0.95);
%!       assert (relerr (R.updates{p}, Ub{p}) <= 1e-12);          # the bug, reproduced
%!       assert (R.rel_err(p), relerr (R.updates{p}, Uc), 1e-10);  # measured vs the correct
%!     endfor
%!     assert ([R.ranks.ns_calls], k * C.ranks.ns_calls(:).');
%!     assert (all (R.rel_err > 0.5) && all ([R.ranks.rel_err] > 0.5));
%!     printf ("      #8443 %s step %d: NS calls per rank %s (k = %d), rel. error per matrix %s, per rank %s\n",
%!             v{1}, t, mat2str ([R.ranks.ns_calls]), k, mat2str (R.rel_err, 3),
%!             mat2str ([R.ranks.rel_err], 3));
%!   endfor
%! endfor

%!test
%! ## clipping: Megatron's global norm, before_ns, after_ns, skip_muon, the nested flag
%! W = 4;  P = numel (shapes);
%! L = zero_layout (shapes, W);
%! pol = {"none", "before_ns", "after_ns", "skip_muon", "skip_muon"};
%! flag = {"members", "members", "members", "members", "container"};
%! T = cell (1, 5);  M = repmat ({cell(1, P)}, 1, 5);
%! for t = 1:3
%!   g = micro (shapes, W, t, 1, 0.3);
%!   G = window_mean ({g}, 1);
%!   nrm = sqrt (sum (cellfun (@(x) sumsq (x(:)), G)));
%!   R = cell (1, 5);
%!   for i = 1:5
%!     [R{i}, T{i}] = zero_train_step (L, g, T{i}, "ClipPolicy", pol{i}, "ClipSkipFlag", flag{i},
%!                                    "ClipNorm", 2);
%!     c = 1;
%!     if (any (i == [2 5]))
%!       c = min (1, 2 / (nrm + 1e-6));
%!     endif
%!     U = cell (1, P);
%!     for p = 1:P
%!       [U{p}, M{i}{p}] = ref_update (c * G{p}, M{i}{p}, 0.95);
%!     endfor
%!     if (i == 3)
%!       nu = sqrt (sum (cellfun (@(x) sumsq (x(:)), U)));
%!       assert (R{i}.global_norm, nu, 1e-12 * nu);
%!       c = min (1, 2 / (nu + 1e-6));
%!       U = cellfun (@(x) c * x, U, "UniformOutput", false);
%!     else
%!       assert (R{i}.global_norm, nrm, 1e-12 * nrm);
%!     endif
%!     assert (R{i}.clip_coef, c, 1e-12);
%!     assert (c < 1 || any (i == [1 4]));
%!     for p = 1:P
%!       assert (relerr (R{i}.updates{p}, U{p}) <= 1e-12, sprintf ("%s step %d", pol{i}, t));
%!     endfor
%!   endfor
%!   assert (isequal (R{4}.updates, R{1}.updates));       # skip_muon: not clipped
%!   assert (isequal (R{5}.updates, R{2}.updates));       # the nested case: clipped anyway
%! endfor

%!test
%! ## Megatron #5394: one matrix's gradient 1e12 times the others'; the global clip pushes the
%! ## others under the NS eps (1e-7) and their update collapses; PR 5395's skip does not
%! W = 2;
%! L = zero_layout (shapes, W);
%! g = micro (shapes, W, 1, 1, 0);
%! g(:,1) = cellfun (@(x) 1e12 * x, g(:,1), "UniformOutput", false);
%! U = cell (1, 3);
%! cases = {"before_ns", "members"; "skip_muon", "members"; "skip_muon", "container"};
%! for i = 1:3
%!   R = zero_train_step (L, g, [], "ClipPolicy", cases{i,1}, "ClipSkipFlag", cases{i,2});
%!   U{i} = cellfun (@(x) norm (x, "fro"), R.updates);
%! endfor
%! ratio = U{1}(2:end) ./ U{2}(2:end);
%! printf ("      #5394: update norm of the small matrices, clipped / skipped: %s\n", mat2str (ratio, 2));
%! assert (all (ratio < 0.05));
%! assert (U{3}, U{1});
%! assert (U{1}(1), U{2}(1), -1e-5);                 # the large one: only eps apart

%!test
%! ## fp16 loss scaler: one rank's overflow makes every rank skip; the same skip and scale
%! ## sequence as muon_step; then PoisonMomentum (#8432) stops training for good
%! W = 4;  P = 2;
%! sh = {[16 16], [16 8]};
%! L = zero_layout (sh, W);
%! scaler = struct ("InitScale", 2^12, "GrowthInterval", 2, "MinScale", 16);
%! for poison = [false true]
%!   T = [];
%!   opt = muon_optimizer (struct ("A", zeros (16), "B", zeros (16, 8)), "LossScaler", scaler,
%!                         "PoisonMomentum", poison, "Precision", "double");
%!   seq = [];  seq1 = [];
%!   for t = 1:12
%!     S = T;
%!     s = 2^12;
%!     if (! isempty (T))
%!       s = T.scaler.scale;
%!     endif
%!     randn ("state", t);
%!     g = cellfun (@(x) muon_round (s * randn (x), "fp16"), repmat (sh, W, 1),
%!                  "UniformOutput", false);
%!     if (t == 3)
%!       g{3,2}(5) = muon_round (s * 1e3, "fp16");     # rank 2's spike: Inf in fp16
%!       assert (isinf (g{3,2}(5)));
%!     endif
%!     [R, T] = zero_train_step (L, g, T, "LossScaler", scaler, "PoisonMomentum", poison);
%!     ## muon_step on the rank sums (the mean gradient times W, scaled)
%!     G = window_mean ({g}, 1);
%!     [~, opt, info] = muon_step (opt, struct ("A", zeros (16), "B", zeros (16, 8)),
%!                                struct ("A", G{1}, "B", G{2}));
%!     seq(end+1,:) = [R.skipped, R.loss_scale, T.scaler.scale];
%!     seq1(end+1,:) = [info.skipped, info.loss_scale, opt.scaler.scale];
%!     if (t == 3)
%!       assert (R.skipped && ! R.applied);
%!       assert (R.skip_reason, "non-finite or overflowing gradient (rank 2, parameter 2)");
%!       assert ([R.ranks.ns_calls], zeros (1, W));
%!       if (! poison)
%!         assert (isequal (T.zero, S.zero));             # the momentum untouched
%!       else
%!         bad = cellfun (@(m) ! all (isfinite (m)), T.zero.momentum).';
%!         assert (bad, ismember (0:W-1, L.params(2).owners));
%!       endif
%!     endif
%!   endfor
%!   assert (seq, seq1);
%!   printf ("      fp16 scaler, poison %d: skipped %s, scale %s\n", poison,
%!           mat2str (seq(:,1).'), mat2str (seq(:,3).'));
%!   if (poison)
%!     assert (all (seq(3:end,1)));                       # training stopped
%!     assert (seq(end,3), 16);                           # at the minimum scale
%!   else
%!     assert (seq(1:9,1).', [0 0 1 zeros(1, 6)]);       # (at 32768 fp16 overflows by itself)
%!   endif
%! endfor

%!test
%! ## non-finite gradients without a scaler: every rank skips, the reason says where
%! W = 4;
%! L = zero_layout (shapes, W, "Stage", 3);
%! g = micro (shapes, W, 1, 1, 0);
%! [R, T] = zero_train_step (L, g, [], "Variant", "zero3_round_robin");
%! for bad = [NaN -Inf 1e200]
%!   h = micro (shapes, W, 2, 1, 0);
%!   h{4,5}(3) = bad;
%!   [R, T2] = zero_train_step (L, h, T, "Variant", "zero3_round_robin");
%!   assert (R.skipped && ! R.applied);
%!   assert (R.skip_reason, "non-finite or overflowing gradient (rank 3, parameter 5)");
%!   assert (isequal (T2.zero, T.zero) && T2.step == 1 && T2.skipped == 1);
%! endfor

%!test
%! ## a global norm past sqrt (realmax) from finite gradients whose own sums of squares are
%! ## finite: the norm is finite (hypot here), before_ns clips by 1 / norm: the reference's
%! ## update of the clipped gradient and, NS being scale-invariant, the unclipped updates
%! ## but for NS's eps (it zeroed the step); muon_step alike
%! sh = {[6 4], [5 3]};
%! a = sqrt (realmax / 24) * 0.9;  b = sqrt (realmax / 15) * 0.9;
%! g = {a * ones(6, 4), b * ones(5, 3)};
%! nrm = hypot (sqrt (24) * a, sqrt (15) * b);          # 1.7065e154
%! for W = [1 2]
%!   L = zero_layout (sh, W);
%!   R0 = zero_train_step (L, repmat (g, W, 1), []);
%!   R1 = zero_train_step (L, repmat (g, W, 1), [], "ClipPolicy", "before_ns");
%!   assert ([R0.global_norm, R1.global_norm], [nrm nrm], 1e-14 * nrm);
%!   assert (R1.clip_coef, 1 / nrm, 1e-14 / nrm);
%!   assert (R1.applied && all (cellfun (@(u) norm (u, "fro"), R1.updates) > 0.5));
%!   for p = 1:2
%!     assert (relerr (R1.updates{p}, ref_update (g{p} / (nrm + 1e-6), [], 0.95)) <= 1e-12);
%!     assert (relerr (R1.updates{p}, R0.updates{p}) <= 1e-5);
%!   endfor
%! endfor
%! S0 = struct ("a", zeros (6, 4), "b", zeros (5, 3));
%! G = struct ("a", g{1}, "b", g{2});
%! [P0, ~, i0] = muon_step (muon_optimizer (S0, "LR", 1), S0, G);
%! [P1, ~, i1] = muon_step (muon_optimizer (S0, "LR", 1, "ClipPolicy", "before_ns"), S0, G);
%! assert ([i0.global_norm, i1.global_norm], [nrm nrm], 1e-14 * nrm);
%! assert (i1.applied && abs (i1.clip_coef * nrm - 1) < 1e-14);
%! assert (relerr (P1.a, P0.a) <= 1e-5 && relerr (P1.b, P0.b) <= 1e-5 && norm (P1.a) > 0.5);
%! ## one array's own squares past realmax (a scale below 1 doubles the gradient handed in)
%! sc = struct ("InitScale", 0.5, "MinScale", 0.5);
%! [~, ~, i2] = muon_step (muon_optimizer (S0, "LossScaler", sc), S0, G);
%! assert (i2.applied);
%! assert (i2.global_norm, 2 * nrm, 1e-14 * nrm);
%! ## on a device (the CPU stand-in): the same norms, its own sum gathered only then
%! dev = @(x) muon_gpu (x, "Device", "cpu", "Class", "double");
%! Sd = structfun (dev, S0, "UniformOutput", false);
%! Gd = structfun (dev, G, "UniformOutput", false);
%! [~, ~, i3] = muon_step (muon_optimizer (Sd, "Device", "cpu", "Resident", true,
%!                                         "ClipPolicy", "before_ns"), Sd, Gd);
%! [~, ~, i4] = muon_step (muon_optimizer (Sd, "Device", "cpu", "Resident", true,
%!                                         "LossScaler", sc), Sd, Gd);
%! assert ([i3.global_norm, i3.clip_coef, i4.global_norm], [nrm, i1.clip_coef, 2 * nrm],
%!         1e-14 * [nrm, i1.clip_coef, nrm]);
%! R2 = zero_train_step (zero_layout (sh, 2), repmat (g, 2, 1), [], "LossScaler", sc);
%! assert (R2.applied);
%! assert (R2.global_norm, 2 * nrm, 1e-14 * nrm);

%!test
%! ## the overflow test is muon_step's: the mean gradient still times the scale (2^516 here,
%! ## its square past realmax; unscaled 2^500 it is not), skipped by both, a step later
%! ## applied by both with the backed-off scale
%! L = zero_layout ({[6 4]}, 1);
%! randn ("state", 4);
%! g = randn (6, 4);  g(1) = 2^500 * 65536;
%! [R, T] = zero_train_step (L, {g}, [], "LossScaler", "dynamic");
%! opt = muon_optimizer (struct ("W", zeros (6, 4)), "LossScaler", "dynamic");
%! [~, opt, info] = muon_step (opt, struct ("W", zeros (6, 4)), struct ("W", g));
%! assert ([R.skipped, info.skipped, T.scaler.scale, opt.scaler.scale], [1 1 32768 32768]);
%! assert (R.skip_reason, "non-finite or overflowing gradient (rank 0, parameter 1)");
%! g(1) = 2^496 * 32768;                                 # 2^511: its square finite
%! [R, T] = zero_train_step (L, {g}, T, "LossScaler", "dynamic");
%! [~, opt, info] = muon_step (opt, struct ("W", zeros (6, 4)), struct ("W", g));
%! assert ([R.applied, info.applied], [true true]);
%! assert (R.global_norm, info.global_norm);

%!test
%! ## PerMicroBatchNS with an overflow (as the help says): the bad micro-batch is skipped
%! ## for every matrix, the window skipped; state.zero keeps the clean micro-batch's
%! ## advance; muon_step also advances the clean matrices of the bad micro-batch
%! sh = {[6 4], [5 3]};
%! L = zero_layout (sh, 1, "Stage", 3);
%! c = {"AccumulationSteps", 2, "PerMicroBatchNS", true};
%! S0 = struct ("a", zeros (6, 4), "b", zeros (5, 3));
%! opt = muon_optimizer (S0, c{:});
%! randn ("state", 5);
%! g1 = {randn(6, 4), randn(5, 3)};  g2 = {randn(6, 4), randn(5, 3)};
%! g2{2}(1) = Inf;
%! [~, T1] = zero_train_step (L, g1, [], "Variant", "zero3_round_robin", c{:});
%! [R, T2] = zero_train_step (L, g2, T1, "Variant", "zero3_round_robin", c{:});
%! [~, opt] = muon_step (opt, S0, struct ("a", g1{1}, "b", g1{2}));
%! M1 = opt.muon;
%! [~, opt, info] = muon_step (opt, S0, struct ("a", g2{1}, "b", g2{2}));
%! assert (R.skipped && info.skipped && T2.skipped == 1 && T2.step == 0);
%! assert (T2.zero.momentum, T1.zero.momentum);        # micro-batch 2: no matrix advanced
%! ## zero3 stage 3 on one rank: the matrices' momenta back to back, each row-major
%! m = T2.zero.momentum{1};
%! ma = reshape (m(1:24), 4, 6).';  mb = reshape (m(25:39), 3, 5).';
%! [~, M] = ref_update (g1{1} / 2, [], 0.95);                # micro-batch 1's advance
%! assert (ma, M, 1e-15);
%! assert ({ma, mb}, {M1.a.momentum, M1.b.momentum}, 1e-15);
%! assert (mb, opt.muon.b.momentum, 1e-15);             # muon_step: b stayed as well
%! assert (norm (opt.muon.a.momentum - ma, "fro") > 1e-3);   # but a advanced

%!test
%! ## a PerMicroBatchNS state edited mid-window: sums of another size are refused, each
%! ## error naming the field (full = {1, 1} shifted every update by 1)
%! sh = {[6 4], [5 3]};
%! L = zero_layout (sh, 2);
%! g = micro (sh, 2, 1, 1, 0);
%! c = {"AccumulationSteps", 2, "PerMicroBatchNS", true};
%! [~, T] = zero_train_step (L, g, [], c{:});
%! T = struct (T);
%! assert (size (T.upd{1}), [sum(diff (T.owned{1}, 1, 2)), 1]);
%! bad = {"full", {1, 1}, "STATE.full{1} must be [] or a real matrix of the parameter's size.";
%!        "full", {T.full{1}, ones(3, 5)}, "STATE.full{2} must be [] or a real matrix of the parameter's size.";
%!        "upd", {1; 1}, sprintf("STATE.upd{1} must be [] or a real column of %d elements (the ranges of STATE.owned{1}).", numel (T.upd{1}));
%!        "upd", {T.upd{1}; T.upd{2}.'}, sprintf("STATE.upd{2} must be [] or a real column of %d elements (the ranges of STATE.owned{2}).", numel (T.upd{2}));
%!        "owned", {T.owned{1}; [0 1]}, "STATE.owned{2} must be [] or a 2 x 2 list of element ranges."};
%! for i = 1:rows (bad)
%!   try
%!     zero_train_step (L, g, setfield (T, bad{i,1}, bad{i,2}), c{:});
%!     error ("no error for %s", bad{i,1});
%!   catch err
%!     assert ({err.identifier, err.message}, {"muonlab:badState", ["zero_train_step: " bad{i,3}]});
%!   end_try_catch
%! endfor
%! [R, T2] = zero_train_step (L, g, T, c{:});          # the state as it was: accepted
%! assert (R.applied && T2.step == 1);
