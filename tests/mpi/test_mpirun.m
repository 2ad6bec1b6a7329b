## test_mpirun - the muon_mpirun part of the mpi layer (tests/mpi/run.sh runs it in a plain
## Octave, not under mpirun):
##
##   octave-cli --eval "cd tests/mpi; test_mpirun ()"
##
## Results gathered from every rank (rank 0's output captured, arguments and the working
## directory passed on, MPI results bitwise equal to the sim communicator's for an odd world
## of 3); a rank that raises while the others wait in a collective ends the job with that
## rank's message as a muonlab:mpi error, for several ranks, collectives and worlds (the
## timeout is a guard against a hang, not a timing check); muon_mpirun from an Octave that
## has itself initialized MPI; and the launcher's arguments reach mpirun literally, never
## through a shell.  Writes "mpi <passed> <failed>" to $MUON_MPI_RESULTS.

function test_mpirun ()
  here = fileparts (mfilename ("fullpath"));
  root = fileparts (fileparts (here));
  addpath (fullfile (root, "inst"), fullfile (root, "build", "mex"), here);
  more off;
  page_screen_output (false);
  guard = struct ("timeout", 300);
  passed = 0; failed = 0;
  function ok (cond, what)
    if (cond)
      passed++;
      printf ("  pass %s\n", what);
    else
      failed++;
      printf ("  FAIL %s\n", what);
    endif
    fflush (stdout);
  endfunction

  ## 1. results of 3 ranks; rank 0's output; arguments; bitwise equal to sim
  try
    [R, out] = muon_mpirun (setfield (guard, "np", 3), "mpirun_ok", 2, 17, {"a", struct("b", 1)});
    sim = muon_comm ("sim", 3);
    X = cell (1, 3);
    for q = 0:2
      randn ("state", 17 + q);
      X{q+1} = randn (50, 1) .* 10 .^ (3 * randn (50, 1));
    endfor
    [S, isim] = muon_collective (sim, "allreduce", X);
    ok (isstruct (R) && isequal (size (R), [1 3]) && isequal ([R.rank], 0:2)
        && all ([R.size] == 3), "3 ranks: a 1 x 3 struct array, R(r+1) from rank r");
    ok (isequal ([R.sum], [12 12 12]), "3 ranks: allreduce of 2 * (rank + 1) is 12 everywhere");
    ok (isequal ({R.y}, S), "3 ranks: MPI allreduce bitwise equal to 3 sim ranks");
    ok (isequal ([arrayfun(@(s) s.info.sent, R)], isim.sent'), "3 ranks: bytes equal the sim's");
    ok (isequal (R(2).extra, {"a", struct("b", 1)}) && strcmp (R(3).pwd, pwd ()),
        "arguments and working directory reach every rank");
    ok (! isempty (strfind (out, "mpirun_ok: rank 0 of 3"))
        && isempty (strfind (out, "rank 1 of 3")), "rank 0's output captured, not the others'");
  catch err
    ok (false, ["3 ranks: " err.message]);
  end_try_catch

  ## 2. a failing rank ends the job with its message (never a hang)
  cases = {2, 1, "allreduce"; 2, 0, "barrier"; 4, 3, "reduce_scatter"; 4, 2, "all_gather"};
  for k = 1:rows (cases)
    [np, bad, coll] = cases{k, :};
    what = sprintf ("np %d, rank %d raises while the others wait in %s", np, bad, coll);
    try
      [~, out] = muon_mpirun (setfield (guard, "np", np), "mpirun_fail", bad, coll);
      ok (false, [what ": no error raised"]);
    catch err
      want = sprintf ("muon_mpirun: rank %d: mpirun_fail: rank %d gives up", bad, bad);
      ok (strcmp (err.identifier, "muonlab:mpi") && strcmp (err.message, want),
          sprintf ("%s: %s", what, err.message));
    end_try_catch
  endfor

  ## 3. an unknown function is an error of every rank, reported once (the first to abort)
  try
    [~, out] = muon_mpirun (setfield (guard, "np", 2), "no_such_function_here");
    ok (false, "unknown function: no error raised");
  catch err
    ok (strcmp (err.identifier, "muonlab:mpi")
        && ! isempty (regexp (err.message, ["^muon_mpirun: rank [01]: .*no_such_function_here"])),
        ["unknown function: " err.message]);
  end_try_catch

  ## 4. from an Octave that has initialized MPI itself (a singleton): a fresh job
  try
    c = muon_comm ("mpi");
    [R, out] = muon_mpirun (setfield (guard, "np", 2), @mpirun_ok, 1, 3, []);
    ok (c.size == 1 && isequal ([R.sum], [3 3]), "after MPI_Init in the caller: a job of 2 ranks");
  catch err
    ok (false, ["after MPI_Init in the caller: " err.message]);
  end_try_catch

  ## 5. the launcher's arguments never reach a shell: $(...) and `...` do not run, the text
  ## reaches mpirun as it is (the ranks see it in an environment variable), as a string (split
  ## at blanks) and as a cell array; an argument mpirun rejects is a clean muonlab:mpi error
  F = tempname ();
  v = sprintf ("$(touch${IFS}%s);`touch${IFS}%s`'\"", F, F);
  forms = {["-x  MUON_MPIRUN_T=" v], "a string", v
           {"-x", ["MUON_MPIRUN_T=a b " v]}, "a cell array", ["a b " v]};
  for k = 1:rows (forms)
    try
      R = muon_mpirun (struct ("np", 2, "timeout", 60, "mpirun_args", forms(k,1)),
                       "getenv", "MUON_MPIRUN_T");
      ok (isequal (R, forms([k k],3)') && ! exist (F, "file"),
          sprintf ("mpirun_args as %s: $(...) not run, reaches the ranks as it is", forms{k,2}));
    catch err
      ok (false, sprintf ("mpirun_args as %s: %s", forms{k,2}, err.message));
    end_try_catch
  endfor
  for a = {sprintf("$(touch %s)", F), {sprintf("$(touch %s)", F)}}
    try
      [~, out] = muon_mpirun (struct ("np", 2, "timeout", 60, "mpirun_args", {a{1}}), "disp", 1);
      ok (false, "mpirun_args $(touch ...): no error raised");
    catch err
      ok (strcmp (err.identifier, "muonlab:mpi") && ! exist (F, "file")
          && ! isempty (regexp (err.message, '^muon_mpirun: mpirun exited with status \d+\.$')),
          sprintf ("mpirun_args $(touch ...) as a %s: not run, mpirun rejects it: %s",
                   class (a{1}), err.message));
    end_try_catch
  endfor
  [~] = unlink (F);

  printf ("mpi muon_mpirun: %d passed, %d failed\n", passed, failed);
  res = getenv ("MUON_MPI_RESULTS");
  if (! isempty (res))
    fid = fopen (res, "a");
    fprintf (fid, "mpi %d %d\n", passed, failed);
    fclose (fid);
  endif
endfunction
