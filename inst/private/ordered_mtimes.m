## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{C} =} ordered_mtimes (@var{A}, @var{B})
## @var{A} * @var{B} with every entry a dot product summed in order (1, 2, @dots{}, k):
## elementwise products and Octave's ordered sums, no BLAS, so the bits do not depend on
## the thread count (Octave's threaded OpenBLAS does not keep them: a 300 x 120 by
## 120 x 200 product differs between 1 and 2 threads).  The loop runs over the smallest
## dimension (the three forms sum in the same order).  For family_dion's products.
## @end deftypefn

function C = ordered_mtimes (A, B)
  [m, k] = size (A);
  n = columns (B);
  if (k <= min (m, n))                  # rank-1 updates, in order
    C = zeros (m, n, class (A));
    for i = 1:k
      C += A(:,i) .* B(i,:);
    endfor
  elseif (n <= m)                       # column by column
    C = zeros (m, n, class (A));
    for j = 1:n
      C(:,j) = sum (A .* B(:,j).', 2);
    endfor
  else                                  # row by row
    C = zeros (m, n, class (A));
    for i = 1:m
      C(i,:) = sum (A(i,:).' .* B, 1);
    endfor
  endif
endfunction
