## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{state} =} zero_load_state (@var{prefix}, @var{L})
## @deftypefnx {muonlab} {@var{state} =} zero_load_state (@dots{}, @var{name}, @var{value}, @dots{})
## Load a sharded optimizer state written by @code{zero_save_state} into the layout
## @var{L}, which may have another world size, stage, alignment or order than the saved
## run, and (option @qcode{"Variant"}) another design holding the same momentum.
##
## Every rank reads all the saved files (@file{@var{prefix}.rank0.ckpt} names the saved
## world W0, then ranks 1..W0-1), puts the momentum of each matrix back together from the
## pieces the files record, and cuts from it the buffers of its own ranks under @var{L} and
## the design.  The result is a @code{zero_muon_step} state for @var{L}: the next step
## continues the saved run (the same step count and momentum form; pass the same
## @qcode{"MomentumForm"} to @code{zero_muon_step}).  The reference momentum comes back too
## when the files carry one (a saved @qcode{"reference"} run's momentum serves as the
## reference of another design); otherwise the state has none and the steps that follow
## need @qcode{"Reference", false}.
##
## Files saved from a @code{zero_train_step} state give a @code{zero_train_step} state
## back: the design's momentum resharded as above, and the loop's own state as it was
## saved (its training options, loss scaler, reference momenta, step and skip counts);
## continue it with the same training options.  Saved between two windows it loads onto
## any world, layout and design; saved in the middle of a window (micro-batches
## accumulated) it resumes only on the world, layout, design and bucket size it was saved
## with, each rank's accumulated gradient being its own data's (another is a
## @code{muonlab:badState} error).  The loop's state must be one @code{zero_train_step} makes: a pending skip
## (with its reason) only inside a PerMicroBatchNS window, the design's step count equal
## to the loop's (at least the loop's with PerMicroBatchNS or PoisonMomentum, which step
## the momentum more often), each reference momentum's step equal to the loop's; else a
## @code{muonlab:badState} error naming rank 0's file.
##
## Nothing is returned unless every check passes; each failure is a
## @code{muonlab:badState} error naming the file:
## @itemize
## @item the container (as @code{muon_load_state}): magic, version, length, SHA-256, kind,
## the MAT-file payload walked before @code{load} reads it (a missing or unreadable file,
## or one that is not a regular file of at most 64 GiB, is @code{muonlab:badArg}); the
## checksum detects corruption, not tampering (anyone can reseal a changed file);
## @item the payload: its fields and their classes and sizes, the rank it says it is, the
## world, layout, design, momentum form and step shared by every file, a finite momentum
## of the recorded length, a recorded map equal to the design's map of the saved layout;
## the save's digests (format version 3) the same in every file and each file's contents
## hashing to its entry: a file of another save of the same run and step is refused;
## @item the matrices: the saved ones must be those of @var{L}, every element of every
## matrix must be held by some rank, and ranks holding the same element (the owners of a
## straddling matrix) must hold the same bits: a design whose ranks diverge
## (@qcode{"zero2_reduce_scatter_buggy"}) cannot be loaded, into its own layout and design
## either (its checkpoint shows the bug; it cannot resume).
## @end itemize
##
## Options (names are case-insensitive):
## @table @asis
## @item "Variant"
## the design to load into (default: the saved one); any design of @code{zero_muon_step}.
## @item "BucketSize"
## the bucket size of @code{layerwise_lpt} / @code{layerwise_ns_cost} to load into, as
## @code{zero_muon_step}'s @qcode{"BucketSize"} (default: the saved one, which a bucketed
## layer-wise state records in its files, format version 4; other designs ignore it).  A
## size that holds every matrix is one bucket, in the step too: a bucketed state loads into
## one bucket with such a size (e.g. 2^53) and continues under the default [].
## @item "Comm"
## @qcode{"sim"} (default: every rank of @var{L} in this process) or the communicator of
## the run (from @code{muon_comm}): the state then holds its local ranks only.  Every
## process must then load the same checkpoint (files of the same contents, under any
## prefix) into the same layout, design and bucket size, else each raises
## @code{muonlab:badArg} naming what differs (the layout, VARIANT, BUCKETSIZE or the
## checkpoint) and the rank.
## @end table
##
## @example
## L4 = zero_layout (@{[8 8], [6 8], [8 4]@}, 4);
## ## ... steps at W = 4, then zero_save_state ("/tmp/run1", L4, s4)
## L2 = zero_layout (@{[8 8], [6 8], [8 4]@}, 2, "Stage", 3);
## s2 = zero_load_state ("/tmp/run1", L2, "Variant", "zero3_round_robin");
## @end example
## @seealso{zero_save_state, zero_muon_step, muon_load_state}
## @end deftypefn

function state = zero_load_state (prefix, L, varargin)
  fname = "zero_load_state";
  if (nargin < 2)
    print_usage ();
  endif
  ## under MPI every rank must load the same checkpoint (a rank whose own checks fail
  ## joins the agreement, so that the others raise too instead of waiting in it)
  names = {"layout", "VARIANT", "BUCKETSIZE", "checkpoint (its files' contents)"};
  try
    if (! (ischar (prefix) && isrow (prefix)))
      error ("muonlab:badArg", "%s: PREFIX must be a file name prefix.", fname);
    endif
    opts = parse_options (fname, "zero_load_state", varargin);
    [W, shapes] = zero_check_layout (fname, L);
    [ranks, nl] = zero_local_ranks (fname, opts.comm, W);

    ## the saved files: rank 0 names the world, then every rank's
    f0 = zero_shard_file (prefix, 0);
    S0 = read_shard (fname, f0, 0, []);
    W0 = S0.world;
    S = {S0};                             # (grown a file at a time: WORLD is the file's)
    for r = 1:W0-1
      S{r+1} = read_shard (fname, zero_shard_file (prefix, r), r, S0);
    endfor
    if (! isequal (S0.shapes, shapes))
      error ("muonlab:badState", "%s: '%s' holds the state of other matrices than L's.", fname,
             f0);
    endif

    ## the recorded maps must be the design's map of the saved layout
    L0 = zero_layout (num2cell (S0.shapes, 2), W0, "Stage", S0.stage,
                      "AlignFactor", S0.align_factor, "Order", S0.order);
    M0 = zero_shard_map (L0, S0.variant, S0.bucket_size);
    for r = 0:W0-1
      if (! isequal (S{r+1}.seg, M0.seg{r+1}) || S{r+1}.len != M0.len(r+1))
        error ("muonlab:badState",
               "%s: '%s' records a map of its buffer that is not the one of '%s' on its layout.",
               fname, zero_shard_file (prefix, r), S0.variant);
      endif
    endfor

    ## the full momentum (and reference), checked: every element held, copies equal
    full = assemble (fname, prefix, S, shapes, "seg", "momentum");
    has_ref = ! isempty (S0.ref_seg) || strcmp (S0.variant, "reference");
    ref = [];
    if (! isempty (S0.ref_seg))
      ref = assemble (fname, prefix, S, shapes, "ref_seg", "reference");
    elseif (has_ref)
      ref = full;
    endif

    variant = opts.variant;
    if (isempty (variant))
      variant = S0.variant;
    endif
    bucket = opts.bucket_size;          # by default the saved one (layer-wise designs only)
    if (isempty (bucket))
      bucket = S0.bucket_size;
    endif
    bucket = zero_bucket (variant, bucket, L);
    M = zero_shard_map (L, variant, bucket);
    key = struct ("variant", variant, "world", W, "shapes", shapes, "stage", L.stage,
                  "align_factor", L.align_factor, "order", L.order_mode, "form", S0.form,
                  "local_ranks", nl, "bucket_size", bucket);
    state = struct ("key", key, "step", S0.step, "momentum", [], "reference", [],
                    "has_ref", true);
    if (S0.step > 0)
      state = momenta (state, M, L, ranks, full, variant, has_ref, ref);
    endif
    if (! isempty (S0.train))               # a zero_train_step state: the loop's part too
      same = (W0 == W && S0.stage == L.stage && S0.align_factor == L.align_factor
              && strcmp (S0.order, L.order_mode) && strcmp (variant, S0.variant)
              && isequal (bucket, S0.bucket_size));
      state = zero_train_ckpt ("join", fname, prefix, S, state, L, ranks, same);
      state = muon_state ("zero_train", state);
    else
      state = muon_state ("zero_step", state);
    endif
    sig = [value_hash({shapes, W, L.stage, L.align_factor, L.order_mode}), ...
           value_hash(variant), value_hash(bucket), value_hash(S)];
  catch err
    comm_agree (fname, comm_in_args (varargin), [], names);
    rethrow (err);
  end_try_catch
  comm_agree (fname, opts.comm, sig, names, {"hash", "hash", "hash", "hash"});
endfunction

## the momentum (and reference) buffers of this process's ranks under L and the design
function state = momenta (state, M, L, ranks, full, variant, has_ref, ref)
  state.momentum = arrayfun (@(r) zero_shard_pack (M, r, full), ranks(:),
                             "UniformOutput", false);
  if (strcmp (variant, "reference"))
    state.has_ref = true;                 # the reference needs none of its own
  elseif (has_ref)
    Mr = zero_shard_map (L, "reference");
    state.reference = arrayfun (@(r) zero_shard_pack (Mr, r, ref), ranks(:),
                                "UniformOutput", false);
  else
    state.has_ref = false;
  endif
endfunction

## One file's payload, checked against its rank and the first file's (S0, [] for rank 0).
function S = read_shard (fname, file, r, S0)
  S = state_read (fname, file, "zero_shard");
  bad = @(msg) error ("muonlab:badState", "%s: '%s' holds an invalid shard: %s.", fname,
                      file, msg);
  fields = {"format", "version", "rank", "world", "shapes", "stage", "align_factor", "order", ...
            "variant", "form", "step", "seg", "len", "momentum", "ref_seg", "reference"};
  ## version 2 added the field train (the loop of zero_train_step, or []), 3 digests, 4
  ## bucket_size (the layer-wise designs' BucketSize; written only for a bucketed state, so
  ## that a reader before it refuses what it would misread)
  later = {"train", "digests", "bucket_size"};
  v = [];
  if (isstruct (S) && isscalar (S))
    v = find (arrayfun (@(k) isempty (setxor (fieldnames (S), [fields, later(1:k)])), 0:3));
  endif
  if (isempty (v))
    bad ("not the fields of a zero_shard payload");
  endif
  if (! (ischar (S.format) && strcmp (S.format, "muonlab.zero_shard")
         && isequal (S.version, v)))
    bad ("an unknown format or version");
  endif
  if (v < 2)
    S.train = [];                         # version 1: a zero_muon_step state
  endif
  if (v < 4)
    S.bucket_size = [];                   # versions 1-3: one bucket
  elseif (! (isa (S.bucket_size, "double") && isscalar (S.bucket_size)
             && isreal (S.bucket_size) && S.bucket_size >= 1 && S.bucket_size <= 2^53
             && S.bucket_size == fix (S.bucket_size)
             && any (strcmp (S.variant, {"layerwise_lpt", "layerwise_ns_cost"}))))
    bad ("BUCKET_SIZE is not a positive integer of a layer-wise design");
  endif
  if (v < 3)
    S.digests = [];                       # versions 1, 2: no identity of the save
  elseif (! (isa (S.digests, "double") && isreal (S.digests) && iscolumn (S.digests)
             && all (S.digests >= 0 & S.digests < 2^52 & S.digests == fix (S.digests))))
    bad ("DIGESTS is not a column of hashes");
  endif
  isint = @(x, lo) isa (x, "double") && isscalar (x) && isreal (x) && x >= lo && x == fix (x);
  if (! (isint (S.world, 1) && isint (S.rank, 0) && isint (S.step, 0) && isint (S.stage, 1)
         && S.stage <= 3 && isint (S.align_factor, 1) && isint (S.len, 0)))
    bad ("a rank, world, step, stage, alignment or length that is no valid count");
  endif
  if (! (isa (S.shapes, "double") && ismatrix (S.shapes) && columns (S.shapes) == 2
         && rows (S.shapes) >= 1 && all (S.shapes(:) >= 1 & S.shapes(:) == fix (S.shapes(:)))))
    bad ("SHAPES is not a P x 2 matrix of sizes");
  endif
  if (! (ischar (S.order) && any (strcmp (S.order, core_lists ().lists.zero_order))
         && ischar (S.variant) && any (strcmp (S.variant, core_lists ().lists.zero_variant))
         && ischar (S.form) && any (strcmp (S.form, core_lists ().lists.momentum_form))))
    bad ("an unknown order, design or momentum form");
  endif
  for f = {"seg", "ref_seg"}
    x = S.(f{1});
    if (! (isa (x, "double") && ismatrix (x) && columns (x) == 5 && all (isfinite (x(:)))))
      bad (sprintf ("%s is not a K x 5 map", upper (f{1})));
    endif
  endfor
  for f = {"momentum", "reference"}
    x = S.(f{1});
    if (! (isa (x, "double") && isreal (x) && (iscolumn (x) || isempty (x))))
      bad (sprintf ("%s is not a double column", upper (f{1})));
    endif
    if (! all (isfinite (x)))
      bad (sprintf ("%s holds NaN or Inf", upper (f{1})));
    endif
  endfor
  if (numel (S.momentum) != S.len)
    bad (sprintf ("MOMENTUM has %d elements, its map %d", numel (S.momentum), S.len));
  endif
  if (S.rank != r)
    error ("muonlab:badState", "%s: '%s' is the shard of rank %d, not of rank %d.", fname,
           file, S.rank, r);
  endif
  if (S.rank >= S.world)
    bad ("its rank is not below its world");
  endif
  if (! isempty (S0))
    same = {"world", "shapes", "stage", "align_factor", "order", "variant", "form", "step", ...
            "bucket_size"};
    for f = same
      if (! isequal (S.(f{1}), S0.(f{1})))
        error ("muonlab:badState",
               "%s: '%s' does not belong to the save of rank 0's file (its %s differs).",
               fname, file, f{1});
      endif
    endfor
    if (! isequal (S.digests, S0.digests))
      error ("muonlab:badState",
             "%s: '%s' is a file of another save than rank 0's (its digests differ).",
             fname, file);
    endif
    if (isempty (S.train) != isempty (S0.train))
      error ("muonlab:badState",
             "%s: '%s' does not belong to the save of rank 0's file (its training state differs).",
             fname, file);
    endif
    ## (a rank that owns only padding holds no reference elements: an empty ref_seg beside
    ## rank 0's, which owns the first ones, is no other save)
    if (isempty (S0.ref_seg) && ! isempty (S.ref_seg))
      error ("muonlab:badState",
             "%s: '%s' does not belong to the save of rank 0's file (its reference differs).",
             fname, file);
    endif
  endif
  P = rows (S.shapes);
  n = prod (S.shapes, 2);
  for f = {"seg", "momentum"; "ref_seg", "reference"}.'
    s = S.(f{1});
    if (isempty (s))
      continue;
    endif
    if (! (all (s(:,1) >= 1 & s(:,1) <= P & s(:,1) == fix (s(:,1))) && all (s(:,2) >= 0)
           && all (s(:,3) >= 0 & s(:,3) <= s(:,4)) && all (s(:,4) <= n(s(:,1)))
           && all (s(:,2) + s(:,4) - s(:,3) <= numel (S.(f{2}))) && all (ismember (s(:,5), [0 1]))
           && all (s(:) == fix (s(:)))))
      bad (sprintf ("%s points outside its matrices or its buffer", upper (f{1})));
    endif
  endfor
  if (! isempty (S.digests) && ! (numel (S.digests) == S.world
                                  && S.digests(r+1) == zero_shard_digest (S)))
    error ("muonlab:badState", "%s: '%s' does not hold what its save wrote (its digest differs).",
           fname, file);
  endif
endfunction

## The full matrices from every file's buffer FIELD laid out by its map SEGF.
function full = assemble (fname, prefix, S, shapes, segf, field)
  P = rows (shapes);
  full = cell (1, P);
  seen = cell (1, P);
  for p = 1:P
    full{p} = zeros (shapes(p,:));
    seen{p} = false (shapes(p,:));
  endfor
  for r = 0:numel (S)-1
    [full, seen, clash] = zero_shard_unpack (S{r+1}.(segf), S{r+1}.(field), full, seen);
    if (clash)
      error ("muonlab:badState",
             ["%s: '%s' holds another %s of matrix %d than a lower rank (ranks that " ...
              "diverged cannot be resharded)."], fname, zero_shard_file (prefix, r), field,
             clash);
    endif
  endfor
  for p = 1:P
    if (! all (seen{p}(:)))
      error ("muonlab:badState", "%s: the files under '%s' do not hold all of the %s of matrix %d.",
             fname, prefix, field, p);
    endif
  endfor
endfunction

%!test
%! ## save at W = 4, load at W = 2 (stage 3, ZeRO-3 round robin): the momentum of every
%! ## matrix is the saved one, and the next step runs
%! shapes = {[6 4], [5 4], [6 4]};
%! L4 = zero_layout (shapes, 4);
%! randn ("state", 3);
%! g = cellfun (@(s) randn (s), repmat (shapes, 4, 1), "UniformOutput", false);
%! [~, s4] = zero_muon_step (L4, g, []);
%! pre = tempname ();
%! f = zero_save_state (pre, L4, s4);
%! unwind_protect
%!   L2 = zero_layout (shapes, 2, "Stage", 3);
%!   s2 = zero_load_state (pre, L2, "Variant", "zero3_round_robin");
%!   assert ([s2.step, numel(s2.momentum), s2.has_ref], [1 2 1]);
%!   ## the reference state at W = 1 holds every matrix whole, column-major
%!   s1 = zero_load_state (pre, zero_layout (shapes, 1), "Variant", "reference");
%!   avg = (((g{1,2} + g{2,2}) + g{3,2}) + g{4,2}) / 4;
%!   [~, m] = muon_update (avg, []);
%!   assert (s1.momentum{1}(25:44), m.momentum(:), 1e-15);
%!   R = zero_muon_step (L2, g(1:2,:), s2, "Variant", "zero3_round_robin");
%!   assert (max (R.rel_err) <= 1e-12);
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

%!test
%! ## a state stepped with 'Reference', false reloads as it was: has_ref false, except in the
%! ## reference design, whose momentum is the reference's
%! shapes = {[4 6], [6 4]};
%! L = zero_layout (shapes, 2);
%! randn ("state", 5);
%! g = cellfun (@(s) randn (s), repmat (shapes, 2, 1), "UniformOutput", false);
%! for v = {"reference", "zero2_slice_only", "alltoall_owner"}
%!   [~, s] = zero_muon_step (L, g, [], "Variant", v{1}, "Reference", false);
%!   pre = tempname ();
%!   f = zero_save_state (pre, L, s);
%!   unwind_protect
%!     s2 = zero_load_state (pre, L);
%!     assert (s2.has_ref, strcmp (v{1}, "reference"));
%!     assert (s2.has_ref, s.has_ref);
%!   unwind_protect_cleanup
%!     cellfun (@unlink, f);
%!   end_unwind_protect
%! endfor

%!demo
%! ## take a step on 4 simulated ranks, save it, and resume on 2 ranks under ZeRO-3
%! shapes = {[8 8], [6 8], [8 4]};
%! L4 = zero_layout (shapes, 4);
%! randn ("state", 1);
%! g = cellfun (@(s) randn (s), repmat (shapes, 4, 1), "UniformOutput", false);
%! [~, s4] = zero_muon_step (L4, g, []);
%! pre = tempname ();
%! f = zero_save_state (pre, L4, s4);
%! unwind_protect
%!   L2 = zero_layout (shapes, 2, "Stage", 3);
%!   s2 = zero_load_state (pre, L2, "Variant", "zero3_round_robin");
%!   printf ("loaded at W = 2: step %d, %d rank buffers of %s elements\n", s2.step,
%!           numel (s2.momentum), mat2str (cellfun (@numel, s2.momentum)));
%!   ## the momentum of every matrix, gathered whole: the same bits at W = 4 and W = 2
%!   m4 = zero_load_state (pre, zero_layout (shapes, 1), "Variant", "reference");
%!   f2 = zero_save_state ([pre "w2"], L2, s2);
%!   m2 = zero_load_state ([pre "w2"], zero_layout (shapes, 1), "Variant", "reference");
%!   cellfun (@unlink, f2);
%!   printf ("momentum saved at W = 4 vs resharded to W = 2: equal bits: %d\n",
%!           isequal (m4.momentum, m2.momentum));
%!   ## the next step on 2 ranks continues the run: its update matches the reference design
%!   R = zero_muon_step (L2, g(1:2,:), s2, "Variant", "zero3_round_robin");
%!   printf ("next step at W = 2: largest relative error vs reference %.1e\n", max (R.rel_err));
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

%!error <zero_load_state: PREFIX must be a file name prefix.> zero_load_state (1, zero_layout ({[2 2]}, 1))
%!error <zero_load_state: VARIANT must be 'reference', 'zero12_allreduce', 'zero2_reduce_scatter_buggy', 'zero2_slice_only', 'zero2_multi_owner', 'zero3_round_robin', 'zero3_round_robin_aliased_pads', 'layerwise_lpt', 'moonlight_gather', 'alltoall_owner', 'muon_bp', 'expert_parallel' or 'layerwise_ns_cost'\.> zero_load_state ("x", zero_layout ({[2 2]}, 1), "Variant", "zero4")
%!error <zero_load_state: L must be a layout from zero_layout.> zero_load_state ("x", 3)
%!error <zero_load_state: cannot read 'no_such_prefix.rank0.ckpt': no such file.> zero_load_state ("no_such_prefix", zero_layout ({[2 2]}, 1))

%!test
%! ## a bucketed layer-wise state (BucketSize: its owners differ from one bucket's) saves its
%! ## bucket size (format version 4: read as one bucket, its map would not be the files') and
%! ## loads back as it was; into another design the full
%! ## momentum is the saved one: the reference design's after the same step
%! shapes = {[5 4], [3 6], [7 2]};
%! L = zero_layout (shapes, 2);
%! randn ("state", 7);
%! g = cellfun (@(s) randn (s), repmat (shapes, 2, 1), "UniformOutput", false);
%! [~, s] = zero_muon_step (L, g, [], "Variant", "layerwise_ns_cost", "BucketSize", 20);
%! [~, sr] = zero_muon_step (L, g, [], "Variant", "reference");
%! pre = tempname ();
%! f = zero_save_state (pre, L, s);
%! unwind_protect
%!   s2 = zero_load_state (pre, L);
%!   assert (s2.key.bucket_size, 20);
%!   assert (s2.momentum, s.momentum);
%!   R = zero_muon_step (L, g, s2, "Variant", "layerwise_ns_cost", "BucketSize", 20);
%!   assert (R.rel_err, [0 0 0]);
%!   s3 = zero_load_state (pre, L, "Variant", "reference");
%!   assert (s3.momentum, sr.momentum);
%!   assert (isempty (s3.key.bucket_size));
%!   ## into one bucket's owners ({0, 1, 1}: another rank holds 3x6's momentum)
%!   s4 = zero_load_state (pre, L, "BucketSize", 1000);
%!   [~, s5] = zero_muon_step (L, g, [], "Variant", "layerwise_ns_cost", "BucketSize", 1000);
%!   assert (s4.momentum, s5.momentum);
%!   assert (numel (s4.momentum{1}) != numel (s.momentum{1}));
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect
