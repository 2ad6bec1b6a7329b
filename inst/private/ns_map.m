## -*- texinfo -*-
## @deftypefn {} {[@var{p}, @var{x}] =} ns_map (@var{C})
## @deftypefnx {} {[@var{p}, @var{x}] =} ns_map (@var{C}, @var{hi})
## @deftypefnx {} {@var{p} =} ns_map (@var{C}, [], @var{x})
## The composed scalar map of the K x 3 schedule @var{C} (one row per step, as
## @code{expand_schedule} gives it): p (x) = p_K (... p_1 (x)), p_k (x) = a x + b x^3 +
## c x^5, what the iteration does to each singular value of its normalized input.  With
## one argument, on the audit's grid @var{x} (a row): 60 points log-spaced on
## [1e-6, 1e-3) (those of 61 on [1e-6, 1e-3] but the last), then 20001 evenly on
## [1e-3, @var{hi}] (default 1), and x = 1 itself when @var{hi} > 1, so that a sign change
## on (0, @var{hi}] is seen to within 5e-5 and the values on [1e-3, 1] include p (1).  With @var{x} given, the map at those points.
## @end deftypefn

function [p, x] = ns_map (C, hi, x)
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
endfunction
