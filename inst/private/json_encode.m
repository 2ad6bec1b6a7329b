## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{text} =} json_encode (@var{fname}, @var{X})
## @deftypefnx {} {@var{text} =} json_encode (@var{fname}, @var{T}, "rows")
## The JSON text of @var{X}, laid out as Octave's @code{jsonencode} lays it out (a scalar
## struct an object, a struct array or a cell an array, a vector a flat array, a matrix an
## array of its rows, a char row a string; an empty array, struct or cell @code{[]}), but
## every number written so that it reads back as the same double: the shortest of 15, 16
## or 17 significant digits that does (@code{jsonencode} writes 0.1 + 0.2 as
## 0.30000000000000007 and every positive number below eps as 0), -0 as @code{-0.0}, NaN
## and Inf as @code{null}, integers (int64, uint64 too) in all their digits, single values
## as their double values.  A @code{muon_result} or @code{muon_state} inside is written as
## its @code{struct}.  With @qcode{"rows"}, @var{T} is a table (a scalar struct of n-row
## columns: numeric, logical or cell) written as an array of n row objects.
##
## Errors (@code{muonlab:badArg}, naming @var{fname} and where in @var{X}): a complex
## value, a value JSON cannot hold (a function handle, another object).
## @end deftypefn

function text = json_encode (fname, X, rows)
  if (nargin > 2)
    text = table_rows (fname, X);
  else
    text = enc (fname, X, "X");
  endif
endfunction

## the JSON text of X, WHERE its name in messages
function t = enc (fname, x, where)
  if (isa (x, "muon_state"))           # (after `clear functions` no muon_result: it
    x = state_plain (x);               # was "a muon_state, which JSON cannot hold")
  elseif (isa (x, "muon_result"))      # the muon_rows kinds too
    x = struct (x);
  endif
  if (isstruct (x))
    if (isempty (x))
      t = "[]";
      return;
    endif
    f = fieldnames (x);
    if (isscalar (x))
      keys = strcat (strings (f), ":");
      v = cell (1, numel (f));
      for k = 1:numel (f)
        v{k} = [keys{k} enc(fname, x.(f{k}), [where "." f{k}])];
      endfor
      t = ["{" strjoin(v, ",") "}"];
    else
      ## a field at a time: a struct array of thousands of elements (a model's parameters)
      ## would otherwise cost a call per value
      cols = cell (1, numel (f));
      for k = 1:numel (f)
        cols{k} = values_texts (fname, {x.(f{k})}.', @(i) sprintf ("%s(%d).%s", where, i, f{k}));
      endfor
      t = objects (f, cols, numel (x));
    endif
  elseif (iscell (x))
    if (isempty (x))
      t = "[]";
    else
      v = values_texts (fname, x(:), @(i) sprintf ("%s{%d}", where, i));
      t = ["[" strjoin(v.', ",") "]"];
    endif
  elseif (ischar (x) && ndims (x) == 2)
    if (rows (x) <= 1)
      t = strings ({x(:).'}){1};
    else
      t = ["[" strjoin(strings (num2cell (x, 2)), ",") "]"];
    endif
  elseif (isnumeric (x) || islogical (x))
    if (isempty (x))
      t = "[]";
      return;
    endif
    s = numbers (fname, x, where);
    if (isscalar (x))
      t = s{1};
    elseif (isvector (x))
      t = ["[" strjoin(s(:).', ",") "]"];
    else
      t = nest (s);
    endif
  else
    error ("muonlab:badArg", "%s: %s is a %s, which JSON cannot hold.", fname, where,
           class (x));
  endif
endfunction

## the nested arrays of the texts S of a matrix or N-d array: an array over its first
## dimension of the arrays of its slices, down to its rows
function t = nest (s)
  sz = size (s);
  if (numel (sz) == 2)
    t = ["[" strjoin(row_arrays (s), ",") "]"];
  else
    v = cell (1, sz(1));
    for i = 1:sz(1)
      v{i} = nest (reshape (s(i,:), sz(2:end)));
    endfor
    t = ["[" strjoin(v, ",") "]"];
  endif
endfunction

## the arrays "[a,b,...]" of the rows of S, an n x k cell of texts (k > 0)
function r = row_arrays (s)
  t = sprintf (["[" repmat("%s,", 1, columns (s) - 1) "%s]\n"], s.'{:});
  r = ostrsplit (t(1:end-1), "\n");
endfunction

## the texts of the values C (an n x 1 cell: the elements of a cell, or a field of the
## elements of a struct array), the i-th named WHERE (i) in messages: at once where they are
## real arrays (up to 2-D) of one numeric or logical class or strings, else each on its own
## (thousands of values, a model's parameters, would otherwise cost a call each)
function s = values_texts (fname, c, where)
  cls = class (c{1});
  if ((isnumeric (c{1}) || islogical (c{1}))
      && all (strcmp (cellfun ("class", c, "UniformOutput", false), cls))
      && all (cellfun ("isreal", c)) && all (cellfun ("ndims", c) == 2))
    s = array_texts (fname, c, where (1));
  elseif (all (cellfun ("isclass", c, "char")) && all (cellfun ("size", c, 1) <= 1)
          && all (cellfun ("ndims", c) == 2))
    s = strings (cellfun (@(v) v(:).', c, "UniformOutput", false));
  else
    s = cell (numel (c), 1);
    for i = 1:numel (c)
      s{i} = enc (fname, c{i}, where (i));
    endfor
  endif
endfunction

## the texts of the real 2-D arrays C (an n x 1 cell, one class), as enc writes each: its
## values' texts made at once, each with the brackets and commas around it that its place
## in its array takes, then cut back into one text per array
function s = array_texts (fname, c, where)
  [r, k] = deal (cellfun ("rows", c), cellfun ("columns", c));
  if (! any (r .* k))
    s = repmat ({"[]"}, numel (c), 1);
    return;
  endif
  if (all (r == 1 | r .* k == 0))                   # scalars and rows (a model's fields)
    vals = [c{r == 1}](:);
  else
    vals = cellfun (@(v) v.'(:), c, "UniformOutput", false);   # rows after rows
    vals = vertcat (vals{:});
  endif
  t = numbers (fname, vals, where).';
  n = r .* k;
  e = repelem ((1:numel (c)).', n)(:);               # the array of each value
  i = (0:sum (n) - 1).' - repelem (cumsum (n) - n, n)(:);   # its place there, from 0
  [rr, kk] = deal (r(e), k(e));
  [row, col] = deal (floor (i ./ kk) + 1, mod (i, kk) + 1);
  vec = rr == 1 | kk == 1;
  [pre, post] = deal (repmat ({""}, size (t)), repmat ({","}, size (t)));
  pre(vec & i == 0 & n(e) > 1) = {"["};
  post(vec & i == n(e) - 1) = {"]"};
  post(n(e) == 1) = {""};
  pre(! vec & col == 1) = {"["};
  pre(! vec & i == 0) = {"[["};
  post(! vec & col == kk) = {"],"};
  post(! vec & i == n(e) - 1) = {"]]"};
  parts = [pre(:).'; t(:).'; post(:).'];
  len = accumarray (e, sum (cellfun ("length", parts), 1), [numel(c) 1]);
  s = mat2cell ([parts{:}], 1, len.').';
  s(n == 0) = {"[]"};
endfunction

## the array of N objects whose keys are the field names F and whose values are the texts
## COLS{k}(i) (each an n x 1 cell): built a field at a time, the texts of each field (and
## its key) as the rows of a char matrix, padded, beside each other, the padding then
## dropped
function t = objects (f, cols, n)
  keys = strcat (",", strings (f), ":");
  keys{1}(1) = "{";
  [parts, keep] = deal (cell (1, 2 * numel (f) + 1));
  for k = 1:numel (f)
    s = cols{k};
    parts{2*k-1} = repmat (keys{k}, n, 1);
    keep{2*k-1} = true (n, numel (keys{k}));
    parts{2*k} = char (s(:));
    keep{2*k} = (1:columns (parts{2*k})) <= cellfun ("length", s(:));
  endfor
  parts{end} = repmat ("},", n, 1);
  keep{end} = true (n, 2);
  M = [parts{:}].';
  t = ["[" M([keep{:}].')(1:end-1).' "]"];
endfunction

## the JSON texts of the elements of a numeric or logical array X (a cell of its size)
function s = numbers (fname, x, where)
  if (! isreal (x))
    error ("muonlab:badArg", "%s: %s is complex; write its real and imaginary parts apart.",
           fname, where);
  endif
  if (islogical (x))
    s = repmat ({"false"}, size (x));
    s(x) = {"true"};
  elseif (isinteger (x))
    s = int_text (x);
  else
    x = double (x);
    s = double_text (x);                 # the fewest digits that read back as x
    s(! isfinite (x)) = {"null"};
    s(x == 0 & 1 ./ x < 0) = {"-0.0"};   # (jsondecode reads "-0" as +0)
  endif
endfunction

## the JSON strings (quoted, escaped) of a cellstr C
function s = strings (c)
  s = c;
  all_c = [c{:}];
  if (any (all_c == '"' | all_c == "\\"))
    s = strrep (strrep (s, "\\", "\\\\"), '"', '\"');   # (bytes: any text, UTF-8 or not)
  endif
  ctl = [];
  if (any (all_c < 32))
    ctl = find (cellfun (@(v) any (v < 32), s));
  endif
  esc = {"\\b", "\\t", "\\n", "\\u000B", "\\f", "\\r"};
  for i = ctl(:).'
    v = s{i};
    k = find (v < 32);
    r = arrayfun (@(b) sprintf ("\\u%04X", b), double (v(k)), "UniformOutput", false);
    named = v(k) >= 8 & v(k) <= 13 & v(k) != 11;
    r(named) = esc(double (v(k)(named)) - 7);
    parts = [ostrsplit(v, char (0:31)); [r, {""}]];
    s{i} = [parts{:}];
  endfor
  s = strcat ('"', s, '"');
endfunction

## a table T (a scalar struct of n-row columns) as an array of n row objects
function t = table_rows (fname, T)
  f = fieldnames (T);
  n = rows (T.(f{1}));
  if (n == 0)
    t = "[]";
    return;
  endif
  cols = cell (1, numel (f));
  for k = 1:numel (f)
    c = T.(f{k});
    where = sprintf ("X's column '%s'", f{k});
    if (iscellstr (c) && all (cellfun ("size", c, 1) <= 1))
      s = strings (c);
    elseif (iscell (c))
      s = cell (n, 1);
      for i = 1:n
        s{i} = enc (fname, c{i}, where);
      endfor
    elseif (columns (c) == 1)
      s = numbers (fname, c, where);
    else
      s = row_arrays (numbers (fname, c, where));
    endif
    cols{k} = s;
  endfor
  t = objects (f, cols, n);
endfunction
