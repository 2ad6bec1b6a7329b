## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{E}, @var{S}] =} zero_layout_blocks (@var{L}, @var{E}, @var{S})
## The 'Experts' and 'SplitRows' values a step on layout @var{L} runs with: those given
## (@var{E}, @var{S}), else, when neither is given, a model layout's own (@code{L.blocks}:
## its expert pages and fused row blocks, 1 x P and a 1 x P cell), so that a layout made
## from a model steps as the model's @code{zero_cost} plans it.
## @end deftypefn

function [E, S] = zero_layout_blocks (L, E, S)
  if (! (isempty (E) && isempty (S)))
    return;
  endif
  b = [];
  if (isa (L, "zero_layout_result") || isfield (L, "blocks"))   # the object or its struct
    b = L.blocks;
  endif
  if (isstruct (b))
    E = double (b.experts(:).');
    S = b.split(:).';
  endif
endfunction
