## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {[@var{nerr}, @var{log}] =} gpu_memcheck ()
## @deftypefnx {} {[@var{nerr}, @var{log}] =} gpu_memcheck (@var{sanitizer}, @var{device})
## @deftypefnx {} {[@var{nerr}, @var{log}] =} gpu_memcheck (@var{sanitizer}, @var{device}, @var{tool})
## The device paths under compute-sanitizer's memcheck, run by @code{make memcheck-gpu}
## (never by @code{make check} or @code{make check-gpu}: memcheck slows every kernel down
## many times).  A child octave-cli runs @code{gpu_memcheck_workload} (every kernel and
## cuBLAS call the back end makes: device-array NS in every precision and method, eager
## and fused, page by page and batched, an unaligned page, a host stack through the staging,
## chained @code{muon_update} steps, @code{muon_step} on device parameters, and
## @code{zero_muon_step} on device gradients over a one-rank NCCL communicator) under
## @code{compute-sanitizer --tool memcheck}; @var{nerr} is the number of errors its
## summary counts, @var{log} the file with its whole output.  A workload that fails or a
## summary that cannot be read counts as an error (-1).
##
## @var{sanitizer} is the compute-sanitizer to run (default or empty: the one on the PATH,
## else under @env{CUDA_HOME} or /usr/local/cuda).  Without a CUDA device, with the back end
## not built, or without compute-sanitizer, it prints one line saying so and returns
## @var{nerr} = 0 and @var{log} = "".  It ends with the layer's line "N passed, N failed".
## @var{device} @qcode{"cpu"} runs the workload on the CPU stand-in instead (no probe): the
## harness's own test, with a stand-in for the sanitizer.  @var{tool} (default
## @qcode{"memcheck"}) may be @qcode{"initcheck"}, run by @code{make initcheck-gpu}: reads
## of device memory nothing wrote (the padding between batched pages is cleared for it;
## cuBLAS or NCCL may report reads of their own).  Its lines start with the target's name,
## and @env{MUONLAB_GPU_SKIP} skips it by that name.
## @end deftypefn

function [nerr, logfile] = gpu_memcheck (sanitizer, device, tool)
  here = fileparts (mfilename ("fullpath"));
  root = fullfile (here, "..", "..");
  addpath (fullfile (root, "inst"), fullfile (root, "build", "mex"), here);
  nerr = 0;
  logfile = "";
  if (nargin < 3)
    tool = "memcheck";
  endif
  if (! any (strcmp (tool, {"memcheck", "initcheck"})))
    error ("gpu_memcheck: TOOL must be 'memcheck' or 'initcheck'.");
  endif
  target = [tool "-gpu"];
  if ((nargin == 0 || (nargin == 3 && isempty (sanitizer))) && gpu_skip (target))
    return;
  endif
  if (nargin < 2 || isempty (device))
    device = "cuda";
  endif
  if (! strcmp (device, "cpu") && ! gpu_probe (target))
    return;
  endif
  if (nargin < 1 || isempty (sanitizer))
    sanitizer = gpu_tool ("compute-sanitizer");
  endif
  if (isempty (sanitizer))
    printf ("%s: skipped, compute-sanitizer not found (%s)\n", target,
            "PATH, $CUDA_HOME/bin, /usr/local/cuda/bin");
    return;
  endif
  t0 = tic ();
  cmd = sprintf ("'%s' --tool %s%s --print-limit 50", sanitizer, tool,
                 merge (strcmp (tool, "memcheck"), " --leak-check no", ""));
  [rc, txt, logfile] = gpu_child (cmd, sprintf ("gpu_memcheck_workload ('%s');", device),
                                  target);
  nerr = summary_errors (txt);
  if (rc != 0 || isempty (strfind (txt, "memcheck workload: done")))
    printf ("%s\n", txt(max (1, end - 3000):end));
    printf ("%s: the workload did not finish (exit status %d)\n", target, rc);
    nerr = -1;
  endif
  printf ("%s: %d errors in %.0f s (log %s)\n", target, nerr, toc (t0), logfile);
  printf ("%d passed, %d failed\n", nerr == 0, nerr != 0);
endfunction

## "========= ERROR SUMMARY: N errors" (the last one), or -1 when there is none.
function n = summary_errors (txt)
  t = regexp (txt, 'ERROR SUMMARY:\s*(\d+)\s+error', "tokens");
  n = -1;
  if (! isempty (t))
    n = str2double (t{end}{1});
  endif
endfunction

%!function f = fake_sanitizer (summary)
%!  ## drops the sanitizer's options (up to the program), runs it, prints SUMMARY
%!  f = [tempname() "-sanitizer"];
%!  fid = fopen (f, "w");
%!  fprintf (fid, "#!/bin/sh\nwhile [ \"$1\" != \"${1#--}\" ]; do\n");
%!  fprintf (fid, "  case \"$1\" in --tool|--leak-check|--print-limit) shift;; esac; shift\n");
%!  fprintf (fid, "done\n\"$@\"\nrc=$?\necho '%s'\nexit $rc\n", summary);
%!  fclose (fid);
%!  system (sprintf ("chmod 700 '%s'", f));

%!test
%! ## the harness, its workload on the stand-in: the summary's count is the result
%! for c = {{"========= ERROR SUMMARY: 0 errors", 0}, {"========= ERROR SUMMARY: 1 error", 1}, ...
%!          {"========= ERROR SUMMARY: 12 errors", 12}, {"no summary", -1}}
%!   f = fake_sanitizer (c{1}{1});
%!   unwind_protect
%!     out = evalc ("[n, lf] = gpu_memcheck (f, 'cpu');");
%!     assert (n, c{1}{2});
%!     assert (! isempty (strfind (fileread (lf), "memcheck workload: done")));
%!     assert (! isempty (strfind (out, sprintf ("%d passed, %d failed", n == 0, n != 0))));
%!     unlink (lf);
%!   unwind_protect_cleanup
%!     unlink (f);
%!   end_unwind_protect
%! endfor

%!test
%! ## initcheck: the same workload and count, under its own name
%! f = fake_sanitizer ("========= ERROR SUMMARY: 2 errors");
%! unwind_protect
%!   out = evalc ("[n, lf] = gpu_memcheck (f, 'cpu', 'initcheck');");
%!   assert (n, 2);
%!   assert (! isempty (strfind (out, "initcheck-gpu: 2 errors in")));
%!   assert (! isempty (regexp (out, "--tool initcheck --print-limit 50 ")));
%!   assert (! isempty (regexp (lf, '-initcheck-gpu\.log$')));
%!   unlink (lf);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect
%!error <gpu_memcheck: TOOL must be 'memcheck' or 'initcheck'.> gpu_memcheck ("", "cpu", "racecheck")

%!test
%! ## without a device (or a sanitizer) it says so and counts nothing
%! if (! logical (muon_info ().cuda_usable))
%!   out = evalc ("[n, f] = gpu_memcheck ();");
%!   assert (n, 0);
%!   assert (f, "");
%!   assert (! isempty (strfind (out, "memcheck-gpu: skipped, ")));
%! endif
