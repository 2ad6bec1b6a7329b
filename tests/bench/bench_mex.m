## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## bench_mex - `make bench`: what a large gateway output costs on its way back to Octave.
## Octave 7 as Debian builds it (without std::pmr) copies every array a MEX file made with
## mxCreate* element by element into a new array when the call returns; muonlab's gateways
## make large outputs with Octave's own zeros instead (mex/muon_mex.c, muon_mex_new_array),
## which Octave takes back as it is.  Per size of a single array, in one run, median of 5
## interleaved calls:
##   floor   zeros (size, "single"): Octave making and zeroing an array of these bytes;
##   octave  a copy of X returned the gateways' way (the test-only __muon_copy_out__);
##   mx      the same copy in an mxCreateNumericArray array, the way before (Octave copies);
##   gather  gather (D), D = muon_gpu (X, "Device", "cpu"): a real gateway's output.
## Target (printed, not asserted): octave / floor <= 2 (two passes, the fill and the copy,
## against one), and mx / octave >= 1.5 on arrays of 16 MiB and more.
## Then the same table from a child octave-cli whose malloc keeps freed memory
## (tests/gpu/gpu_kept_heap.m, the README's setting for host arrays at speed), where a new
## array reuses pages instead of faulting fresh ones in, and gather's speed-up from it.
##
##   cd tests/bench && octave-cli --eval bench_mex

function out = bench_mex (child)
  here = fileparts (mfilename ("fullpath"));
  root = fileparts (fileparts (here));
  addpath (fullfile (root, "inst"), fullfile (root, "build", "mex"),
           fullfile (root, "build", "tests", "mex"), fullfile (root, "tests", "gpu"), here);
  if (nargin == 0)
    printf ("\nbench_mex: a large output's trip back to Octave (single, median of 5, ms)\n");
  endif
  printf ("  %s:\n  %-12s %8s %8s %8s %8s   %-14s %s\n",
          merge (nargin == 0, "glibc's default malloc", "malloc keeping freed memory"),
          "shape", "floor", "octave", "mx", "gather", "octave / floor", "mx / octave");
  shapes = {[512 512], [2048 2048], [4096 4096], [8192 8192]};
  res = zeros (numel (shapes), 4);
  for s = 1:numel (shapes)
    res(s,:) = measure (shapes{s});
    mib = prod (shapes{s}) * 4 / 2^20;
    printf ("  %-12s %8.2f %8.2f %8.2f %8.2f   %5.2f (%s)   %5.2f%s\n",
            sprintf ("%dx%d", shapes{s}), res(s,:), res(s,2) / res(s,1),
            merge (res(s,2) / res(s,1) <= 2, "OK", "MISSED"), res(s,3) / res(s,2),
            merge (mib >= 16, merge (res(s,3) / res(s,2) >= 1.5, " (OK)", " (MISSED)"), ""));
  endfor
  if (nargin > 0)
    printf ("gather_ms %s\n", mat2str (res(:,4).', 6));
  else
    [rc, txt, logfile] = gpu_child (gpu_kept_heap (),
                                    sprintf ("addpath ('%s'); bench_mex (true);", here),
                                    "bench-mex");
    unlink (logfile);
    tok = regexp (txt, 'gather_ms (\[[^\]]*\])', "tokens", "once");
    ## the child's table, less its numbers line and octave-cli's harmless exit message
    printf ("%s", regexprep (txt, '(gather_ms|error: ignoring const execution_exception)[^\n]*\n',
                             ""));
    if (rc == 0 && ! isempty (tok))
      kept = str2num (tok{1});
      printf ("  gather, default / keeping malloc: %s\n",
              sprintf ("%.2f ", res(:,4).' ./ kept));
    else
      printf ("  (the child failed: exit status %d)\n", rc);
    endif
  endif
  if (nargout > 0)
    out = res;
  endif
endfunction

## [floor octave mx gather] in ms for a single array of size sz
function t = measure (sz)
  X = single (reshape (mod (1:prod (sz), 1001), sz));
  D = muon_gpu (X, "Device", "cpu");
  t = zeros (5, 4);
  for k = 0:5                       # k = 0: the untimed warm-up
    t0 = tic (); Y = zeros (sz, "single"); t1 = toc (t0); clear Y;
    t0 = tic (); Y = __muon_copy_out__ (X, "octave"); t2 = toc (t0); clear Y;
    t0 = tic (); Y = __muon_copy_out__ (X, "mx"); t3 = toc (t0); clear Y;
    t0 = tic (); Y = gather (D); t4 = toc (t0); clear Y;
    if (k > 0)
      t(k,:) = [t1 t2 t3 t4];
    endif
  endfor
  t = 1e3 * median (t);
endfunction
