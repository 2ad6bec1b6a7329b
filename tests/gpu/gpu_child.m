## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{rc}, @var{txt}, @var{log}] =} gpu_child (@var{prefix}, @var{code}, @var{tag})
## Runs the Octave code @var{code} in a child octave-cli (the binary of this session: the
## packed runtime on the GPU machine), with inst/, build/mex and tests/gpu on its path,
## behind the command words @var{prefix} (a tool and its options, e.g.
## @qcode{"'compute-sanitizer' --tool memcheck"}; empty: none).  Its standard output and
## error go to the new file @var{log} (a temporary name ending in -@var{tag}.log); @var{rc}
## is the exit status and @var{txt} the output.  The command line is printed first, so that
## a run can be repeated by hand.  What gpu_memcheck and gpu_profile run under their tools.
## @end deftypefn

function [rc, txt, logfile] = gpu_child (prefix, code, tag)
  here = fileparts (mfilename ("fullpath"));
  root = fullfile (here, "..", "..");
  logfile = sprintf ("%s-%s.log", tempname (), tag);
  if (! isempty (prefix))
    prefix = [prefix " "];
  endif
  code = sprintf ("addpath ('%s', '%s', '%s'); %s", fullfile (root, "inst"),
                  fullfile (root, "build", "mex"), here, code);
  cmd = sprintf ("%s'%s' --no-gui --norc --silent --eval \"%s\" > '%s' 2>&1", prefix,
                 octave_binary (), code, logfile);
  printf ("%s: %s\n", tag, cmd);
  fflush (stdout);
  rc = system (cmd);
  txt = fileread (logfile);
endfunction

## The octave-cli running this session (the packed runtime on the GPU machine).
function b = octave_binary ()
  b = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
  if (! exist (b, "file"))
    b = "octave-cli";
  endif
endfunction

%!test
%! ## the child sees the project's path, its output and status come back
%! [rc, txt, f] = gpu_child ("", "printf ('%d\\n', exist ('muon_ns')); exit (3);", "selftest");
%! unwind_protect
%!   assert (rc, 3);
%!   assert (strtok (txt, "\n"), "2");   # (then perhaps octave-cli's exit message)
%!   assert (fileread (f), txt);
%!   assert (regexp (f, '-selftest\.log$'));
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect
