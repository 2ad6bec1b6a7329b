## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef ns_search_result < muon_result
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{T} =} ns_search_result (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{T})
  ## The table of @code{ns_restart_search}: a @code{muon_result} (classdef) with the columns of
  ## the struct @var{S} it is made from (@code{restarts}, @code{count}, @code{error}: one row
  ## per restart list, best first), which shows itself at the prompt as its first 10 rows
  ## instead of every list.
  ##
  ## Columns are read as in a struct: @code{T.restarts@{1@}}, @code{T.error(T.count == 1)}.
  ## It is not a struct: @code{isstruct (T)} is false, @code{isobject (T)} true;
  ## @code{struct (T)} gives the plain struct with the same fields and values, and
  ## @code{muon_export (T, file)} writes the table.
  ##
  ## Typing @var{T} prints a title line, a header, the first 10 rows (with a line for the
  ## rows left out) and the field names: at most 14 lines.
  ## @seealso{ns_restart_search, muon_result}
  ## @end deftypefn

  properties
    restarts = {};
    count = [];
    error = [];
  endproperties

  methods
    function T = ns_search_result (S)
      if (nargin > 0)
        T = from_struct (T, S);
      endif
    endfunction

    function disp (T)
      disp_columns (T, "ns_restart_search result: restart lists by error, best first", 10,
                    {"restarts", "count", "error"});
    endfunction
  endmethods
endclassdef

%!test
%! ## a search over 4 lists: every row shown; the columns read as the struct's
%! randn ("state", 2);
%! T = ns_restart_search ({randn(16, 48)}, "Coefficients", "you", "MaxRestarts", 1);
%! txt = evalc ("disp (T)");
%! assert (numel (strfind (txt, "\n")), 3 + 5);
%! S = struct (T);
%! assert (sort (fieldnames (S)), sort ({"restarts"; "count"; "error"}));
%! assert (T.error, S.error);
%! assert (sort (T.count).', [0 1 1 1 1]);

%!demo
%! randn ("state", 1);
%! T = ns_restart_search ({randn(32, 96)}, "Coefficients", "you", "MaxRestarts", 1)

%!error <ns_search_result: S must be a scalar struct.> ns_search_result (1)
