## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_muon_family.m - the Muon family of issue 27 (muon_update / muon_optimizer
## "Algorithm" and "Preset") against independent oracles: ref_family.m (a plain-Octave
## port of each rule as the issue writes it, its own Newton-Schulz with the coefficients
## typed there), closed forms and invariants (NorMuon keeps ||O||, AdaMuon's RMS is 0.2),
## and each preset's conventions written out below.  Dion and Dion2 on their own (full rank,
## the selection, ordered products and QR, the random stream): test_muon_family_dion.m.
## Run: test test_muon_family (tests/octave/run_all.m).

## The presets' conventions, written from issue 27 (not from inst/private/family_presets.m):
## name, algorithm, beta, Nesterov, form, NS variant, scale, beta2, axis, sign, VEps,
## V max?, RMSMatch, RMSEps, RMS max?; dion2's fraction 0.25 and EF decay 0.95 are checked
## apart.  "-" marks a convention the rule does not read (the preset leaves muonlab's
## default there).
%!function T = conventions ()
%!  T = {
%!  "keller",             "muon",      0.95, true,  "ema", "K",  "keller",   0.95, "-",       false, 1e-8,  false, "-",    1e-8,  false
%!  "normuon_zichongli5", "normuon",   0.95, true,  "ema", "K",  "keller",   0.95, "conv_kernel", false, 1e-10, false, "keep", 1e-10, false
%!  "normuon_dion",       "normuon",   0.95, false, "sgd", "PE", "unit_rms", 0.95, "row",     false, 1e-8,  false, "keep", 1e-8,  true
%!  "normuon_eo",         "normuon",   0.95, false, "ema", "EO", "spectral", 0.95, "shorter", false, 1e-8,  true,  "keep", 1e-8,  true
%!  "adamuon_official",   "adamuon",   0.95, true,  "ema", "K",  "none",     0.95, "element", true,  1e-8,  false, 0.2,    1e-8,  false
%!  "adamuon_eo",         "adamuon",   0.95, false, "ema", "EO", "spectral", 0.95, "element", false, 1e-8,  false, "none", 1e-8,  false
%!  "namo_eo",            "namo",      0.95, false, "ema", "EO", "spectral", 0.95, "-",       false, 1e-8,  false, "-",    1e-8,  false
%!  "polargrad_eo",       "polargrad", 0.95, false, "ema", "EO", "none",     0.95, "-",       false, 1e-8,  false, "-",    1e-8,  false
%!  "scion_eo",           "scion",     0.95, false, "ema", "EO", "unit_rms", 0.95, "-",       false, 1e-8,  false, "-",    1e-8,  false
%!  "dion_reference",     "dion",      0.95, false, "sgd", "-",  "unit_rms", 0.95, "-",       false, 1e-8,  false, "-",    1e-8,  false
%!  "dion2",              "dion2",     0.95, false, "sgd", "PE", "unit_rms", 0.95, "-",       false, 1e-8,  false, "-",    1e-8,  false
%!  };
%!endfunction

## one row of the table as ref_family's conventions
%!function c = row_conv (r)
%!  c = struct ("alg", r{2}, "beta", r{3}, "nesterov", r{4}, "form", r{5}, "ns", r{6},
%!              "scale", r{7}, "beta2", r{8}, "axis", r{9}, "sign", r{10}, "veps", r{11},
%!              "vmax", r{12}, "rms", r{13}, "rmseps", r{14}, "rmsmax", r{15},
%!              "fraction", 0.25, "efdecay", 0.95, "q0", []);
%!endfunction

%!test
%! ## each preset's conventions, as muon_update parses them, against the table above
%! T = conventions ();
%! [names, src] = test_options ("private", "family_presets");
%! assert (names, T(:,1).');
%! assert (muon_optimizer ("presets"), [names; src].');
%! ## the printed list ends with the NS variants its lines name, as the options they set
%! txt = evalc ('muon_optimizer ("presets")');
%! assert (! isempty (strfind (txt, "NS_PE                Coefficients polar_express_dion, Eps 1e-08, NormScale 1.02, EpsPlacement add\n")), txt);
%! assert (! isempty (strfind (txt, "NS_EO                Coefficients eo_quintic, Eps 1e-15, NormScale 1, EpsPlacement max\n")), txt);
%! ns = struct ("K", {{"keller", 1e-7, 1, "add"}}, "PE", {{"polar_express_dion", 1e-8, 1.02, "add"}},
%!              "EO", {{"eo_quintic", 1e-15, 1, "max"}});
%! for i = 1:rows (T)
%!   r = T(i,:);
%!   o = test_options ("private", "parse_options", "t", "muon_update",
%!                     test_options ("private", "family_presets", "expand", "t", {"Preset", r{1}}));
%!   got = {o.algorithm, o.beta, o.nesterov, o.form, o.scale, o.beta2, o.sign_before_ns, o.v_eps, ...
%!          strcmp(o.v_eps_placement, "max"), o.rms_eps, strcmp(o.rms_eps_placement, "max")};
%!   assert ([r(1), got], r([1:5 7 8 10:12 14 15]));
%!   if (! strcmp (r{9}, "-"))
%!     assert ({r{1}, o.norm_axis}, r([1 9]));
%!   endif
%!   if (! strcmp (r{13}, "-"))
%!     assert ({r{1}, o.rms_match}, r([1 13]));
%!   endif
%!   if (! strcmp (r{6}, "-"))
%!     v = ns.(r{6});
%!     assert ({r{1}, o.coeffs, o.eps, o.norm_scale, o.eps_placement},
%!             {r{1}, muon_coeffs(v{1}), v{2}, v{3}, v{4}});
%!   endif
%!   assert ([o.fraction, o.ef_decay, o.decay_first], [0.25, 0.95, true]);
%! endfor
%! ## options after a preset override one convention, options before it are overridden
%! o = test_options ("private", "parse_options", "t", "muon_update",
%!                   test_options ("private", "family_presets", "expand", "t",
%!                                 {"Scale", "rms", "Preset", "normuon_eo", "Nesterov", true}));
%! assert ({o.algorithm, o.nesterov, o.scale, o.norm_axis}, {"normuon", true, "spectral", "shorter"});

%!test
%! ## the NS variants: dion's Polar Express and EO's quintic as the issue quotes them
%! assert (muon_coeffs ("polar_express_dion")(1,:),
%!         [8.156554524902461, -22.48329292557795, 15.878769915207462]);
%! assert (muon_coeffs ("eo_quintic"), [4.0848, -6.8946, 2.9270; 3.9505, -6.3029, 2.6377
%!                                      3.7418, -5.5913, 2.3037; 2.8769, -3.1427, 1.2046
%!                                      2.8366, -3.0525, 1.2012]);

%!test
%! ## every preset, three steps on a tall and a wide matrix, against ref_family with the
%! ## table's conventions: U and the momentum to fp64 round-off (the NS runs in C here,
%! ## in plain Octave there; Dion's products and QR are thread-invariant ones here, Octave's
%! ## BLAS and qr there)
%! T = conventions ();
%! randn ("state", 2027);
%! for sh = {[12 20], [20 12]}
%!   m = sh{1}(1);  n = sh{1}(2);
%!   Gs = randn (m, n, 3);
%!   q0 = randn (min (m, n));
%!   worst = 0;
%!   for i = 1:rows (T)
%!     c = row_conv (T(i,:));
%!     c.q0 = q0;
%!     s = [];  S = [];
%!     for k = 1:3
%!       q = {};                           # (DionQ0 is dion's only: an error elsewhere)
%!       if (strcmp (T{i,1}, "dion_reference"))
%!         q = {"DionQ0", q0};
%!       endif
%!       [U, s] = muon_update (Gs(:,:,k), s, "Preset", T{i,1}, q{:});
%!       [Ur, S] = ref_family (Gs(:,:,k), S, c);
%!       e = norm (U - Ur, "fro") / norm (Ur, "fro");
%!       worst = max (worst, e);
%!       assert (e < 1e-12, sprintf ("%s %dx%d step %d: %g", T{i,1}, m, n, k, e));
%!       assert (norm (s.momentum - S.M, "fro") <= 1e-12 * norm (S.M, "fro"), T{i,1});
%!     endfor
%!   endfor
%!   printf ("    %dx%d: worst relative difference to ref_family %.1e\n", m, n, worst);
%! endfor

%!test
%! ## one convention at a time: every NormAxis on a wide matrix, and the other options
%! randn ("state", 5);
%! G = randn (8, 24, 2);
%! base = row_conv (conventions ()(2,:));       # normuon_zichongli5
%! for ax = {"row", "col", "shorter", "element", "conv_kernel"}
%!   c = base;  c.axis = ax{1};
%!   o = {"Preset", "normuon_zichongli5", "NormAxis", ax{1}};
%!   [~, s] = muon_update (G(:,:,1), [], o{:});
%!   [U, s] = muon_update (G(:,:,2), s, o{:});
%!   [~, S] = ref_family (G(:,:,1), [], c);
%!   [Ur, S] = ref_family (G(:,:,2), S, c);
%!   assert (U, Ur, 1e-12 * norm (Ur, "fro"));
%!   assert (size (s.family.buffer), size (S.V));
%! endfor
%! assert (size (s.family.buffer), [8 1]);         # conv_kernel on a matrix: per row
%! ## ... the same bits as "row", the preset's 2-D update unchanged
%! [U1, s1] = muon_update (G(:,:,1), [], "Preset", "normuon_zichongli5");
%! [U2, s2] = muon_update (G(:,:,1), [], "Preset", "normuon_zichongli5", "NormAxis", "row");
%! assert (isequal (U1, U2) && isequal (s1.family, s2.family));
%! c = base;  c.sign = true;  c.rms = 0.3;  c.rmsmax = true;  c.vmax = true;  c.beta2 = 0.5;
%! U = muon_update (G(:,:,1), [], "Preset", "normuon_zichongli5", "SignBeforeNS", true,
%!                  "RMSMatch", 0.3, "RMSEpsPlacement", "max", "VEpsPlacement", "max", "Beta2", 0.5);
%! assert (U, ref_family (G(:,:,1), [], c), 1e-12 * norm (U, "fro"));

%!test
%! ## invariants: NorMuon keeps ||O|| (before its shape factor), AdaMuon's RMS is 0.2
%! randn ("state", 8);
%! G = randn (16, 40);
%! for p = {"normuon_zichongli5", "normuon_dion"}
%!   o = {"Preset", p{1}, "Scale", "none"};
%!   [U, s] = muon_update (G, [], o{:});
%!   X = s.momentum;
%!   if (strcmp (p{1}, "normuon_zichongli5"))
%!     X = G + 0.95 * (s.momentum - G);          # Nesterov
%!     O = muon_ns (X);
%!   else
%!     O = muon_ns (X, "Coefficients", "polar_express_dion", "NormScale", 1.02, "Eps", 1e-8);
%!   endif
%!   assert (norm (U, "fro"), norm (O, "fro"), 1e-8 * norm (O, "fro"));
%!   assert (norm (U - O, "fro") > 1e-3);         # but not O itself
%! endfor
%! s = [];
%! for k = 1:4
%!   [U, s] = muon_update (G + k, s, "Preset", "adamuon_official");
%!   assert (sqrt (mean (U(:) .^ 2)), 0.2, 1e-8);
%! endfor

%!test
%! ## adamuon_official against AdaMuon's gpt2/models/optimizers/adamuon.py written out for three
%! ## steps (its bf16 NS in fp64 by ref_ns): Nesterov EMA momentum, NS of sign (g), V an EMA
%! ## of X.^2 with the momentum's beta and no bias correction, X ./ (sqrt (V) + eps), scaled
%! ## to 0.2 sqrt (m n) / (||.|| + eps), so RMS 0.2
%! randn ("state", 3);
%! for sz = {[7 5], [5 7], [6 6]}
%!   [m, n] = deal (sz{1}(1), sz{1}(2));
%!   M = V = zeros (m, n);
%!   s = [];
%!   for k = 1:3
%!     G = randn (m, n);
%!     M += 0.05 * (G - M);
%!     X = ref_ns (sign (G + 0.95 * (M - G)), "Coefficients", "keller", "Steps", 5);
%!     V = 0.95 * V + 0.05 * X .* X;
%!     D = X ./ (sqrt (V) + 1e-8);
%!     Ur = D * (0.2 * sqrt (m * n) / (norm (D, "fro") + 1e-8));
%!     [U, s] = muon_update (G, s, "Preset", "adamuon_official");
%!     assert (U, Ur, 1e-13 * norm (Ur, "fro"));
%!   endfor
%! endfor
%! ## a 16 x 8 x 3 x 3 conv weight: adamuon.py's 0.2 (min (p.shape) max (p.shape))^0.5, of
%! ## the 4-D sides (3 and 16), not of the 16 x 72 matrix (the NS commutes with the order
%! ## its columns are flattened in)
%! G = randn (16, 8, 3, 3);
%! G2 = reshape (G, 16, 72);
%! X = ref_ns (sign (G2), "Coefficients", "keller", "Steps", 5);
%! D = X ./ (sqrt (0.05 * X .* X) + 1e-8);
%! Ur = D * (0.2 * sqrt (3 * 16) / (norm (D, "fro") + 1e-8));
%! U = muon_update (G, [], "Preset", "adamuon_official");
%! assert (size (U), [16 8 3 3]);
%! assert (reshape (U, 16, 72), Ur, 1e-13 * norm (Ur, "fro"));
%! U = muon_update (G, [], "Preset", "adamuon_official", "RMSShape", "matrix");
%! assert (norm (U(:)), 0.2 * sqrt (16 * 72), 1e-6);

%!test
%! ## muon_step: Scion decays with wd = 1 whatever the weight decay; DecayFirst false
%! ## applies the decay after the update; NAMO's v is a scalar of the raw gradient
%! randn ("state", 13);
%! P = struct ("W", randn (6, 9));
%! G = struct ("W", randn (6, 9));
%! U = muon_update (G.W, [], "Preset", "scion_eo");
%! opt = muon_optimizer (P, "Preset", "scion_eo", "MuonLR", 0.05);
%! P2 = muon_step (opt, P, G);
%! assert (P2.W, P.W * (1 - 0.05) - 0.05 * U, 1e-15);
%! U = muon_update (G.W, []);
%! opt = muon_optimizer (P, "MuonLR", 0.05, "MuonWeightDecay", 0.1, "DecayFirst", false);
%! P2 = muon_step (opt, P, G);
%! assert (P2.W, (P.W - 0.05 * U) * (1 - 0.05 * 0.1), 1e-15);
%! [~, s] = muon_update (G.W, [], "Preset", "namo_eo");
%! assert (s.family.buffer, 0.05 * sumsq (G.W(:)), 1e-12);

%!test
%! ## "muon" stays the core's update, bit for bit, and so does the keller preset
%! randn ("state", 14);
%! G = randn (12, 30);
%! [U0, s0] = muon_update (G, []);
%! [U1, s1] = muon_update (G, [], "Algorithm", "muon");
%! [U2, s2] = muon_update (G, [], "Preset", "keller");
%! assert (isequal (U0, U1, U2) && isequal (s0, s1, s2), true);
%! ## the Octave path of "muon" (a normalization the core does not spell) agrees with it
%! U3 = muon_update (G, [], "NormScale", 1 + 1e-15);
%! assert (U3, U0, 1e-12);

%!test
%! ## a state of another algorithm or axis is refused, never reused
%! G = reshape (sin (1:60), 6, 10);
%! [~, s] = muon_update (G, [], "Algorithm", "normuon");
%! fail ("muon_update (G, s, 'Algorithm', 'adamuon')", "STATE.family must hold the state of ALGORITHM 'adamuon'");
%! fail ("muon_update (G, s, 'Algorithm', 'normuon', 'NormAxis', 'col')", "STATE.family.buffer must be the 1 x 10 V of NORMAXIS 'col'");
%! [~, s0] = muon_update (G, []);
%! fail ("muon_update (G, s0, 'Algorithm', 'dion')", "STATE.family must hold the state of ALGORITHM 'dion'");
%! fail ("muon_update (G, s, 'Algorithm', 'muon')", "STATE.family must hold the state of ALGORITHM 'muon'");

%!test
%! ## single in, single out; a 4-D convolution weight is viewed as out x (in*kh*kw)
%! randn ("state", 15);
%! W = randn (4, 3, 3, 3);
%! L = muon_optimizer ("presets");
%! for i = 1:rows (L)
%!   [U, s] = muon_update (single (W(:,:,1,1)), [], "Preset", L{i,1});
%!   assert ({class(U), class(s.momentum)}, {"single", "single"});
%!   ## (zichongli5's per-kernel V and rescale, NormAxis conv_kernel, tested below: here
%!   ## its per-row V, which is the flattened matrix's)
%!   o = {"Preset", L{i,1}};
%!   if (strcmp (L{i,1}, "dion_reference"))    # (DionQ0 is dion's only)
%!     o(end+1:end+2) = {"DionQ0", eye(4)};
%!   endif
%!   if (strcmp (L{i,1}, "normuon_zichongli5"))
%!     o(end+1:end+2) = {"NormAxis", "row"};
%!   endif
%!   if (strcmp (L{i,1}, "adamuon_official"))     # (its RMS target of 4-D sides: above)
%!     o(end+1:end+2) = {"RMSShape", "matrix"};
%!   endif
%!   [U, s] = muon_update (W, [], o{:});
%!   assert (size (U), size (W));
%!   assert (U, reshape (muon_update (reshape (W, 4, 27), [], o{:}), size (W)));
%! endfor

%!test
%! ## Muon itself with each NS variant (the Octave path when the normalization is not the
%! ## core's), two steps, against ref_family
%! randn ("state", 16);
%! G = randn (10, 14, 2);
%! c = row_conv (conventions ()(1,:));          # keller
%! o = struct ("PE", {{"Coefficients", "polar_express_dion", "NormScale", 1.02, "Eps", 1e-8}},
%!             "EO", {{"Coefficients", "eo_quintic", "EpsPlacement", "max", "Eps", 1e-15}});
%! for v = {"PE", "EO"}
%!   c.ns = v{1};
%!   [~, s] = muon_update (G(:,:,1), [], o.(v{1}){:});
%!   [U, s] = muon_update (G(:,:,2), s, o.(v{1}){:});
%!   [~, S] = ref_family (G(:,:,1), [], c);
%!   [Ur, S] = ref_family (G(:,:,2), S, c);
%!   assert (U, Ur, 1e-12 * norm (Ur, "fro"));
%!   assert (s.family.algorithm, "muon");
%! endfor

%!test
%! ## EpsPlacement max on a page whose norm is below 1e-162 (its sum of squares would
%! ## underflow): G / Eps through the schedule, not the orthogonal factor; beside it, the
%! ## plain iteration written here (its cubic terms underflow: a linear map)
%! randn ("state", 2);
%! G = 1e-165 * randn (5, 8);
%! C = muon_coeffs ("eo_quintic");
%! Y = G / 1e-15;
%! for k = 1:5
%!   c = C(k,:);  A = Y * Y';
%!   Y = c(1) * Y + (c(2) * A + c(3) * A * A) * Y;
%! endfor
%! w = warning ("off", "muonlab:tinyInput");
%! unwind_protect
%!   X = muon_ns (G, "Coefficients", "eo_quintic", "Eps", 1e-15, "EpsPlacement", "max");
%!   assert (X, Y, 1e-14 * norm (Y, "fro"));
%!   X = muon_ns (1e-320 * ones (4, 6), "Coefficients", "eo_quintic", "Eps", 1e-15,
%!                "EpsPlacement", "max");           # subnormal: t^3, t^5 overflow
%!   assert (norm (X, "fro"), prod (C(:,1)) * 1e-320 * sqrt (24) / 1e-15, 1e-3 * 2.4e-302);
%!   U = muon_update (G, [], "Preset", "normuon_eo");
%!   assert (norm (U, "fro") < 1e-140);
%! unwind_protect_cleanup
%!   warning (w);
%! end_unwind_protect

%!test
%! ## EpsPlacement max on a stack whose pages take different factors: the stats count
%! ## every page's products (three calls of one page each)
%! randn ("state", 3);
%! G = randn (4, 6, 3);
%! [~, s1] = muon_ns (G(:,:,1), "EpsPlacement", "max");
%! G(:,:,2) *= 1e-9;
%! w = warning ("off", "muonlab:tinyInput");
%! unwind_protect
%!   [~, s3] = muon_ns (G, "EpsPlacement", "max");
%! unwind_protect_cleanup
%!   warning (w);
%! end_unwind_protect
%! assert ([s3.products, s3.product_flops], 3 * [s1.products, s1.product_flops]);
%! assert (s3.product_gflops, s3.product_flops / s3.product_seconds / 1e9, -1e-12);

%!test
%! ## ConvScale last_two on the Octave path (every algorithm, and Muon with NormScale):
%! ## the scale reads kh x kw (3 x 2), not out x (in*kh*kw) (6 x 12); the rest is unchanged
%! randn ("state", 17);
%! W = randn (6, 2, 3, 2);
%! ratio = struct ("keller", sqrt (3/2) / 1, "unit_rms", sqrt (3/2) / sqrt (6/12),
%!                 "spectral", sqrt (3) / sqrt (12), "none", 1, "rms", sqrt (3) / sqrt (12));
%! L = muon_optimizer ("presets");
%! for i = 1:rows (L)
%!   o = {"Preset", L{i,1}};
%!   if (strcmp (L{i,1}, "dion_reference"))    # (DionQ0 is dion's only)
%!     o(end+1:end+2) = {"DionQ0", eye(6)};
%!   endif
%!   sc = test_options ("private", "parse_options", "t", "muon_update",
%!                      test_options ("private", "family_presets", "expand", "t", o(1:2))).scale;
%!   U1 = muon_update (W, [], o{:}, "ConvScale", "flattened");
%!   U2 = muon_update (W, [], o{:}, "ConvScale", "last_two");
%!   assert (U2, ratio.(sc) * U1, 1e-14 * norm (U1(:)));
%! endfor
%! U1 = muon_update (W, [], "ConvScale", "last_two");
%! U2 = muon_update (W, [], "ConvScale", "last_two", "NormScale", 1 + 1e-15);
%! assert (U2, U1, 1e-12);
%! U2 = muon_update (W, [], "ConvScale", "last_two", "Algorithm", "scion");
%! assert (U2, U1, 1e-12);

%!test
%! ## NAMO's v of a huge single gradient: ||G||^2 passes single's range, v (fp64) does not
%! ## overflow; the first step is sqrt (5) sqrt (1-beta2) NS (G) at any scale (X = 0.05 G,
%! ## v = 0.05 ||G||^2), and a second step stays finite
%! G = single (reshape (sin (1:20), 4, 5));
%! X = muon_ns (G, "Coefficients", "eo_quintic", "Eps", 1e-15, "EpsPlacement", "max");
%! for a = [1 1e20]
%!   [U, s] = muon_update (a * G, [], "Preset", "namo_eo");
%!   assert (U, sqrt (5) * sqrt (0.05) * X, 1e-5);
%!   assert (s.family.buffer, 0.05 * a^2 * sumsq (double (G(:))), -1e-6);
%! endfor
%! U = muon_update (G, s, "Preset", "namo_eo");
%! assert (all (isfinite (U(:))) && norm (U, "fro") > 0.1);
%!error <muon_update: NAMO's second moment needs norm \(G, 'fro'\)\^2 below realmax \(fp64\)\.>
%! muon_update (1e160 * reshape (sin (1:20), 4, 5), [], "Preset", "namo_eo");

%!test
%! ## AdaMuon's Beta2 is not tied to Beta (muon_update's help): after adamuon_official,
%! ## Beta 0.5 leaves V's first step at 0.05 O.^2, O = NS (sign (G)); Beta2 0.5 gives 0.5 O.^2
%! G = reshape (sin (1:20), 4, 5);
%! O = muon_ns (sign (G));
%! [~, s] = muon_update (G, [], "Preset", "adamuon_official", "Beta", 0.5);
%! assert (s.family.buffer, 0.05 * O .^ 2, 1e-15);
%! [~, s] = muon_update (G, [], "Preset", "adamuon_official", "Beta", 0.5, "Beta2", 0.5);
%! assert (s.family.buffer, 0.5 * O .^ 2, 1e-15);

%!test
%! ## a poisoned state (NaN in the momentum, or in the second-moment buffer) is accepted
%! ## and gives a non-finite update with muonlab:nonFiniteResult, for every algorithm, as
%! ## the core's Muon does (the family's Newton-Schulz raised "G must not contain NaN", the
%! ## buffer's NaN gave no word)
%! randn ("state", 9);
%! G = randn (12, 7);
%! warning ("error", "muonlab:nonFiniteResult", "local");
%! for a = {"muon", "normuon", "adamuon", "namo", "polargrad", "scion", "dion", "dion2"}
%!   o = {"Algorithm", a{1}};
%!   if (strcmp (a{1}, "muon"))
%!     o = [o, {"NormScale", 1.02}];     # Muon on the family's path
%!   endif
%!   [~, s] = muon_update (G, [], o{:});
%!   poisoned = {setfield(s, "momentum", NaN (size (s.momentum)))};
%!   if (any (strcmp (a{1}, {"normuon", "adamuon", "namo"})))
%!     f = s.family;
%!     f.buffer(:) = NaN;
%!     poisoned{end+1} = setfield (s, "family", f);
%!   endif
%!   for p = poisoned
%!     try
%!       muon_update (G, p{1}, o{:});
%!       error ("no warning for %s", a{1});
%!     catch err
%!       assert (err.identifier, "muonlab:nonFiniteResult", a{1});
%!     end_try_catch
%!   endfor
%! endfor

%!test
%! ## a convolution weight (out x in x kh x kw) under the presets that reproduce Keller's
%! ## muon.py: NS of the out x (in*kh*kw) matrix, scaled by max (1, kh / kw)^0.5, his
%! ## grad.size(-2) / grad.size(-1) (it was the flattened matrix's max (1, out / (in*kh*kw))^0.5:
%! ## sqrt (8) too large here); ref_ns runs the NS, Keller's first step is written out
%! randn ("state", 12);
%! for sz = {[64 2 2 2], [6 2 3 2], [4 1 1 3]}
%!   G = randn (sz{1});
%!   M = 0.05 * G;                           # momentum.lerp_(grad, 1 - beta) from zeros
%!   V = G + 0.95 * (M - G);                 # grad.lerp_(momentum, beta): Nesterov
%!   X = ref_ns (reshape (V, sz{1}(1), []), "Coefficients", "keller", "Steps", 5);
%!   Ur = reshape (X * sqrt (max (1, sz{1}(3) / sz{1}(4))), sz{1});
%!   U = muon_update (G, [], "Preset", "keller");
%!   assert (U, Ur, 1e-12 * norm (Ur(:)));
%!   Uz = muon_update (G, [], "Preset", "normuon_zichongli5", "Algorithm", "muon");
%!   assert (Uz, Ur, 1e-12 * norm (Ur(:)));
%! endfor

%!test
%! ## normuon_zichongli5 on a convolution weight as zichongli5/NorMuon's normuon.py
%! ## (SingleDeviceNorMuon) computes it, written out for three steps: O = NS_K of torch's
%! ## view (out, -1) (kw fastest), back to out x in x kh x kw; V (p[..., 0:1]) the beta2 EMA
%! ## of mean (O.^2) over kw, one per (out, in, kh); O2 = O ./ (sqrt (V) + 1e-10); ||O||
%! ## kept per (out, in) kh x kw kernel (norm over dims (-2, -1)), + 1e-10; Keller's
%! ## scale max (1, kh / kw)^0.5.  (muonlab's per-row V and whole-matrix rescale of the
%! ## flattened matrix were about 0.5 off on 6 x 4 x 3 x 3.)
%! randn ("state", 2);
%! for sz = {[6 4 3 3], [6 4 3 5], [5 3 4 2]}
%!   s4 = sz{1};
%!   M = zeros (s4);  V = [];  st = [];
%!   for k = 1:3
%!     G = randn (s4);
%!     M = M + 0.05 * (G - M);                           # momentum.lerp_(grad, 1 - beta)
%!     X = G + 0.95 * (M - G);                           # grad.lerp_(momentum, beta)
%!     Xt = reshape (permute (X, [1 4 3 2]), s4(1), []);  # torch's row-major view
%!     Ot = ref_ns (Xt, "Coefficients", "keller", "Steps", 5);
%!     O = permute (reshape (Ot, s4([1 4 3 2])), [1 4 3 2]);
%!     if (isempty (V))
%!       V = zeros (s4(1:3));
%!     endif
%!     V = V + 0.05 * (mean (O .^ 2, 4) - V);
%!     O2 = O ./ (sqrt (V) + 1e-10);
%!     nO = sqrt (sum (sum (O .^ 2, 3), 4));
%!     nO2 = sqrt (sum (sum (O2 .^ 2, 3), 4));
%!     Uref = max (1, s4(3) / s4(4))^0.5 * O2 .* (nO ./ (nO2 + 1e-10));
%!     [U, st] = muon_update (G, st, "Preset", "normuon_zichongli5");
%!     e = max (abs (U(:) - Uref(:))) / max (abs (Uref(:)));
%!     assert (e < 1e-13, sprintf ("%s step %d: %g", mat2str (s4), k, e));
%!     assert (size (st.family.buffer), s4(1:3));
%!     assert (st.family.buffer, V, 1e-13 * max (V(:)));
%!     assert (st.momentum, M, 1e-15);
%!   endfor
%!   ## the flattened matrix's per-row V is another update
%!   U1 = muon_update (G, [], "Preset", "normuon_zichongli5");
%!   Ur = muon_update (G, [], "Preset", "normuon_zichongli5", "NormAxis", "row");
%!   assert (max (abs (U1(:) - Ur(:))) > 0.01 * max (abs (U1(:))));
%! endfor
%! ## a state of the other axis is refused; AdaMuon's numeric RMSMatch per kernel
%! [~, st] = muon_update (G, [], "Preset", "normuon_zichongli5");
%! fail ("muon_update (G, st, 'Preset', 'normuon_zichongli5', 'NormAxis', 'row')",
%!       "STATE.family.buffer must be the 5 x 1 V of NORMAXIS 'row'");
%! [~, sr] = muon_update (G, [], "Preset", "normuon_zichongli5", "NormAxis", "row");
%! fail ("muon_update (G, sr, 'Preset', 'normuon_zichongli5')",
%!       "STATE.family.buffer must be the 5 x 3 x 4 V of NORMAXIS 'conv_kernel'");
%! U = muon_update (G, [], "Preset", "normuon_zichongli5", "RMSMatch", 0.3, "Scale", "none");
%! assert (sqrt (mean (mean (U .^ 2, 3), 4)), 0.3 * ones (5, 3), 1e-8);

%!test
%! ## normuon_eo as Emerging-Optimizers' AdaptiveMuon (normuon) computes it, written out:
%! ## O = NS_EO (M), V = (1 - beta2) mean (O.^2) along the shorter side, O2 = O .* rsqrt
%! ## (max (V, 1e-8)), then its Frobenius match (its PR 187) ||O|| / max (||O2||, 1e-8),
%! ## times sqrt (max (m, n)); without the match the update's RMS was 31, not 1
%! randn ("state", 1);
%! G = randn (24, 48);
%! U = muon_update (G, [], "Preset", "normuon_eo");
%! O = muon_ns (0.05 * G, "Coefficients", "eo_quintic", "Eps", 1e-15, "EpsPlacement", "max");
%! V = 0.05 * mean (O .^ 2, 1);
%! O2 = O ./ sqrt (max (V, 1e-8));
%! Uref = sqrt (48) * O2 * norm (O, "fro") / max (norm (O2, "fro"), 1e-8);
%! assert (U, Uref, 1e-13 * max (abs (Uref(:))));
%! assert (sqrt (mean (U(:) .^ 2)), 1, 0.01);
