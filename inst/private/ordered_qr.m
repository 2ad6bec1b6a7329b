## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{P} =} ordered_qr (@var{A})
## The orthonormal factor @var{P} of the economy QR of the tall n x r matrix @var{A}
## (n >= r), as LAPACK's Householder QR gives it (dgeqrf's reflectors and signs, then
## P = H1 @dots{} Hr I(:, 1:r)): @code{[P, ~] = qr (A, 0)} within rounding, with the
## products written as in @code{ordered_mtimes}, so the bits do not depend on the thread
## count.  O(n r^2) elementwise work.  For family_dion.
## @end deftypefn

function P = ordered_qr (A)
  [n, r] = size (A);
  V = zeros (n, r, class (A));
  tau = zeros (1, r, class (A));
  for k = 1:r
    x = A(k:n,k);
    xn = norm (x(2:end));               # Octave's scaled vector norm, no BLAS
    if (xn == 0)                        # H = I
      V(k,k) = 1;
      continue;
    endif
    alpha = x(1);
    beta = -hypot (alpha, xn);
    if (alpha < 0)
      beta = -beta;
    endif
    tau(k) = (beta - alpha) / beta;
    v = [1; x(2:end) / (alpha - beta)];
    V(k:n,k) = v;
    if (k < r)
      W = A(k:n,k+1:r);
      A(k:n,k+1:r) = W - tau(k) * (v .* sum (v .* W, 1));
    endif
  endfor
  P = eye (n, r, class (A));
  for k = r:-1:1
    v = V(k:n,k);
    W = P(k:n,k:r);
    P(k:n,k:r) = W - tau(k) * (v .* sum (v .* W, 1));
  endfor
endfunction
