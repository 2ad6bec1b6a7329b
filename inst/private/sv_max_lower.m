## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} sv_max_lower (@var{X})
## A lower bound of the largest singular value of each page of the M x N x P array
## @var{X}, 1 x P double: @code{norm (A * v)} for a unit v after 8 steps of the power method
## on A'A from the fixed start @code{cos (1:N)'} (no singular vector of an input is
## orthogonal to it but by construction), each page scaled by its largest magnitude first
## (no overflow for finite pages; NaN for a non-finite one).  Costs 16 matrix-vector
## products a page: one page at a time on one OpenBLAS thread when the pages are large,
## all pages at once in elementwise sums when they are small (many experts or blocks);
## the same bits on any machine either way.
## @end deftypefn

function s = sv_max_lower (X)
  [m, n, P] = size (X);
  s(1:P) = 0;                            # (no zeros: a zeros.m on the path stays unused)
  if (isempty (X))
    return;
  endif
  scale = max (max (abs (X), [], 1), [], 2);     # 1 x 1 x P
  bad = ! all (all (isfinite (X), 1), 2)(:).';    # (max skips NaN)
  zero = scale(:).' == 0;
  v0 = cos (1:n)';
  v0 /= norm (v0);
  if (P > 1 && m * n <= 4096)            # small pages: every page in one sweep
    A = X ./ scale;
    A(:,:,bad | zero) = 0;
    v = v0(:, 1, ones (1, P));           # n x 1 x P
    for it = 1:8
      w = sum (A .* permute (v, [2 1 3]), 2);          # m x 1 x P
      s = max (s, sqrt (sum (w .^ 2, 1))(:).');
      u = permute (sum (A .* w, 1), [2 1 3]);         # n x 1 x P
      nu = sqrt (sum (u .^ 2, 1));
      nu(nu == 0) = 1;                   # a page with A v = 0: its v stays put
      v = u ./ nu;
    endfor
  else
    restore = blas_one_thread ();
    for k = find (! (bad | zero))
      A = X(:,:,k) / scale(k);           # (single stays single: half the traffic)
      v = v0;
      for it = 1:8
        w = A * v;
        s(k) = max (s(k), norm (w));
        u = A' * w;
        nu = norm (u);
        if (nu == 0)
          break;
        endif
        v = u / nu;
      endfor
    endfor
  endif
  s = double (s) .* double (scale(:).');
  s(bad) = NaN;
  s(zero) = 0;
endfunction
