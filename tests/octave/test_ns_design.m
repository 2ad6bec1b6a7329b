## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_ns_design ()
## Suite (run with @code{test test_ns_design}): the Newton-Schulz design lab against
## oracles outside the code under test.
##   - ns_restart_autotune against the peer's own output (fixtures/gram_restart_peer.txt:
##     gram-newton-schulz 0.1.6, simulate_perturbed_gram_newton_schulz + stability_metric,
##     every shipped schedule, every list of up to 2 restarts), 1e-6 relative.
##   - ns_restart_search against the fp32 / fp64 runs of muon_ns it ranks, and the
##     issue's goal: fp32 Gram deepseekv4 within 2e-5 of fp64 on 32 x 64, 64 x 192 and
##     128 x 512 with at most 2 restarts.  The issue's 1.5e-3 .. 5.7e-3 with [2] came from
##     c R R' (SYRK) on an R that general products had moved off symmetry; a plain port of
##     that op order reproduces it, and muon_ns's symmetric products keep [2] near 1e-6.
##   - 'Normalize', "aol": the Turbo-Muon comparison (AOL + the aol schedule, 4 steps,
##     against Frobenius + keller, 5, and Frobenius + aol, 4) in polar error against the
##     fp64 polar factor, median over seeds, bf16 and fp32, at 256 x 1024 and 5 seeds
##     here (demo/ns_turbo_muon.m runs the paper's 512 x 2048 over 20 seeds).
## @end deftypefn

function test_ns_design ()
  help test_ns_design
endfunction

%!function F = read_peer (file)
%!  ## rows "schedule restarts metric"; "-" = no restart; "inf" as Python writes it
%!  txt = fileread (file);
%!  lines = strsplit (txt, "\n");
%!  lines = lines(! cellfun (@isempty, lines) & ! strncmp (lines, "#", 1));
%!  F = struct ("name", {}, "restarts", {}, "metric", {});
%!  for i = 1:numel (lines)
%!    w = strsplit (strtrim (lines{i}), " ");
%!    r = zeros (1, 0);
%!    if (! strcmp (w{2}, "-"))
%!      r = str2double (strsplit (w{2}, ","));
%!    endif
%!    F(end+1) = struct ("name", w{1}, "restarts", r, "metric", str2double (w{3}));
%!  endfor

%!test
%! ## the peer's metric per schedule and restart list, to 1e-6 relative where finite
%! F = read_peer (fullfile (fileparts (which ("test_ns_design")), "fixtures",
%!                          "gram_restart_peer.txt"));
%! names = unique ({F.name});
%! assert (sort (names), sort (muon_coeffs ()));       # every shipped schedule
%! worst = 0;  nfin = 0;  ninf = 0;
%! for k = 1:numel (names)
%!   T = ns_restart_autotune (names{k});
%!   P = F(strcmp ({F.name}, names{k}));
%!   assert (numel (T.metric), numel (P));                # every combination, no more
%!   for j = 1:numel (P)
%!     i = find (cellfun (@(r) isequal (r, P(j).restarts), T.restarts));
%!     assert (numel (i), 1);
%!     if (isfinite (P(j).metric))
%!       d = abs (T.metric(i) / P(j).metric - 1);
%!       worst = max (worst, d);
%!       nfin++;
%!     else
%!       assert (isinf (T.metric(i)));
%!       ninf++;
%!     endif
%!   endfor
%! endfor
%! printf ("    %d schedules, %d finite metrics (max relative difference %.2g), %d Inf on both\n",
%!         numel (names), nfin, worst, ninf);
%! assert (worst <= 1e-6);

%!test
%! ## the Keller triple (DeepSpeed's Gram path): the peer ranks [3] and [2 3] best
%! F = read_peer (fullfile (fileparts (which ("test_ns_design")), "fixtures",
%!                          "gram_restart_peer.txt"));
%! P = F(strcmp ({F.name}, "keller"));
%! [~, best] = ns_restart_autotune ("keller");
%! for k = 1:2
%!   Pk = P(cellfun (@numel, {P.restarts}) == k);
%!   [~, j] = min ([Pk.metric]);
%!   assert (best(k+1).restarts, Pk(j).restarts);
%! endfor

%!function X = gram_rrt (G, C, restarts)
%!  ## fp32 Gram NS (wide G) with general n x n products and c R R' for the polynomial
%!  X = single (G) ./ (single (sqrt (sum (G(:) .^ 2))) + single (1e-7));
%!  C = single (C);
%!  R = X * X.';
%!  Q = [];
%!  for i = 0:rows (C) - 1
%!    a = C(i+1,1); b = C(i+1,2); c = C(i+1,3);
%!    if (i > 0 && any (restarts == i))
%!      X = Q * X;  R = X * X.';  Q = [];
%!    endif
%!    Z = b * R + c * (R * R.');
%!    if (isempty (Q))
%!      Q = Z + a * eye (rows (Z), "single");
%!    else
%!      Q = a * Q + Z * Q;
%!    endif
%!    if (i < rows (C) - 1 && ! any (restarts == i + 1))
%!      RZ = a * R + Z * R;
%!      R = a * RZ + Z * RZ;
%!    endif
%!  endfor
%!  X = double (Q * X);

%!function e = rel_err (X, Xd)
%!  e = norm (double (X) - Xd, "fro") / norm (Xd, "fro");

%!test
%! ## fp32 Gram deepseekv4 against the same iteration in fp64 (the issue's done-when):
%! ## DeepSpeed's [2], the scalar model's best list of <= 2, the end-to-end search's best
%! shapes = [32 64; 64 192; 128 512];
%! G = cell (1, 3);
%! for s = 1:3
%!   randn ("state", s);
%!   G{s} = randn (shapes(s,:));
%! endfor
%! o = {"Method", "gram", "Coefficients", "deepseekv4"};
%! err = @(r, g) rel_err (muon_ns (g, o{:}, "Restarts", r, "Precision", "single"),
%!                       muon_ns (g, o{:}, "Restarts", r));
%! Ta = ns_restart_autotune ("deepseekv4");
%! [T, best] = ns_restart_search (G, "Coefficients", "deepseekv4");
%! lists = {2, Ta.restarts{1}, T.restarts{1}};
%! what = {"default [2]", "scalar model's best", "fp32 search's best"};
%! E = zeros (3, 3);
%! for i = 1:3
%!   for s = 1:3
%!     E(i,s) = err (lists{i}, G{s});
%!   endfor
%!   printf ("    %-20s %-7s %s\n", what{i}, mat2str (lists{i}), sprintf ("%9.3g", E(i,:)));
%! endfor
%! assert (all (E(3,:) <= 2e-5));          # the goal
%! assert (all (E(3,:) <= E(1,:)));
%! assert (max (E(3,:)), T.error(1), -1e-12);
%! assert (numel (T.restarts{1}) <= 2);
%! ## the issue's "today" (1.5e-3 .. 5.7e-3 with [2]) was muon_ns before its symmetric
%! ## products: Z Q, Z R, Z RZ as general products let R drift off symmetry by rounding,
%! ## while the polynomial formed c R R' by SYRK, i.e. c R R' instead of c R R; the
%! ## constant Keller steps amplify that first-order error.  gram_rrt below (plain
%! ## single-precision Octave, that op order) reproduces it; with R exactly symmetric the
%! ## same list [2] stays near 1e-6.
%! Eg = zeros (1, 3);
%! for s = 1:3
%!   Xd = muon_ns (G{s}, o{:}, "Restarts", 2);
%!   Eg(s) = rel_err (gram_rrt (G{s}, muon_coeffs ("deepseekv4"), 2), Xd);
%! endfor
%! printf ("    %-20s %-7s %s\n", "[2], R R' on drifted R", "2", sprintf ("%9.3g", Eg));
%! assert (all (Eg > 1e-3) && all (Eg < 1e-2));
%! assert (all (E(1,:) < 1e-4));

%!test
%! ## Turbo-Muon: AOL lets the 4-step aol schedule replace 5 Frobenius + keller steps
%! cfg = {{"Normalize", "aol", "Coefficients", "aol", "Steps", 4},
%!        {"Normalize", "frobenius", "Coefficients", "keller", "Steps", 5},
%!        {"Normalize", "frobenius", "Coefficients", "aol", "Steps", 4}};
%! precs = {"bf16", "single"};
%! E = zeros (5, 3, 2);
%! for sd = 1:5
%!   randn ("state", sd);
%!   G = randn (256, 1024);
%!   [W, L] = eig (G * G');                     # polar factor (G G')^(-1/2) G, in fp64
%!   P = W * diag (1 ./ sqrt (diag (L))) * W' * G;
%!   for c = 1:3
%!     for q = 1:2
%!       E(sd,c,q) = rel_err (muon_ns (G, cfg{c}{:}, "Precision", precs{q}), P);
%!     endfor
%!   endfor
%! endfor
%! M = squeeze (median (E, 1));
%! what = {"AOL + aol, 4", "Frobenius + keller, 5", "Frobenius + aol, 4"};
%! for c = 1:3
%!   printf ("    %-22s bf16 %.4f  fp32 %.4f\n", what{c}, M(c,1), M(c,2));
%! endfor
%! assert (all (M(1,:) < M(2,:) / 4));        # the claim: one step fewer, no loss
