## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_moe_demo ()
## Suite (run with @code{test test_moe_demo}): the numbers of demo/moe_expert_parallel.m
## against closed facts.  (a) Per-expert Newton-Schulz on a fused (E*M) x N weight equals
## each expert's fp64 SVD polar factor times the per-expert scale to 1e-13, and every
## expert's update has the truth's norm; the fused-as-one and the wrong-axis updates are
## off by more than 0.4 on some expert, and the fused update's norms spread by more than
## 2^(E-2) from the expert with the most tokens to the one with the fewest (the gradients
## differ by 2^(E-1)).  (b) Under ZeRO-2 on 4 simulated ranks, zero_muon_step's
## expert_parallel and zero2_multi_owner with "Experts" equal the reference with the same
## experts to 1e-12 and the fp64 per-expert polar factor of the rank average to 1e-13;
## expert_parallel orthogonalizes every expert page exactly once over the ranks (its NS calls
## sum to the pages plus the dense matrices, and each rank's are its placed experts plus at
## most its dense matrices), zero2_multi_owner more (a straddling expert weight on every
## owner); the reference without "Experts" is off by more than 0.4 on the expert weights.
## @end deftypefn

function test_moe_demo ()
  help test_moe_demo
endfunction

%!shared D
%! here = fileparts (which ("test_moe_demo"));
%! addpath (fullfile (here, "..", "..", "demo"));
%! D = moe_expert_parallel ("Display", "off");

%!test
%! ## (a) per expert: the polar factor of each expert block, scaled as the expert's shape
%! X = D.experts;
%! assert (numel (X), D.E);
%! assert (D.scale, sqrt (max (1, D.M / D.N)));
%! assert (max ([X.err_per_expert]) < 1e-13);
%! assert ([X.norm_per_expert], ones (1, D.E), 1e-13);
%! for r = X
%!   assert (r.sv_per_expert, [1 1], 1e-13);
%! endfor

%!test
%! ## (a) the two mistakes: far from the truth, and uneven over the experts
%! X = D.experts;
%! printf ("    largest error: fused %.2f, wrong axis %.2f; fused norm spread %.1f\n",
%!         max ([X.err_fused]), max ([X.err_wrong_axis]), D.summary.fused.norm_spread);
%! assert (all ([X.err_fused] > 0.4));
%! assert (all ([X.err_wrong_axis] > 0.4));
%! assert (D.summary.fused.norm_spread > 2 ^ (D.E - 2));
%! assert (D.summary.wrong_axis.norm_spread > 2);
%! ## the fused update is a polar factor of the whole weight: its columns are orthonormal
%! ## over all experts together, so the squared norms of the expert blocks sum to N times
%! ## the fused scale squared
%! nf = [X.norm_fused] * D.scale * sqrt (min (D.M, D.N));
%! assert (sum (nf .^ 2), D.N * D.scale_fused ^ 2, 1e-10);

%!test
%! ## (b) the exact designs with experts: the reference and the fp64 truth
%! B = D.b;
%! fx = B.experts > 1;
%! for d = B.designs(1:3)
%!   assert (max (d.R.rel_err) <= 1e-12, "%s: rel_err %g", d.variant, max (d.R.rel_err));
%!   assert (max (d.err_ref) <= 1e-12);
%!   assert (max (d.err_truth(fx)) < 1e-13, "%s: vs truth %g", d.variant, max (d.err_truth));
%! endfor
%! assert (all (B.fused_vs_ep > 0.4));
%! assert (all (B.designs(4).err_truth(fx) > 0.4));

%!test
%! ## (b) each expert orthogonalized once, on its owner; multi-owner repeats straddlers
%! B = D.b;
%! ep = B.designs(1);
%! assert (strcmp (ep.variant, "expert_parallel"));
%! npages = sum (B.experts);
%! ns = [ep.R.ranks.ns_calls];
%! assert (sum (ns), npages);                          # dense matrices count 1 each
%! assert (all (B.ep_dense >= 0));
%! assert (sum (B.ep_dense), nnz (B.experts == 1));
%! for p = find (B.experts > 1)                        # a placement of every expert, once
%!   assert (sort (accumarray (B.ep_owner{p}(:) + 1, 1, [B.world 1])).', ...
%!           repmat (B.experts(p) / B.world, 1, B.world));
%! endfor
%! mo = B.designs(2);
%! assert (strcmp (mo.variant, "zero2_multi_owner"));
%! extra = 0;
%! for p = 1:numel (B.shapes)
%!   extra += (numel (mo.R.owners{p}) - 1) * B.experts(p);
%! endfor
%! assert (sum (mo.pages), npages + extra);
%! ## each owner runs NS on the whole matrix, every page of it: its measured calls
%! calls = zeros (1, B.world);
%! for p = 1:numel (B.shapes)
%!   calls(mo.R.owners{p} + 1) += B.experts(p);
%! endfor
%! assert ([mo.R.ranks.ns_calls], calls);
%! assert (extra > 0);
%! assert (sum (mo.pages) > sum (ns));
