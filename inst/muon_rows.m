## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef muon_rows < muon_result
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{S} =} struct (@var{R})
  ## @deftypefnx {muonlab} {@var{n} =} numel (@var{R})
  ## The results of muonlab's functions that are a list of records, one per design,
  ## restart count, @dots{}: a @code{muon_result} holding a struct array, which shows
  ## itself at the prompt as a table of the records with the answer first, instead of the
  ## struct array's field names (or, for one record, every column of its tables).  Its
  ## kinds: @code{zero_cost_result} (@code{zero_cost}), @code{ns_best_result} (the
  ## @var{best} of @code{ns_restart_autotune} and @code{ns_restart_search}), and three of
  ## one record: @code{ns_flops_result} (@code{ns_flops}; its columns hold a row per
  ## shape), @code{muon_info_result} (@code{muon_info}) and @code{muon_comm_info}
  ## (@code{muon_collective}'s information about a call).
  ##
  ## It reads like the struct array: @code{R(2).summary.bytes_max}, @code{R(end)},
  ## @code{numel (R)}, @code{numel (R, idx)}, @code{size (R)}, @code{isempty (R)},
  ## @code{fieldnames (R)}, @code{isfield (R, name)}.
  ## @code{R(k)} is a result of the same kind holding record k (so that typing it prints a
  ## summary too), and @code{R.name} on the whole gives the field of every record as one
  ## column: a cellstr for strings, a column vector for numeric or logical scalars, a
  ## struct array for structs (whose fields read as columns again: @code{R.summary.x}), a
  ## cell otherwise.  Octave 7 cannot hand a classdef's fields out as a comma-separated
  ## list, so @code{@{R.name@}} is a cell holding that one column, not a cell of the
  ## values: write @code{R.name}.  @code{struct (R)} gives the plain struct array, for
  ## @code{arrayfun}, @code{save}, @code{jsonencode} or a loop over its elements.
  ## @seealso{zero_cost_result, ns_best_result, ns_flops_result, muon_info_result,
  ## muon_comm_info, muon_result}
  ## @end deftypefn

  properties (Access = protected)
    recs = struct ([]);
  endproperties

  methods
    ## made only with no argument (by its kinds, whose constructors take the records):
    ## muon_rows (5) made an empty list whose q(1) failed with Octave's index error
    function R = muon_rows (varargin)
      if (nargin > 0)
        error ("muonlab:badArg",
               "muon_rows: a base class, made with no argument; its kinds (zero_cost_result, ...) take a struct.");
      endif
    endfunction

    function S = struct (R, varargin)
      if (nargin > 1)                    # struct ("a", R, ...): Octave's, R a value
        S = builtin ("struct", R, varargin{:});
        return;
      endif
      S = R.recs;
    endfunction

    function n = numel (R, varargin)
      n = numel (R.recs, varargin{:});
    endfunction

    function sz = size (R, varargin)
      sz = size (R.recs, varargin{:});
    endfunction

    function n = length (R)
      n = numel (R.recs);
    endfunction

    function tf = isempty (R)
      tf = isempty (R.recs);
    endfunction

    function f = fieldnames (R)
      f = fieldnames (R.recs);
    endfunction

    function tf = isfield (R, name)
      tf = isfield (R.recs, name);
    endfunction

    function k = end (R, pos, n)
      if (n == 1)
        k = numel (R.recs);
      else
        k = size (R.recs, pos);
      endif
    endfunction

    function varargout = subsref (R, s)
      switch (s(1).type)
        case "()"
          out = R;
          try
            out.recs = R.recs(s(1).subs{:});
          catch err                      # "index (0): ...", not this method's "R(0): ..."
            error (err.identifier, "%s", regexprep (err.message, '^R\(', "index ("));
          end_try_catch
          if (numel (s) == 1)
            varargout{1} = out;
            return;
          endif
          if (isscalar (out.recs))       # R(k).field...: the record's own values
            [varargout{1:nargout}] = subsref (out.recs, s(2:end));
          else
            [varargout{1:nargout}] = subsref (out, s(2:end));
          endif
        case "."
          if (isscalar (R.recs))
            [varargout{1:nargout}] = subsref (R.recs, s);
            return;
          endif
          col = column (R.recs, s(1).subs, class (R));
          k = 2;                         # R.summary.bytes_max: a column of columns
          while (k <= numel (s) && strcmp (s(k).type, ".") && ! isscalar (col)
                 && (isstruct (col) || (iscell (col) && ! isempty (col)
                                        && all (cellfun ("isstruct", col)))))
            col = column (col, s(k).subs, class (R));
            k++;
          endwhile
          if (k <= numel (s))
            [varargout{1:nargout}] = subsref (col, s(k:end));
          else
            varargout{1} = col;
          endif
        otherwise
          error ("muonlab:badArg", "%s: index it with () or ., not {}.", class (R));
      endswitch
    endfunction
  endmethods

  methods (Access = protected)
    ## One record shown in a few lines: TITLE; its scalars and strings, a few to a line;
    ## its columns (numeric n x 1 fields, one level of nested structs flattened as
    ## "a.b", all-zero ones left out and named) as a table of at most 16 rows; the other
    ## fields by name and size.
    function disp_record (R, title)
      s = R.recs;
      printf ("  %s\n", title);
      [sc, cn, cv, other] = deal ({});
      for f = fieldnames (s).'
        v = s.(f{1});
        if (isstruct (v) && isscalar (v))
          for g = fieldnames (v).'
            [sc, cn, cv, other] = sort_field ([f{1} "." g{1}], v.(g{1}), sc, cn, cv, other);
          endfor
        else
          [sc, cn, cv, other] = sort_field (f{1}, v, sc, cn, cv, other);
        endif
      endfor
      line = " ";
      for k = 1:numel (sc)
        if (numel (line) + numel (sc{k}) > 90)
          printf ("%s\n", line);
          line = " ";
        endif
        line = [line " " sc{k}];
      endfor
      if (numel (line) > 1)
        printf ("%s\n", line);
      endif
      zero = cellfun (@(c) all (c == 0), cv);
      if (any (zero))
        printf ("  all zero: %s\n", strjoin (cn(zero), ", "));
      endif
      cn = cn(! zero);
      cv = cv(! zero);
      if (! isempty (cv))
        n = numel (cv{1});
        w = max (12, cellfun ("numel", cn) + 1);
        printf ("  %5s", "row");
        for k = 1:numel (cn)
          printf (" %*s", w(k), cn{k});
        endfor
        printf ("\n");
        for i = 1:min (n, 16)
          printf ("  %5d", i);
          for k = 1:numel (cv)
            printf (" %*.6g", w(k), cv{k}(i));
          endfor
          printf ("\n");
        endfor
        if (n > 16)
          printf ("  ... %d more rows\n", n - 16);
        endif
      endif
      if (! isempty (other))
        printf ("  also: %s\n", strjoin (other, ", "));
      endif
    endfunction

    function R = from_records (R, S)
      if (! isstruct (S))
        error ("muonlab:badArg", "%s: S must be a struct array.", class (R));
      endif
      R.recs = S;
    endfunction
  endmethods
endclassdef

## where disp_record shows the field NAME of value V: a scalar or string (SC, as "name
## value"), a column (CN names, CV values) or by its size (OTHER)
function [sc, cn, cv, other] = sort_field (name, v, sc, cn, cv, other)
  if (ischar (v) && rows (v) <= 1)
    sc{end+1} = sprintf ("%s %s", name, v);
  elseif ((isnumeric (v) || islogical (v)) && isscalar (v))
    sc{end+1} = sprintf ("%s %.6g", name, v);
  elseif ((isnumeric (v) || islogical (v)) && iscolumn (v)
          && (isempty (cv) || numel (v) == numel (cv{1})))
    cn{end+1} = name;
    cv{end+1} = double (v);
  else
    other{end+1} = sprintf ("%s (%s %s)", name, strjoin (arrayfun (@num2str, size (v),
                                                                   "UniformOutput", false),
                                                         "x"), class (v));
  endif
endfunction

## the field NAME of every record of S as one column: S a struct array, or a cell of
## scalar structs whose fields differ (sub-records whose fields differ between records);
## CLS the class that errors name
function col = column (S, name, cls)
  if (iscell (S))
    has = cellfun (@(x) isfield (x, name), S);
    if (! all (has))
      error ("muonlab:badArg", "%s: no field '%s' in record %d (fields: %s).", cls, name,
             find (! has, 1), strjoin (fieldnames (S{find (! has, 1)}).', ", "));
    endif
    v = cellfun (@(x) x.(name), S(:), "UniformOutput", false);
  elseif (! isfield (S, name))
    error ("muonlab:badArg", "%s: no field '%s' (fields: %s).", cls, name,
           strjoin (fieldnames (S).', ", "));
  else
    v = {S.(name)}.';
  endif
  if (isempty (v))
    col = v;
  elseif (all (cellfun (@(x) ischar (x) && (isrow (x) || isempty (x)), v)))
    col = v;
  elseif (all (cellfun (@(x) (isnumeric (x) || islogical (x)) && isscalar (x), v)))
    col = vertcat (v{:});
  elseif (all (cellfun ("isstruct", v)) && all (cellfun ("numel", v) == 1))
    try
      col = vertcat (v{:});
    catch                                # records whose structs differ in fields
      col = v;
    end_try_catch
  else
    col = v;
  endif
endfunction

%!test
%! ## reads like the struct array it holds
%! S = struct ("design", {"a", "bb", "c"}, "world", {2, 4, 8},
%!             "summary", {struct("x", 1), struct("x", 2), struct("x", 3)});
%! R = zero_cost_result (S);
%! assert ([numel(R), size(R), isempty(R)], [3 1 3 false]);
%! assert (R(2).summary.x, 2);
%! assert (R(end).design, "c");
%! assert (R.design, {"a"; "bb"; "c"});
%! assert (R.world, [2; 4; 8]);
%! assert (R.summary.x, [1; 2; 3]);
%! assert (struct (R), S);
%! assert (isa (R(2), "zero_cost_result") && numel (R(2:3)) == 2);
%! assert (R(2:3).world, [4; 8]);
%! assert (fieldnames (R), fieldnames (S));
%! ## struct () with more arguments is Octave's, the result a value in it
%! T = struct ("r", R, "n", 1);
%! assert (isstruct (T) && isa (T.r, "zero_cost_result") && T.n == 1);

%!demo
%! ## a list of records: zero_cost's plan reads like its struct array
%! C = zero_cost ({[256 256], [128 256]}, 8);
%! C(2).design
%! C.summary.bytes_max.'

%!error <zero_cost_result: index it with \(\) or ., not \{\}.> R = zero_cost_result (struct ("a", {1, 2})); R{1}
%!error <zero_cost_result: no field 'b' \(fields: a\).> R = zero_cost_result (struct ("a", {1, 2})); R.b
%!error <index \(0\): subscripts must be> R = zero_cost_result (struct ("a", {1, 2})); R(0)
%!error <index \(3\): out of bound 2> R = zero_cost_result (struct ("a", {1, 2})); R(3)

%!test
%! ## numel (R, idx): the number of records R(idx) holds, as for the struct array
%! S = struct ("a", {1, 2, 3});
%! R = zero_cost_result (S);
%! assert ([numel(R, 1), numel(R, 2:3), numel(R, ":"), numel(R, [])], [1 2 3 0]);
%! assert ([numel(R, 1), numel(R, 2:3), numel(R, ":"), numel(R, [])], ...
%!         [numel(S, 1), numel(S, 2:3), numel(S, ":"), numel(S, [])]);
%! assert (R(2:3).a, [2; 3]);
%! assert (R(2).a, 2);
