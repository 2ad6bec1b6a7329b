## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{F} =} ns_flops (@var{m}, @var{n})
## @deftypefnx {muonlab} {@var{F} =} ns_flops (@var{m}, @var{n}, @var{name}, @var{value}, @dots{})
## FLOP model of standard and Gram Newton-Schulz on an @var{m} x @var{n} matrix.
##
## The model is the core's (core/math/ns_flops.c), the one @code{zero_cost} counts with.
## Only matrix products are counted, a general product (p x q)(q x r) costing 2pqr;
## elementwise steps (scale-adds, the normalization) are left out.  The iteration runs on
## the short side (the transpose rule of @code{muon_ns}), so with n = min (@var{m}, @var{n}),
## m = max (@var{m}, @var{n}) and alpha = m/n every count is (c1 alpha + c0) n^3.
## @var{m} and @var{n} may be arrays of one size (or one of them a scalar); every count then
## has that size.  @code{ns_flops (alpha, 1)} gives the coefficients of n^3 directly.
##
## Counts per iteration (general products; n^3 units):
## @example
## standard:  A = X*X' 2 alpha,  (c*A)*A 2,  B*X 2 alpha               = 4 alpha + 2
## gram:      R = X*X' once 2 alpha;  per iteration Z = b R + (c R) R 2;
##            Q = Q Z + a Q 2 (free, Q = Z + a I, at the start and after a restart);
##            RZ = R Z + a R and R = Z RZ + a RZ 4, skipped on the last iteration
##            and before a restart;  a restart: X = Q X 2 alpha, R = X X' 2 alpha;
##            at the end X = Q X 2 alpha
## @end example
## Restarts are 0-based iteration indices as in @code{muon_ns}: index i restarts before
## iteration i; 0 and indices >= Steps never restart; duplicates count once.  With
## @qcode{"Symmetric"}, true the products that @code{muon_ns} computes as symmetric in
## double and single cost half (SYRK-style kernels): X*X', A*A and, in Gram, Z = b R +
## (c R) R, RZ and R (polynomials in R, so they commute: the upper half of Z*R and
## Z*RZ).  Gram's update
## Q = Q Z + a Q stays general (2 per iteration), as do B*X and Q*X: Q is symmetric in
## exact arithmetic too, but @code{muon_ns} forms it by a general product, since a Q
## mirrored from its upper half drifts away from the standard iteration over long
## schedules.  Kernels that halve Q as well (Dao's, whose (6 alpha + 14) n^3 MUON_FACTS
## 4.3 quotes) cost @code{F.gram - F.gram_terms.q / 2}.  bf16 and fp16 run the peers'
## general products for A*A and the Gram n x n products.
##
## The model counts a symmetric product at exactly half (n^2 k for X*X', X n x k), so that
## every count is (c1 alpha + c0) n^3.  The symmetric products of @code{muon_ns} in double
## and single on OpenBLAS (the CPU default; its @code{stats.product_flops}) do a little
## more, most at small n: SYRK's n (n + 1) k for X*X', A*A and Z; and for RZ and R every
## upper 256 x 256 tile, the diagonal ones in 32-column strips each computed from row 1
## down to the diagonal, n (n^2 + 32 n - r (32 - r)) with r = mod (n, 32): 1/2 + 16/n of
## a general product when 32 divides n, all of it up to n = 32.  So there
## product_flops = @code{F.flops + (t.r0 + t.restart_xxt + t.z) / n + t.r_update *
## (32 n - r (32 - r)) / n^2} with t = @code{F.gram_terms} for Method "gram", and
## @code{F.flops + (t.xxt + t.aa) / n} with t = @code{F.standard_terms} for standard: at
## alpha = 2, 5 steps, restarts [2], Gram's product_flops are 1.23, 1.22, 1.11, 1.05,
## 1.027, 1.007 times the model's at n = 16, 32, 64, 128, 256, 1024, standard's 1.027 at
## n = 16 and 1.0004 at 1024.  oneDNN (@code{muon_ns} "Gemm", and bf16 by default where
## the CPU multiplies it natively) computes the diagonal tiles whole: up to n = 256 the
## count of "Symmetric" false.
##
## Closed forms (5 steps): standard (20 alpha + 10) n^3; Gram with restarts [2]
## (8 alpha + 28) n^3, without (4 alpha + 34) n^3; symmetric: standard (15 alpha + 5) n^3,
## Gram with [2] (6 alpha + 17) n^3 ((6 alpha + 14) n^3 with Q halved too).  The
## Gram/standard ratio with [2] is 1.20, 1.00, 0.88, 0.67, 0.62, 0.54 at alpha = 1, 1.5,
## 2, 4, 5, 8 (general) and 0.59 at alpha = 5 (symmetric; 0.55 with Q halved).  @var{F}.gram is the cost of the Gram iteration itself: @code{muon_ns}
## falls back to standard at aspect <= GramMinAspect (square, by default).
##
## Options (names are case-insensitive):
## @table @asis
## @item "Steps"
## number of iterations (default 5).
## @item "Restarts"
## Gram restart list, 0-based (default 2; @code{[]} for none).
## @item "Symmetric"
## false (default): every product general; true: the products @code{muon_ns} computes as
## symmetric cost half (all but Gram's Q update, B*X and Q*X).
## @item "Method"
## @qcode{"standard"} (default) or @qcode{"gram"}: which count goes into @var{F}.flops.
## @end table
##
## @var{F} is an @code{ns_flops_result} (typing it prints the FLOPs first and a row per
## shape; @code{struct (F)} gives the plain struct) with the fields @code{m}, @code{n} (long and short side), @code{alpha},
## @code{standard}, @code{gram}, @code{ratio} (gram ./ standard), @code{method},
## @code{flops} (the count of Method), @code{standard_coeffs} and @code{gram_coeffs}
## ([c1 c0]: the count is (c1 alpha + c0) n^3), @code{gram_steps} (Steps x 2: [c1 c0]
## of each iteration, the restart before it included, R = X*X' in the first row and the
## final X = Q*X in the last), @code{standard_terms} (fields @code{xxt}, @code{aa},
## @code{bx}) and @code{gram_terms} (fields @code{r0}, @code{z}, @code{q}, @code{r_update},
## @code{restart_qx}, @code{restart_xxt}, @code{final_qx}) in FLOPs, and the options
## @code{steps}, @code{restarts} (the effective list) and @code{symmetric}.
##
## Example:
## @example
## F = ns_flops (1024, 5120);
## F.ratio          % 0.62 = 68/110
## F.gram_coeffs    % [8 28]
## ns_flops (5, 1, "Symmetric", true).ratio   % 0.59 = 47/80
## @end example
##
## @seealso{muon_ns, polar_metrics}
## @end deftypefn

function F = ns_flops (m, n, varargin)
  if (nargin < 2)
    print_usage ();
  endif
  check_size ("M", m);
  check_size ("N", n);
  if (! (isscalar (m) || isscalar (n) || isequal (size (m), size (n))))
    error ("muonlab:badShape",
           "ns_flops: M and N must have the same size (or one must be a scalar).");
  endif
  v = parse_options ("ns_flops", "ns_flops", varargin);
  ## the model is the core's (muon_math.h, core/math/ns_flops.c), as zero_cost's
  F = __muon_ns_flops__ (double (m), double (n), v.steps, double (v.restarts(:).'),
                         double (v.symmetric));
  F.m = max (double (m), double (n));
  F.n = min (double (m), double (n));
  F.alpha = F.m ./ F.n;
  F.ratio = F.gram ./ F.standard;
  F.method = v.method;
  if (strcmp (v.method, "gram"))
    F.flops = F.gram;
  else
    F.flops = F.standard;
  endif
  F.steps = v.steps;
  F.symmetric = v.symmetric;
  F = orderfields (F, {"m", "n", "alpha", "standard", "gram", "ratio", "method", "flops", ...
                       "standard_coeffs", "gram_coeffs", "gram_steps", "standard_terms", ...
                       "gram_terms", "steps", "restarts", "symmetric"});
  F = ns_flops_result (F);              # typing F prints the answer first
endfunction

## (at most 2^53: larger sizes overflowed the counts to Inf and the ratios to NaN)
function check_size (what, x)
  if (! (isnumeric (x) && isreal (x) && ! isempty (x) && ! issparse (x)
         && all (isfinite (x(:))) && all (x(:) > 0) && all (x(:) <= 2^53)))
    error ("muonlab:badArg", "ns_flops: %s must be positive real numbers of at most 2^53.", what);
  endif
endfunction

%!demo
%! ## Gram against standard Newton-Schulz: the work per aspect ratio
%! for n = [1024 2048 4096 8192]
%!   F = ns_flops (1024, n);
%!   printf ("1024 x %4d: gram / standard = %.2f\n", n, F.ratio);
%! endfor

%!test
%! F = ns_flops (5, 1);
%! assert (F.standard, 110);
%! assert (F.gram, 68);
%! assert (F.standard_coeffs, [20 10]);
%! assert (F.gram_coeffs, [8 28]);
%! assert (F.gram_steps, [2 6; 0 4; 4 6; 0 8; 2 4]);
%! assert (F.method, "standard");
%! assert (F.flops, 110);

%!test
%! ## closed forms, in n^3 units and in FLOPs
%! for a = [1 1.5 2 3 4 5 8 100]
%!   F = ns_flops (a, 1);
%!   assert (F.standard, 20*a + 10, 1e-12);
%!   assert (F.gram, 8*a + 28, 1e-12);
%!   assert (ns_flops (a, 1, "Restarts", []).gram, 4*a + 34, 1e-12);
%!   Fs = ns_flops (a, 1, "Symmetric", true);
%!   assert (Fs.standard, 15*a + 5, 1e-12);
%!   ## Q's 3 updates (iterations 1, 3, 4) general: 2 each, where MUON_FACTS 4.3's
%!   ## (6 alpha + 14) halves them
%!   assert (Fs.gram, 6*a + 17, 1e-12);
%!   assert (Fs.gram_terms.q, 6);
%!   assert (Fs.gram_terms.q, ns_flops (a, 1).gram_terms.q);
%!   assert (Fs.gram - Fs.gram_terms.q / 2, 6*a + 14, 1e-12);
%! endfor
%! F = ns_flops (1024, 4096);
%! assert (F.standard, (20*4 + 10) * 1024^3);
%! assert (F.gram, (8*4 + 28) * 1024^3);
%! assert (ns_flops (4096, 1024).gram, F.gram);

%!test
%! ## the Gram/standard ratios of the FLOP model (8 alpha + 28) / (20 alpha + 10), restart at 2
%! F = ns_flops ([1 1.5 2 4 5 8], 1);
%! assert (round (100 * F.ratio), [120 100 88 67 62 54]);
%! assert (ns_flops (1e9, 1).ratio, 0.4, 1e-8);
%! Fs = ns_flops (5, 1, "Symmetric", true);
%! assert (Fs.ratio, 47/80, 1e-15);
%! assert (round (100 * Fs.ratio), 59);
%! assert (ns_flops (1e9, 1, "symmetric", 1).ratio, 0.4, 1e-8);

%!function c = upper_tiles (n)  # 2 k (upper tiles + strips) of an n x n x n product
%!  c = 0;
%!  for i0 = 0:256:n-1
%!    for j0 = i0:256:n-1
%!      d = min (256, n - i0);
%!      w = min (256, n - j0);
%!      if (i0 == j0)
%!        for s0 = 0:32:d-1
%!          c += 2 * (s0 + min (32, d - s0)) * min (32, d - s0) * n;
%!        endfor
%!      else
%!        c += 2 * d * w * n;
%!      endif
%!    endfor
%!  endfor

%!test
%! ## muon_ns's own count (OpenBLAS, double and single) against the help's formula and the
%! ## tiling written out here: SYRK n (n + 1) k; the upper half of an n x n product in
%! ## 256-tiles, the diagonal ones in 32-column strips down to the diagonal (the model's
%! ## exact half was 1.23x low for Gram at n = 16)
%! ratios = [];
%! for n = [16 32 48 64 128 256 300 1024]
%!   m = 2 * n;
%!   r = mod (n, 32);
%!   up = upper_tiles (n);
%!   assert (up, n * (n^2 + 32 * n - r * (32 - r)));
%!   syrk = @(k) n * (n + 1) * k;
%!   ## Gram, restart [2]: R0 and the restart's X X'; Z on 5 iterations; Q on 1, 3, 4;
%!   ## RZ and R on 0, 2, 3; the restart's and the final Q X
%!   want = 2 * syrk (m) + 5 * syrk (n) + 3 * 2 * n^3 + 6 * up + 2 * 2 * n^2 * m;
%!   F = ns_flops (n, m, "Symmetric", true, "Method", "gram");
%!   t = F.gram_terms;
%!   help_formula = F.flops + (t.r0 + t.restart_xxt + t.z) / n ...
%!                  + t.r_update * (32*n - r*(32-r)) / n^2;
%!   assert (help_formula, want, 1e-9 * want);
%!   Fs = ns_flops (n, m, "Symmetric", true);
%!   ts = Fs.standard_terms;
%!   want_s = 5 * (syrk (m) + syrk (n) + 2 * n^2 * m);
%!   assert (Fs.flops + (ts.xxt + ts.aa) / n, want_s, 1e-9 * want_s);
%!   for cls = {"double", "single"}
%!     G = reshape (sin (1:n*m), n, m);
%!     [~, s] = muon_ns (cast (G, cls{1}), "Method", "gram", "Gemm", "openblas");
%!     assert (s.product_flops, want);
%!     [~, s] = muon_ns (cast (G, cls{1}), "Gemm", "openblas");
%!     assert (s.product_flops, want_s);
%!   endfor
%!   ratios(end+1) = want / F.flops;
%! endfor
%! ## the help's numbers, n = 16, 32, 64, 128, 256, 1024
%! assert (round (1000 * ratios([1 2 4 5 6 8])), [1226 1217 1108 1054 1027 1007]);

%!test
%! ## vectorized: arrays of one size, or a scalar with an array
%! n = [256 512; 1024 2048];
%! F = ns_flops (4 * n, n);
%! assert (size (F.gram), [2 2]);
%! assert (F.gram, 60 * n.^3);
%! assert (F.alpha, 4 * ones (2, 2));
%! F = ns_flops (1024, [1024 2048 4096]);
%! assert (F.standard, [30 50 90] * 1024^3);
%! assert (F.m, [1024 2048 4096]);
%! assert (F.n, [1024 1024 1024]);

%!test
%! ## terms add up; restart bookkeeping
%! F = ns_flops (3, 1, "Restarts", [1 3], "Method", "gram");
%! t = struct2cell (F.gram_terms);
%! assert (sum ([t{:}]), F.gram, 1e-12);
%! t = struct2cell (F.standard_terms);
%! assert (sum ([t{:}]), F.standard, 1e-12);
%! assert (F.flops, F.gram);
%! ## R0 2a; it0: Z 2 (R update skipped: restart next); restart 4a; it1: Z 2, R 4;
%! ## it2: Z 2, Q 2 (R skipped); restart 4a; it3: Z 2, R 4; it4: Z 2, Q 2; end 2a
%! assert (F.gram_coeffs, [12 22]);
%! assert (F.gram_steps, [2 2; 4 6; 0 4; 4 6; 2 4]);
%! assert (F.gram_terms.restart_qx, 2 * 2 * 3);
%! assert (F.gram_terms.restart_xxt, 2 * 2 * 3);
%! ## 0, duplicates and indices past the end never restart
%! assert (ns_flops (3, 1, "Restarts", [0 2 2 5 9]).gram, ns_flops (3, 1).gram);
%! assert (ns_flops (3, 1, "Restarts", [0 2 2 5 9]).restarts, 2);
%! assert (ns_flops (3, 1, "Restarts", 0).gram, ns_flops (3, 1, "Restarts", []).gram);

%!test
%! ## general steps: standard (4a + 2) per step; Gram without restarts
%! ## 2a + 2 + 4 + (s-2) * 8 + 4 + 2a for s >= 2, and 4a + 2 for s = 1
%! for s = 1:9
%!   F = ns_flops (6, 1, "Steps", s, "Restarts", []);
%!   assert (F.standard, s * (4*6 + 2));
%!   if (s == 1)
%!     assert (F.gram, 4*6 + 2);
%!   else
%!     assert (F.gram, 4*6 + 6 + 4 + 8 * (s - 2));
%!   endif
%!   ## each restart adds 4a - 6: X = Q X and X X' (4a), less Q Z (2) and the R update
%!   ## skipped before it (4); (8a + 28) - (4a + 34) is the case s = 5, one restart
%!   assert (ns_flops (6, 1, "Steps", s, "Restarts", 1:s-1).gram - F.gram,
%!           (s - 1) * (4*6 - 6), 1e-12);
%! endfor

%!error <Invalid call> ns_flops ()
%!error <Invalid call> ns_flops (4)
%!error <ns_flops: M must be positive real numbers of at most 2\^53.> ns_flops (0, 4)
%!error <ns_flops: M must be positive real numbers of at most 2\^53.> ns_flops (-1, 4)
%!error <ns_flops: M must be positive real numbers of at most 2\^53.> ns_flops ([], 4)
%!error <ns_flops: M must be positive real numbers of at most 2\^53.> ns_flops ("a", 4)
%!error <ns_flops: M must be positive real numbers of at most 2\^53.> ns_flops (1i, 4)
%!error <ns_flops: N must be positive real numbers of at most 2\^53.> ns_flops (4, Inf)
%!error <ns_flops: N must be positive real numbers of at most 2\^53.> ns_flops (4, NaN)
%!error <ns_flops: N must be positive real numbers of at most 2\^53.> ns_flops (4, 1e300)
%!error <ns_flops: M and N must have the same size \(or one must be a scalar\).> ns_flops ([1 2], [1 2 3])
%!error <ns_flops: options must be NAME, VALUE pairs.> ns_flops (4, 4, "Steps")
%!error <ns_flops: option names must be strings.> ns_flops (4, 4, 1, 2)
%!error <^ns_flops: unknown option 'Foo'\. Options: .*\.$> ns_flops (4, 4, "Foo", 1)
%!error <ns_flops: STEPS must be a positive integer \(at most 1000\).> ns_flops (4, 4, "Steps", 0)
%!error <ns_flops: STEPS must be a positive integer \(at most 1000\).> ns_flops (4, 4, "Steps", 2.5)
%!error <ns_flops: STEPS must be a positive integer \(at most 1000\).> ns_flops (4, 4, "Steps", [5 5])
%!error <ns_flops: RESTARTS must be a vector of non-negative integers.> ns_flops (4, 4, "Restarts", -1)
%!error <ns_flops: RESTARTS must be a vector of non-negative integers.> ns_flops (4, 4, "Restarts", 1.5)
%!error <ns_flops: RESTARTS must be a vector of non-negative integers.> ns_flops (4, 4, "Restarts", "2")
%!error <ns_flops: SYMMETRIC must be true or false.> ns_flops (4, 4, "Symmetric", 2)
%!error <ns_flops: SYMMETRIC must be true or false.> ns_flops (4, 4, "Symmetric", "yes")
%!error <ns_flops: METHOD must be 'standard' or 'gram'.> ns_flops (4, 4, "Method", "fast")
%!error <ns_flops: METHOD must be 'standard' or 'gram'.> ns_flops (4, 4, "Method", 1)
%!error <ns_flops: M must be positive real numbers of at most 2\^53\.> ns_flops (0, 4)
%!error id=muonlab:badArg ns_flops (0, 4)
%!error <ns_flops: M and N must have the same size \(or one must be a scalar\)\.> ns_flops ([1 2], [1 2 3])
%!error id=muonlab:badShape ns_flops ([1 2], [1 2 3])
