## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## bench_mpi - `make bench`: the distributed round-robin Newton-Schulz of DeepSpeed's ZeRO-3
## Muon (zero_muon_step "zero3_round_robin") on 16 matrices of 768 x 2048 in fp32, with
## 'Reference', false, on 1 and on 2 MPI ranks (muon_mpirun), one BLAS thread per rank in
## both runs.  Prints the step time of each (the slowest rank's, best of 3 steps), the
## speed-up (target >= 1.7 at 2 ranks on a 2-core machine; printed, not asserted) and the
## bytes per rank and collective that the communicator's counters give (for MPI the byte
## model of muon_comm.h, from the calls and their sizes, not bytes measured on the wire)
## next to the closed form written here.
##
##   cd tests/bench && octave-cli --eval bench_mpi

function out = bench_mpi (mode, W, P, m, n)
  if (nargin > 0 && strcmp (mode, "rank"))
    out = rank_body (W, P, m, n);
    return;
  endif
  here = fileparts (mfilename ("fullpath"));
  root = fileparts (fileparts (here));
  addpath (fullfile (root, "inst"), fullfile (root, "build", "mex"), here);
  P = 16; m = 768; n = 2048;
  threads = "-x OPENBLAS_NUM_THREADS=1 -x OMP_NUM_THREADS=1";
  setenv ("OPENBLAS_NUM_THREADS", "1");
  setenv ("OMP_NUM_THREADS", "1");
  printf ("\nbench_mpi: zero3_round_robin, %d matrices %d x %d, fp32 ('single'), ", P, m, n);
  printf ("one BLAS thread per rank\n");
  t = zeros (1, 2);
  for W = 1:2
    R = muon_mpirun (struct ("np", W, "mpirun_args", threads, "timeout", 900), "bench_mpi",
                     "rank", W, P, m, n);
    t(W) = max ([R.seconds]);
    printf ("  %d rank%s: %.3f s per step (slowest rank, best of 3); NS calls per rank %s\n",
            W, merge (W > 1, "s", ""), t(W), mat2str ([R.ns_calls]));
    ## closed form (ring model of muon_comm.h): an all-reduce of P m n, an all-gather of the
    ## momentum chunks, per round two all-gathers of m n; the step moves fp64 buffers
    ## whatever the compute precision, 8 bytes an element
    total = P * m * n;
    chunk = ceil (m * n / W);
    rounds = ceil (P / W);
    for r = 0:W-1
      lo = floor (r * total / W); hi = floor ((r + 1) * total / W);
      ar = 8 * ((total - (hi - lo)) + (W - 1) * (hi - lo));
      ag = 8 * (W - 1) * (P * chunk + 2 * rounds * m * n);
      printf ("    rank %d sent: all-reduce %.1f MB (closed form %.1f), all-gather %.1f MB (%.1f)\n",
              r, R(r+1).sent(1) / 1e6, ar / 1e6, R(r+1).sent(3) / 1e6, ag / 1e6);
    endfor
  endfor
  printf ("  speed-up at 2 ranks: %.2fx (target >= 1.7x)\n", t(1) / t(2));
  if (nargout > 0)
    out = t(1) / t(2);
  endif
endfunction

function s = rank_body (W, P, m, n)
  comm = muon_comm ("mpi");
  L = zero_layout (repmat ({[m n]}, 1, P), W, "Stage", 3);
  randn ("state", 1 + comm.rank);
  g = arrayfun (@(k) randn (m, n), 1:P, "UniformOutput", false);
  state = [];
  best = Inf;
  for k = 1:3
    muon_collective (comm, "barrier");
    t0 = tic ();
    [R, state] = zero_muon_step (L, g, state, "Variant", "zero3_round_robin", "Comm", comm,
                                 "Precision", "single", "Reference", false);
    best = min (best, toc (t0));
  endfor
  s.rank = comm.rank;
  s.seconds = best;
  s.ns_calls = R.ranks.ns_calls;
  s.sent = R.ranks.sent;
endfunction
