## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{p} =} opt_fused_add (@var{q}, @var{alpha}, @var{O})
## torch's @code{q.add_ (O, alpha=alpha)} on single @var{q} and @var{O} (fp32 on the CPU:
## one fused multiply-add, @code{fma (alpha, O, q)} rounded once, alpha rounded to single,
## torch's opmath): @var{alpha} (double) is rounded to single, @code{alpha * O} is exact in
## double (24 x 24 bits), and the double sum is rounded to odd (Knuth's TwoSum gives its
## error; an inexact sum with an even last bit moves one double toward the error), so that
## its rounding to single is the exact sum's, ties included.  For @code{muon_step}'s
## @qcode{"MomentumArith"} @qcode{"torch"} apply.
## @end deftypefn

function p = opt_fused_add (q, alpha, O)
  x = double (single (alpha)) * double (O);
  qd = double (q);
  s = qd + x;
  b = s - qd;
  e = (qd - (s - b)) + (x - b);
  k = find (e != 0 & isfinite (e));
  k = k(bitand (typecast (s(k)(:), "uint64"), uint64 (1)) == 0);   # inexact and even
  if (! isempty (k))
    bits = typecast (s(k)(:), "uint64");
    up = (e(k)(:) > 0) == (s(k)(:) > 0);      # away from zero
    bits(up) += uint64 (1);
    bits(! up) -= uint64 (1);
    s(k) = typecast (bits, "double");
  endif
  p = single (s);
endfunction
