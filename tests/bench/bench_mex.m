## bench_mex - `make bench`: what a large gateway output costs on its way back to Octave.
## Octave 7 as Debian builds it (without std::pmr) copies every array a MEX file made with
## mxCreate* element by element into a new array when the call returns; muonlab's gateways
## make large outputs with Octave's own zeros instead (mex/muon_mex.c, muon_mex_new_array),
## which Octave takes back as they are.  Per size of a single array, in one run, median of
## 5 interleaved calls:
##   floor   zeros (size, "single"): Octave making and zeroing an array of these bytes;
##   octave  a copy of X returned the gateways' way (the test-only __muon_copy_out__);
##   mx      the same copy in an mxCreateNumericArray array, the way before (Octave copies);
##   gather  gather (D), D = muon_gpu (X, "Device", "cpu"): a real gateway's output.
## Target (printed, not asserted): octave / floor <= 2 (two passes, the fill and the copy,
## against one), and mx / octave >= 1.5 on arrays of 16 MiB and more.
##
##   cd tests/bench && octave-cli --eval bench_mex

function out = bench_mex ()
  here = fileparts (mfilename ("fullpath"));
  root = fileparts (fileparts (here));
  addpath (fullfile (root, "inst"), fullfile (root, "build", "mex"),
           fullfile (root, "build", "tests", "mex"), here);
  printf ("\nbench_mex: a large output's trip back to Octave (single, median of 5, ms)\n");
  printf ("  %-12s %8s %8s %8s %8s   %-14s %s\n", "shape", "floor", "octave", "mx",
          "gather", "octave / floor", "mx / octave");
  shapes = {[512 512], [2048 2048], [4096 4096], [8192 8192]};
  res = zeros (numel (shapes), 4);
  for s = 1:numel (shapes)
    sz = shapes{s};
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
    res(s,:) = 1e3 * median (t);
    mib = prod (sz) * 4 / 2^20;
    printf ("  %-12s %8.2f %8.2f %8.2f %8.2f   %5.2f (%s)   %5.2f%s\n",
            sprintf ("%dx%d", sz), res(s,:), res(s,2) / res(s,1),
            merge (res(s,2) / res(s,1) <= 2, "OK", "MISSED"), res(s,3) / res(s,2),
            merge (mib >= 16, merge (res(s,3) / res(s,2) >= 1.5, " (OK)", " (MISSED)"), ""));
    clear D;
  endfor
  if (nargout > 0)
    out = res;
  endif
endfunction
