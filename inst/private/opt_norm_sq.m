## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{q} =} opt_norm_sq ("part", @var{x})
## @deftypefnx {} {@var{q} =} opt_norm_sq ("part", @var{x}, @var{s})
## @deftypefnx {} {@var{n} =} opt_norm_sq ("norm", @var{q})
## A global 2-norm that does not overflow while its result is finite (@code{muon_step},
## @code{zero_train_step}).  @qcode{"part"}: the share of the array @var{x} (host or
## @code{muon_gpuarray}; @var{s} its @code{opt_sumsq} when known) as a 1 x 2 row
## @code{[s, s * 2^-1200]}: the fp64 sum of squares and the same sum scaled by a power of
## two (exact but for shares too small to matter); when @var{s} overflows but @var{x} is
## finite the second is @code{sumsq (x * 2^-600)} (a device array is gathered only then).
## The callers add the rows (in a fixed order, or one all-reduce that adds them in rank
## order) and @qcode{"norm"} gives @code{sqrt (q(1))}, the plain bits, while that sum is
## finite, and @code{sqrt (q(2)) * 2^600} when it overflowed.
## @end deftypefn

function r = opt_norm_sq (what, x, s)
  E = 600;                      # elements scale by 2^-E, squares by 2^-2E: both exact
  if (strcmp (what, "norm"))
    if (isfinite (x(1)))
      r = sqrt (x(1));
    else
      r = sqrt (x(2)) * 2^E;
    endif
    return;
  endif
  if (nargin < 3)
    s = opt_sumsq (x);
  endif
  if (isfinite (s))
    r = [s, (s * 2^-E) * 2^-E];                 # 2^-2E alone underflows to 0
  else
    if (isa (x, "muon_gpuarray"))
      x = gather (x);
    endif
    q = sumsq (double (x(:)) * 2^-E);           # Inf or NaN when x is
    r = [s, q];
  endif
endfunction
