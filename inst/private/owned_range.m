## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{rr} =} owned_range (@var{q}, @var{r})
## The @code{[start stop)} of the elements of parameter @var{q} (an entry of a
## @code{zero_layout}'s @code{params}) that rank @var{r} holds, 0-based; @code{[0 0]} when
## @var{r} is not among its owners (they are consecutive ranks, row k of
## @code{owner_ranges} is @code{owners(k)}'s).
## @end deftypefn

function rr = owned_range (q, r)
  k = r - q.owners(1) + 1;
  if (k >= 1 && k <= numel (q.owners))
    rr = q.owner_ranges(k,:);
  else
    rr = [0 0];
  endif
endfunction
