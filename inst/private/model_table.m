## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{T} =} model_table (@var{fname}, @var{M})
## The parameter table of a model from @code{muon_model}, the object or its plain struct
## (@code{struct (M)}: a scalar struct whose @code{params} table has the columns
## @code{name}, @code{rows}, @code{cols}, @code{numel}, @code{experts}, @code{split} and
## @code{route}; @code{field} is optional); [] for anything else.  The one test of "is this a
## model" for @code{muon_optimizer}, @code{zero_layout} and @code{zero_cost}.  A struct with
## those columns whose values are no model's (an edited @code{struct (M)}) is an error
## (@code{muonlab:badArg}) naming @var{fname} and the column; so is a struct that carries
## a model's identifying fields (@code{model_type}, @code{config}, @code{checkpoint}) but
## no @code{params} table, or one without a column.
## @end deftypefn

function T = model_table (fname, M)
  T = [];
  if (isa (M, "muon_model_result"))
    M = layout_plain (M);               # (also one made before `clear functions`)
  endif
  cols = {"name", "rows", "cols", "numel", "experts", "split", "route"};
  if (! (isstruct (M) && isscalar (M) && isfield (M, "params")
         && isstruct (M.params) && isscalar (M.params) && all (isfield (M.params, cols))))
    if (isstruct (M) && isscalar (M) && all (isfield (M, {"model_type", "config", "checkpoint"})))
      ## an edited struct (M): what is missing, not "no model, layout or shapes"
      if (! isfield (M, "params"))
        why = "it has no params table";
      elseif (! (isstruct (M.params) && isscalar (M.params)))
        why = "its params must be a scalar struct of columns";
      else
        c = cols(! isfield (M.params, cols));
        why = sprintf ("its params.%s is missing", c{1});
      endif
      error ("muonlab:badArg", "%s: M is not a model from muon_model: %s.", fname, why);
    endif
    return;
  endif
  T = M.params;
  P = numel (T.name);
  count = @(x) (isnumeric (x) || islogical (x)) && isreal (x) && isvector (x) ...
               && numel (x) == P && all (x(:) >= 0 & x(:) == fix (x(:)) & isfinite (x(:)));
  why = "";
  if (! (iscellstr (T.name) && isvector (T.name)))
    [c, why] = deal ("name", "must be a cell of names");
  elseif (! (count (T.rows) && all (T.rows > 0)))
    [c, why] = deal ("rows", "must be a positive integer per parameter");
  elseif (! (count (T.cols) && all (T.cols > 0)))
    [c, why] = deal ("cols", "must be a positive integer per parameter");
  elseif (! (count (T.numel) && all (T.numel(:) == T.rows(:) .* T.cols(:))))
    [c, why] = deal ("numel", "must be rows .* cols");
  elseif (! (count (T.experts) && all (T.experts > 0)
             && all (mod (T.rows(:), T.experts(:)) == 0)))
    [c, why] = deal ("experts", "must be a positive integer per parameter dividing its rows");
  elseif (! (iscell (T.split) && numel (T.split) == P
             && all (cellfun (@(s) isempty (s) || (isnumeric (s) && isreal (s) && isvector (s)
                                                    && all (s > 0 & s == fix (s))), T.split))))
    [c, why] = deal ("split", "must be a cell of [] or positive row counts per parameter");
  elseif (! (iscellstr (T.route) && numel (T.route) == P
             && all (ismember (T.route, {"muon", "adamw"}))))
    [c, why] = deal ("route", "must be 'muon' or 'adamw' per parameter");
  elseif (isfield (T, "field") && ! (iscellstr (T.field) && numel (T.field) == P
                                     && all (cellfun (@isvarname, T.field))))
    [c, why] = deal ("field", "must be a valid field name per parameter");
  endif
  if (! isempty (why))
    error ("muonlab:badArg", "%s: M is not a model from muon_model: its params.%s %s.",
           fname, c, why);
  endif
endfunction
