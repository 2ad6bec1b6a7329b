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
  if (isa (x, "muon_result"))          # muon_state and the muon_rows kinds too
    x = struct (x);
  endif
  if (isstruct (x))
    if (isempty (x))
      t = "[]";
      return;
    endif
    f = fieldnames (x);
    keys = strcat (strings (f), ":");
    parts = cell (numel (x), 1);
    for i = 1:numel (x)
      if (isscalar (x))
        w = where;
      else
        w = sprintf ("%s(%d)", where, i);
      endif
      v = cell (1, numel (f));
      for k = 1:numel (f)
        v{k} = [keys{k} enc(fname, x(i).(f{k}), [w "." f{k}])];
      endfor
      parts{i} = ["{" strjoin(v, ",") "}"];
    endfor
    if (isscalar (x))
      t = parts{1};
    else
      t = ["[" strjoin(parts, ",") "]"];
    endif
  elseif (iscell (x))
    v = cell (1, numel (x));
    for i = 1:numel (x)
      v{i} = enc (fname, x{i}, sprintf ("%s{%d}", where, i));
    endfor
    t = ["[" strjoin(v, ",") "]"];
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

## a table T (a scalar struct of n-row columns) as an array of n row objects, built a
## column at a time: the texts of each column (and its key) as the rows of a char matrix,
## padded, beside each other, the padding then dropped
function t = table_rows (fname, T)
  f = fieldnames (T);
  n = rows (T.(f{1}));
  if (n == 0)
    t = "[]";
    return;
  endif
  keys = strcat (",", strings (f), ":");
  keys{1}(1) = "{";
  [parts, keep] = deal (cell (1, 2 * numel (f) + 1));
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
