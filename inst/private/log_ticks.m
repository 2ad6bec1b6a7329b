## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{t}, @var{labels}] =} log_ticks (@var{lim})
## Ticks for a log axis with limits @var{lim} = [lo hi] that spans under three decades
## (where gnuplot labels one or two powers of ten at most): 1, 2 and 5 times each power of
## ten inside the range (1, 1.5, 2, 3, 4, 5 and 7 times under one decade), so that the
## values can be read.  @var{labels} are the ticks
## printed with @code{%g}.  Empty for a wider range (gnuplot's own ticks read well there)
## and for limits that are not positive.
## @end deftypefn

function [t, labels] = log_ticks (lim)
  lo = lim(1);
  hi = lim(2);
  t = [];
  labels = {};
  if (! (lo > 0 && hi > lo && isfinite (hi)))
    return;
  endif
  if (log10 (hi / lo) >= 3)
    return;
  endif
  p = floor (log10 (lo)):ceil (log10 (hi));
  if (log10 (hi / lo) < 1)
    t = kron (10 .^ p, [1 1.5 2 3 4 5 7]);
  else
    t = kron (10 .^ p, [1 2 5]);
  endif
  t = t(t >= lo * (1 - 1e-12) & t <= hi * (1 + 1e-12));
  labels = arrayfun (@(v) sprintf ("%g", v), t, "UniformOutput", false);
endfunction
