## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_muon_update.m - muon_update against independent oracles: closed-form momentum loops,
## muon_ns of a Nesterov input built here times the closed-form scale, separate calls for
## experts / split rows / conv weights, and the eps-floor behaviour (MUON_FACTS 1.4, 2, 3, 5,
## 6.2 (Emerging-Optimizers #229), 8).  Run: test test_muon_update (tests/octave/run_all.m).
## Figures are printed for the record; the asserts hold the claims.

%!shared G, b
%! randn ("state", 42);
%! G = randn (24, 40);
%! b = 0.95;

%!test
%! ## momentum after k steps equals the closed-form loop, both forms, bitwise
%! randn ("state", 1);
%! gs = randn (8, 12, 5);
%! for form = {"ema", "sgd"}
%!   s = [];
%!   M = zeros (8, 12);
%!   for k = 1:5
%!     g = gs(:,:,k);
%!     [~, s] = muon_update (g, s, "MomentumForm", form{1}, "Beta", 0.9);
%!     if (strcmp (form{1}, "ema"))
%!       M = 0.9 * M + (1 - 0.9) * g;
%!     else
%!       M = 0.9 * M + g;
%!     endif
%!     assert (isequal (s.momentum, M), true);
%!     assert (s.step, k);
%!   endfor
%! endfor

%!test
%! ## U = scale * muon_ns (Nesterov input built here), each form, with and without Nesterov
%! randn ("state", 2);
%! g1 = randn (24, 40);  g2 = randn (24, 40);
%! for form = {"ema", "sgd"}
%!   for nest = [true false]
%!     o = {"MomentumForm", form{1}, "Nesterov", nest, "Scale", "spectral"};
%!     [~, s] = muon_update (g1, [], o{:});
%!     [U, s] = muon_update (g2, s, o{:});
%!     if (strcmp (form{1}, "ema"))
%!       M = b * (b * 0 + (1 - b) * g1) + (1 - b) * g2;
%!       X = (1 - b) * g2 + b * M;
%!     else
%!       M = b * (b * 0 + g1) + g2;
%!       X = g2 + b * M;
%!     endif
%!     if (! nest)
%!       X = M;
%!     endif
%!     assert (isequal (s.momentum, M), true);
%!     assert (U, sqrt (40) * muon_ns (X), 4 * eps * sqrt (40));
%!   endfor
%! endfor

%!test
%! ## each scale rule equals its closed form: the ratio of U to the muon_ns output
%! rules = {"keller", @(r, c) sqrt (max (1, r / c));
%!          "rms", @(r, c) 0.2 * sqrt (max (r, c));
%!          "spectral", @(r, c) sqrt (max (r, c));
%!          "unit_rms", @(r, c) sqrt (r / c);
%!          "none", @(r, c) 1};
%! for A = {G, G.', G(1:20, 1:20)}
%!   g = A{1};
%!   [r, c] = size (g);
%!   X = muon_ns ((1 - b) * g + b * (b * 0 + (1 - b) * g));  # first Nesterov input
%!   for k = 1:rows (rules)
%!     for f = [1 2.5]
%!       U = muon_update (g, [], "Scale", rules{k,1}, "ScaleFactor", f);
%!       want = f * rules{k,2} (r, c);
%!       ratio = U ./ X;
%!       assert (ratio(abs (X) > 1e-3), want * ones (nnz (abs (X) > 1e-3), 1), 4 * eps * want);
%!     endfor
%!   endfor
%! endfor

%!test
%! ## EMA and SGD momentum give the same NS output with Eps 0 (MUON_FACTS 8) ...
%! randn ("state", 3);
%! gs = randn (24, 40, 4);
%! for e = {0, 1e-7}
%!   se = [];  ss = [];
%!   for k = 1:4
%!     [Ue, se] = muon_update (gs(:,:,k), se, "MomentumForm", "ema", "Precision", "double", "Eps", e{1});
%!     [Us, ss] = muon_update (gs(:,:,k), ss, "MomentumForm", "sgd", "Precision", "double", "Eps", e{1});
%!   endfor
%!   d = norm (Ue - Us, "fro") / norm (Us, "fro");
%!   Xe = (1 - b) * gs(:,:,4) + b * se.momentum;   # the EMA Nesterov input of the last step
%!   if (e{1} == 0)
%!     printf ("    EMA vs SGD, Eps 0: relative difference %.2e\n", d);
%!     assert (d < 1e-12);
%!     assert (se.momentum, (1 - b) * ss.momentum, 1e-14);
%!   else
%!     ## ... and with the default eps differ by O(eps / ||X||), X the smaller (EMA) input
%!     printf ("    EMA vs SGD, Eps 1e-7: relative difference %.2e, eps/||X_ema|| = %.2e\n", ...
%!             d, 1e-7 / norm (Xe, "fro"));
%!     assert (d > 1e-12 && d < 10 * 1e-7 / norm (Xe, "fro"));
%!   endif
%! endfor

%!test
%! ## near the eps floor (||G|| ~ 1e-8) EMA and SGD differ visibly
%! g = G / norm (G, "fro") * 1e-8;
%! [Ue, se] = muon_update (g, [], "MomentumForm", "ema");
%! [Us, ss] = muon_update (g, [], "MomentumForm", "sgd");
%! d = norm (Ue - Us, "fro") / norm (Us, "fro");
%! printf ("    EMA vs SGD at ||G|| = 1e-8: relative difference %.3f (||U_ema|| %.3f, ||U_sgd|| %.3f)\n", ...
%!         d, norm (Ue, "fro"), norm (Us, "fro"));
%! assert (d > 0.1);
%! [Ue, se] = muon_update (g, [], "MomentumForm", "ema", "Eps", 0);
%! [Us, ss] = muon_update (g, [], "MomentumForm", "sgd", "Eps", 0);
%! assert (norm (Ue - Us, "fro") / norm (Us, "fro") < 1e-12);

%!test
%! ## a fused (E*M) x N weight with Experts E equals E separate calls, bitwise, over steps;
%! ## a 3-D M x N x E stack too; treating the fused stack as one matrix differs
%! randn ("state", 4);
%! E = 4;  m = 6;  n = 10;
%! W = randn (E * m, n, 3) .* [1; 10; 0.1; 1000](kron (1:E, ones (1, m)));
%! sf = [];  s3 = [];  se = cell (1, E);
%! for k = 1:3
%!   [Uf, sf] = muon_update (W(:,:,k), sf, "Experts", E, "Scale", "rms");
%!   [U3, s3] = muon_update (permute (reshape (W(:,:,k).', n, m, E), [2 1 3]), s3, "Scale", "rms");
%!   for e = 1:E
%!     [Ue{e}, se{e}] = muon_update (W((e-1)*m+1:e*m, :, k), se{e}, "Scale", "rms");
%!   endfor
%! endfor
%! for e = 1:E
%!   rr = (e-1)*m+1:e*m;
%!   assert (isequal (Uf(rr,:), Ue{e}), true);
%!   assert (isequal (sf.momentum(rr,:), se{e}.momentum), true);
%! endfor
%! for e = 1:E
%!   assert (isequal (U3(:,:,e), Ue{e}), true);
%! endfor
%! assert (sf.step, 3);
%! U1 = muon_update (W(:,:,1), [], "Scale", "rms");       # one 24 x 10 matrix
%! U4 = muon_update (W(:,:,1), [], "Scale", "rms", "Experts", E);
%! d = norm (U4 - U1, "fro") / norm (U1, "fro");
%! printf ("    experts vs one matrix: relative difference %.3f\n", d);
%! assert (d > 0.5);

%!test
%! ## SplitRows equals per-block calls bitwise (alone, and inside experts)
%! sr = [4 12 8];
%! [U, s] = muon_update (G, [], "SplitRows", sr, "Scale", "unit_rms");
%! [U, s] = muon_update (2 * G, s, "SplitRows", sr, "Scale", "unit_rms");
%! r0 = 0;
%! for k = 1:numel (sr)
%!   rr = r0+1:r0+sr(k);
%!   [Uk, sk] = muon_update (G(rr,:), [], "Scale", "unit_rms");
%!   [Uk, sk] = muon_update (2 * G(rr,:), sk, "Scale", "unit_rms");
%!   assert (isequal (U(rr,:), Uk), true);
%!   assert (isequal (s.momentum(rr,:), sk.momentum), true);
%!   r0 += sr(k);
%! endfor
%! U = muon_update (G, [], "Experts", 2, "SplitRows", [5 7]);
%! for rr = {1:5, 6:12, 13:17, 18:24}
%!   assert (isequal (U(rr{1},:), muon_update (G(rr{1},:), [])), true);
%! endfor
%! d = norm (U - muon_update (G, []), "fro") / norm (U, "fro");
%! printf ("    split rows vs whole matrix: relative difference %.3f\n", d);

%!test
%! ## a 4-D conv weight equals the flattened 2-D call; 'last_two' changes only the scale
%! randn ("state", 5);
%! W = randn (64, 2, 5, 3);
%! W2 = reshape (W, 64, 30);
%! for rule = {"keller", "spectral", "unit_rms"}
%!   [U, s] = muon_update (W, [], "Scale", rule{1});
%!   [U, s] = muon_update (2 * W, s, "Scale", rule{1});
%!   [Uf, sf] = muon_update (W2, [], "Scale", rule{1});
%!   [Uf, sf] = muon_update (2 * W2, sf, "Scale", rule{1});
%!   assert (size (U), size (W));
%!   assert (isequal (U, reshape (Uf, size (W))), true);
%!   assert (isequal (s.momentum, reshape (sf.momentum, size (W))), true);
%!   Ul = muon_update (W, [], "Scale", rule{1}, "ConvScale", "last_two");
%!   Uo = muon_update (W, [], "Scale", rule{1});
%!   switch (rule{1})
%!     case "keller",   ratio = sqrt (max (1, 5/3)) / sqrt (max (1, 64/30));
%!     case "spectral", ratio = sqrt (5) / sqrt (64);
%!     case "unit_rms", ratio = sqrt (5/3) / sqrt (64/30);
%!   endswitch
%!   assert (Ul, ratio * Uo, 4 * eps * max (abs (Uo(:))));
%!   if (strcmp (rule{1}, "keller"))
%!     printf ("    conv 64x2x5x3, keller: last_two scale / flattened scale = %.4f\n", ratio);
%!   endif
%! endfor
%! ## on a 2-D weight 'last_two' is the plain rule
%! assert (isequal (muon_update (G, [], "ConvScale", "last_two"), muon_update (G, [])), true);

%!test
%! ## G is never modified (the peers overwrite grad with the Nesterov input)
%! for A = {G, single(G), randn(6, 3, 2, 2), G(:,:,[1 1])}
%!   g = A{1};
%!   g0 = g;
%!   [U, s] = muon_update (g, []);
%!   [U, s] = muon_update (g, s, "MomentumForm", "ema");
%!   assert (isequal (g, g0), true);
%!   assert (class (U), class (g));
%!   assert (size (U), size (g));
%! endfor
%! g = G;  g0 = g;
%! U = muon_update (g, [], "Experts", 3, "SplitRows", [2 6]);
%! assert (isequal (g, g0), true);

%!test
%! ## the eps floor (Emerging-Optimizers #229): ||G|| = 1e-9 and 1e-10 with eps 1e-7 give a
%! ## degenerate output (NS sees ||X|| ~ 0.01 and 0.001 and stays in its linear regime: U is
%! ## a scaled copy of G, its singular values spread as G's) while Eps 0 is scale-invariant.
%! ## 6 Keller steps: their linear gain 3.4445^6 = 1670 reproduces the reported 16.1 and 1.67.
%! randn ("state", 6);
%! A = single (randn (1024, 2048));                               # fp32, as EO
%! o = {"MomentumForm", "sgd", "Nesterov", false, "Steps", 6};   # first NS input = G
%! ideal = sqrt (1024);
%! svals = @(U) sqrt (max (eig (double (U) * double (U).'), 0));
%! for nrm = [1e-9 1e-10]
%!   g = A / norm (A, "fro") * nrm;
%!   U = muon_update (g, [], o{:});
%!   U0 = muon_update (g, [], o{:}, "Eps", 0);
%!   sv = svals (U);  sv0 = svals (U0);
%!   printf ("    ||G|| = %.0e: ||U|| = %.2f (eps 1e-7), %.2f (Eps 0), ideal %.1f; sv range [%.3g, %.3g] vs [%.3f, %.3f]\n", ...
%!           nrm, norm (U, "fro"), norm (U0, "fro"), ideal, min (sv), max (sv), min (sv0), max (sv0));
%!   assert (norm (U, "fro") < 0.6 * ideal);
%!   assert (max (sv) / min (sv) > 4);
%!   assert (abs (norm (U0, "fro") / ideal - 1) < 0.2);
%!   assert (min (sv0) > 0.5 && max (sv0) < 1.3);
%! endfor

%!test
%! ## a diverged block is told (muonlab:diverged), each block against its own scale: CANS in
%! ## bf16 sets off the second split block of the second expert of this fused weight (the
%! ## SVD: 1200 where its map gives 1.12), the other three stay sound
%! randn ("state", 1);
%! Gf = [randn(20, 20); randn(20, 20)];
%! randn ("state", 2);
%! Gf = [Gf; randn(20, 20)];
%! randn ("state", 4);
%! Gf = [Gf; randn(20, 20)];              # the last block of the second expert diverges
%! o = {"Coefficients", "cans", "Experts", 2, "SplitRows", [20 20]};
%! warning ("error", "muonlab:diverged", "local");
%! try
%!   muon_update (Gf, [], o{:}, "Precision", "bf16");
%!   error ("no warning");
%! catch err
%!   assert (err.identifier, "muonlab:diverged");
%!   assert (regexp (err.message, '^muon_update: 1 block\(s\) of the update have a singular value of [0-9.e+]+ or more, where this schedule and scale give at most 1.12: the iteration diverged'));
%! end_try_catch
%! warning ("off", "muonlab:diverged", "local");
%! U = muon_update (Gf, [], o{:}, "Precision", "bf16");
%! sv = arrayfun (@(k) max (svd (U(20*k-19:20*k,:))), 1:4);
%! assert (sv(4) > 1000 && all (sv(1:3) < 1.5));
%! ## the same blocks in single: sound, no warning
%! warning ("error", "muonlab:diverged", "local");
%! U = muon_update (Gf, [], o{:}, "Precision", "single");
%! assert (max (svd (U(61:80,:))) < 1.13);

%!test
%! ## Muon with NormScale or EpsPlacement max (run on the Octave side) is checked too:
%! ## NormScale 0.6 puts a rank-one page's singular value at 1/0.6, where Keller's map
%! ## explodes (3 steps: 3.4e26); a random page (singular values below 0.3) stays sound
%! randn ("state", 1);
%! Gw = randn (64, 256);
%! G1 = randn (64, 1) * randn (1, 256);
%! warning ("error", "muonlab:diverged", "local");
%! for o = {{"NormScale", 0.6}, {"NormScale", 0.6, "EpsPlacement", "max"}}
%!   try
%!     muon_update (G1, [], "Method", "gram", "Precision", "double", "Steps", 3, o{1}{:});
%!     error ("no warning");
%!   catch err
%!     assert (err.identifier, "muonlab:diverged");
%!   end_try_catch
%!   muon_update (Gw, [], "Method", "gram", "Precision", "double", "Steps", 3, o{1}{:});
%! endfor

%!test
%! ## no false alarm on sound updates: every scale rule (the largest, rms, puts a 8 x 300
%! ## block's singular values at 3.5), experts, split rows, a stack, a conv weight, in
%! ## every precision
%! warning ("error", "muonlab:diverged", "local");
%! randn ("state", 5);
%! for p = {"double", "single", "bf16", "fp16"}
%!   for sc = {"keller", "rms", "spectral", "unit_rms", "none"}
%!     o = {"Precision", p{1}, "Scale", sc{1}, "ScaleFactor", 3};
%!     muon_update (randn (8, 300), [], o{:});
%!     muon_update (randn (300, 8), [], o{:});
%!     muon_update (randn (24, 16), [], o{:}, "Experts", 3, "SplitRows", [2 6]);
%!     muon_update (randn (12, 20, 3), [], o{:}, "Method", "gram");
%!     muon_update (randn (6, 4, 3, 3), [], o{:}, "ConvScale", "last_two");
%!   endfor
%! endfor

## Muon on vectors (moved from inst/muon_update.m, which passed 500 lines)

%!test
%! ## a 1 x n or n x 1 G (torch.optim.Muon, Keller and DeepSpeed: any 2-D tensor): its
%! ## one singular value s_0 = ||X|| / (||X|| + 1e-7), X = (1 - beta^2) G at the first
%! ## EMA Nesterov step, mapped by Keller's triple 5 times, U = scale s_5 X / ||X||, the
%! ## scale from the block's r x c as the peers write it: torch "original" sqrt (max (1,
%! ## r/c)), "match_rms_adamw" 0.2 sqrt (max (r, c)), EO "spectral" sqrt (max (r, c)),
%! ## "spectral_unclamped" sqrt (r/c) (MUON_FACTS 5, 6.3)
%! g = [0.3 -1.2 0.7 2.1 -0.4 0.9 -1.6 0.05];
%! X = (1 - 0.95^2) * g;
%! O = ref_vec_ns (X);
%! for t = {{"keller", 1, sqrt(8)}, {"rms", 0.2 * sqrt(8), 0.2 * sqrt(8)}, ...
%!          {"spectral", sqrt(8), sqrt(8)}, {"unit_rms", sqrt(1/8), sqrt(8)}, {"none", 1, 1}}
%!   [U, st] = muon_update (g, [], "Scale", t{1}{1});
%!   assert (U, t{1}{2} * O, 64 * eps);
%!   assert (st.momentum, 0.05 * g, eps);
%!   assert (muon_update (g.', [], "Scale", t{1}{1}), t{1}{3} * O.', 64 * eps);
%! endfor
%! ## a second step from that state; a stack of rows, experts and split blocks of one row
%! ## each: every page or block is its own vector (SplitRows [1 1] of a 2 x 8: two rows)
%! [U1, st] = muon_update (g, []);
%! [U2, st2] = muon_update (-g(end:-1:1), st);
%! assert (st2.step, 2);
%! assert (U2, muon_ns (0.95 * st2.momentum + 0.05 * -g(end:-1:1)), 64 * eps);
%! S = cat (3, g, g(end:-1:1));
%! U = muon_update (S, [], "Scale", "rms");
%! assert (U(:,:,1), 0.2 * sqrt (8) * O, 64 * eps);
%! assert (U(:,:,2), 0.2 * sqrt (8) * O(end:-1:1), 64 * eps);
%! W = [g; g(end:-1:1)];               # one norm: one s_5
%! assert (muon_update (W, [], "Experts", 2), [O; O(end:-1:1)], 64 * eps);
%! assert (muon_update (W, [], "SplitRows", [1 1]), [O; O(end:-1:1)], 64 * eps);
%! ## a 1 x 1: sign (g) s_5; a conv weight of one output channel, 1 x (in*kh*kw)
%! assert (muon_update (-2, []), ref_vec_ns (-0.0975 * 2), 4 * eps);
%! C = reshape (g, 1, 2, 2, 2);
%! assert (muon_update (C, []), reshape (O, 1, 2, 2, 2), 64 * eps);


%!test
%! ## Dion on a 4-D G with more rows than columns: a starting Q written in torch's layout
%! ## (p.reshape (out, -1): kw fastest) gives torch's update once its rows are reordered as
%! ## muon_update's help says (muonlab flattens with in fastest; the same Q as given is
%! ## another subspace: 134% of the norm apart)
%! randn ("state", 4);
%! G = randn (30, 2, 3, 3);
%! Q0 = randn (18, 2);
%! [in, kh, kw] = deal (2, 3, 3);
%! Gt = reshape (permute (G, [1 4 3 2]), 30, []);
%! Ut = muon_update (Gt, [], "Preset", "dion_reference", "Rank", 2, "DionQ0", Q0);
%! Qm = Q0(reshape (permute (reshape (0:in*kh*kw-1, kw, kh, in), [3 2 1]), [], 1) + 1, :);
%! U4 = muon_update (G, [], "Preset", "dion_reference", "Rank", 2, "DionQ0", Qm);
%! assert (reshape (permute (U4, [1 4 3 2]), 30, []), Ut, 1e-14 * norm (Ut, "fro"));
%! U0 = muon_update (G, [], "Preset", "dion_reference", "Rank", 2, "DionQ0", Q0);
%! assert (norm (reshape (permute (U0, [1 4 3 2]), 30, []) - Ut, "fro") > 0.5 * norm (Ut, "fro"));

%!test
%! ## an option the chosen algorithm reads is taken, a default given among them too (the
%! ## same update as without it); a preset's own settings (every convention, read or not)
%! ## are not options given; Dion2's momentum M += G takes no Beta (muon_update's help)
%! randn ("state", 21);
%! g = randn (8, 12);
%! assert (muon_update (g, [], "Algorithm", "normuon", "SignBeforeNS", false),
%!         muon_update (g, [], "Algorithm", "normuon"));
%! assert (muon_update (g, [], "Algorithm", "namo", "Beta2", 0.95, "VEps", 1e-8),
%!         muon_update (g, [], "Algorithm", "namo"));
%! assert (muon_update (g, [], "Algorithm", "dion", "Rank", 8, "Beta", 0.95),
%!         muon_update (g, [], "Algorithm", "dion"));
%! [U, s] = muon_update (g, [], "Preset", "dion2");
%! sel = any (U != 0, 2);                             # ceil (0.25 * 8) = 2 rows
%! assert (nnz (sel), 2);
%! assert (s.momentum(! sel,:), g(! sel,:));
%! assert (s.momentum(sel,:), 0.95 * g(sel,:));          # EFDecay 0.95, no Beta

%!test
%! ## muon_optimizer passes one option set to every parameter, its preset's algorithm
%! ## reading it or not: Beta, Nesterov, Rank with dion2 and Nesterov, MomentumForm,
%! ## Fraction, Steps with dion_reference are accepted and unread there: the step
%! ## equals the one without them, bitwise, as before
%! randn ("state", 22);
%! P = struct ("W", randn (8, 12));
%! g = struct ("W", randn (8, 12));
%! extra = {{"Beta", 0.5, "Nesterov", true, "Rank", 2},
%!          {"Nesterov", true, "MomentumForm", "ema", "Fraction", 0.5, "Steps", 2}};
%! pre = {"dion2", "dion_reference"};
%! for k = 1:2
%!   ref = muon_step (muon_optimizer (P, "Preset", pre{k}, "MuonLR", 0.1), P, g);
%!   opt = muon_optimizer (P, "Preset", pre{k}, "MuonLR", 0.1, extra{k}{:});
%!   assert (muon_step (opt, P, g), ref);
%! endfor

## options given that the chosen algorithm does not read (one per family row; a default
## value given counts; the first names all of them, in the order given)
%!error <^muon_update: ALGORITHM 'muon' does not read SIGNBEFORENS\.$> muon_update (G, [], "SignBeforeNS", false)
%!error <^muon_update: ALGORITHM 'muon' does not read SIGNBEFORENS, BETA2, RANK\.$> muon_update (G, [], "signbeforens", true, "Beta2", 0.5, "Rank", 2)
%!error <^muon_update: ALGORITHM 'polargrad' does not read NORMAXIS\.$> muon_update (G, [], "Algorithm", "polargrad", "NormAxis", "col")
%!error <^muon_update: ALGORITHM 'scion' does not read EFDECAY\.$> muon_update (G, [], "Preset", "scion_eo", "EFDecay", 0.95)
%!error <^muon_update: ALGORITHM 'namo' does not read RMSMATCH, NORMAXIS\.$> muon_update (G, [], "Algorithm", "namo", "RMSMatch", "keep", "NormAxis", "row")
%!error <^muon_update: ALGORITHM 'normuon' does not read FRACTION\.$> muon_update (G, [], "Algorithm", "normuon", "Fraction", 0.5)
%!error <^muon_update: ALGORITHM 'dion' does not read NESTEROV, MOMENTUMFORM\.$> muon_update (G, [], "Algorithm", "dion", "Nesterov", false, "MomentumForm", "sgd")
%!error <^muon_update: ALGORITHM 'dion' does not read NORMSCALE\.$> muon_update (G, [], "Preset", "dion_reference", "NormScale", 1)
%!error <^muon_update: ALGORITHM 'dion' does not read EPSPLACEMENT, STEPS\.$> muon_update (G, [], "Algorithm", "dion", "EpsPlacement", "max", "Steps", 3)
%!error <^muon_update: ALGORITHM 'dion2' does not read NESTEROV\.$> muon_update (G, [], "Preset", "dion2", "Nesterov", false)
%!error <^muon_update: ALGORITHM 'dion2' does not read BETA\.$> muon_update (G, [], "Algorithm", "dion2", "Beta", 0.95)
%!error id=muonlab:badArg muon_update (G, [], "Algorithm", "dion", "MomentumForm", "ema")
## the same on a device array (the CPU stand-in): device arrays run Muon, which reads no
## family option
%!error <^muon_update: ALGORITHM 'muon' does not read RMSMATCH\.$> muon_update (muon_gpu (reshape (sin (1:128), 8, 16), "Device", "cpu"), [], "RMSMatch", "keep")
