## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{R} =} mpirun_collect (@var{dir}, @var{np}, @var{status}, @var{timeout}, @var{elapsed})
## The results of a @code{muon_mpirun} job from its folder @var{dir} (what each rank's
## driver and @file{rank.sh} left there), or the error of the failed run: an interruption
## first, then a rank's error (every other rank is then ended by its MPI_Abort), then the
## timeout (timeout(1) answers 124 in @var{status}, or 137 when it had to kill, and
## @var{elapsed} reached @var{timeout}), then the first rank in @file{ends.txt} that ended
## before returning.  @var{R} is the 1 x @var{np} struct array or cell that
## @code{muon_mpirun} returns.
## @end deftypefn

function R = mpirun_collect (dir, np, status, timeout, elapsed)
  errs = glob (fullfile (dir, "error_*.txt"));
  f = fullfile (dir, "interrupted.txt");
  if (exist (f, "file"))        # Ctrl-C (or a signal to the caller) ended the job
    error ("muonlab:mpi", "muon_mpirun: the job was stopped by %s and its ranks ended.",
           strtrim (fileread (f)));
  elseif (! isempty (errs))
    ranks = cellfun (@(f) sscanf (f(numel (dir) + 8:end), "%d"), errs);
    msgs = cellfun (@(f) strtrim (fileread (f)), errs, "UniformOutput", false);
    ## a rank's own error before one that only reports it (comm_agree's "FNAME: rank Q
    ## raised an error (its own message says why).")
    told = ! cellfun ("isempty", regexp (msgs, mpirun_told_pattern ()));
    key = ranks;
    key(told & ! all (told)) = Inf;
    [~, k] = min (key);
    if (exist (fullfile (dir, sprintf ("own_%d.txt", ranks(k))), "file"))
      error ("muonlab:mpi", "%s", msgs{k});     # the driver's own (a result not sent)
    endif
    error ("muonlab:mpi", "muon_mpirun: rank %d raised: %s", ranks(k), msgs{k});
  elseif ((status == 124 || status == 137) && elapsed >= timeout)
    error ("muonlab:mpi", "muon_mpirun: the job did not finish within %.15g s and was killed.",
           timeout);
  endif
  ends = zeros (0, 2);
  f = fullfile (dir, "ends.txt");
  if (exist (f, "file"))
    ends = reshape (sscanf (fileread (f), "%d"), 2, [])';
  endif
  for k = 1:rows (ends)
    [r, s] = deal (ends(k,1), ends(k,2));
    caught = "";
    f = fullfile (dir, sprintf ("signal_%d.txt", r));
    if (s != 0 && exist (f, "file"))
      caught = strtrim (fileread (f));
    endif
    if (s > 128 && s < 128 + 65)
      error ("muonlab:mpi", "muon_mpirun: rank %d was killed by signal %d%s.", r, s - 128,
             signal_name (s - 128));
    elseif (! isempty (caught))
      error ("muonlab:mpi", "muon_mpirun: rank %d was stopped by %s (Octave caught it).", r,
             caught_name (caught));
    elseif (s != 0 || ! exist (fullfile (dir, sprintf ("rank_%d.mat", r)), "file"))
      error ("muonlab:mpi",
             "muon_mpirun: rank %d exited with status %d before its function returned.", r, s);
    endif
  endfor
  if (status != 0)
    error ("muonlab:mpi", "muon_mpirun: mpirun exited with status %d.", status);
  endif
  R = cell (1, np);
  for r = 0:np-1
    f = fullfile (dir, sprintf ("rank_%d.mat", r));
    if (! exist (f, "file"))
      error ("muonlab:mpi", "muon_mpirun: rank %d returned no result.", r);
    endif
    s = load (f);
    R{r+1} = s.out;
  endfor
  if (all (cellfun (@(x) isstruct (x) && isscalar (x), R)))
    names = fieldnames (R{1});
    if (all (cellfun (@(x) isequal (sort (fieldnames (x)), sort (names)), R)))
      R = cellfun (@(x) orderfields (x, names), R);
    endif
  endif
endfunction

## " (SIGKILL)" for 9, "" for a number with no name here.
function s = signal_name (k)
  S = SIG ();
  names = fieldnames (S);
  i = find (cellfun (@(n) S.(n) == k, names), 1);
  s = "";
  if (! isempty (i))
    s = sprintf (" (SIG%s)", names{i});
  endif
endfunction

## "signal 15 (SIGTERM)" for the text Octave prints when it catches one ("Terminated").
function s = caught_name (text)
  T = {"Terminated", "TERM"; "Hangup", "HUP"; "Interrupt", "INT"; "Quit", "QUIT";
       "Alarm clock", "ALRM"; "Broken pipe", "PIPE"; "User defined signal 1", "USR1";
       "User defined signal 2", "USR2"};
  k = find (strcmp (text, T(:,1)), 1);
  S = SIG ();
  if (! isempty (k) && isfield (S, T{k,2}))
    s = sprintf ("signal %d (SIG%s)", S.(T{k,2}), T{k,2});
  else
    s = sprintf ("a signal (%s)", text);
  endif
endfunction
