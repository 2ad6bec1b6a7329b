## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} warn_prerounded (@var{G}, @var{prec})
## @code{muon_ns}'s warning @code{muonlab:tinyInput} for @qcode{"NormalizeFirst", false},
## which rounds G to the compute precision @var{prec} before normalizing: the pages of
## @var{G} (M x N x E) that lose more than 10% of their norm to that rounding, i.e. whose
## entries lie well below the precision's normal range (in range, the rounding moves a page
## by at most its unit roundoff, 2^-9 in bf16; a loss of a few percent still gives about
## the result of normal inputs, a loss of a quarter a visibly worse one, and a page that
## loses everything comes out zero).  Non-finite results of the rounding (fp16
## past 65504) are the nonFiniteResult warning's, not counted here.
## @end deftypefn

function warn_prerounded (G, prec)
  if (strcmp (prec, "double"))
    return;
  endif
  E = size (G, 3);
  x = reshape (double (G), [], E);
  sc = max (abs (x), [], 1);              # per page, so that squares neither under- nor
  sc(sc == 0 | ! isfinite (sc)) = 1;      # overflow
  d = (x - muon_round (x, prec)) ./ sc;
  lost = sqrt (sumsq (d, 1)) ./ sqrt (sumsq (x ./ sc, 1));
  bad = isfinite (lost) & lost > 0.1;
  if (any (bad))
    warning ("muonlab:tinyInput",
             ["muon_ns: %d page(s) of G lose %d%% of their norm to the rounding to %s " ...
              "before normalization (NormalizeFirst false): their result is that of the " ...
              "rounded G (zero where all is lost); normalize first, or scale G."],
             sum (bad), round (100 * max (lost(bad))), prec);
  endif
endfunction
