## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{prefix} =} gpu_kept_heap ()
## The command words that start a program with glibc's malloc keeping freed memory for
## reuse (@env{MALLOC_MMAP_MAX_}=0: large blocks come from the heap, not from mmap;
## @env{MALLOC_TRIM_THRESHOLD_}=16 GiB: the heap is not given back), as the README
## suggests for host-array calls at speed: a new large Octave array then reuses pages it
## already has instead of faulting fresh ones in.  For @code{gpu_child} in
## @code{bench_gpu} and tests/bench/bench_mex.m, which time both allocators in one run.
## @end deftypefn

function prefix = gpu_kept_heap ()
  prefix = "env MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=17179869184";
endfunction

%!test
%! ## a child started behind it sees glibc's two settings
%! [rc, txt, f] = gpu_child (gpu_kept_heap (), ["printf ('%s %s\\n', " ...
%!                           "getenv ('MALLOC_MMAP_MAX_'), getenv ('MALLOC_TRIM_THRESHOLD_'));"],
%!                           "kept-heap");
%! unlink (f);
%! assert (rc, 0);
%! assert (strtok (txt, "\n"), "0 17179869184");
