## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{full}, @var{seen}, @var{clash}] =} zero_shard_unpack (@var{seg}, @var{buf}, @var{full}, @var{seen})
## Write the momentum buffer @var{buf}, laid out as the rows @var{seg} of a map of
## @code{zero_shard_map}, into the full matrices @var{full} (1 x P cell), marking the
## elements written in @var{seen} (1 x P cell of logical matrices).  An element already
## seen must come back with the same bits; @var{clash} is the first matrix (1-based) where
## it does not, else 0.
## @end deftypefn

function [full, seen, clash] = zero_shard_unpack (seg, buf, full, seen)
  clash = 0;
  for i = 1:rows (seg)
    p = seg(i,1);
    [m, n] = size (full{p});
    k = (seg(i,3):seg(i,4)-1).';
    if (seg(i,5))
      idx = mod (k, n) * m + floor (k / n) + 1;     # row-major k -> column-major index
    else
      idx = k + 1;
    endif
    v = buf(seg(i,2) + (1:numel (k)));
    old = seen{p}(idx);
    have = full{p}(idx(old));       # a row for a 1 x n matrix: v is a column
    if (! clash && any (old) && ! isequal (typecast (have(:), "uint64"),
                                           typecast (v(old), "uint64")))
      clash = p;
    endif
    full{p}(idx) = v;
    seen{p}(idx) = true;
  endfor
endfunction
