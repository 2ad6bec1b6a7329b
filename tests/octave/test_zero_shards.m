## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_zero_shards ()
## Suite (run with @code{test test_zero_shards}): sharded optimizer state
## (@code{zero_save_state} / @code{zero_load_state}) resharded across world sizes, stages and
## designs, and every kind of bad file.
## @itemize
## @item the files of format version 1 (before the field @code{train}) load as before;
## @item the oracle: a run at the NEW world size (and stage, and design) through the same
## gradient history from the start.  The history gives every rank the same dyadic gradient
## (multiples of 1/64), so the rank average is exact at any W and that run's momentum is
## the saved run's momentum bit for bit, without any code of the loader.  Saved at W = 4
## (stage 2), loaded at W = 2 and 8, stage 2 -> 3 and 3 -> 1, and across the designs that
## hold the same momentum: the loaded momentum equals the oracle's, and the next step on
## random (non-dyadic) gradients gives bitwise the same updates, per-rank updates and
## momenta as the oracle's next step;
## @item loading into the saved layout and design gives back the saved state (isequal), for
## every design: the map the files record is the core's buffer layout;
## @item the reference momentum travels with the shards (the next step's reference and
## rel_err equal the oracle's);
## @item corrupt, truncated, missing, misnamed, mixed-save, other-matrix, diverged
## (zero2_reduce_scatter_buggy) and out-of-domain files (written by an independent writer
## of the documented container, so only the payload checks can catch them): each a
## @code{muonlab:*} error, never a state.
## @end itemize
## @end deftypefn

function test_zero_shards ()
  help test_zero_shards
endfunction

%!function g = dyadic (shapes, seed)
%!  randn ("state", seed);
%!  g = cellfun (@(s) round (64 * randn (s)) / 64, shapes, "UniformOutput", false);

%!function g = rank_grads (shapes, W, seed)
%!  randn ("state", seed);
%!  g = cell (W, numel (shapes));
%!  for k = 1:numel (g)
%!    [~, p] = ind2sub (size (g), k);
%!    g{k} = randn (shapes{p});
%!  endfor

## a run of T steps of the dyadic history on layout L and design v
%!function s = history (L, v, T, shapes, ref)
%!  s = [];
%!  W = L.world;
%!  for t = 1:T
%!    [~, s] = zero_muon_step (L, repmat (dyadic (shapes, t), W, 1), s, "Variant", v,
%!                             "Reference", ref);
%!  endfor

%!shared shapes, L4, pre, V
%! shapes = {[8 6], [5 7], [9 4], [6 6], [3 10]};
%! L4 = zero_layout (shapes, 4);
%! pre = tempname ();
%! V = {"reference", "zero12_allreduce", "zero2_multi_owner", "zero3_round_robin", ...
%!      "layerwise_lpt", "moonlight_gather"};

%!test
%! ## save at W = 4, load at W = 2 and 8, stage 2 -> 3 (and 3 -> 1), across designs
%! cases = {"zero12_allreduce", 2, 2, "zero12_allreduce";
%!          "zero12_allreduce", 8, 2, "zero12_allreduce";
%!          "zero12_allreduce", 4, 3, "zero3_round_robin";
%!          "zero2_multi_owner", 2, 3, "zero12_allreduce";
%!          "zero3_round_robin", 8, 1, "moonlight_gather";
%!          "layerwise_lpt", 2, 2, "zero2_multi_owner";
%!          "moonlight_gather", 8, 3, "layerwise_lpt";
%!          "reference", 2, 3, "zero3_round_robin"};
%! for i = 1:rows (cases)
%!   [v0, W, st, v] = cases{i,:};
%!   s4 = history (L4, v0, 3, shapes, true);
%!   f = zero_save_state (pre, L4, s4);
%!   L = zero_layout (shapes, W, "Stage", st, "Order", "size_desc");
%!   s = zero_load_state (pre, L, "Variant", v);
%!   o = history (L, v, 3, shapes, true);
%!   assert (s.step, 3);
%!   assert (isequal (s.momentum, o.momentum), sprintf ("case %d: momentum", i));
%!   g = rank_grads (shapes, W, 100 + i);
%!   [R1, s1] = zero_muon_step (L, g, s, "Variant", v);
%!   [R2, s2] = zero_muon_step (L, g, o, "Variant", v);
%!   assert (isequal (R1.updates, R2.updates), sprintf ("case %d: updates", i));
%!   assert (isequal ({R1.ranks.update}, {R2.ranks.update}), sprintf ("case %d: ranks", i));
%!   assert (isequal (s1.momentum, s2.momentum), sprintf ("case %d: next momentum", i));
%!   assert (isequal (R1.reference, R2.reference) && isequal (R1.rel_err, R2.rel_err));
%!   assert (max (R1.rel_err) <= 1e-12);
%!   printf ("      %-17s W=4 st=2 -> %-17s W=%d st=%d: next step bitwise, rel_err %.1e\n",
%!           v0, v, W, st, max (R1.rel_err));
%!   cellfun (@unlink, f);
%! endfor

%!test
%! ## loading into the saved layout and design gives the saved state back, every design
%! ## (the buggy slice-only design included: its ranks hold disjoint elements)
%! for v = [V, {"zero2_slice_only"}]
%!   for cfg = {4, 2, "given"; 3, 3, "size_desc"; 5, 1, "given"}.'
%!     L = zero_layout (shapes, cfg{1}, "Stage", cfg{2}, "Order", cfg{3});
%!     s = history (L, v{1}, 2, shapes, true);
%!     f = zero_save_state (pre, L, s);
%!     assert (isequal (zero_load_state (pre, L), s), v{1});
%!     cellfun (@unlink, f);
%!   endfor
%! endfor

%!test
%! ## a run without a reference loads without one; a step 0 state round trips
%! s = history (L4, "zero3_round_robin", 2, shapes, false);
%! f = zero_save_state (pre, L4, s);
%! t = zero_load_state (pre, zero_layout (shapes, 2), "Variant", "zero12_allreduce");
%! assert (! t.has_ref && isempty (t.reference));
%! R = zero_muon_step (zero_layout (shapes, 2), rank_grads (shapes, 2, 1), t,
%!                     "Variant", "zero12_allreduce", "Reference", false);
%! assert (R.step, 3);
%! g = rank_grads (shapes, 4, 1);
%! g{2,3}(1) = NaN;                                   # a skipped first step: still step 0
%! [R, s0] = zero_muon_step (L4, g, []);
%! assert (R.skipped && s0.step == 0);
%! f = zero_save_state (pre, L4, s0);
%! assert (isequal (zero_load_state (pre, L4), s0));
%! cellfun (@unlink, f);

## the files of format versions 1 (before the field train) and 2 (before digests) still
## load, as the same state
%!test
%! s = history (L4, "zero12_allreduce", 2, shapes, true);
%! f = zero_save_state (pre, L4, s);
%! unwind_protect
%!   S3 = cellfun (@read_payload, f, "UniformOutput", false);
%!   for v = [2 1]
%!     for r = 1:numel (f)
%!       S = rmfield (S3{r}, {"train", "digests"}(v:2));
%!       write_ckpt (f{r}, "zero_shard", setfield (S, "version", v));
%!     endfor
%!     assert (isequal (zero_load_state (pre, L4), s));
%!   endfor
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

## a file of another save of the same run and step is refused (the designs whose shards
## share nothing took it: a state of rank 1's momentum from one save, the rest from another)
%!test
%! L = zero_layout ({[6 4], [5 4], [6 4]}, 3, "Stage", 3);
%! sh = repmat ({[6 4], [5 4], [6 4]}, 3, 1);
%! pa = [pre "a"];
%! pb = [pre "b"];
%! for v = {"zero3_round_robin", "layerwise_lpt", "alltoall_owner"}
%!   randn ("state", 1);
%!   [~, A] = zero_muon_step (L, cellfun (@randn, sh, "UniformOutput", false), [], "Variant", v{1});
%!   [~, B] = zero_muon_step (L, cellfun (@randn, sh, "UniformOutput", false), [], "Variant", v{1});
%!   fa = zero_save_state (pa, L, A);
%!   fb = zero_save_state (pb, L, B);
%!   unwind_protect
%!     assert (isequal (zero_load_state (pa, L), A));
%!     copyfile (fb{2}, fa{2});
%!     fail ("zero_load_state (pa, L)", ["zero_load_state: '.*a.rank1.ckpt' is a file of " ...
%!                                       "another save than rank 0's \\(its digests differ\\)."]);
%!   unwind_protect_cleanup
%!     cellfun (@unlink, [fa, fb]);
%!   end_unwind_protect
%! endfor

## every bad file: a muonlab error, never a state
%!test
%! s = history (L4, "zero12_allreduce", 2, shapes, true);
%! f = zero_save_state (pre, L4, s);
%! g = [pre ".rank2.ckpt"];
%! b0 = file_bytes (g);
%! S0 = read_payload (g);
%! unwind_protect
%!   expect = {
%!     @() put_bytes (g, bitxor (b0, [zeros(1, 300, "uint8"), uint8(4), zeros(1, numel (b0) - 301, "uint8")])), ...
%!       "is corrupt \\(checksum mismatch\\)"
%!     @() put_bytes (g, b0(1:end-10)), "is truncated or corrupt"
%!     @() put_bytes (g, b0(1:40)), "is truncated \\(40 bytes\\)"
%!     @() unlink (g), "cannot read '.*rank2.ckpt': no such file"
%!     @() copyfile ([pre ".rank1.ckpt"], g), "is the shard of rank 1, not of rank 2"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "step", 1)), "does not belong to the save of rank 0's file \\(its step differs\\)"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "world", 8)), "does not belong to the save of rank 0's file \\(its world differs\\)"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "momentum", [S0.momentum; 0])), "holds an invalid shard: MOMENTUM has [0-9]+ elements, its map [0-9]+"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "momentum", NaN (size (S0.momentum)))), "holds an invalid shard: MOMENTUM holds NaN or Inf"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "seg", S0.seg(:, [1 2 3 4 4]))), "holds an invalid shard: SEG points outside"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "seg", [S0.seg(:,1), S0.seg(:,2), S0.seg(:,3)+1, S0.seg(:,4), S0.seg(:,5)])), "records a map of its buffer that is not the one of 'zero12_allreduce'"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "momentum", S0.momentum + 2^-40)), "rank2.ckpt' does not hold what its save wrote \\(its digest differs\\)"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "digests", S0.digests + [0; 1; 0; 0])), "rank2.ckpt' is a file of another save than rank 0's \\(its digests differ\\)"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "digests", -S0.digests)), "holds an invalid shard: DIGESTS is not a column of hashes"
%!     @() write_ckpt (g, "zero_shard", rmfield (S0, "form")), "holds an invalid shard: not the fields of a zero_shard payload"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "variant", "zero9")), "holds an invalid shard: an unknown order, design or momentum form"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "version", 4)), "holds an invalid shard: an unknown format or version"
%!     @() write_ckpt (g, "zero_shard", setfield (S0, "version", 2)), "holds an invalid shard: an unknown format or version"
%!     @() write_ckpt (g, "zero_shard", rmfield (S0, "digests")), "holds an invalid shard: an unknown format or version"
%!     @() write_ckpt (g, "zero_shard", rmfield (S0, "train")), "holds an invalid shard: not the fields of a zero_shard payload"
%!   };
%!   for i = 1:rows (expect)
%!     put_bytes (g, b0);
%!     expect{i,1} ();
%!     try
%!       zero_load_state (pre, zero_layout (shapes, 2));
%!       error ("case %d: loaded", i);
%!     catch err
%!       assert (any (strcmp (err.identifier, {"muonlab:badState", "muonlab:badArg"})),
%!               sprintf ("case %d: %s %s", i, err.identifier, err.message));
%!       assert (! isempty (regexp (err.message, ["^zero_load_state: .*" expect{i,2}], "once")),
%!               sprintf ("case %d: %s", i, err.message));
%!     end_try_catch
%!   endfor
%!   put_bytes (g, b0);
%!   ## other matrices than L's
%!   fail ("zero_load_state (pre, zero_layout ({[8 6], [5 7], [9 4], [6 6], [10 3]}, 2))",
%!         "zero_load_state: '.*rank0.ckpt' holds the state of other matrices than L's.");
%!   ## a state file of another kind
%!   muon_save_state (g, muon_optimizer (struct ("W", ones (2))));
%!   fail ("zero_load_state (pre, L4)", "holds a 'muon_optimizer' checkpoint, not a 'zero_shard' one");
%! unwind_protect_cleanup
%!   for r = 0:3
%!     if (exist (sprintf ("%s.rank%d.ckpt", pre, r), "file"))
%!       unlink (sprintf ("%s.rank%d.ckpt", pre, r));
%!     endif
%!   endfor
%! end_unwind_protect

%!test
%! ## the #7807 bug's ranks diverge on a straddling matrix: its state cannot be resharded
%! s = history (L4, "zero2_reduce_scatter_buggy", 1, shapes, false);
%! s = [];
%! for t = 1:2
%!   [~, s] = zero_muon_step (L4, rank_grads (shapes, 4, t), s,
%!                            "Variant", "zero2_reduce_scatter_buggy", "Reference", false);
%! endfor
%! f = zero_save_state (pre, L4, s);
%! fail ("zero_load_state (pre, L4)", "than a lower rank \\(ranks that diverged cannot be resharded\\)");
%! cellfun (@unlink, f);

%!test
%! ## zero_save_state's help lists the payload's fields and versions as written: a plain
%! ## state's file (version 3) and a bucketed layer-wise one's (version 4, bucket_size)
%! h = get_help_text ("zero_save_state");
%! t = regexp (h, '@table @code(.*?)@end table', "tokens", "once"){1};
%! items = regexp (t, '@item ([a-z_, ]+)\n', "tokens");
%! listed = strtrim (ostrsplit (strjoin (cellfun (@(c) c{1}, items, "UniformOutput", false), ","), ","));
%! Lb = zero_layout ({[6 4], [5 4], [8 6], [4 4]}, 2);
%! g = cellfun (@(s) randn (s), repmat ({[6 4], [5 4], [8 6], [4 4]}, 2, 1), "UniformOutput", false);
%! [~, s3] = zero_muon_step (Lb, g, [], "Variant", "layerwise_lpt");
%! [~, s4] = zero_muon_step (Lb, g, [], "Variant", "layerwise_lpt", "BucketSize", 30);
%! p = tempname ();
%! unwind_protect
%!   f = zero_save_state (p, Lb, s3);
%!   S3 = read_payload (f{1});
%!   f = zero_save_state (p, Lb, s4);
%!   S4 = read_payload (f{1});
%! unwind_protect_cleanup
%!   cellfun (@unlink, glob ([p ".rank*.ckpt"]));
%! end_unwind_protect
%! assert ([S3.version, S4.version], [3, 4]);
%! assert (S4.bucket_size, 30);
%! assert (sort (listed), sort (fieldnames (S4)'));
%! assert (setdiff (listed, fieldnames (S3)), {"bucket_size"});
%! assert (! isempty (strfind (h, "and 3, or 4 for a bucketed layer-wise design")));
%! assert (! isempty (strfind (h, "reads all four")));

%!test
%! ## a 1 x n matrix held by two ranks with the same bits (reference design at W 2,
%! ## zero12_allreduce straddling a cut at stage 3) loads: the bits were compared as a row
%! ## against a column and every such checkpoint was refused as diverged
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   for c = {{"reference", 1}, {"zero12_allreduce", 3}, {"zero2_multi_owner", 3}}
%!     L = zero_layout ({[1 4], [3 2]}, 2, "Stage", c{1}{2});
%!     g = {[1 2 3 4], [1 2; 3 4; 5 6]; [4 3 2 1], [6 5; 4 3; 2 1]};
%!     [~, S] = zero_muon_step (L, g, [], "Variant", c{1}{1});
%!     f = fullfile (d, c{1}{1});
%!     zero_save_state (f, L, S);
%!     S2 = zero_load_state (f, L, "Variant", c{1}{1});
%!     assert (isequal (struct (S2).momentum, struct (S).momentum));
%!     assert (isequal (zero_muon_step (L, g, S2, "Variant", c{1}{1}),
%!                      zero_muon_step (L, g, S, "Variant", c{1}{1})));
%!   endfor
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## a sparse gradient is told to be made full (it was "must be a real 2 x 3 matrix")
%! L = zero_layout ({[2 3]}, 1);
%! fail ("zero_muon_step (L, {sparse([1 0 0; 0 1 0])}, [])",
%!       ["zero_muon_step: RANK_GRADS\\{1,1\\} must be a full matrix, not sparse ", ...
%!        "\\(convert it: full \\(G\\)\\)\\."]);
%! fail ("zero_train_step (L, {sparse([1 0 0; 0 1 0])}, [])",
%!       ["zero_train_step: RANK_GRADS\\{1,1\\} must be a full matrix, not sparse ", ...
%!        "\\(convert it: full \\(G\\)\\)\\."]);

%!test
%! ## a rank that owns only padding (12 elements padded to 16 on 4 ranks; AlignFactor 1024
%! ## on 2): its file holds no reference elements, and the save loads (it was "does not
%! ## belong to the save of rank 0's file (its reference differs)")
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   randn ("state", 3);
%!   for c = {{4, {}}, {2, {"AlignFactor", 1024}}, {4, {"Stage", 3}}}
%!     W = c{1}{1};
%!     L = zero_layout ({[2 3], [3 2]}, W, c{1}{2}{:});
%!     g = cell (W, 2);
%!     for r = 1:W
%!       g(r,:) = {randn(2, 3), randn(3, 2)};
%!     endfor
%!     [~, S] = zero_muon_step (L, g, []);
%!     f = fullfile (d, sprintf ("w%d", W));
%!     zero_save_state (f, L, S);
%!     S2 = zero_load_state (f, L);
%!     assert (isequal (zero_muon_step (L, g, S2), zero_muon_step (L, g, S)));
%!   endfor
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect
