## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{a}, @var{b}] =} thread_runs (@var{code})
## Run the Octave @var{code} in two fresh processes, with OPENBLAS_NUM_THREADS and
## OMP_NUM_THREADS 1 and then 2, each with muonlab on its path, and return what each saved:
## @var{code} must end by saving its results with @code{save ("-binary", FILE, ...)}, FILE
## being the variable @code{FILE} it is given.  For the tests of "same bits on any thread
## count" where the threads are Octave's own (they cannot change inside one process).
## @end deftypefn

function [a, b] = thread_runs (code)
  inst = fileparts (which ("muon_update"));
  mexdir = fileparts (which ("__muon_ns__"));
  octave = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
  if (! exist (octave, "file"))
    octave = "octave-cli";
  endif
  sq = @(s) ["'" strrep(s, "'", "'\\''") "'"];
  f = {[tempname() ".bin"], [tempname() ".bin"]};
  unwind_protect
    for t = 1:2
      run = sprintf ("addpath (%s, %s); FILE = %s; %s", sq (inst), sq (mexdir), sq (f{t}), code);
      cmd = sprintf ("OPENBLAS_NUM_THREADS=%d OMP_NUM_THREADS=%d %s --no-gui --norc --silent --eval %s 2>&1",
                     t, t, sq (octave), sq (run));
      [~, out] = system (cmd);
      if (! exist (f{t}, "file"))
        error ("thread_runs: the run on %d thread(s) saved nothing: %s", t, out);
      endif
    endfor
    a = load (f{1});
    b = load (f{2});
  unwind_protect_cleanup
    for t = 1:2
      if (exist (f{t}, "file"))
        unlink (f{t});
      endif
    endfor
  end_unwind_protect
endfunction
