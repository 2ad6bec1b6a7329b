## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## run_zero_cost_mpi - zero_cost's plan against zero_muon_step on real MPI ranks (tests/mpi/
## run.sh runs it on every rank of `mpirun -np 2`, `-np 3` and `-np 4`):
##
##   mpirun -np 4 octave-cli --eval "cd tests/mpi; run_zero_cost_mpi ()"
##
## On random layouts (stages 1-3, both orders, lists of mixed and of equal shapes) every
## design of zero_muon_step runs on the MPI communicator, each rank passing only its own
## gradients; this rank's calls and bytes per collective, NS calls, momentum, pad and update
## elements must equal row `rank` of the plan exactly ("ElementBytes", 8: the step moves
## fp64), and a design must fail on every rank exactly where the plan says it fails.  The
## layer-wise designs' reduce-scatter moves W shards of the padded_shard_size that
## Megatron's own layout function wrote (tests/c/megatron_layerwise_fixture.h), and with
## BucketSize one reduce-scatter of each of its buckets (megatron_layerwise_buckets_fixture.h).
##
## mpi_suite runs the tests and reports: the ranks agree on pass/fail, and an unexpected
## error on one rank aborts the job instead of leaving the others waiting.

function run_zero_cost_mpi ()
  comm = mpi_setup ();
  tests = {};
  for s = 1:3
    tests(end+1:end+2) = {sprintf("plan_equals_mpi_counters_stage%d", s), @(c) t_exact (c, s)};
  endfor
  tests(end+1:end+2) = {"layerwise_megatron_buffer", @t_megatron};
  tests(end+1:end+2) = {"layerwise_megatron_buckets", @t_megatron_buckets};
  mpi_suite (comm, tests, "zero_cost");
endfunction

## The layer-wise designs' reduce-scatter on MPI ranks moves W shards of Megatron's
## padded_shard_size, the number its own layout function wrote for this mix
## (tests/c/megatron_layerwise_fixture.h, "odd sizes": 11520, 10048, 10112, 10048 at W 1-4,
## both rules): (W - 1) shards each way per rank in the ring model, as zero_cost says.
function f = t_megatron (comm)
  f = 0;
  W = comm.size;
  r = comm.rank;
  shapes = [65 1; 63 1; 129 3; 1 1; 64 1; 127 5; 2 31; 100 100];
  S = [11520 10048 10112 10048](min (W, 4));
  if (W > 4)
    return;                                  # not in the fixture's list of worlds here
  endif
  L = zero_layout (num2cell (shapes, 2), W);
  randn ("state", 7 + r);
  g = arrayfun (@(p) randn (shapes(p,1), shapes(p,2)), 1:rows (shapes), "UniformOutput", false);
  for v = {"layerwise_lpt", "layerwise_ns_cost"}
    C = zero_cost (L, [], "ElementBytes", 8, "Design", v{1});
    R = zero_muon_step (L, g, [], "Variant", v{1}, "Comm", comm, "Reference", false,
                        "Steps", 1);
    a = R.ranks;
    f += mpi_check (C.partition_size == S && C.padded_total == W * S, comm,
                    "%s: zero_cost's shard %d, Megatron's %d", v{1}, C.partition_size, S);
    f += mpi_check (a.sent(2) == (W - 1) * S * 8 && a.recv(2) == (W - 1) * S * 8
                    && isequal (a.sent, C.sent(r+1,:)), comm,
                    "%s: reduce-scatter bytes %d, want %d", v{1}, a.sent(2), (W - 1) * S * 8);
  endfor
endfunction

## Megatron's buckets on MPI ranks: 40 matrices 7 x 5 with BucketSize 466, three buckets
## whose padded_shard_size Megatron's own function wrote (tests/c/
## megatron_layerwise_buckets_fixture.h, "equal 7x5": 448, 448, 384 at W 2; 384, 384, 128
## at W 3; 256, 256, 128 at W 4; both rules): one reduce-scatter per bucket, (W - 1) shards
## each way, as zero_cost says; updates the reference's (rel_err 0) and, with the
## counters, the simulator's bit for bit.
function f = t_megatron_buckets (comm)
  f = 0;
  W = comm.size;
  r = comm.rank;
  if (W < 2 || W > 4)
    return;                                  # the worlds written here
  endif
  S = {[448 448 384], [384 384 128], [256 256 128]}{W-1};
  L = zero_layout (repmat ({[7 5]}, 1, 40), W);
  G = cell (W, 40);                          # every rank's gradients, for the sim step
  for q = 0:W-1
    randn ("state", 17 + q);
    G(q+1,:) = arrayfun (@(p) randn (7, 5), 1:40, "UniformOutput", false);
  endfor
  g = G(r+1,:);
  for v = {"layerwise_lpt", "layerwise_ns_cost"}
    C = zero_cost (L, [], "ElementBytes", 8, "Design", v{1}, "BucketSize", 466);
    R = zero_muon_step (L, g, [], "Variant", v{1}, "Comm", comm, "BucketSize", 466,
                        "Assemble", true, "Precision", "double");
    a = R.ranks;
    f += mpi_check (C.partition_size == sum (S) && isequal (C.calls(:,2).', 3 * ones (1, W)),
                    comm, "%s: zero_cost's shards %d in %d calls, Megatron's %d in 3", v{1},
                    C.partition_size, C.calls(r+1,2), sum (S));
    f += mpi_check (a.calls(2) == 3 && a.sent(2) == (W - 1) * sum (S) * 8
                    && a.recv(2) == (W - 1) * sum (S) * 8 && isequal (a.sent, C.sent(r+1,:))
                    && isequal (a.calls, C.calls(r+1,:)), comm,
                    "%s: reduce-scatter %d calls, %d bytes, want 3, %d", v{1}, a.calls(2),
                    a.sent(2), (W - 1) * sum (S) * 8);
    f += mpi_check (isequal (R.rel_err, zeros (1, 40)), comm, "%s: rel_err %g", v{1},
                    max (R.rel_err));
    Rs = zero_muon_step (L, G, [], "Variant", v{1}, "BucketSize", 466, "Precision", "double");
    f += mpi_check (isequal (R.updates, Rs.updates) && isequal (a.sent, Rs.ranks(r+1).sent)
                    && isequal (a.calls, Rs.ranks(r+1).calls), comm,
                    "%s: MPI's updates and counters are not the simulator's", v{1});
  endfor
endfunction

function f = t_exact (comm, stage)
  f = 0;
  W = comm.size;
  r = comm.rank;
  designs = {"reference", "zero12_allreduce", "zero2_reduce_scatter_buggy", ...
             "zero2_slice_only", "zero2_multi_owner", "zero3_round_robin", ...
             "zero3_round_robin_aliased_pads", "layerwise_lpt", "moonlight_gather", ...
             "alltoall_owner", "muon_bp", "layerwise_ns_cost"};
  orders = {"given", "size_desc"};
  for trial = 1:4
    rand ("state", 10 * stage + trial);        # the same problem on every rank
    P = 2 + randi (5);
    shapes = randi (7, P, 2);
    if (trial == 4)
      shapes = repmat (shapes(1,:), P, 1);   # equal sizes: the aliased pads survive
    endif
    order = orders{1 + mod (trial, 2)};
    L = zero_layout (num2cell (shapes, 2), W, "Stage", stage, "Order", order);
    randn ("state", 100 * stage + 10 * trial + r);
    g = arrayfun (@(p) randn (shapes(p,1), shapes(p,2)), 1:P, "UniformOutput", false);
    C = zero_cost (L, [], "ElementBytes", 8, "Design", designs);
    for d = 1:numel (designs)
      what = sprintf ("stage %d trial %d %s (W %d, %s)", stage, trial, designs{d}, W, order);
      try
        R = zero_muon_step (L, g, [], "Variant", designs{d}, "Comm", comm,
                            "Reference", false, "Steps", 1);
      catch err
        f += mpi_check (C(d).fails && strcmp (err.identifier, "muonlab:badShape"), comm,
                        "%s: the step failed (%s), the plan says fails = %d", what,
                        err.message, C(d).fails);
        continue;
      end_try_catch
      f += mpi_check (! C(d).fails, comm, "%s: the plan fails, the step did not", what);
      a = R.ranks;
      f += mpi_check (strcmp (R.counts, "modelled"), comm, "%s: counts", what);
      f += mpi_check (isequal (a.calls, C(d).calls(r+1,:)) && isequal (a.sent, C(d).sent(r+1,:))
                      && isequal (a.recv, C(d).recv(r+1,:)), comm,
                      "%s: bytes %s vs plan %s", what, mat2str (a.sent),
                      mat2str (C(d).sent(r+1,:)));
      f += mpi_check (isequal ([a.ns_calls a.momentum_elements a.pad_elements numel(a.update)],
                               [C(d).ranks.ns_calls(r+1) C(d).ranks.momentum(r+1) ...
                                C(d).ranks.pads(r+1) C(d).ranks.owned(r+1)]), comm,
                      "%s: NS calls, momentum, pads, owned", what);
    endfor
  endfor
endfunction
