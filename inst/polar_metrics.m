## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {muonlab} {@var{Q} =} polar_metrics (@var{A}, @var{P})
## Quality metrics of @var{P} as an approximate polar factor of @var{A}.
##
## @var{A} and @var{P} are real double or single arrays of one size, M x N or M x N x E
## with M, N >= 1 (one matrix per page; their classes may differ; a 1 x N or N x 1 page
## is a matrix of one singular value, its polar factor the vector over its norm; an
## empty one is an error), or device arrays (@code{muon_gpu}),
## which are gathered first: the metrics need the SVD, which runs on the host.  Everything
## is computed in double.
## @var{Q} is a plain scalar struct (@code{isstruct (Q)} is true; at the prompt, a few
## lines per metric) whose fields are 1 x E rows, one value per page:
##
## @table @code
## @item orth_error
## ||P'P - I||_F / ||I||_F, on the short side: I is min (M, N) x min (M, N), so for a
## wide P this is ||P P' - I||_F / ||I||_F.
## @item residual_error
## ||P H - A||_F / ||A||_F with H = (P'A + A'P)/2, the symmetric part of P'A.
## @item psd_error
## ||lambda_-||_2 / ||lambda_+||_2 over the eigenvalues lambda of H (negative ones over
## positive ones; 0 when H has no negative eigenvalue).
## @item dual_obj
## (||A||_* - <A, P>) / ||A||_*, with <A, P> = sum (A(:) .* P(:)) and ||A||_* the nuclear
## norm (sum of singular values); 0 for the exact factor, can be negative for a P of
## norm above 1.
## @item bound_violation
## max (||P||_2 - 1, 0).
## @item rel_err_polar
## ||P - U V'||_F / ||U V'||_F against the fp64 SVD polar factor U V' of A (economy SVD;
## unique only when A has full rank min (M, N)).
## @end table
##
## The first five are the polar-quality metrics of the stress test of Dao-AILab's
## gram-newton-schulz (tests/stress_test.py there), but for orth_error of a tall P: there
## I is rows (P) x rows (P), so its floor is sqrt (1 - N/M) (0.866 at aspect 4) where
## this one's is 0.  Wide pages (M < N) are measured through their transposes, A.' = (P.') H, so
## that H is always min (M, N) x min (M, N) and, for M != N, every metric is the same for
## (A, P) and (A.', P.').  A square page is measured as given: its residual_error and
## psd_error use H = (P'A + A'P)/2, those of (A.', P.') use (P A' + A P')/2, and the two
## differ in general (the other four metrics agree).  An all-zero page of A gives NaN for the metrics divided by ||A|| and for
## rel_err_polar (A has no polar factor).  A page
## of P with NaN or Inf (e.g. an fp16 overflow) gives NaN metrics for that page;
## @var{A} must be finite.  A huge or tiny @var{A} (entries past 2^500 or below 2^-500) is
## scaled by a power of two first, which changes no metric; a finite @var{P} so large that
## its products overflow gives Inf for the metrics past double's range.
##
## Example:
## @example
## G = randn (256, 1024);
## Q = polar_metrics (G, muon_ns (G))   % Keller's schedule: orth_error about 0.3
## @end example
##
## @seealso{muon_ns, ns_flops}
## @end deftypefn

function Q = polar_metrics (A, P)
  if (nargin != 2)
    print_usage ();
  endif
  try                                    # the metrics need the SVD, on the host
    what = "A";
    if (isa (A, "muon_gpuarray"))
      A = gather (A);
    endif
    what = "P";
    if (isa (P, "muon_gpuarray"))
      P = gather (P);
    endif
  catch err
    gpu_stale (err, "polar_metrics", what);   # a stale array: polar_metrics: A is ...
  end_try_catch
  pin = blas_one_thread ();              # the same bits on any number of threads
  check_matrix ("polar_metrics", "A", A);
  if (isinteger (P) || islogical (P) || ischar (P))
    error ("muonlab:badType", "polar_metrics: P must be a double or single matrix, not %s (convert it: double (P)).",
           class (P));
  elseif (issparse (P))
    error ("muonlab:badType", "polar_metrics: P must be a full matrix, not sparse (convert it: full (P)).");
  elseif (! (isfloat (P) && isreal (P)))
    error ("muonlab:badType", "polar_metrics: P must be a real numeric matrix.");
  endif
  if (! isequal (size (A), size (P)))
    error ("muonlab:badShape", "polar_metrics: A and P must have the same size.");
  endif

  E = size (A, 3);
  names = {"orth_error", "residual_error", "psd_error", "dual_obj", ...
           "bound_violation", "rel_err_polar"};
  Q = cell2struct (repmat ({NaN(1, E)}, numel (names), 1), names, 1);
  for e = 1:E
    a = double (A(:,:,e));
    p = double (P(:,:,e));
    if (rows (a) < columns (a))
      a = a.';
      p = p.';
    endif
    if (! all (isfinite (p(:))))
      continue;
    endif
    k = columns (a);
    a = in_range (a);                   # every metric is the same for c * A, c > 0
    [U, S, V] = svd (a, "econ");
    s = diag (S);
    nA = norm (a, "fro");
    H = p.' * a;
    H = (H + H.') / 2;
    Hs = in_range (p).' * a;            # the eigenvalues' signs and ratios: any scale of P
    lam = eig ((Hs + Hs.') / 2);
    Q.orth_error(e) = norm (p.' * p - eye (k), "fro") / sqrt (k);
    Q.residual_error(e) = norm (p * H - a, "fro") / nA;
    neg = norm (lam(lam < 0));
    if (neg == 0)
      Q.psd_error(e) = 0;
    else
      Q.psd_error(e) = neg / norm (lam(lam > 0));
    endif
    nuc = sum (s);
    Q.dual_obj(e) = (nuc - sum (a(:) .* p(:))) / nuc;
    Q.bound_violation(e) = max (norm (p, 2) - 1, 0);
    W = U * V.';
    Q.rel_err_polar(e) = norm (p - W, "fro") / norm (W, "fro");
    if (nA == 0)                        # no A to measure against, no polar factor
      [Q.residual_error(e), Q.dual_obj(e), Q.rel_err_polar(e)] = deal (NaN);
      continue;
    endif
    for f = {"orth_error", "residual_error", "dual_obj"}   # past double's range: P's
      if (isnan (Q.(f{1})(e)))                              # products overflowed
        Q.(f{1})(e) = Inf;
      endif
    endfor
  endfor
endfunction

## x scaled by a power of two (exactly) when its largest entry is so far from 1 that its
## products would overflow or lose digits; x itself otherwise, so that such inputs keep
## their bits.  The factor 2^-ex is applied in two halves: for a subnormal largest entry
## ex is below -1021 and 2^-ex alone overflows (pow2 (x, 1030) is Inf).
function x = in_range (x)
  [~, ex] = log2 (max (abs (x(:))));
  if (abs (ex) > 500)
    h = fix (ex / 2);
    x = pow2 (pow2 (x, -h), h - ex);
  endif
endfunction

%!demo
%! ## how close muon_ns comes to the polar factor, per schedule
%! randn ("state", 2);
%! G = randn (128, 512);
%! for c = {"keller", "polar_express"}
%!   Q = polar_metrics (G, muon_ns (G, "Coefficients", c{1}));
%!   printf ("%-14s orth_error %.3g  rel_err_polar %.3g\n", c{1}, Q.orth_error, Q.rel_err_polar);
%! endfor

%!shared A, U, s, V
%! randn ("state", 7);
%! A = randn (12, 5);
%! [U, S, V] = svd (A, "econ");
%! s = diag (S);

%!test
%! ## the exact polar factor: every metric ~0, tall and wide
%! Q = polar_metrics (A, U * V');
%! for f = fieldnames (Q).'
%!   assert (Q.(f{1}), 0, 1e-13);
%! endfor
%! Qt = polar_metrics (A.', V * U');
%! for f = fieldnames (Q).'
%!   assert (Qt.(f{1}), 0, 1e-13);
%! endfor

%!test
%! ## an all-zero page of A: NaN where the metric divides by ||A|| or needs A's polar factor;
%! ## P's own metrics as for any A (P = 0: P'P - I = -I, so orth_error 1)
%! Q = polar_metrics (cat (3, zeros (4, 6), A(1:4,1:5)(:,[1:5 1])), zeros (4, 6, 2));
%! assert ([Q.residual_error(1), Q.dual_obj(1), Q.rel_err_polar(1)], [NaN NaN NaN]);
%! assert ([Q.orth_error(1), Q.psd_error(1), Q.bound_violation(1)], [1 0 0]);
%! assert ([Q.residual_error(2), Q.dual_obj(2), Q.rel_err_polar(2)], [1 1 1], 1e-14);

%!test
%! ## P = 2 U V': P'P = 4 I, ||P||_2 = 2, H = 2 V S V', P H = 2 A, <A, P> = 2 ||A||_*
%! Q = polar_metrics (A, 2 * U * V');
%! assert (Q.orth_error, 3, 1e-13);
%! assert (Q.bound_violation, 1, 1e-13);
%! assert (Q.residual_error, 3, 1e-13);
%! assert (Q.psd_error, 0);
%! assert (Q.dual_obj, -1, 1e-13);
%! assert (Q.rel_err_polar, 1, 1e-13);

%!test
%! ## P = U diag (d) V' (an NS-like output): closed forms in d and s
%! d = [1.2; 0.9; 0.7; 1.0; 0.4];
%! Q = polar_metrics (A, U * diag (d) * V');
%! assert (Q.orth_error, norm (d.^2 - 1) / sqrt (5), 1e-13);
%! assert (Q.residual_error, norm ((d.^2 - 1) .* s) / norm (s), 1e-13);
%! assert (Q.psd_error, 0);
%! assert (Q.dual_obj, sum (s .* (1 - d)) / sum (s), 1e-13);
%! assert (Q.bound_violation, 0.2, 1e-13);
%! assert (Q.rel_err_polar, norm (d - 1) / sqrt (5), 1e-13);
%! ## a sign flip makes H indefinite: its eigenvalues are d .* s
%! d(3) = -0.5;
%! Q = polar_metrics (A, U * diag (d) * V');
%! assert (Q.psd_error, abs (d(3) * s(3)) / norm (d([1 2 4 5]) .* s([1 2 4 5])), 1e-13);

%!test
%! ## a hand example: orthogonal but the wrong polar factor, zero residual
%! Q = polar_metrics ([2 0; 0 1], [1 0; 0 -1]);
%! assert (Q.orth_error, 0);
%! assert (Q.residual_error, 0);
%! assert (Q.psd_error, 0.5);
%! assert (Q.dual_obj, 2/3, 1e-15);
%! assert (Q.bound_violation, 0);
%! assert (Q.rel_err_polar, sqrt (2), 1e-15);

%!test
%! ## a non-orthogonal P with other singular vectors: check against the definitions
%! randn ("state", 3);
%! P = U * V' + 0.1 * randn (12, 5);
%! Q = polar_metrics (single (A), P);
%! H = (P' * A + A' * P) / 2;
%! lam = eig (H);
%! assert (Q.orth_error, norm (P' * P - eye (5), "fro") / sqrt (5), 1e-6);
%! assert (Q.residual_error, norm (P * H - A, "fro") / norm (A, "fro"), 1e-6);
%! assert (Q.dual_obj, (sum (s) - sum (sum (A .* P))) / sum (s), 1e-6);
%! assert (Q.bound_violation, max (norm (P) - 1, 0), 1e-6);
%! assert (Q.rel_err_polar, norm (P - U * V', "fro") / sqrt (5), 1e-6);
%! assert (Q.psd_error >= 0);
%! assert (class (Q.orth_error), "double");
%! ## the same through the transposes
%! Qt = polar_metrics (A.', P.');
%! Qd = polar_metrics (A, P);
%! for f = fieldnames (Q).'
%!   assert (Qt.(f{1}), Qd.(f{1}), 1e-12);
%! endfor

%!test
%! ## a square page is not transposed: residual_error and psd_error of (A, P) and
%! ## (A.', P.') are those of their own H (plain definitions), the other four agree
%! randn ("state", 11);
%! B = randn (5);
%! P = muon_ns (B) + 0.05 * randn (5);
%! P(:,1) = -P(:,1);
%! Q = polar_metrics (B, P);
%! Qt = polar_metrics (B.', P.');
%! for f = {"orth_error", "dual_obj", "bound_violation", "rel_err_polar"}
%!   assert (Qt.(f{1}), Q.(f{1}), 1e-12);
%! endfor
%! H = (P' * B + B' * P) / 2;
%! Ht = (P * B' + B * P') / 2;
%! assert (Q.residual_error, norm (P * H - B, "fro") / norm (B, "fro"), 1e-12);
%! assert (Qt.residual_error, norm (P' * Ht - B', "fro") / norm (B, "fro"), 1e-12);
%! assert (abs (Q.residual_error - Qt.residual_error) > 1e-3);
%! l = eig (H);
%! lt = eig (Ht);
%! assert (Q.psd_error, norm (l(l < 0)) / norm (l(l > 0)), 1e-12);
%! assert (Qt.psd_error, norm (lt(lt < 0)) / norm (lt(lt > 0)), 1e-12);
%! assert (abs (Q.psd_error - Qt.psd_error) > 1e-3);

%!test
%! ## pages: one value per page; a non-finite page of P gives NaN
%! X = muon_ns (A.');
%! Ab = cat (3, A.', 3 * A.', A.');
%! Pb = cat (3, X, X, NaN (size (X)));
%! Q = polar_metrics (Ab, Pb);
%! Q1 = polar_metrics (A.', X);
%! assert (size (Q.orth_error), [1 3]);
%! for f = fieldnames (Q).'
%!   assert (Q.(f{1})(1:2), [Q1.(f{1}) Q1.(f{1})], 1e-12);
%!   assert (isnan (Q.(f{1})(3)));
%! endfor
%! assert (Q1.orth_error < 0.5 && Q1.orth_error > 1e-3);

%!error <Invalid call> polar_metrics ()
%!error <Invalid call> polar_metrics (A)
%!error <polar_metrics: function called with too many inputs> polar_metrics (A, A, A)
%!error <polar_metrics: A and P must have the same size.> polar_metrics (A, A.')
%!error <polar_metrics: A and P must have the same size.> polar_metrics (A, A(:,1:4))
%!error <polar_metrics: A and P must have the same size.> polar_metrics (cat (3, A, A), A)
%!error <polar_metrics: A must be a real numeric matrix\.> polar_metrics (complex (A), A)
%!error <polar_metrics: A must be a double or single matrix, not int8 \(convert it: double \(A\)\)\.> polar_metrics (int8 (A), A)
%!error <^polar_metrics: A must be a full matrix, not sparse \(convert it: full \(A\)\)\.$> polar_metrics (sparse (A), A)
%!error <polar_metrics: A must be a double or single matrix, not logical \(convert it: double \(A\)\)\.> polar_metrics (A > 0, A)
%!error <polar_metrics: P must be a real numeric matrix\.> polar_metrics (A, complex (A))
%!error <polar_metrics: P must be a double or single matrix, not int8 \(convert it: double \(P\)\)\.> polar_metrics (A, int8 (A))
%!error <^polar_metrics: P must be a full matrix, not sparse \(convert it: full \(P\)\)\.$> polar_metrics (A, sparse (A))
%!error <polar_metrics: P must be a double or single matrix, not char \(convert it: double \(P\)\)\.> polar_metrics (A, "abc")
%!error <polar_metrics: P must be a double or single matrix, not logical \(convert it: double \(P\)\)\.> polar_metrics (A, A > 0)
%!error <polar_metrics: A must not be empty.> polar_metrics (zeros (0, 3), zeros (0, 3))
%!error <polar_metrics: A must not be empty.> polar_metrics (zeros (1, 0), zeros (1, 0))
%!test
%! ## a vector A = ||a|| u has the polar factor u; P = s u gives, by hand: orth_error
%! ## |s^2 - 1|, residual_error |s^2 - 1| (H = s ||a||), psd_error 0, dual_obj 1 - s, bound_violation max (s - 1, 0), rel_err_polar |s - 1|
%! a = [3 -1 2 0.5 -4];
%! u = a / norm (a);
%! for s = [0.7 1 1.2]
%!   for t = {@(v) v, @(v) v.'}
%!     Q = polar_metrics (t{1}(a), t{1}(s * u));
%!     assert ([Q.orth_error, Q.residual_error, Q.psd_error, Q.dual_obj, ...
%!              Q.bound_violation, Q.rel_err_polar],
%!             [abs(s^2 - 1), abs(s^2 - 1), 0, 1 - s, max(s - 1, 0), abs(s - 1)], 8 * eps);
%!   endfor
%! endfor
%! Q = polar_metrics (cat (3, a, -a), cat (3, 0.5 * u, -u));
%! assert ([Q.orth_error; Q.dual_obj; Q.rel_err_polar], [0.75 0; 0.5 0; 0.5 0], 8 * eps);
%! Q = polar_metrics (2, -1);                            # 1 x 1: polar factor 1
%! assert ([Q.orth_error, Q.residual_error, Q.dual_obj, Q.rel_err_polar], [0 0 2 2]);
%!error <polar_metrics: A must have 2 or 3 dimensions.> polar_metrics (ones (2, 2, 2, 2), ones (2, 2, 2, 2))
%!error <polar_metrics: A must not contain NaN or Inf.> polar_metrics ([1 NaN; 2 3], eye (2))
%!error <polar_metrics: A and P must have the same size\.> polar_metrics (A, A.')
%!error id=muonlab:badShape polar_metrics (A, A.')
%!error id=muonlab:badType polar_metrics (A, int8 (A))
%!test
%! ## a huge or tiny A gives the metrics of A itself, to the bit (power-of-two scaling); a
%! ## huge P, the psd_error of P itself and Inf past double's range
%! randn ("state", 5);
%! A = randn (6, 9);
%! P = muon_ns (A);
%! Q = polar_metrics (A, P);
%! assert (isequal (polar_metrics (2^1000 * A, P), Q));
%! assert (isequal (polar_metrics (2^-1000 * A, P), Q));
%! R = polar_metrics ((A / max (abs (A(:)))) * realmax, P);    # ||A||_F itself overflows
%! for f = fieldnames (Q).'
%!   assert (R.(f{1}), Q.(f{1}), -1e-12);
%! endfor
%! B = polar_metrics (A, 2^1000 * P);
%! assert (B.psd_error, Q.psd_error);
%! assert ([B.orth_error, B.residual_error], [Inf Inf]);
%! assert (B.bound_violation, 2^1000 * norm (P), -1e-12);
%! assert (B.rel_err_polar, 2^1000 * norm (P, "fro") / sqrt (6), -1e-12);
%!error <polar_metrics: A must not contain NaN or Inf\.> polar_metrics ([1 Inf; 2 3], eye (2))
%!error id=muonlab:nonFinite polar_metrics ([1 Inf; 2 3], eye (2))

%!test
%! ## subnormal A: the metrics of A itself, to the bit; subnormal P: the psd_error of P
%! ## itself, and P's products underflow to 0 (P'P = 0, P H = 0, <A, P> ~ 0: 1, 1, 1)
%! A = [1 2 0; 0 1 3];
%! P = [1 0 0; 0 -1 0];                   # H indefinite: psd_error > 0
%! Q = polar_metrics (A, P);
%! assert (Q.psd_error > 0.1);
%! for t = [2^-1030, 2^-1062]
%!   assert (isequal (polar_metrics (A * t, P), Q));
%! endfor
%! R = polar_metrics (A * (7 * 2^-1074), P);    # entries 7, 14, 21 times the least
%! for f = fieldnames (Q).'
%!   assert (R.(f{1}), Q.(f{1}), 1e-15);
%! endfor
%! assert (isequal (polar_metrics (A(:,[1 2]) * 2^-1070, eye (2)),
%!                  polar_metrics (A(:,[1 2]), eye (2))));
%! for t = [2^-1040, 2^-1074]
%!   R = polar_metrics (A, P * t);
%!   assert (R.psd_error, Q.psd_error);
%!   assert ([R.orth_error, R.residual_error, R.dual_obj, R.bound_violation], [1 1 1 0],
%!           eps);
%!   assert (R.rel_err_polar, 1, eps);
%! endfor
