## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{files} =} zero_save_state (@var{prefix}, @var{L}, @var{state})
## @deftypefnx {muonlab} {@var{files} =} zero_save_state (@dots{}, "Comm", @var{comm})
## Save the sharded optimizer state of @code{zero_muon_step} or of a training loop of
## @code{zero_train_step}: one checkpoint file per rank, each holding that rank's momentum
## buffer and the map of what it holds (and the loop's state).
##
## @var{L} is the layout and @var{state} the state of the run (the second output of
## @code{zero_muon_step} or of @code{zero_train_step}).  Rank r writes @file{@var{prefix}.rank@var{r}.ckpt}: on
## simulated ranks this call writes all W files, under MPI (option @qcode{"Comm"}, the
## communicator of the run) each rank writes its own.  @var{files} lists the files written.
## The set is written all or nothing as far as the file system allows: every file is
## first written in full under a temporary name beside its target, its size on disk
## checked (a full disk is a @code{muonlab:badArg} error; every target is checked
## first: one that is a folder, or in a folder that does not exist, is a
## @code{muonlab:badArg} error naming it), and only when all are written are they renamed
## over the targets; a rename that fails (a target that cannot be replaced) puts back the
## files already replaced.  A failed save (@code{muonlab:badArg}) thus leaves the previous
## checkpoint under @var{prefix} whole and loadable, and no temporary files.  Under MPI
## the ranks agree that every rank wrote its temporary file before any renames (a rank
## that could not raises its error, the others raise "rank R raised an error" and remove
## theirs); a rename that then fails on one rank is undone on that rank only, the other
## ranks having renamed theirs: the files are then a mix of two saves, which
## @code{zero_load_state} refuses (each rank still raises an error).  Only a crash during
## the renames can leave such a mix on simulated ranks.  As with Octave's @code{save}
## (and @code{muon_save_state}), an existing rank file keeps its read and write
## permissions (0600 stays 0600), and one the user could not write in place (a 0444 file
## of a user who is not root) is a @code{muonlab:badArg} error @qcode{"cannot write
## '@var{file}': Permission denied."} before anything is written.
## Each is a muonlab checkpoint of kind @qcode{"zero_shard"} (the container of
## @code{muon_save_state}: magic, format version 2, length, SHA-256 checksum) whose payload
## is a struct with the fields:
## @table @code
## @item format, version
## @qcode{"muonlab.zero_shard"} and 3, or 4 for a bucketed layer-wise design (a state of
## @code{zero_muon_step} with @qcode{"BucketSize"}; version 4 alone has the field
## @code{bucket_size}); 2: the files of muonlab before the field @code{digests}, 1: before
## @code{train}.  @code{zero_load_state} reads all four.
## @item rank, world
## this rank and the world size of the run.
## @item shapes, stage, align_factor, order
## the layout (the matrices as a P x 2 @code{[rows cols]} matrix and the options of
## @code{zero_layout}).
## @item variant, form, step
## the design, the momentum form (@qcode{"ema"} or @qcode{"sgd"}) and the steps taken.
## @item seg, len
## the map of the buffer: one row @code{[p, at, start, stop, rowmajor]} per stretch, the
## buffer's elements @code{at+1 : at+stop-start} holding elements @code{[start stop)} of
## matrix p, row-major (@code{rowmajor} 1: the rank's pieces of its partition) or
## column-major (0: a whole matrix); @code{len} the buffer's length (padding is zero).
## @item momentum
## the buffer, a @code{len} x 1 double column.
## @item ref_seg, reference
## the momentum of the run's reference design (when the state carries one) on this rank's
## pieces of @var{L}, in the same form (empty otherwise).
## @item train
## empty for a @code{zero_muon_step} state; for a @code{zero_train_step} state, the rest of
## the loop: @code{options} (its training options: AccumulationSteps, PerMicroBatchNS,
## PoisonMomentum, the clip policy and the loss scaler's settings), @code{micro} (the
## micro-batches of the window so far), @code{pending}, @code{why}, @code{full} (with
## PerMicroBatchNS the summed updates so far), @code{scaler} (the loss scaler: its scale,
## good steps, overflows and hysteresis counter), @code{ref} (the one-process reference's momenta),
## @code{step}, @code{skipped}, @code{started} (a step has run), and this rank's own
## @code{accum} (its accumulated gradients, one per matrix), @code{upd}, @code{owned},
## @code{ns_calls} and @code{bytes}.
## @item digests
## the save's identity, the same in every file: a W x 1 column, entry r + 1 a hash
## (@code{value_hash}, below 2^52) of rank r's @code{momentum}, @code{reference} and
## @code{train}.  @code{zero_load_state} checks every file's contents against it, so that
## a file of another save of the same run and step is refused, not mixed in.
## @item bucket_size
## version 4 only, the last field: the layer-wise design's bucket size, a positive integer
## (@code{zero_muon_step}'s @qcode{"BucketSize"}), on which the buffer's map depends.
## @end table
## Options (names are case-insensitive):
## @table @asis
## @item "Comm"
## @qcode{"sim"} (default: @var{state} holds every rank of @var{L}) or the communicator of
## the run (from @code{muon_comm}): this process writes the files of its local ranks.
## Every process must then pass the same @var{prefix}, layout and state of the run's
## design, step and loop, else each raises @code{muonlab:badArg} naming the rank that
## differs (and writes nothing).
## @end table
##
## A design whose ranks diverge (@qcode{"zero2_reduce_scatter_buggy"}) is written as it is,
## to be looked at; @code{zero_load_state} refuses it where the owners of a straddling
## matrix disagree.
## @code{zero_load_state} reads the files back into any world size, stage and design that
## holds the same momentum; a training loop saved in the middle of a window (micro-batches
## accumulated, not yet stepped) resumes only on the world, layout, design and bucket size
## it was saved with, each rank's accumulated gradient being its own data's.  The state must be valid for @var{L} (its layout, one buffer
## per local rank of the map's length, finite: a momentum that @code{zero_train_step}'s
## @qcode{"PoisonMomentum"} made non-finite is refused), and a @code{zero_train_step}
## state's training part must be one that @code{zero_load_state} accepts (its options,
## loss scaler and reference momenta, checked as there), else a @code{muonlab:badState}
## error and no file is written.
##
## @example
## L = zero_layout (@{[8 8], [6 8], [8 4]@}, 4);
## g = arrayfun (@@(k) randn (L.params(ceil (k / 4)).rows, L.params(ceil (k / 4)).cols),
##               1:12, "UniformOutput", false);
## [~, s] = zero_muon_step (L, reshape (g, 4, 3), []);
## zero_save_state ("/tmp/run1", L, s)        # /tmp/run1.rank0.ckpt ... rank3.ckpt
## @end example
## @seealso{zero_load_state, zero_muon_step, muon_save_state}
## @end deftypefn

function files = zero_save_state (prefix, L, state, varargin)
  fname = "zero_save_state";
  if (nargin < 3)
    print_usage ();
  endif
  state = state_plain (state);
  ## under MPI every rank must write the same checkpoint (a rank whose own checks fail
  ## joins the agreement, so that the others raise too instead of waiting in it)
  names = {"PREFIX", "layout", "STATE (its design and momentum form)", "STATE (its step count)", ...
           "STATE (its training loop)"};
  try
    if (! (ischar (prefix) && isrow (prefix)))
      error ("muonlab:badArg", "%s: PREFIX must be a file name prefix.", fname);
    endif
    opts = parse_options (fname, "zero_save_state", varargin);
    [W, shapes] = zero_check_layout (fname, L);
    [ranks, nl] = zero_local_ranks (fname, opts.comm, W);
    train = [];                             # a zero_train_step state: the loop rides along
    if (isstruct (state) && isscalar (state) && isfield (state, "type")
        && isequal (state.type, "muonlab.zero_train"))
      [state, train] = zero_train_ckpt ("split", fname, state, L, W, shapes, nl);
    endif
    if (! (isstruct (state) && isscalar (state)
           && all (isfield (state, {"key", "step", "momentum", "reference", "has_ref"}))
           && isstruct (state.key) && isscalar (state.key)
           && all (isfield (state.key, {"variant", "world", "shapes", "stage", "align_factor", ...
                                        "order", "form", "local_ranks"}))))
      error ("muonlab:badState",
             "%s: STATE must be a state returned by zero_muon_step or zero_train_step.", fname);
    endif
    k = state.key;
    zero_check_key (fname, k, L, W, shapes, nl);
    ## the state of a step on device arrays: its momenta come to the host (a checkpoint is
    ## host data; zero_muon_step uploads host momenta given with device gradients)
    what = merge (isempty (train), "STATE", "STATE.zero");   # (a loop's design state)
    state.momentum = gather_cells (fname, state.momentum, [what ".momentum"]);
    state.reference = gather_cells (fname, state.reference, [what ".reference"]);
    step = state.step;
    if (! (isnumeric (step) && isreal (step) && isscalar (step) && step >= 0
           && step == fix (step)))
      error ("muonlab:badState", "%s: STATE.step must be a non-negative integer.", fname);
    endif
    if (! (islogical (state.has_ref) && isscalar (state.has_ref)))
      error ("muonlab:badState", "%s: STATE.has_ref must be true or false.", fname);
    endif
    if (! (ischar (k.variant) && any (strcmp (k.variant, core_lists ().lists.zero_variant))))
      error ("muonlab:badState", "%s: STATE.key.variant must be a design of zero_muon_step.",
             fname);
    endif
    if (! (ischar (k.form) && any (strcmp (k.form, core_lists ().lists.momentum_form))))
      error ("muonlab:badState", "%s: STATE.key.form must be 'ema' or 'sgd'.", fname);
    endif
    kb = [];                              # the layer-wise designs' buckets
    if (isfield (k, "bucket_size"))
      kb = k.bucket_size;
    endif
    if (! (isempty (kb) || (isa (kb, "double") && isscalar (kb) && isreal (kb) && kb >= 1
                            && kb <= 2^53 && kb == fix (kb))))
      error ("muonlab:badState",
             "%s: STATE.key.bucket_size must be [] or a positive integer.", fname);
    endif
    kb = zero_bucket (k.variant, kb, L);
    M = zero_shard_map (L, k.variant, kb);
    mom = state.momentum;
    if (step == 0)
      mom = arrayfun (@(r) zeros (M.len(r+1), 1), ranks(:), "UniformOutput", false);
    endif
    check_bufs (fname, [what ".momentum"], mom, M, ranks);

    ## the reference momentum on each rank's pieces of L (when the state has one)
    has_ref = state.has_ref && step > 0 && ! strcmp (k.variant, "reference");
    if (has_ref)
      Mr = zero_shard_map (L, "reference");
      check_bufs (fname, [what ".reference"], state.reference, Mr, ranks);
      Mp = zero_shard_map (L, "zero2_slice_only");      # the pieces of L's partitions
    endif
    loop = train;                         # (the loop's part every rank holds alike)
    if (! isempty (loop))
      loop = rmfield (loop, {"accum", "upd", "owned", "ns_calls", "bytes"});
      loop.key = rmfield (loop.key, "local_ranks");
    endif
    sig = [value_hash(prefix), value_hash({shapes, W, L.stage, L.align_factor, L.order_mode}), ...
           value_hash({k.variant, k.form, kb}), step, value_hash(loop)];

    ## the local ranks' payloads and their digests
    S = cell (1, nl);
    digest = zeros (nl, 1);
    for l = 1:nl
      r = ranks(l);
      S{l} = struct ("format", "muonlab.zero_shard", "version", 3, "rank", r, "world", W,
                     "shapes", shapes, "stage", L.stage, "align_factor", L.align_factor,
                     "order", L.order_mode, "variant", k.variant, "form", k.form,
                     "step", step, "seg", M.seg{r+1}, "len", M.len(r+1), "momentum", mom{l},
                     "ref_seg", zeros (0, 5), "reference", zeros (0, 1), "train", [],
                     "digests", []);
      if (! isempty (kb))                 # version 4: a bucketed layer-wise design's size
        S{l}.version = 4;
        S{l}.bucket_size = kb;
      endif
      if (! isempty (train))
        S{l}.train = zero_train_ckpt ("rank", train, l);
      endif
      if (has_ref)
        full = cellfun (@(sz) zeros (sz), num2cell (shapes, 2).', "UniformOutput", false);
        seen = cellfun (@(x) false (size (x)), full, "UniformOutput", false);
        full = zero_shard_unpack (Mr.seg{r+1}, state.reference{l}, full, seen);
        S{l}.ref_seg = Mp.seg{r+1};
        S{l}.reference = zero_shard_pack (Mp, r, full);
      endif
      digest(l) = zero_shard_digest (S{l});
    endfor
  catch err
    comm_agree (fname, comm_in_args (varargin), [], names);
    rethrow (err);
  end_try_catch
  comm_agree (fname, opts.comm, sig, names, {"hash", "hash", "hash", [], "hash"});
  if (nl < W)                           # every rank's digest on every rank (ranks agreed)
    digest = __muon_comm__ ("all_gather", opts.comm, digest);
  endif

  ## the files all or nothing: every local rank's written under a temporary name, an
  ## agreement that every rank wrote its own, and only then the renames over the targets
  ## (write_files: a rename that fails puts the previous files back), then an agreement
  ## that every rank renamed its own (a rank that could not raises its error, the others
  ## are told: no set reported saved that is not whole)
  h = [];
  try
    files = cell (1, nl);
    bytes = cell (1, nl);
    for l = 1:nl
      S{l}.digests = digest(:);
      files{l} = zero_shard_file (prefix, ranks(l));
      bytes{l} = state_write (fname, [], "zero_shard", S{l}, files{l});
    endfor
    h = write_files ("prepare", fname, files, bytes);
  catch err
    comm_agree (fname, opts.comm, [], {"files"});
    rethrow (err);
  end_try_catch
  try
    comm_agree (fname, opts.comm, 1, {"files"});
  catch err                             # another rank could not write: nothing renamed
    write_files ("abort", h);
    rethrow (err);
  end_try_catch
  try
    write_files ("commit", h);
  catch err
    comm_agree (fname, opts.comm, [], {"files"});
    rethrow (err);
  end_try_catch
  comm_agree (fname, opts.comm, 1, {"files"});
endfunction

function check_bufs (fname, what, m, M, ranks)
  nl = numel (ranks);
  if (! (iscell (m) && numel (m) == nl))
    error ("muonlab:badState", "%s: %s must be a cell of %d momentum buffers.", fname, what, nl);
  endif
  for l = 1:nl
    x = m{l};
    if (! (isa (x, "double") && isreal (x) && iscolumn (x) && numel (x) == M.len(ranks(l)+1)))
      error ("muonlab:badState",
             "%s: %s{%d} must be a double column of %d elements (the design's buffer).",
             fname, what, l, M.len(ranks(l)+1));
    endif
    if (! all (isfinite (x)))
      error ("muonlab:badState", "%s: %s{%d} must not contain NaN or Inf.", fname, what, l);
    endif
  endfor
endfunction

## the device arrays of the cell C on the host; a stale one is an error naming this
## function and WHAT{k} (gpu_stale), as muon_save_state names OPT's field
function c = gather_cells (fname, c, what)
  if (iscell (c))
    for k = 1:numel (c)
      if (isa (c{k}, "muon_gpuarray"))
        try
          c{k} = gather (c{k});
        catch err
          gpu_stale (err, fname, sprintf ("%s{%d}", what, k));
        end_try_catch
      endif
    endfor
  endif
endfunction

%!shared L, g, s, pre
%! L = zero_layout ({[6 4], [5 4], [6 4]}, 2);
%! randn ("state", 5);
%! g = arrayfun (@(k) randn (L.params(ceil (k / 2)).rows, 4), 1:6, "UniformOutput", false);
%! g = reshape (g, 2, 3);
%! [~, s] = zero_muon_step (L, g, []);
%! pre = tempname ();

%!test
%! f = zero_save_state (pre, L, s);
%! unwind_protect
%!   assert (f, {[pre ".rank0.ckpt"], [pre ".rank1.ckpt"]});
%!   fid = fopen (f{2}, "r");
%!   b = fread (fid, Inf, "uint8=>uint8").';
%!   fclose (fid);
%!   assert (char (b(1:8)), "MUONCKPT");
%!   assert (char (b(25:34)), "zero_shard");
%!   s2 = zero_load_state (pre, L);
%!   assert (isequal (s2, s));
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

%!test
%! ## a save that cannot write one rank's file writes none: the previous checkpoint's
%! ## files keep their bytes (ranks 0 and 1 before rank 2's folder), no temporaries stay
%! L3 = zero_layout ({[6 4], [5 4], [3 7]}, 3);
%! randn ("state", 7);
%! g3 = cellfun (@(s) randn (s), repmat ({[6 4], [5 4], [3 7]}, 3, 1), "UniformOutput", false);
%! [~, s1] = zero_muon_step (L3, g3, []);
%! [~, s2] = zero_muon_step (L3, g3, s1);
%! d = tempname ();
%! mkdir (d);
%! p = fullfile (d, "q");
%! unwind_protect
%!   f = zero_save_state (p, L3, s1);
%!   b = cellfun (@(x) fileread (x), f, "UniformOutput", false);
%!   unlink (f{3});
%!   mkdir (f{3});
%!   try
%!     zero_save_state (p, L3, s2);
%!     error ("the save did not fail");
%!   catch err
%!     assert (err.identifier, "muonlab:badArg");
%!     assert (err.message, sprintf ("zero_save_state: cannot write '%s': it is a folder.", f{3}));
%!   end_try_catch
%!   assert (cellfun (@(x) fileread (x), f(1:2), "UniformOutput", false), b(1:2));
%!   x = dir (d);
%!   assert (sort ({x.name}), {".", "..", "q.rank0.ckpt", "q.rank1.ckpt", "q.rank2.ckpt"});
%!   rmdir (f{3});
%!   fid = fopen (f{3}, "w");
%!   fwrite (fid, b{3});
%!   fclose (fid);
%!   assert (isequal (zero_load_state (p, L3), s1));
%!   ## and the save goes through once the target can be written
%!   zero_save_state (p, L3, s2);
%!   assert (isequal (zero_load_state (p, L3), s2));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## a state of device arrays of an earlier session (muon_gpu ("reset")): the error names
%! ## zero_save_state and the buffer, not the gateway's gather and its argument D
%! gd = cellfun (@(x) muon_gpu (x, "Device", "cpu"), g, "UniformOutput", false);
%! [~, sd] = zero_muon_step (L, gd, []);
%! assert (isa (sd.momentum{1}, "muon_gpuarray"));
%! muon_gpu ("reset");
%! p = tempname ();
%! try
%!   zero_save_state (p, L, sd);
%!   error ("the save did not fail");
%! catch err
%!   assert (err.identifier, "muonlab:staleHandle");
%!   assert (regexp (err.message, ['^zero_save_state: STATE\.momentum\{1\} is a device array ' ...
%!                                 'of an earlier session .*\.$'], "once"), 1);
%! end_try_catch
%! assert (isempty (glob ([p "*"])));

%!test
%! ## a re-save keeps each rank file's permissions (0600 and 0640 under a umask of 022);
%! ## a 0444 rank file is written by root, keeping 0444, and refused to anyone else
%! ## before any file is replaced
%! d = tempname ();
%! mkdir (d);
%! p = fullfile (d, "q");
%! u = umask (22);
%! unwind_protect
%!   perm = @(f) bitand (stat (f).mode, 511);
%!   f = zero_save_state (p, L, s);
%!   b = cellfun (@fileread, f, "UniformOutput", false);
%!   cellfun (@unlink, f);
%!   for r = 1:2                         # rank 0: 0600, rank 1: 0640
%!     umask ([77 27](r));
%!     fid = fopen (f{r}, "w");
%!     fwrite (fid, b{r});
%!     fclose (fid);
%!   endfor
%!   umask (22);
%!   assert ([perm(f{1}), perm(f{2})], [384 416]);
%!   [~, s2] = zero_muon_step (L, g, s);
%!   zero_save_state (p, L, s2);
%!   assert ([perm(f{1}), perm(f{2})], [384 416]);       # (before: 0644 both)
%!   assert (isequal (zero_load_state (p, L), s2));
%!   assert (umask (22), 22);
%!   b = cellfun (@fileread, f, "UniformOutput", false);
%!   unlink (f{2});
%!   umask (333);
%!   fid = fopen (f{2}, "w");
%!   fwrite (fid, b{2});
%!   fclose (fid);
%!   umask (22);
%!   if (geteuid () == 0)
%!     zero_save_state (p, L, s);
%!     assert ([perm(f{1}), perm(f{2})], [384 292]);
%!     assert (isequal (zero_load_state (p, L), s));
%!   else
%!     try
%!       zero_save_state (p, L, s);
%!       error ("the save did not fail");
%!     catch err
%!       assert (err.message,
%!               sprintf ("zero_save_state: cannot write '%s': Permission denied.", f{2}));
%!     end_try_catch
%!     assert (cellfun (@fileread, f, "UniformOutput", false), b);
%!   endif
%!   x = dir (d);
%!   assert (sort ({x.name}), {".", "..", "q.rank0.ckpt", "q.rank1.ckpt"});
%! unwind_protect_cleanup
%!   umask (u);
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!demo
%! ## one Muon step on 4 simulated ranks (ZeRO-1/2), then one checkpoint file per rank
%! L = zero_layout ({[8 8], [6 8], [8 4]}, 4);
%! randn ("state", 1);
%! g = cellfun (@(s) randn (s), repmat ({[8 8], [6 8], [8 4]}, 4, 1), "UniformOutput", false);
%! [~, s] = zero_muon_step (L, g, []);
%! pre = tempname ();
%! f = zero_save_state (pre, L, s);
%! unwind_protect
%!   for r = 1:numel (f)
%!     d = dir (f{r});
%!     printf ("%s: %d bytes, %d momentum elements\n", f{r}, d.bytes, numel (s.momentum{r}));
%!   endfor
%!   ## read back into the same layout: the state is unchanged
%!   printf ("reloaded state equal: %d\n", isequal (zero_load_state (pre, L), s));
%! unwind_protect_cleanup
%!   cellfun (@unlink, f);
%! end_unwind_protect

%!error <Invalid call> zero_save_state ("x", L)
%!error <zero_save_state: PREFIX must be a file name prefix.> zero_save_state (1, L, s)
%!error <zero_save_state: STATE must be a state returned by zero_muon_step or zero_train_step.> zero_save_state ("x", L, struct ())
%!error <zero_save_state: STATE must be a state returned by zero_train_step.> zero_save_state ("x", L, struct ("type", "muonlab.zero_train"))
%!error <zero_save_state: STATE belongs to another layout than L.> zero_save_state ("x", zero_layout ({[6 4], [5 4], [6 4]}, 2, "Stage", 3), s)
%!error <zero_save_state: STATE.key.form must be 'ema' or 'sgd'.>
%! t = s; t.key.form = "adam"; zero_save_state ("x", L, t);
%!error <zero_save_state: STATE.momentum\{2\} must not contain NaN or Inf.>
%! t = s; t.momentum{2}(1) = NaN; zero_save_state ("x", L, t);
%!error <zero_save_state: STATE.momentum\{1\} must be a double column of 44 elements \(the design's buffer\).>
%! t = s; t.momentum{1} = t.momentum{1}(1:end-1); zero_save_state ("x", L, t);
%!error <zero_save_state: L must be a layout from zero_layout.> zero_save_state ("x", 1, s)
%!error <^zero_save_state: unknown option 'Foo'\. Options: .*\.$> zero_save_state ("x", L, s, "Foo", 1)
%!error <zero_save_state: COMM must be "sim" or a handle from muon_comm.>
%! c = struct ("kind", "sim", "size", 2, "local_ranks", 2, "rank", NaN);
%! zero_save_state ("x", L, s, "Comm", c);
%!error <zero_save_state: COMM must be "sim" or a handle from muon_comm.>
%! c = struct ("kind", "sim", "size", 2, "local_ranks", 2, "rank", 1);
%! zero_save_state ("x", L, s, "Comm", c);
