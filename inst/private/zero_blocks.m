## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{E}, @var{S}] =} zero_blocks (@var{fname}, @var{E}, @var{S}, @var{shapes})
## Private: the 'Experts' and 'SplitRows' values of zero_muon_step and zero_train_step, per
## parameter (P = rows (@var{shapes})).
## @end deftypefn

## Each parameter's expert count (1 x P) and split row blocks (1 x P cell, [] for none) from
## the 'Experts' and 'SplitRows' values: one for all parameters or one per parameter.
function [E, S] = zero_blocks (fname, E, S, shapes)
  P = rows (shapes);
  if (isempty (E))
    E = ones (1, P);
  elseif (! (isnumeric (E) && isreal (E) && any (numel (E) == [1 P]) && all (E(:) >= 1)
             && all (E(:) == fix (E(:))) && all (isfinite (E(:)))))
    error ("muonlab:badArg",
           "%s: EXPERTS must be a positive integer, or a vector of one per parameter.", fname);
  endif
  E = full (double (E(:).')) .* ones (1, P);
  for p = find (mod (shapes(:,1).', E) != 0)
    error ("muonlab:badShape", "%s: EXPERTS (%d) must divide the %d rows of parameter %d.",
           fname, E(p), shapes(p,1), p);
  endfor
  if (isempty (S) && ! iscell (S))
    S = cell (1, P);
    return;
  elseif (isnumeric (S) && isvector (S))
    S = repmat ({S}, 1, P);
  elseif (! (iscell (S) && numel (S) == P))
    error ("muonlab:badArg",
           "%s: SPLITROWS must be a vector of row counts, or a cell of one per parameter.",
           fname);
  endif
  for p = 1:P
    b = S{p};
    page = shapes(p,1) / E(p);
    if (isempty (b) && isnumeric (b))
      S{p} = [];
    elseif (! (isnumeric (b) && isreal (b) && isvector (b) && all (b >= 1)
               && all (b == fix (b)) && sum (b) == page))
      error ("muonlab:badShape",
             "%s: SPLITROWS{%d} must be positive integers summing to the rows of each block (%d).",
             fname, p, page);
    elseif (numel (b) > core_lists ().limits.max_splits)
      error ("muonlab:badArg", "%s: SPLITROWS{%d} has %d row blocks; at most %d.", fname, p,
             numel (b), core_lists ().limits.max_splits);
    else
      S{p} = full (double (b(:).'));
    endif
  endfor
endfunction
