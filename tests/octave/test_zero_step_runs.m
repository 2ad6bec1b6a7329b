## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_zero_step_runs - how zero_muon_step runs, against oracles built here: the aliased
## pads break exactly on mixed-size rounds and survive same-size ones (Keller's extra pad
## round costs memory only); the bytes every rank moves equal the ring closed forms written
## out here; the momentum is held as the plans say and a state is rejected across variants;
## a plan is built once per layout and options; the simulated reference runs each matrix's
## Newton-Schulz once and reports DDP's calls and bytes.  The updates' numbers:
## test_zero_step.m, whose helpers these tests call.
## Run: `test test_zero_step_runs` with inst/ and build/mex on the path.

function test_zero_step_runs ()
  test ("test_zero_step_runs");
endfunction

%!shared grads, rank_avg, rm, ring_allreduce
%! [grads, rank_avg, rm, ring_allreduce] = test_zero_step ("handles");

%!test
%! ## aliased pads: break exactly on a round of mixed sizes, survive same-size rounds
%! randn ("seed", 5);
%! ## round 1 = (36, 24) elements: fails; the correct pads do not
%! L = zero_layout ({[6 6], [4 6]}, 2);
%! g = grads ([6 6; 4 6], 2);
%! R = zero_muon_step (L, g, [], "Variant", "zero3_round_robin");
%! assert (max (R.rel_err) <= 1e-12);
%! try
%!   zero_muon_step (L, g, [], "Variant", "zero3_round_robin_aliased_pads");
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "muonlab:badShape");
%!   assert (err.message, ["zero_muon_step: gather round 1 mixes sizes: slot 1 holds ", ...
%!           "matrix 1 (6 x 6) and slot 2 holds matrix 2 (4 x 6); an all-gather needs ", ...
%!           "one size (DeepSpeed PR 8628)."]);
%! end_try_catch
%! ## a short last round: the pads take the last matrix's shape, which is in that round, so
%! ## a pad never mismatches alone; round 2 = (6 x 6, 4 x 6, pad 4 x 6) mixes sizes
%! sh = [6 6; 6 6; 6 6; 6 6; 4 6];
%! L = zero_layout (num2cell (sh, 2), 3);
%! g = grads (sh, 3);
%! R = zero_muon_step (L, g, [], "Variant", "zero3_round_robin");
%! assert (max (R.rel_err) <= 1e-12);
%! assert ([R.ranks.pad_elements], 2 * 36 * [1 1 1]);   # one distinct pad slot of 36
%! try
%!   zero_muon_step (L, g, [], "Variant", "zero3_round_robin_aliased_pads");
%!   error ("no error");
%! catch err
%!   assert (err.message, ["zero_muon_step: gather round 2 mixes sizes: slot 4 holds ", ...
%!           "matrix 4 (6 x 6) and slot 5 holds matrix 5 (4 x 6); an all-gather needs ", ...
%!           "one size (DeepSpeed PR 8628)."]);
%! end_try_catch

%!test
%! ## same-size rounds survive, the pad memory is one aliased buffer per rank, Keller's pad
%! ## count adds a round of pads that costs memory only
%! randn ("seed", 6);
%! sh = [4 6; 4 6; 8 3];                       # all 24 elements; mixed shapes in round 2
%! L = zero_layout (num2cell (sh, 2), 2);
%! g = grads (sh, 2);
%! R = zero_muon_step (L, g, [], "Variant", "zero3_round_robin_aliased_pads");
%! assert (max (R.rel_err) <= 1e-12);
%! assert ([R.ranks.pad_elements], [48 48]);  # update pad + momentum pad, 24 each
%! sh4 = [sh; 4 6];                            # W divides P = 4
%! L4 = zero_layout (num2cell (sh4, 2), 2);
%! g4 = grads (sh4, 2);
%! A = zero_muon_step (L4, g4, [], "Variant", "zero3_round_robin_aliased_pads");
%! K = zero_muon_step (L4, g4, [], "Variant", "zero3_round_robin_aliased_pads",
%!                    "PadCount", "keller");
%! assert ([A.ranks.pad_elements], [0 0]);
%! assert ([K.ranks.pad_elements], [48 48]);
%! assert ([K.ranks.ns_calls], [A.ranks.ns_calls]);
%! assert (vertcat (K.ranks.calls), vertcat (A.ranks.calls));
%! assert (K.updates, A.updates);

%!test
%! ## bytes each rank sends and receives equal the ring closed forms, per collective
%! shapes = [3 4; 2 5; 4 4];                  # total 38, padded 40, S = 20 at W = 2
%! for W = [2 3]
%!   L = zero_layout (num2cell (shapes, 2), W);
%!   S = L.partition_size; N = W * S;
%!   g = grads (shapes, W);
%!   R12 = zero_muon_step (L, g, [], "Variant", "zero12_allreduce");
%!   RS = zero_muon_step (L, g, [], "Variant", "zero2_reduce_scatter_buggy");
%!   MO = zero_muon_step (L, g, [], "Variant", "zero2_multi_owner");
%!   ns = sum (prod (shapes([L.params.straddles],:), 2));
%!   for r = 0:W-1
%!     assert (R12.ranks(r+1).sent, [ring_allreduce(N, W, r) 0 0 0 0 0]);
%!     assert (R12.ranks(r+1).recv, R12.ranks(r+1).sent);
%!     assert (RS.ranks(r+1).sent, [0 8*(W-1)*S 0 0 0 0]);
%!     assert (MO.ranks(r+1).sent, [ring_allreduce(ns, W, r) 8*(W-1)*S 0 0 0 0]);
%!   endfor
%!   ## ZeRO-3: all-reduce of 38, one gather of the chunks, per round 2 gathers of its max
%!   Z = zero_muon_step (L, g, [], "Variant", "zero3_round_robin");
%!   L3 = zero_layout (num2cell (shapes, 2), W, "Stage", 3);
%!   numels = prod (shapes, 2);
%!   rounds = 0;
%!   for b = 1:W:3
%!     rounds += max (numels(b:min (b + W - 1, 3)));
%!   endfor
%!   for r = 0:W-1
%!     assert (Z.ranks(r+1).sent, [ring_allreduce(38, W, r), 0, ...
%!                                 8 * (W-1) * (L3.partition_size + 2 * rounds), 0, 0, 0]);
%!   endfor
%! endfor

%!test
%! ## state: momentum held as the plans say, chained state rejected across variants
%! shapes = [6 4; 5 4; 6 4];
%! L = zero_layout (num2cell (shapes, 2), 2);
%! g = grads (shapes, 2);
%! [R, s] = zero_muon_step (L, g, [], "Variant", "zero12_allreduce");
%! assert ([R.ranks.momentum_elements], [24+20 20+24]);
%! assert (cellfun (@numel, s.momentum).', [44 44]);
%! [R, s] = zero_muon_step (L, g, [], "Variant", "moonlight_gather");
%! assert ([R.ranks.momentum_elements], [L.partition_size L.partition_size]);
%! assert (R.ranks(1).owned, [0 24; 0 10; 0 0]);   # S = 34: matrix 2 is cut at 10

%!test
%! ## the plan is reused: a second step with the same layout and options builds no plan
%! ## (R.plans_built: the plans this process has built), other layouts stepping in between
%! ## take nothing from it, and a plain struct of the same layout (planned for its call)
%! ## gives the same bits; the reference rides in the same call and equals muon_update on
%! ## the rank average
%! randn ("seed", 8);
%! shapes = [6 5; 4 7; 5 5];
%! W = 3;
%! L = zero_layout (num2cell (shapes, 2), W);
%! g = grads (shapes, W);
%! [R1, s1] = zero_muon_step (L, g, [], "Variant", "zero3_round_robin");
%! [R2, s2] = zero_muon_step (L, g, s1, "Variant", "zero3_round_robin");
%! assert (R2.plans_built, R1.plans_built);
%! for k = 1:2                                  # 4 other (layout, variant) plans
%!   Lk = zero_layout ({[k + 2, 3]}, W);
%!   zero_muon_step (Lk, grads ([k + 2, 3], W), [], "Variant", "zero3_round_robin");
%! endfor
%! [R3, s3] = zero_muon_step (L, g, s1, "Variant", "zero3_round_robin");
%! assert (R3.plans_built, R2.plans_built + 4);       # the other two layouts' only
%! [R4, s4] = zero_muon_step (struct (L), g, s1, "Variant", "zero3_round_robin");
%! assert (R4.plans_built, R3.plans_built + 2);       # the variant, the reference
%! assert (R4.updates, R3.updates);
%! assert (struct (s4), struct (s3));
%! assert (R3.updates, R2.updates);
%! assert (R3.reference, R2.reference);
%! assert (struct (s3), struct (s2));
%! [~, m] = muon_update (rank_avg (g, 2), [], "Precision", "double");
%! assert (R2.reference{2}, muon_update (rank_avg (g, 2), m, "Precision", "double"), 0);

%!test
%! ## the simulated reference runs each matrix's Newton-Schulz once, and still reports DDP:
%! ## every rank one NS call per matrix, the all-reduce of the flat buffer (ring closed
%! ## form), identical updates on every rank; its momentum, once per rank in the state
%! randn ("seed", 9);
%! shapes = [5 4; 3 6];
%! W = 4;
%! L = zero_layout (num2cell (shapes, 2), W);
%! N = L.world * L.partition_size;
%! g = grads (shapes, W);
%! [~, s] = zero_muon_step (L, g, [], "Variant", "reference");
%! [R, s] = zero_muon_step (L, g, s, "Variant", "reference");
%! assert ([R.ranks.ns_calls], 2 * ones (1, W));
%! for r = 0:W-1
%!   assert (R.ranks(r+1).sent, [ring_allreduce(N, W, r) 0 0 0 0 0]);
%!   assert (R.ranks(r+1).recv, [ring_allreduce(N, W, r) 0 0 0 0 0]);
%! endfor
%! assert (size (s.momentum), [W 1]);
%! assert (all (cellfun (@(m) isequal (m, s.momentum{1}), s.momentum)));
%! for p = 1:2
%!   a = rank_avg (g, p);
%!   [~, m] = muon_update (a, [], "Precision", "double");
%!   assert (R.updates{p}, muon_update (a, m, "Precision", "double"), 0);
%! endfor
%! ## ranks whose momenta differ each compute their own: rank 1's momentum moved, every
%! ## rank's owned update of matrix 1 is muon_update of the average with its own momentum
%! t = s; t.momentum{2}(1:20) += 0.5;
%! T = zero_muon_step (L, g, t, "Variant", "reference", "Reference", false);
%! a = rank_avg (g, 1);
%! for r = 0:W-1
%!   o = T.ranks(r+1).owned(1,:);
%!   U = __muon_update__ (a, reshape (t.momentum{r+1}(1:20), 5, 4), struct ("precision", "double"));
%!   assert (T.ranks(r+1).update(1:diff (o)), rm (U, o(1), o(2)), 0);
%! endfor

## no false divergence alarm (moved from test_zero_step.m)
%!test
%! ## no false alarm on sound steps: random shapes and gradients over six decades, every
%! ## design, worlds 1-3, every scale rule with a ScaleFactor, double and bf16, three chained
%! ## steps (muon_bp: full, block, full, with a BlockScale), experts and split row blocks
%! warning ("error", "muonlab:diverged", "local");
%! designs = __muon_lists__ ().lists.zero_variant;
%! scales = {"keller", "rms", "spectral", "unit_rms", "none"};
%! for seed = 1:2
%!   randn ("state", seed);
%!   rand ("state", seed);
%!   sh = arrayfun (@(k) 2 * randi ([1 6], 1, 2), 1:3, "UniformOutput", false);
%!   for W = 1:3
%!     L = zero_layout (sh, W);
%!     for v = designs(:).'
%!       prec = merge (rand < 0.5, "double", "bf16");
%!       o = {"Variant", v{1}, "Scale", scales{randi(5)}, "ScaleFactor", 0.5 + 2 * rand, ...
%!            "Precision", prec, "Period", 2, "BlockScale", 0.5 + rand, "Reference", false};
%!       if (! strcmp (v{1}, "zero2_slice_only") && seed == 2)
%!         o = [o, {"Experts", [2 1 1], "SplitRows", {[], [], [1 sh{3}(1)-1]}}];
%!       endif
%!       st = [];
%!       try
%!         for k = 1:3
%!           G = cellfun (@(x) randn (x) .* 10 .^ (6 * rand (x) - 3), repmat (sh, W, 1),
%!                        "UniformOutput", false);
%!           [R, st] = zero_muon_step (L, G, st, o{:});
%!           assert (R.diverged, zeros (1, 3));
%!         endfor
%!       catch err
%!         assert (strfind (err.message, "mixes sizes"));   # the shipped ZeRO-3 pads
%!       end_try_catch
%!     endfor
%!   endfor
%! endfor
