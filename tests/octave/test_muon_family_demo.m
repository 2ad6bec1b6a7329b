## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_muon_family_demo ()
## Suite (run with @code{test test_muon_family_demo}): the numbers of demo/muon_family.m
## against closed facts.  (a) Every preset of @code{muon_optimizer ("presets")} trained;
## AdaMuon's official first update has RMS 0.2 exactly (its RMS matching), NorMuon of
## zichongli5 the RMS of Keller's Muon (it keeps ||O|| and has the Keller scale), Dion2
## updates ceil (0.25 * 24) = 6 rows, Dion's first update from a Gaussian Q is far from
## orthogonal (one power step: a singular value spread above 5) while Keller's NS keeps
## its spread below 2; every preset lowers the loss by 10x.  (b) On a wide matrix the per-row
## second moment (state m x 1) equalizes the rows, the per-column one (state 1 x n) the
## columns; the per-row one barely moves the direction (exactly not at all for the
## fp64 polar factor, whose rows are orthonormal), the per-column one moves it by 0.3.
## @end deftypefn

function test_muon_family_demo ()
  help test_muon_family_demo
endfunction

%!shared D
%! here = fileparts (which ("test_muon_family_demo"));
%! addpath (fullfile (here, "..", "..", "demo"));
%! D = muon_family ("Display", "off");

%!test
%! ## (a) every preset, its first update's conventions
%! P = D.presets;
%! assert ({P.name}, muon_optimizer ("presets")(:,1).');
%! r = @(name) P(strcmp ({P.name}, name));
%! assert (r ("adamuon_official").rms, 0.2, 1e-9);
%! assert (r ("normuon_zichongli5").rms, r ("keller").rms, 1e-8 * r ("keller").rms);
%! assert (r ("dion2").rank, ceil (0.25 * D.m));
%! assert ([P(! strcmp ({P.name}, "dion2")).rank], repmat (D.m, 1, numel (P) - 1));
%! assert (r ("keller").spread < 2);                   # the quintic's band, about [0.6, 1.2]
%! assert (r ("dion_reference").spread > 5);
%! printf ("    final loss / first: %s\n", sprintf ("%.2g ", [P.ratio]));
%! assert (all ([P.ratio] < 0.1));
%! for p = P
%!   assert (p.rms * p.lr, D.rms0, 1e-12);
%!   assert (numel (p.loss), D.steps + 1);
%! endfor

%!test
%! ## (b) the axis discrepancy on a wide matrix
%! A = D.axis;
%! assert (A.m < A.n);
%! assert (A.state_row, [A.m 1]);
%! assert (A.state_col, [1 A.n]);
%! assert (A.row_rms(:,2), ones (A.m, 1), 1e-12);       # per-row V: every row RMS 1
%! assert (A.col_rms(3,:), ones (1, A.n), 1e-12);       # per-column V: every column RMS 1
%! assert (A.dev_row < 0.1);
%! assert (A.dev_col > 0.3);
%! ## the exact polar factor of a wide matrix has orthonormal rows: per-row V is a scale
%! [u, ~, v] = svd (A.O, "econ");
%! O = u * v';
%! Z = O ./ sqrt (mean (O .^ 2, 2));
%! assert (norm (Z / norm (Z, "fro") - O / norm (O, "fro"), "fro") < 1e-13);
