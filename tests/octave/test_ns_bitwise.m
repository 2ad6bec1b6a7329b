## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_ns_bitwise ()
## Suite (run with @code{test test_ns_bitwise}): Newton-Schulz of the C core in every
## precision (@code{muon_ns}: bf16 / fp16, and single / double in the core's fused order)
## against the independent Octave port @code{ref_ns} (tests/octave, written
## from DESIGN.md 4), BITWISE: same op sequence, same rounding points, same fp64-summed
## norm of the original G, and the same OpenBLAS routine per product (Octave's X*X.' of
## one matrix is SYRK upper + mirror, as core/math/ns_impl.h; every other product GEMM
## NoTrans/NoTrans; so every call here is ns_blas, muon_ns with "Gemm", "openblas": the
## oneDNN default sums in another order).  Every case here is bitwise equal but for single
## and double past one 256-tile of the symmetric products on OpenBLAS's Haswell kernels
## (AVX2: a few ulps, held to 1e-5 / 1e-13; bitwise on its AVX-512 kernels); none needed
## the fallback of "no larger than a one-ulp input change" (whose scale is printed for
## reference).
## Also: ref_round against the definition of the formats, exhaustively.
## @end deftypefn

function test_ns_bitwise ()
  help test_ns_bitwise
endfunction

## ---- ref_round: every bf16 / fp16 pattern round-trips; midpoints go to the even one ----

%!test
%! ## bf16 = the top half of an fp32
%! h = uint32 (0:65535);
%! v = typecast (h * uint32 (65536), "single");
%! r = ref_round (v, "bf16");
%! nan_ok = isnan (v) == isnan (r);
%! same = (r == v) | (isnan (v) & isnan (r));
%! ## signed zeros keep their sign
%! sz = typecast (r(v == 0), "uint32") == typecast (v(v == 0), "uint32");
%! printf ("    bf16: %d patterns, %d round-trip, %d NaN patterns stay NaN\n",
%!         numel (v), nnz (same), nnz (isnan (v) & isnan (r)));
%! assert (all (nan_ok) && all (same) && all (sz));

%!function v = fp16_decode (h)
%!  ## from the definition: 1 sign, 5 exponent (bias 15), 10 fraction bits
%!  h = double (h);
%!  s = floor (h / 32768); e = mod (floor (h / 1024), 32); m = mod (h, 1024);
%!  v = (1 + m / 1024) .* 2 .^ (e - 15);
%!  v(e == 0) = m(e == 0) * 2^-24;
%!  v(e == 31 & m == 0) = Inf;
%!  v(e == 31 & m != 0) = NaN;
%!  v = single (v .* (1 - 2 * s));

%!test
%! v = fp16_decode (0:65535);
%! r = ref_round (v, "fp16");
%! same = (r == v) | (isnan (v) & isnan (r));
%! sz = typecast (r(v == 0), "uint32") == typecast (v(v == 0), "uint32");
%! printf ("    fp16: %d patterns, %d round-trip (%d subnormal, %d NaN)\n", numel (v),
%!         nnz (same), nnz (v != 0 & abs (v) < 2^-14), nnz (isnan (v)));
%! assert (all (same) && all (sz));

%!test
%! ## midpoints between neighbours round to the even one; one fp32 ulp off, to the nearer
%! for prec = {"bf16", "fp16"}
%!   if (strcmp (prec{1}, "bf16"))
%!     v = double (typecast (uint32 (0:32639) * uint32 (65536), "single"));  # 0 .. max
%!     v(end+1) = 2^128;                                # the next "value": Inf
%!   else
%!     v = double (fp16_decode (0:31743));             # 0 .. 65504
%!     v(end+1) = 65536;
%!   endif
%!   lo = v(1:end-1); hi = v(2:end);
%!   mid = single ((lo + hi) / 2);                      # exact in fp32
%!   assert (double (mid), (lo + hi) / 2);
%!   even = mod (0:numel (lo) - 1, 2) == 0;            # pattern index even = mantissa even
%!   want = hi; want(even) = lo(even);
%!   want(want == v(end)) = Inf;                      # past the largest finite
%!   r = double (ref_round (mid, prec{1}));
%!   assert (r, want);
%!   assert (double (ref_round (-mid, prec{1})), -want);
%!   up = typecast (typecast (mid, "uint32") + 1, "single");
%!   dn = typecast (typecast (mid, "uint32") - 1, "single");
%!   hi2 = hi; hi2(end) = Inf;
%!   assert (double (ref_round (up(2:end), prec{1})), hi2(2:end));
%!   assert (double (ref_round (dn(2:end), prec{1})), lo(2:end));
%!   printf ("    %s: %d midpoints to even, %d one-ulp-off to nearer\n", prec{1},
%!           numel (mid), 2 * (numel (mid) - 1));
%! endfor

%!test
%! ## overflow, NaN, Inf, fp32 subnormals
%! x = single ([65519.99 65520 -65520 1e38 NaN -Inf 2^-25 2^-25*(1+2^-20) -2^-26 1e-42]);
%! assert (double (ref_round (x, "fp16")),
%!         [65504 Inf -Inf Inf NaN -Inf 0 2^-24 -0 0]);
%! ## bf16: fp32 subnormals tie to even at bit 16 (0x00018000 -> 0x00020000, 0x00028000 ->
%! ## 0x00020000), the largest finites overflow
%! b = typecast (uint32 ([98304 163840 163841]), "single");
%! assert (typecast (ref_round (b, "bf16"), "uint32"), uint32 ([131072 131072 196608]));
%! assert (double (ref_round (single ([3.4e38 -3.4e38 1e-42 NaN]), "bf16")), [Inf -Inf 0 NaN]);
%! mx = (2 - 2^-7) * 2^127;                           # largest finite bf16
%! assert (double (ref_round (single (mx * (1 + 2^-9)), "bf16")), mx);
%! assert (double (ref_round (single (mx * (1 + 2^-8)), "bf16")), Inf);  # the midpoint

## ---- muon_ns vs ref_ns, bitwise --------------------------------------------------------

%!test
%! ## ref_ns pins OpenBLAS to one thread through the package's gateway: without it the
%! ## comparisons below would not be the core's bits
%! assert (exist ("__muon_blas_threads__"), 3);

%!function X = ns_blas (G, varargin)
%!  ## muon_ns on the OpenBLAS provider: the products ref_ns's single matmuls reproduce
%!  X = muon_ns (G, varargin{:}, "Gemm", "openblas");

%!function [neq, ncase] = sweep (shapes, methods, restarts, nfs, tag, varargin)
%!  neq = 0; ncase = 0;
%!  for s = 1:numel (shapes)
%!    G = shapes{s};
%!    sz = size (G); sz(end+1:3) = 1;
%!    for prec = {"bf16", "fp16"}
%!      for m = methods
%!        if (strcmp (m{1}, "gram")) rl = restarts; else rl = {2}; endif
%!        for rr = rl
%!          for nf = nfs
%!            args = {"Precision", prec{1}, "Method", m{1}, "Restarts", rr{1}, ...
%!                    "NormalizeFirst", nf, varargin{:}};
%!            X = ns_blas (G, args{:});
%!            Y = ref_ns (G, args{:});
%!            ok = isequal (class (X), class (Y)) && isequal (X, Y);
%!            d = max (abs (double (X(:)) - double (Y(:))));
%!            ncase++; neq += ok;
%!            if (! ok)
%!              printf ("    MISMATCH %s %dx%dx%d %s %s restarts=%s nf=%d max|diff|=%g\n",
%!                      tag, sz, prec{1}, m{1}, mat2str (rr{1}), nf, d);
%!            endif
%!          endfor
%!        endfor
%!      endfor
%!    endfor
%!  endfor
%!  printf ("    %s: %d / %d cases bitwise equal\n", tag, neq, ncase);

%!test
%! randn ("state", 11);
%! shapes = {randn(16, 32), randn(32, 16), randn(24, 64), randn(64, 24), randn(2, 3), ...
%!           randn(3, 2)};
%! [neq, n] = sweep (shapes, {"standard", "gram"}, {2, [1 3], []}, [true false], "small");
%! assert (neq, n);

%!test
%! randn ("state", 12);
%! shapes = {randn(64, 128), randn(128, 64), randn(64, 64)};
%! [neq, n] = sweep (shapes, {"standard", "gram"}, {2, [1 3]}, [true false], "64x128");
%! assert (neq, n);

%!test
%! ## batched pages, single input class, and a page of zeros
%! randn ("state", 13);
%! G = randn (16, 40, 3);
%! G(:,:,2) = 0;
%! [neq, n] = sweep ({G, single(randn (40, 16, 2))}, {"standard", "gram"}, {2, [1 3]}, ...
%!                   [true false], "batched");
%! assert (neq, n);
%! assert (all (ns_blas (G, "Precision", "fp16")(:,:,2)(:) == 0));

%!test
%! ## "Fused": each scale-add in its product's epilogue, rounded once (the symmetric A A'
%! ## of the polynomial, its scalars applied afterwards), against the port's fused formulas;
%! ## 260 x 280 cuts the products into 2 x 2 tiles; with the AOL scaling too
%! randn ("state", 18);
%! G = randn (16, 40, 3);
%! G(:,:,2) = 0;
%! shapes = {randn(16, 32), randn(32, 16), randn(3, 2), randn(64, 64), G, randn(260, 280)};
%! [neq, n] = sweep (shapes, {"standard", "gram"}, {2, [1 3]}, [true false], "fused", ...
%!                   "Fused", true);
%! assert (neq, n);
%! for m = {"standard", "gram"}
%!   args = {"Normalize", "aol", "Coefficients", "aol", "Precision", "bf16", ...
%!           "Method", m{1}, "Fused", true};
%!   assert (isequal (ns_blas (shapes{1}, args{:}), ref_ns (shapes{1}, args{:})));
%! endfor
%! ## not the eager bits
%! args = {"Precision", "bf16", "Method", "gram"};
%! assert (! isequal (ns_blas (shapes{4}, args{:}), ns_blas (shapes{4}, args{:}, "Fused", true)));

%!test
%! ## single and double: the core always runs them fused (DESIGN.md 4 allows any order
%! ## there), and Gram keeps R exactly symmetric (c R R' by SYRK, the upper half of the
%! ## products of commuting symmetric matrices, mirrored; Q's update a general product);
%! ## ref_ns models both, so these are bitwise too, "Fused" or not; 260 x 280 is 2 x 2 tiles
%! randn ("state", 19);
%! Z = randn (16, 40, 2);  Z(:,:,2) = 0;
%! shapes = {randn(16, 32), randn(40, 24), randn(3, 2), randn(64, 64), Z, randn(260, 280)};
%! ncase = 0;
%! tiled = tiled_same = 0;
%! for s = 1:numel (shapes)
%!   for prec = {"single", "double"}
%!     for m = {"standard", "gram"}
%!       for rr = {2, [1 3], []}
%!         for extra = {{}, {"Fused", false}, {"NormalizeFirst", false}, ...
%!                      {"Normalize", "aol", "Coefficients", "aol"}, ...
%!                      {"Coefficients", [3 -3.2 1.2; 2 -1.5 0.5], "Steps", 5, ...
%!                       "ScheduleMode", "cycle"}}
%!           args = {"Precision", prec{1}, "Method", m{1}, "Restarts", rr{1}, extra{1}{:}};
%!           G = cast (shapes{s}, prec{1});
%!           X = ns_blas (G, args{:});
%!           R = ref_ns (G, args{:});
%!           what = sprintf ("%dx%d %s %s case %d", rows (G), columns (G), prec{1}, m{1}, ncase);
%!           assert (isequal (class (X), prec{1}), "%s", what);
%!           if (max (size (G)) > 256)
%!             ## the symmetric products past one 256-tile: bitwise on OpenBLAS's AVX-512
%!             ## kernels; its Haswell kernels (AVX2 machines, the octave-avx2 layer) block a
%!             ## tile's sum otherwise than Octave's whole product: a few ulps (4e-6 single)
%!             tiled += 1;
%!             tiled_same += isequal (X, R);
%!             assert (norm (X(:) - R(:)) <= merge (prec{1}(1) == "s", 1e-5, 1e-13) * norm (R(:)),
%!                     "%s", what);
%!           else
%!             assert (isequal (X, R), "%s", what);
%!           endif
%!           ncase++;
%!         endfor
%!       endfor
%!     endfor
%!   endfor
%! endfor
%! printf ("    single / double: %d cases bitwise equal; past a 256-tile %d of %d\n",
%!         ncase - tiled + tiled_same, tiled_same, tiled);

%!test
%! ## 'Normalize', "aol" (Turbo-Muon's scaling, both orders), the first step reusing the
%! ## scaling's Gram; a 2 x 2 tile case (n = 260 > the 256 tile) and a zero page
%! randn ("state", 17);
%! Z = randn (24, 64, 2);  Z(:,:,2) = 0;
%! cases = {randn(24, 64), randn(64, 24), randn(20, 20), Z, randn(260, 280)};
%! ncase = 0;
%! for c = 1:numel (cases)
%!   precs = {"bf16", "fp16"};
%!   if (c == numel (cases)) precs = {"bf16"}; endif
%!   for prec = precs
%!     for m = {"standard", "gram"}
%!       for nf = [true false]
%!         args = {"Normalize", "aol", "Coefficients", "aol", "Precision", prec{1}, ...
%!                 "Method", m{1}, "NormalizeFirst", nf};
%!         X = ns_blas (cases{c}, args{:});
%!         assert (isequal (X, ref_ns (cases{c}, args{:})), "%s",
%!                 sprintf ("aol case %d %s %s nf=%d", c, prec{1}, m{1}, nf));
%!         ncase++;
%!       endfor
%!     endfor
%!   endfor
%! endfor
%! printf ("    aol: %d cases bitwise equal\n", ncase);

%!test
%! ## schedules, step counts and schedule modes, the Gram aspect fallback
%! randn ("state", 14);
%! G = randn (24, 48);
%! ncase = 0;
%! for name = muon_coeffs ()(:)'
%!   for prec = {"bf16", "fp16"}
%!     for m = {"standard", "gram"}
%!       X = ns_blas (G, "Coefficients", name{1}, "Precision", prec{1}, "Method", m{1});
%!       Y = ref_ns (G, "Coefficients", name{1}, "Precision", prec{1}, "Method", m{1});
%!       assert (isequal (X, Y), "%s", sprintf ("%s %s %s", name{1}, prec{1}, m{1}));
%!       ncase++;
%!     endfor
%!   endfor
%! endfor
%! C = [3 -3.2 1.2; 2 -1.5 0.5];
%! for mode = {"repeat_last", "cycle"}
%!   args = {"Coefficients", C, "Steps", 5, "ScheduleMode", mode{1}, "Precision", "bf16"};
%!   assert (isequal (ns_blas (G, args{:}), ref_ns (G, args{:})));
%!   assert (isequal (ns_blas (G, args{:}, "Method", "gram", "Restarts", [1 2 4]),
%!                    ref_ns (G, args{:}, "Method", "gram", "Restarts", [1 2 4])));
%!   ncase += 2;
%! endfor
%! ## GramMinAspect: aspect 1.5 falls back to standard at 2, Gram at 1
%! G = randn (32, 48);
%! for gma = [1 2]
%!   args = {"Method", "gram", "GramMinAspect", gma, "Precision", "fp16"};
%!   assert (isequal (ns_blas (G, args{:}), ref_ns (G, args{:})));
%!   ncase++;
%! endfor
%! assert (isequal (ns_blas (G, "Method", "gram", "GramMinAspect", 2, "Precision", "fp16"),
%!                  ns_blas (G, "Precision", "fp16")));
%! assert (! isequal (ns_blas (G, "Method", "gram", "Precision", "fp16"),
%!                    ns_blas (G, "Precision", "fp16")));
%! printf ("    schedules/modes/fallback: %d cases bitwise equal\n", ncase);

%!test
%! ## normalization: the norm is the fp64 sum of squares of the ORIGINAL (double) G, in
%! ## column-major order, rounded to fp32 (DESIGN.md 4), not the norm of single(G).  Find
%! ## inputs where the two give different fp32 norms AND different fp16 normalized values
%! ## (Coefficients [1 0 0], Steps 1 returns the normalized, rounded matrix unchanged).
%! found = 0; tries = 0; nok = 0;
%! for t = 1:4000
%!   randn ("state", t);
%!   G = randn (64, 128);
%!   g = G(:); d = double (single (g));
%!   n1 = single (sqrt (sum (g .* g))); n2 = single (sqrt (sum (d .* d)));
%!   if (n1 == n2) continue; endif
%!   tries++;
%!   Y1 = ref_round (single (G) ./ (n1 + single (1e-7)), "fp16");
%!   Y2 = ref_round (single (G) ./ (n2 + single (1e-7)), "fp16");
%!   if (isequal (Y1, Y2)) continue; endif
%!   found++;
%!   X0 = ns_blas (G, "Precision", "fp16", "Coefficients", [1 0 0], "Steps", 1);
%!   ok = isequal (X0, double (Y1)) && isequal (ns_blas (G, "Precision", "fp16"),
%!                                              ref_ns (G, "Precision", "fp16"));
%!   nok += ok;
%!   printf ("    seed %d: ||G|| -> %.9g, ||single(G)|| -> %.9g; C %s\n", t, n1, n2,
%!           merge (ok, "uses ||G|| (as specified)",
%!                  merge (isequal (X0, double (Y2)), "uses ||single(G)|| (WRONG)",
%!                         "matches neither")));
%!   if (found == 3) break; endif
%! endfor
%! assert (found > 0);
%! assert (nok, found);

%!test
%! ## the cast-first order overflowing fp16 is reproduced too (NaN pattern and all)
%! randn ("state", 15);
%! G = single (1e5 * randn (16, 48));
%! for m = {"standard", "gram"}
%!   args = {"Precision", "fp16", "NormalizeFirst", false, "Method", m{1}};
%!   w = warning ("off", "all");
%!   X = ns_blas (G, args{:});
%!   warning (w);
%!   assert (isequaln (X, ref_ns (G, args{:})));
%!   assert (isequal (ns_blas (G, args{1:2}, args{5:6}), ref_ns (G, args{1:2}, args{5:6})));
%! endfor

%!test
%! ## for scale (not asserted): how far a one-ulp change of one element of the rounded
%! ## normalized input moves the low-precision result; low-precision NS is chaotic, which
%! ## is why only bitwise equality makes a test (and why every rounding point matters)
%! randn ("state", 16);
%! G = randn (64, 128);
%! k = find (abs (G(:)) > 1 & abs (G(:)) < 1.5, 1);
%! only = {"Coefficients", [1 0 0], "Steps", 1};       # returns r(G / (||G|| + eps))
%! for prec = {"bf16", "fp16"}
%!   pbits = merge (strcmp (prec{1}, "bf16"), 8, 11);
%!   X0 = ns_blas (G, "Precision", prec{1}, only{:});
%!   G2 = G; G2(k) = G(k) * (1 + 2^-pbits * 1.5);       # moves r(X(k)) by one ulp
%!   X02 = ns_blas (G2, "Precision", prec{1}, only{:});
%!   X = ns_blas (G, "Precision", prec{1}); X2 = ns_blas (G2, "Precision", prec{1});
%!   printf ("    %s 64x128: one-ulp change of one input element (%d entry of X0 moved) moves the result by %.3g rel Frobenius, %d of %d entries\n",
%!           prec{1}, nnz (X0 != X02), norm (X - X2, "fro") / norm (X, "fro"),
%!           nnz (X != X2), numel (X));
%! endfor

## ---- the metrics computed in Octave: the same bits on 1 and 2 threads ------------------

%!test
%! ## polar_metrics, muon_ns's trace and ns_plot_spectrum's spectra run their SVDs, eig and
%! ## products on one OpenBLAS thread (blas_one_thread): OPENBLAS_NUM_THREADS 1 and 2 in
%! ## separate processes give the same bits (they differed in the last bits before)
%! [a, b] = thread_runs (["randn ('state', 1); G = randn (300, 700); " ...
%!                        "Q = polar_metrics (G, muon_ns (G)); " ...
%!                        "[~, s] = muon_ns (G(1:100,1:300), 'Trace', true); T = struct (s.trace); " ...
%!                        "[h, S] = ns_plot_spectrum (G(1:120,1:200)); close (h); " ...
%!                        "n = __muon_blas_threads__ (0); " ...
%!                        "save ('-binary', FILE, 'Q', 'T', 'S', 'n');"]);
%! assert (isequaln (a.Q, b.Q));
%! assert (isequaln (a.T, b.T));          # (NaN: the Gram columns of a standard run)
%! assert (isequaln (a.S, b.S));
%! assert ([a.n b.n], [1 2]);             # each process's thread count given back

%!test
%! ## 1 x n, n x 1, 1 x 1 pages and stacks of them (torch.optim.Muon, Keller and DeepSpeed
%! ## take any 2-D tensor): the reference's bits in every precision, standard and Gram with
%! ## restarts, fused or not, normalized first or cast first, the AOL scaling
%! randn ("state", 21);
%! cases = {randn(1, 40), randn(40, 1), -0.75, randn(1, 7, 3), randn(9, 1, 2), zeros(1, 5)};
%! ncase = 0;
%! for c = 1:numel (cases)
%!   for prec = {"double", "single", "bf16", "fp16"}
%!     for m = {{"Method", "standard"}, {"Method", "gram", "Restarts", [1 3]}}
%!       for extra = {{}, {"Fused", true}, {"NormalizeFirst", false}, ...
%!                    {"Normalize", "aol", "Coefficients", "aol"}, ...
%!                    {"Coefficients", "polar_express", "Steps", 7}}
%!         args = {"Precision", prec{1}, m{1}{:}, extra{1}{:}};
%!         G = cases{c};
%!         if (! strcmp (prec{1}, "double"))
%!           G = single (G);
%!         endif
%!         X = ns_blas (G, args{:});
%!         assert (isequal (X, ref_ns (G, args{:})), "%s",
%!                 sprintf ("case %d %s %s %d", c, prec{1}, m{1}{2}, numel (extra{1})));
%!         ncase++;
%!       endfor
%!     endfor
%!   endfor
%! endfor
%! printf ("    vectors: %d cases bitwise equal\n", ncase);
