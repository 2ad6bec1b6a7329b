## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_zero_cost_cases - zero_cost on small cases, one property each (split from
## test_zero_cost.m, the random sweeps against the simulator, by length): the plan against
## zero_muon_step's counters, experts and split rows, NS FLOPs, a model, the aliased pads,
## the transient buffer, BucketSize, the time model's phases (the all-to-alls in sequence),
## failing designs (2^53 elements, 2^64 bytes) and the option errors.  Oracles it shares
## with test_zero_cost (Megatron's owners, the design list) are called through it:
## test_zero_cost ("megatron_owners", ...).
## Run: `test test_zero_cost_cases` with inst/, build/mex and tests/octave on the path.

function test_zero_cost_cases ()
  help test_zero_cost_cases
endfunction

## small cases against the step's counters and closed forms: the plan, experts and split
## rows, NS FLOPs, a model, the aliased pads, the transient gradient buffer
%!test
%! ## the plan equals zero_muon_step's counters on a small layout (fp64 bytes)
%! shapes = [6 4; 5 4; 6 4; 3 3];
%! L = zero_layout (num2cell (shapes, 2), 3);
%! randn ("seed", 2);
%! g = arrayfun (@(k) randn (shapes(mod (k - 1, 4) + 1, :)), 1:12, "UniformOutput", false);
%! g = reshape (g, 4, 3).';
%! C = zero_cost (L, [], "ElementBytes", 8, "Design", {"zero12_allreduce", "layerwise_lpt"});
%! for d = 1:2
%!   R = zero_muon_step (L, g, [], "Variant", C(d).design, "Reference", false);
%!   assert (vertcat (R.ranks.sent), C(d).sent);
%!   assert (vertcat (R.ranks.calls), C(d).calls);
%!   assert ([R.ranks.ns_calls].', C(d).ranks.ns_calls);
%!   assert ([R.ranks.momentum_elements].', C(d).ranks.momentum);
%! endfor

%!test
%! ## expert_parallel with experts and split rows: the plan equals the step's counters
%! shapes = [12 4; 5 4; 9 3];
%! L = zero_layout (num2cell (shapes, 2), 3);
%! randn ("seed", 4);
%! g = arrayfun (@(k) randn (shapes(mod (k - 1, 3) + 1, :)), 1:9, "UniformOutput", false);
%! g = reshape (g, 3, 3).';
%! b = {"Experts", [4 1 3], "SplitRows", {[1 2], [], []}};
%! C = zero_cost (L, [], "ElementBytes", 8, "Design", "expert_parallel", b{:});
%! R = zero_muon_step (L, g, [], "Variant", "expert_parallel", "Reference", false, b{:});
%! assert (vertcat (R.ranks.sent), C.sent);
%! assert (vertcat (R.ranks.calls), C.calls);
%! assert ([R.ranks.ns_calls].', C.ranks.ns_calls);
%! assert (sum (C.ranks.ns_calls), 8);                  # 4 + 1 + 3 pages, each once
%! assert (C.params.ns_flops(1), 4 * (ns_flops (1, 4).standard + ns_flops (2, 4).standard),
%!         1e-9 * C.params.ns_flops(1));

%!test
%! ## NS FLOPs: per matrix as ns_flops, per rank the sum of what it updates
%! C = zero_cost ({[64 256], [128 128], [32 96]}, 2, "Design", "zero3_round_robin",
%!                "Method", "gram", "Restarts", [2]);
%! f = [ns_flops(64, 256, "Method", "gram").flops, ns_flops(128, 128).standard, ...
%!      ns_flops(32, 96, "Method", "gram").flops];
%! assert (C.params.ns_flops.', f);
%! assert (C.ranks.ns_flops.', [f(1) + f(3), f(2)]);
%! assert (C.flops_total, sum (f));
%! assert (C.summary.imbalance, max (C.ranks.ns_flops) / mean (C.ranks.ns_flops));

%!test
%! ## a model: experts and split blocks count per page; AdamW only in the memory
%! M = muon_model (fullfile (fileparts (which ("muon_model")), "models", "llama-3.1-8b.json"));
%! C = zero_cost (M, 8, "Design", "layerwise_lpt");
%! assert (C.nmatrices, M.counts.nmuon);
%! assert (C.total, M.counts.muon);
%! assert (sum (C.ranks.ns_calls), M.counts.nmuon);
%! assert (C.params.name{1}, "model.layers.0.self_attn.q_proj.weight");
%! T = C.time;
%! assert (T.step > 0 && T.step == T.comm + T.ns + T.memory + T.overhead);

%!test
%! ## the aliased pads fail on a mixed round, as zero_muon_step does
%! C = zero_cost ([4 4; 3 3], 2, "Design", "zero3_round_robin_aliased_pads");
%! assert (C.fails);
%! assert (! isempty (strfind (C.why, "PR 8628")));
%! C = zero_cost ([4 4; 4 4], 2, "Design", "zero3_round_robin_aliased_pads");
%! assert (! C.fails);
%! ## a design that updates pieces' rows refuses experts and split rows, as the step does
%! C = zero_cost ([8 4; 6 4], 2, "Design", "zero2_slice_only", "Experts", [2 1]);
%! assert (C.fails);
%! L = zero_layout ({[8 4], [6 4]}, 2);
%! g = {ones(8, 4), ones(6, 4); ones(8, 4), ones(6, 4)};
%! try
%!   zero_muon_step (L, g, [], "Variant", "zero2_slice_only", "Experts", [2 1]);
%!   assert (false);
%! catch err
%!   assert (strfind (err.message, C.why));
%! end_try_catch

%!test
%! ## every design's transient memory counts the flat gradient buffer it reduces (the
%! ## padded partitions of every rank), e.g. the all-to-all designs' W padded shard blocks
%! shapes = [6 4; 5 4; 6 4; 3 3];
%! C = zero_cost (shapes, 3);
%! for k = 1:numel (C)
%!   assert (all (C(k).ranks.transient >= C(k).padded_total), C(k).design);
%! endfor
%! ## all-to-all: rows in ceil (rows / 3) shards, 27 elements a rank, 81 in the flat buffer
%! A = zero_cost (shapes, 3, "Design", "alltoall_owner");
%! assert ([A.partition_size, A.padded_total], [27 81]);

%!test
%! ## layerwise_ns_cost's owners are Megatron's since its PR #6379 (the port above) on
%! ## transformer-like mixes at 2-16 ranks, where the element cap binds and where it does not;
%! ## layerwise_lpt's are its rule before (numel, the walk last first, 64-element starts)
%! for trial = 1:40
%!   rand ("seed", 500 + trial);
%!   P = randi ([2 40]);
%!   shapes = 64 * randi (16, P, 2);
%!   thin = rand (P, 1) < 0.3;             # a few thin ones: the cap binds
%!   shapes(thin, 2) = randi (9, nnz (thin), 1);
%!   W = randi ([2 16]);
%!   C = zero_cost (shapes, W, "Design", {"layerwise_ns_cost", "layerwise_lpt"});
%!   assert (C(1).params.ns_rank, test_zero_cost ("megatron_owners", shapes, W).', ...
%!           sprintf ("trial %d", trial));
%!   assert (C(2).params.ns_rank, test_zero_cost ("megatron_owners", shapes, W, false).', ...
%!           sprintf ("trial %d", trial));
%! endfor
%! ## the case where numel LPT loads one rank with both square matrices: NS cost splits them
%! ## (owners 0, 1, 0: the tall one goes where the cap leaves room, the least cursor)
%! C = zero_cost ([8192 9; 256 256; 256 256], 2, "Design", {"layerwise_lpt", "layerwise_ns_cost"});
%! assert (C(1).params.ns_rank.', [0 1 1]);
%! assert (C(2).params.ns_rank.', [0 1 0]);
%! assert (C(1).summary.imbalance > 1.9 && C(2).summary.imbalance < 1.05);
%! ## and the plan of a real step holds the same: rank 1 orthogonalizes the second matrix only
%! L = zero_layout ({[8192 9], [256 256], [256 256]}, 2);
%! g = cellfun (@(s) randn (s), repmat ({[8192 9], [256 256], [256 256]}, 2, 1), "uniformoutput", false);
%! R = zero_muon_step (L, g, [], "Variant", "layerwise_ns_cost", "Steps", 1);
%! assert ([R.ranks.ns_calls], [2 1]);
%! assert (numel (R.ranks(2).update), 256 * 256);

%!test
%! ## Megatron's buffer of one bucket, the numbers its own function wrote (tests/c/
%! ## megatron_layerwise_fixture.h, "odd sizes"): the 100 x 100 alone on a rank, the rest
%! ## 64-element aligned on the other, padded_shard_size 10000 rounded up to 64 on 2 ranks
%! ## (10048) and to 128 on 3 (10112), both rules; the reduce-scatter of W shards moves
%! ## (W - 1) of them per rank in the ring model, as the simulated step counts
%! shapes = [65 1; 63 1; 129 3; 1 1; 64 1; 127 5; 2 31; 100 100];
%! for W = [2 3]
%!   S = [10048 10112](W - 1);
%!   L = zero_layout (num2cell (shapes, 2), W);
%!   randn ("seed", W);
%!   g = cellfun (@(s) randn (s), repmat (num2cell (shapes, 2).', W, 1), "uniformoutput", false);
%!   C = zero_cost (L, [], "ElementBytes", 8, "Design", {"layerwise_lpt", "layerwise_ns_cost"});
%!   for d = 1:2
%!     assert ([C(d).partition_size, C(d).padded_total], [S, W * S]);
%!     assert (C(d).sent(:,2), repmat ((W - 1) * S * 8, W, 1));
%!     assert (C(d).ranks.transient, repmat (W * S + S + 10000, W, 1));
%!     R = zero_muon_step (L, g, [], "Variant", C(d).design, "Reference", false, "Steps", 1);
%!     assert (vertcat (R.ranks.sent), C(d).sent);
%!     assert (vertcat (R.ranks.recv), C(d).recv);
%!   endfor
%! endfor

%!test
%! ## NS costs past 2^64 (a 2^22 x 2^22 matrix): layerwise_ns_cost fails with why, the
%! ## other designs are costed as before (the aliased pads fail on the mixed sizes)
%! C = zero_cost ([2^22 2^22; 64 64], 2);
%! S = struct (C);
%! assert ({S([S.fails]).design}, {"zero3_round_robin_aliased_pads", "layerwise_ns_cost"});
%! assert (S(end).why, "matrix 1: the Newton-Schulz costs of the matrices pass 2^64");
%! assert (all (arrayfun (@(s) isfinite (s.time.step), S)));
%! ## its figures are then layerwise_lpt's (zero_cost's help says so)
%! lpt = S(strcmp ({S.design}, "layerwise_lpt"));
%! assert (S(end).ranks, lpt.ranks);
%! assert (S(end).sent, lpt.sent);

%!test
%! ## 1 x n, n x 1 and 1 x 1 matrices among the matrices (as torch.optim.Muon and DeepSpeed
%! ## take any 2-D tensor): every design's plan equals the simulator's counters, stages 2
%! ## and 3, 2 and 3 ranks, and each matrix's NS FLOPs are ns_flops' count of its shape
%! designs = test_zero_cost ("sim_designs");
%! shapes = [6 8; 1 8; 8 1; 1 1; 5 4; 1 3];
%! for W = [2 3]
%!   for stage = [2 3]
%!     L = zero_layout (num2cell (shapes, 2), W, "Stage", stage);
%!     g = cell (W, rows (shapes));
%!     for k = 1:numel (g)
%!       [~, p] = ind2sub (size (g), k);
%!       g{k} = reshape (sin (k + (1:prod (shapes(p,:)))), shapes(p,:));
%!     endfor
%!     C = zero_cost (L, [], "ElementBytes", 8, "Design", designs);
%!     for d = 1:numel (designs)
%!       what = sprintf ("%s W=%d stage %d", designs{d}, W, stage);
%!       try
%!         R = zero_muon_step (L, g, [], "Variant", designs{d}, "Reference", false);
%!       catch err
%!         assert (C(d).fails, [what ": the step failed, the plan did not: " err.message]);
%!         continue;
%!       end_try_catch
%!       assert (! C(d).fails, what);
%!       assert (isequal (C(d).calls, vertcat (R.ranks.calls)), what);
%!       assert (isequal (C(d).sent, vertcat (R.ranks.sent)), what);
%!       assert (isequal (C(d).ranks.ns_calls, [R.ranks.ns_calls].'), what);
%!       assert (isequal (C(d).ranks.momentum, [R.ranks.momentum_elements].'), what);
%!       assert (isequal (C(d).ranks.bytes_sent, [R.ranks.bytes_sent].'), what);
%!     endfor
%!     f = ns_flops (shapes(:,1), shapes(:,2));
%!     assert (C(1).params.ns_flops(:), f.flops(:), 1e-12 * max (f.flops));
%!   endfor
%! endfor
%! ## ns_flops of a 1 x n by hand (products only, 2pqr each): per step X X' 2n, (c A) A 2,
%! ## B X 2n, so 5 steps 5 (4n + 2) (n x 1 the same, transposed); 1 x 8: 170, 1 x 1: 30
%! assert (ns_flops ([1 8 1], [8 1 1]).flops(:).', [170 170 30]);

%!error <zero_cost: the padded buffer \(13510798882111488 elements\) must hold fewer than 2\^53 elements.> zero_cost ({[2^26 2^26]}, 3, "Design", "layerwise_lpt")
%!test
%! ## among several designs the one whose buffer passes 2^53 fails, the others are costed:
%! ## Megatron's shards of one 2^26 x 2^26 matrix on 3 ranks are 2^52 each, 3 x 2^52 in all
%! C = struct (zero_cost ({[2^26 2^26]}, 3, "Design", {"zero12_allreduce", "layerwise_lpt"}));
%! assert ([C.fails], [false true]);
%! assert (C(2).why, "the padded buffer (13510798882111488 elements) must hold fewer than 2^53 elements");
%! assert (C(1).total, 2^52);

## moved from inst/zero_cost.m (its length)
%!test
%! ## BucketSize: the layer-wise designs' buckets, one reduce-scatter each (Megatron's walk:
%! ## 7 x 2 then 3 x 6 is 32 >= max (20, fix (0.9*2*18)) and 5 x 4 would grow their shards
%! ## of 64: two buckets, shards 64 and 64 where one bucket's is 128); the others ignore it
%! a = {"Design", {"layerwise_lpt", "zero12_allreduce"}, "ElementBytes", 8};
%! C1 = zero_cost ([5 4; 3 6; 7 2], 2, a{:});
%! C2 = zero_cost ([5 4; 3 6; 7 2], 2, a{:}, "BucketSize", 20);
%! assert ([C1(1).calls(1,2), C2(1).calls(1,2)], [1 2]);
%! assert ([C1(1).params.ns_rank.', C2(1).params.ns_rank.'], [0 1 1, 0 0 1]);
%! assert (isequal (C1(2).sent, C2(2).sent) && isequal (C1(2).calls, C2(2).calls));
%!test
%! ## a field of the designs' time records as one column
%! C = zero_cost ({[64 32], [32 48]}, 4);
%! s = C.time.step;
%! assert (size (s), [numel(C) 1]);
%! assert (s(2), C(2).time.step);
%!error <zero_cost_result: no field 'bogus' \(fields: allreduce, reduce_scatter, all_gather, all_to_all, comm, ns, memory, overhead, step\).> C = zero_cost ({[64 32], [32 48]}, 4); C.time.bogus
%!test
%! ## every design's time has the four collectives' fields, 0 where unused, so the time
%! ## records stack and export as one table (costmodel review F2: they differed by design)
%! d = {"zero12_allreduce", "layerwise_lpt", "moonlight_gather", "alltoall_owner"};
%! C = zero_cost ({[64 64], [32 64]}, 4, "Design", d);
%! S = struct (C);
%! t = [S.time];
%! f = {"allreduce", "reduce_scatter", "all_gather", "all_to_all", "comm", "ns", "memory", ...
%!      "overhead", "step"};
%! assert (fieldnames (t).', f);
%! used = [1 0 0 0; 0 1 0 0; 0 1 1 0; 0 1 0 1];     # what each design calls (its help)
%! for k = 1:4
%!   tk = [t(k).allreduce t(k).reduce_scatter t(k).all_gather t(k).all_to_all];
%!   assert (isequal (tk > 0, used(k,:) == 1), d{k});
%!   assert (isequal (any (S(k).calls(:,[1 2 3 6]) > 0), used(k,:) == 1), d{k});
%! endfor
%! assert ([t.comm], [t.allreduce] + [t.reduce_scatter] + [t.all_gather] + [t.all_to_all]);
%! g = [tempname() ".csv"];
%! unwind_protect
%!   muon_export (C, g, "Table", "time");
%!   T = muon_import (g);
%!   assert (T.design, d.');
%!   for k = 1:numel (f)
%!     assert (T.(f{k}), [t.(f{k})].', f{k});       # bit for bit
%!   endfor
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect
%!test
%! ## time.step is the sum of the phases, each at its slowest rank (costmodel review F3), so
%! ## it can pass every rank's own step (ranks.seconds) where the slowest NS and memory ranks
%! ## differ: here by 0.4%
%! S = struct (zero_cost ([123 1850; 660 389; 132 2811], 8, "Design", "layerwise_lpt"));
%! r = S.ranks;
%! comm = S.time.reduce_scatter;
%! ## the H100 profile: bf16 989.4 TFLOPS x 0.6, 20 us a call; 3.35 TB/s x 0.8
%! ns = r.ns_flops / (989.4e12 * 0.6) + r.ns_calls * 20e-6;
%! mem = ((S.total + r.transient + r.momentum) * 2 + r.momentum * 4) / (3.35e12 * 0.8);
%! assert (r.seconds, comm + ns + mem, 1e-18);
%! assert (S.time.step, comm + max (ns) + max (mem), 1e-18);
%! assert (S.time.step / max (r.seconds), 1.004, 5e-4);
%!test
%! ## both reasons where both apply: NS costs past 2^64 and a buffer past 2^53
%! S = struct (zero_cost ({[2^26 2^26]}, 3, "Design", {"zero12_allreduce", "layerwise_ns_cost"}));
%! assert (S(2).why, ["matrix 1: the Newton-Schulz costs of the matrices pass 2^64; ", ...
%!                    "the padded buffer (13510798882111488 elements) must hold fewer than 2^53 elements"]);
%!test
%! ## bytes past 2^64 among several designs: Megatron's shard of one 2^26 x 2^26 matrix on
%! ## 512 ranks is 2^52 elements and 2^52 x 512 x 8 bytes pass 2^64 (the communicators'
%! ## counters refuse it): layerwise_lpt fails with why, its collectives left out (0), and
%! ## the others equal their plans alone
%! assert (2^52 * 512 * 8 >= 2^64);       # past uint64's 2^64 - 1
%! d = {"zero2_reduce_scatter_buggy", "layerwise_lpt", "alltoall_owner"};
%! C = struct (zero_cost ({[2^26 2^26]}, 512, "Design", d));
%! assert ([C.fails], [false true false]);
%! assert (C(2).why, ["its reduce_scatter of 4503599627370496 elements is too many to ", ...
%!                    "count (64-bit bytes); the padded buffer (2.305843009213694e+18 ", ...
%!                    "elements) must hold fewer than 2^53 elements"]);
%! assert ([nnz(C(2).calls), nnz(C(2).sent), nnz(C(2).recv)], [0 0 0]);
%! assert ([C(2).time.comm, C(2).summary.bytes_max], [0 0]);
%! assert (C(2).padded_total, 2^61);        # the rest of its plan is still there
%! assert (C(2).partition_size, 2^52);
%! for k = [1 3]
%!   assert (isequal (C(k), struct (zero_cost ({[2^26 2^26]}, 512, "Design", d{k}))), d{k});
%! endfor
%! assert (C(1).sent(1,2), 511 * 2^43 * 2);   # its reduce-scatter: 2^43-element shards, bf16
%!error <^zero_cost: 4503599627370496 elements are too many to count\.$>
%! ## alone it stays an error
%! zero_cost ({[2^26 2^26]}, 512, "Design", "layerwise_lpt");
%!error id=muonlab:badShape zero_cost ({[2^26 2^26]}, 512, "Design", "layerwise_lpt");
%!test
%! ## not only the layer-wise designs, and under 2^53 elements: an all-reduce of 2^46 elements
%! ## on 65536 ranks is too many to count (2^46 x 2^16 x 8 = 2^65), the all-to-all owner's
%! ## shards of 2^30 elements are not
%! d = {"reference", "zero3_round_robin", "alltoall_owner", "zero12_allreduce"};
%! C = struct (zero_cost ({[2^23 2^23]}, 65536, "Design", d));
%! assert ([C.fails], [true true false true]);
%! assert (C(1).why, "its allreduce of 70368744177664 elements is too many to count (64-bit bytes)");
%! assert ({C([1 2 4]).why}, repmat ({C(1).why}, 1, 3));
%! assert (C(1).padded_total < flintmax ());
%! assert (isequal (C(3), struct (zero_cost ({[2^23 2^23]}, 65536, "Design", d{3}))));
%! assert (C(3).sent(1,2), 65535 * 2^30 * 2);
%!error <^zero_cost: 70368744177664 elements are too many to count\.$>
%! zero_cost ({[2^23 2^23]}, 65536, "Design", "zero12_allreduce");
%!test
%! ## ElementBytes past the counters: an all-reduce of 2^59 elements on 2 ranks sends 2^59
%! ## elements, 2^64 bytes at 32 bytes each (it wrapped to 0), and a zero3_round_robin's
%! ## all-gathers of 2^56 + 2^57 + 2^57 elements pass 2^64 bytes in their sum at 64
%! C = struct (zero_cost ({[2^30 2^29]}, 2, "Design", {"reference", "zero2_slice_only"}, ...
%!                        "ElementBytes", 32));
%! assert (C(1).why, ["its allreduce bytes pass 2^64 (32 bytes an element); the padded ", ...
%!                    "buffer (5.7646075230342349e+17 elements) must hold fewer than 2^53 elements"]);
%! assert (C(2).sent(1,2), 2^58 * 32);       # its reduce-scatter: 2^58 elements, 2^63 bytes
%! C = struct (zero_cost ({[2^29 2^28]}, 2, "Design", {"zero3_round_robin", "reference"}, ...
%!                        "ElementBytes", 64));
%! assert (C(1).why, ["its all_gather bytes pass 2^64; the padded buffer ", ...
%!                    "(1.4411518807585587e+17 elements) must hold fewer than 2^53 elements"]);
%! assert (C(2).sent(1,1), 2^57 * 64);
%! assert (strncmp (C(2).why, "the padded buffer", 17));   # 2^57 elements, no more
%! ## expert_parallel's all-to-all: on 2 ranks the 2^28 x 2^28 matrix, rank 1's by LPT, lies
%! ## in rank 0's half (S = 2^58 - 32 elements), so rank 1 sends S + 2^56 elements, past
%! ## 2^64 bytes at 64; the all-to-all owner's are S, 2^64 - 2048 bytes; a reason of the
%! ## design's own comes first
%! d = {"expert_parallel", "alltoall_owner", "zero3_round_robin_aliased_pads"};
%! C = struct (zero_cost ({[2^28 2^28], [64 7*2^50-1]}, 2, "Design", d, "ElementBytes", 64));
%! big = "; the padded buffer (5.7646075230342342e+17 elements) must hold fewer than 2^53 elements";
%! assert (C(1).why, ["its all_to_all bytes pass 2^64 (64 bytes an element)" big]);
%! assert (C(2).why, big(3:end));
%! assert (C(2).sent(:,[2 6]), repmat (2^64 - 2048, 2, 2));
%! assert (regexp (C(3).why, '^gather round 1 mixes sizes: .*\(DeepSpeed PR 8628\); its allreduce bytes pass 2\^64 \(64 bytes an element\); the padded buffer', "once"), 1);
%!error <^zero_cost: the all_to_all bytes pass 2\^64 \(64 bytes an element\)\.$>
%! zero_cost ({[2^28 2^28], [64 7*2^50-1]}, 2, "Design", "expert_parallel", "ElementBytes", 64);

## zero_cost's option errors (moved from inst/zero_cost.m, which passed 500 lines)
%!error <zero_cost: DESIGN must be 'reference', .* or 'layerwise_ns_cost'.> zero_cost ([4 4], 2, "Design", "zero4")
%!error <zero_cost: STAGE must be 1, 2 or 3.> zero_cost ([4 4], 2, "Stage", 4)
%!error <zero_cost: SPLITROWS\{1\} has 4097 row blocks; at most 4096.> zero_cost ([4097 3], 2, "SplitRows", ones (1, 4097))
%!error <zero_cost: ORDER must be 'given' or 'size_desc'.> zero_cost ([4 4], 2, "Order", "x")
%!error <zero_cost: ELEMENTBYTES must be a positive integer of at most 64.> zero_cost ([4 4], 2, "ElementBytes", 0)
%!error <zero_cost: SYMMETRIC must be true or false.> zero_cost ([4 4], 2, "Symmetric", 2)
%!error <zero_cost: PROFILE must be "h100", a profile JSON file or a struct; 'nope' is neither.> zero_cost ([4 4], 2, "Profile", "nope")
%!error <zero_cost: the profile has no field 'devices_per_node'.> zero_cost ([4 4], 2, "Profile", struct ("a", 1))
%!error <zero_cost: METHOD must be 'standard' or 'gram'.> zero_cost ([4 4], 2, "Method", "x")
%!error <^zero_cost: unknown option 'Foo'\. Options: .*\.$> zero_cost ([4 4], 2, "Foo", 1)
%!error <zero_cost: the model has no Muon parameter.> zero_cost (struct ("params", struct ("route", {{"adamw"}}, "rows", 3, "cols", 1, "numel", 3, "experts", 1, "split", {{[]}}, "name", {{"b"}})), 2)
%!error <zero_cost: the padded buffer \(9007199254741004 elements\) must hold fewer than 2\^53 elements.> zero_cost ({[2^26 2^26], [2^26 2^26], [3 3]}, 2, "Design", "reference")

%!test
%! ## a relative profile name is read from the working folder, not found on the load path
%! ## (exist found it there, then the regular-file check said "no such file")
%! d = tempname ();
%! mkdir (d);
%! here = pwd ();
%! shipped = fullfile (fileparts (which ("zero_cost")), "profiles", "h100_node.json");
%! unwind_protect
%!   copyfile (shipped, fullfile (d, "myprof.json"));
%!   addpath (d);
%!   cd (tempdir ());
%!   fail ("zero_cost ([4 4], 2, \"Profile\", \"myprof.json\")",
%!         ["zero_cost: PROFILE must be \"h100\", a profile JSON file or a struct; ", ...
%!          "'myprof.json' is neither\\."]);
%!   cd (d);
%!   assert (isequal (zero_cost ([4 4], 2, "Profile", "myprof.json"),
%!                    zero_cost ([4 4], 2, "Profile", "h100")));
%! unwind_protect_cleanup
%!   cd (here);
%!   rmpath (d);
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect
