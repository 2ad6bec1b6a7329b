## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab demo} {} mpi_zero2
## @deftypefnx {muonlab demo} {@var{ok} =} mpi_zero2 (@var{nps})
## @deftypefnx {muonlab demo} {@var{ok} =} mpi_zero2 (@dots{}, "Display", @var{how})
## The headline experiment of @code{zero2_muon_correctness} (DeepSpeed PR 8091) on real
## Open MPI ranks, one Octave process each, next to the same experiment on simulated ranks.
##
## For each world size in @var{nps} (default @code{[2 4]}) it runs @code{zero2_experiment}
## on simulated ranks, then through @code{muon_mpirun} on as many MPI ranks (each rank
## holds only its own micro-batch's gradients and its own momentum; the updates are
## assembled with an all-gather), and prints the table with one more column: whether the
## MPI run's assembled updates equal the simulated ones bit for bit (the communicators
## reduce in the same fixed rank order) and whether the NS calls and bytes per rank agree.
## At world 4 every weight straddles a cut, so the bug hits all three.  Returns true when
## every row agrees.  @qcode{"Display"}: @qcode{"final"} (default: the tables),
## @qcode{"iter"} (also one line per world size and kind of run with the elapsed time) or
## @qcode{"off"}.  Run it with @code{make demo DEMO=mpi_zero2}.
## About 6-20 s (starting MPI; the upper end on a loaded machine).
## @end deftypefn

function ok = mpi_zero2 (varargin)
  if (nargin == 2 && ischar (varargin{1}) && strcmp (varargin{1}, "rank"))
    ok = rank_body (varargin{2});       # one MPI rank (called by muon_mpirun)
    return;
  endif
  nps = [2 4];
  args = varargin;
  if (! isempty (args) && isnumeric (args{1}))
    nps = args{1};
    args(1) = [];
  endif
  all_ok = demo_run ("mpi_zero2", args, @run, nps);
  if (nargout > 0)
    ok = all_ok;
  endif
endfunction

function all_ok = run (nps, o)
  all_ok = true;
  t_all = tic ();
  for np = nps
    t0 = tic ();
    S = zero2_experiment (np, "sim");
    t_sim = toc (t0);
    if (o.iter)
      printf ("mpi_zero2: world %d on simulated ranks done  (%.1f s)\n", np, toc (t_all));
    endif
    t0 = tic ();
    R = muon_mpirun (np, "mpi_zero2", "rank", np);
    t_mpi = toc (t0);
    if (o.iter)
      printf ("mpi_zero2: world %d on MPI ranks done  (%.1f s)\n", np, toc (t_all));
    endif
    agree = cell (1, numel (S.T));
    for k = 1:numel (S.T)
      same_u = isequal (S.U(k,:), R(1).U(k,:));
      calls = arrayfun (@(r) r.T(k).ns_calls, R);
      bytes = arrayfun (@(r) r.T(k).bytes, R);
      same_cost = isequal (calls, S.T(k).ns_calls) && isequal (bytes, S.T(k).bytes);
      same_err = all (arrayfun (@(r) isequal (r.T(k).err_same, S.T(k).err_same), R));
      if (same_u && same_cost && same_err)
        agree{k} = "bitwise";
      else
        d = max (cellfun (@(a, b) norm (a - b, "fro") / norm (b, "fro"), R(1).U(k,:),
                          S.U(k,:)));
        agree{k} = sprintf ("NO (%.1e%s)", d, merge (same_cost, "", ", cost differs"));
        all_ok = false;
      endif
    endfor
    printf ("\n==== world %d: %d simulated ranks (%.1f s) and %d MPI ranks (%.1f s) ====\n",
            np, np, t_sim, np, t_mpi);
    zero2_experiment ("print", S, agree);
  endfor
  printf ("\nMPI = sim on every row: %s\n", merge (all_ok, "yes", "NO"));
endfunction

## One rank: the experiment on its own gradients; rank 0 returns the assembled updates
## (identical on every rank) for the comparison, the others only their figures.
function s = rank_body (world)
  comm = muon_comm ("mpi");
  if (comm.size != world)
    error ("mpi_zero2: started on %d ranks, expected %d.", comm.size, world);
  endif
  X = zero2_experiment (world, comm);
  s.rank = comm.rank;
  s.T = X.T;
  s.U = {};
  if (comm.rank == 0)
    s.U = X.U;
  endif
endfunction
