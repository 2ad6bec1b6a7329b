## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## run_mpi - the per-rank suite of the mpi layer (tests/mpi/run.sh runs it on every rank of
## `mpirun -np 2`, `-np 3` and `-np 4`):
##
##   mpirun -np 4 octave-cli --eval "cd tests/mpi; run_mpi ()"
##
## Every collective on the MPI communicator against its closed form on every rank, in double
## and single; the fixed-order results bit for bit equal to the sim communicator's (each rank
## knows every rank's deterministic input, so it runs the same call on W sim ranks itself);
## the library reductions ('Reduction', 'mpi') within the summation error bound; pieces
## larger than the staging size; the counters against muon_comm_model_bytes (the C model),
## the closed forms and the sim communicator's measured bytes; NCCL and CUDA failing cleanly
## without a GPU; handles made for another world.  Typed, a call's information and the
## counters name this process's rank (not a table titled "row = rank + 1" above rank 1's
## one line).  Ranks that call with different arguments: run_agree_mpi.m.
##
## mpi_suite runs the tests and reports: the ranks agree on pass/fail, and an unexpected
## error on one rank aborts the job instead of leaving the others waiting.

function run_mpi ()
  comm = mpi_setup ();
  tests = {"allreduce_closed_form", @t_allreduce_closed, "allreduce_vs_sim", @t_allreduce_sim, ...
           "reduce_scatter_closed_form", @t_reduce_scatter_closed, ...
           "reduce_scatter_vs_sim", @t_reduce_scatter_sim, "all_gather", @t_all_gather, ...
           "all_to_all", @t_all_to_all, "broadcast", @t_broadcast, "barrier_and_counters", @t_barrier_counters, ...
           "large_pieces_vs_sim", @t_large, "nccl_and_cuda_without_gpu", @t_no_gpu, ...
           "handle_checks", @t_handles, "typed_info_names_the_rank", @t_info_title};
  mpi_suite (comm, tests, "collectives");
endfunction

## Rank q's random input: mixed magnitudes, so that the order of the additions shows.
function x = rand_input (q, n, cls, seed)
  randn ("state", 1000 * seed + q);
  x = cast (randn (n, 1) .* 10 .^ (3 * randn (n, 1)), cls);
endfunction

function X = all_inputs (W, n, cls, seed)
  X = arrayfun (@(q) rand_input (q, n, cls, seed), 0:W-1, "uniformoutput", false);
endfunction

## The counters of one MPI call against the C model, the closed form (elements e, bytes per
## element b) and the sim communicator's measured bytes for the same rank.
function f = check_counters (comm, info, isim, sent, recv, what)
  r = comm.rank;
  f = mpi_check (info.calls == 1 && strcmp (info.counts, "modelled"), comm,
                 "%s: calls/counts", what);
  f += mpi_check (info.sent == info.model_sent && info.recv == info.model_recv, comm,
                  "%s: counters %d/%d, model %d/%d", what, info.sent, info.recv, info.model_sent,
                  info.model_recv);
  f += mpi_check (info.sent == sent && info.recv == recv, comm,
                  "%s: counters %d/%d, closed form %d/%d", what, info.sent, info.recv, sent, recv);
  f += mpi_check (isim.sent(r+1) == info.sent && isim.recv(r+1) == info.recv, comm,
                  "%s: sim measured %d/%d, mpi %d/%d", what, isim.sent(r+1), isim.recv(r+1),
                  info.sent, info.recv);
endfunction

function f = t_allreduce_closed (comm)
  f = 0; r = comm.rank; W = comm.size;
  for red = {"fixed", "mpi"}
    c = muon_comm ("mpi", "Reduction", red{1});
    for cls = {"double", "single"}
      for op = {"sum", "avg"}
        for n = [0 1 5 37 1000]
          i = (0:n-1)';
          X = cast (r + W * i, cls{1});
          Y = muon_collective (c, "allreduce", X, "Op", op{1});
          E = W * (W - 1) / 2 + W^2 * i;
          if (strcmp (op{1}, "avg"))
            E = E / W;
          endif
          f += mpi_check (isequal (Y, cast (E, cls{1})) && strcmp (class (Y), cls{1}), comm,
                          "allreduce %s %s %s n=%d", red{1}, cls{1}, op{1}, n);
        endfor
      endfor
    endfor
  endfor
endfunction

function f = t_allreduce_sim (comm)
  f = 0; r = comm.rank; W = comm.size;
  sim = muon_comm ("sim", W);
  lib = muon_comm ("mpi", "Reduction", "mpi");
  for cls = {"double", "single"}
    for op = {"sum", "avg"}
      for n = [1 7 100 4099]
        X = all_inputs (W, n, cls{1}, n);
        [S, isim] = muon_collective (sim, "allreduce", X, "Op", op{1});
        [Y, info] = muon_collective (comm, "allreduce", X{r+1}, "Op", op{1});
        f += mpi_check (isequal (Y, S{r+1}), comm,
                        "allreduce %s %s n=%d: not bitwise the sim result (max diff %g)",
                        cls{1}, op{1}, n, max (abs (Y - S{r+1})));
        len = floor ((r + 1) * n / W) - floor (r * n / W);
        b = merge (strcmp (cls{1}, "single"), 4, 8);
        f += check_counters (comm, info, isim, b * (n - len + (W-1) * len),
                             b * (n - len + (W-1) * len), "allreduce");
        ## the library's own order: within the bound of any summation order
        Z = muon_collective (lib, "allreduce", X{r+1}, "Op", op{1});
        A = sum (abs (double ([X{:}])), 2) / merge (strcmp (op{1}, "avg"), W, 1);
        tol = 2 * W * eps (cls{1}) * A;
        f += mpi_check (all (abs (double (Z) - double (S{r+1})) <= tol), comm,
                        "library allreduce %s %s n=%d: off by %g x the bound", cls{1}, op{1}, n,
                        max (abs (double (Z) - double (S{r+1})) ./ tol));
      endfor
    endfor
  endfor
endfunction

function f = t_reduce_scatter_closed (comm)
  f = 0; r = comm.rank; W = comm.size;
  for red = {"fixed", "mpi"}
    c = muon_comm ("mpi", "Reduction", red{1});
    for cls = {"double", "single"}
      for op = {"sum", "avg"}
        for cnt = [0 1 3 250]
          i = (0:W*cnt-1)';
          X = cast (r + W * i, cls{1});
          Y = muon_collective (c, "reduce_scatter", X, "Op", op{1});
          E = W * (W - 1) / 2 + W^2 * i(r*cnt + (1:cnt));
          if (strcmp (op{1}, "avg"))
            E = E / W;
          endif
          f += mpi_check (isequal (Y, cast (E, cls{1})), comm, "reduce_scatter %s %s %s c=%d",
                          red{1}, cls{1}, op{1}, cnt);
        endfor
      endfor
    endfor
  endfor
  ## an m x (W k) matrix: rank r gets its k columns
  Y = muon_collective (comm, "reduce_scatter", repmat (1:W, 3, 1) + r);
  f += mpi_check (isequal (Y, repmat (W * (r + 1) + W * (W - 1) / 2, 3, 1)), comm,
                  "reduce_scatter of a matrix");
endfunction

function f = t_reduce_scatter_sim (comm)
  f = 0; r = comm.rank; W = comm.size;
  sim = muon_comm ("sim", W);
  lib = muon_comm ("mpi", "Reduction", "mpi");
  for cls = {"double", "single"}
    for op = {"sum", "avg"}
      for cnt = [1 9 1000]
        X = all_inputs (W, W * cnt, cls{1}, cnt + 7);
        [S, isim] = muon_collective (sim, "reduce_scatter", X, "Op", op{1});
        [Y, info] = muon_collective (comm, "reduce_scatter", X{r+1}, "Op", op{1});
        f += mpi_check (isequal (Y, S{r+1}), comm,
                        "reduce_scatter %s %s c=%d: not the sim result", cls{1}, op{1}, cnt);
        b = merge (strcmp (cls{1}, "single"), 4, 8);
        f += check_counters (comm, info, isim, b * (W-1) * cnt, b * (W-1) * cnt,
                             "reduce_scatter");
        Z = muon_collective (lib, "reduce_scatter", X{r+1}, "Op", op{1});
        A = sum (abs (double ([X{:}])), 2) / merge (strcmp (op{1}, "avg"), W, 1);
        A = A(r*cnt + (1:cnt));
        f += mpi_check (all (abs (double (Z) - double (S{r+1})) <= 2 * W * eps (cls{1}) * A), comm,
                        "library reduce_scatter %s %s c=%d", cls{1}, op{1}, cnt);
      endfor
    endfor
  endfor
endfunction

function f = t_all_gather (comm)
  f = 0; r = comm.rank; W = comm.size;
  sim = muon_comm ("sim", W);
  for cls = {"double", "single"}
    for cnt = [0 1 6 333]
      X = arrayfun (@(q) cast (1000 * q + (1:cnt)', cls{1}), 0:W-1, "uniformoutput", false);
      [Y, info] = muon_collective (comm, "all_gather", X{r+1});
      [S, isim] = muon_collective (sim, "all_gather", X);
      f += mpi_check (isequal (Y, [X{:}]) && isequal (Y, S{r+1}), comm, "all_gather %s c=%d",
                      cls{1}, cnt);
      b = merge (strcmp (cls{1}, "single"), 4, 8);
      f += check_counters (comm, info, isim, b * (W-1) * cnt, b * (W-1) * cnt, "all_gather");
    endfor
  endfor
endfunction

## all-to-all of c-element blocks: block q of rank r's X is block r of rank q's Y; rank r's Y
## against the blocks it knows every rank sends and against the sim communicator's
function f = t_all_to_all (comm)
  f = 0; r = comm.rank; W = comm.size;
  sim = muon_comm ("sim", W);
  for cls = {"double", "single"}
    for cnt = [0 1 6 333]
      X = arrayfun (@(q) rand_input (q, W * cnt, cls{1}, 7), 0:W-1, "uniformoutput", false);
      for red = {"fixed", "mpi"}
        [Y, info] = muon_collective (muon_comm ("mpi", "Reduction", red{1}), "all_to_all",
                                     X{r+1});
        [S, isim] = muon_collective (sim, "all_to_all", X);
        E = cell2mat (cellfun (@(x) x(r*cnt+1:(r+1)*cnt), X, "uniformoutput", false)(:));
        f += mpi_check (isequal (Y, E) && isequal (Y, S{r+1}), comm, "all_to_all %s %s c=%d",
                        red{1}, cls{1}, cnt);
        b = merge (strcmp (cls{1}, "single"), 4, 8);
        f += check_counters (comm, info, isim, b * (W-1) * cnt, b * (W-1) * cnt, "all_to_all");
      endfor
    endfor
  endfor
endfunction

function f = t_broadcast (comm)
  f = 0; r = comm.rank; W = comm.size;
  sim = muon_comm ("sim", W);
  for root = 0:W-1
    for cls = {"double", "single"}
      X = arrayfun (@(q) cast (10 * q + (1:5)', cls{1}), 0:W-1, "uniformoutput", false);
      [Y, info] = muon_collective (comm, "broadcast", X{r+1}, "Root", root);
      [S, isim] = muon_collective (sim, "broadcast", X, "Root", root);
      f += mpi_check (isequal (Y, X{root+1}) && isequal (Y, S{r+1}), comm, "broadcast root %d %s",
                      root, cls{1});
      d = mod (r - root, W);            # place in the chain root -> root+1 -> ...
      b = 5 * merge (strcmp (cls{1}, "single"), 4, 8);
      f += check_counters (comm, info, isim, b * (d < W - 1), b * (d > 0), "broadcast");
    endfor
  endfor
endfunction

function f = t_barrier_counters (comm)
  f = 0;
  c = muon_comm ("mpi", "Reduction", "mpi");
  muon_collective (c, "counters", "Reset", true);
  info = muon_collective (c, "barrier");
  f += mpi_check (info.calls == 1 && info.sent == 0, comm, "barrier counters");
  [~, i1] = muon_collective (c, "allreduce", ones (10, 1));
  [~, i2] = muon_collective (c, "allreduce", ones (10, 1, "single"));
  S = muon_collective (c, "counters");
  f += mpi_check (S.barrier.calls == 1 && S.allreduce.calls == 2, comm, "cumulative calls");
  f += mpi_check (S.allreduce.sent == i1.sent + i2.sent && S.allreduce.recv == i1.recv + i2.recv,
                  comm, "cumulative bytes");
  S = muon_collective (c, "counters", "Reset", true);
  S = muon_collective (c, "counters");
  f += mpi_check (S.allreduce.calls == 0 && S.allreduce.sent == 0, comm, "reset");
endfunction

## counts beyond one staging piece (2^21 / W elements per rank)
function f = t_large (comm)
  f = 0; r = comm.rank; W = comm.size;
  sim = muon_comm ("sim", W);
  n = floor (2^21 / W) * 2 + 12345;           # (whole at any W: 3 ranks too)
  X = all_inputs (W, n, "double", 99);
  S = muon_collective (sim, "allreduce", X, "Op", "avg");
  Y = muon_collective (comm, "allreduce", X{r+1}, "Op", "avg");
  f += mpi_check (isequal (Y, S{r+1}), comm, "large allreduce: not bitwise the sim result");
  cnt = floor (2^21 / W) + 17;
  X = all_inputs (W, W * cnt, "single", 98);
  S = muon_collective (sim, "reduce_scatter", X);
  Y = muon_collective (comm, "reduce_scatter", X{r+1});
  f += mpi_check (isequal (Y, S{r+1}), comm, "large reduce_scatter: not bitwise the sim result");
  X = arrayfun (@(q) q + (1:cnt)', 0:W-1, "uniformoutput", false);
  Y = muon_collective (comm, "all_gather", X{r+1});
  f += mpi_check (isequal (Y, [X{:}]), comm, "large all_gather");
endfunction

## NCCL and CUDA: on a GPU node NCCL must equal the sim bitwise; without one (or without the
## libraries) both fail cleanly with noDevice / notBuilt, on every rank alike
function f = t_no_gpu (comm)
  f = 0; r = comm.rank; W = comm.size;
  try
    c = muon_comm ("nccl");
    X = all_inputs (W, 1000, "double", 5);
    S = muon_collective (muon_comm ("sim", W), "allreduce", X);
    Y = muon_collective (c, "allreduce", X{r+1});
    f += mpi_check (isequal (Y, S{r+1}), comm, "nccl allreduce: not bitwise the sim result");
    Z = muon_collective (muon_comm ("nccl", "Reduction", "nccl"), "allreduce", X{r+1});
    A = sum (abs ([X{:}]), 2);
    f += mpi_check (all (abs (Z - S{r+1}) <= 2 * W * eps * A), comm, "nccl library allreduce");
  catch err
    f += mpi_check (any (strcmp (err.identifier, {"muonlab:noDevice", "muonlab:notBuilt"}))
                    && strncmp (err.message, "muon_comm: nccl: ", 17), comm,
                    "nccl error: %s %s", err.identifier, err.message);
  end_try_catch
  try
    X = muon_ns (randn (4, 8), "Device", "cuda");
    f += mpi_check (isequal (size (X), [4 8]) && all (isfinite (X(:))), comm, "muon_ns on cuda");
  catch err
    f += mpi_check (any (strcmp (err.identifier, {"muonlab:noDevice", "muonlab:notBuilt"})), comm,
                    "cuda error: %s %s", err.identifier, err.message);
  end_try_catch
endfunction

function f = t_handles (comm)
  f = 0; W = comm.size; r = comm.rank;
  try
    muon_collective (setfield (comm, "size", W + 1), "barrier");
    f += mpi_check (false, comm, "a handle for another world size was accepted");
  catch err
    f += mpi_check (strcmp (err.identifier, "muonlab:mpi") && strcmp (err.message,
                    sprintf (["muon_collective: COMM was made for %d ranks, but this " ...
                              "process's mpi world has %d."], W + 1, W)),
                    comm, "wrong size: %s", err.message);
  end_try_catch
  if (W > 1)
    try
      muon_collective (setfield (comm, "rank", mod (r + 1, W)), "barrier");
      f += mpi_check (false, comm, "a handle for another rank was accepted");
    catch err
      f += mpi_check (strcmp (err.identifier, "muonlab:mpi"), comm, "wrong rank: %s", err.message);
    end_try_catch
  endif
  c = muon_comm ("mpi");
  f += mpi_check (isequal (c, comm) && c.local_ranks == 1 && strcmp (c.counts, "modelled"), comm,
                  "the handle is the same on every call");
  f += mpi_check (W == str2double (getenv ("OMPI_COMM_WORLD_SIZE")), comm, "world size %d", W);
endfunction

## typed under MPI, the information of a call and the counters hold this process's rank
## only: their title names it
function f = t_info_title (comm)
  [~, info] = muon_collective (comm, "allreduce", [1 2]);
  C = muon_collective (comm, "counters");
  want = sprintf ("muon_collective: rank %d; bytes", comm.rank);
  for t = {evalc("disp (info)"), evalc("disp (C)")}
    f = mpi_check (! isempty (strfind (t{1}, want)) && isempty (strfind (t{1}, "row")),
                   comm, "typed: %s", t{1});
    if (f)
      return;
    endif
  endfor
endfunction
