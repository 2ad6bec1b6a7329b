## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{X} =} ref_ns (@var{G}, @var{name}, @var{value}, @dots{})
## Test reference: Newton-Schulz in plain Octave, written from DESIGN.md 4 (the maths and
## the peers' eager op order), not from core/.  Options as @code{muon_ns}: "Method"
## (standard|gram), "Steps", "Coefficients" (name or K x 3), "ScheduleMode"
## (repeat_last|cycle), "Precision" (double|single|bf16|fp16, default: class of @var{G}),
## "Restarts" (0-based, default 2), "GramMinAspect" (default 1), "Eps" (default 1e-7),
## "NormalizeFirst" (default true), "Fused" (default false).  @var{G} may be M x N x E
## (pages done one by one).
##
## Rounding model (eager CUDA): r() rounds to the compute precision (ref_round); every
## product is an fp32 product of compute-precision inputs, done with Octave's single
## matmul, so the same OpenBLAS routine runs as in the C core: X*X.' of one matrix is SSYRK
## (upper triangle, mirrored), every other product SGEMM; every elementwise op is an fp32 op
## on compute-precision values with fp32 scalar coefficients, rounded once.
##
## Tiles (DESIGN.md 3, "same input, same bits"): the core cuts every product into tiles of
## the output whose edges depend on the shape alone (@code{muon_info ().gemm.tile} rows and
## columns, the last ones shorter), each one BLAS call over the whole inner dimension on one
## thread.  This port makes the same calls (@code{mul_} and @code{gram_} below: a diagonal
## tile of X X' is SSYRK of that row block, the others X_I * X_J.' by SGEMM) and runs them
## on one OpenBLAS thread (@code{__muon_blas_threads__}; with another BLAS the products run
## on the threads it has), so its bits are the core's.  Its norms are plain sums of
## squares: entries beyond about 1e+-150 (in double) under- or overflow them, where the core
## rescales, so it is no oracle at such magnitudes.
##
## @example
## norm     X = r(single(G) / (single(||G||) + single(eps)))   ||.|| summed in fp64,
##                                                           column-major order of G
##          cast-first: X = r(single(G)); X = r(X / r(r(single(||X||)) + eps))
## standard A = r(X X'); B = r(r(b A) + r(r(c A) A)); X = r(r(a X) + r(B X))
## gram     R = r(X X'); per step i (restart if i in Restarts and i > 0:
##          X = r(Q X), R = r(X X'), Q fresh)  Z = r(r(b R) + r(r(c R) R));
##          Q = r(Z + a I) when fresh, else r(r(a Q) + r(Z Q));
##          unless last or before a restart: RZ = r(r(a R) + r(Z R)); R = r(r(a RZ) + r(Z RZ))
##          end: X = r(Q X)
## fused    ("Fused", true: each scale-add in its product's epilogue, rounded once)
##          standard B = r(b A + c (A A')); X = r(a X + B X)
##          gram     Z = r(b R + c (R R)); Q = r(a Q + Z Q); RZ = r(a R + Z R);
##                   R = r(a RZ + Z RZ)  (A A' the symmetric product of X X'; R R a
##                   general one: the R of a general product is only nearly symmetric)
## aol      ("Normalize", "aol": Turbo-Muon's scaling, on the n x m orientation)
##          first: Y = single(G / ||G||) (fp64 division), A = Y Y' (fp32 tiles);
##                 d = sum |A| along rows in fp64, s = 1 / sqrt(max(d, eps));
##                 X = r(single(s .* Y)), A1 = r(single((A .* s) .* s'))
##          cast-first: X = r(single(G)), A = r(X X'); d = r(sum |A| in fp32);
##                 s = r(1 / sqrt(max(d, r(eps)))); X = r(X .* s), A1 = r(r(A .* s) .* s')
##          A1 (upper triangle, mirrored) is the first step's A (standard) or R (gram).
## @end example
## Precision "double" is the same iteration in fp64 with nothing rounded.  In single and
## double the core always runs the fused order (DESIGN.md 4 allows any order where nothing
## is rounded to a 16-bit format), so "Fused" is ignored there, and Gram keeps R and RZ
## exactly symmetric: c R R' by SYRK, and the upper half of each product of two of them
## (polynomials in one symmetric matrix, so they commute) mirrored; Q = r(a Q + Z Q) is a
## general product in every precision (mirrored, Q drifts from the standard iteration over
## long schedules); test_ns_bitwise checks every precision bit for bit.
## @end deftypefn

function X = ref_ns (G, varargin)
  o = struct ("method", "standard", "steps", [], "coefficients", "keller",
              "schedulemode", "repeat_last", "precision", class (G), "restarts", 2,
              "gramminaspect", 1, "eps", 1e-7, "normalizefirst", true,
              "normalize", "frobenius", "fused", false);
  for i = 1:2:numel (varargin)
    key = lower (varargin{i});
    if (! isfield (o, key))
      error ("ref_ns: unknown option '%s'", varargin{i});
    endif
    o.(key) = varargin{i+1};
  endfor
  C = o.coefficients;
  if (ischar (C))
    C = muon_coeffs (C);                 # the table of values (data, not code under test)
  endif
  K = rows (C);
  steps = o.steps;
  if (isempty (steps))
    steps = merge (K == 1, 5, K);
  endif
  sched = zeros (steps, 3);
  for k = 1:steps
    if (k <= K)
      sched(k,:) = C(k,:);
    elseif (strcmp (o.schedulemode, "cycle"))
      sched(k,:) = C(mod (k - 1, K) + 1, :);
    else
      sched(k,:) = C(K,:);
    endif
  endfor
  [M, N, E] = size (G);
  X = zeros (M, N, E, class (G));
  use_gram = strcmp (o.method, "gram") && max (M, N) / min (M, N) > o.gramminaspect;
  pin = exist ("__muon_blas_threads__") == 3;
  threads = 0;
  if (pin)
    threads = __muon_blas_threads__ (1);      # one BLAS thread per product, as each tile
  endif
  unwind_protect
    for e = 1:E
      Y = one_page (G(:,:,e), o, sched, use_gram);
      X(:,:,e) = cast (Y, class (G));
    endfor
  unwind_protect_cleanup
    if (pin)
      __muon_blas_threads__ (threads);
    endif
  end_unwind_protect
endfunction

function t = tile_ ()
  persistent edge;
  if (isempty (edge))
    edge = muon_info ().gemm.tile;
  endif
  t = edge;
endfunction

## C = A * B, tile by tile of C (rows and columns of tile_ () each).
function C = mul_ (A, B)
  t = tile_ ();
  [m, n] = deal (rows (A), columns (B));
  C = zeros (m, n, class (A));
  for j = 1:t:n
    jj = j:min (j + t - 1, n);
    Bj = B(:, jj);
    for i = 1:t:m
      ii = i:min (i + t - 1, m);
      C(ii, jj) = A(ii, :) * Bj;
    endfor
  endfor
endfunction

## X * X.', tile by tile: SSYRK (Octave's product of one matrix with its own transpose) on
## the diagonal, X_I * X_J.' above it, mirrored below.
function C = gram_ (X)
  t = tile_ ();
  n = rows (X);
  C = zeros (n, n, class (X));
  for j = 1:t:n
    jj = j:min (j + t - 1, n);
    Xj = X(jj, :);
    for i = 1:t:j-1
      ii = i:min (i + t - 1, n);
      T = X(ii, :) * Xj.';
      C(ii, jj) = T;
      C(jj, ii) = T.';
    endfor
    C(jj, jj) = Xj * Xj.';
  endfor
endfunction

function X = one_page (G, o, sched, use_gram)
  p = o.precision;
  lowp = any (strcmp (p, {"bf16", "fp16"}));
  fused = o.fused || ! lowp;               # single and double: the core's fused order
  if (lowp)
    r = @(x) ref_round (x, p);
  elseif (strcmp (p, "single"))
    r = @(x) single (x);
  else
    r = @(x) double (x);
  endif
  if (strcmp (p, "double"))
    cf = sched;                            # fp64 coefficients
  else
    cf = single (sched);                   # scalar coefficients kept in fp32
  endif
  if (strcmp (o.normalize, "aol"))
    [X, A1, tr] = aol_ (G, o, r, p);
    if (isempty (X))
      X = zeros (size (G), merge (strcmp (p, "double"), "double", "single"));
      return;
    endif
    if (use_gram)
      X = gram (X, cf, o.restarts, r, fused, lowp, A1);
    else
      X = standard (X, cf, r, fused, A1);
    endif
    if (tr)
      X = X.';
    endif
    return;
  endif
  ## normalization, on the page as given (column-major order of G for the norm's sum)
  if (strcmp (p, "double"))
    g = double (G);
    nrm = sqrt (sum (g(:) .* g(:)));
    if (! o.normalizefirst)
      ## nothing to round: the two orders agree
    endif
    if (nrm == 0)
      X = zeros (size (G));
      return;
    endif
    X = g / (nrm + o.eps);
  elseif (o.normalizefirst)
    g = double (G);
    ss = sum (g(:) .* g(:));
    if (ss == 0)
      X = zeros (size (G), "single");
      return;
    endif
    X = r (single (G) ./ (single (sqrt (ss)) + single (o.eps)));
  else
    X = r (single (G));
    x = double (X);
    ss = sum (x(:) .* x(:));
    if (ss == 0)
      X = zeros (size (G), "single");
      return;
    endif
    X = r (X ./ r (r (single (sqrt (ss))) + single (o.eps)));
  endif
  ## transpose rule: iterate on n x m with n <= m
  tr = rows (X) > columns (X);
  if (tr)
    X = X.';
  endif
  if (use_gram)
    X = gram (X, cf, o.restarts, r, fused, lowp, []);
  else
    X = standard (X, cf, r, fused, []);
  endif
  if (tr)
    X = X.';
  endif
endfunction

## AOL scaling of one page (transposed to n x m): X, the first step's A1, the transpose
## flag; X = [] for an all-zero page.
function [X, A1, tr] = aol_ (G, o, r, p)
  tr = rows (G) > columns (G);
  dbl = strcmp (p, "double");
  if (o.normalizefirst)
    g = double (G);
    ss = sum (g(:) .* g(:));              # column-major order of G, as the C
    X = A1 = [];
    if (ss == 0)
      return;
    endif
    if (tr)
      g = g.';
    endif
    Y = g / sqrt (ss);
    if (! dbl)
      Y = single (Y);
    endif
    A = gram_ (Y);
    d = sum (abs (double (A)), 2);
    s = zeros (size (d));                 # Eps floors d; with Eps 0 a zero sum gives 0
    k = d > 0 | o.eps > 0;
    s(k) = 1 ./ sqrt (max (d(k), o.eps));
    X = s .* double (Y);
    V = (double (A) .* s) .* s.';
    if (! dbl)
      X = single (X);
      V = single (V);
    endif
    X = r (X);
    V = r (V);
  else
    X = r (merge (dbl, double (G), single (G)));
    A1 = [];
    if (! any (X(:)))
      X = [];
      return;
    endif
    if (tr)
      X = X.';
    endif
    A = r (gram_ (X));
    d = r (sum (abs (A), 2));
    s = zeros (size (d), class (d));      # Eps floors d; with Eps 0 a zero sum gives 0
    fl = r (cast (o.eps, class (A)));
    k = d > 0 | fl > 0;
    s(k) = r (1 ./ sqrt (max (d(k), fl)));
    X = r (X .* s);
    V = r (r (A .* s) .* s.');
  endif
  A1 = triu (V) + triu (V, 1).';          # the upper triangle, mirrored
endfunction

function X = standard (X, cf, r, fused, A1)
  for k = 1:rows (cf)
    a = cf(k,1); b = cf(k,2); c = cf(k,3);
    if (k == 1 && ! isempty (A1))
      A = A1;
    else
      A = r (gram_ (X));
    endif
    B = poly_ (A, b, c, r, fused, true);
    X = axpy_ (a, X, mul_ (B, X), r, fused);
  endfor
endfunction

## Z = r(r(b A) + r(r(c A) A)), the (c A) A product a general one (as eager torch); fused,
## r(b A + c P), P = A A' the symmetric product for an exactly symmetric A (sym), else the
## general A A, its scalars applied once it is complete
function Z = poly_ (A, b, c, r, fused, sym)
  if (fused && sym)
    Z = r (b * A + c * gram_ (A));
  elseif (fused)
    Z = r (b * A + c * mul_ (A, A));
  else
    Z = r (r (b * A) + r (mul_ (r (c * A), A)));
  endif
endfunction

## r(r(a Y) + r(P)) for a product P; fused, r(a Y + P)
function Z = axpy_ (a, Y, P, r, fused)
  if (fused)
    Z = r (a * Y + P);
  else
    Z = r (r (a * Y) + r (P));
  endif
endfunction

## lowp: bf16 / fp16, the peers' general products; in single and double R and RZ stay
## exactly symmetric (the core's symmetric products: c R R' by SYRK, the upper half of each
## product of two commuting symmetric matrices, mirrored); Q is a general product always
## The upper triangle of Y, mirrored (single and double); Y itself in bf16 / fp16
function Y = sym_ (Y, lowp)
  if (! lowp)
    Y = triu (Y) + triu (Y, 1).';
  endif
endfunction

function X = gram (X, cf, restarts, r, fused, lowp, A1)
  steps = rows (cf);
  n = rows (X);
  dg = 1:n+1:n*n;                          # diagonal entries
  isrestart = @(i) i > 0 && any (restarts(:) == i);
  if (isempty (A1))
    R = r (gram_ (X));
  else
    R = A1;
  endif
  Q = [];
  for i = 0:steps-1
    a = cf(i+1,1); b = cf(i+1,2); c = cf(i+1,3);
    if (isrestart (i))
      X = r (mul_ (Q, X));
      R = r (gram_ (X));
      Q = [];
    endif
    Z = poly_ (R, b, c, r, fused, ! lowp);
    if (isempty (Q))
      Q = Z;                               # r(Z + a I): only the diagonal changes
      Q(dg) = r (Z(dg) + a);
    else
      Q = axpy_ (a, Q, mul_ (Z, Q), r, fused);   # general: Q is not mirrored
    endif
    if (i < steps - 1 && ! isrestart (i + 1))
      RZ = sym_ (axpy_ (a, R, mul_ (Z, R), r, fused), lowp);
      R = sym_ (axpy_ (a, RZ, mul_ (Z, RZ), r, fused), lowp);
    endif
  endfor
  X = r (mul_ (Q, X));
endfunction
