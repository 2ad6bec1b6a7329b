## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## bench_zero - `make bench`: what a simulated distributed Muon step costs over the Newton-
## Schulz work it contains.  zero_muon_step, 8 simulated ranks, 16 matrices of 768 x 2048,
## fp32 standard (keller), variant zero3_round_robin (each matrix orthogonalized once in
## all), against muon_ns on the same matrices as one 768 x 2048 x 16 stack; the time of the
## second and later steps (the first plans and allocates), with 'Reference' false (target
## <= 1.3x) and 'Reference' true (the DDP reference in the same call, each matrix once more:
## target <= 2.3x).  The machine may be shared: the three are timed interleaved, N rounds,
## and each ratio is the best over the rounds of the step over that round's muon_ns.
## Printed, not asserted.
##
##   cd tests/bench && octave-cli --eval bench_zero

function out = bench_zero (rounds)
  if (nargin < 1)
    rounds = 5;
  endif
  here = fileparts (mfilename ("fullpath"));
  root = fileparts (fileparts (here));
  addpath (fullfile (root, "inst"), fullfile (root, "build", "mex"));
  W = 8; P = 16; m = 768; n = 2048;
  L = zero_layout (repmat ({[m n]}, 1, P), W);
  randn ("state", 7);
  g = reshape (arrayfun (@(k) randn (m, n), 1:W*P, "UniformOutput", false), W, P);
  G = single (cat (3, g{1,:}));
  o = {"Variant", "zero3_round_robin", "Precision", "single", "Method", "standard"};
  printf ("\nbench_zero: zero3_round_robin, %d simulated ranks, %d matrices %d x %d, fp32\n",
          W, P, m, n);
  [~, s0] = zero_muon_step (L, g, [], o{:}, "Reference", false);   # first steps: plan
  [~, s1] = zero_muon_step (L, g, [], o{:}, "Reference", true);
  t = zeros (rounds, 3);
  for k = 1:rounds
    tic; X = muon_ns (G, "Precision", "single", "Method", "standard"); t(k,1) = toc;
    tic; [R0, s0] = zero_muon_step (L, g, s0, o{:}, "Reference", false); t(k,2) = toc;
    tic; [R1, s1] = zero_muon_step (L, g, s1, o{:}, "Reference", true); t(k,3) = toc;
  endfor
  ratio = min (t(:,2:3) ./ t(:,1), [], 1);   # each round against its own muon_ns
  printf ("  muon_ns on the 768 x 2048 x 16 stack:     %.3f s (best of %d)\n", min (t(:,1)),
          rounds);
  printf ("  step, 'Reference' false:                 %.3f s  %.2fx (target <= 1.3x)\n",
          min (t(:,2)), ratio(1));
  printf ("  step, 'Reference' true (same call):      %.3f s  %.2fx (target <= 2.3x)\n",
          min (t(:,3)), ratio(2));
  printf ("  NS calls per rank %s (reference counts W x those of DDP); plans built %d\n",
          mat2str ([R0.ranks.ns_calls]), R1.plans_built);
  printf ("  max rel_err vs the reference: %.2g\n", max (R1.rel_err));
  if (nargout > 0)
    out = ratio;
  endif
endfunction
