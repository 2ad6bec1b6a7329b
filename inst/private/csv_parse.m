## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{F}, @var{nrow}, @var{plain}] =} csv_parse (@var{t})
## The fields of the CSV text @var{t}, row by row (a row cell @var{F}), the number of
## fields of each row (@var{nrow}), and whether each field is @var{plain}: empty or,
## unquoted, a number as @code{muon_export} writes it (a real number with no sign but a
## minus and no leading zero, such as 0.5, -12, 1.5e-07 or 1e+300, or NaN, Inf, -Inf;
## @code{str2double} also reads "1,5" as 15, "i" as a complex number, "+1", "007" and
## "1e3", text a table may hold).  A quote starts a quoted part, in which "" is a quote
## and a lone quote ends it; a comma or a line end (LF, CR LF or CR) outside quotes ends a
## field.  Whether a character is inside quotes is the parity of the quotes before it
## ("" adds two).  @code{muon_import}'s CSV reader.
## @end deftypefn

function [F, nrow, plain] = csv_parse (t)
  F = {};
  nrow = [];
  plain = [];
  if (isempty (t))
    return;
  endif
  q = (t == '"');
  out = ! mod (cumsum (q), 2);
  crlf = out & t == "\r" & [t(2:end) == "\n", false];
  t(crlf) = [];
  q(crlf) = [];
  out(crlf) = [];
  eol = out & (t == "\n" | t == "\r");
  sep = eol | (out & t == ",");
  if (! isempty (t) && ! eol(end))              # a last line without its line end
    t(end+1) = "\n";
    q(end+1) = false;
    eol(end+1) = true;
    sep(end+1) = true;
  endif
  b = find (sep);
  len = diff ([0, b]) - 1;
  F = mat2cell (reshape (t(! sep), 1, []), 1, len);
  F(len == 0) = {""};
  ## plain fields: one search, each field a line of its own, for the lines that are no
  ## number (a quoted field's first, a quote)
  field = cumsum ([1, sep(1:end-1)]);           # the field of each character
  lines = t;
  lines(sep) = "\n";
  lines(lines > 127) = "x";                      # (a byte a character: the same lengths)
  bad = '^(?!(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:e[-+][0-9]+)?|-?Inf|NaN)$)[^\n]';
  plain = true (1, numel (b));                  # (a bad line's first character as
  plain(field(regexprep (lines, bad, "\n", "lineanchors") != lines)) = false;   # a \n)
  ## fields with quotes: the quoted parts without their quotes, "" inside them as "
  hasq = find (accumarray (field.', q(:), [numel(b), 1]) > 0).';
  for i = hasq
    v = F{i};
    [inner, doubled] = undouble (v(2:end-1));
    if (numel (v) > 1 && v(1) == '"' && v(end) == '"' && doubled)
      F{i} = inner;                             # a field in quotes, its quotes doubled
    else
      F{i} = unquote (v);
    endif
    if (isempty (F{i}))
      F{i} = "";                                # (0 x 0, as the fields with no quotes)
    endif
  endfor
  ends = find (eol(b));                         # the field that ends each row
  nrow = diff ([0, ends]);
endfunction

## the field V with its quoted parts without their quotes, "" inside them as ", found in a
## copy of ASCII bytes, its positions those of V's bytes (regexp refuses bytes that are no
## UTF-8)
function f = unquote (v)
  a = v;
  a(a > 127) = "x";
  [s0, e0, te] = regexp (a, '"((?:[^"]|"")*)"?', "start", "end", "tokenExtents");
  prev = [0, e0];
  next = [s0, numel(v) + 1];
  parts = cell (2, numel (next));
  parts{2,end} = "";
  for m = 1:numel (next)
    parts{1,m} = v(prev(m)+1:next(m)-1);       # the text outside quotes
    if (m <= numel (s0))
      parts{2,m} = undouble (v(te{m}(1):te{m}(2)));
    endif
  endfor
  f = [parts{:}];
endfunction

## S with each "" as one " (strrep would replace overlapping pairs: """" gave """);
## DOUBLED: every quote of S is one of such a pair
function [s, doubled] = undouble (s)
  k = find (s == '"');
  doubled = (mod (numel (k), 2) == 0 && all (k(2:2:end) - k(1:2:end) == 1));
  if (doubled)
    s(k(1:2:end)) = [];
  endif
endfunction
