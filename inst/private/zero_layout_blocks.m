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
  endif
endfunction
