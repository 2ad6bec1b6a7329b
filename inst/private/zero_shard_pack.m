## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{buf} =} zero_shard_pack (@var{M}, @var{r}, @var{full})
## Rank @var{r}'s (0-based) momentum buffer under the map @var{M} of @code{zero_shard_map},
## cut from the full matrices @var{full} (1 x P cell); padding is zero.
## @end deftypefn

function buf = zero_shard_pack (M, r, full)
  buf = zeros (M.len(r+1), 1);
  s = M.seg{r+1};
  for i = 1:rows (s)
    X = full{s(i,1)};
    if (s(i,5))
      X = X.';
    endif
    buf(s(i,2) + (1:s(i,4)-s(i,3))) = X(s(i,3)+1:s(i,4));
  endfor
endfunction
