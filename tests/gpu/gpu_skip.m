## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{skip} =} gpu_skip (@var{tool})
## Whether the environment variable @env{MUONLAB_GPU_SKIP}, a comma-separated list of the
## GPU targets' names (@qcode{"check-gpu"}, @qcode{"bench-gpu"}, @qcode{"memcheck-gpu"},
## @qcode{"initcheck-gpu"}, @qcode{"profile-gpu"}), names @var{tool}; if so it prints the line
## "@var{tool}: skipped, MUONLAB_GPU_SKIP names it".  For a second call on a GPU machine
## whose runner starts every call with check-gpu and bench-gpu (shared/gpu/run.sh): the
## device time then goes to what the call is for, e.g.
## @code{MUONLAB_GPU_SKIP=check-gpu,bench-gpu bash .gpu/run.sh 'cd tests/gpu; gpu_profile'}.
## Each target asks only when run as the target (with no arguments).
## @end deftypefn

function skip = gpu_skip (tool)
  names = strtrim (strsplit (getenv ("MUONLAB_GPU_SKIP"), ","));
  skip = any (strcmp (names, tool));
  if (skip)
    printf ("%s: skipped, MUONLAB_GPU_SKIP names it\n", tool);
  endif
endfunction

%!test
%! old = getenv ("MUONLAB_GPU_SKIP");
%! unwind_protect
%!   setenv ("MUONLAB_GPU_SKIP", "check-gpu, bench-gpu");
%!   out = evalc ("s = gpu_skip ('bench-gpu');");
%!   assert (s);
%!   assert (out, "bench-gpu: skipped, MUONLAB_GPU_SKIP names it\n");
%!   assert (! gpu_skip ("profile-gpu"));
%!   assert (! gpu_skip ("bench"));
%!   setenv ("MUONLAB_GPU_SKIP", "");
%!   assert (! gpu_skip ("check-gpu"));
%!   ## each target as make runs it
%!   setenv ("MUONLAB_GPU_SKIP", "bench-gpu,memcheck-gpu,profile-gpu");
%!   out = evalc ("R = bench_gpu ();");
%!   assert (isempty (R));
%!   assert (strtrim (out), "bench-gpu: skipped, MUONLAB_GPU_SKIP names it");
%!   out = evalc ("[n, f] = gpu_memcheck ();");
%!   assert ({n, f}, {0, ""});
%!   assert (strtrim (out), "memcheck-gpu: skipped, MUONLAB_GPU_SKIP names it");
%!   out = evalc ("T = gpu_profile ();");
%!   assert (isempty (T));
%!   assert (strtrim (out), "profile-gpu: skipped, MUONLAB_GPU_SKIP names it");
%! unwind_protect_cleanup
%!   setenv ("MUONLAB_GPU_SKIP", old);
%! end_unwind_protect
