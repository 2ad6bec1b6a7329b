## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {} muon_export (@var{X}, @var{file})
## @deftypefnx {muonlab} {} muon_export (@var{X}, @var{file}, "Table", @var{name})
## @deftypefnx {muonlab} {@var{n} =} muon_export (@dots{})
## Write a result, or one of its tables, to a CSV or JSON file (chosen by the extension of
## @var{file}, @file{.csv} or @file{.json}), so that it can leave Octave.
##
## A @dfn{table} is what muonlab's functions return for one row per rank, per parameter or
## per configuration: a scalar struct whose fields are columns with one row each (numeric
## or logical n x k arrays, cellstr n x 1; e.g. @code{zero_cost}'s @code{ranks} and
## @code{params}, @code{muon_model}'s @code{params}), or a struct array whose fields are
## scalars, strings or numeric row vectors (one element per row, e.g. the rows a demo
## returns; picked by @qcode{"Table"}, such as the @code{ranks} of a @code{zero_muon_step}
## or @code{zero_train_step} result, its fields that hold a matrix per row, such as a
## rank's update, are left out).  A scalar struct that is no struct of columns is read as
## a struct array of one element: one row (@code{struct ("design", "x", "world", 8)}, the
## @code{ranks} of a step at world size 1).  A
## column of k > 1 numbers per row becomes k columns @code{name_1} @dots{} @code{name_k};
## a CSV header that would then name a column twice (a column @code{v} of two numbers per
## row beside a column @code{v_1}) is an error.
##
## @table @asis
## @item CSV
## a header line with the column names, then one line per row, written by Octave's
## @code{csvwrite} when every column is numeric, else row by row; numbers with 16
## significant digits, logicals as 0 and 1, strings quoted when they hold a comma, a quote
## or a line break (RFC 4180).  Only tables can be written as CSV.
## @item JSON
## Octave's @code{jsonencode}: a table becomes an array of row objects; anything else (a
## whole @code{zero_muon_step} result, a @code{zero_cost} struct array, a model) is encoded
## as it is (NaN and Inf become null, single values are written as their double values).
## @end table
##
## Options (names are case-insensitive):
## @table @asis
## @item "Table"
## @var{name} picks the table in field @var{name} of @var{X}; when @var{X} is a struct
## array (e.g. one @code{zero_cost} result per design), the tables of all its elements are
## stacked, each row led by its element's scalar fields (numbers and strings: the design
## name, the world size, @dots{}).
## @end table
##
## @var{n} is the number of rows written (for a non-table JSON, 1).  The file is written
## whole under a temporary name in a folder made for the call beside @var{file}, then
## renamed over it: a planted link is never followed, no shell sees @var{file}.
##
## Reading a table back: @code{muon_import (file)} returns it, from CSV or JSON (numbers as
## numeric columns, text as cellstr columns).  Octave's @code{csvread} and @code{dlmread} read
## numbers only: they turn every text column (a design name, a parameter name) into 0
## without a warning, so use them only on a table whose columns are all numeric (skip the
## header: @code{csvread (file, 1, 0)}); @code{textscan} or the io package's
## @code{csv2cell} read the text too.  A JSON file also reads back with @code{jsondecode
## (fileread (file))} (a table as an array of row structs).
##
## @example
## C = zero_cost (muon_model ("llama-3.1-8b"), 64);
## muon_export (C, "ranks.csv", "Table", "ranks");    # one row per design and rank
## muon_export (C(2).params, "params.json");          # one object per matrix
## T = muon_import ("ranks.csv");                      # back: T.design@{1@}, T.bytes_sent
## L = zero_layout (@{[64 64], [64 64]@}, 4);
## R = zero_muon_step (L, repmat (@{randn(64)@}, 4, 2), []);
## muon_export (R, "step_ranks.csv", "Table", "ranks");  # a row per rank
## @end example
## @seealso{muon_import, zero_cost, muon_model, zero_muon_step, jsonencode, csvwrite}
## @end deftypefn

function n = muon_export (X, file, varargin)
  fname = "muon_export";
  if (nargin < 2)
    print_usage ();
  endif
  v = parse_options (fname, "muon_export", varargin);
  if (isa (X, "muon_result"))
    X = struct (X);
  endif
  v.Table = v.table;
  if (! (ischar (file) && isrow (file)))
    error ("muonlab:badArg", "%s: FILE must be a file name ending in .csv or .json.", fname);
  endif
  [~, ~, ext] = fileparts (file);
  ext = lower (ext);
  if (! any (strcmp (ext, {".csv", ".json"})))
    error ("muonlab:badArg", "%s: FILE must end in .csv or .json (got '%s').", fname, file);
  endif

  if (! isempty (v.Table))
    if (! (ischar (v.Table) && isrow (v.Table)))
      error ("muonlab:badArg", "%s: TABLE must be a field name.", fname);
    endif
    T = stacked (fname, X, v.Table);
  else
    T = as_table (X);
  endif

  if (strcmp (ext, ".json"))
    if (isempty (T))
      text = jsonencode (json_safe (X));
      n = 1;
    else
      [text, n] = json_rows (T);
    endif
    write_file (fname, file, text);
  else
    if (isempty (T))
      error ("muonlab:badArg",
             "%s: X is not a table (a struct of equal-length columns, or a struct array of scalar fields); write it as JSON, or pick a table with 'Table'.",
             fname);
    endif
    [names, cols] = columns_of (T);
    [u, i] = unique (names);
    if (numel (u) < numel (names))
      dup = names(setdiff (1:numel (names), i));
      error ("muonlab:badArg", "%s: X's CSV header would repeat the column name '%s'.",
             fname, dup{1});
    endif
    n = rows (cols{1});
    write_file (fname, file, @(tmp) write_csv (fname, tmp, T));
  endif
endfunction

## X with every empty struct array inside it replaced by [] (Octave 7's jsonencode writes a
## field holding one as a name without a value, or aborts): both mean "none" here; and
## every single array by its double values (jsonencode refuses single).
function X = json_safe (X)
  if (isa (X, "single"))
    X = double (X);
  elseif (isstruct (X))
    if (isempty (X))
      X = [];
      return;
    endif
    for f = fieldnames (X).'
      for k = 1:numel (X)
        X(k).(f{1}) = json_safe (X(k).(f{1}));
      endfor
    endfor
  elseif (iscell (X))
    X = cellfun (@json_safe, X, "UniformOutput", false);
  endif
endfunction

## ---- tables ----------------------------------------------------------------------------

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
        ok = ndims (c) == 2 && (isreal (c));
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
  tf = (isnumeric (x) || islogical (x)) && isreal (x) && isrow (x);
endfunction

function tf = is_cell_value (x)
  tf = (ischar (x) && (isrow (x) || isempty (x))) ...
       || ((isnumeric (x) || islogical (x)) && (isscalar (x) || isempty (x) || isrow (x)));
endfunction

## The tables in field `name` of every element of X, stacked, each led by its element's
## scalar fields.
function T = stacked (fname, X, name)
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
    if (! isscalar (X))
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

## ---- writers ---------------------------------------------------------------------------

function [text, n] = json_rows (T)
  f = fieldnames (T);
  n = rows (T.(f{1}));
  args = cell (1, 2 * numel (f));
  for k = 1:numel (f)
    c = json_safe (T.(f{k}));
    if (! iscell (c))
      c = num2cell (c, 2);
    endif
    args{2*k-1} = f{k};
    args{2*k} = c;
  endfor
  R = struct (args{:});
  text = jsonencode (R(:));
  if (n == 1)
    text = ["[" text "]"];
  elseif (n == 0)
    text = "[]";                     # (Octave 7 encodes an empty struct array as nothing)
  endif
endfunction

function write_csv (fname, file, T)
  [names, cols] = columns_of (T);
  n = rows (cols{1});
  isnum = cellfun (@(c) isnumeric (c) || islogical (c), cols);
  fid = fopen (file, "w");
  if (fid < 0)
    error ("muonlab:badArg", "%s: cannot write '%s'.", fname, file);
  endif
  fprintf (fid, "%s\n", strjoin (cellfun (@csv_quote, names, "UniformOutput", false), ","));
  if (all (isnum))
    fclose (fid);
    if (n > 0)
      M = zeros (n, numel (cols));
      for k = 1:numel (cols)
        M(:,k) = double (cols{k});
      endfor
      csvwrite (file, M, "-append", "precision", "%.16g");
    endif
    return;
  endif
  fmt = cell (1, numel (cols));
  data = cell (numel (cols), n);
  for k = 1:numel (cols)
    c = cols{k};
    if (isnum(k))
      fmt{k} = "%.16g";
      data(k,:) = num2cell (double (c(:)));
    else
      fmt{k} = "%s";
      c = c(:);
      str = cellfun ("isclass", c, "char");
      c(! str) = cellfun (@cell_text, c(! str), "UniformOutput", false);
      q = str & ! cellfun ("isempty", regexp (c, '[,"\r\n]', "once"));
      c(q) = cellfun (@csv_quote, c(q), "UniformOutput", false);
      data(k,:) = c;
    endif
  endfor
  fprintf (fid, [strjoin(fmt, ",") "\n"], data{:});
  fclose (fid);
endfunction

function s = cell_text (x)
  if (ischar (x))
    s = csv_quote (x);
  elseif (isempty (x))
    s = "";
  else
    s = strjoin (arrayfun (@(v) sprintf ("%.16g", v), double (x), "UniformOutput", false), " ");
    if (numel (x) > 1)
      s = csv_quote (s);
    endif
  endif
endfunction

function s = csv_quote (s)
  if (any (s == ",") || any (s == '"') || any (s == "\n") || any (s == "\r"))
    s = ['"' strrep(s, '"', '""') '"'];
  endif
endfunction

%!test
%! ## a table to CSV and JSON and back
%! T.rank = (0:3).';
%! T.bytes = [10; 20; 30.5; 1e12];
%! T.ok = logical ([1; 0; 1; 1]);
%! f = [tempname() ".csv"];
%! unwind_protect
%!   assert (muon_export (T, f), 4);
%!   txt = fileread (f);
%!   assert (strncmp (txt, "rank,bytes,ok\n", 14));
%!   assert (dlmread (f, ",", 1, 0), [T.rank T.bytes double(T.ok)]);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect
%! f = [tempname() ".json"];
%! unwind_protect
%!   muon_export (T, f);
%!   J = jsondecode (fileread (f));
%!   assert ([J.rank].', T.rank);
%!   assert ([J.bytes].', T.bytes);
%!   assert ([J.ok].', T.ok);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## strings (quoted when they must be), matrix columns split, struct arrays as rows
%! T.name = {"a"; "b,c"; 'say "hi"'};
%! T.v = [1 2; 3 4; 5 6];
%! f = [tempname() ".csv"];
%! unwind_protect
%!   muon_export (T, f);
%!   assert (fileread (f), "name,v_1,v_2\na,1,2\n\"b,c\",3,4\n\"say \"\"hi\"\"\",5,6\n");
%!   S = struct ("design", {"x", "y"}, "world", {8, 16});
%!   assert (muon_export (S, f), 2);
%!   assert (fileread (f), "design,world\nx,8\ny,16\n");
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## a plan: the ranks of every design stacked, led by the design's scalars
%! C = zero_cost ({[8 4], [6 6]}, 3, "Design", {"zero12_allreduce", "layerwise_lpt"});
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   assert (muon_export (C, f, "Table", "ranks"), 6);
%!   lines = strsplit (strtrim (fileread (f)), "\n");
%!   assert (numel (lines), 7);
%!   assert (strncmp (lines{1}, "design,world,stage,", 19));
%!   assert (strncmp (lines{5}, "layerwise_lpt,3,", 16));
%!   muon_export (C, g);                  # not a table: JSON as it is
%!   J = jsondecode (fileread (g));
%!   assert ({J.design}.', C.design);
%!   assert (J(2).ranks.ns_calls, C(2).ranks.ns_calls);
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## a muon_model result: its parameter table as CSV, the whole model as JSON (its empty
%! ## "published" table, a 0 x 0 struct array, as [])
%! c = struct ("model_type", "llama", "vocab_size", 100, "hidden_size", 8,
%!             "intermediate_size", 16, "num_hidden_layers", 2, "num_attention_heads", 2);
%! M = muon_model (c);
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   assert (muon_export (M, f, "Table", "params"), 21);
%!   lines = strsplit (strtrim (fileread (f)), "\n");
%!   assert (lines{1}, "name,rows,cols,numel,experts,split,route,kind,layer,expert,mtp,field");
%!   assert (lines{4}, "model.layers.0.self_attn.q_proj.weight,8,8,64,1,,muon,attention,0,-1,0,model_layers_0_self_attn_q_proj_weight");
%!   assert (muon_export (M, g), 1);
%!   J = jsondecode (fileread (g));
%!   assert (J.counts, M.counts);
%!   assert (J.params.name, M.params.name);
%!   assert (J.published, []);
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## a table of no rows: its header alone in CSV, an empty array in JSON
%! T = struct ("a", zeros (0, 1), "b", {cell(0, 1)});
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   assert (muon_export (T, f), 0);
%!   assert (fileread (f), "a,b\n");
%!   assert (muon_export (T, g), 0);
%!   assert (fileread (g), "[]");
%!   assert (muon_import (g), []);
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## single values are written as their double values to JSON (jsonencode has no single)
%! g = [tempname() ".json"];
%! unwind_protect
%!   x = single ([0.1; 0.2]);
%!   muon_export (struct ("a", x, "b", {{single(1.5); "s"}}), g);
%!   t = regexp (fileread (g), '^\[\{"a":([^,]*),"b":1\.5\},\{"a":([^,]*),"b":"s"\}\]$', "tokens");
%!   assert (str2double (t{1}).', double (x));
%!   muon_export (struct ("s", struct ("v", single ([1 2]))), g);
%!   assert (fileread (g), '{"s":{"v":[1,2]}}');
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## one-row tables: a scalar struct of a string and a number, a step's ranks at world 1
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   S = struct ("design", {"x", "y"}, "world", {8, 16});
%!   assert (muon_export (S(1), f), 1);
%!   assert (fileread (f), "design,world\nx,8\n");
%!   assert (muon_export (S(1), g), 1);
%!   assert (fileread (g), '[{"design":"x","world":8}]');
%!   muon_export (struct ("a", 1, "b", {{"x"}}, "v", [1 2]), g);   # as one row of several
%!   assert (fileread (g), '[{"a":1,"b":"x","v":[1,2]}]');
%!   assert (muon_import (g), struct ("a", 1, "b", {{"x"}}, "v", [1 2]));
%!   L = zero_layout ({[8 8], [4 8]}, 1);
%!   R = zero_muon_step (L, {ones(8), ones(4, 8)}, []);
%!   assert (muon_export (R, f, "Table", "ranks"), 1);
%!   T = muon_import (f);
%!   assert (T.rank, 0);
%!   assert (T.bytes_sent, R.ranks.bytes_sent);
%!   assert ([T.calls_1, T.calls_2], R.ranks.calls(1:2));
%!   assert (! isfield (T, "update_1") && ! isfield (T, "update") && ! isfield (T, "owned_1"));
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!error <Invalid call> muon_export (1)
%!test
%! ## the per-rank table of a ZeRO step: a row per rank, its counters, not its update
%! L = zero_layout ({[8 8], [8 8], [4 8]}, 3);
%! R = zero_muon_step (L, repmat ({ones(8), ones(8), ones(4, 8)}, 3, 1), []);
%! f = [tempname() ".csv"];
%! unwind_protect
%!   assert (muon_export (R, f, "Table", "ranks"), 3);
%!   T = muon_import (f);
%!   assert (T.rank, [R.ranks.rank].');
%!   assert (T.ns_calls, [R.ranks.ns_calls].');
%!   assert (T.bytes_sent, [R.ranks.bytes_sent].');
%!   assert ([T.calls_1, T.calls_2], vertcat (R.ranks.calls)(:,1:2));
%!   assert (! isfield (T, "update") && ! isfield (T, "update_1"));
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!error <muon_export: FILE must end in .csv or .json \(got 'x.txt'\).> muon_export (struct ("a", 1), "x.txt")
%!error <muon_export: FILE must be a file name ending in .csv or .json.> muon_export (struct ("a", 1), 3)
%!error <muon_export: X is not a table> muon_export (struct ("a", [1 2 3], "b", [1; 2]), [tempname() ".csv"])
%!error <muon_export: X has no field 'ranks'.> muon_export (struct ("a", 1), [tempname() ".csv"], "Table", "ranks")
%!error <muon_export: field 'a' of X is not a table.> muon_export (struct ("a", {{1, [1 2; 3 4]}}), [tempname() ".csv"], "Table", "a")
%!error <muon_export: X's CSV header would repeat the column name 'v_1'.> muon_export (struct ("v", [1 2; 3 4], "v_1", [5; 6]), [tempname() ".csv"])
%!error <muon_export: cannot write> muon_export (struct ("a", 1), "/nonexistent_dir/x.csv")
%!error <muon_export: unknown option 'Foo'.> muon_export (struct ("a", 1), "x.csv", "Foo", 1)
%!error id=muonlab:badArg muon_export (struct ("a", 1), "x.txt")

%!demo
%! ## a plan's per-rank table, as CSV and as JSON
%! C = zero_cost (muon_model ("llama-3.1-8b"), 8, "Design", {"zero12_allreduce", "layerwise_lpt"});
%! f = [tempname() ".csv"];
%! n = muon_export (C, f, "Table", "ranks");
%! printf ("%d rows; the first lines of %s:\n", n, f);
%! txt = strsplit (fileread (f), "\n");
%! printf ("  %s\n", txt{1:3});
%! unlink (f);
%! g = [tempname() ".json"];
%! muon_export (C(2).params, g);              # one object per matrix
%! J = jsondecode (fileread (g));
%! printf ("%d matrices; the first: %s\n", numel (J), jsonencode (J(1)));
%! unlink (g);
