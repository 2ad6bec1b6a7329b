## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_zero_train_step ()
## @code{zero_train_step}'s training steps on a small layout, beside the tests of its
## arguments at the end of inst/zero_train_step.m: micro-batches (one Newton-Schulz per
## matrix and step; the per-micro-batch variant's twice), experts and split rows reaching
## the design and the correct step alike, and one rank's overflow skipping every rank's
## step (test_train_ranks and test_zero_train_ckpt hold the rest).
## @end deftypefn

function test_zero_train_step ()
  help test_zero_train_step
endfunction

%!shared L, shapes, grads
%! shapes = {[6 4], [5 4], [6 4]};
%! L = zero_layout (shapes, 2);
%! grads = @(seed) cellfun (@(s) randn (s), repmat (shapes, 2, 1), "UniformOutput", false);

%!test
%! ## k = 2 micro-batches, one NS per matrix and step; the per-micro-batch variant: twice
%! randn ("state", 1);
%! g1 = grads (1);  g2 = grads (2);
%! [R, T] = zero_train_step (L, g1, [], "AccumulationSteps", 2);
%! assert (! R.applied && R.micro == 1);
%! [R, T] = zero_train_step (L, g2, T, "AccumulationSteps", 2);
%! assert (R.applied && R.step == 1);
%! assert ([R.ranks.ns_calls], [2 2]);             # zero12_allreduce: its matrices
%! assert (max (R.rel_err) <= 1e-12);
%! [~, T] = zero_train_step (L, g1, [], "AccumulationSteps", 2, "PerMicroBatchNS", true);
%! [R, T] = zero_train_step (L, g2, T, "AccumulationSteps", 2, "PerMicroBatchNS", true);
%! assert ([R.ranks.ns_calls], [4 4]);
%! assert (min (R.rel_err) > 1e-3);

%!test
%! ## experts and split rows reach the design and the correct step alike: expert_parallel
%! ## with 2 experts on the 6-row weights equals the per-expert reference, one NS per page
%! randn ("state", 3);
%! a = {"Variant", "expert_parallel", "Experts", [2 1 2], "SplitRows", {[1 2], [], []}};
%! [R, T] = zero_train_step (L, grads (1), [], a{:});
%! [R, T] = zero_train_step (L, grads (2), T, a{:});
%! assert (max (R.rel_err) <= 1e-12);
%! assert (sum ([R.ranks.ns_calls]), 5);

%!test
%! ## one rank's overflow: every rank skips, the scale backs off, the next step is clean
%! randn ("state", 2);
%! g = grads (1);
%! g{2,3}(1) = Inf;
%! [R, T] = zero_train_step (L, g, [], "LossScaler", "dynamic");
%! assert (R.skipped && ! R.applied);
%! assert (R.skip_reason, "non-finite or overflowing gradient (rank 1, parameter 3)");
%! assert ([R.loss_scale, T.scaler.scale], [65536 32768]);
%! [R, T] = zero_train_step (L, grads (2), T, "LossScaler", "dynamic");
%! assert (R.applied && R.step == 1 && R.loss_scale == 32768);

%!test
%! ## a diverged Newton-Schulz reaches the window's result: R.diverged is the design's
%! ## (CANS in bf16 blows this rank-one 16 x 64 matrix up, the SVD says so, as
%! ## test_zero_step's), per micro-batch with PerMicroBatchNS, zeros while accumulating;
%! ## the table marks it
%! randn ("state", 14);
%! Ld = zero_layout ({[4 8], [16 64]}, 2);
%! G = repmat ({[eye(4), zeros(4)], randn(16, 1) * randn(1, 64)}, 2, 1);
%! o = {"Coefficients", "cans", "Precision", "bf16", "Gemm", "openblas"};
%! warning ("off", "muonlab:diverged", "local");
%! R = zero_train_step (Ld, G, [], o{:});
%! assert (R.diverged, [0 1]);
%! assert (max (svd (R.updates{2})) > 1e6 && max (svd (R.updates{1})) < 1.2);
%! assert (! isempty (strfind (evalc ("disp (R)"), "(DIVERGED: 1 block(s))")));
%! [R, T] = zero_train_step (Ld, G, [], o{:}, "AccumulationSteps", 2, "PerMicroBatchNS", true);
%! assert (R.diverged, [0 1]);
%! R = zero_train_step (Ld, G, [], o{:}, "AccumulationSteps", 2);
%! assert (R.diverged, [0 0]);                         # accumulating: no step ran
%! R = zero_train_step (Ld, G, [], o{3:end});            # Keller's schedule: sound
%! assert (R.diverged, [0 0]);
%! assert (isempty (strfind (evalc ("disp (R)"), "DIVERGED")));

%!error <zero_train_step: EXPERTS \(2\) must divide the 1 rows of parameter 2\.>
%! ## on the first micro-batch of a window, where nothing is stepped yet
%! L = zero_layout ({[3 4], [1 8]}, 2);
%! g = {ones(3,4), ones(1,8); ones(3,4), ones(1,8)};
%! zero_train_step (L, g, [], "Experts", [1 2], "AccumulationSteps", 2);

## moved from inst/zero_train_step.m (its length): the momentum buffers' checks, the
## bucket size of a state (the shared values of that file, afresh)
%!shared L, shapes, grads
%! shapes = {[6 4], [5 4], [6 4]};
%! L = zero_layout (shapes, 2);
%! grads = @(seed) cellfun (@(s) randn (s), repmat (shapes, 2, 1), "UniformOutput", false);

## the design's momentum buffers, checked by the loop before it uses them (PoisonMomentum
## folds a gradient into them itself; before, an Octave "nonconformant" error)
%!error <zero_train_step: STATE.zero.momentum\{1\} must be a real double column of (\d+) elements \(rank 0's under 'zero12_allreduce'\).>
%! [~, T] = zero_train_step (L, grads (1), [], "PoisonMomentum", true);
%! T = struct (T);
%! T.zero.momentum{1}(end) = [];
%! zero_train_step (L, grads (1), T, "PoisonMomentum", true);
%!error <zero_train_step: STATE.zero.momentum must be a cell of one momentum vector per local rank.>
%! [~, T] = zero_train_step (L, grads (1), []);
%! T = struct (T);
%! T.zero.momentum = T.zero.momentum{1};
%! zero_train_step (L, grads (1), T);
%!test
%! ## a second step of every correct design, the reference's too (its state has no reference
%! ## momentum of its own: the check of the state refused it), equals the correct step
%! for v = {"reference", "zero12_allreduce", "zero3_round_robin", "layerwise_lpt"}
%!   [~, T] = zero_train_step (L, grads (1), [], "Variant", v{1});
%!   R = zero_train_step (L, grads (2), T, "Variant", v{1});
%!   assert (R.step == 2 && max (R.rel_err) <= 1e-12);
%! endfor
%!test
%! ## Megatron's buckets (BucketSize 24: {6x4, 5x4} walked last first reach max (24, fix (0.9*
%! ## 2*24)) = 43 and 6x4 would not fit their shards' 64: buckets {6x4 -> 0, 5x4 -> 1} and
%! ## {6x4 -> 0}: rank 0 holds 24 + 24 momentum elements; one bucket deals 1, 0, 0: 20 + 24),
%! ## the state records it, through the loop and a checkpoint; updates the reference's
%! for v = {"layerwise_lpt", "layerwise_ns_cost"}
%!   [R, T] = zero_train_step (L, grads (1), [], "Variant", v{1}, "BucketSize", 24);
%!   assert (cellfun (@numel, T.zero.momentum).', [48 20]);
%!   assert (T.key.bucket_size, 24);
%!   pre = tempname ();
%!   f = zero_save_state (pre, L, T);
%!   unwind_protect
%!     T2 = zero_load_state (pre, L);
%!   unwind_protect_cleanup
%!     cellfun (@unlink, f);
%!   end_unwind_protect
%!   [R, T2] = zero_train_step (L, grads (2), T2, "Variant", v{1}, "BucketSize", 24);
%!   assert (R.step == 2 && isequal (R.rel_err, [0 0 0]));
%!   assert (cellfun (@numel, T2.zero.momentum).', [48 20]);
%! endfor
%! [~, T] = zero_train_step (L, grads (1), [], "Variant", "layerwise_lpt");
%! assert (cellfun (@numel, T.zero.momentum).', [44 24]);
%!error <zero_train_step: STATE belongs to another layout, design, communicator or training option: its bucket size is 24, this call's \[\]\.>
%! [~, T] = zero_train_step (L, grads (1), [], "Variant", "layerwise_lpt", "BucketSize", 24);
%! zero_train_step (L, grads (1), T, "Variant", "layerwise_lpt");
%!test
%! ## the length wanted is the design's: every rank's buffer of a sound state passes, and
%! ## the length named is what zero_muon_step returned
%! [~, T] = zero_train_step (L, grads (1), []);
%! T = struct (T);
%! n = numel (T.zero.momentum{2});
%! T.zero.momentum{2} = [T.zero.momentum{2}; 0];
%! try
%!   zero_train_step (L, grads (1), T);
%!   error ("no error");
%! catch err
%!   assert (err.message, sprintf (["zero_train_step: STATE.zero.momentum{2} must be a " ...
%!                                  "real double column of %d elements (rank 1's under " ...
%!                                  "'zero12_allreduce')."], n));
%! end_try_catch
