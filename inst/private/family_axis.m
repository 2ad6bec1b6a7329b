## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{axis} =} family_axis (@var{opts}, @var{algorithm}, @var{m}, @var{n})
## The axis over which NorMuon / AdaMuon (@var{algorithm}) average the squares of an
## @var{m} x @var{n} update into their V: @qcode{"row"} (an m x 1 V), @qcode{"col"}
## (1 x n) or @qcode{"element"} (m x n); @qcode{"NormAxis"} as @var{opts} has it, its
## default by algorithm (NorMuon row, AdaMuon element), @qcode{"shorter"} resolved by the
## shape.
## @end deftypefn

function axis = family_axis (opts, algorithm, m, n)
  axis = opts.norm_axis;
  if (isempty (axis))
    axis = merge (strcmp (algorithm, "normuon"), "row", "element");
  endif
  if (strcmp (axis, "shorter"))
    axis = merge (m >= n, "row", "col");
  endif
endfunction
