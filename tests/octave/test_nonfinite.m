## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_nonfinite ()
## Suite (run with @code{test test_nonfinite}): the one policy for non-finite and
## overflowing inputs (README "Non-finite and overflowing inputs").
## @itemize
## @item @code{muon_ns} and @code{muon_update} reject NaN and Inf (muonlab:nonFinite) and give
## the scale-invariant answer for huge and tiny finite inputs (a scale-safe norm: with
## @qcode{"Eps", 0} NS of s*G is NS of G), where they gave all zeros (double entries >=
## 1e154, single >= 1e38) or all NaN (bf16 / fp16 of a 1e40 double input); the plain fp64
## norm, and so the bitwise oracle, is unchanged for every other input.
## @item @qcode{"NormalizeFirst", false} keeps the peers' fp16 overflow (a bug reproduced).
## @item @code{zero_muon_step} skips a step with a NaN, Inf or overflowing gradient on every
## rank and reports it, the state unchanged (tests/mpi checks the ranks agree under MPI).
## @item @code{muon_step} skips a step whose gradient overflows (x 1e155), leaving the
## parameters and the state alone, and the next step is clean.
## @end itemize
## @end deftypefn

function test_nonfinite ()
  help test_nonfinite
endfunction

%!function e = relerr (X, Y)
%!  e = norm (double (X(:)) - double (Y(:))) / norm (double (Y(:)));

%!shared G
%! randn ("state", 1);
%! G = randn (8, 24);

%!test
%! ## fp64: huge and tiny inputs give NS of G (Eps 0: scale invariance)
%! X0 = muon_ns (G, "Eps", 0);
%! for s = [1e155 1e160 1e300 1e-160 1e-300]
%!   X = muon_ns (s * G, "Eps", 0);
%!   printf ("    double x %g: %.1e from NS (G)\n", s, relerr (X, X0));
%!   assert (relerr (X, X0) <= 1e-13);
%! endfor
%! ## with eps, a tiny input is eps-dominated, as the formula says: X = G / (||G|| + eps)
%! X = muon_ns (1e-160 * G);
%! assert (all (isfinite (X(:))) && norm (X, "fro") < 1e-100);
%! ## the normal range keeps the plain fp64 norm: bitwise what it was
%! assert (isequal (muon_ns (1e150 * G, "Eps", 0), muon_ns (1e150 * G, "Eps", 0)));

%!test
%! ## fp32: single entries near 1e38 (the fp32 norm overflows) and double 1e40 in fp32
%! Xs = muon_ns (single (G));
%! X = muon_ns (single (5e37) * single (G));
%! assert (class (X), "single");
%! printf ("    single x 5e37: %.1e from NS (G)\n", relerr (X, Xs));
%! assert (relerr (X, Xs) <= 1e-5);
%! X = muon_ns (1e40 * G, "Precision", "single");
%! assert (relerr (X, Xs) <= 1e-5);
%! X = muon_ns (single (1e-30) * single (G), "Eps", 0);     # the fp32 norm underflows
%! assert (relerr (X, muon_ns (single (G), "Eps", 0)) <= 1e-5);

%!test
%! ## bf16 / fp16 of a 1e40 double input: finite, NS of G in the same precision, and within
%! ## the precision's error of fp64 NS; the peers' cast-first order still overflows fp16
%! X64 = muon_ns (G);
%! for p = {"bf16", "fp16"}
%!   Xr = muon_ns (G, "Precision", p{1});
%!   for s = [1e40 1e200]
%!     X = muon_ns (s * G, "Precision", p{1});
%!     printf ("    %s x %g: %.1e from %s NS (G), %.3f from fp64\n", p{1}, s, relerr (X, Xr),
%!             p{1}, relerr (X, X64));
%!     assert (all (isfinite (X(:))));
%!     assert (relerr (X, X64) <= 0.1);
%!   endfor
%! endfor
%! warning ("off", "muonlab:nonFiniteResult", "local");   # tested in muon_ns.m
%! assert (! any (isfinite (muon_ns (1e40 * G, "Precision", "fp16", "NormalizeFirst", false)(:))));

%!test
%! ## muon_update: the same norm underneath
%! U0 = muon_update (G, [], "Eps", 0);
%! U = muon_update (1e200 * G, [], "Eps", 0);
%! assert (relerr (U, U0) <= 1e-13);
%! U = muon_update (single (5e37) * single (G), []);
%! assert (all (isfinite (U(:))) && relerr (U, muon_update (single (G), [])) <= 1e-5);

%!error id=muonlab:nonFinite muon_ns ([1 NaN; 2 3])
%!error id=muonlab:nonFinite muon_update ([1 Inf; 2 3], [])

%!test
%! ## zero_muon_step: NaN, Inf or an overflowing gradient on one rank -> every rank skips
%! L = zero_layout ({[6 4], [5 4], [6 4]}, 2);
%! randn ("state", 2);
%! mk = @() arrayfun (@(k) randn (L.params(ceil (k / 2)).rows, 4), 1:6, "UniformOutput", false);
%! g = reshape (mk (), 2, 3);
%! [R1, s1] = zero_muon_step (L, g, []);
%! assert (! R1.skipped && isempty (R1.skip_reason));
%! for bad = [NaN Inf -Inf 1e200]
%!   b = reshape (mk (), 2, 3);
%!   b{2,3}(2) = bad;
%!   [R, s] = zero_muon_step (L, b, s1, "Variant", "zero12_allreduce");
%!   assert (R.skipped);
%!   assert (R.skip_reason, "non-finite or overflowing gradient (rank 1, parameter 3)");
%!   assert (isequal (s, s1));                     # momentum and step count as they were
%!   assert (R.step, 1);
%!   assert (all (cellfun (@(u) all (u(:) == 0), R.updates)));
%!   assert ([R.ranks.ns_calls R.ranks.bytes_sent], zeros (1, 4));
%! endfor
%! ## and the momentum never turns NaN: the next clean step is finite
%! [R, s] = zero_muon_step (L, reshape (mk (), 2, 3), s1);
%! assert (! R.skipped && R.step == 2);
%! assert (all (cellfun (@(m) all (isfinite (m(:))), s.momentum)));

%!test
%! ## muon_step: a finite but huge gradient (x 1e155) skips the step; nothing freezes or
%! ## turns NaN, and the next step is clean
%! randn ("state", 3);
%! params = struct ("W", randn (8, 16), "b", randn (8, 1));
%! opt = muon_optimizer (params);
%! grads = struct ("W", randn (8, 16), "b", randn (8, 1));
%! [p1, opt] = muon_step (opt, params, grads);
%! huge = struct ("W", 1e155 * randn (8, 16), "b", randn (8, 1));
%! [p2, opt2, info] = muon_step (opt, p1, huge);
%! assert (info.skipped && ! info.applied);
%! assert (isequal (p2, p1));
%! huge = struct ("W", randn (8, 16), "b", 1e155 * randn (8, 1));   # on the AdamW side too
%! [p3, opt3, info] = muon_step (opt2, p2, huge);
%! assert (info.skipped && isequal (p3, p2));
%! [p4, ~, info] = muon_step (opt3, p3, grads);
%! assert (info.applied && ! info.skipped);
%! assert (all (isfinite (p4.W(:))) && all (isfinite (p4.b(:))) && isreal (p4.b));
%! assert (norm (p4.W - p3.W, "fro") > 0);
