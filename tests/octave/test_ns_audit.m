## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_ns_audit ()
## Suite (run with @code{test test_ns_audit}): @code{ns_schedule_audit} and the
## @code{muonlab:unsafeSchedule} warning of @code{muon_ns}, against oracles outside them.
##   - Every shipped schedule (the core's one list, @code{muon_coeffs ()}): the composed
##     map written out here, step by step per singular value, on a grid of its own
##     (1e5 points), against the audit's minimum, maximum, p(1) and sign.
##   - The aol schedule's numbers quoted in issue 27: p(0.9) = -1.08, p(1) = -0.99, and its
##     sign change near 0.884, found here by bisection.
##   - The near-rank-1 probe against the closed form X = U p(S) V' of the normalized
##     probe U S V' (the documented probe matrix rebuilt here, the Frobenius and the AOL
##     scaling written out here), u1' X v1 to 1e-9.
##   - muon_ns warns muonlab:unsafeSchedule once for aol (any spelling of the same
##     schedule), once for a map negative only below the audit grid (-x + 1e13 x^3), and
##     never for the shipped schedules whose map stays positive.
## @end deftypefn

function test_ns_audit ()
  help test_ns_audit
endfunction

## p (x) of the schedule C as muon_ns runs it by default (5 steps for one triple).
%!function y = pmap (C, x)
%!  if (rows (C) == 1)
%!    C = repmat (C, 5, 1);
%!  endif
%!  y = x;
%!  for k = 1:rows (C)
%!    y = C(k,1) * y + C(k,2) * y.^3 + C(k,3) * y.^5;
%!  endfor

%!function reset_warning ()
%!  ## forget which schedules were warned about (unsafe_schedule's session memory)
%!  setappdata (0, "muonlab_unsafe_schedule_seen", []);
%!  lastwarn ("");

%!test
%! ## every shipped schedule, in the core's order, against the map written out here
%! names = muon_coeffs ();
%! R = ns_schedule_audit ();
%! assert ({R.name}, names);
%! x = linspace (1e-3, 1, 1e5);
%! for i = 1:numel (names)
%!   C = muon_coeffs (names{i});
%!   y = pmap (C, x);
%!   assert (R(i).steps, max (rows (C), 5 * (rows (C) == 1)));
%!   assert (R(i).p_min, min (y), 1e-3 * max (1, abs (min (y))));
%!   assert (R(i).p_max, max (y), 1e-3 * max (1, abs (max (y))));
%!   assert (R(i).p_one, pmap (C, 1), 1e-9);         # cans: slope ~1e4 near 1
%!   assert (R(i).overshoot, max (0, R(i).p_max - 1));
%!   assert (R(i).negative, any (y < 0), names{i});
%!   assert (R(i).p_min <= R(i).p_one && R(i).p_one <= R(i).p_max);
%!   assert (R(i).ext_max >= R(i).p_max && R(i).ext_min <= R(i).p_min);
%!   if (! isnan (R(i).above_from))
%!     assert (R(i).above_from > 1 && pmap (C, R(i).above_from) > 1 + R(i).overshoot);
%!   endif
%! endfor

%!test
%! ## issue 27's numbers for aol: p(0.9) = -1.08, p(1) = -0.99, negative above 0.884
%! C = muon_coeffs ("aol");
%! assert (rows (C), 4);
%! assert (pmap (C, 0.9), -1.08, 5e-3);
%! assert (pmap (C, 1), -0.99, 5e-3);
%! lo = 0.85; hi = 0.9;                          # bisection for the sign change
%! for it = 1:60
%!   mid = (lo + hi) / 2;
%!   if (pmap (C, mid) > 0), lo = mid; else, hi = mid; endif
%! endfor
%! R = ns_schedule_audit ("aol");
%! assert (lo, 0.884, 5e-4);
%! assert (R.negative_from, lo, 6e-5);
%! assert (R.negative);
%! assert (R.p_one, pmap (C, 1), 1e-12);

%!test
%! ## the probe: u1' X v1 = p (sigma1 of the normalized probe), Frobenius and AOL
%! s = randn ("state");
%! randn ("state", 27);
%! u = randn (32, 1); v = randn (64, 1); E = randn (32, 64);
%! randn ("state", s);
%! P = (u / norm (u)) * (v / norm (v))' + 1e-3 * E / norm (E, "fro");
%! [U, S, V] = svd (P, "econ");
%! u1 = U(:,1); v1 = V(:,1);
%! Xf = P / (norm (P, "fro") + 1e-7);              # Frobenius
%! D = diag (1 ./ sqrt (sum (abs (P * P'), 2)));   # AOL on the short side (the rows)
%! Xa = D * P;
%! assert (norm (Xa) <= 1 && norm (Xf) <= 1);
%! names = muon_coeffs ();
%! R = ns_schedule_audit ();
%! for i = 1:numel (names)
%!   C = muon_coeffs (names{i});
%!   for X0 = {Xf, "probe_frobenius"; Xa, "probe_aol"}.'
%!     [Ux, Sx, Vx] = svd (X0{1}, "econ");           # X = U p(S) V', exactly
%!     want = u1' * Ux * diag (pmap (C, diag (Sx))) * Vx' * v1;
%!     assert (R(i).(X0{2}), want, 1e-9);
%!   endfor
%! endfor
%! a = R(strcmp (names, "aol"));
%! assert (a.probe_frobenius < -0.99 && a.probe_aol < -0.95);   # direction reversed

%!test
%! ## muon_ns warns once for aol, by name or by its matrix (the same schedule)
%! G = reshape (sin (1:8*16), 8, 16);
%! reset_warning ();
%! muon_ns (G, "Coefficients", "aol");
%! [msg, id] = lastwarn ();
%! assert (id, "muonlab:unsafeSchedule");
%! assert (msg, ["muon_ns: this coefficient schedule's composed map is negative from " ...
%!               "sigma = 0.884 (p(1) = -0.994): singular directions of the normalized " ...
%!               "input there are reversed; see ns_schedule_audit."]);
%! lastwarn ("");
%! muon_ns (G, "Coefficients", "aol");
%! muon_ns (G, "Coefficients", muon_coeffs ("aol"), "Normalize", "aol");
%! assert (lastwarn (), "");

%!test
%! ## a map negative only below the audit grid (1e-6 up): p (x) = -x + 1e13 x^3 < 0 on
%! ## (0, 3.16e-7), p(1e-7) = -9e-8 by hand; muon_ns gave no warning; it now warns once
%! G = reshape (sin (1:8*16), 8, 16);
%! C = [-1 1e13 0; 1 0 0];
%! assert (pmap (C, 1e-7), -9e-8, 1e-20);
%! reset_warning ();
%! muon_ns (G, "Coefficients", C);
%! [msg, id] = lastwarn ();
%! assert (id, "muonlab:unsafeSchedule");
%! assert (msg, ["muon_ns: this coefficient schedule's composed map is negative from " ...
%!               "sigma = 0 (p(1) = 1e+13): singular directions of the normalized " ...
%!               "input there are reversed; see ns_schedule_audit."]);
%! lastwarn ("");
%! muon_ns (G, "Coefficients", C);
%! assert (lastwarn (), "");

%!test
%! ## muon_update and device arrays warn alike, once per session and schedule
%! G = reshape (sin (1:8*16), 8, 16);
%! lastwarn ("");                  # schedules no other test uses: each warns once
%! muon_update (G, [], "Coefficients", "aol", "Steps", 7);
%! [msg, id] = lastwarn ();
%! assert (id, "muonlab:unsafeSchedule");
%! assert (strncmp (msg, "muon_update: this coefficient schedule's", 40));
%! lastwarn ("");
%! muon_ns (muon_gpu (G, "Device", "cpu"), "Coefficients", "aol", "Steps", 6);
%! [~, id] = lastwarn ();
%! assert (id, "muonlab:unsafeSchedule");

%!test
%! ## no warning for the shipped schedules whose map stays positive on (0, 1]
%! G = reshape (sin (1:8*16), 8, 16);
%! reset_warning ();
%! R = ns_schedule_audit ();
%! for r = R(! [R.negative])
%!   muon_ns (G, "Coefficients", r.name);
%! endfor
%! assert (lastwarn (), "");
%! ## muon_ns skips the check without options: its default schedule must stay safe
%! L = __muon_lists__ ();
%! assert (! ns_schedule_audit (L.defaults.ns.coefficients).negative);
%! ## a 2-step head of aol is negative too (its first triple already is, above 0.88)
%! muon_ns (G, "Coefficients", "aol", "Steps", 2);
%! [~, id] = lastwarn ();
%! assert (id, "muonlab:unsafeSchedule");

%!test
%! ## the memory of schedules checked is bounded: 2000 distinct ones (a sweep over designed
%! ## schedules) keep the last 1024; it held all 2000 and scanned them on every call
%! ## (1500 made muon_ns 27x slower); a schedule still warns once while remembered
%! G = reshape (sin (1:4*8), 4, 8);
%! C = [3.4445 -4.775 2.0315];
%! reset_warning ();
%! muon_ns (G, "Coefficients", "aol");
%! [~, id] = lastwarn ();
%! assert (id, "muonlab:unsafeSchedule");
%! lastwarn ("");
%! for k = 1:2000
%!   muon_ns (G, "Coefficients", C * (1 + k * 1e-9));
%! endfor
%! assert (lastwarn (), "");
%! S = getappdata (0, "muonlab_unsafe_schedule_seen");
%! assert (numel (S.seen), 1024);
%! assert (numel (unique (S.seen)), 1024);
%! ## aol was forgotten among them: checked and warned about once more, then remembered
%! muon_ns (G, "Coefficients", "aol");
%! [~, id] = lastwarn ();
%! assert (id, "muonlab:unsafeSchedule");
%! lastwarn ("");
%! muon_ns (G, "Coefficients", C * (1 + 2000 * 1e-9));    # another in between
%! muon_ns (G, "Coefficients", "aol");
%! assert (lastwarn (), "");
%! assert (numel (getappdata (0, "muonlab_unsafe_schedule_seen").seen), 1024);
