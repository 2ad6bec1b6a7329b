## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## run_zero_agree_mpi - zero_muon_step's failures and disagreements under MPI (tests/mpi/run.sh
## runs it on every rank of `mpirun -np 2`, `-np 3` and `-np 4`):
##
##   mpirun -np 4 octave-cli --eval "cd tests/mpi; run_zero_agree_mpi ()"
##
## A skip (a non-finite gradient on one rank) names the rank and parameter the sim names and
## keeps every rank's state; a diverged NS is told by the ranks that own it; ranks passing
## different layouts or options get one error each, and a rank that passes a default
## explicitly agrees with those that leave it out.  A momentum or reference buffer of
## another length on one rank, and device gradients on one rank with host ones on the
## others, give one error on every rank instead of a hang.  The bitwise steps: run_zero_mpi.m.

function run_zero_agree_mpi ()
  comm = mpi_setup ();
  tests = {"nonfinite_skips_on_every_rank", @t_skip, ...
           "ranks_disagree", @t_disagree, ...
           "explicit_defaults_agree", @t_defaults, ...
           "diverged_told_by_owners", @t_diverged, ...
           "state_buffer_length_one_rank", @t_buffers, ...
           "device_and_host_grads_disagree", @t_places};
  mpi_suite (comm, tests, "zero_muon_step agreement");
endfunction

## A NaN (then an overflowing gradient) on the last rank only: every rank skips the step and
## keeps its state, and the next step equals the simulator's, which skipped alike.
function f = t_skip (comm)
  f = 0;
  W = comm.size;
  r = comm.rank;
  [L, shapes] = zero_mpi_problem (W, 4, 2, "given");
  o = {"Variant", "zero2_multi_owner", "Precision", "double"};
  g = zero_mpi_grads (shapes, W, 41);
  [~, sm] = zero_muon_step (L, g(r+1,:), [], "Comm", comm, o{:});
  [~, sq] = zero_muon_step (L, g, [], o{:});
  for bad = [NaN 1e200]
    b = zero_mpi_grads (shapes, W, 42);
    b{W,1}(1) = bad;
    [Rm, sm2] = zero_muon_step (L, b(r+1,:), sm, "Comm", comm, o{:});
    [Rs, sq2] = zero_muon_step (L, b, sq, o{:});
    f += mpi_check (Rm.skipped && Rs.skipped, comm, "%g on rank %d: skipped here %d, sim %d",
                    bad, W - 1, Rm.skipped, Rs.skipped);
    f += mpi_check (isequal (sm2, sm) && isequal (sq2, sq), comm, "%g: state unchanged", bad);
    f += mpi_check (strcmp (Rm.skip_reason, Rs.skip_reason), comm, "reason: %s, sim: %s",
                    Rm.skip_reason, Rs.skip_reason);
  endfor
  ## bad gradients on two ranks: the reason sim's scan (parameter by parameter) finds first
  b = zero_mpi_grads (shapes, W, 44);
  b{W,1}(1) = NaN;
  b{1,2}(1) = Inf;
  Rm = zero_muon_step (L, b(r+1,:), sm, "Comm", comm, o{:});
  Rs = zero_muon_step (L, b, sq, o{:});
  f += mpi_check (strcmp (Rm.skip_reason, Rs.skip_reason), comm, "two ranks: %s, sim: %s",
                  Rm.skip_reason, Rs.skip_reason);
  ## a clean step moves nothing but the step's own traffic through the checks
  c0 = muon_collective (comm, "counters");
  zero_muon_step (L, zero_mpi_grads (shapes, W, 45)(r+1,:), sm, "Comm", comm, o{:});
  c1 = muon_collective (comm, "counters");
  f += mpi_check (c1.all_gather.calls == c0.all_gather.calls, comm,
                  "the checks counted an all-gather");
  g = zero_mpi_grads (shapes, W, 43);
  [Rm, sm] = zero_muon_step (L, g(r+1,:), sm, "Comm", comm, "Assemble", true, o{:});
  [Rs, sq] = zero_muon_step (L, g, sq, o{:});
  f += mpi_check (! Rm.skipped && isequal (Rm.updates, Rs.updates)
                  && isequal (sm.momentum{1}, sq.momentum{r+1}), comm, "the step after");
  ## every design: a skipped step's layout facts (read off the plan, no collective, no
  ## Newton-Schulz) are those of the step that runs on this rank, and the gateway ran no
  ## step for it
  b = zero_mpi_grads (shapes, W, 46);
  b{W,2}(1) = NaN;
  for v = __muon_lists__ ().lists.zero_variant(:).'
    ov = {"Variant", v{1}, "Precision", "double", "Reference", false};
    try
      [Rr, sv] = zero_muon_step (L, g(r+1,:), [], "Comm", comm, ov{:});
    catch err                           # the shipped ZeRO-3 pads on a mixed round
      f += mpi_check (! isempty (strfind (err.message, "mixes sizes")), comm, "%s: %s",
                      v{1}, err.message);
      continue;
    end_try_catch
    n0 = __muon_zero_step__ ("steps");
    Rk = zero_muon_step (L, b(r+1,:), sv, "Comm", comm, ov{:});
    f += mpi_check (Rk.skipped && __muon_zero_step__ ("steps") == n0, comm,
                    "%s: skipped %d, steps run %d", v{1}, Rk.skipped,
                    __muon_zero_step__ ("steps") - n0);
    facts = @(R) {R.owners, R.straddles, R.comm, R.counts, R.ranks.owned, R.ranks.rank};
    f += mpi_check (isequal (facts (Rk), facts (Rr)), comm, "%s: the skipped step's facts",
                    v{1});
  endfor
endfunction

## A diverged Newton-Schulz (Gram over 1000 steps in double blows the 16 x 64 matrix up):
## each process checks the elements its rank owns and warns on its own, so R.diverged and
## the warning are the owners' of the matrix, on every design shape (pieces, whole
## matrices, row shards)
function f = t_diverged (comm)
  f = 0;
  W = comm.size;
  ## CANS in bf16 blows this rank-one matrix up (its normalized singular value rounds to
  ## where CANS's map explodes), as in test_zero_muon_step; the 4 x 8 one stays sound
  randn ("state", 14);
  G = {[eye(4), zeros(4)], randn(16, 1) * randn(1, 64)};
  L = zero_layout ({[4 8], [16 64]}, W);
  o = {"Coefficients", "cans", "Precision", "bf16", "Gemm", "openblas", "Reference", false};
  warning ("off", "muonlab:nonFiniteResult", "local");
  for v = {"zero12_allreduce", "layerwise_lpt", "alltoall_owner"}
    warning ("off", "muonlab:diverged", "local");
    R = zero_muon_step (L, G, [], "Comm", comm, "Variant", v{1}, o{:});
    mine = R.ranks.owned(2,2) > R.ranks.owned(2,1);
    f += mpi_check (isequal (R.diverged, [0 mine]), comm, "%s: diverged %s, owner %d", v{1},
                    mat2str (R.diverged), mine);
    warning ("error", "muonlab:diverged", "local");
    told = false;
    try
      zero_muon_step (L, G, [], "Comm", comm, "Variant", v{1}, o{:});
    catch err
      told = (strcmp (err.identifier, "muonlab:diverged")
              && ! isempty (strfind (err.message, "of parameter 2 have")));
    end_try_catch
    f += mpi_check (told == mine, comm, "%s: warned %d, owner %d", v{1}, told, mine);
  endfor
endfunction

## one rank passes another layout, variant, Reference or option: the same error on every
## rank (the collectives would hang or pair unlike buffers), and the steps after still run
function f = t_disagree (comm)
  f = 0;
  W = comm.size;
  r = comm.rank;
  shapes = {[6 5], [4 7]};
  other = merge (r > 0, 1, 0);
  cases = {{{[5 6], [4 7]}, {}}, "layout: rank 1's differs from rank 0's"; ...
           {shapes, {"Variant", "reference"}}, ...
           "VARIANT: rank 1 has reference, rank 0 zero2_multi_owner"; ...
           {shapes, {"Reference", false}}, "REFERENCE: rank 1 has false, rank 0 true"; ...
           {shapes, {"Beta", 0.9}}, "options: rank 1's differs from rank 0's"};
  for k = 1:rows (cases)
    sh = shapes;
    o = {"Variant", "zero2_multi_owner"};
    if (other)
      sh = cases{k,1}{1};
      o = [o, cases{k,1}{2}];
    endif
    g = cellfun (@(s) ones (s), sh, "UniformOutput", false);
    try
      zero_muon_step (zero_layout (sh, W), g, [], "Comm", comm, o{:});
      f += mpi_check (false, comm, "disagree %d: no error", k);
    catch err
      want = ["zero_muon_step: every rank must pass the same " cases{k,2} "."];
      f += mpi_check (strcmp (err.identifier, "muonlab:badArg") && strcmp (err.message, want),
                      comm, "disagree %d: %s %s", k, err.identifier, err.message);
    end_try_catch
  endfor
  g = cellfun (@(s) ones (s), shapes, "UniformOutput", false);
  ## rank 1's own check fails (a gradient of another shape): it raises its own error, the
  ## others are told instead of waiting in the agreement
  bad = g;
  if (other)
    bad{2} = ones (4, 6);
  endif
  try
    zero_muon_step (zero_layout (shapes, W), bad, [], "Comm", comm);
    f += mpi_check (false, comm, "a rank's own check: no error");
  catch err
    want = "zero_muon_step: rank 1 raised an error (its own message says why).";
    f += mpi_check (merge (other, ! strcmp (err.message, want)
                                  && strncmp (err.message, "zero_muon_step: ", 16),
                           strcmp (err.message, want)),
                    comm, "a rank's own check: %s %s", err.identifier, err.message);
  end_try_catch
  ## a misspelt option on rank 1 (refused before the layout is read); ranks in different
  ## functions: each told, none waiting
  L = zero_layout (shapes, W);
  try
    zero_muon_step (L, g, [], "Comm", comm, merge (other, "Betta", "Beta"), 0.9);
    f += mpi_check (false, comm, "a misspelt option: no error");
  catch err
    want = "zero_muon_step: rank 1 raised an error (its own message says why).";
    f += mpi_check (xor (other, strcmp (err.message, want))
                    && strncmp (err.message, "zero_muon_step: ", 16), comm,
                    "a misspelt option: %s", err.message);
  end_try_catch
  ## lists that are no NAME, VALUE lists on rank 1 (a value left out before "Comm"; two
  ## left out; "Comm" last with no value): it still joins the others' agreement, so they
  ## are told and the next calls pair as they should (each of these hung)
  bad_lists = {{"Assemble", "Comm", comm}, {"Beta", "Comm", comm, "Nesterov"}, ...
               {"Beta", 0.9, "Comm"}};
  for b = 1:numel (bad_lists)
    try
      if (other)
        zero_muon_step (L, g, [], bad_lists{b}{:});
      else
        zero_muon_step (L, g, [], "Comm", comm);
      endif
      f += mpi_check (false, comm, "malformed list %d: no error", b);
    catch err
      want = "zero_muon_step: rank 1 raised an error (its own message says why).";
      f += mpi_check (xor (other, strcmp (err.message, want))
                      && strncmp (err.message, "zero_muon_step: ", 16), comm,
                      "malformed list %d: %s", b, err.message);
    end_try_catch
    y = muon_collective (comm, "allreduce", 10 + r);
    f += mpi_check (y == 10 * W + W * (W - 1) / 2, comm,
                    "the allreduce after malformed list %d: %g", b, y);
  endfor
  try
    if (other)
      zero_muon_step (L, g, [], "Comm", comm);
    else
      muon_collective (comm, "allreduce", 1);
    endif
    f += mpi_check (false, comm, "different functions: no error");
  catch err
    want = ": every rank must make the same call: rank 1 is in zero_muon_step, rank 0 in muon_collective.";
    f += mpi_check (! isempty (strfind (err.message, want)), comm, "different functions: %s",
                    err.message);
  end_try_catch
  R = zero_muon_step (zero_layout (shapes, W), g, [], "Comm", comm, "Variant", "zero2_multi_owner");
  f += mpi_check (! R.skipped, comm, "an agreed step after the errors");
  ## Threads changes no bit and may differ between processes
  R = zero_muon_step (zero_layout (shapes, W), g, [], "Comm", comm, "Variant",
                      "zero2_multi_owner", "Threads", 1 + r);
  f += mpi_check (! R.skipped, comm, "per-rank Threads refused");
endfunction

## rank 0 passes defaults explicitly (Nesterov true for the default 1, the default schedule
## by name and its step count, Assemble false for [] on one rank per process, ScheduleMode
## cycle, which runs the same triples as repeat_last on a one-triple schedule), the others
## leave them out: they agree (they were refused: "every rank must pass the same options"),
## and the step is the one with them left out; a value that differs is still refused, and
## so is cycle where it runs other triples
function f = t_defaults (comm)
  f = 0; W = comm.size; r = comm.rank;
  L = zero_layout ({[6 5], [4 7]}, W);
  g = {ones(6, 5) * (r + 1), reshape(1:28, 4, 7) + r};
  [R0, s0] = zero_muon_step (L, g, [], "Comm", comm);
  for extra = {{"Nesterov", true}, {"Coefficients", "keller"}, {"Steps", 5}, ...
               {"Assemble", false}, {"Nesterov", true, "Coefficients", "keller", "Steps", 5}, ...
               {"ScheduleMode", "cycle", "Steps", 7}}
    e = merge (r == 0, {extra{1}}, {{}}){1};
    if (strcmp (extra{1}{1}, "ScheduleMode"))       # the others: Steps 7 too
      e = merge (r == 0, {e}, {{"Steps", 7}}){1};
      [R0, s0] = zero_muon_step (L, g, [], "Comm", comm, "Steps", 7);
    endif
    try
      [R, s] = zero_muon_step (L, g, [], "Comm", comm, e{:});
      f += mpi_check (isequal (struct (s).momentum, struct (s0).momentum)
                      && isequal (struct (R).ranks.update, struct (R0).ranks.update), comm,
                      "%s: another step", extra{1}{1});
    catch err
      f += mpi_check (false, comm, "%s: %s", extra{1}{1}, err.message);
    end_try_catch
  endfor
  try
    zero_muon_step (L, g, [], "Comm", comm, "Steps", merge (r == 1, 6, 5));
    f += mpi_check (false, comm, "Steps 6 on rank 1: no error");
  catch err
    f += mpi_check (strcmp (err.message, ["zero_muon_step: every rank must pass the same " ...
                                          "options: rank 1's differs from rank 0's."]),
                    comm, "Steps 6 on rank 1: %s", err.message);
  end_try_catch
  try                                   # 8 steps of a 5-triple list: cycle runs others
    zero_muon_step (L, g, [], "Comm", comm, "Coefficients", "polar_express", "Steps", 8,
                    "ScheduleMode", merge (r == 1, "cycle", "repeat_last"));
    f += mpi_check (false, comm, "cycle on rank 1: no error");
  catch err
    f += mpi_check (strcmp (err.message, ["zero_muon_step: every rank must pass the same " ...
                                          "options: rank 1's differs from rank 0's."]),
                    comm, "cycle on rank 1: %s", err.message);
  end_try_catch
endfunction

## one rank's momentum (or reference) buffer one element longer or shorter than its rank's
## under the variant (the length of the buffer the step gave it): that rank raises its own
## badState naming both lengths, the others are told instead of waiting in the step's
## collectives (the gateway's own check comes after the agreement); the steps after run
function f = t_buffers (comm)
  f = 0;
  W = comm.size;
  r = comm.rank;
  shapes = {[8 5], [12 7]};
  L = zero_layout (shapes, W);
  g = {ones(8, 5) * (r + 1), reshape(1:84, 12, 7) / (r + 1)};
  cases = {"zero12_allreduce", "momentum", 1; "alltoall_owner", "momentum", -1;
           "zero12_allreduce", "reference", -1; "expert_parallel", "reference", 1};
  for k = 1:rows (cases)
    [v, field, d] = cases{k,:};
    [~, st] = zero_muon_step (L, g, [], "Comm", comm, "Variant", v);
    s = struct (st);
    n = numel (s.(field){1});
    if (r == 1)
      if (d > 0)
        s.(field){1}(end+1) = 0;
      else
        s.(field){1}(end) = [];
      endif
    endif
    what = sprintf ("%s with STATE.%s %+d on rank 1", v, field, d);
    try
      zero_muon_step (L, g, s, "Comm", comm, "Variant", v);
      f += mpi_check (false, comm, "%s: no error", what);
    catch err
      if (r == 1)
        want = sprintf ("zero_muon_step: STATE.%s{1} holds %d elements; rank 1's momentum under '%s' holds %d.",
                        field, n + d, merge (strcmp (field, "reference"), "reference", v), n);
        ok = strcmp (err.identifier, "muonlab:badState") && strcmp (err.message, want);
      else
        ok = (strcmp (err.identifier, "muonlab:badArg")
              && strcmp (err.message, "zero_muon_step: rank 1 raised an error (its own message says why)."));
      endif
      f += mpi_check (ok, comm, "%s: %s %s", what, err.identifier, err.message);
    end_try_catch
    R = zero_muon_step (L, g, st, "Comm", comm, "Variant", v);
    f += mpi_check (! R.skipped, comm, "%s: the step after", what);
  endfor
endfunction

## device gradients (the CPU stand-in) on rank 1, host ones on the others: the device step
## runs other collectives than the host step, so the ranks must agree on where the
## gradients live: one badArg on every rank naming both, for the designs whose collectives
## would never pair (alltoall_owner, expert_parallel, muon_bp) and the others alike
function f = t_places (comm)
  f = 0;
  W = comm.size;
  r = comm.rank;
  L = zero_layout ({[17 23], [9 31]}, W);
  randn ("state", r);
  g = {randn(17, 23), randn(9, 31)};
  if (r == 1)
    g = cellfun (@(x) muon_gpu (x, "Device", "cpu", "Class", "double"), g,
                 "UniformOutput", false);
  endif
  want = ["zero_muon_step: every rank must pass the same device of RANK_GRADS: " ...
          "rank 1 has cpu, rank 0 none (host arrays)."];
  for v = {"alltoall_owner", "expert_parallel", "muon_bp", "zero12_allreduce"}
    try
      zero_muon_step (L, g, [], "Comm", comm, "Variant", v{1});
      f += mpi_check (false, comm, "%s: no error", v{1});
    catch err
      f += mpi_check (strcmp (err.identifier, "muonlab:badArg") && strcmp (err.message, want),
                      comm, "%s: %s %s", v{1}, err.identifier, err.message);
    end_try_catch
  endfor
endfunction
