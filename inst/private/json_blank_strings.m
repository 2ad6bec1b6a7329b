## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{t} =} json_blank_strings (@var{text})
## @var{text} with its strings, quotes included, made blanks: what lies outside them
## (numbers, brackets, names' positions), found without a regexp (which refuses bytes that
## are no UTF-8) in one pass: a quote opens or closes a string unless an odd run of
## backslashes comes before it.
## @end deftypefn

function t = json_blank_strings (text)
  t = text;
  qi = find (t == '"');                         # the quotes that open or close a string:
  nb = find (t != "\\");                        # not those after an odd run of \
  if (numel (nb) < numel (t) && ! isempty (qi))
    last = nb(max (lookup (nb, qi - 1), 1));    # the last character before that is no \
    qi = qi(! mod (qi - 1 - last, 2) | qi == 1);
  endif
  d = zeros (1, numel (t) + 1);
  d(qi(1:2:end)) = 1;
  d(qi(2:2:end) + 1) = -1;
  t(cumsum (d(1:end-1)) > 0) = " ";
endfunction
