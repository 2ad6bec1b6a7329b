## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## run_train_mpi - the zero_train_step and sharded-checkpoint part of the mpi layer
## (tests/mpi/run.sh runs it on every rank of `mpirun -np 2`, `-np 3` and `-np 4`):
##
##   mpirun -np 4 octave-cli --eval "cd tests/mpi; run_train_mpi ()"
##
## zero_train_step on the MPI communicator (each rank passes its own micro-batches) against
## the same loop on W simulated ranks, which each rank runs itself on every rank's
## (deterministic) gradients, over several steps: accumulation, DeepSpeed #8443's
## per-micro-batch NS, the clip policies (the global norm all-reduced), an fp16 loss scaler
## with one rank's overflow (every rank skips) and the poisoned momentum of #8432: the
## updates, this rank's update and momentum, the norm, the scale and the skips must be
## bitwise equal.  zero_save_state under MPI: each rank writes its own file, byte for byte
## the file the simulator writes for that rank; zero_load_state under MPI from shards saved
## at W = 4 by the simulator: this rank's momentum and the next step equal the simulator's.

function run_train_mpi ()
  here = fileparts (mfilename ("fullpath"));
  root = fileparts (fileparts (here));
  addpath (fullfile (root, "inst"), fullfile (root, "build", "mex"));
  more off;
  page_screen_output (false);
  comm = muon_comm ("mpi");
  o1 = {"Variant", "zero3_round_robin", "AccumulationSteps", 3};
  o2 = {"Variant", "zero12_allreduce", "AccumulationSteps", 3, "PerMicroBatchNS", true};
  o3 = {"Variant", "layerwise_lpt", "ClipPolicy", "before_ns"};
  o4 = {"Variant", "zero2_multi_owner", "ClipPolicy", "after_ns"};
  o5 = {"ClipPolicy", "skip_muon", "ClipSkipFlag", "container"};
  tests = {"accumulation_vs_sim", @(c) t_train (c, o1), ...
           "per_micro_ns_8443_vs_sim", @(c) t_train (c, o2), ...
           "clip_before_ns_vs_sim", @(c) t_train (c, o3), ...
           "clip_after_ns_vs_sim", @(c) t_train (c, o4), ...
           "clip_skip_container_vs_sim", @(c) t_train (c, o5), ...
           "fp16_overflow_skips_all", @(c) t_fp16 (c, false), ...
           "fp16_poisoned_momentum_8432", @(c) t_fp16 (c, true), ...
           "shard_files_equal_sim", @t_save, ...
           "reshard_from_sim_w4", @t_load, ...
           "checkpoint_ranks_disagree", @t_ckpt_disagree, ...
           "train_rank_check_fails", @t_rank_fails, ...
           "train_explicit_defaults_agree", @t_defaults};
  mpi_suite (comm, tests, "zero_train_step and shards");
endfunction

function shapes = the_shapes ()
  shapes = {[8 6], [5 7], [9 4], [6 6]};
endfunction

function g = grads (shapes, W, seed)
  randn ("state", seed);
  g = cell (W, numel (shapes));
  for k = 1:numel (g)
    [~, p] = ind2sub (size (g), k);
    g{k} = randn (shapes{p});
  endfor
endfunction

## the loop on MPI and on W simulated ranks, 2 steps of k micro-batches, compared bitwise
function f = t_train (comm, opts)
  f = 0;
  W = comm.size;
  r = comm.rank;
  shapes = the_shapes ();
  L = zero_layout (shapes, W, "Stage", 3);
  Tm = [];  Ts = [];
  k = 1;
  i = find (strcmpi (opts(1:2:end), "AccumulationSteps"));
  if (! isempty (i))
    k = opts{2*i};
  endif
  for t = 1:2*k
    g = grads (shapes, W, t);
    if (t == 1)                                  # a spread of scales: clipping bites
      g = cellfun (@(x) 30 * x, g, "UniformOutput", false);
    endif
    [Rm, Tm] = zero_train_step (L, g(r+1,:), Tm, "Comm", comm, "Assemble", true, opts{:});
    [Rs, Ts] = zero_train_step (L, g, Ts, opts{:});
    what = sprintf ("%s call %d", strjoin (cellfun (@num2str, opts, "UniformOutput", false), " "), t);
    f += mpi_check (Rm.applied == Rs.applied && Rm.skipped == Rs.skipped, comm, "%s: applied", what);
    f += mpi_check (isequal (Rm.updates, Rs.updates), comm, "%s: assembled updates", what);
    f += mpi_check (isequal (Rm.ranks.update, Rs.ranks(r+1).update), comm, "%s: own update", what);
    f += mpi_check (isequal (Rm.ranks.ns_calls, Rs.ranks(r+1).ns_calls), comm, "%s: NS calls", what);
    f += mpi_check (isequal (Rm.global_norm, Rs.global_norm)
                    || (isnan (Rm.global_norm) && isnan (Rs.global_norm)), comm,
                    "%s: global norm %.17g vs %.17g", what, Rm.global_norm, Rs.global_norm);
    f += mpi_check (isequal (Rm.clip_coef, Rs.clip_coef), comm, "%s: clip factor", what);
    f += mpi_check (isequal (Rm.rel_err, Rs.rel_err) || all (isnan ([Rm.rel_err Rs.rel_err])),
                    comm, "%s: errors", what);
    if (isstruct (Tm.zero))
      f += mpi_check (isequal (Tm.zero.momentum{1}, Ts.zero.momentum{r+1}), comm,
                      "%s: momentum", what);
    endif
  endfor
endfunction

## fp16 scaled gradients, a spike on the last rank at step 2: every rank skips, the scale
## backs off alike; poisoned: every later step skipped on every rank
function f = t_fp16 (comm, poison)
  f = 0;
  W = comm.size;
  r = comm.rank;
  shapes = the_shapes ();
  L = zero_layout (shapes, W);
  sc = struct ("InitScale", 1024, "GrowthInterval", 3, "MinScale", 64);
  o = {"LossScaler", sc, "PoisonMomentum", poison};
  Tm = [];  Ts = [];
  for t = 1:5
    s = 1024;
    if (! isempty (Ts))
      s = Ts.scaler.scale;
    endif
    g = cellfun (@(x) muon_round (s * x, "fp16"), grads (shapes, W, 10 + t),
                 "UniformOutput", false);
    if (t == 2)
      g{W,3}(2) = Inf;
    endif
    [Rm, Tm] = zero_train_step (L, g(r+1,:), Tm, "Comm", comm, "Assemble", true, o{:});
    [Rs, Ts] = zero_train_step (L, g, Ts, o{:});
    f += mpi_check (Rm.skipped == Rs.skipped && Rm.skipped == (t == 2 || (poison && t > 2)),
                    comm, "poison %d step %d: skipped %d, sim %d", poison, t, Rm.skipped,
                    Rs.skipped);
    f += mpi_check (strcmp (Rm.skip_reason, Rs.skip_reason), comm,
                    "poison %d step %d: reason '%s', sim '%s'", poison, t, Rm.skip_reason,
                    Rs.skip_reason);
    f += mpi_check (Tm.scaler.scale == Ts.scaler.scale, comm, "step %d: scale %g vs %g", t,
                    Tm.scaler.scale, Ts.scaler.scale);
    f += mpi_check (isequal (Rm.updates, Rs.updates), comm, "step %d: updates", t);
    if (isstruct (Tm.zero))
      a = Tm.zero.momentum{1};
      b = Ts.zero.momentum{r+1};
      f += mpi_check (isequal (isfinite (a), isfinite (b)) && isequal (a(isfinite (a)), b(isfinite (b))),
                      comm, "step %d: momentum", t);
    endif
  endfor
endfunction

## ranks saving under different prefixes, or loading different checkpoints, or one whose
## own state is refused: an error on every rank (nothing written), never a wait
function f = t_ckpt_disagree (comm)
  f = 0;
  W = comm.size;
  r = comm.rank;
  shapes = the_shapes ();
  L = zero_layout (shapes, W);
  g = grads (shapes, W, 50);
  [~, sm] = zero_muon_step (L, g(r+1,:), [], "Comm", comm);
  pre = shared_prefix (comm);
  mine = merge (r > 0, [pre "-other"], pre);
  want = "zero_save_state: every rank must pass the same PREFIX: rank 1's differs from rank 0's.";
  f += expect_error (comm, @() zero_save_state (mine, L, sm, "Comm", comm), want, "prefix");
  f += mpi_check (! exist ([pre ".rank0.ckpt"], "file") && ! exist ([mine ".rank1.ckpt"], "file"),
                  comm, "a file written after the disagreement");
  ## rank 1 passes a state of the step before: its own check fails, rank 0 is told
  bad = sm;
  if (r > 0)
    bad = struct (sm);
    bad.step = -1;
  endif
  own = "zero_save_state: STATE.step must be a non-negative integer.";
  other = "zero_save_state: rank 1 raised an error (its own message says why).";
  f += expect_error (comm, @() zero_save_state (pre, L, bad, "Comm", comm),
                     merge (r > 0, own, other), "a rank's own check",
                     merge (r > 0, "muonlab:badState", "muonlab:badArg"));
  ## rank 1 cannot write its file (a folder of its name): its error, the others told
  if (r == 0)
    mkdir (sprintf ("%s-dir.rank1.ckpt", pre));
  endif
  muon_collective (comm, "barrier");
  other = "zero_save_state: rank 1 raised an error (its own message says why).";
  try
    zero_save_state ([pre "-dir"], L, sm, "Comm", comm);
    f += mpi_check (false, comm, "a file not written: no error");
  catch err
    f += mpi_check (xor (r == 1, strcmp (err.message, other))
                    && strncmp (err.message, "zero_save_state: ", 17), comm,
                    "a file not written: %s", err.message);
  end_try_catch
  muon_collective (comm, "barrier");
  ## the ranks agree that every temporary file was written before renaming: the other
  ## ranks wrote no file either (and left no temporary one)
  f += mpi_check (! exist (sprintf ("%s-dir.rank%d.ckpt", pre, r), "file") || r == 1, comm,
                  "a file not written by rank 1: rank %d's file written", r);
  left = dir (fullfile (fileparts (pre), sprintf (".muonlab-%d-*", getpid ())));
  f += mpi_check (isempty (left), comm, "a file not written: temporaries left (%s)",
                  strjoin ({left.name}, ", "));
  muon_collective (comm, "barrier");
  if (r == 0)
    rmdir (sprintf ("%s-dir.rank1.ckpt", pre));
  endif
  ## the set saved, then rank 1 loads the files of another run's step
  zero_save_state (pre, L, sm, "Comm", comm);
  [~, s2] = zero_muon_step (L, g(r+1,:), sm, "Comm", comm);
  zero_save_state ([pre "-next"], L, s2, "Comm", comm);
  muon_collective (comm, "barrier");
  want = ["zero_load_state: every rank must pass the same checkpoint (its files' contents): " ...
          "rank 1's differs from rank 0's."];
  f += expect_error (comm, @() zero_load_state (merge (r > 0, [pre "-next"], pre), L, "Comm", comm),
                     want, "load");
  ## ranks that differ only in BucketSize (the same Variant): BUCKETSIZE is named (it said
  ## "every rank must pass the same VARIANT")
  o = {"Variant", "layerwise_lpt"};
  if (r == W - 1)
    o = [o {"BucketSize", 10}];
  endif
  want = sprintf (["zero_load_state: every rank must pass the same BUCKETSIZE: rank %d's " ...
                   "differs from rank 0's."], W - 1);
  f += expect_error (comm, @() zero_load_state (pre, L, "Comm", comm, o{:}), want,
                     "bucket size");
  ## a COMM that names no communicator on the last rank: its own error, the others told
  ## (they paired with its next call: "every rank must pass the same PREFIX", then a hang)
  own = "%s: COMM must be \"sim\" or a handle from muon_comm.";
  other = sprintf ("%%s: rank %d raised an error (its own message says why).", W - 1);
  bad = merge (r == W - 1, 5, comm);
  f += expect_error (comm, @() zero_save_state ([pre "-bad"], L, sm, "Comm", bad),
                     sprintf (merge (r == W - 1, own, other), "zero_save_state"), "save, bad COMM");
  f += expect_error (comm, @() zero_load_state (pre, L, "Comm", bad),
                     sprintf (merge (r == W - 1, own, other), "zero_load_state"), "load, bad COMM");
  fb = zero_save_state ([pre "-bad"], L, sm, "Comm", comm);
  f += mpi_check (isequal (fb, {sprintf("%s-bad.rank%d.ckpt", pre, r)}), comm,
                  "a save after a bad COMM: %s", fb{1});
  s1 = zero_load_state (pre, L, "Comm", comm);
  f += mpi_check (isequal (struct (s1), struct (sm)), comm, "an agreed load after the errors");
  muon_collective (comm, "barrier");
  if (r == 0)
    for q = 0:W-1
      unlink (sprintf ("%s.rank%d.ckpt", pre, q));
      unlink (sprintf ("%s-next.rank%d.ckpt", pre, q));
      unlink (sprintf ("%s-bad.rank%d.ckpt", pre, q));
    endfor
  endif
endfunction

## rank 1's own check fails (a gradient of another shape): its own error, the others told
function f = t_rank_fails (comm)
  W = comm.size;
  r = comm.rank;
  shapes = the_shapes ();
  g = grads (shapes, W, 60)(r+1,:);
  if (r == 1)
    g{1} = g{1}.';
  endif
  other = "zero_train_step: rank 1 raised an error (its own message says why).";
  try
    zero_train_step (zero_layout (shapes, W), g, [], "Comm", comm);
    f = mpi_check (false, comm, "no error");
  catch err
    f = mpi_check (xor (r == 1, strcmp (err.message, other))
                   && strncmp (err.message, "zero_train_step: ", 17), comm, "%s", err.message);
  end_try_catch
endfunction

## FN () must raise WANT (id ID, default muonlab:badArg) on every rank
function f = expect_error (comm, fn, want, what, id = "muonlab:badArg")
  try
    fn ();
    f = mpi_check (false, comm, "%s: no error", what);
  catch err
    f = mpi_check (strcmp (err.identifier, id) && strcmp (err.message, want), comm,
                   "%s: %s %s", what, err.identifier, err.message);
  end_try_catch
endfunction

## a prefix every rank agrees on (rank 0's random number)
function pre = shared_prefix (comm)
  n = muon_collective (comm, "broadcast", floor (1e9 * rand ()) + comm.rank);
  pre = fullfile (tempdir (), sprintf ("muonlab-mpi-shard-%d", n));
endfunction

## each rank writes its own file, byte for byte the simulator's file of that rank
function f = t_save (comm)
  f = 0;
  W = comm.size;
  r = comm.rank;
  shapes = the_shapes ();
  L = zero_layout (shapes, W, "Order", "size_desc");
  g = grads (shapes, W, 21);
  [~, sm] = zero_muon_step (L, g(r+1,:), [], "Comm", comm, "Variant", "moonlight_gather");
  [~, sq] = zero_muon_step (L, g, [], "Variant", "moonlight_gather");
  pre = shared_prefix (comm);
  mine = [tempname() "-sim"];
  fm = zero_save_state (pre, L, sm, "Comm", comm);
  fs = zero_save_state (mine, L, sq);
  f += mpi_check (isequal (fm, {sprintf("%s.rank%d.ckpt", pre, r)}), comm, "file name %s", fm{1});
  f += mpi_check (isequal (bytes (fm{1}), bytes (fs{r+1})), comm, "rank %d's file", r);
  muon_collective (comm, "barrier");
  ## and any rank reads the whole set back, here into W = 1
  s1 = zero_load_state (pre, zero_layout (shapes, 1), "Variant", "reference");
  q1 = zero_load_state (mine, zero_layout (shapes, 1), "Variant", "reference");
  f += mpi_check (isequal (s1, q1), comm, "the MPI files load as the simulator's");
  muon_collective (comm, "barrier");
  unlink (fm{1});
  cellfun (@unlink, fs);
endfunction

## shards saved at W = 4 by the simulator (rank 0), loaded under MPI at W = 2 or 4 in
## another stage and design: this rank's buffers and the next step equal the simulator's
function f = t_load (comm)
  f = 0;
  W = comm.size;
  r = comm.rank;
  shapes = the_shapes ();
  pre = shared_prefix (comm);
  if (r == 0)
    L4 = zero_layout (shapes, 4);
    s4 = [];
    for t = 1:2
      [~, s4] = zero_muon_step (L4, grads (shapes, 4, 30 + t), s4, "Variant", "zero2_multi_owner");
    endfor
    zero_save_state (pre, L4, s4);
  endif
  muon_collective (comm, "barrier");
  L = zero_layout (shapes, W, "Stage", 3);
  o = {"Variant", "zero3_round_robin"};
  sm = zero_load_state (pre, L, "Comm", comm, o{:});
  sq = zero_load_state (pre, L, o{:});
  f += mpi_check (isequal (sm.momentum{1}, sq.momentum{r+1}), comm, "loaded momentum");
  f += mpi_check (isequal (sm.reference{1}, sq.reference{r+1}), comm, "loaded reference");
  g = grads (shapes, W, 40);
  [Rm, sm] = zero_muon_step (L, g(r+1,:), sm, "Comm", comm, "Assemble", true, o{:});
  [Rs, sq] = zero_muon_step (L, g, sq, o{:});
  f += mpi_check (isequal (Rm.updates, Rs.updates) && isequal (Rm.rel_err, Rs.rel_err)
                  && isequal (sm.momentum{1}, sq.momentum{r+1}), comm, "the next step");
  f += mpi_check (max (Rm.rel_err) <= 1e-12, comm, "the next step vs its reference");
  muon_collective (comm, "barrier");
  if (r == 0)
    for q = 0:3
      unlink (sprintf ("%s.rank%d.ckpt", pre, q));
    endfor
  endif
endfunction

function b = bytes (file)
  fid = fopen (file, "r");
  b = fread (fid, Inf, "uint8=>uint8").';
  fclose (fid);
endfunction

## rank 0 passes zero_muon_step's defaults explicitly, the others leave them out: they agree
## (they were refused: "every rank must pass the same options") and train alike; a value
## that differs is still refused
function f = t_defaults (comm)
  f = 0; W = comm.size; r = comm.rank;
  shapes = the_shapes ();
  g = grads (shapes, W, 61)(r+1,:);
  L = zero_layout (shapes, W);
  R0 = zero_train_step (L, g, [], "Comm", comm);
  e = merge (r == 0, {{"Nesterov", true, "Coefficients", "keller", "Steps", 5, ...
                       "Assemble", false, "PerMicroBatchNS", false}}, {{}}){1};
  try
    R = zero_train_step (L, g, [], "Comm", comm, e{:});
    f += mpi_check (isequaln (struct (R), struct (R0)), comm, "explicit defaults: another result");
  catch err
    f += mpi_check (false, comm, "explicit defaults: %s", err.message);
  end_try_catch
  f += expect_error (comm, @() zero_train_step (L, g, [], "Comm", comm, "Steps",
                                                merge (r == 1, 6, 5)),
                     "zero_train_step: every rank must pass the same options: rank 1's differs from rank 0's.",
                     "Steps 6 on rank 1");
endfunction
