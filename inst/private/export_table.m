## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{T}, @var{names}, @var{cols}] =} export_table (@var{fname}, @var{X}, @var{name}, @var{lead})
## The table @code{muon_export} writes of @var{X} (a plain struct or struct array): with
## @var{name} empty, @var{X} itself as a table, a struct of n-row columns (a scalar struct
## of equal-length columns, or a struct array whose fields hold a scalar, a row or a string
## each); with @var{name}, the tables in field @var{name} of every element of @var{X},
## stacked, each led by its element's scalar fields when @var{X} has several elements or
## @var{lead} is true (a list of records of @code{muon_rows}, even of one record), else
## (a scalar struct) the table alone.  [] (and empty @var{names},
## @var{cols}) when @var{X} is no table.  @var{names} and @var{cols} are the CSV columns:
## an n x k numeric column is split into k named @code{NAME_1} @dots{} @code{NAME_k}.
## Errors (@code{muonlab:badArg}, naming @var{fname}): complex columns, n x 0 columns, a
## field @var{name} that is missing or holds no table, stacked tables with different
## columns or a column named as a field of @var{X} that leads the rows.
## @end deftypefn

function [T, names, cols] = export_table (fname, X, name, lead)
  if (! isempty (name))
    T = stacked (fname, X, name, nargin > 3 && lead);
  else
    T = as_table (X);
  endif
  names = cols = {};
  if (! isempty (T))
    check_columns (fname, T);
    [names, cols] = columns_of (T);
  endif
endfunction

## X as a table (a struct of n-row columns), or [] when it is none.  LENIENT (a table
## picked by "Table"): a struct array's fields that are no columns are left out.  A scalar
## struct that is no struct of columns is read as a struct array of one row.
function T = as_table (X, lenient)
  T = [];
  if (! isstruct (X) || isempty (fieldnames (X)))
    return;
  endif
  f = fieldnames (X);
  if (isscalar (X))
    n = [];
    for k = 1:numel (f)
      c = X.(f{k});
      if (isnumeric (c) || islogical (c))
        ok = ndims (c) == 2;
      elseif (iscell (c))
        ok = ndims (c) == 2 && columns (c) == 1 && all (cellfun (@is_cell_value, c));
      else
        ok = false;
      endif
      if (! ok || (! isempty (n) && rows (c) != n))
        n = [];
        break;
      endif
      n = rows (c);
    endfor
    if (! isempty (n))
      T = X;
      return;
    endif
  endif
  T = struct ();                       # a struct array: its per-row values are the
  for k = 1:numel (f)                  # columns; a field holding a matrix or vectors of
    vals = {X.(f{k})};                 # different lengths (a rank's update) is left out
    if (all (cellfun (@(x) ischar (x) && (isrow (x) || isempty (x)), vals)))
      T.(f{k}) = vals(:);
    elseif (all (cellfun (@is_num_row, vals))
            && numel (unique (cellfun (@numel, vals))) == 1)
      T.(f{k}) = vertcat (vals{:});
    elseif (nargin < 2 || ! lenient)
      T = [];
      return;
    endif
  endfor
  if (isempty (fieldnames (T)))
    T = [];
  endif
endfunction

function tf = is_num_row (x)
  tf = (isnumeric (x) || islogical (x)) && isrow (x);
endfunction

## Refuse the columns of table T that cannot be written: complex ones (the numbers would
## lose their imaginary parts) and n x 0 ones (no CSV column, a null per row in JSON).
function check_columns (fname, T)
  for g = fieldnames (T).'
    c = T.(g{1});
    if (iscell (c))
      cplx = ! all (cellfun ("isreal", c));
    else
      cplx = ! isreal (c);
    endif
    if (cplx)
      error ("muonlab:badArg",
             "%s: X's column '%s' is complex; write its real and imaginary parts apart.",
             fname, g{1});
    elseif (! iscell (c) && columns (c) == 0 && rows (c) > 0)
      error ("muonlab:badArg", "%s: X's column '%s' is %d x 0: it has no values to write.",
             fname, g{1}, rows (c));
    endif
  endfor
endfunction

function tf = is_cell_value (x)
  tf = (ischar (x) && (isrow (x) || isempty (x))) ...
       || ((isnumeric (x) || islogical (x)) && (isscalar (x) || isempty (x) || isrow (x)));
endfunction

## The tables in field `name` of every element of X, stacked, each led by its element's
## scalar fields (a scalar X: only with LEAD).
function T = stacked (fname, X, name, lead)
  if (! (isstruct (X) && isfield (X, name)))
    error ("muonlab:badArg", "%s: X has no field '%s'.", fname, name);
  endif
  T = [];
  for i = 1:numel (X)
    t = as_table (X(i).(name), true);
    if (isempty (t))
      error ("muonlab:badArg", "%s: field '%s' of X is not a table.", fname, name);
    endif
    f = fieldnames (t);
    n = rows (t.(f{1}));
    keys = struct ();
    if (! isscalar (X) || lead)
      for g = fieldnames (X).'
        x = X(i).(g{1});
        if (ischar (x) && (isrow (x) || isempty (x)))
          keys.(g{1}) = repmat ({x}, n, 1);
        elseif ((isnumeric (x) || islogical (x)) && isscalar (x) && isreal (x))
          keys.(g{1}) = repmat (x, n, 1);
        endif
      endfor
    endif
    for g = f.'
      if (isfield (keys, g{1}))
        error ("muonlab:badArg",
               "%s: the '%s' table of X has a column '%s', which is a field of X too.",
               fname, name, g{1});
      endif
      keys.(g{1}) = t.(g{1});
    endfor
    if (isempty (T))
      T = keys;
    else
      if (! isequal (fieldnames (T), fieldnames (keys)))
        error ("muonlab:badArg", "%s: the '%s' tables of X have different columns.", fname,
               name);
      endif
      for g = fieldnames (T).'
        T.(g{1}) = [T.(g{1}); keys.(g{1})];
      endfor
    endif
  endfor
endfunction

## Column names and cells of the columns, n x k numeric columns split into k.
function [names, cols] = columns_of (T)
  names = {};
  cols = {};
  for g = fieldnames (T).'
    c = T.(g{1});
    if ((isnumeric (c) || islogical (c)) && columns (c) > 1)
      for j = 1:columns (c)
        names{end+1} = sprintf ("%s_%d", g{1}, j);
        cols{end+1} = c(:,j);
      endfor
    else
      names{end+1} = g{1};
      cols{end+1} = c;
    endif
  endfor
endfunction
