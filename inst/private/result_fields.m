## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} result_fields (@var{fname}, @var{S}, @var{cols}, @var{others})
## The check of a result kind's constructor @var{fname} on the struct @var{S} it is made
## from, before its display needs them: @var{S} has every field of the cellstrs
## @var{cols} (the columns, one value per row: the same number of elements, the first's)
## and @var{others}, else a @code{muonlab:badArg} error names the first missing field or
## the first column of another length.
## @end deftypefn

function result_fields (fname, S, cols, others)
  need = [cols(:); others(:)];
  miss = need(! isfield (S, need));
  if (! isempty (miss))
    error ("muonlab:badArg", "%s: S must have the field '%s'.", fname, miss{1});
  endif
  n = cellfun (@(f) numel (S.(f)), cols);
  k = find (n != n(1), 1);
  if (! isempty (k))
    error ("muonlab:badArg",
           "%s: S.%s must have as many elements as S.%s (%d, one per row), not %d.", fname,
           cols{k}, cols{1}, n(1), n(k));
  endif
endfunction
