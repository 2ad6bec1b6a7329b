## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{p}, @var{f}, @var{info}] =} run_test_file (@var{file}, @var{empty_fails})
## One file's %! blocks for a test runner (tests/octave/run_all.m, tests/gpu/run_gpu.m):
## @code{test (file, "quiet", fid)} into a temporary log, counted as
## @var{p} passed and @var{f} = nmax - n - nxfail - nbug failed; a file that errors out, or
## whose log shows a failed block outside the count (a %!shared block), counts 1 failed, and
## so does one that tests nothing when @var{empty_fails}.  @var{info} notes xfails, skips
## and such; the log's failure details are printed, indented.
## @end deftypefn

function [p, f, info] = run_test_file (file, empty_fails)
  p = 0; f = 0; info = "";
  logname = [tempname() ".log"];
  fid = fopen (logname, "w");
  ok = true;
  try
    [n, nmax, nxfail, nbug, nskip, nrtskip] = test (file, "quiet", fid);
  catch err
    ok = false;
    info = sprintf ("ERROR: %s", err.message);
  end_try_catch
  fclose (fid);
  logtext = fileread (logname);
  unlink (logname);
  if (ok)
    p = n;
    f = nmax - n - nxfail - nbug;
    extra = {};
    if (nxfail + nbug > 0)
      extra{end+1} = sprintf ("%d xfail", nxfail + nbug);
    endif
    if (nskip + nrtskip > 0)
      extra{end+1} = sprintf ("%d skipped", nskip + nrtskip);
    endif
    if (nmax == 0 && nskip + nrtskip == 0)
      extra{end+1} = "no tests";
      f += empty_fails;                  # where every file must test something
    endif
    if (f == 0 && ! isempty (strfind (logtext, "!!!!! test failed")))
      f = 1;                             # e.g. a %!shared block that failed
      extra{end+1} = "a block failed outside the count";
    endif
    info = strjoin (extra, ", ");
  else
    f = 1;
  endif
  ## show the failure details that `test` wrote to the log (header line left out)
  lines = ostrsplit (logtext, "\n");
  lines = lines(! cellfun (@isempty, lines) & ! strncmp (lines, ">>>>> processing", 16));
  if (f > 0 || any (strncmp (lines, "!!!!!", 5)) || any (strncmp (lines, "-----", 5)))
    printf ("    | %s\n", lines{:});
  endif
endfunction
