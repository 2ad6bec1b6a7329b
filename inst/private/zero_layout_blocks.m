## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{E}, @var{S}] =} zero_layout_blocks (@var{L}, @var{E}, @var{S}, @var{fname})
## The 'Experts' and 'SplitRows' values a step on layout @var{L} runs with: each one given
## (@var{E}, @var{S}) as given, and each one not given ([]) a model layout's own
## (@code{L.blocks}: its expert pages and fused row blocks, 1 x P and a 1 x P cell), so that
## a layout made from a model steps as the model's @code{zero_cost} plans it, and a
## "SplitRows" alone splits the model's expert pages rather than whole matrices.  Blocks of
## L that do not fit its matrices are @code{muonlab:badType} naming @var{fname} and
## @code{L.blocks}; whether the given values fit with the layout's is the caller's check
## (@code{zero_blocks}).
## @end deftypefn

function [E, S] = zero_layout_blocks (L, E, S, fname)
  if (! (isempty (E) || isempty (S)))
    return;
  endif
  b = [];
  if (isa (L, "zero_layout_result") || isfield (L, "blocks"))   # the object or its struct
    b = L.blocks;
  endif
  if (! isstruct (b))
    return;
  endif
  try                                   # the layout's, so its faults are the layout's
    if (! (isscalar (b) && isfield (b, "experts") && isfield (b, "split")
           && isnumeric (b.experts) && iscell (b.split)))
      error ("muonlab:badType", "not a struct of experts and split");
    endif
    Eb = double (b.experts(:).');
    Sb = b.split(:).';
    zero_blocks (fname, Eb, Sb, [[L.params.rows]; [L.params.cols]].');
  catch err
    msg = regexprep (err.message, ['^' fname ': |\.$'], "");
    error ("muonlab:badType", "%s: L must be a layout from zero_layout (L.blocks: %s).",
           fname, msg);
  end_try_catch
  if (isempty (E))
    E = Eb;
  endif
  if (isempty (S))
    S = Sb;
    check_split_fits (fname, E, S, [L.params.rows]);
  endif
endfunction

## EXPERTS given alone on a model layout: the model's split row blocks (L.blocks.split) must
## tile the pages of those experts, else the fault is named as the caller's EXPERTS (the
## caller gave no SPLITROWS for zero_blocks to blame).  Experts that are not valid, or do
## not divide a matrix, are zero_blocks' to report.
function check_split_fits (fname, E, S, rows)
  P = numel (rows);
  if (! (isnumeric (E) && isreal (E) && any (numel (E) == [1 P]) && all (E(:) >= 1)
         && all (E(:) == fix (E(:)))))
    return;
  endif
  E = double (E(:).') .* ones (1, P);
  for p = 1:P
    if (! isempty (S{p}) && mod (rows(p), E(p)) == 0 && sum (S{p}) != rows(p) / E(p))
      error ("muonlab:badShape",
             ["%s: EXPERTS (%d) of parameter %d gives pages of %d rows, which the model's " ...
              "split row blocks (L.blocks.split{%d}, %d rows) do not tile; give SPLITROWS " ...
              "too."], fname, E(p), p, rows(p) / E(p), p, sum (S{p}));
    endif
  endfor
endfunction
