## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_zero_device ()
## The distributed Muon step on device arrays (@code{zero_muon_step} with gradients that are
## @code{muon_gpuarray}s: @code{muon_zero_step_device}, the momenta and the updates stay on
## the device) on the CPU stand-in device, which every machine has:
## @itemize
## @item against an outside oracle: with no momentum (@code{Beta} 0), the cubic map run to
## convergence and no scale, each assembled update is the fp64 SVD polar factor of the
## average of the ranks' gradients;
## @item bit for bit against the host step on the same simulated ranks: updates, momenta,
## the reference's momenta and errors, NS calls and counters, over three chained steps, for
## every design (muon_bp with a full, a block and a full step; the shipped ZeRO-3 pads on
## rounds of one size, and their error on a round of mixed sizes), at several worlds, stages and orders, with experts and
## split row blocks, with ranks that hold no momentum;
## @item value semantics (the state given keeps its values), a skipped step on a non-finite
## device gradient, the divergence check (@code{muonlab:diverged}, as on the host), and the
## errors with their full messages.
## @end itemize
## Under MPI the same step with the MPI communicator moving the stand-in's memory is
## tests/mpi/run_zero_mpi.m's; on a GPU with NCCL, tests/gpu/test_gpu_nccl.m's.
## @end deftypefn

function test_zero_device ()
  help test_zero_device
endfunction

%!function D = on_device (G)
%!  D = cellfun (@(g) muon_gpu (g, "Device", "cpu", "Class", "double"), G,
%!               "UniformOutput", false);

%!function v = core_designs ()
%!  v = __muon_lists__ ().lists.zero_variant;

%!function G = grads (shapes, W, seed)
%!  randn ("state", seed);
%!  G = cell (W, numel (shapes));
%!  for k = 1:numel (G)
%!    [~, p] = ind2sub (size (G), k);
%!    G{k} = randn (shapes{p});
%!  endfor

%!function x = gather_or_empty (d)
%!  x = zeros (0, 1);
%!  if (! isempty (d))
%!    x = gather (d);
%!  endif

%!test
%! ## a rank that owns nothing (4 ranks, 3 matrices, one owner each): its update is a host
%! ## zeros (0, 1), as the help says (a device array cannot be empty); the others are
%! ## device arrays of their owned elements
%! shapes = {[16 12], [8 20], [12 12]};
%! G = grads (shapes, 4, 5);
%! R = zero_muon_step (zero_layout (shapes, 4), on_device (G), [], "Variant", "layerwise_lpt");
%! n = cellfun (@(o) sum (diff (o, 1, 2)), {R.ranks.owned});
%! assert (sort (n), [0 144 160 192]);
%! for l = 1:4
%!   u = R.ranks(l).update;
%!   if (n(l) == 0)
%!     assert (isa (u, "double") && isequal (size (u), [0 1]));
%!   else
%!     assert (isa (u, "muon_gpuarray") && isequal (size (u), [n(l) 1]));
%!   endif
%! endfor

%!test
%! ## Megatron's buckets on device arrays ("BucketSize", layer-wise designs): two steps equal
%! ## the host step's bit for bit, one reduce-scatter per bucket (2 here, as on the host), and
%! ## the reference's updates
%! shapes = {[5 4], [3 6], [7 2]};
%! G = grads (shapes, 2, 13);
%! L = zero_layout (shapes, 2);
%! for v = {"layerwise_lpt", "layerwise_ns_cost"}
%!   a = {"Variant", v{1}, "BucketSize", 20};
%!   [Rh, sh] = zero_muon_step (L, G, [], a{:});
%!   [Rd, sd] = zero_muon_step (L, on_device (G), [], a{:});
%!   [Rh, sh] = zero_muon_step (L, G, sh, a{:});
%!   [Rd, sd] = zero_muon_step (L, on_device (G), sd, a{:});
%!   assert (isequal (Rd.updates, Rh.updates) && isequal (Rd.rel_err, [0 0 0]));
%!   assert ([Rd.ranks(1).calls(2), Rd.ranks(2).calls(2)], [2 2]);
%!   assert (isequal (cellfun (@gather_or_empty, sd.momentum, "UniformOutput", false),
%!                    sh.momentum));
%! endfor

%!test
%! ## the oracle: U = polar factor of the average gradient (fp64 SVD)
%! shapes = {[12 7], [5 9], [8 8]};
%! W = 3;
%! G = grads (shapes, W, 11);
%! R = zero_muon_step (zero_layout (shapes, W), on_device (G), [], "Beta", 0,
%!                     "Nesterov", false, "Coefficients", [1.5 -0.5 0], "Steps", 60,
%!                     "Precision", "double", "Scale", "none", "NormalizeFirst", true);
%! for p = 1:numel (shapes)
%!   A = (G{1,p} + G{2,p} + G{3,p}) / W;
%!   [U, ~, V] = svd (A, "econ");
%!   assert (R.updates{p}, U * V', 1e-10);
%! endfor

%!test
%! ## DeepSpeed #7807 on the device: reduce-scatter before NS is wrong on the matrix that
%! ## straddles the cut, and PR 8141's multi-owner fix is exact
%! L = zero_layout ({[64 64], [64 64], [64 64]}, 2);
%! G = grads ({[64 64], [64 64], [64 64]}, 2, 1);
%! R = zero_muon_step (L, on_device (G), [], "Variant", "zero2_reduce_scatter_buggy");
%! assert (R.rel_err([1 3]), [0 0]);
%! assert (R.rel_err(2) > 0.1);
%! R = zero_muon_step (L, on_device (G), [], "Variant", "zero2_multi_owner");
%! assert (R.rel_err, [0 0 0]);

%!test
%! ## bit for bit the host step: worlds, stages, orders, both designs, three chained steps
%! shapes = {[6 5], [4 7], [9 3], [2 2]};
%! for c = {1, 2, "given"; 2, 2, "size_desc"; 3, 1, "given"; 4, 3, "size_desc"; 5, 2, "given"}.'
%!   [W, stage, order] = deal (c{:});
%!   L = zero_layout (shapes, W, "Stage", stage, "Order", order);
%!   for v = setdiff (core_designs (), {"zero3_round_robin_aliased_pads"}, "stable")
%!     [sh, sd] = deal ([]);
%!     for step = 1:3
%!       G = grads (shapes, W, 10 * W + step);
%!       o = {"Variant", v{1}, "Period", 2};   # muon_bp: a full, a block, a full step
%!       [Rh, sh] = zero_muon_step (L, G, sh, o{:});
%!       [Rd, sd] = zero_muon_step (L, on_device (G), sd, o{:});
%!       assert (isequal (Rd.updates, Rh.updates) && isequal (Rd.reference, Rh.reference)
%!               && isequal (Rd.rel_err, Rh.rel_err));
%!       for l = 1:W
%!         a = Rd.ranks(l);
%!         b = Rh.ranks(l);
%!         assert (isequal (gather_or_empty (a.update), b.update));
%!         assert (isequal ([a.ns_calls a.momentum_elements a.calls a.sent a.recv],
%!                          [b.ns_calls b.momentum_elements b.calls b.sent b.recv]));
%!         assert (isequal (gather_or_empty (sd.momentum{l}), sh.momentum{l}));
%!         if (! strcmp (v{1}, "reference"))
%!           assert (isequal (gather_or_empty (sd.reference{l}), sh.reference{l}));
%!         endif
%!       endfor
%!     endfor
%!   endfor
%! endfor

%!test
%! ## ZeRO-3 with the shipped aliased pads: a round of mixed sizes fails as on the host, and
%! ## nothing changes; rounds of one size run
%! shapes = {[6 6], [6 6], [6 6], [4 6]};
%! L = zero_layout (shapes, 3);
%! G = grads (shapes, 3, 8);
%! [~, s] = zero_muon_step (L, on_device (G), [], "Variant", "zero3_round_robin_aliased_pads", ...
%!                          "Reference", false);
%! [Rd, sd] = zero_muon_step (L, on_device (G), [], "Variant", "zero3_round_robin");
%! [Rh, sh] = zero_muon_step (L, G, [], "Variant", "zero3_round_robin");
%! assert (isequal (Rd.updates, Rh.updates) && isequal ([Rd.ranks.pad_elements], [Rh.ranks.pad_elements]));
%! L2 = zero_layout ({[6 6], [6 6], [6 6], [6 6], [4 6]}, 3);
%! G2 = grads ({[6 6], [6 6], [6 6], [6 6], [4 6]}, 3, 9);
%! try
%!   zero_muon_step (L2, on_device (G2), [], "Variant", "zero3_round_robin_aliased_pads");
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "muonlab:badShape");
%!   assert (! isempty (strfind (err.message, "PR 8628")));
%! end_try_catch

%!test
%! ## a world larger than the elements: ranks owning only padding hold no momentum
%! shapes = {[2 2], [1 3]};
%! L = zero_layout (shapes, 8);
%! G = grads (shapes, 8, 5);
%! [Rh, sh] = zero_muon_step (L, G, [], "Variant", "zero12_allreduce");
%! [Rd, sd] = zero_muon_step (L, on_device (G), [], "Variant", "zero12_allreduce");
%! assert (isequal (Rd.updates, Rh.updates));
%! assert (any (cellfun (@isempty, sd.momentum)));
%! [Rh, sh] = zero_muon_step (L, G, sh, "Variant", "zero12_allreduce");
%! [Rd, sd] = zero_muon_step (L, on_device (G), sd, "Variant", "zero12_allreduce");
%! assert (isequal (Rd.updates, Rh.updates));

%!test
%! ## experts and split row blocks, Nesterov off, the EMA form, a scale rule
%! shapes = {[12 5], [6 8], [9 4]};
%! L = zero_layout (shapes, 3, "Stage", 1);
%! for v = setdiff (core_designs (), {"zero2_slice_only", "zero3_round_robin_aliased_pads"}, ...
%!                "stable")
%!   o = {"Variant", v{1}, "Period", 2, "BlockScale", 0.5, "Experts", [3 2 1], "SplitRows", {[1 3], [], [4 5]}, ...
%!        "Nesterov", false, "MomentumForm", "ema", "Scale", "rms", "Precision", "single"};
%!   [sh, sd] = deal ([]);
%!   for step = 1:3
%!     G = grads (shapes, 3, 70 + step);
%!     [Rh, sh] = zero_muon_step (L, G, sh, o{:});
%!     [Rd, sd] = zero_muon_step (L, on_device (G), sd, o{:});
%!     assert (isequal (Rd.updates, Rh.updates) && isequal (Rd.reference, Rh.reference));
%!     assert (isequal ([Rd.ranks.ns_calls], [Rh.ranks.ns_calls]));
%!   endfor
%! endfor

%!test
%! ## nothing given is modified; the updates and momenta are new device arrays
%! shapes = {[6 5], [4 7]};
%! L = zero_layout (shapes, 2);
%! D = on_device (grads (shapes, 2, 3));
%! [~, s1] = zero_muon_step (L, D, []);
%! before = cellfun (@gather, s1.momentum, "UniformOutput", false);
%! g0 = gather (D{1,1});
%! [R, s2] = zero_muon_step (L, D, s1);
%! assert (isequal (cellfun (@gather, s1.momentum, "UniformOutput", false), before));
%! assert (isequal (gather (D{1,1}), g0));
%! assert (isa (R.ranks(1).update, "muon_gpuarray") && isa (s2.momentum{1}, "muon_gpuarray"));
%! assert (strcmp (s2.momentum{1}.Device, "cpu") && strcmp (s2.momentum{1}.Storage, "double"));
%! assert (! isequal (gather (s2.momentum{1}), before{1}));

%!test
%! ## a host state goes on with device gradients (uploaded), and a device state saves as a
%! ## host checkpoint that loads and goes on, bit for bit
%! shapes = {[6 5], [4 7], [3 3]};
%! L = zero_layout (shapes, 3);
%! [~, sh] = zero_muon_step (L, grads (shapes, 3, 1), []);
%! [~, sd] = zero_muon_step (L, on_device (grads (shapes, 3, 1)), []);
%! G = grads (shapes, 3, 2);
%! [Rh, th] = zero_muon_step (L, G, sh);
%! [Rd, td] = zero_muon_step (L, on_device (G), sh);
%! assert (isequal (Rd.updates, Rh.updates));
%! assert (isequal (cellfun (@gather, td.momentum, "UniformOutput", false), th.momentum));
%! d = tempname ();
%! unwind_protect
%!   zero_save_state (d, L, sd);
%!   s2 = zero_load_state (d, L);
%!   [Rh, ~] = zero_muon_step (L, G, sh);
%!   [Rd, ~] = zero_muon_step (L, on_device (G), s2);
%!   assert (isequal (Rd.updates, Rh.updates));
%! unwind_protect_cleanup
%!   delete ([d "*"]);
%! end_unwind_protect

%!test
%! ## an overflowing device gradient: the step is skipped, the state comes back as it was
%! shapes = {[6 5], [4 7]};
%! L = zero_layout (shapes, 2);
%! G = grads (shapes, 2, 4);
%! [~, s] = zero_muon_step (L, on_device (G), []);
%! G{2,2}(3) = 1e200;
%! [R, s2] = zero_muon_step (L, on_device (G), s);
%! assert (R.skipped && s2.step == s.step);
%! assert (isequal (gather (s2.momentum{2}), gather (s.momentum{2})));

%!shared L, D, G
%! L = zero_layout ({[6 5], [4 7]}, 2);
%! randn ("state", 9);
%! G = {randn(6, 5), randn(4, 7); randn(6, 5), randn(4, 7)};
%! D = cellfun (@(g) muon_gpu (g, "Device", "cpu", "Class", "double"), G,
%!              "UniformOutput", false);
%!error <^zero_muon_step: RANK_GRADS\{1,1\} is a device array and RANK_GRADS\{2,1\} a host array: give all of them on one device\.$> zero_muon_step (L, [D(1,:); G(2,:)], [])
## one device entry among host entries: named as such (it said "RANK_GRADS{2,1} is a host
## array and others are device arrays")
%!error <^zero_muon_step: RANK_GRADS\{2,2\} is a device array and RANK_GRADS\{1,1\} a host array: give all of them on one device\.$> zero_muon_step (L, [G(:,1), {G{1,2}; D{2,2}}], [])
%!error <zero_muon_step: RANK_GRADS\{1,2\} must be a double device array, not single \(muon_gpu \(G, "Class", "double"\)\).> zero_muon_step (L, [D(:,1), {muon_gpu(single (G{1,2}), "Device", "cpu"); D{2,2}}], [])
%!error <zero_muon_step: RANK_GRADS\{2,2\} must be a real 4 x 7 matrix.> zero_muon_step (L, [D(:,1), {D{1,2}; muon_gpu(randn (7, 4), "Device", "cpu", "Class", "double")}], [])
%!test
%! ## host gradients with a state whose momenta are device arrays: refused (below; it
%! ## said the 2 x 1 cell of momentum vectors, which it is, must be one); gathered, the
%! ## state goes on with host gradients, with the device step's bits
%! [~, s] = zero_muon_step (L, D, []);
%! [Rd, sd] = zero_muon_step (L, D, s);
%! s.momentum = cellfun (@gather, s.momentum, "UniformOutput", false);
%! if (iscell (s.reference))
%!   s.reference = cellfun (@gather, s.reference, "UniformOutput", false);
%! endif
%! [Rh, sh] = zero_muon_step (L, G, s);
%! assert (isequal (cellfun (@gather, sd.momentum, "UniformOutput", false), sh.momentum));
%! assert (isequal (cellfun (@gather, {Rd.ranks.update}, "UniformOutput", false),
%!                  {Rh.ranks.update}));
%!error <zero_muon_step: STATE.momentum must be a 2 x 1 cell of momentum vectors, on the host or on the gradients' device.>
%! [~, s] = zero_muon_step (L, D, []);
%! s.momentum{2} = single (gather (s.momentum{2}));
%! zero_muon_step (L, D, s);
%!error <zero_muon_step: STATE.momentum holds device arrays: give RANK_GRADS on their device too, or gather the state's arrays first.>
%! [~, s] = zero_muon_step (L, D, []);
%! zero_muon_step (L, G, s);
## a host momentum holding NaN or Inf (hand-edited: zero_save_state refuses it) cannot
## go to the device: the state is refused, named as zero_save_state names it (the upload
## said "muon_gpu: X must not contain NaN or Inf.")
%!error <^zero_muon_step: STATE\.momentum\{2\} must not contain NaN or Inf\.$>
%! [~, s] = zero_muon_step (L, G, []);
%! s = struct (s);
%! s.momentum{2}(3) = NaN;
%! zero_muon_step (L, D, s);
%!error <^zero_muon_step: STATE\.reference\{1\} must not contain NaN or Inf\.$>
%! [~, s] = zero_muon_step (L, G, [], "Reference", true);
%! s = struct (s);
%! s.reference{1}(1) = -Inf;
%! zero_muon_step (L, D, s, "Reference", true);
%!error id=muonlab:badState
%! [~, s] = zero_muon_step (L, G, []);
%! s = struct (s);
%! s.momentum{1}(2) = Inf;
%! zero_muon_step (L, D, s);
%!test
%! ## the divergence check on device arrays: each rank's update measured on the device,
%! ## read back when over its bound; the same count as the host step (CANS in bf16 blows
%! ## this rank-one 16 x 64 matrix up, the SVD says so, as test_zero_step's; Keller's
%! ## schedule is sound)
%! randn ("state", 14);
%! G2 = randn (16, 1) * randn (1, 64);
%! G1 = zeros (16, 64);
%! dev = @(G) cellfun (@(g) muon_gpu (g, "Device", "cpu", "Class", "double"), G,
%!                     "UniformOutput", false);
%! o = {"Coefficients", "cans", "Precision", "bf16", "Gemm", "openblas", "Reference", false};
%! for W = 1:3
%!   L3 = zero_layout ({[16 64], [16 64]}, W);
%!   H = repmat ({G1, G2}, W, 1);
%!   warning ("off", "muonlab:diverged", "local");
%!   R = zero_muon_step (L3, dev (H), [], o{:});
%!   assert (R.diverged, [0 1]);
%!   assert (max (svd (R.updates{2})) > 1e6);
%!   warning ("error", "muonlab:diverged", "local");
%!   try
%!     zero_muon_step (L3, dev (H), [], o{:});
%!     error ("no warning");
%!   catch err
%!     assert (err.identifier, "muonlab:diverged");
%!     assert (regexp (err.message, '^zero_muon_step: 1 block\(s\) of the update of parameter 2 have'));
%!   end_try_catch
%!   R = zero_muon_step (L3, dev (H), [], o{1}, "keller", o{3:end});
%!   assert (R.diverged, [0 0]);
%! endfor

%!test
%! ## a state whose momenta are of an earlier session (after a reset): staleHandle, as
%! ## muon_update says it, not a layout mismatch (the last test here: the reset makes the
%! ## shared arrays stale too)
%! dev = @(G) cellfun (@(g) muon_gpu (g, "Device", "cpu", "Class", "double"), G,
%!                     "UniformOutput", false);
%! [~, s] = zero_muon_step (L, dev (G), [], "Reference", false);
%! muon_gpu ("reset");
%! try
%!   zero_muon_step (L, dev (G), s, "Reference", false);
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "muonlab:staleHandle");
%!   assert (err.message, ["zero_muon_step: STATE.momentum is a device array of an earlier " ...
%!                         "session (cleared by clear functions or muon_gpu (\"reset\")); make it again."]);
%! end_try_catch
%! assert (muon_gpu ("info").arrays, 0);        # nothing held by the failed call

%!test
%! ## nothing is left on the device once the results and the state are dropped, for every
%! ## combination of the reference and the assembly (without the assembly, the reference's
%! ## updates stayed held, one per rank and step: what every MPI / NCCL run does)
%! shapes = {[16 24], [8 8]};
%! L2 = zero_layout (shapes, 2);
%! n0 = muon_gpu ("info").arrays;
%! for ra = {{true, false}, {true, true}, {false, false}}
%!   Dg = on_device (grads (shapes, 2, 3));
%!   st = [];
%!   for t = 1:3
%!     [Rd, st] = zero_muon_step (L2, Dg, st, "Variant", "zero12_allreduce", "Reference",
%!                               ra{1}{1}, "Assemble", ra{1}{2});
%!   endfor
%!   assert (isequal (Rd.ranks(1).update.Device, "cpu"));
%!   clear Rd st Dg
%!   assert (muon_gpu ("info").arrays, n0);
%! endfor
