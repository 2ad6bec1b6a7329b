## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_zero_muon_step ()
## @code{zero_muon_step}'s steps, beside the tests of its arguments at the end of
## inst/zero_muon_step.m: the correct designs give the reference's update (muon_update on
## the rank average) and DeepSpeed #7807's bug only the straddler's, momentum chains over two
## steps, one matrix's owned ranges; a skipped step (non-finite gradients) carries the layout
## facts of a step that runs (owners, straddles, each rank's owned ranges, the counts'
## wording), from the plan alone, for every design and world, with no step of the gateway;
## under MPI its counts are "modelled"; a diverged Newton-Schulz is told
## (@code{muonlab:diverged}, naming the parameter) against the SVD's measure of the blow-up.
## @end deftypefn

function test_zero_muon_step ()
  help test_zero_muon_step
endfunction

%!shared L, g
%! L = zero_layout ({[6 4], [5 4], [6 4]}, 2);
%! randn ("seed", 1);
%! g = arrayfun (@(k) randn (L.params(mod (k - 1, 3) + 1).rows, 4), 1:6, "UniformOutput", false);
%! g = reshape (g, 3, 2).';

%!test
%! ## the correct variants give the reference's update; the bug only on the straddler
%! for v = {"zero12_allreduce", "zero2_multi_owner", "zero3_round_robin", "layerwise_lpt", "moonlight_gather", "alltoall_owner"}
%!   R = zero_muon_step (L, g, [], "Variant", v{1});
%!   assert (max (R.rel_err) <= 1e-12, v{1});
%! endfor
%! R = zero_muon_step (L, g, [], "Variant", "zero2_reduce_scatter_buggy");
%! assert (R.straddles, [false true false]);
%! assert (R.rel_err([1 3]), [0 0]);
%! assert (R.rel_err(2) > 0.05);

%!test
%! ## the reference equals muon_update on the rank average
%! R = zero_muon_step (L, g, [], "Variant", "reference");
%! for p = 1:3
%!   avg = (g{1,p} + g{2,p}) / 2;
%!   assert (R.updates{p}, muon_update (avg, [], "Precision", "double"), 1e-14);
%! endfor

%!test
%! ## momentum chains: two steps equal two muon_update calls
%! [~, s] = zero_muon_step (L, g, [], "Variant", "zero2_multi_owner");
%! [R, s] = zero_muon_step (L, g, s, "Variant", "zero2_multi_owner");
%! avg = (g{1,2} + g{2,2}) / 2;
%! [~, m] = muon_update (avg, []);
%! U = muon_update (avg, m);
%! assert (R.updates{2}, U, 1e-13);
%! assert (s.step, 2);

%!test
%! ## a skipped step carries the layout facts of a step that runs: owners, straddles and
%! ## each rank's owned ranges (for the default design those of the layout's partition,
%! ## L.params), the counts' wording of its communicator; only the counters are zero
%! L = zero_layout ({[6 5], [4 7]}, 3);
%! randn ("state", 3);
%! G = cellfun (@(x) randn (x), repmat ({[6 5], [4 7]}, 3, 1), "UniformOutput", false);
%! [R, st] = zero_muon_step (L, G, []);
%! B = G;
%! B{1}(1) = NaN;
%! S = zero_muon_step (L, B, st);
%! assert (S.skipped && ! R.skipped);
%! assert (S.owners, {L.params.owners});
%! assert (S.owners, {[0 1], [1 2]});
%! assert (S.straddles, [true true]);
%! assert ({S.counts, S.comm}, {"measured", "sim"});
%! for r = 1:3
%!   assert (S.ranks(r).rank, r - 1);
%!   e = zeros (numel (L.params), 2);               # nothing owned: [0 0]
%!   for p = 1:numel (L.params)
%!     k = find (L.params(p).owners == r - 1);
%!     if (k)
%!       e(p,:) = L.params(p).owner_ranges(k,:);
%!     endif
%!   endfor
%!   assert (S.ranks(r).owned, e);
%!   assert (S.ranks(r).update, zeros (sum (diff (S.ranks(r).owned, 1, 2)), 1));
%!   assert ([S.ranks(r).ns_calls S.ranks(r).bytes_sent], [0 0]);
%! endfor
%! assert (size (S.ranks), size (R.ranks));
%! ## every design (but the one that refuses this layout): the same facts as its own step
%! for v = {"reference", "zero2_slice_only", "zero3_round_robin", "layerwise_lpt", ...
%!          "alltoall_owner", "muon_bp"}
%!   [R, st] = zero_muon_step (L, G, [], "Variant", v{1});
%!   S = zero_muon_step (L, B, st, "Variant", v{1});
%!   assert (S.skipped);
%!   assert ({S.owners, S.straddles, S.counts, S.comm}, {R.owners, R.straddles, R.counts, R.comm});
%!   assert ({S.ranks.owned}, {R.ranks.owned});
%!   assert ({S.ranks.rank}, {R.ranks.rank});
%! endfor

%!test
%! ## a skipped step asks the plan, it runs nothing: no step of the gateway (no collective,
%! ## no Newton-Schulz), and its layout facts are those of a step that runs, for every
%! ## design and world, on a simulated communicator (and on a handle of one)
%! vs = __muon_lists__ ().lists.zero_variant;
%! shapes = {[6 5], [4 7], [9 3], [2 2], [5 5]};
%! for W = [1 2 3 5]
%!   for v = vs(:).'
%!     sh = shapes;
%!     if (strcmp (v{1}, "zero3_round_robin_aliased_pads"))
%!       sh(:) = {[6 5]};               # its rounds must be of one size to run
%!     endif
%!     L = zero_layout (sh, W);
%!     randn ("state", W);
%!     G = cellfun (@(x) randn (x), repmat (sh, W, 1), "UniformOutput", false);
%!     B = G;
%!     B{W,3}(2) = NaN;
%!     comms = {"sim"};
%!     if (W == 3)
%!       comms{2} = muon_comm ("sim", W);
%!     endif
%!     for comm = comms
%!       n0 = __muon_zero_step__ ("steps");
%!       o = {"Variant", v{1}, "Comm", comm{1}, "Reference", false};
%!       [R, st] = zero_muon_step (L, G, [], o{:});
%!       n1 = __muon_zero_step__ ("steps");
%!       assert (n1 - n0, 1);
%!       S = zero_muon_step (L, B, st, o{:});
%!       assert (__muon_zero_step__ ("steps"), n1);
%!       assert (S.skipped && ! R.skipped);
%!       assert ({S.owners, S.straddles, S.counts, S.comm, S.world},
%!               {R.owners, R.straddles, R.counts, R.comm, R.world});
%!       assert ({S.ranks.owned}, {R.ranks.owned});
%!       assert ({S.ranks.rank}, {R.ranks.rank});
%!       assert (cellfun (@numel, {S.ranks.update}), cellfun (@numel, {R.ranks.update}));
%!       assert (sum ([S.ranks.calls]), 0);
%!     endfor
%!   endfor
%! endfor
%! ## the shipped ZeRO-3 pads on a round of mixed sizes: the step fails in its gather, the
%! ## skipped step (which gathers nothing) returns, with the plan's stage-3 owners
%! L = zero_layout ({[6 5], [4 7]}, 2);
%! G = {ones(6, 5), ones(4, 7); ones(6, 5), ones(4, 7)};
%! o = {"Variant", "zero3_round_robin_aliased_pads"};
%! fail ("zero_muon_step (L, G, [], o{:})", "gather round 1 mixes sizes");
%! G{1}(1) = Inf;
%! S = zero_muon_step (L, G, [], o{:});
%! R = zero_muon_step (L, G, [], "Variant", "zero3_round_robin");   # the same plan
%! assert (S.skipped && R.skipped);
%! assert ({S.ranks.owned}, {R.ranks.owned});
%! assert (vertcat (S.ranks.owned), [0 15; 0 14; 15 30; 14 28]);    # ceil (numel / 2) each
%! ## the checks of the options against the plan still run: what a step refuses, a skip does
%! fail ("zero_muon_step (L, G, [], 'Variant', 'zero2_slice_only', 'Experts', [2 1])",
%!       "experts and split row blocks need whole matrices");

%!test
%! ## under MPI (outside mpirun a world of one rank) a skipped step's counts are
%! ## "modelled", as a normal step's are: the communicator's rule (muon_comm's counts)
%! if (__muon_comm__ ("have_mpi") && isempty (getenv ("OMPI_COMM_WORLD_SIZE")))
%!   c = muon_comm ("mpi");
%!   L = zero_layout ({[6 5], [4 7]}, 1);
%!   G = {ones(6, 5), ones(4, 7)};
%!   R = zero_muon_step (L, G, [], "Comm", c);
%!   G{2}(3) = Inf;
%!   S = zero_muon_step (L, G, [], "Comm", c);
%!   assert (S.skipped && ! R.skipped);
%!   assert ({S.counts, S.comm, S.owners, S.ranks.owned}, {"modelled", "mpi", {0, 0}, [0 30; 0 28]});
%!   assert ({R.counts, R.comm, R.owners, R.ranks.owned}, {"modelled", "mpi", {0, 0}, [0 30; 0 28]});
%! endif

%!test
%! ## a diverged Newton-Schulz is told (muonlab:diverged), naming the parameter: CANS in
%! ## bf16 blows this rank-one 16 x 64 matrix up (the rounding of its normalized singular
%! ## value 1 lands where CANS's map explodes; the SVD says so, where the schedule gives
%! ## 1.12), the 4 x 8 one (orthogonal rows) stays sound
%! randn ("state", 14);
%! G2 = randn (16, 1) * randn (1, 64);
%! o = {"Coefficients", "cans", "Precision", "bf16", "Gemm", "openblas", "Reference", false};
%! L = zero_layout ({[4 8], [16 64]}, 2);
%! G = repmat ({[eye(4), zeros(4)], G2}, 2, 1);
%! warning ("error", "muonlab:diverged", "local");
%! try
%!   zero_muon_step (L, G, [], o{:});
%!   error ("no warning");
%! catch err
%!   assert (err.identifier, "muonlab:diverged");
%!   assert (regexp (err.message, '^zero_muon_step: 1 block\(s\) of the update of parameter 2 have a singular value of [0-9.e+]+ or more, where this schedule and scale give at most 1.1[0-9]: the iteration diverged'));
%! end_try_catch
%! ## a layout with names (a model's) names them too
%! M = struct (L);
%! M.names = {"embed.w", "mlp.w"};
%! try
%!   zero_muon_step (M, G, [], o{:});
%!   error ("no warning");
%! catch err
%!   assert (! isempty (strfind (err.message, "of parameter 2 (mlp.w) have")));
%! end_try_catch
%! warning ("off", "muonlab:diverged", "local");
%! R = zero_muon_step (L, G, [], o{:});
%! assert (R.diverged, [0 1]);
%! assert (max (svd (R.updates{2})) > 1e6);
%! assert (max (svd (R.updates{1})) < 1.2);
%! ## Keller's schedule is sound: no warning, nothing counted
%! warning ("error", "muonlab:diverged", "local");
%! o{2} = "keller";
%! R = zero_muon_step (L, G, [], o{:});
%! assert (R.diverged, [0 0]);
%! assert (max (svd (R.updates{2})) < 1.2);

%!test
%! ## one matrix: each rank's owned ranges are P x 2 = 1 x 2, as for several
%! R = zero_muon_step (zero_layout ({[4 4]}, 2), {ones(4); 2 * ones(4)}, []);
%! assert (size (R.ranks(1).owned), [1 2]);
%! assert (vertcat (R.ranks.owned), [0 8; 8 16]);

%!test
%! ## simulated ranks whose copies outgrow the machine: refused before their pages are
%! ## touched (4096 ranks of one 64 x 64 matrix under zero3_round_robin hold W^2 slots,
%! ## about 1.1 TB; the kernel ended Octave at 23 GB where the step went on)
%! W = 4096;
%! L = zero_layout ({[64 64]}, W);
%! G = repmat ({ones(64)}, W, 1);
%! try
%!   zero_muon_step (L, G, [], "Variant", "zero3_round_robin", "Reference", false);
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "muonlab:noMemory");
%!   assert (regexp (err.message, '^zero_muon_step: the buffers of 4096 simulated ranks need [0-9.]+ GB, more than this machine''s [0-9.]+ GB of memory \(fewer ranks, or one process per rank under MPI\)\.$'));
%! end_try_catch

%!test
%! ## 1 x n, n x 1 and 1 x 1 matrices among the matrices (torch.optim.Muon and DeepSpeed
%! ## give any 2-D tensor Muon): every correct design, two chained steps on 2 and 3 ranks,
%! ## equals the single-rank muon_update of the rank-order mean gradient, bit for bit; the
%! ## buggy designs stay wrong only where they are (the straddlers, muon_bp's block step);
%! ## the aliased pads fail naming the matrices of a mixed round
%! sh = {[6 8], [1 8], [8 1], [1 1], [5 4]};
%! good = {"reference", "zero12_allreduce", "zero2_multi_owner", "zero3_round_robin", ...
%!         "layerwise_lpt", "layerwise_ns_cost", "moonlight_gather", "alltoall_owner", ...
%!         "expert_parallel", "muon_bp"};
%! for W = [2 3]
%!   L = zero_layout (sh, W);
%!   g1 = cell (W, 5);  g2 = g1;
%!   for k = 1:numel (g1)
%!     [r, p] = ind2sub (size (g1), k);
%!     g1{k} = reshape (sin (k + (1:prod (sh{p}))), sh{p});
%!     g2{k} = reshape (cos (2 * k + (1:prod (sh{p}))), sh{p});
%!   endfor
%!   U = cell (1, 5);
%!   for p = 1:5
%!     G1 = g1{1,p};  G2 = g2{1,p};
%!     for r = 2:W
%!       G1 += g1{r,p};  G2 += g2{r,p};
%!     endfor
%!     [~, s] = muon_update (G1 / W, []);
%!     U{p} = muon_update (G2 / W, s);
%!   endfor
%!   for v = good
%!     [R, st] = zero_muon_step (L, g1, [], "Variant", v{1}, "Assemble", true, "Period", 1);
%!     R = zero_muon_step (L, g2, st, "Variant", v{1}, "Assemble", true, "Period", 1);
%!     assert (isequal (R.updates, U), sprintf ("W %d %s", W, v{1}));
%!   endfor
%!   R = zero_muon_step (L, g1, [], "Variant", "zero2_reduce_scatter_buggy");
%!   assert (R.rel_err([2 4]), [0 0]);                % 1 x 8 and 1 x 1: one owner each
%! endfor
%!error <zero_muon_step: gather round 1 mixes sizes: slot 1 holds matrix 1 \(6 x 8\) and slot 2 holds matrix 2 \(1 x 8\); an all-gather needs one size \(DeepSpeed PR 8628\)\.>
%! L = zero_layout ({[6 8], [1 8]}, 2);
%! zero_muon_step (L, {ones(6, 8), ones(1, 8); ones(6, 8), ones(1, 8)}, [],
%!                 "Variant", "zero3_round_robin_aliased_pads");

## moved from inst/zero_muon_step.m (its length): the STATE, L and COMM checks, and
## Megatron's buckets worked by hand (the shared L and g of that file, afresh)
%!shared L, g
%! L = zero_layout ({[6 4], [5 4], [6 4]}, 2);
%! randn ("seed", 1);
%! g = arrayfun (@(k) randn (L.params(mod (k - 1, 3) + 1).rows, 4), 1:6, "UniformOutput", false);
%! g = reshape (g, 3, 2).';

%!error <zero_muon_step: STATE belongs to another layout, variant, momentum form or communicator: its variant is 'zero12_allreduce', this call's 'layerwise_lpt'\.>
%! [~, s] = zero_muon_step (L, g, []); zero_muon_step (L, g, s, "Variant", "layerwise_lpt");
%!error <zero_muon_step: STATE has no reference momentum \(a step ran with 'Reference', false\).>
%! [~, s] = zero_muon_step (L, g, [], "Reference", false); zero_muon_step (L, g, s);
%!error <zero_muon_step: STATE.momentum must be a 2 x 1 cell of momentum vectors \(one per local rank\).>
%! [~, s] = zero_muon_step (L, g, []); s.momentum = {}; zero_muon_step (L, g, s);
%!error <zero_muon_step: STATE.momentum must be a 2 x 1 cell of momentum vectors \(one per local rank\).>
%! [~, s] = zero_muon_step (L, g, []); s.momentum = []; zero_muon_step (L, g, s);
%!error <zero_muon_step: STATE.momentum must be a 2 x 1 cell of momentum vectors \(one per local rank\).>
%! [~, s] = zero_muon_step (L, g, []); s.momentum{2} = single (s.momentum{2}); zero_muon_step (L, g, s);
%!error <zero_muon_step: STATE.reference must be a 2 x 1 cell of momentum vectors \(one per local rank\).>
%! [~, s] = zero_muon_step (L, g, []); s.reference = {}; zero_muon_step (L, g, s);
%!error <zero_muon_step: STATE.momentum must be \[\] in a state before the first step.>
%! [~, s] = zero_muon_step (L, g, []); s.step = 0; zero_muon_step (L, g, s);
%!error <zero_muon_step: STATE.step must be a non-negative integer.>
%! [~, s] = zero_muon_step (L, g, []); s.step = -1; zero_muon_step (L, g, s);
%!error <zero_muon_step: STATE must be \[\] or the state of a previous call.>
%! zero_muon_step (L, g, {});
%!error <zero_muon_step: STATE\.momentum must be a 2 x 1 cell of momentum vectors \(one per local rank\)\.>
%! [~, s] = zero_muon_step (L, g, []); s.momentum = {}; zero_muon_step (L, g, s);
%!error id=muonlab:badState
%! [~, s] = zero_muon_step (L, g, []); s.momentum = {}; zero_muon_step (L, g, s);
%!error <zero_muon_step: COMM must be "sim" or a handle from muon_comm.>
%! zero_muon_step (L, g, [], "Comm", 3);
## malformed fields of L, COMM and STATE: muonlab errors, not Octave's (issue 13's fuzz)
%!error <zero_muon_step: L must be a layout from zero_layout.>
%! M = L; M.params = ones (3); zero_muon_step (M, g, []);
%!error <zero_muon_step: L must be a layout from zero_layout.>
%! M = L; M.world = {2}; zero_muon_step (M, g, []);
%!error <zero_muon_step: L must be a layout from zero_layout.>
%! M = L; M.params(2).rows = "a"; zero_muon_step (M, g, []);
%!error <zero_muon_step: COMM must be "sim" or a handle from muon_comm.>
%! c = muon_comm ("sim", 2); c.size = "2"; zero_muon_step (L, g, [], "Comm", c);
%!error <zero_muon_step: STATE.step must be a non-negative integer.>
%! [~, s] = zero_muon_step (L, g, []); s.step = {1}; zero_muon_step (L, g, s);
%!error <zero_muon_step: STATE.has_ref must be true or false.>
%! [~, s] = zero_muon_step (L, g, []); s.has_ref = "yes"; zero_muon_step (L, g, s);
%!error <zero_muon_step: REFERENCE must be true or false.>
%! zero_muon_step (L, g, [], "Reference", 2);

%!error <^zero_muon_step: unknown coefficient schedule 'foo'\. Coefficient schedules: .*\.$>
%! zero_muon_step (L, g, [], "Coefficients", "foo");
%!error <zero_muon_step: GEMM must be 'auto', 'openblas' or 'onednn'.>
%! zero_muon_step (L, g, [], "Gemm", "mkl");

%!test
%! ## Megatron's buckets, worked by hand: {5x4, 3x6, 7x2} on 2 ranks, BucketSize 20.  Walked
%! ## last first, 7x2 and 3x6 (32 elements) reach max (20, fix (0.9*2*18)) = 32 and 5x4 would
%! ## not fit their shards' padding (64 + 20 > 64): bucket {3x6 -> 0, 7x2 -> 1}, then
%! ## {5x4 -> 0}, each shard 64 elements, one reduce-scatter each (64 x 8 bytes each way).  One bucket:
%! ## 5x4 -> 0, 3x6 -> 1, 7x2 -> 1 (at 64), shard 78 -> 128, one reduce-scatter of 128 x 8.
%! ## layerwise_ns_cost deals the same here (3x6's cost 54 first; 5x4 alone over its cap).
%! ## Updates the reference's, bit for bit, over two steps.
%! shapes = {[5 4], [3 6], [7 2]};
%! L3 = zero_layout (shapes, 2);
%! randn ("seed", 2);
%! h = cellfun (@(s) randn (s), repmat (shapes, 2, 1), "UniformOutput", false);
%! [R1, s1] = zero_muon_step (L3, h, [], "Variant", "layerwise_lpt");
%! assert (R1.owners, {0, 1, 1});
%! assert ([R1.ranks(1).calls(2), R1.ranks(1).sent(2), R1.ranks(2).recv(2)], [1 1024 1024]);
%! for v = {"layerwise_lpt", "layerwise_ns_cost"}
%!   [R2, s2] = zero_muon_step (L3, h, [], "Variant", v{1}, "BucketSize", 20);
%!   assert (R2.owners, {0, 0, 1});
%!   assert ([R2.ranks(1).calls(2), R2.ranks(2).calls(2)], [2 2]);
%!   assert ([R2.ranks(1).sent(2), R2.ranks(2).recv(2)], [1024 1024]);
%!   assert (s2.key.bucket_size, 20);
%!   assert (R2.rel_err, [0 0 0]);
%!   R2 = zero_muon_step (L3, h, s2, "Variant", v{1}, "BucketSize", 20);
%!   assert (R2.rel_err, [0 0 0]);
%!   ## the cost model: the same calls, bytes and owners
%!   C = zero_cost (L3, 2, "Design", v{1}, "BucketSize", 20, "ElementBytes", 8);
%!   assert ([C.calls(:,2).', C.sent(:,2).', C.partition_size, C.padded_total],
%!           [2 2 1024 1024 128 256]);
%!   assert (C.params.ns_rank.', [0 0 1]);
%! endfor
%! ## a bucket past every matrix is one bucket; the other designs ignore it (as Period)
%! R3 = zero_muon_step (L3, h, [], "Variant", "layerwise_lpt", "BucketSize", 1000);
%! assert (R3.owners, R1.owners);
%! [R4, s4] = zero_muon_step (L3, h, [], "BucketSize", 20);
%! assert (isequal (R4.updates, zero_muon_step (L3, h, []).updates));
%! assert (isempty (s4.key.bucket_size));
%!error <zero_muon_step: BUCKETSIZE must be a positive integer \(at most 2\^53\)\.>
%! zero_muon_step (L, g, [], "Variant", "layerwise_lpt", "BucketSize", 0);
%!error <zero_muon_step: BUCKETSIZE must be a positive integer \(at most 2\^53\)\.>
%! zero_muon_step (L, g, [], "Variant", "layerwise_lpt", "BucketSize", 2.5);
%!error <zero_muon_step: STATE belongs to another layout, variant, momentum form or communicator: its bucket size is 20, this call's \[\]\.>
%! [~, s] = zero_muon_step (L, g, [], "Variant", "layerwise_lpt", "BucketSize", 20);
%! zero_muon_step (L, g, s, "Variant", "layerwise_lpt");

%!test
%! ## a bucket that holds every matrix is one bucket, in the state's key too: a bucketed
%! ## checkpoint loads into one bucket (BucketSize 2^53) and continues under the default
%! ## [], bit for bit as a one-bucket run from the same momentum
%! shapes = {[5 4], [3 6], [7 2]};
%! L3 = zero_layout (shapes, 2);
%! randn ("seed", 2);
%! h = cellfun (@(s) randn (s), repmat (shapes, 2, 1), "UniformOutput", false);
%! [~, s] = zero_muon_step (L3, h, [], "Variant", "layerwise_lpt", "BucketSize", 20);
%! [~, s52] = zero_muon_step (L3, h, [], "Variant", "layerwise_lpt", "BucketSize", 52);
%! assert (isempty (s52.key.bucket_size));   # 20 + 18 + 14 elements
%! pre = tempname ();
%! f = zero_save_state (pre, L3, s);
%! unwind_protect
%!   s1 = zero_load_state (pre, L3, "BucketSize", 2^53);
%!   assert (isempty (s1.key.bucket_size));
%!   R1 = zero_muon_step (L3, h, s1, "Variant", "layerwise_lpt");
%!   assert (R1.owners, {0, 1, 1});
%!   assert (R1.rel_err, [0 0 0]);
%!   sr = zero_load_state (pre, L3, "Variant", "reference");
%!   Rr = zero_muon_step (L3, h, sr, "Variant", "reference");
%!   assert (isequal (R1.updates, Rr.updates));
%! unwind_protect_cleanup
%!   cellfun (@unlink, cellstr (f));
%! end_unwind_protect
