## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_muon_ns ()
## @code{muon_ns}'s options and reports, beside the tests of its contract at the end of
## inst/muon_ns.m: precisions and bf16 bit patterns, the fp16 overflow of the peers'
## cast-first order, schedules (names, matrices, cycle), the stats' product counts in
## closed form, the fused and batched orders, SymBlocks, AOL and NormScale, the trace,
## and the warnings (tinyInput, nonFiniteResult, diverged) with their full messages.
## The references: the scalar map of the schedule on the singular values of an fp64 SVD
## (closed form), plain Octave re-derivations, and the counts' formulas.
## @end deftypefn

function test_muon_ns ()
  help test_muon_ns
endfunction

%!shared G, s0, U, V, phi
%! [G, s0, U, V, phi] = ns_fixture ();

%!test
%! ## a bf16 result holds exact bf16 values
%! X = muon_ns (G, "Precision", "bf16");
%! b = typecast (single (X(:)), "uint32");
%! assert (all (bitand (b, uint32 (65535)) == 0));

%!test
%! ## the peers' cast-first order overflows fp16 (DeepSpeed PR 8533), fp32-first does not
%! Gbig = 1e5 * G;
%! assert (all (isfinite (muon_ns (Gbig, "Precision", "fp16")(:))));
%! warning ("off", "muonlab:nonFiniteResult", "local");   # the warning: tested below
%! assert (! any (isfinite (muon_ns (Gbig, "Precision", "fp16", "NormalizeFirst", false)(:))));

%!test
%! X1 = muon_ns (G, "Coefficients", "you");
%! X2 = muon_ns (G, "Coefficients", muon_coeffs ("you"));
%! assert (X1, X2);
%! X3 = muon_ns (G, "Coefficients", "aol", "Steps", 6, "ScheduleMode", "cycle");
%! c = muon_coeffs ("aol");
%! s = s0;
%! for k = [1 2 3 4 1 2], s = phi (s, c(k,:)); endfor
%! assert (X3, U * diag (s) * V', 1e-12 * norm (X3, "fro"));

%!test
%! ## stats: the products' count and work in closed form, a 10 x 30 page, 5 steps
%! ## (standard: X X', the polynomial's product, B X per step; n = 10, m = 30)
%! n = 10;  m = 30;
%! Gs = randn (m, n);                     # transposed to 10 x 30 inside
%! syrk = @(n, k) n * (n + 1) * k;
%! [X, s] = muon_ns (Gs);
%! assert (X, muon_ns (Gs));
%! assert (s.gemm, "openblas");           # double always runs on OpenBLAS
%! assert (s.products, 15);
%! assert (s.product_flops, 5 * (syrk (n, m) + syrk (n, n) + 2 * n * n * m));
%! assert (s.product_seconds >= 0 && s.product_seconds <= s.total_seconds);
%! assert (s.product_gflops, s.product_flops / s.product_seconds / 1e9, -1e-12);
%! [~, s] = muon_ns (single (Gs), "Gemm", "openblas");
%! assert ({s.gemm, s.products, s.bf16_products}, {"openblas", 15, false});
%! assert (s.product_flops, 5 * (syrk (n, m) + syrk (n, n) + 2 * n * n * m));
%! if (muon_info ().gemm.onednn_built)
%!   ## a small X X' is one full product on oneDNN; bf16's (c A) A is a general product
%!   [~, s] = muon_ns (single (Gs), "Gemm", "onednn");
%!   assert ({s.gemm, s.products}, {"onednn", 15});
%!   assert (s.product_flops, 5 * (2 * n * n * m + 2 * n^3 + 2 * n * n * m));
%!   [~, s] = muon_ns (single (Gs), "Gemm", "onednn", "Precision", "bf16");
%!   assert (s.bf16_products, muon_info ().gemm.onednn_native_bf16);
%!   assert (s.product_flops, 5 * (2 * n * n * m + 2 * n^3 + 2 * n * n * m));
%! endif

%!test
%! ## Gram in double and single computes half of its n x n products but Q's update
%! ## (symmetric results; Q's a general product): the work counted by the products against
%! ## ns_flops's symmetric model (a diagonal tile of the upper product runs in column strips,
%! ## a little over half); bf16 keeps the peers' general n x n products (its X X' is SYRK
%! ## tiles: between the two models, 1.23 and 0.85 of them)
%! Gw = randn (300, 1500);
%! Fs = ns_flops (300, 1500, "Symmetric", true);
%! Fg = ns_flops (300, 1500);
%! for prec = {"double", "single"}
%!   [~, st] = muon_ns (Gw, "Method", "gram", "Precision", prec{1}, "Gemm", "openblas");
%!   assert (st.product_flops / Fs.gram > 0.999 && st.product_flops / Fs.gram < 1.05);
%! endfor
%! [~, st] = muon_ns (Gw, "Method", "gram", "Precision", "bf16", "Gemm", "openblas");
%! assert (st.product_flops / Fs.gram > 1.2 && st.product_flops < Fg.gram);
%! ## and the result is the exact Gram iteration (fp64 against standard)
%! assert (muon_ns (Gw, "Method", "gram"), muon_ns (Gw), 1e-12 * norm (muon_ns (Gw), "fro"));

%!test
%! ## Normalize "aol", fp64: the first iterate is D G / ||G|| (trace page 0) with
%! ## D = diag (sum |Y Y'|)^(-1/2), ||.||_2 <= 1; scale-invariant; both orders agree in fp64
%! [X, st] = muon_ns (G, "Normalize", "aol", "Coefficients", "aol", "Trace", true);
%! Y = G / norm (G, "fro");
%! D = 1 ./ sqrt (sum (abs (Y * Y'), 2));
%! assert (st.trace.iterates(:,:,1), D .* Y, 1e-15);
%! assert (st.trace.sv_max(1) <= 1);
%! assert (muon_ns (G.', "Normalize", "aol", "Coefficients", "aol"), X.', 1e-12);
%! assert (muon_ns (1e4 * G, "Normalize", "aol", "Coefficients", "aol"), X, 1e-12);
%! ## ||G||^2 under- or overflows (scaled by the largest magnitude first): the same map
%! for s = [1e-170, 1e170]
%!   assert (muon_ns (s * G, "Normalize", "aol", "Coefficients", "aol"), X, 1e-12);
%! endfor
%! assert (muon_ns (zeros (4, 6), "Normalize", "aol", "NormalizeFirst", false), zeros (4, 6));
%! ## a row sum of X0 X0' that underflows is floored at Eps, as Turbo-Muon's clamp_min (it
%! ## zeroed the page): fp16 cast-first on 1e-6 G, whose Gram underflows in fp16, comes out
%! ## about as orthogonal as the Frobenius order does on the same input (0.14 vs 0.22 off
%! ## the polar factor; exactly 0 before)
%! randn ("seed", 1);
%! H = 1e-6 * randn (64, 256);
%! [U, ~, V] = svd (H, "econ");
%! Xa = muon_ns (H, "Precision", "fp16", "Normalize", "aol", "NormalizeFirst", false);
%! assert (norm (Xa - U * V', "fro") / 8 < 0.2);
%! assert (norm (muon_ns (H, "Precision", "fp16", "NormalizeFirst", false) - U * V', "fro") / 8
%!         < 0.3);
%! assert (muon_ns (G, "Normalize", "aol", "Coefficients", "aol", "NormalizeFirst", false),
%!         X, 1e-12);
%! ## after the scaling, the iteration maps each singular value by the schedule's polynomial
%! s = svd (D .* Y);
%! c = muon_coeffs ("aol");
%! for k = 1:4, s = phi (s, c(k,:)); endfor
%! assert (sort (svd (X)), sort (abs (s)), 1e-12);     # svd: |p(s)|
%! for meth = {"standard", "gram"}
%!   assert (muon_ns (G, "Normalize", "aol", "Coefficients", "aol", "Method", meth{1}), X,
%!           1e-12);
%! endfor
%! assert (muon_ns (zeros (4, 6), "Normalize", "aol"), zeros (4, 6));
%! assert (class (muon_ns (single (G), "Normalize", "aol")), "single");

%!test
%! ## NormScale and EpsPlacement against a plain loop: dion's X / (1.02 ||X|| + 1e-8) with
%! ## its Polar Express triples, and EO's X / max (||X||, 1e-15) on a page below the floor
%! randn ("state", 27);
%! A = randn (6, 9);
%! C = muon_coeffs ("polar_express_dion");
%! X = A / (1.02 * norm (A, "fro") + 1e-8);
%! for k = 1:5
%!   S = X * X';
%!   X = C(k,1) * X + (C(k,2) * S + C(k,3) * S * S) * X;
%! endfor
%! Y = muon_ns (A, "Coefficients", "polar_express_dion", "NormScale", 1.02, "Eps", 1e-8);
%! assert (Y, X, 1e-13);
%! assert (norm (Y - muon_ns (A, "Coefficients", "polar_express_dion", "Eps", 1e-8), "fro") > 1e-3);
%! C = muon_coeffs ("eo_quintic");
%! t = 1e-20 * A;                        # ||t|| < 1e-15: divided by the floor, not its norm
%! want = {};
%! for x0 = {t / 1e-15, A / norm(A, "fro")}
%!   X = x0{1};
%!   for k = 1:5
%!     S = X * X';
%!     X = C(k,1) * X + (C(k,2) * S + C(k,3) * S * S) * X;
%!   endfor
%!   want{end+1} = X;
%! endfor
%! o = {"Coefficients", "eo_quintic", "Eps", 1e-15, "EpsPlacement", "max"};
%! assert (muon_ns (t, o{:}), want{1}, 1e-13);
%! assert (muon_ns (cat (3, t, A), o{:}), cat (3, want{1}, want{2}), 1e-13);
%! ## at or above the floor "max" is Eps 0 exactly
%! assert (muon_ns (A, o{:}), muon_ns (A, "Coefficients", "eo_quintic", "Eps", 0));

%!test
%! ## "Fused" against an outside oracle: the iteration in exact arithmetic, U p(S) V' with
%! ## p the schedule's polynomials composed on the normalized singular values (fp64 SVD).
%! ## One rounding per product in place of three brings bf16 and fp16 about 2.4 times
%! ## closer (measured: 0.031 -> 0.013 bf16 standard); double and single run so already.
%! randn ("state", 5);
%! Gx = randn (96, 160);
%! [Ux, Sx, Vx] = svd (Gx, "econ");
%! sx = diag (Sx) / (norm (Gx, "fro") + 1e-7);
%! C = muon_coeffs ("keller");
%! for k = 1:5
%!   sx = C(1) * sx + C(2) * sx.^3 + C(3) * sx.^5;
%! endfor
%! O = Ux * diag (sx) * Vx';
%! rel = @(X) norm (double (X) - O, "fro") / norm (O, "fro");
%! for m = {"standard", "gram"}
%!   for prec = {"bf16", "fp16"}
%!     o = {"Precision", prec{1}, "Method", m{1}};
%!     eager = rel (muon_ns (Gx, o{:}));
%!     fused = rel (muon_ns (Gx, o{:}, "Fused", true));
%!     assert (fused < 0.6 * eager);
%!     assert (fused < merge (strcmp (prec{1}, "bf16"), 0.02, 0.0025));
%!   endfor
%!   for prec = {"double", "single"}
%!     o = {"Precision", prec{1}, "Method", m{1}};
%!     assert (muon_ns (Gx, o{:}, "Fused", true), muon_ns (Gx, o{:}));
%!   endfor
%! endfor

%!test
%! ## "Batched" is CUDA's (device stacks): the CPU runs a stack page by page either way
%! randn ("state", 6);
%! S = single (randn (24, 40, 3));
%! for prec = {"single", "bf16"}
%!   o = {"Precision", prec{1}, "Method", "gram"};
%!   assert (isequal (muon_ns (S, o{:}, "Batched", true), muon_ns (S, o{:})));
%!   assert (isequal (muon_ns (S, o{:}, "SymBlocks", 4), muon_ns (S, o{:})));
%! endfor

%!error <muon_ns: FUSED must be true or false.> muon_ns (G, "Fused", 2)
%!error <muon_ns: BATCHED must be true or false.> muon_ns (G, "Batched", [true false])
%!error <muon_ns: SYMBLOCKS must be an integer from 0 \(automatic\) to 16.> muon_ns (G, "SymBlocks", 17)
%!error <muon_ns: SYMBLOCKS must be an integer from 0 \(automatic\) to 16.> muon_ns (G, "SymBlocks", 2.5)
%!error <muon_ns: FUSED must be true or false.> muon_ns (G, "Fused", "yes")
%!error <muon_ns: NORMALIZE must be 'frobenius' or 'aol'.> muon_ns (G, "Normalize", "spectral")
%!error id=muonlab:unsupported muon_ns (G, "Normalize", "aol", "Device", "cuda")
%!error <muon_ns: TRACE must be true or false.> muon_ns (G, "Trace", 2)
%!error <muon_ns: G must be one matrix \(2-D\) for TRACE.> muon_ns (cat (3, G, G), "Trace", true)
%!error <muon_ns: TRACE needs the core's normalization \(NORMSCALE 1, EPSPLACEMENT 'add'\).> muon_ns (G, "Trace", true, "NormScale", 1.02)
%!error <muon_ns: TRACE needs the core's normalization \(NORMSCALE 1, EPSPLACEMENT 'add'\).> muon_ns (G, "Trace", true, "EpsPlacement", "max")
%!error <muon_ns: NORMSCALE must be a positive finite scalar.> muon_ns (G, "NormScale", 0)
%!error <muon_ns: NORMSCALE 1e-62 is too small: the first step's coefficients \(a/s, b/s\^3, c/s\^5\) overflow\.> muon_ns (G, "NormScale", 1e-62)
%!error <muon_update: NORMSCALE 1e-62 is too small: the first step's coefficients \(a/s, b/s\^3, c/s\^5\) overflow\.> muon_update (G, [], "NormScale", 1e-62)
%!error <muon_ns: EPSPLACEMENT must be 'add' or 'max'.> muon_ns (G, "EpsPlacement", "clamp")
%!error id=muonlab:unsupported muon_ns (G, "Trace", true, "Device", "cuda")
%!test
%! ## AOL's scaling uses no Eps: a tiny G is orthogonalized as any other, with no warning
%! lastwarn ("");
%! [X, st] = muon_ns (1e-9 * G, "Normalize", "aol");
%! assert (lastwarn (), "");
%! assert (st.tiny_pages, 0);
%! assert (X, muon_ns (G, "Normalize", "aol"), 1e-13);
%!test
%! ## AOL with Eps 0 on a G with a zero
%! ## row: that row stays zero and the others are those of G without it (the scaling of a
%! ## zero row was 1/sqrt(0): NaN everywhere); bit for bit in bf16 and fp16, within a few
%! ## ulps in double and single, whose BLAS products of 3 and 4 rows may differ
%! Z = [G(1:3,:); zeros(1, columns (G))];
%! for p = {"double", 1e-13; "single", 1e-5; "bf16", 0; "fp16", 0}.'
%!   for nf = [true false]
%!     o = {"Normalize", "aol", "Precision", p{1}, "NormalizeFirst", nf};
%!     X = muon_ns (Z, o{:}, "Eps", 0);
%!     assert (X(1:3,:), muon_ns (G(1:3,:), o{:}, "Eps", 0), p{2});
%!     assert (X(4,:), zeros (1, columns (G)));
%!   endfor
%! endfor
%!test
%! ## AOL takes Eps as its row sums' floor whatever NormScale is (it took Eps / s: 35% off
%! ## the help's formula on 1e-5 randn (6, 10) at s 2), and EpsPlacement "max", which
%! ## places Eps in a Frobenius division AOL has not, is refused (it ran with floor 0 and
%! ## folded Eps / ||G|| into a tiny page's first step: 1e-12 G came out unorthogonalized)
%! randn ("state", 15);
%! G0 = 1e-5 * randn (6, 10);
%! for s = [0.5 2]
%!   X = muon_ns (G0, "Normalize", "aol", "NormalizeFirst", false, "NormScale", s);
%!   d = max (sum (abs (G0 * G0'), 2), 1e-7) .^ (-1/2);
%!   Y = (d .* G0) / s;
%!   for k = 1:5
%!     P = Y * Y';
%!     Y = 3.4445 * Y + (-4.7750 * P + 2.0315 * P * P) * Y;
%!   endfor
%!   assert (norm (X - Y, "fro") / norm (Y, "fro") < 1e-12);
%! endfor
%! msg = ["EPSPLACEMENT 'max' places Eps in the Frobenius division; NORMALIZE 'aol' ", ...
%!        "takes Eps as the floor of its row sums \\(give EPSPLACEMENT 'add'\\)\\."];
%! fail ("muon_ns (G0, \"Normalize\", \"aol\", \"EpsPlacement\", \"max\")", ["muon_ns: " msg]);
%! fail ("muon_update (G0, [], \"Normalize\", \"aol\", \"EpsPlacement\", \"max\")",
%!       ["muon_update: " msg]);
%!test
%! ## tinyInput counts the pages whose norm times NormScale is below Eps (the denominator
%! ## s ||G|| + Eps, or max (s ||G||, Eps)): ||G|| = 0.9 Eps is tiny at s = 1 and 0.5, not at 2
%! Gt = 0.9e-7 * G / norm (G, "fro");
%! warning ("off", "muonlab:tinyInput", "local");
%! for c = {1, "add", 1; 0.5, "add", 1; 0.5, "max", 1; 2, "add", 0; 2, "max", 0}.'
%!   [~, st] = muon_ns (Gt, "NormScale", c{1}, "EpsPlacement", c{2});
%!   assert (st.tiny_pages, c{3});
%! endfor
%!warning <muon_ns: 1 page\(s\) of G have 0 < NORMSCALE \* norm \(G, 'fro'\) < EPS \(1e-07\): their result is about G / EPS, far from orthogonal\.>
%! muon_ns (0.9e-7 * G / norm (G, "fro"), "NormScale", 0.5);
%!test
%! ## subnormal entries (largest magnitude below Eps / realmax): G / (||G|| + Eps) and five
%! ## of Keller's steps, by hand (the scaled form's Eps / max|G| overflowed: zeros)
%! randn ("state", 6);
%! g = 4e-320 * randn (4, 6);
%! warning ("off", "muonlab:tinyInput", "local");
%! X = muon_ns (g);
%! Xr = g / (norm (g, "fro") + 1e-7);
%! for k = 1:5
%!   A = Xr * Xr';
%!   Xr = 3.4445 * Xr + (-4.7750 * A + 2.0315 * A * A) * Xr;
%! endfor
%! assert (X, Xr, -1e-12);
%! assert (max (abs (X(:))) > 1e-310);
%! ## EpsPlacement max: G / max (||G||, Eps) is G / Eps there too (t = Eps / ||G||
%! ## overflowed: zeros), and a stack's pages as each alone
%! assert (muon_ns (g, "EpsPlacement", "max"), Xr, -1e-12);
%! G3 = cat (3, G(1:4,1:6), g, 1e-9 * G(1:4,1:6));
%! X3 = muon_ns (G3, "EpsPlacement", "max", "NormScale", 1.02);
%! for k = 1:3
%!   assert (X3(:,:,k), muon_ns (G3(:,:,k), "EpsPlacement", "max", "NormScale", 1.02));
%! endfor
%!warning <muon_ns: 2 non-finite values in the result from a finite input \(an overflow of its precision or state\)\.>
%! ## a finite result of the double iteration past single's range is Inf in a single X
%! X = muon_ns (single (eye (2)), "Precision", "double", "Coefficients", [1e30 0 0], "Steps", 2);
%! assert (X, single ([Inf 0; 0 Inf]));
%!test
%! ## Gram over 1000 steps of Keller's schedule in double is the standard iteration (it
%! ## once drifted to about 1e23 here: Q mirrored from its upper half), where no singular
%! ## value of the composed map goes past 1.14 (the SVD says so)
%! randn ("state", 1);
%! Gw = randn (64, 256);
%! x = linspace (0, 1, 10001);       # the composed map, by hand: at most 1.14 on [0, 1]
%! for k = 1:1000
%!   x = 3.4445 * x - 4.7750 * x .^ 3 + 2.0315 * x .^ 5;
%! endfor
%! assert (max (abs (x)) < 1.14);
%! [X, st] = muon_ns (Gw, "Method", "gram", "Precision", "double", "Steps", 1000);
%! assert (st.diverged_pages, 0);
%! assert (max (svd (X)) < 1.14);
%! assert (X, muon_ns (Gw, "Precision", "double", "Steps", 1000), 1e-12);
%! ## what diverges: NormScale 0.6 on a rank-one page puts its singular value at 1/0.6,
%! ## where the map explodes (1.67 -> 9.6 -> 1.7e5 -> 3.4e26, by hand), standard and Gram
%! warning ("off", "muonlab:diverged", "local");
%! G1 = randn (64, 1) * randn (1, 256);
%! x = 1 / 0.6;
%! for k = 1:3
%!   x = 3.4445 * x - 4.7750 * x .^ 3 + 2.0315 * x .^ 5;
%! endfor
%! for m = {"standard", "gram"}
%!   [X, st] = muon_ns (G1, "Method", m{1}, "Precision", "double", "Steps", 3, ...
%!                      "NormScale", 0.6);
%!   assert (st.diverged_pages, 1);
%!   assert (max (svd (X)), x, -1e-6);
%!   [X, st] = muon_ns (G1, "Method", m{1}, "Precision", "double", "Steps", 3);
%!   assert (st.diverged_pages, 0);
%! endfor
%! ## bf16 Gram over a long schedule, restarted only before step 2 (the default): its error
%! ## grows with the steps since its last restart (a singular value of about 500 at 67
%! ## steps, non-finite by 69); a restart every 5 steps keeps it sound
%! [X, st] = muon_ns (Gw, "Method", "gram", "Precision", "bf16", "Gemm", "openblas", ...
%!                    "Steps", 67);
%! assert (st.diverged_pages, 1);
%! assert (max (svd (double (X))) > 2 * 1.13);
%! [X, st] = muon_ns (Gw, "Method", "gram", "Precision", "bf16", "Gemm", "openblas", ...
%!                    "Steps", 67, "Restarts", 5:5:65);
%! assert (st.diverged_pages, 0);
%! assert (max (svd (double (X))) < 1.35 * 1.13);
%!warning <muon_ns: 1 page\(s\) of the result have a singular value of .* or more, where this schedule gives at most 1.2: the iteration diverged \(rounding this schedule cannot absorb in this precision, or for Gram, too many steps since its last restart\)\.>
%! randn ("state", 1);
%! muon_ns (randn (64, 1) * randn (1, 256), "Method", "gram", "Precision", "double", ...
%!          "Steps", 3, "NormScale", 0.6);
%!test
%! ## CANS in bf16: the rounding of its first step (which maps 0.42 to 1.93) takes a singular
%! ## value where the later steps explode (the SVD: 1200, where the schedule gives 1.12)
%! warning ("off", "muonlab:diverged", "local");
%! randn ("state", 4);
%! Gc = cat (3, randn (20, 20), randn (20, 20));
%! Gc = Gc(:,:,[2 1]);
%! [X, st] = muon_ns (Gc, "Coefficients", "cans", "Precision", "bf16");
%! assert (st.diverged_pages, 1);
%! assert (max (svd (X(:,:,2))) > 1000 && max (svd (X(:,:,1))) < 1.5);
%! [X, st] = muon_ns (Gc, "Coefficients", "cans", "Precision", "single");
%! assert (st.diverged_pages, 0);
%! assert (max (svd (X(:,:,2))) < 1.13);
%!test
%! ## no page of a sound run is flagged: every shipped schedule, precision and method (but
%! ## CANS in bf16, above), on an ill-conditioned input, a tiny page, an exactly orthogonal
%! ## one and a square one; each result's largest singular value (the SVD's) within 1.35 x
%! ## the largest of the schedule's map (by hand, on a grid of [0, 1])
%! warning ("off", "muonlab:unsafeSchedule", "local");
%! randn ("state", 3);
%! Gi = randn (24, 80) .* (1:80) .^ 2;
%! G3 = cat (3, randn (20, 20), 1e-3 * randn (20, 20), eye (20), randn (30, 20)(1:20,:));
%! for n = muon_coeffs ()(:).'
%!   C = muon_coeffs (n{1});
%!   x = linspace (0, 1, 20001);
%!   for k = 1:rows (C)
%!     x = C(k,1) * x + C(k,2) * x .^ 3 + C(k,3) * x .^ 5;
%!   endfor
%!   for p = {"double", "single", "bf16", "fp16"}
%!     if (strcmp (n{1}, "cans") && strcmp (p{1}, "bf16"))
%!       continue;
%!     endif
%!     for m = {"standard", "gram"}
%!       for g = {Gi, Gi', G3}
%!         [X, st] = muon_ns (g{1}, "Coefficients", n{1}, "Precision", p{1}, "Method", m{1});
%!         assert (st.diverged_pages, 0);
%!         for k = 1:size (X, 3)
%!           assert (max (svd (X(:,:,k))) < 1.35 * max (abs (x)));
%!         endfor
%!       endfor
%!     endfor
%!   endfor
%! endfor
%!warning id=muonlab:nonFiniteResult
%! ## the peers' cast-first order overflows fp16: carried on, never silently
%! X = muon_ns (1e5 * G, "Precision", "fp16", "NormalizeFirst", false);
%! assert (! all (isfinite (X(:))));
