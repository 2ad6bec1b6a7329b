## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{C} =} ns_design_coeffs (@var{steps})
## @deftypefnx {muonlab} {@var{C} =} ns_design_coeffs (@var{steps}, @var{name}, @var{value}, @dots{})
## @deftypefnx {muonlab} {[@var{C}, @var{info}] =} ns_design_coeffs (@dots{})
## Design a Newton-Schulz coefficient schedule by the Polar Express construction.
##
## The construction (Amsel, Persson, Musco, Gower 2025, arXiv 2505.16932): the singular
## values of the normalized input lie in [l, u] = [Lower, 1].  Each step takes the odd
## quintic p(x) = a x + b x^3 + c x^5 that is the minimax-optimal approximation of 1 on
## the current interval (it equioscillates at l, two interior points and u with error E,
## found by the four-point Remez exchange), and maps the interval forward: the new lower
## end is p(l) and the new upper end 2 - p(l) (= 1 + E).  When the interval has shrunk to
## l/u >= 1 - 5e-6 the limiting polynomial (15/8, -10/8, 3/8) / (u, u^3, u^5) is used, as
## the authors do.  @var{C} is the @var{steps} x 3 schedule, ready for
## @code{muon_ns (G, "Coefficients", C)}.
##
## Options (names are case-insensitive):
## @table @asis
## @item "Lower"
## l, the smallest singular value the schedule is designed for, 0 < l < 1 (default 1e-3).
## A step is designed on an interval whose ends are at most 1e12 apart (a step designed
## on a wider one cannot be placed in double precision: its map would go negative): a
## smaller l needs a @qcode{"Cushion"} of at least 1e-12.
## @item "Cushion"
## 0 <= cushion < 1 (default 0).  Each step is designed on [max(l, cushion*u), u] instead
## of [l, u] and, when the cushion is above l, rescaled so that p(l) + p(u) = 2 (the
## image of [l, u] is centred on 1 again).  This keeps the early, very steep polynomials
## from amplifying round-off, at the price of a slower start.
## @item "Safety"
## s >= 1 (default 1, none).  A step is divided as (a/s, b/s^3, c/s^5), i.e. the
## polynomial is evaluated at x/s, so that singular values up to s (round-off pushing them
## past the designed interval) are not sent off by the steep polynomial.  With
## @qcode{"construct"}, a divided step maps l to a smaller value, so a large s (with a
## small l) can leave a later step an interval whose ends are more than 1e12 apart: an
## error, as for @qcode{"Lower"}.
## @item "SafetyMode"
## @qcode{"construct"} (default; the paper's way): each divided step maps the interval
## forward, so the next step is designed for what the divided one produces.
## @qcode{"after"}: the schedule is designed without the factor and every step is divided
## afterwards (the intervals are those of the undivided schedule; Dao's and
## Emerging-Optimizers' tables).
## @item "SafetyLast"
## whether the last step is divided too (default false; Dao's table divides all five).
## @item "Display"
## @qcode{"off"} (default), @qcode{"final"} (one line at the end) or @qcode{"iter"} (also
## one line per designed step with its interval, error and the elapsed time), as in
## @code{optimset}.
## @end table
##
## The optional @var{info} has, per step k: @code{lower(k)}, @code{upper(k)} (the interval
## the step is applied to, with @code{lower(steps+1)}, @code{upper(steps+1)} the image of
## the last one), @code{design_lower(k)} (the lower end the polynomial was designed for:
## the cushioned one), @code{error(k)} (E of that minimax polynomial) and
## @code{bound(k)} = max (1 - lower(k+1), upper(k+1) - 1), the worst distance from 1 of a
## singular value that started in [Lower, 1] after step k (in exact arithmetic, before any
## "after" safety division).
##
## The schedules muonlab ships are this construction with these settings (a test
## regenerates each against the table it was published in: microsoft/dion's and
## Dao-AILab/gram-newton-schulz's to 1e-12 relative per coefficient, NVIDIA
## Emerging-Optimizers' 4-decimal table to 1e-4):
## @table @code
## @item polar_express_dion
## @code{ns_design_coeffs (5, "Lower", 1e-3, "Cushion", 0.02, "Safety", 1.02)}
## @item polar_express
## (Dao's values before the 1.05 factor, the paper's published table)
## @code{ns_design_coeffs (5, "Lower", 1e-3, "Cushion", 0.02407327424182751)}; with the
## factor: add @code{"Safety", 1.05, "SafetyMode", "after", "SafetyLast", true}.  The
## cushion is not a round number: it is the lower end whose optimal quintic on
## [cushion, 1] has error E = 9/11, i.e. maps [cushion, 1] onto [2/11, 20/11], a ratio of
## 10 between the smallest and the largest image (found here by matching the published
## first triple, and confirmed by this characterization to 1e-12).
## @item polar_express_eo
## 8 steps, the same cushion, @code{"Safety", 1.01, "SafetyMode", "after"} (its table
## has 4 decimals, agreeing to 1e-4).
## @end table
##
## Example:
## @example
## C = ns_design_coeffs (5, "Lower", 1e-3, "Cushion", 0.02, "Safety", 1.02);
## max (abs (C ./ muon_coeffs ("polar_express_dion") - 1)(:))   % ~1e-15
## [~, info] = ns_design_coeffs (8, "Lower", 1e-3);
## info.bound.'     % how close to 1 every singular value in [1e-3, 1] gets, per step
## @end example
##
## @seealso{muon_coeffs, muon_ns, ns_restart_autotune}
## @end deftypefn

function [C, info] = ns_design_coeffs (steps, varargin)
  fname = "ns_design_coeffs";
  if (nargin < 1)
    print_usage ();
  endif
  smax = core_lists ().limits.max_steps;        # the core's limit, defined once
  if (! (isnumeric (steps) && isscalar (steps) && isreal (steps) && steps == fix (steps)
         && steps >= 1 && steps <= smax))
    error ("muonlab:badArg", "%s: STEPS must be a positive integer (at most %d).", fname, smax);
  endif
  steps = double (steps);
  o = parse_options (fname, "ns_design_coeffs", varargin);
  ## each option read from its own field: struct () with these values made a cell value
  ## ({}, {1, "a"}) a struct array or unwrapped {"after"}, so a cell crashed or was accepted
  l = o.lower;
  if (! (isnumeric (l) && isscalar (l) && isreal (l) && l > 0 && l < 1))
    error ("muonlab:badArg", "%s: LOWER must be a real scalar with 0 < LOWER < 1.", fname);
  endif
  cushion = o.cushion;
  if (! (isnumeric (cushion) && isscalar (cushion) && isreal (cushion) && cushion >= 0
         && cushion < 1))
    error ("muonlab:badArg", "%s: CUSHION must be a real scalar with 0 <= CUSHION < 1.",
           fname);
  endif
  s = o.safety;
  if (! (isnumeric (s) && isscalar (s) && isreal (s) && isfinite (s) && s >= 1))
    error ("muonlab:badArg", "%s: SAFETY must be a finite real scalar of at least 1.",
           fname);
  endif
  mode = choose_option (fname, "SAFETYMODE", o.safetymode, {"construct", "after"});
  last = o.safetylast;
  if (! (isscalar (last) && (islogical (last) || (isnumeric (last) && any (last == [0 1])))))
    error ("muonlab:badArg", "%s: SAFETYLAST must be true or false.", fname);
  endif
  [l, cushion, s, last] = deal (double (l), double (cushion), double (s), logical (last));

  div = [s, s^3, s^5];
  u = 1;
  C = zeros (steps, 3);
  info = struct ("lower", zeros (steps + 1, 1), "upper", zeros (steps + 1, 1),
                 "design_lower", zeros (steps, 1), "error", zeros (steps, 1),
                 "bound", zeros (steps, 1));
  t0 = tic ();
  for k = 1:steps
    info.lower(k) = l;
    info.upper(k) = u;
    lo = l;
    if (cushion > 0)
      lo = max (l, cushion * u);
    endif
    if (lo / u < 1e-12)
      ## p has a near-double root at its interior minimum 1 - E, about 8.5 lo / u: below
      ## 1e-12 the round-off of the coefficients (1e-15 of p there) exceeds it, and the
      ## step's map dips below zero (it reached -0.35 over 5 steps from 1e-16)
      if (k == 1)
        error ("muonlab:badArg",
               "%s: step %d would be designed on [%g, %g]; LOWER must be at least 1e-12 times the upper end (or use a CUSHION).",
               fname, k, lo, u);
      endif
      ## a later step's interval is what the divided steps before it produce
      error ("muonlab:badArg",
             "%s: step %d would be designed on [%g, %g], whose ends are more than 1e12 apart; the steps' intervals come from LOWER and SAFETY (use a smaller SAFETY, a larger LOWER or a CUSHION).",
             fname, k, lo, u);
    endif
    [c, E] = optimal_quintic (lo, u, fname);
    if (cushion * u > l)
      ## designed on [cushion u, u]: rescale so that the image of [l, u] is centred on 1
      c *= 2 / (odd5 (c, l) + odd5 (c, u));
    endif
    divided = s != 1 && (k < steps || last);
    if (divided && strcmp (mode, "construct"))
      c ./= div;
    endif
    info.design_lower(k) = lo;
    info.error(k) = E;
    C(k,:) = c;
    l = odd5 (c, l);
    u = 2 - l;
    l = min (l, u);     # a safety factor can push a converged interval past 1
    info.bound(k) = max (1 - l, u - 1);
    if (divided && strcmp (mode, "after"))
      C(k,:) = c ./ div;
    endif
    if (strcmp (o.display, "iter"))
      printf ("%s: step %d of %d on [%.4g, %.4g]: max error %.4g, bound %.4g  (%.2f s)\n",
              fname, k, steps, info.design_lower(k), info.upper(k), E, info.bound(k), toc (t0));
    endif
  endfor
  if (! strcmp (o.display, "off"))
    printf ("%s: %d steps designed in %.2f s; final interval [%.6g, %.6g]\n", fname, steps,
            toc (t0), l, u);
  endif
  info.lower(steps + 1) = l;
  info.upper(steps + 1) = u;
endfunction

function y = odd5 (c, x)
  y = c(1) * x + c(2) * x .^ 3 + c(3) * x .^ 5;
endfunction

## The odd quintic closest to 1 in the max norm on [l, u] (0 < l <= u), and its error E:
## p(l) = 1 - E, p(q) = 1 + E, p(r) = 1 - E, p(u) = 1 + E at the critical points q < r of p,
## by the four-point exchange (solve for a, b, c, E; move q, r to the roots of p').
function [c, E] = optimal_quintic (l, u, fname)
  if (l / u >= 1 - 5e-6)
    ## the equioscillating polynomial of a vanishing interval, numerically
    c = [15/8 / u, -10/8 / u^3, 3/8 / u^5];
    E = 0;
    return;
  endif
  q = (3 * l + u) / 4;
  r = (l + 3 * u) / 4;
  E = Inf;
  for it = 1:200
    old = E;
    M = [l, l^3, l^5, 1; q, q^3, q^5, -1; r, r^3, r^5, 1; u, u^3, u^5, -1];
    x = M \ ones (4, 1);
    c = x(1:3).';
    E = x(4);
    ## q, r are the roots of p'(x) = a + 3 b x^2 + 5 c x^4.  Their gap, and with it the
    ## discriminant, is O((u - l)^2) and meets round-off as the interval nears the switch
    ## above (c is known to about eps / (1 - l/u)^2 there): a negative value is round-off
    ## of a double root, so it is taken as 0 (q = r; the next solve then gives E = 0).
    d = sqrt (max (c(2)^2 * 9 - 20 * c(1) * c(3), 0));
    q = sqrt ((-3 * c(2) - d) / (10 * c(3)));
    r = sqrt ((-3 * c(2) + d) / (10 * c(3)));
    if (abs (old - E) <= 1e-15)
      return;
    endif
  endfor
  error ("muonlab:internal", "%s: the Remez exchange on [%g, %g] did not converge.", fname,
         l, u);
endfunction

%!error <ns_design_coeffs: step 1 would be designed on \[1e-13, 1\]; LOWER must be at least 1e-12 times the upper end \(or use a CUSHION\).> ns_design_coeffs (5, "Lower", 1e-13)
%!error <ns_design_coeffs: step 2 would be designed on \[8\.47033e-303, 2\], whose ends are more than 1e12 apart; the steps' intervals come from LOWER and SAFETY \(use a smaller SAFETY, a larger LOWER or a CUSHION\)\.> ns_design_coeffs (3, "Safety", 1e300)
%!test
%! ## the same safety factor with a cushion: every step is designed on [cushion u, u]
%! C = ns_design_coeffs (3, "Safety", 1e300, "Cushion", 0.1);
%! assert (size (C), [3 3]);
%!test
%! ## the floor: from Lower 1e-12 the composed map stays in [info.lower(end),
%! ## info.upper(end)] on a dense grid (from 1e-16 it went to [-2, 1e295]); with a cushion
%! ## any Lower may be asked for, and no singular value is reversed (the top end leaves
%! ## info.upper by the round-off of p(1) times the steps' slopes there)
%! for a = {{"Lower", 1e-12}, {"Lower", 1e-16, "Cushion", 1e-3}}
%!   [C, info] = ns_design_coeffs (8, a{1}{:}, "Display", "off");
%!   x = [logspace(log10 (a{1}{2}), 0, 200001), linspace(a{1}{2}, 1, 200001)];
%!   p = x;
%!   for k = 1:8
%!     p = C(k,1) * p + C(k,2) * p .^ 3 + C(k,3) * p .^ 5;
%!   endfor
%!   assert (min (p), info.lower(end), 1e-9 * info.lower(end));
%!   assert (max (p) <= info.upper(end) + 1e-6);
%! endfor

%!shared CU
%! CU = 0.02407327424182751;

%!test
%! ## microsoft/dion's table: regenerated to 1e-12 per coefficient
%! C = ns_design_coeffs (5, "Lower", 1e-3, "Cushion", 0.02, "Safety", 1.02);
%! T = muon_coeffs ("polar_express_dion");
%! err = max (abs (C(:) ./ T(:) - 1));
%! printf ("    polar_express_dion: max relative difference %.2g\n", err);
%! assert (err <= 1e-12);

%!test
%! ## Dao's table, before and after the 1.05 factor (a/s, b/s^3, c/s^5)
%! T = muon_coeffs ("polar_express");
%! raw = T .* [1.05, 1.05^3, 1.05^5];
%! C0 = ns_design_coeffs (5, "Lower", 1e-3, "Cushion", CU);
%! C1 = ns_design_coeffs (5, "Lower", 1e-3, "Cushion", CU, "Safety", 1.05,
%!                        "SafetyMode", "after", "SafetyLast", true);
%! e0 = max (abs (C0(:) ./ raw(:) - 1));
%! e1 = max (abs (C1(:) ./ T(:) - 1));
%! printf ("    polar_express: before 1.05 %.2g, after %.2g\n", e0, e1);
%! assert (e0 <= 1e-12 && e1 <= 1e-12);
%! ## the published raw values themselves (the paper's table, as Dao's file lists them)
%! pub = [8.28721201814563, -23.595886519098837, 17.300387312530933;
%!        4.107059111542203, -2.9478499167379106, 0.5448431082926601];
%! assert (C0(1:2,:), pub, -1e-12);

%!test
%! ## the cushion is the lower end whose optimal quintic on [cushion, 1] has E = 9/11
%! E = @(c) nthargout (2, @ns_design_coeffs, 1, "Lower", c).error(1) - 9/11;
%! c = fzero (E, [0.01, 0.05], optimset ("TolX", 1e-16));
%! printf ("    cushion from E = 9/11: %.17g (table: %.17g)\n", c, CU);
%! assert (c, CU, -1e-12);

%!test
%! ## Emerging-Optimizers' 8-step table, last step undivided: it lists 4
%! ## decimals, cut rather than rounded in places (8.2051 for 8.20516), so within 1e-4
%! C = ns_design_coeffs (8, "Lower", 1e-3, "Cushion", CU, "Safety", 1.01,
%!                       "SafetyMode", "after");
%! assert (C, muon_coeffs ("polar_express_eo"), 1e-4);

%!test
%! ## closed form: each step equioscillates (1 -+ E at 4 points of its design interval)
%! [C, info] = ns_design_coeffs (4, "Lower", 0.05);
%! for k = 1:4
%!   x = linspace (info.lower(k), info.upper(k), 200001);
%!   p = C(k,1) * x + C(k,2) * x.^3 + C(k,3) * x.^5;
%!   assert (max (abs (1 - p)), info.error(k), 1e-9);
%!   assert (p(1), 1 - info.error(k), 1e-12);
%!   assert (p(end), 1 + info.error(k), 1e-12);
%!   assert ([info.lower(k+1), info.upper(k+1)], [1 - info.error(k), 1 + info.error(k)], 1e-12);
%! endfor
%! ## the composed map on a grid of [l, 1] stays within the bound of each step
%! s = logspace (log10 (0.05), 0, 5001);
%! for k = 1:4
%!   s = C(k,1) * s + C(k,2) * s.^3 + C(k,3) * s.^5;
%!   assert (max (abs (1 - s)) <= info.bound(k) + 1e-12);
%! endfor
%! assert (info.bound(4) < 1e-3);

%!test
%! ## a vanishing interval gives the limiting polynomial; one step of "construct" safety
%! C = ns_design_coeffs (12, "Lower", 0.5);
%! assert (C(end,:), [15/8, -10/8, 3/8], 1e-9);
%! C1 = ns_design_coeffs (1, "Lower", 0.5, "Safety", 1.1);
%! assert (C1, ns_design_coeffs (1, "Lower", 0.5));              # last step: undivided
%! C2 = ns_design_coeffs (1, "Lower", 0.5, "Safety", 1.1, "SafetyLast", true);
%! assert (C2, C1 ./ [1.1, 1.1^3, 1.1^5], -1e-15);

%!test
%! ## a step whose interval lands just below the 1 - 5e-6 switch: the discriminant of p'
%! ## is round-off there (it went negative and made the schedule complex).  The schedule
%! ## is real and continuous in Lower: neighbours map every singular value alike (plain
%! ## evaluation) and agree per coefficient to 1e-6, except on that step, whose
%! ## coefficients are known only to about eps / (1 - l/u)^2 ~ 1e-5 (the map is not).
%! for t = {{10, 0.00050238130880082019}, {12, 2.7957042590548445e-05}}
%!   [st, L0] = t{1}{:};
%!   [C0, info] = ns_design_coeffs (st, "Lower", L0);
%!   assert (isreal (C0) && isreal (info.lower) && all (isfinite (C0(:))));
%!   near = abs (info.lower(1:st) ./ info.upper(1:st) - 1) < 1e-4;
%!   assert (nnz (near & info.lower(1:st) ./ info.upper(1:st) < 1 - 5e-6), 1);
%!   s0 = logspace (log10 (L0), 0, 2001);
%!   m0 = s0;
%!   for k = 1:st
%!     m0 = C0(k,1) * m0 + C0(k,2) * m0.^3 + C0(k,3) * m0.^5;
%!   endfor
%!   assert (max (abs (1 - m0)) <= info.bound(st) + 1e-15);
%!   for L = L0 * (1 + [-1e-6, -1e-9, 1e-9, 1e-6])
%!     C = ns_design_coeffs (st, "Lower", L);
%!     assert (isreal (C));
%!     assert (C(! near,:), C0(! near,:), 1e-6);
%!     assert (C(near,:), C0(near,:), 1e-3);
%!     m = s0;
%!     for k = 1:st
%!       m = C(k,1) * m + C(k,2) * m.^3 + C(k,3) * m.^5;
%!     endfor
%!     assert (m, m0, 1e-14);
%!   endfor
%! endfor

%!error <Invalid call> ns_design_coeffs ()
%!error <ns_design_coeffs: STEPS must be a positive integer \(at most 1000\).> ns_design_coeffs (0)
%!error <ns_design_coeffs: STEPS must be a positive integer \(at most 1000\).> ns_design_coeffs (2.5)
%!error <ns_design_coeffs: STEPS must be a positive integer \(at most 1000\).> ns_design_coeffs ("5")
%!test                                  # the limit and its message are the core's (core_lists)
%! lim = __muon_lists__ ().limits.max_steps;
%! try
%!   ns_design_coeffs (lim + 1);
%!   error ("no error");
%! catch err
%!   assert (err.message, sprintf ("ns_design_coeffs: STEPS must be a positive integer (at most %d).", lim));
%! end_try_catch
%!error <ns_design_coeffs: LOWER must be a real scalar with 0 < LOWER < 1.> ns_design_coeffs (5, "Lower", 0)
%!error <ns_design_coeffs: LOWER must be a real scalar with 0 < LOWER < 1.> ns_design_coeffs (5, "Lower", [0.1 0.2])
%!error <ns_design_coeffs: CUSHION must be a real scalar with 0 <= CUSHION < 1.> ns_design_coeffs (5, "Cushion", 1)
%!error <ns_design_coeffs: SAFETY must be a finite real scalar of at least 1.> ns_design_coeffs (5, "Safety", 0.9)
%!error <ns_design_coeffs: SAFETY must be a finite real scalar of at least 1.> ns_design_coeffs (5, "Safety", Inf)
%!error <ns_design_coeffs: SAFETYMODE must be 'construct' or 'after'.> ns_design_coeffs (5, "SafetyMode", "before")
%!error <ns_design_coeffs: SAFETYLAST must be true or false.> ns_design_coeffs (5, "SafetyLast", 2)
%!error <ns_design_coeffs: LOWER must be a real scalar with 0 < LOWER < 1\.> ns_design_coeffs (3, "Lower", {})
%!error <ns_design_coeffs: LOWER must be a real scalar with 0 < LOWER < 1\.> ns_design_coeffs (3, "Lower", {1e-3})
%!error <ns_design_coeffs: CUSHION must be a real scalar with 0 <= CUSHION < 1\.> ns_design_coeffs (3, "Cushion", {0.1, "a"})
%!error <ns_design_coeffs: SAFETY must be a finite real scalar of at least 1\.> ns_design_coeffs (3, "Safety", {1, "a"})
%!error <ns_design_coeffs: SAFETY must be a finite real scalar of at least 1\.> ns_design_coeffs (3, "Safety", cell (2, 2))
%!error <ns_design_coeffs: SAFETYMODE must be 'construct' or 'after'\.> ns_design_coeffs (3, "SafetyMode", {"after"}, "Safety", 1.05)
%!error <ns_design_coeffs: SAFETYMODE must be 'construct' or 'after'\.> ns_design_coeffs (3, "SafetyMode", {})
%!error <ns_design_coeffs: SAFETYLAST must be true or false\.> ns_design_coeffs (3, "SafetyLast", {true})
%!error id=muonlab:badArg ns_design_coeffs (3, "Lower", {})
%!error <^ns_design_coeffs: unknown option 'Foo'\. Options: .*\.$> ns_design_coeffs (5, "Foo", 1)
%!error <ns_design_coeffs: options must be NAME, VALUE pairs.> ns_design_coeffs (5, "Lower")
%!error <ns_design_coeffs: LOWER must be a real scalar with 0 < LOWER < 1\.> ns_design_coeffs (5, "Lower", 2)
%!error id=muonlab:badArg ns_design_coeffs (5, "Lower", 2)

%!demo
%! ## Polar Express schedules for two lower bounds: how close to 1 after each step
%! for l = [1e-3, 1e-2]
%!   [C, info] = ns_design_coeffs (8, "Lower", l);
%!   printf ("Lower %g: bound per step %s\n", l, sprintf ("%.2g ", info.bound));
%! endfor
%! C = ns_design_coeffs (5, "Lower", 1e-3, "Cushion", 0.02, "Safety", 1.02)
