## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{p}, @var{x}, @var{s0}] =} ns_map (@var{C})
## @deftypefnx {} {[@var{p}, @var{x}, @var{s0}] =} ns_map (@var{C}, @var{hi})
## @deftypefnx {} {@var{p} =} ns_map (@var{C}, [], @var{x})
## The composed scalar map of the K x 3 schedule @var{C} (one row per step, as
## @code{expand_schedule} gives it): p (x) = p_K (... p_1 (x)), p_k (x) = a x + b x^3 +
## c x^5, what the iteration does to each singular value of its normalized input.  With
## one argument, on the audit's grid @var{x} (a row): 60 points log-spaced on
## [1e-6, 1e-3) (those of 61 on [1e-6, 1e-3] but the last: a factor 10^0.05 = 1.122
## apart, the last gap 1.09e-4), then 20001 evenly on [1e-3, @var{hi}] (default 1, a gap
## of 5e-5 up to 1), and x = 1 itself when @var{hi} > 1, so that the values on [1e-3, 1]
## include p (1).  With @var{x} given, the map at those points.
##
## @var{s0} is the sign (-1, 0 or 1) of p on (0, eps) for a small enough eps, decided
## exactly from the coefficients, below the grid: near 0 each step's lowest-order term
## with a nonzero coefficient dominates (a y, else b y^3, else c y^5), so p (x) = L x^e
## (1 + o (1)) with the sign of L the product of the signs of those coefficients (odd
## powers keep the sign of y); 0 when a step is identically 0.
## @end deftypefn

function [p, x, s0] = ns_map (C, hi, x)
  if (nargin < 3)
    if (nargin < 2)
      hi = 1;
    endif
    x = [logspace(-6, -3, 61)(1:end-1), linspace(1e-3, hi, 20001)];
    if (hi > 1)                         # x = 1 itself: p (1) bounds the values on [., 1]
      x = [x(x < 1), 1, x(x > 1)];
    endif
  endif
  p = x;
  for k = 1:rows (C)
    p2 = p .* p;
    p = p .* (C(k,1) + p2 .* (C(k,2) + p2 .* C(k,3)));
  endfor
  if (nargout > 2)
    s0 = 1;
    for k = 1:rows (C)
      j = find (C(k,:) != 0, 1);
      if (isempty (j))
        s0 = 0;
        break;
      endif
      s0 *= sign (C(k,j));
    endfor
  endif
endfunction
