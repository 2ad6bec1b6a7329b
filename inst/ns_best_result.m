## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef ns_best_result < muon_rows
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{best} =} ns_best_result (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{best})
  ## The @var{best} of @code{ns_restart_autotune} and @code{ns_restart_search}: the best
  ## restart list for each restart count, a @code{muon_rows} over the struct array @var{S}
  ## (fields @code{count}, @code{restarts} and the score, @code{metric} or @code{error}).
  ##
  ## @code{best(k+1)} is the best list with exactly k restarts, @code{best(2).restarts} its
  ## list, @code{best.count} the counts as a column, and @code{struct (best)} the plain
  ## struct array.  Typing @var{best} prints the best list overall first, then a row per
  ## restart count with its list and score, the best one marked: at most 3 + the number of
  ## counts lines.
  ## @seealso{ns_restart_autotune, ns_restart_search, muon_rows}
  ## @end deftypefn

  methods
    function B = ns_best_result (S)
      if (nargin > 0)
        if (isstruct (S) && ! (all (isfield (S, {"count", "restarts"}))
                               && xor (isfield (S, "metric"), isfield (S, "error"))))
          error ("muonlab:badArg",
                 "ns_best_result: S must have the fields count, restarts and metric or error.");
        endif
        if (isstruct (S))
          score = merge (isfield (S, "metric"), "metric", "error");
          ok = @(v) isnumeric (v) && isreal (v) && isscalar (v);
          k = find (! arrayfun (@(r) ok (r.count) && ok (r.(score)), S), 1);
          if (! isempty (k))
            error ("muonlab:badArg",
                   "ns_best_result: S(%d).count and S(%d).%s must be real scalars.", k, k,
                   score);
          endif
        endif
        B = from_records (B, S);
      endif
    endfunction

    function disp (B)
      S = struct (B);
      if (isempty (S))
        printf ("  best restart lists: none\n");
        return;
      endif
      score = setdiff (fieldnames (S), {"count", "restarts"}){1};
      v = [S.(score)];
      [~, b] = min (v);
      printf ("  best restart list: %s (%s %.4g), %d restart(s)\n", mat2str (S(b).restarts),
              score, v(b), S(b).count);
      printf ("  %8s  %-20s %12s\n", "restarts", "list", score);
      for k = 1:numel (S)
        printf ("  %8d  %-20s %12.4g%s\n", S(k).count, mat2str (S(k).restarts), v(k),
                merge (k == b, "  <- best", ""));
      endfor
    endfunction
  endmethods
endclassdef

%!test
%! ## the answer first, a row per count, the best marked
%! S = struct ("count", {0, 1, 2}, "restarts", {[], 3, [2 3]}, "metric", {5, 0.5, 0.7});
%! B = ns_best_result (S);
%! txt = evalc ("disp (B)");
%! ln = strsplit (strtrim (txt), "\n");
%! assert (numel (ln), 5);
%! assert (! isempty (strfind (ln{1}, "best restart list: 3 (metric 0.5), 1 restart(s)")));
%! assert (! isempty (strfind (ln{4}, "<- best")));
%! assert (B(2).restarts, 3);
%! assert (B.count, [0; 1; 2]);

%!demo
%! [~, best] = ns_restart_autotune ("keller")

%!test
%! ## made empty, it says so
%! assert (evalc ("disp (ns_best_result ())"), "  best restart lists: none\n");
%! assert (evalc ("disp (ns_best_result (struct (\"count\", {}, \"restarts\", {}, \"error\", {})))"),
%!         "  best restart lists: none\n");

%!error <ns_best_result: S must be a struct array.> ns_best_result (1)
%!error <ns_best_result: S must have the fields count, restarts and metric or error.> ns_best_result (struct ("count", 1, "restarts", 2))
%!error <ns_best_result: S must have the fields count, restarts and metric or error.> ns_best_result (struct ("count", 1, "restarts", 2, "metric", 1, "error", 1))
%!error <ns_best_result: S\(2\).count and S\(2\).error must be real scalars.> ns_best_result (struct ("count", {0, 1}, "restarts", {[], 2}, "error", {1, []}))
