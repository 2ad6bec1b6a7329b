## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef muon_result
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{S} =} struct (@var{R})
  ## @deftypefnx {muonlab} {@var{tf} =} isa (@var{R}, "muon_result")
  ## The results of muonlab's functions that print a compact summary at the prompt: a
  ## value object (classdef) with one property per field of the struct the function built,
  ## which shows itself at the prompt as a few lines instead of every matrix and column.
  ## Its kinds: @code{zero_layout_result} (@code{zero_layout}),
  ## @code{zero_step_result} (@code{zero_muon_step}),
  ## @code{zero_train_result} (@code{zero_train_step}), @code{muon_model_result}
  ## (@code{muon_model}), @code{ns_restart_result} (@code{ns_restart_autotune},
  ## @code{ns_restart_search}), @code{ns_trace_result} (@code{muon_ns}'s trace), and the
  ## lists of records of @code{muon_rows}: @code{zero_cost_result}, @code{ns_best_result},
  ## @code{ns_flops_result}, @code{muon_info_result}, @code{muon_comm_info}.
  ##
  ## Fields are read as in a struct: @code{R.counts.total}, @code{R.params.name@{3@}},
  ## @code{R.ranks(3).bytes_sent}, @code{[R.ranks.ns_calls]}, and @code{fieldnames (R)}
  ## lists them.  It is not a struct: @code{isstruct (R)} is false, @code{isobject (R)} true,
  ## and no new field can be added.  @code{isfield (R, name)} is true for a field of the
  ## @code{muon_rows} kinds and of a @code{muon_state}, false for the others (use
  ## @code{isprop (R, name)} there).  Octave's @code{save} in its default text format (and
  ## @code{-binary}) cannot write it; @code{-v6} and @code{-v7} write it, but @code{load}
  ## gives back a struct of its properties (for a @code{muon_rows} kind or a
  ## @code{muon_state}, its internals), not @var{R}.  @code{struct (R)} gives the plain
  ## struct with the same fields and values (for @code{save}, @code{jsonencode}, or to
  ## modify it).  @code{muon_export}, @code{zero_cost} and @code{muon_mpirun} (for the
  ## value a rank returns) take @var{R} as it is.  After @code{clear functions} (or
  ## @code{clear classes}) Octave 7 reloads the classes, and a result made before no longer
  ## indexes (an error about its protected properties): make it again, or keep
  ## @code{struct (R)}.  A @code{muon_state} still works then, and so does a layout
  ## (@code{zero_layout}) or a model (@code{muon_model}) given to the zero_* functions,
  ## @code{zero_plot_layout} or @code{muon_mpirun}.
  ##
  ## @example
  ## M = muon_model ("llama-3.1-8b")    # a dozen lines: shapes, totals, kinds
  ## M.counts.total                     # 8030261248
  ## S = struct (M);                    # the plain struct: isstruct (S) is true
  ## @end example
  ## @seealso{zero_step_result, muon_model_result, ns_restart_result, muon_export}
  ## @end deftypefn

  methods
    ## made only with no argument (by its kinds, whose constructors take the struct):
    ## muon_result (5) made an empty result that accepted anything
    function R = muon_result (varargin)
      if (nargin > 0)
        error ("muonlab:badArg",
               "muon_result: a base class, made with no argument; its kinds (zero_layout_result, ...) take a struct.");
      endif
    endfunction

    ## the plain struct (no warning about access rights: every property is public)
    function S = struct (R, varargin)
      if (nargin > 1)                    # struct ("a", R, ...): Octave's, R a value
        S = builtin ("struct", R, varargin{:});
        return;
      endif
      S = struct ();
      for f = properties (R).'
        S.(f{1}) = R.(f{1});
      endfor
    endfunction
  endmethods

  methods (Access = protected)
    ## the object as a table, its properties the columns F (a cellstr, in this order): a
    ## title line, a header, the first NMAX rows, a line for the rows left out, the fields
    function disp_columns (R, title, nmax, f)
      n = numel (R.(f{1}));
      printf ("  %s: %d rows\n", title, n);
      printf ("  %4s", "row");
      printf (" %14s", f{:});
      printf ("\n");
      for i = 1:min (n, nmax)
        printf ("  %4d", i);
        for k = 1:numel (f)
          printf (" %14s", cell_text (R.(f{k})(i)));
        endfor
        printf ("\n");
      endfor
      if (n > nmax)
        printf ("  ... %d more rows\n", n - nmax);
      endif
      printf ("  fields: %s (columns of %d rows)\n", strjoin (f, ", "), n);
    endfunction

    ## the constructor of each kind: its properties from the fields of the scalar struct S
    function R = from_struct (R, S)
      if (! (isstruct (S) && isscalar (S)))
        error ("muonlab:badArg", "%s: S must be a scalar struct.", class (R));
      endif
      f = fieldnames (S);
      bad = f(! ismember (f, properties (R)));
      if (! isempty (bad))
        error ("muonlab:badArg", "%s: S must have only the fields of a %s: S.%s is not one.",
               class (R), class (R), bad{1});
      endif
      for k = 1:numel (f)
        R.(f{k}) = S.(f{k});
      endfor
    endfunction
  endmethods
endclassdef

## one element of a column as text: a number, a string or a (cell holding a) row vector
function s = cell_text (v)
  if (iscell (v))
    v = v{1};
  endif
  if (ischar (v))
    s = v;
  elseif (isscalar (v))
    s = sprintf ("%.4g", v);
  else
    s = mat2str (v, 4);
  endif
endfunction

%!test
%! ## every kind reads like the struct it was made from
%! M = muon_model ("llama-3.1-8b");
%! S = struct (M);
%! assert ([isa(M, "muon_result"), isstruct(M), isobject(M), isstruct(S)], [true false true true]);
%! assert (sort (fieldnames (S)), sort (fieldnames (M)));
%! assert (S.counts, M.counts);

%!error <zero_train_result: S must have only the fields of a zero_train_result: S.x is not one.> zero_train_result (struct ("x", 1))
%!error <zero_step_result: S must have only the fields of a zero_step_result: S.y is not one.> zero_step_result (struct ("variant", "a", "y", 2))
%!error <ns_flops_result: S must be a scalar struct.> ns_flops_result (1)
%!error <muon_result: a base class, made with no argument; its kinds \(zero_layout_result, \.\.\.\) take a struct\.> muon_result (5)
%!error <muon_rows: a base class, made with no argument; its kinds \(zero_cost_result, \.\.\.\) take a struct\.> muon_rows (5)
%!error id=muonlab:badArg muon_rows (struct ("a", 1))
%!test
%! ## with no argument, still an empty object (Octave's classdef arrays need one); its kinds
%! ## made after a refused call still work
%! assert (class (muon_rows ()), "muon_rows");
%! assert (numel (muon_rows ()), 0);
%! try
%!   muon_result (5);
%! catch
%! end_try_catch
%! C = zero_cost ({[64 64]}, 2, "Design", "reference");
%! assert (class (C), "zero_cost_result");
%! assert (C.world, 2);
%!error <muon_model_result: S must have only the fields of a muon_model_result: S\.x is not one\.> muon_model_result (struct ("x", 1))
%!error id=muonlab:badArg muon_model_result (struct ("x", 1))

%!demo
%! M = muon_model ("qwen3-30b-a3b")
%! S = struct (M);
%! printf ("isstruct (M) = %d, isstruct (struct (M)) = %d, %d parameters\n", isstruct (M),
%!         isstruct (S), numel (S.params.name));
