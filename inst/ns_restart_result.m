## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef ns_restart_result < muon_result
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{T} =} ns_restart_result (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{T})
  ## The table of restart lists of @code{ns_restart_autotune} and @code{ns_restart_search}:
  ## a @code{muon_result} (classdef) with the columns of the struct @var{S} it is made from,
  ## one row per restart list, best first: @code{restarts}, @code{count} and the measure
  ## the lists are ranked by, @code{metric} (@code{ns_restart_autotune}: the largest
  ## condition number of Q over the steps of the simulation) or @code{error}
  ## (@code{ns_restart_search}: the worst relative error against fp64).  @var{S} has exactly one of the two; the other column
  ## of @var{T} is empty.  It shows itself at the prompt as its first 10 rows instead of
  ## every list.
  ##
  ## Columns are read as in a struct: @code{T.restarts@{1@}}, @code{T.metric(T.count == 1)}.
  ## It is not a struct: @code{isstruct (T)} is false, @code{isobject (T)} true;
  ## @code{struct (T)} gives the plain struct @var{S} (its three fields and values).
  ## @code{muon_export (T, file)} writes a row per list (in CSV the list as its numbers
  ## separated by spaces, in JSON an array), and @code{muon_import (file)} gives back from
  ## CSV the @code{restarts} column as text (@qcode{"1 2"}), from JSON the table with
  ## @code{restarts} a cell of the lists as written where one list is empty (row vectors,
  ## @code{[]} for the empty one); where no list holds more than one number, a table from
  ## CSV too, @code{restarts} a numeric column with NaN for the empty list (JSON: numeric
  ## where no list is empty).
  ##
  ## Typing @var{T} prints a title line, a header, the first 10 rows (with a line for the
  ## rows left out) and the field names: at most 14 lines.
  ## @seealso{ns_restart_autotune, ns_restart_search, muon_result}
  ## @end deftypefn

  properties
    restarts = {};
    count = [];
    metric = [];
    error = [];
  endproperties

  properties (Hidden)
    by = "metric";                      # the column the lists are ranked by
  endproperties

  methods
    function T = ns_restart_result (S)
      if (nargin > 0)
        by = {"metric", "error"};
        if (isstruct (S) && isscalar (S))
          by = by(isfield (S, by));
        endif
        if (! (isstruct (S) && isscalar (S) && numel (by) == 1
               && all (isfield (S, {"restarts", "count"})) && numel (fieldnames (S)) == 3))
          error ("muonlab:badArg", ["ns_restart_result: S must be a scalar struct with the ", ...
                                    "fields restarts, count and metric or error."]);
        endif
        result_fields ("ns_restart_result", S, {"restarts", "count", by{1}}, {});
        if (! iscell (S.restarts))
          error ("muonlab:badArg", "ns_restart_result: S.restarts must be a cell of lists.");
        endif
        T = from_struct (T, S);
        T.by = by{1};
      endif
    endfunction

    ## the plain struct it was made from: restarts, count and its measure
    function S = struct (T, varargin)
      if (nargin > 1)                    # struct ("a", T, ...): Octave's, T a value
        S = builtin ("struct", T, varargin{:});
        return;
      endif
      S = builtin ("struct", "restarts", {T.restarts}, "count", T.count, T.by, T.(T.by));
    endfunction

    function disp (T)
      fn = struct ("metric", "ns_restart_autotune", "error", "ns_restart_search");
      disp_columns (T, sprintf ("%s result: restart lists by %s, best first", fn.(T.by), T.by),
                    10, {"restarts", "count", T.by});
    endfunction
  endmethods
endclassdef

%!test
%! ## issue 18: 16 lists shown in 14 lines; the columns read as the struct's
%! T = ns_restart_autotune ("you", "MaxRestarts", 9);
%! txt = evalc ("disp (T)");
%! assert (numel (strfind (txt, "\n")), 14);
%! assert (! isempty (strfind (txt, "... 6 more rows")));
%! assert (! isempty (strfind (txt, "ns_restart_autotune result: restart lists by metric")));
%! S = struct (T);
%! assert (sort (fieldnames (S)), sort ({"restarts"; "count"; "metric"}));
%! assert ([isstruct(T), isstruct(S)], [false true]);
%! assert (T.metric, S.metric);
%! assert (T.restarts{1}, S.restarts{1});
%! assert (numel (T.count), 2^4);
%! assert (isempty (T.error));

%!test
%! ## a search over 4 lists: every row shown; the columns read as the struct's
%! randn ("state", 2);
%! T = ns_restart_search ({randn(16, 48)}, "Coefficients", "you", "MaxRestarts", 1);
%! assert (class (T), "ns_restart_result");
%! txt = evalc ("disp (T)");
%! assert (numel (strfind (txt, "\n")), 3 + 5);
%! assert (! isempty (strfind (txt, "ns_restart_search result: restart lists by error")));
%! S = struct (T);
%! assert (sort (fieldnames (S)), sort ({"restarts"; "count"; "error"}));
%! assert (T.error, S.error);
%! assert (sort (T.count).', [0 1 1 1 1]);
%! assert (isempty (T.metric));

%!test
%! ## made from a struct, back to the same struct
%! S = struct ("restarts", {{[], 2}}, "count", [0 1], "error", [0.5 0.25]);
%! assert (struct (ns_restart_result (S)), S);
%! ## struct () with more arguments is Octave's, the result a value in it
%! T = ns_restart_result (S);
%! X = struct ("t", T, "n", 1);
%! assert (isstruct (X) && isa (X.t, "ns_restart_result") && X.n == 1);
%! assert (struct (X.t), S);
%! assert (class (struct ("a", 1, "t", T).t), "ns_restart_result");

%!test
%! ## out with muon_export and back with muon_import, as the help says
%! T = ns_restart_result (struct ("restarts", {{[1 2]; 3; []}}, "count", [2; 1; 0],
%!                                "metric", [1; 2; 3]));
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   muon_export (T, f);
%!   U = muon_import (f);
%!   assert (U.restarts, {"1 2"; "3"; ""});
%!   assert (U.metric, [1; 2; 3]);
%!   muon_export (T, g);
%!   J = muon_import (g);
%!   assert (J.restarts, {[1 2]; 3; []});
%!   assert (J.metric, [1; 2; 3]);
%!   T = ns_restart_result (struct ("restarts", {{3; []}}, "count", [1; 0], "metric", [1; 2]));
%!   muon_export (T, f);
%!   assert (muon_import (f).restarts, [3; NaN]);
%!   muon_export (T, g);
%!   assert (muon_import (g).restarts, {3; []});
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## made empty, it shows no rows
%! txt = evalc ("disp (ns_restart_result ())");
%! assert (! isempty (strfind (txt, "restart lists by metric, best first: 0 rows")));

%!demo
%! T = ns_restart_autotune ("polar_express")
%! T.restarts{1}

%!error <ns_restart_result: S must be a scalar struct with the fields restarts, count and metric or error.> ns_restart_result (1)
%!error <ns_restart_result: S must be a scalar struct with the fields restarts, count and metric or error.> ns_restart_result (struct ("restarts", {{}}, "count", [], "metric", [], "error", []))
%!error <ns_restart_result: S must be a scalar struct with the fields restarts, count and metric or error.> ns_restart_result (struct ("restarts", {{}}, "count", []))
%!error <ns_restart_result: S.count must have as many elements as S.restarts \(2, one per row\), not 3.> ns_restart_result (struct ("restarts", {{1, 2}}, "count", [1 2 3], "metric", [1 2]))
%!error <ns_restart_result: S.error must have as many elements as S.restarts \(2, one per row\), not 1.> ns_restart_result (struct ("restarts", {{1, 2}}, "count", [1 1], "error", 1))
%!error <ns_restart_result: S.restarts must be a cell of lists.> ns_restart_result (struct ("restarts", [1 2], "count", [1 1], "error", [1 2]))
