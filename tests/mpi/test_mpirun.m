## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_mpirun - the muon_mpirun part of the mpi layer (tests/mpi/run.sh runs it in a plain
## Octave, not under mpirun):
##
##   octave-cli --eval "cd tests/mpi; test_mpirun ()"
##
## Results gathered from every rank (rank 0's output captured, arguments and the working
## directory passed on, MPI results bitwise equal to the sim communicator's for an odd world
## of 3; a muon_optimizer state and a zero_layout layout a rank returns as their plain
## structs, also ones made before `clear functions`); an unknown function; muon_mpirun
## from an Octave that has itself initialized MPI,
## from one that a plain mpirun started and from a rank of a muon_mpirun job; a
## rank that raises, calls exit, is killed (SIGKILL) or stopped by a SIGTERM Octave catches
## (named as such) while the others wait in a collective, returns what save cannot write, or
## whose own arguments are refused
## while the others are told (the rank's own error is the one named),
## for several ranks, collectives and worlds of 2 and 4: every rank ends and the muonlab:mpi
## error names the rank and the cause, within a 10 s bound (a guard against a hang, not a
## timing check), and the working folder stays empty (no octave-workspace, also after a
## timeout, whose fractional seconds reach timeout(1) as the error states them); and the
## launcher's arguments reach mpirun literally, never through a shell; a Ctrl-C (SIGINT to
## the caller's process group) ends the job and every rank within seconds;
## under a plain mpirun, a rank that raises, exits with a status or is stopped by a SIGTERM
## ends the job, and a job where none fails ends with status 0.
## Writes "mpi <passed> <failed>" to $MUON_MPI_RESULTS.

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

  ## 2. an unknown function is an error of every rank, reported once (the first to abort)
  try
    [~, out] = muon_mpirun (setfield (guard, "np", 2), "no_such_function_here");
    ok (false, "unknown function: no error raised");
  catch err
    ok (strcmp (err.identifier, "muonlab:mpi")
        && ! isempty (regexp (err.message,
                              "^muon_mpirun: rank [01] raised: .*no_such_function_here")),
        ["unknown function: " err.message]);
  end_try_catch

  ## 2a. a result save cannot write (an object, or a cell holding one): the driver's own
  ## message naming it, not save's words as an error the rank's function raised
  for fn = {@() zero_plan(), @() {1, zero_plan()}}
    want = ['^muon_mpirun: rank [01] returned a value save cannot write \(a ' ...
            class(fn{1} ()) ': .*\); return the data it holds\.$'];
    try
      muon_mpirun (setfield (guard, "np", 2), fn{1});
      ok (false, "a result save cannot write: no error raised");
    catch err
      ok (strcmp (err.identifier, "muonlab:mpi") && ! isempty (regexp (err.message, want)),
          ["a result save cannot write: " err.message]);
    end_try_catch
  endfor

  ## 2b. muonlab's objects: a layout passed as an argument goes as its struct; one captured
  ## by the function is a clear error (save cannot write an object)
  L = zero_layout ({[4 4], [3 4]}, 2);
  try
    R = muon_mpirun (setfield (guard, "np", 2), @(S) numel (S.params), L);
    ok (isequal (R, {2, 2}), "a layout object as an argument reaches every rank");
  catch err
    ok (false, ["a layout object as an argument: " err.message]);
  end_try_catch
  try
    muon_mpirun (setfield (guard, "np", 2), @() numel (L.params));
    ok (false, "a captured layout object: no error raised");
  catch err
    ok (strcmp (err.identifier, "muonlab:badArg")
        && strncmp (err.message, "muon_mpirun: FN captures a value save cannot write", 50),
        ["a captured layout object: " err.message]);
  end_try_catch

  ## 2b'. a state (muon_state) and a layout (zero_layout_result) a rank returns come back
  ## as their plain structs, also ones made before `clear functions` (no muon_result then:
  ## "returned a value save cannot write")
  cases = {"mpirun_state", "a muon_optimizer state", ...
           struct(muon_optimizer (struct ("W", reshape (1:12, 4, 3), "b", (1:4).'), "LR", 0.01));
           "mpirun_layout", "a layout", struct(zero_layout ({[4 4], [2 4]}, 2))};
  for c = 1:rows (cases)
    for stale = [false true]
      what = sprintf ("%s a rank returns%s", cases{c,2},
                      merge (stale, " (made before clear functions)", ""));
      try
        R = muon_mpirun (setfield (guard, "np", 2), cases{c,1}, stale);
        ok (isstruct (R) && isequal (size (R), [1 2]) && isequal (R(1), cases{c,3})
            && isequal (R(2), cases{c,3}), [what ": the plain struct on every rank"]);
      catch err
        ok (false, [what ": " err.message]);
      end_try_catch
    endfor
  endfor

  ## 2c. plain mpirun, not muon_mpirun (before 3, which leaves MPI's variables in this
  ## process for a child mpirun to trip on): a rank that raises, exits with a status or is
  ## stopped by a SIGTERM while the other waits in a collective ends the job (MPI_Abort at
  ## its exit: mex/muon_mex_mpi.c), where MPI_Finalize waited for good; the last case, where
  ## no rank fails (rank -1), ends normally with status 0.  `timeout 120` bounds a hang (a
  ## job takes 1-3 s here); it is not a timing check.
  mpi_cases = {1, "raise", "allreduce", 0, 1
               0, "exit",  "barrier",   3, 1
               1, "term",  "all_gather", 0, 1
               -1, "raise", "allreduce", 0, 0};
  for k = 1:rows (mpi_cases)
    [bad, how, coll, status, fails] = mpi_cases{k, :};
    [rc, secs] = plain_mpirun (root, here, sprintf ("mpirun_fault (%d, '%s', '%s', %d)",
                                                    bad, how, coll, status));
    ok (rc != 124 && rc != 137 && (rc != 0) == fails,
        sprintf ("plain mpirun, rank %d: %s while the other waits in %s: exit status %d after %.0f s",
                 bad, how, coll, rc, secs));
  endfor

  ## 2d. muon_mpirun from an Octave that a plain mpirun started (one rank of 1): a job of its
  ## own (it kept the rank's OMPI_MCA_ess_base_jobid and _vpid, and mpirun failed:
  ## "ORTE_ERROR_LOG: Bad parameter", "mpirun exited with status 1")
  [rc, secs] = plain_mpirun (root, here, ["R = muon_mpirun (struct ('np', 2, 'timeout', 60), " ...
                                          "'mpirun_ok', 1, 3, []); exit (! isequal ([R.sum], [3 3]))"], 1);
  ok (rc == 0, sprintf ("muon_mpirun under a plain mpirun -np 1: exit status %d after %.0f s",
                        rc, secs));

  ## 2e. the user's PMIx settings reach the ranks (PMIX_MCA_gds=hash, the usual cure for
  ## Open MPI 4's gds_ds12 errors: every PMIX_* was dropped), as OMPI_MCA_* ones do
  old = getenv ("PMIX_MCA_gds");
  setenv ("PMIX_MCA_gds", "hash");
  unwind_protect
    R = muon_mpirun (struct ("np", 1, "timeout", 60), @() getenv ("PMIX_MCA_gds"));
    ok (isequal (R, {"hash"}), "PMIX_MCA_gds reaches the ranks");
  unwind_protect_cleanup
    if (isempty (old))
      unsetenv ("PMIX_MCA_gds");
    else
      setenv ("PMIX_MCA_gds", old);
    endif
  end_unwind_protect

  ## 3. from an Octave that has initialized MPI itself (a singleton): a fresh job
  try
    c = muon_comm ("mpi");
    [R, out] = muon_mpirun (setfield (guard, "np", 2), @mpirun_ok, 1, 3, []);
    ok (c.size == 1 && isequal ([R.sum], [3 3]), "after MPI_Init in the caller: a job of 2 ranks");
  catch err
    ok (false, ["after MPI_Init in the caller: " err.message]);
  end_try_catch
  ## ... and from a rank of a muon_mpirun job (the same failure as 2d)
  try
    R = muon_mpirun (struct ("np", 1, "timeout", 120),
                     @() muon_mpirun (struct ("np", 2, "timeout", 60), "mpirun_ok", 1, 3, []));
    ok (iscell (R) && isequal ([R{1}.sum], [3 3]), "a job of 2 ranks from a rank of a job");
  catch err
    ok (false, ["a job of 2 ranks from a rank of a job: " err.message]);
  end_try_catch

  ## 4. a rank that raises, exits (status 0 included) or is killed while the others wait in a
  ## collective ends every rank, and the error names the rank and the cause.  "timeout", 10
  ## bounds a hang (a job takes 1-4 s here); it is not a timing check.  The ranks work in an
  ## empty folder, which must stay empty (a rank stopped by a signal saves no workspace).
  raised = "muon_mpirun: rank %d raised: mpirun_fault: rank %d gives up";
  exited = "muon_mpirun: rank %d exited with status %d before its function returned.";
  killed = "muon_mpirun: rank %d was killed by signal 9 (SIGKILL).";
  termed = "muon_mpirun: rank %d was stopped by signal 15 (SIGTERM) (Octave caught it).";
  checked = ["muon_mpirun: rank %d raised: muon_collective: X must be a real double or " ...
             "single array, or a cell of them."];
  cases = {2, 1, "raise", "allreduce",      0, sprintf(raised, 1, 1)
           2, 0, "raise", "barrier",        0, sprintf(raised, 0, 0)
           4, 3, "raise", "reduce_scatter", 0, sprintf(raised, 3, 3)
           4, 2, "raise", "all_gather",     0, sprintf(raised, 2, 2)
           2, 1, "exit",  "allreduce",      3, sprintf(exited, 1, 3)
           4, 3, "exit",  "reduce_scatter", 3, sprintf(exited, 3, 3)
           4, 0, "exit",  "barrier",        0, sprintf(exited, 0, 0)
           2, 1, "kill",  "barrier",        0, sprintf(killed, 1)
           4, 2, "kill",  "allreduce",      0, sprintf(killed, 2)
           2, 0, "kill",  "all_gather",     0, sprintf(killed, 0)
           2, 1, "term",  "allreduce",      0, sprintf(termed, 1)
           2, 0, "term",  "barrier",        0, sprintf(termed, 0)
           2, 1, "check", "allreduce",      0, sprintf(checked, 1)
           4, 2, "check", "all_gather",     0, sprintf(checked, 2)};
  for k = 1:rows (cases)
    [np, bad, how, coll, status, want] = cases{k, :};
    what = sprintf ("np %d, rank %d: %s while the others wait in %s", np, bad, how, coll);
    if (strcmp (how, "exit"))
      what = sprintf ("%s (status %d)", what, status);
    endif
    [err, left] = in_empty_folder (@() muon_mpirun (struct ("np", np, "timeout", 10),
                                                    "mpirun_fault", bad, how, coll, status));
    ok (! isnumeric (err) && strcmp (err.identifier, "muonlab:mpi")
        && strcmp (err.message, want) && isempty (left),
        sprintf ("%s: %s%s", what, err_text (err), left_text (left)));
  endfor

  ## 5. the timeout: every rank hangs in Octave code; the job is killed after 3 s, and no
  ## rank leaves an octave-workspace behind (Octave saves one on SIGTERM by default)
  [err, left] = in_empty_folder (@() muon_mpirun (struct ("np", 2, "timeout", 3),
                                                  "mpirun_fault", 0, "hang", "barrier", 0));
  ok (! isnumeric (err) && strcmp (err.identifier, "muonlab:mpi") && isempty (left)
      && strcmp (err.message, "muon_mpirun: the job did not finish within 3 s and was killed."),
      sprintf ("np 2, every rank hangs: %s%s", err_text (err), left_text (left)));
  ## ... and ranks that wait in MPI (polling, where mpirun may exit before they end) are
  ## gone when the call returns: nothing of the job outlives it
  [err, left] = in_empty_folder (@() muon_mpirun (struct ("np", 3, "timeout", 5),
                                                  "mpirun_fault", 1, "skip", "allreduce", 0));
  [~, ps] = system ("ps -eo args | grep -F \"muon_mpirun ('__rank__'\" | grep -v grep");
  ok (! isnumeric (err) && isempty (left) && isempty (strtrim (ps))
      && strcmp (err.message, "muon_mpirun: the job did not finish within 5 s and was killed."),
      sprintf ("np 3, two ranks wait in an allreduce: %s%s%s", err_text (err),
               left_text (left), merge (isempty (strtrim (ps)), "", [" (still running: " ps ")"])));

  ## ... a fractional timeout: timeout(1) is given 0.5 s, what the error says (it was given
  ## ceil (0.5) = 1 s); a timeout(1) first on PATH notes its arguments, then runs the real one
  T = tempname ();
  mkdir (T);
  path0 = getenv ("PATH");
  unwind_protect
    write_script (fullfile (T, "timeout"),
                  sprintf ("#!/bin/sh\necho \"$@\" >'%s/args.txt'\nexec '%s' \"$@\"\n", T,
                           file_in_path (path0, "timeout")));
    setenv ("PATH", [T pathsep() path0]);
    [err, left] = in_empty_folder (@() muon_mpirun (struct ("np", 2, "timeout", 0.5),
                                                    "mpirun_fault", 0, "hang", "barrier", 0));
    args = "";
    if (exist (fullfile (T, "args.txt"), "file"))
      args = fileread (fullfile (T, "args.txt"));
    endif
    ok (! isnumeric (err) && isempty (left) && strncmp (args, "-k 10 0.5 ", 10)
        && strcmp (err.message, "muon_mpirun: the job did not finish within 0.5 s and was killed."),
        sprintf ("timeout 0.5: %s (timeout(1) given '%s')%s", err_text (err),
                 regexprep (strtrim (args), '^(-k 10 \S+).*', "$1"), left_text (left)));
  unwind_protect_cleanup
    setenv ("PATH", path0);
    confirm_recursive_rmdir (false, "local");
    [~] = rmdir (T, "s");
  end_unwind_protect

  ## a function handle that returns nothing (or a value), an error of a rank that starts
  ## with the driver's name: the rank's, named as such
  try
    R = muon_mpirun (struct ("np", 2, "timeout", 60), @() 7);
    S = muon_mpirun (struct ("np", 2, "timeout", 60), @() disp (1));
    ok (isequal (size (S), [1 2]) && isstruct (S) && isempty (fieldnames (S))
        && isequal (R, {7, 7}), "handles that return a value or nothing");
  catch e
    ok (false, ["handles that return a value or nothing: " e.message]);
  end_try_catch
  try
    muon_mpirun (struct ("np", 2, "timeout", 60), @() error ("muon_mpirun: x"));
    ok (false, "a rank's 'muon_mpirun: x': no error");
  catch e
    ok (strcmp (e.message, "muon_mpirun: rank 0 raised: muon_mpirun: x"),
        ["a rank's 'muon_mpirun: x' is the rank's: " e.message]);
  end_try_catch

  ## 6. the launcher's arguments never reach a shell: $(...) and `...` do not run, the text
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

  ## 7. a TMPDIR whose name holds a quote (and shell syntax): the job runs (issue 23); NP
  ## above 4 x the cores only with "oversubscribe"
  T = [tempname() "it's $(touch x)"];
  mkdir (T);
  old = getenv ("TMPDIR");
  unwind_protect
    setenv ("TMPDIR", T);
    try
      R = muon_mpirun (struct ("np", 2, "timeout", 60), "muon_comm", "self");
      ok (isequal ({R.kind}, {"self", "self"}) && isempty (setdiff (readdir (T), {".", ".."})),
          "TMPDIR with a quote: the job runs, its folder is removed");
    catch err
      ok (false, ["TMPDIR with a quote: " err.message]);
    end_try_catch
  unwind_protect_cleanup
    setenv ("TMPDIR", old);
    confirm_recursive_rmdir (false, "local");
    [~] = rmdir (T, "s");
  end_unwind_protect
  n = 4 * nproc ("all") + 1;            # cores, whatever OMP_NUM_THREADS says
  try
    muon_mpirun (n, "disp", 1);
    ok (false, "NP over 4 x the cores: no error");
  catch err
    ok (strcmp (err.message, sprintf ("muon_mpirun: NP must be at most %d (4 x the %d cores here) unless OVERSUBSCRIBE is true.", n - 1, nproc ("all"))),
        ["NP over 4 x the cores is refused: " err.message]);
  end_try_catch

  ## 8. Ctrl-C: SIGINT to the caller's process group (as a terminal sends it) ends the job
  ## within seconds, not at its timeout; every rank ends and the job's folder goes
  [msg, left, secs] = interrupted_caller (root);
  ok (strcmp (msg, "muon_mpirun: the job was stopped by SIGINT and its ranks ended.")
      && isempty (left) && secs < 60,
      sprintf ("Ctrl-C ends the job: '%s' after %.0f s%s", msg, secs, left_text (left)));

  printf ("mpi muon_mpirun: %d passed, %d failed\n", passed, failed);
  res = getenv ("MUON_MPI_RESULTS");
  if (! isempty (res))
    fid = fopen (res, "a");
    fprintf (fid, "mpi %d %d\n", passed, failed);
    fclose (fid);
  endif
endfunction

## Starts an Octave in a process group of its own (setsid) that runs a 2-rank job whose
## ranks hang (a 300 s timeout), sends SIGINT to the group once the ranks run, and returns
## the error message the caller printed, what the job left (its folder, the command lines of
## its processes) and the seconds from the signal to the caller's exit.
function [msg, left, secs] = interrupted_caller (root)
  T = tempname ();
  mkdir (T);
  fid = fopen (fullfile (T, "caller.m"), "w");
  fprintf (fid, "addpath ('%s', '%s', '%s');\n", fullfile (root, "inst"),
           fullfile (root, "build", "mex"), fullfile (root, "tests", "mpi"));
  fprintf (fid, "try\n  muon_mpirun (struct ('np', 2, 'timeout', 300), 'mpirun_fault', 0, 'hang', 'barrier', 0);\n");
  fprintf (fid, "catch e\n  printf ('%%s\\n', e.message);\nend\n");
  fclose (fid);
  fid = fopen (fullfile (T, "caller.sh"), "w");
  fprintf (fid, "echo $$ >caller.pgid\n");
  fprintf (fid, "exec octave-cli --no-gui --norc --silent caller.m >caller.log 2>&1 </dev/null\n");
  fclose (fid);
  unwind_protect
    system (sprintf ("cd '%s' && setsid sh caller.sh >/dev/null 2>&1 &", T));
    t0 = tic ();
    while (! exist (fullfile (T, "caller.pgid"), "file") && toc (t0) < 60)
      pause (0.2);
    endwhile
    g = str2double (fileread (fullfile (T, "caller.pgid")));
    job = fullfile (tempdir (), sprintf (".muonlab-%d-", g));   # the job's folder
    while (isempty (glob ([job "*/rank_1.log"])) && toc (t0) < 120)
      pause (0.2);
    endwhile
    pause (2);                              # the ranks in their hang
    kill (-g, 2);                           # SIGINT to the group, as a terminal's Ctrl-C
    t1 = tic ();
    while (kill (-g, 0) == 0 && toc (t1) < 120)
      pause (0.2);
    endwhile
    secs = toc (t1);
    msg = "";
    lines = strsplit (fileread (fullfile (T, "caller.log")), "\n");
    k = find (strncmp (lines, "muon_mpirun:", 12), 1);
    if (! isempty (k))
      msg = lines{k};
    endif
    [~, ps] = system (sprintf ("pgrep -f '[.]muonlab-%d-'", g));   # not pgrep's own shell
    left = [glob([job "*"]).', strsplit(strtrim (ps), "\n")];
    left(cellfun ("isempty", left)) = [];
  unwind_protect_cleanup
    if (exist ("g", "var"))
      system (sprintf ("pkill -KILL -f '[.]muonlab-%d-'", g));
    endif
    confirm_recursive_rmdir (false, "local");
    [~] = rmdir (T, "s");
  end_unwind_protect
endfunction

## Runs CODE on NP ranks (default 2) of a plain mpirun (as a user's script would, without
## muon_mpirun's set-up) in an empty folder, bounded by `timeout 120`; returns mpirun's exit
## status and the seconds it took.
function [rc, secs] = plain_mpirun (root, here, code, np = 2)
  dir = tempname ();
  mkdir (dir);
  eval_code = sprintf ("addpath ('%s', '%s', '%s'); crash_dumps_octave_core (false); %s;",
                       fullfile (root, "inst"), fullfile (root, "build", "mex"), here, code);
  cmd = sprintf (["cd '%s' && timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe " ...
                  "-np %d octave-cli --no-gui --norc --silent --no-history --eval \"%s\" " ...
                  ">job.log 2>&1"], dir, np, eval_code);
  t0 = tic ();
  rc = system (cmd);
  secs = toc (t0);
  confirm_recursive_rmdir (false, "local");
  [~] = rmdir (dir, "s");
endfunction

## Writes TEXT to the executable file F.
function write_script (f, text)
  fid = fopen (f, "w");
  fputs (fid, text);
  fclose (fid);
  if (system (sprintf ("chmod +x '%s'", f)) != 0)
    error ("test_mpirun: cannot make %s executable", f);
  endif
endfunction

## Runs f () with a fresh empty folder as the working directory; returns the error it raised
## (0 when none) and the names left in the folder.
function [err, left] = in_empty_folder (f)
  dir = tempname ();
  mkdir (dir);
  here = pwd ();
  err = 0;
  unwind_protect
    cd (dir);
    try
      [~, out] = f ();
    catch e
      err = e;
    end_try_catch
  unwind_protect_cleanup
    cd (here);
    left = setdiff ({readdir(dir){:}}, {".", ".."});
    confirm_recursive_rmdir (false, "local");
    [~] = rmdir (dir, "s");
  end_unwind_protect
endfunction

function s = err_text (err)
  s = "no error raised";
  if (! isnumeric (err))
    s = err.message;
  endif
endfunction

function s = left_text (left)
  s = "";
  if (! isempty (left))
    s = [" (left behind:" sprintf(" %s", left{:}) ")"];
  endif
endfunction
