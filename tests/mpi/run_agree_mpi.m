## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## run_agree_mpi - the mpi layer's suite of ranks that call with different arguments
## (tests/mpi/run.sh runs it on every rank of `mpirun -np 2`, `-np 3` and `-np 4`):
##
##   mpirun -np 4 octave-cli --eval "cd tests/mpi; run_agree_mpi ()"
##
## Where MPI itself would hang or pair unlike data, every rank gets one error: unlike
## arguments, COMM the name "mpi", a handle whose fields were edited on one rank, a COMM
## that is no communicator at all on one rank, handles that differ only in their reduction; and ranks whose X differ only in shape each get
## their own shape back.  The collectives themselves: run_mpi.m.

function run_agree_mpi ()
  comm = mpi_setup ();
  tests = {"ranks_disagree", @t_disagree, ...
           "names_and_edited_handles_agree", @t_names, "reductions_disagree", @t_reductions, ...
           "shapes_from_own_X_vs_sim", @t_own_shapes, ...
           "edited_handles_join_the_agreement", @t_edited, ...
           "unreadable_comm_joins_the_agreement", @t_unreadable};
  mpi_suite (comm, tests, "agreement");
endfunction

## Rank 0 and the others pass different arguments: the same muonlab:badArg on every rank
## (no hang, no MPI_ERR_TRUNCATE, no single bits read as double), and the counters stay
## those of the calls that ran; then an agreed call runs as before.
function f = t_disagree (comm)
  f = 0; r = comm.rank; W = comm.size;
  c = muon_comm ("mpi");
  S0 = muon_collective (c, "counters");
  x1 = [1 2 3 4];
  if (r == 0)
    x1 = single (1:8);
  endif
  first = {"barrier", "all_gather"}{1 + (r > 0)};
  op = {"sum", "avg"}{1 + (r > 0)};
  cases = {{"allreduce", x1}, "class of X: rank 1 has double, rank 0 single"; ...
           {"allreduce", ones(1, 3 + (r > 0))}, ...
           "number of elements of X: rank 1 has 4, rank 0 3"; ...
           {"broadcast", [1 2 3 4], "Root", min(r, 1)}, "ROOT: rank 1 has 1, rank 0 0"; ...
           {first}, "collective: rank 1 has all_gather, rank 0 barrier"; ...
           {"reduce_scatter", ones(1, 2 * W), "Op", op}, "OP: rank 1 has avg, rank 0 sum"; ...
           {"all_to_all", x1(1:W)}, "class of X: rank 1 has double, rank 0 single"};
  for k = 1:rows (cases)
    a = cases{k,1};
    if (strcmp (a{1}, "all_gather"))
      a{2} = 1;
    endif
    try
      muon_collective (c, a{:});
      f += mpi_check (false, comm, "disagree %d: no error", k);
    catch err
      want = ["muon_collective: every rank must pass the same " cases{k,2} "."];
      f += mpi_check (strcmp (err.identifier, "muonlab:badArg") && strcmp (err.message, want),
                      comm, "disagree %d: %s %s", k, err.identifier, err.message);
    end_try_catch
  endfor
  ## rank 1's own check fails (a complex X): it raises its own error, the others are told
  try
    muon_collective (c, "allreduce", merge (r == 1, 1i, 1));
    f += mpi_check (false, comm, "a rank's own check: no error");
  catch err
    want = {"muon_collective: rank 1 raised an error (its own message says why).", ...
            "muon_collective: X must be a real double or single array, or a cell of them."}{1 + (r == 1)};
    f += mpi_check (strcmp (err.message, want), comm, "a rank's own check: %s", err.message);
  end_try_catch
  S1 = muon_collective (c, "counters");
  f += mpi_check (isequal (S1, S0), comm, "the checks counted as traffic");
  ## checks of the gateway's (a cell of two arrays for one local rank) and a misspelt
  ## collective: the same, and the next call pairs with the others' next call
  x = (1:6).' * (r + 1);
  bad = {{"allreduce", {x, x}}, ...
         "muon_collective: X must be a 1 x 1 cell, one array per local rank."; ...
         {"allreduc", x}, ""};
  for k = 1:rows (bad)
    a = {"allreduce", x};
    if (r == 1)
      a = bad{k,1};
    endif
    try
      muon_collective (c, a{:});
      f += mpi_check (false, comm, "own check %d: no error", k);
    catch err
      want = "muon_collective: rank 1 raised an error (its own message says why).";
      f += mpi_check (merge (r == 1, isempty (bad{k,2}) || strcmp (err.message, bad{k,2}),
                             strcmp (err.message, want)),
                      comm, "own check %d: %s", k, err.message);
    end_try_catch
    Y = muon_collective (c, "allreduce", x);
    f += mpi_check (isequal (Y, (1:6).' * W * (W + 1) / 2), comm, "own check %d: the next call", k);
  endfor

  Y = muon_collective (c, "allreduce", r + 1);
  f += mpi_check (Y == W * (W + 1) / 2, comm, "an agreed call after the errors");
endfunction

## The name "mpi" is refused on every rank that passes it (it once skipped the agreement, and
## ranks that passed unlike X got garbage: rank 0 [513.00012254715 8194.00197219849] from
## [1 2] and single [3 4 5 6]); a rank that passes it while the others pass the handle makes
## them raise too; a handle whose local_ranks says "every rank is here" still agrees (whether
## to agree is the gateway's, from the real communicator).
function f = t_names (comm)
  f = 0; r = comm.rank; W = comm.size;
  c = muon_comm ("mpi");
  x = merge (r == 0, [1 2], single ([3 4 5 6]));
  own = ["muon_collective: COMM must be \"self\", \"sim\" or a handle from muon_comm, " ...
         "not the name 'mpi' (use muon_comm (\"mpi\"))."];
  told = "muon_collective: rank 1 raised an error (its own message says why).";
  ## every rank passes the name; then rank 1 alone; then every rank an edited handle
  cases = {"mpi", own, own; {c, "mpi"}, told, own; ...
           setfield(c, "local_ranks", W), ...
           "muon_collective: every rank must pass the same class of X: rank 1 has single, rank 0 double.", ...
           "muon_collective: every rank must pass the same class of X: rank 1 has single, rank 0 double."};
  for k = 1:rows (cases)
    a = cases{k,1};
    if (iscell (a))
      a = a{1 + (r == 1)};
    endif
    try
      y = muon_collective (a, "allreduce", x);
      f += mpi_check (false, comm, "names %d: no error, y = %s", k, mat2str (double (y)));
    catch err
      want = cases{k, 2 + (r == 1)};
      f += mpi_check (strcmp (err.identifier, "muonlab:badArg") && strcmp (err.message, want),
                      comm, "names %d: %s %s", k, err.identifier, err.message);
    end_try_catch
  endfor
  ## an edited handle that agrees runs the collective (the sum of 1..W)
  Y = muon_collective (setfield (c, "local_ranks", W), "allreduce", r + 1);
  f += mpi_check (Y == W * (W + 1) / 2, comm, "an edited handle that agrees: %g", Y);
  ## zero_muon_step refuses the name too, and the others are told
  L = zero_layout ({[4 4]}, W);
  try
    zero_muon_step (L, {ones(4)}, [], "Comm", merge (r == 1, "mpi", c));
    f += mpi_check (false, comm, "zero_muon_step with the name: no error");
  catch err
    want = {"zero_muon_step: rank 1 raised an error (its own message says why).", ...
            "zero_muon_step: COMM must be \"sim\" or a handle from muon_comm."}{1 + (r == 1)};
    f += mpi_check (strcmp (err.message, want), comm, "zero_muon_step with the name: %s",
                    err.message);
  end_try_catch
  Y = muon_collective (c, "allreduce", r + 1);
  f += mpi_check (Y == W * (W + 1) / 2, comm, "an agreed call after the names");
endfunction

## Handles that differ only in "Reduction": one muonlab:badArg on every rank naming the
## communicator (they hung: the two reductions were two MPI communicators, and the agreement
## ran on each rank's own); a library-reduction handle made on one rank only communicates
## nothing (the next collective of every rank runs).
function f = t_reductions (comm)
  f = 0; r = comm.rank; W = comm.size;
  c0 = muon_comm ("mpi");
  if (r == W - 1)                       # made on the last rank only
    cl = muon_comm ("mpi", "Reduction", "mpi");
    f += mpi_check (strcmp (cl.reduction, "mpi"), comm, "the library handle: %s", cl.reduction);
  endif
  Y = muon_collective (c0, "allreduce", (1:8)' + r);
  f += mpi_check (isequal (Y, W * (1:8)' + W * (W - 1) / 2), comm,
                  "after a handle made on one rank: %s", mat2str (Y'));
  cl = muon_comm ("mpi", "Reduction", "mpi");
  c = merge (r == W - 1, cl, c0);
  want = sprintf (["muon_collective: every rank must pass the same communicator: rank %d " ...
                   "has mpi with Reduction 'mpi', rank 0 mpi with Reduction 'fixed'."], W - 1);
  for a = {{"allreduce", (1:8)'}, {"reduce_scatter", (1:2*W)'}, {"all_gather", (1:8)'}, ...
           {"broadcast", (1:8)'}, {"barrier"}}
    try
      muon_collective (c, a{1}{:});
      f += mpi_check (false, comm, "%s with unlike reductions: no error", a{1}{1});
    catch err
      f += mpi_check (strcmp (err.identifier, "muonlab:badArg") && strcmp (err.message, want),
                      comm, "%s with unlike reductions: %s %s", a{1}{1}, err.identifier,
                      err.message);
    end_try_catch
  endfor
  ## the step functions put the communicator in their agreement too
  L = zero_layout ({[6 5], [4 7]}, W);
  g = {ones(6, 5) * (r + 1), ones(4, 7)};
  for fn = {"zero_muon_step", "zero_train_step"}
    try
      feval (fn{1}, L, g, [], "Comm", c);
      f += mpi_check (false, comm, "%s with unlike reductions: no error", fn{1});
    catch err
      want = sprintf (["%s: every rank must pass the same communicator: rank %d has mpi " ...
                       "with Reduction 'mpi', rank 0 mpi with Reduction 'fixed'."], fn{1}, W - 1);
      f += mpi_check (strcmp (err.identifier, "muonlab:badArg") && strcmp (err.message, want),
                      comm, "%s with unlike reductions: %s", fn{1}, err.message);
    end_try_catch
  endfor
  ## each reduction where every rank agrees: the library's and the fixed sums of integers
  for h = {cl, c0}
    Y = muon_collective (h{1}, "allreduce", (1:8)' + r);
    f += mpi_check (isequal (Y, W * (1:8)' + W * (W - 1) / 2), comm, "%s after the errors",
                    h{1}.reduction);
  endfor
endfunction

## Ranks whose X have the same number of elements but not the same shape: each rank's Y is
## shaped from its own X (MPI has nothing else), and sim gives every rank the same (it gave
## every rank rank 0's shape).
function f = t_own_shapes (comm)
  f = 0; r = comm.rank; W = comm.size;
  shape = @(q) merge (mod (q, 2) == 0, [2, 2 * W], [4, W]);
  X = arrayfun (@(q) reshape ((1:4*W) + 100 * q, shape (q)), 0:W-1, "uniformoutput", false);
  s = muon_comm ("sim", W);
  for coll = {"all_gather", "reduce_scatter"}
    Y = muon_collective (comm, coll{1}, X{r+1});
    Ys = muon_collective (s, coll{1}, X);
    f += mpi_check (isequal (Y, Ys{r+1}), comm, "%s: mpi %s, sim %s", coll{1},
                    mat2str (size (Y)), mat2str (size (Ys{r+1})));
  endfor
endfunction

## A handle edited on the last rank (its size, rank or reduction: the gateway refuses it
## there) or of another kind (nccl, whose making is collective: no NCCL communicator may be
## made before the ranks agree) gives every rank an error, never a hang; a root of -0 on
## one rank is root 0 (the same value: it was refused as another root).
function f = t_edited (comm)
  f = 0; r = comm.rank; W = comm.size;
  last = (r == W - 1);
  cf = muon_comm ("mpi");
  for e = {"size", W + 1; "rank", mod(r + 1, W); "reduction", "bogus"; "kind", "nccl"}.'
    c = cf;
    if (last)
      c.(e{1}) = e{2};
    endif
    try
      muon_collective (c, "allreduce", 1);
      f += mpi_check (false, comm, "edited %s: no error", e{1});
    catch err
      if (strcmp (e{1}, "kind"))
        want = sprintf (["muon_collective: every rank must pass the same communicator: " ...
                         "rank %d has nccl with Reduction 'fixed', rank 0 mpi with " ...
                         "Reduction 'fixed'."], W - 1);
        ok = strcmp (err.message, want);
      elseif (last)
        ok = strncmp (err.identifier, "muonlab:", 8);
      else
        ok = strcmp (err.message, sprintf (["muon_collective: rank %d raised an error " ...
                                            "(its own message says why)."], W - 1));
      endif
      f += mpi_check (ok, comm, "edited %s: %s %s", e{1}, err.identifier, err.message);
    end_try_catch
  endfor
  Y = muon_collective (cf, "allreduce", 1);              # the ranks still pair up
  f += mpi_check (Y == W, comm, "after the edited handles: %g", Y);
  root = 0;
  if (last)
    root = -0;
  endif
  Y = muon_collective (cf, "broadcast", [1 2] + r, "Root", root);
  f += mpi_check (isequal (Y, [1 2]), comm, "root -0: %s", mat2str (Y));
  L = zero_layout ({[4 3], [2 5]}, W);
  c = cf;
  if (last)
    c.size = W + 1;
  endif
  try
    zero_muon_step (L, {ones(4, 3), ones(2, 5)}, [], "Comm", c);
    f += mpi_check (false, comm, "zero_muon_step with an edited size: no error");
  catch err
    f += mpi_check (strncmp (err.identifier, "muonlab:", 8), comm, "zero_muon_step: %s",
                    err.message);
  end_try_catch
endfunction

## A COMM that names no communicator on the last rank ([], 5, a cell, a struct whose kind is
## not a name, no COMM at all): that rank raises its own error and joins the others'
## agreement on the process's MPI communicator, so that they raise "rank R raised an
## error".  It joined nothing, and the others' agreement paired with its next call: at W = 2
## rank 0's allreduce of 10 + r gave 31 for 21 (rank 1's next call's 20 + 1), every call
## after was one call out of phase, and the last waited for ever.
function f = t_unreadable (comm)
  f = 0; r = comm.rank; W = comm.size;
  last = (r == W - 1);
  c = muon_comm ("mpi");
  told = sprintf ("rank %d raised an error (its own message says why).", W - 1);
  own = "muon_collective: COMM must be a communicator from muon_comm.";
  bad = {[], 5, {c}, struct("kind", 3), "no_coll"};
  for k = 1:numel (bad)
    try
      if (! last)
        y = muon_collective (c, "allreduce", 10 * k + r);
      elseif (strcmp (bad{k}, "no_coll"))
        y = muon_collective (c);          # no COLL: print_usage, which joins too
      else
        y = muon_collective (bad{k}, "allreduce", 10 * k + r);
      endif
      f += mpi_check (false, comm, "bad COMM %d: no error, y = %g", k, y);
    catch err
      if (! last)
        ok = strcmp (err.message, ["muon_collective: " told]);
      elseif (k == numel (bad))
        ok = strcmp (err.identifier, "Octave:invalid-fun-call");
      elseif (k == 4)                     # a struct: the gateway's own words
        ok = strncmp (err.message, "muon_collective: COMM.kind ", 27);
      else
        ok = strcmp (err.message, own);
      endif
      f += mpi_check (ok, comm, "bad COMM %d: %s %s", k, err.identifier, err.message);
    end_try_catch
    ## the next call pairs with the others' next call: the sum of 10 (k + 1) + r over r
    y = muon_collective (c, "allreduce", 10 * (k + 1) + r);
    want = 10 * (k + 1) * W + W * (W - 1) / 2;
    f += mpi_check (y == want, comm, "after bad COMM %d: y = %g, not %g", k, y, want);
  endfor
  ## the steps, whose COMM is an option: its value names no communicator on the last rank
  L = zero_layout ({[4 3], [2 5]}, W);
  g = {ones(4, 3) * (r + 1), ones(2, 5)};
  gall = cell (W, 2);                   # every rank's gradients, for the simulator
  for q = 1:W
    gall(q,:) = {ones(4, 3) * q, ones(2, 5)};
  endfor
  for fn = {"zero_muon_step", "zero_train_step"}
    Rs = feval (fn{1}, L, gall, []);
    for b = {[], 5, {c}, struct("kind", 3)}
      try
        feval (fn{1}, L, g, [], "Comm", merge (last, b{1}, c));
        f += mpi_check (false, comm, "%s with a bad COMM: no error", fn{1});
      catch err
        ok = (strncmp (err.message, [fn{1} ": "], numel (fn{1}) + 2)
              && (last || strcmp (err.message, [fn{1} ": " told])));
        f += mpi_check (ok, comm, "%s with a bad COMM: %s", fn{1}, err.message);
      end_try_catch
      ## the next step runs with every rank's gradients of this call: the simulator's
      Rm = feval (fn{1}, L, g, [], "Comm", c, "Assemble", true);
      f += mpi_check (isequal (Rm.updates, Rs.updates), comm,
                      "%s after a bad COMM: updates differ from the simulator's", fn{1});
      y = muon_collective (c, "allreduce", r + 1);
      f += mpi_check (y == W * (W + 1) / 2, comm, "%s after a bad COMM: y = %g", fn{1}, y);
    endfor
  endfor
endfunction
