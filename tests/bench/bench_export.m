## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## bench_export - `make bench`: how long a large table takes out and back.  The per-rank
## table of zero_cost for Llama-3.1-8B on 1,024 ranks (a row per design and rank: 13,312
## rows now, 13 designs, printed with the run; 29 columns, four of them text) written by
## muon_export and read back by muon_import, as CSV and as JSON; target: each direction
## under 2 s (printed, not asserted).  Each figure is the best of 3 runs, wall time (CPU
## time beside it: the machine is shared).
##
##   cd tests/bench && octave-cli --eval bench_export

function out = bench_export ()
  here = fileparts (mfilename ("fullpath"));
  root = fileparts (fileparts (here));
  addpath (fullfile (root, "inst"), fullfile (root, "build", "mex"), here);
  printf ("\nbench_export: zero_cost (llama-3.1-8b, 1024) per-rank table, out and back\n");
  C = zero_cost (muon_model ("llama-3.1-8b"), 1024);
  R = [C.ranks];
  n = numel (vertcat (R.rank));
  out = struct ();
  for ext = {".csv", ".json"}
    f = [tempname() ext{1}];
    unwind_protect
      [tw, cw] = best_of (@() muon_export (C, f, "Table", "ranks"));
      [tr, cr] = best_of (@() muon_import (f));
    unwind_protect_cleanup
      unlink (f);
    end_unwind_protect
    printf ("  %-5s %d rows (%d designs x 1024 ranks): muon_export %.2f s (cpu %.2f), muon_import %.2f s (cpu %.2f); target 2 s\n",
            ext{1}(2:end), n, numel (C), tw, cw, tr, cr);
    out.(ext{1}(2:end)) = [tw tr];
  endfor
endfunction

function [t, c] = best_of (fn)
  t = Inf;
  c = Inf;
  for k = 1:3
    c0 = cputime ();
    t0 = tic ();
    fn ();
    t = min (t, toc (t0));
    c = min (c, cputime () - c0);
  endfor
endfunction
