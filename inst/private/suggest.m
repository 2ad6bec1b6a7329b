## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} suggest (@var{word}, @var{candidates})
## The closest of the cellstr @var{candidates} to the string @var{word}, for a "did you
## mean" in an error message: a cellstr of at most 3, best first, or @{@} when none is
## close.  Words compare case-insensitively with underscores, hyphens and blanks removed
## (so @qcode{"ns_steps"} is close to @qcode{"Steps"}); close means an edit distance
## (insertions, deletions, substitutions and swaps of neighbours) of at most a third of
## the longer word (at least 1, at most 3), or one word the start of the other (3
## characters or more).
## @end deftypefn

function s = suggest (word, candidates)
  s = {};
  if (! (ischar (word) && isrow (word)) || isempty (candidates))
    return;
  endif
  w = norm_word (word);
  d = Inf (1, numel (candidates));
  for k = 1:numel (candidates)
    c = norm_word (candidates{k});
    lim = min (3, max (1, floor (max (numel (w), numel (c)) / 3)));
    dk = distance (w, c);
    if (dk <= lim)
      d(k) = dk;
    elseif (min (numel (w), numel (c)) >= 3 && (strncmp (w, c, numel (w))
                                                || strncmp (c, w, numel (c))))
      d(k) = lim + 0.5;
    endif
  endfor
  [ds, order] = sort (d);
  order = order(isfinite (ds));
  s = candidates(order(1:min (3, end)));
endfunction

function w = norm_word (w)
  w = lower (w(! ismember (w, "_- ")));
endfunction

## Damerau-Levenshtein distance (optimal string alignment) of a and b
function d = distance (a, b)
  m = numel (a);
  n = numel (b);
  D = zeros (m + 1, n + 1);
  D(:,1) = 0:m;
  D(1,:) = 0:n;
  for i = 1:m
    for j = 1:n
      c = a(i) != b(j);
      D(i+1,j+1) = min ([D(i,j+1) + 1, D(i+1,j) + 1, D(i,j) + c]);
      if (i > 1 && j > 1 && a(i) == b(j-1) && a(i-1) == b(j))
        D(i+1,j+1) = min (D(i+1,j+1), D(i-1,j-1) + 1);
      endif
    endfor
  endfor
  d = D(m+1,n+1);
endfunction
