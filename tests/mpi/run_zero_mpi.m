## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## run_zero_mpi - the zero_muon_step part of the mpi layer (tests/mpi/run.sh runs it on every
## rank of `mpirun -np 2`, `-np 3` and `-np 4`):
##
##   mpirun -np 4 octave-cli --eval "cd tests/mpi; run_zero_mpi ()"
##
## Every variant of zero_muon_step on the MPI communicator (each rank passes only its own
## gradients and keeps only its own momentum) against the same variant on W simulated ranks,
## which each rank runs itself on every rank's (deterministic) gradients: over 3 steps that
## chain the momentum, in 'double', on two random shape lists per world, the assembled
## updates, this rank's owned update, its momentum, NS calls, momentum held and byte counts
## must be bitwise equal (muon_bp with period 2: a full, a block and a full step; one shape
## list holds 1 x n, n x 1 and 1 x 1 matrices), also with
## experts and split row blocks (expert_parallel, muon_bp, zero2_multi_owner).  At np 2
## only: every precision and method of five designs on matrices above one GEMM tile, each
## rank on its own 'Threads' count, against the simulator on another.  With the
## library's reduction ('Reduction', 'mpi') the updates
## must agree to fp64 round-off instead.  The device step of every design on the CPU
## stand-in device, its memory moved by the MPI communicator, gives the same bits.  The
## shipped aliased pads must fail on a round of mixed sizes on every rank alike (and never
## hang).  Skips, divergence and ranks that pass unlike arguments: run_zero_agree_mpi.m.
##
## mpi_suite runs the tests and reports: the ranks agree on pass/fail, and an unexpected
## error on one rank aborts the job instead of leaving the others waiting.

function run_zero_mpi ()
  comm = mpi_setup ();
  W = comm.size;
  tests = {};
  for v = {"reference", "zero12_allreduce", "zero2_reduce_scatter_buggy", ...
           "zero2_slice_only", "zero2_multi_owner", "zero3_round_robin", "layerwise_lpt", ...
           "moonlight_gather", "alltoall_owner", "expert_parallel", "layerwise_ns_cost"}
    tests(end+1:end+2) = {[v{1} "_vs_sim_bitwise"], @(c) t_bitwise (c, v{1})};
  endfor
  ## MuonBP with period 2: full, block, full step
  tests(end+1:end+2) = {"muon_bp_vs_sim_bitwise", @(c) t_bitwise (c, "muon_bp", {"Period", 2})};
  ## experts and split row blocks (blocks_of below)
  tests(end+1:end+6) = {"expert_parallel_blocks_vs_sim_bitwise", ...
                        @(c) t_bitwise (c, "expert_parallel", {}, true), ...
                        "muon_bp_blocks_vs_sim_bitwise", ...
                        @(c) t_bitwise (c, "muon_bp", {"Period", 2}, true), ...
                        "zero2_multi_owner_blocks_vs_sim_bitwise", ...
                        @(c) t_bitwise (c, "zero2_multi_owner", {}, true)};
  ## the device step (muon_zero_step_device) on the CPU stand-in device: the MPI
  ## communicator moves its memory, the average runs in the device step's own fixed order
  tests(end+1:end+4) = {"device_standin_vs_sim_bitwise", @(c) t_device (c, false), ...
                        "device_standin_blocks_vs_sim_bitwise", @(c) t_device (c, true)};
  tests(end+1:end+4) = {"library_reduction", @t_library, ...
                        "aliased_pads_fail_together", @t_aliased};
  ## every precision and method above one GEMM tile, at one world size only (its run time)
  if (W == 2)
    tests(end+1:end+2) = {"precisions_methods_tiles_vs_sim_bitwise", @t_precisions};
  endif
  mpi_suite (comm, tests, "zero_muon_step");
endfunction

## Experts and split rows for the shapes: each matrix's largest expert count of 2, 3 that
## divides its rows (else 1), and the first matrix's pages cut into [1, rest] rows.
function o = blocks_of (shapes)
  E = ones (1, rows (shapes));
  for k = [2 3]
    E(mod (shapes(:,1).', k) == 0) = k;
  endfor
  S = cell (1, rows (shapes));
  page = shapes(1,1) / E(1);
  if (page >= 2)
    S{1} = [1 page-1];
  endif
  o = {"Experts", E, "SplitRows", S};
endfunction

function f = t_bitwise (comm, variant, extra = {}, blocks = false)
  f = 0;
  W = comm.size;
  r = comm.rank;
  variants = {variant};
  cases = {1, 2, "given"; 2, 3, "size_desc"; 3, 1, "given"; 11, 2, "given"};  # 11: vectors
  for c = 1:rows (cases)
    for v = 1:numel (variants)
      [L, shapes] = zero_mpi_problem (W, cases{c,1}, cases{c,2}, cases{c,3});
      sm = []; sq = [];
      for step = 1:3
        g = zero_mpi_grads (shapes, W, 100 * cases{c,1} + step);
        o = {"Variant", variants{v}, "Precision", "double", extra{:}};
        if (blocks)
          o = [o blocks_of(shapes)];
        endif
        [Rm, sm] = zero_muon_step (L, g(r+1,:), sm, "Comm", comm, "Assemble", true, o{:});
        [Rs, sq] = zero_muon_step (L, g, sq, o{:});
        what = sprintf ("case %d %s step %d", c, variants{v}, step);
        f += mpi_check (isequal (Rm.updates, Rs.updates), comm, "%s: assembled updates", what);
        f += mpi_check (isequal (Rm.rel_err, Rs.rel_err), comm, "%s: errors", what);
        f += mpi_check (isequal (Rm.ranks.update, Rs.ranks(r+1).update), comm, "%s: own update",
                        what);
        f += mpi_check (isequal (sm.momentum{1}, sq.momentum{r+1}), comm, "%s: momentum", what);
        if (isempty (sq.reference))            # variant reference: no second run
          f += mpi_check (isempty (sm.reference), comm, "%s: no reference momentum", what);
        else
          f += mpi_check (isequal (sm.reference{1}, sq.reference{r+1}), comm,
                          "%s: reference momentum", what);
        endif
        a = Rm.ranks;
        b = Rs.ranks(r+1);
        f += mpi_check (isequal ([a.ns_calls a.momentum_elements a.pad_elements a.sent a.recv ...
                                  a.calls],
                                 [b.ns_calls b.momentum_elements b.pad_elements b.sent b.recv ...
                                  b.calls]),
                        comm, "%s: NS calls, momentum, pads, bytes, calls", what);
        f += mpi_check (strcmp (Rm.counts, "modelled") && strcmp (Rs.counts, "measured"), comm,
                        "%s: counts labels", what);
      endfor
    endfor
  endfor
endfunction

## DESIGN.md's parity claim for MPI ranks (every precision and method gives the same bits):
## every precision (double, single, bf16, fp16) and method (standard, gram) of five designs on
## 300 x 280, 96 x 64 and 64 x 96 (products above one 256-edge GEMM tile, and above one
## 32-column strip of a diagonal tile), over 2 steps, rank r on 'Threads' r + 1 against the
## simulator on 'Threads' W + 2: the assembled updates, this rank's own update and its
## momentum, bit for bit.  Each precision must also take effect: step 1's updates against the
## double ones of the same method and design, worst relative Frobenius difference, lie in
## bounds set from the unit round-offs (fp32 6e-8, fp16 4.9e-4, bf16 3.9e-3) that tell the
## three apart: single [1e-7, 1e-4], fp16 [1e-3, 0.02], bf16 [0.01, 0.1] (measured: single
## 1.8e-6 / 5.4e-6, fp16 4.4e-3 / 7.1e-3, bf16 0.034 / 0.056 for standard / gram).
function f = t_precisions (comm)
  f = 0;
  W = comm.size;
  r = comm.rank;
  shapes = [300 280; 96 64; 64 96];
  L = zero_layout (num2cell (shapes, 2), W);
  grads = {zero_mpi_grads(shapes, W, 41), zero_mpi_grads(shapes, W, 42)};
  span = struct ("single", [1e-7 1e-4], "fp16", [1e-3 0.02], "bf16", [0.01 0.1]);
  designs = {"reference", "zero12_allreduce", "zero3_round_robin", "layerwise_lpt", ...
             "alltoall_owner"};
  first = struct ();
  for p = {"double", "single", "bf16", "fp16"}
    for m = {"standard", "gram"}
      for v = designs
        o = {"Variant", v{1}, "Precision", p{1}, "Method", m{1}, "Reference", false};
        sm = []; sq = [];
        for step = 1:2
          g = grads{step};
          [Rm, sm] = zero_muon_step (L, g(r+1,:), sm, "Comm", comm, "Assemble", true,
                                     "Threads", r + 1, o{:});
          [Rs, sq] = zero_muon_step (L, g, sq, "Threads", W + 2, o{:});
          what = sprintf ("%s %s %s step %d", p{1}, m{1}, v{1}, step);
          f += mpi_check (isequal (Rm.updates, Rs.updates), comm, "%s: assembled updates",
                          what);
          f += mpi_check (isequal (Rm.ranks.update, Rs.ranks(r+1).update), comm,
                          "%s: own update", what);
          f += mpi_check (isequal (sm.momentum{1}, sq.momentum{r+1}), comm, "%s: momentum",
                          what);
          if (step == 1)
            key = sprintf ("%s_%s", m{1}, v{1});
            if (strcmp (p{1}, "double"))
              first.(key) = Rm.updates;
            else
              d = max (cellfun (@(a, b) norm (a - b, "fro") / norm (b, "fro"), Rm.updates,
                                first.(key)));
              s = span.(p{1});
              f += mpi_check (d >= s(1) && d <= s(2), comm,
                              "%s: %g from double, outside [%g, %g]", what, d, s(1), s(2));
            endif
          endif
        endfor
      endfor
    endfor
  endfor
endfunction

## Device gradients (each rank its own, on the stand-in) against the host step on W
## simulated ranks: over 3 steps, this rank's update and momentum, the reference's momentum,
## counters, bit for bit; with MPI's reduction ('Reduction', 'mpi'), to fp64 round-off.
function f = t_device (comm, blocks)
  f = 0;
  W = comm.size;
  r = comm.rank;
  lib = muon_comm ("mpi", "Reduction", "mpi");
  dev = @(x) muon_gpu (x, "Device", "cpu", "Class", "double");
  designs = setdiff (__muon_lists__ ().lists.zero_variant, {"zero3_round_robin_aliased_pads"},
                     "stable");
  if (blocks)                         # slice-only takes no experts or split rows
    designs = setdiff (designs, {"zero2_slice_only"}, "stable");
  endif
  for v = designs
    for c = 1:2
      [L, shapes] = zero_mpi_problem (W, c, 2, "given");
      o = {"Variant", v{1}, "Precision", "double", "Period", 2};
      if (blocks)
        o = [o blocks_of(shapes)];
      endif
      [sd, sl, sq] = deal ([]);
      for step = 1:3
        g = zero_mpi_grads (shapes, W, 100 * c + step);
        gd = cellfun (dev, g(r+1,:), "UniformOutput", false);
        [Rd, sd] = zero_muon_step (L, gd, sd, "Comm", comm, o{:});
        [Rl, sl] = zero_muon_step (L, gd, sl, "Comm", lib, o{:});
        [Rs, sq] = zero_muon_step (L, g, sq, o{:});
        what = sprintf ("%s case %d step %d", v{1}, c, step);
        f += mpi_check (isa (Rd.ranks.update, "muon_gpuarray")
                        || isempty (Rs.ranks(r+1).update), comm, "%s: device arrays out", what);
        f += mpi_check (isequal (gather_or_empty (Rd.ranks.update), Rs.ranks(r+1).update),
                        comm, "%s: own update", what);
        f += mpi_check (isequal (gather_or_empty (sd.momentum{1}), sq.momentum{r+1}), comm,
                        "%s: momentum", what);
        if (! strcmp (v{1}, "reference"))
          f += mpi_check (isequal (gather_or_empty (sd.reference{1}), sq.reference{r+1}), comm,
                          "%s: reference momentum", what);
        endif
        a = Rd.ranks;
        b = Rs.ranks(r+1);
        f += mpi_check (isequal ([a.ns_calls a.momentum_elements a.sent a.recv a.calls],
                                 [b.ns_calls b.momentum_elements b.sent b.recv b.calls]),
                        comm, "%s: NS calls, momentum, bytes, calls", what);
        u = gather_or_empty (Rl.ranks.update);
        d = norm (u - b.update) / max (norm (b.update), 1e-300);
        f += mpi_check (d <= 1e-12, comm, "%s with MPI's reduction: %g from sim", what, d);
      endfor
    endfor
  endfor
endfunction

function x = gather_or_empty (d)
  x = zeros (0, 1);
  if (! isempty (d))
    x = gather (d);
  endif
endfunction

function f = t_library (comm)
  f = 0;
  W = comm.size;
  lib = muon_comm ("mpi", "Reduction", "mpi");
  [L, shapes] = zero_mpi_problem (W, 7, 2, "given");
  g = zero_mpi_grads (shapes, W, 8);
  for v = {"zero12_allreduce", "zero2_multi_owner", "zero3_round_robin", "layerwise_lpt", ...
           "alltoall_owner", "expert_parallel"}
    Rm = zero_muon_step (L, g(comm.rank+1,:), [], "Variant", v{1}, "Comm", lib,
                         "Assemble", true, "Precision", "double");
    Rs = zero_muon_step (L, g, [], "Variant", v{1}, "Precision", "double");
    d = max (cellfun (@(a, b) norm (a - b, "fro") / norm (b, "fro"), Rm.updates, Rs.updates));
    f += mpi_check (d <= 1e-12, comm, "%s with MPI's reduction: %g from sim", v{1}, d);
    f += mpi_check (max (Rm.rel_err) <= 1e-12, comm, "%s with MPI's reduction vs its reference",
                    v{1});
  endfor
endfunction

function f = t_aliased (comm)
  f = 0;
  W = comm.size;
  ## W + 2 matrices, the last of another size: round 2 = (6 x 6, 4 x 6, pads) mixes sizes
  shapes = [repmat([6 6], W + 1, 1); 4 6];
  L = zero_layout (num2cell (shapes, 2), W);
  randn ("state", 3);
  g = arrayfun (@(k) randn (shapes(k,1), shapes(k,2)), 1:rows (shapes), "UniformOutput", false);
  try
    zero_muon_step (L, g, [], "Variant", "zero3_round_robin_aliased_pads", "Comm", comm);
    f += mpi_check (false, comm, "aliased pads on a mixed round did not fail");
  catch err
    f += mpi_check (strcmp (err.identifier, "muonlab:badShape")
                    && ! isempty (strfind (err.message, "PR 8628")), comm,
                    "aliased pads: %s", err.message);
  end_try_catch
  ## the same layout with the correct pads runs on every rank and matches the reference
  R = zero_muon_step (L, g, [], "Variant", "zero3_round_robin", "Comm", comm,
                      "Assemble", true);
  f += mpi_check (max (R.rel_err) <= 1e-12, comm, "zero3_round_robin on a mixed round");
endfunction
