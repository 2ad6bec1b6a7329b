## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{axis}, @var{vsz}] =} family_axis (@var{opts}, @var{algorithm}, @var{m}, @var{n})
## The axis over which NorMuon / AdaMuon (@var{algorithm}) average the squares of an
## @var{m} x @var{n} update into their V: @qcode{"row"} (an m x 1 V), @qcode{"col"}
## (1 x n), @qcode{"element"} (m x n) or @qcode{"conv_kernel"} (an out x in x kh V of a
## 4-D out x in x kh x kw weight, whose shape is @code{opts.conv_shape}); @qcode{"NormAxis"}
## as @var{opts} has it, its default by algorithm (NorMuon row, AdaMuon element),
## @qcode{"shorter"} resolved by the shape, @qcode{"conv_kernel"} @qcode{"row"} when
## @var{opts} has no 4-D @code{conv_shape} (a 2-D G).  @var{vsz} is the size of that V
## (as @code{size} gives it: an out x in x 1 V is out x in).
## @end deftypefn

function [axis, vsz] = family_axis (opts, algorithm, m, n)
  axis = opts.norm_axis;
  if (isempty (axis))
    axis = merge (strcmp (algorithm, "normuon"), "row", "element");
  endif
  if (strcmp (axis, "shorter"))
    axis = merge (m >= n, "row", "col");
  elseif (strcmp (axis, "conv_kernel")
          && ! (isfield (opts, "conv_shape") && numel (opts.conv_shape) == 4))
    axis = "row";
  endif
  switch (axis)
    case "row"
      vsz = [m 1];
    case "col"
      vsz = [1 n];
    case "conv_kernel"
      vsz = opts.conv_shape(1:3);
      if (vsz(3) == 1)
        vsz = vsz(1:2);
      endif
    otherwise
      vsz = [m n];
  endswitch
endfunction
