## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{tf} =} opt_squares_overflow (@var{g})
## For @code{muon_step}'s overflow check: whether a square of an element of the AdamW
## gradient @var{g} (g .* g, in its class, single or double: the second moment's)
## overflows, so that AdamW's v would be Inf: a single entry past 1.8e19, whose fp64 sum
## of squares is finite.  At a scale of at least 1 a double's is also caught by the Inf sum
## of squares of the scaled gradient; below 1 only here (2e154 at 2^-10).  A device array
## is gathered only when its fp64 sum of squares passes its class's range.
## @end deftypefn

function tf = opt_squares_overflow (g)
  if (isa (g, "muon_gpuarray"))
    ## the fp64 sum of squares is at least the largest square: only when it passes the
    ## class's range can one square overflow, and then the host looks (a gather, only then)
    tf = (any (strcmp (g.Storage, {"single", "double"}))
          && opt_sumsq (g) >= realmax (g.Storage) && opt_squares_overflow (gather (g)));
    return;
  endif
  tf = (isfloat (g) && ! isempty (g) && max (abs (g(:))) >= sqrt (realmax (class (g))));
endfunction
