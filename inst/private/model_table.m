## -*- texinfo -*-
## @deftypefn {} {@var{T} =} model_table (@var{M})
## The parameter table of a model from @code{muon_model}, the object or its plain struct
## (@code{struct (M)}: a scalar struct whose @code{params} table has the columns
## @code{name}, @code{rows}, @code{cols}, @code{numel}, @code{experts}, @code{split} and
## @code{route}; @code{field} is optional); [] for anything else.  The one test of "is this a
## model" for @code{muon_optimizer}, @code{zero_layout} and @code{zero_cost}.
## @end deftypefn

function T = model_table (M)
  T = [];
  if (isa (M, "muon_model_result"))
    M = struct (M);
  endif
  cols = {"name", "rows", "cols", "numel", "experts", "split", "route"};
  if (isstruct (M) && isscalar (M) && isfield (M, "params")
      && isstruct (M.params) && isscalar (M.params) && all (isfield (M.params, cols)))
    T = M.params;
  endif
endfunction
