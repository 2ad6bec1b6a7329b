## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} quoted_list (@var{names}, @var{conj})
## The cellstr @var{names} as "'a', 'b' CONJ 'c'" ("'a'" for one name).
## @end deftypefn

function s = quoted_list (names, conj)
  s = sprintf ("'%s', ", names{:});
  s = s(1:end-2);
  k = strfind (s, ", ");
  if (! isempty (k))
    s = [s(1:k(end)-1) " " conj s(k(end)+1:end)];
  endif
endfunction
