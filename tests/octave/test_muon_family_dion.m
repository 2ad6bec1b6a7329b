## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_muon_family_dion.m - Dion and Dion2 of the Muon family (issue 27; split from
## test_muon_family.m, the presets and the other algorithms) against closed forms and
## loops written here: Dion at full rank with mu = 0 is the fp64 SVD polar factor and its
## power iteration converges to it; Dion2 updates the top ceil (0.25 m) rows by L1 norm and
## leaves the rest to the decay; Dion's products and QR (ordered_mtimes, ordered_qr) are
## the in-order sums bitwise and do not depend on the thread count; its fixed Gaussian Q
## leaves the caller's random stream as it was.
## Run: test test_muon_family_dion (tests/octave/run_all.m).

%!test
%! ## Dion at full rank with mu = 0: from Q0 = the right singular vectors, U = sqrt (m/n) U V'
%! ## (the fp64 SVD polar factor) and the momentum is emptied; from a random Q0 the power
%! ## iteration on a fixed G converges to it
%! randn ("state", 11);
%! for sh = {[10 16], [16 10]}
%!   G = randn (sh{1});
%!   [m, n] = size (G);
%!   [Us, ~, Vs] = svd (G, "econ");
%!   V0 = Vs;
%!   if (m < n)
%!     V0 = Us;                                  # Dion works on G' when m < n
%!   endif
%!   o = {"Algorithm", "dion", "Beta", 0, "Scale", "unit_rms"};
%!   [U, s] = muon_update (G, [], o{:}, "DionQ0", V0(:, end:-1:1) .* (-1) .^ (1:min (m, n)));
%!   assert (U, sqrt (m / n) * Us * Vs', 1e-8);     # Q = R ./ (colnorm + 1e-8): 1e-8 / sigma
%!   assert (norm (s.momentum, "fro") < 1e-12 * norm (G, "fro"));
%!   ## power iteration on a fixed G (mu = 0 empties M each step): from the fixed-seed
%!   ## Gaussian Q it converges to the polar factor at the rate of the singular value ratios
%!   k = min (m, n);
%!   [A, ~] = qr (randn (m, k), 0);
%!   [C, ~] = qr (randn (n, k), 0);
%!   G = A * diag (2 .^ (-(0:k-1) / 2)) * C';
%!   [Us, ~, Vs] = svd (G, "econ");
%!   s = [];
%!   for k = 1:80
%!     [U, s] = muon_update (G, s, o{:});
%!   endfor
%!   err = norm (U / sqrt (m / n) - Us * Vs', "fro") / norm (Us * Vs', "fro");
%!   printf ("    Dion %dx%d, 80 power steps from the Gaussian Q: polar error %.1e\n", m, n, err);
%!   assert (err < 1e-6);              # the floor: Q's 1e-8 / sigma_min (0.044 here)
%! endfor

%!test
%! ## Dion2: the top ceil (0.25 m) rows by L1 norm of M (columns when m > n) are updated,
%! ## their momentum decayed by 0.95; the rest: no update, momentum M + G, and in
%! ## muon_step only the decay W (1 - lr wd)
%! randn ("state", 12);
%! G = randn (8, 20);
%! G(3,:) *= 10;  G(6,:) *= 5;                  # rows 3 and 6 have the largest L1 norms
%! [U, s] = muon_update (G, [], "Preset", "dion2");
%! sel = [3 6];  rest = setdiff (1:8, sel);
%! assert (all (all (U(rest,:) == 0)));
%! assert (s.momentum(rest,:), G(rest,:));
%! assert (s.momentum(sel,:), 0.95 * G(sel,:));
%! O = muon_ns (G(sel,:), "Coefficients", "polar_express_dion", "NormScale", 1.02, "Eps", 1e-8);
%! assert (U(sel,:), sqrt (8 / 20) * O, 1e-14);
%! [Ut, st] = muon_update (G', [], "Preset", "dion2");    # tall: columns
%! assert (Ut, (20 / 8) * U', 1e-14);               # the shape factor sqrt (m/n) turns over
%! P = struct ("W", randn (8, 20));
%! opt = muon_optimizer (P, "Preset", "dion2", "MuonLR", 0.1, "MuonWeightDecay", 0.2);
%! P2 = muon_step (opt, P, struct ("W", G));
%! assert (P2.W(rest,:), P.W(rest,:) * (1 - 0.1 * 0.2));
%! assert (P2.W(sel,:), P.W(sel,:) * (1 - 0.1 * 0.2) - 0.1 * U(sel,:), 1e-15);

%!test
%! ## Dion's products and QR (ordered_mtimes, ordered_qr): each entry the dot product
%! ## summed in order, as a scalar loop here gives it, bitwise (every branch: the loop over
%! ## k, over the columns, over the rows); the QR factor is qr's within rounding
%! randn ("state", 18);
%! for sz = {[7 3 9], [9 8 4], [4 8 9]}
%!   A = randn (sz{1}(1:2));  B = randn (sz{1}(2:3));
%!   C = zeros (rows (A), columns (B));
%!   for i = 1:rows (A)
%!     for j = 1:columns (B)
%!       for t = 1:columns (A)
%!         C(i,j) = C(i,j) + A(i,t) * B(t,j);
%!       endfor
%!     endfor
%!   endfor
%!   assert (isequal (test_options ("private", "ordered_mtimes", A, B), C));
%! endfor
%! Z = randn (20, 4);  Z(:,2) = 0;
%! for A = {randn(50, 7), randn(160, 96), randn(30, 30), randn(12, 1), Z, single(randn(40, 9))}
%!   [P0, ~] = qr (A{1}, 0);
%!   P = test_options ("private", "ordered_qr", A{1});
%!   assert (P, P0, 100 * eps (class (A{1})) * sqrt (rows (P0)));
%! endfor

%!test
%! ## Dion's bits do not depend on the thread count: OPENBLAS_NUM_THREADS 1 and 2 in
%! ## separate processes (Octave's own qr and products differed by 1e-14 there)
%! [a, b] = thread_runs (["randn ('state', 5); G = randn (96, 160); " ...
%!                        "[U, s] = muon_update (G, [], 'Preset', 'dion_reference'); " ...
%!                        "U2 = muon_update (randn (96, 160), s, 'Preset', 'dion_reference'); " ...
%!                        "save ('-binary', FILE, 'U', 'U2');"]);
%! assert (isequal (a.U, b.U) && isequal (a.U2, b.U2));

%!test
%! ## Dion's fixed Gaussian Q leaves the caller's stream as it was, under the old generator
%! ## (randn ("seed", x)) as under the twister, and does not depend on which is in use
%! G = reshape (sin (1:35), 5, 7);
%! for gen = {"seed", "state"}
%!   randn (gen{1}, 3);
%!   randn (5, 7);
%!   r1 = randn (1, 3);
%!   randn (gen{1}, 3);
%!   randn (5, 7);
%!   U.(gen{1}) = muon_update (G, [], "Algorithm", "dion");
%!   assert (randn (1, 3), r1);
%! endfor
%! assert (U.seed, U.state);
