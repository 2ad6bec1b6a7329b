## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef ns_autotune_result < muon_result
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{T} =} ns_autotune_result (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{T})
  ## The table of @code{ns_restart_autotune}: a @code{muon_result} (classdef) with the columns of
  ## the struct @var{S} it is made from (@code{restarts}, @code{count}, @code{metric}: one row
  ## per restart list, best first), which shows itself at the prompt as its first 10 rows
  ## instead of every list.
  ##
  ## Columns are read as in a struct: @code{T.restarts@{1@}}, @code{T.metric(T.count == 1)}.
  ## It is not a struct: @code{isstruct (T)} is false, @code{isobject (T)} true;
  ## @code{struct (T)} gives the plain struct with the same fields and values, and
  ## @code{muon_export (T, file)} writes the table.
  ##
  ## Typing @var{T} prints a title line, a header, the first 10 rows (with a line for the
  ## rows left out) and the field names: at most 14 lines.
  ## @seealso{ns_restart_autotune, muon_result}
  ## @end deftypefn

  properties
    restarts = {};
    count = [];
    metric = [];
  endproperties

  methods
    function T = ns_autotune_result (S)
      if (nargin > 0)
        T = from_struct (T, S);
      endif
    endfunction

    function disp (T)
      disp_columns (T, "ns_restart_autotune result: restart lists by metric, best first", 10,
                    {"restarts", "count", "metric"});
    endfunction
  endmethods
endclassdef

%!test
%! ## issue 18: 16 lists shown in 14 lines; the columns read as the struct's
%! T = ns_restart_autotune ("you", "MaxRestarts", 9);
%! txt = evalc ("disp (T)");
%! assert (numel (strfind (txt, "\n")), 14);
%! assert (! isempty (strfind (txt, "... 6 more rows")));
%! S = struct (T);
%! assert (sort (fieldnames (S)), sort ({"restarts"; "count"; "metric"}));
%! assert ([isstruct(T), isstruct(S)], [false true]);
%! assert (T.metric, S.metric);
%! assert (T.restarts{1}, S.restarts{1});
%! assert (numel (T.count), 2^4);

%!demo
%! T = ns_restart_autotune ("polar_express")
%! T.restarts{1}

%!error <ns_autotune_result: S must be a scalar struct.> ns_autotune_result (1)
