## -*- texinfo -*-
## @deftypefn {} {} test_moe_demo ()
## Suite (run with @code{test test_moe_demo}): the numbers of demo/moe_expert_parallel.m
## against closed facts.  (a) Per-expert Newton-Schulz on a fused (E*M) x N weight equals
## each expert's fp64 SVD polar factor times the per-expert scale to 1e-13, and every
## expert's update has the truth's norm; the fused-as-one and the wrong-axis updates are
## off by more than 0.4 on some expert, and the fused update's norms spread by more than
## 2^(E-2) from the expert with the most tokens to the one with the fewest (the gradients
## differ by 2^(E-1)).
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
