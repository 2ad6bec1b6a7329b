## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_ns_flops ()
## Suite (run with @code{test test_ns_flops}): @code{ns_flops}, whose model is the core's
## (core/math/ns_flops.c through __muon_ns_flops__), against numbers kept outside it:
##   - fixtures/ns_flops_grid.txt: the counts, term by term, of the Octave derivation that
##     ns_flops.m held before the model moved into the core (commit b09ba68), on 4 shapes
##     (a transposed one among them) x steps 1, 2, 3, 5, 7 x 6 restart lists (none, 0,
##     [2], [1 3], [2 4 6], [0 2 2 5 9]) x general / symmetric: equal exactly;
##   - the same rows once more as one vectorized call per option set (shapes as an array);
##   - what zero_cost counts for one matrix is the same model: a one-matrix plan on one rank
##     gives ns_flops' count for the method zero_cost runs (Gram after its aspect
##     fallback).
## @end deftypefn

function test_ns_flops ()
  help test_ns_flops
endfunction

%!function [G, R] = grid ()
%!  f = fullfile (fileparts (which ("test_ns_flops")), "fixtures", "ns_flops_grid.txt");
%!  G = dlmread (f, " ", 3, 0);
%!  G = G(:, 1:17);
%!  R = {[], 0, 2, [1 3], [2 4 6], [0 2 2 5 9]};

%!test
%! [G, R] = grid ();
%! assert (rows (G), 240);
%! st = {"xxt", "aa", "bx"};
%! gt = {"r0", "z", "q", "r_update", "restart_qx", "restart_xxt", "final_qx"};
%! for k = 1:rows (G)
%!   g = G(k,:);
%!   F = ns_flops (g(1), g(2), "Steps", g(3), "Restarts", R{g(4)}, "Symmetric", logical (g(5)));
%!   got = [F.standard F.gram cellfun(@(t) F.standard_terms.(t), st) ...
%!          cellfun(@(t) F.gram_terms.(t), gt)];
%!   assert (got, g(6:17), 0);
%!   F = ns_flops (g(1), g(2), "Steps", g(3), "Restarts", R{g(4)}, "Symmetric", logical (g(5)), ...
%!                 "Method", "gram");
%!   assert (F.flops, g(7), 0);
%! endfor

%!test
%! ## vectorized: the 4 shapes of each option set in one call
%! [G, R] = grid ();
%! for k = 1:4:rows (G)
%!   g = G(k:k+3,:);
%!   F = ns_flops (g(:,1), g(:,2), "Steps", g(1,3), "Restarts", R{g(1,4)}, ...
%!                 "Symmetric", logical (g(1,5)));
%!   assert ([F.standard F.gram F.gram_terms.restart_qx], g(:,[6 7 15]), 0);
%! endfor

%!test
%! ## zero_cost's NS FLOPs of one matrix on one rank are this model's count
%! for shape = [8 3; 3 12; 5 5]'
%!   for method = {"standard", "gram"}
%!     C = zero_cost (shape', 1, "Design", "reference", "Method", method{1}, "Steps", 4, ...
%!                   "Restarts", [1 3]);
%!     gram = strcmp (method{1}, "gram") && max (shape) / min (shape) > 1;
%!     F = ns_flops (shape(1), shape(2), "Steps", 4, "Restarts", [1 3]);
%!     want = F.standard;
%!     if (gram)
%!       want = F.gram;
%!     endif
%!     assert (C.ranks.ns_flops, want, 0);
%!   endfor
%! endfor

