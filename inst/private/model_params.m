## -*- texinfo -*-
## @deftypefn {} {@var{P} =} model_params (@var{fname}, @var{M})
## The parameters of the @code{muon_model} result @var{M} as a struct of zero arrays
## (rows x cols, double), one field per parameter in checkpoint order, named by
## @code{M.params.field} (the valid field name @code{muon_model} made of each dotted torch
## name, which @code{M.params.name} keeps beside it).  At most 2^27 elements (1 GiB of
## doubles): a larger model is refused (@code{muonlab:badArg}, pointing to
## @code{zero_cost}, which plans any size from the shapes alone).
## @end deftypefn

function P = model_params (fname, M)
  T = M.params;
  n = sum (T.rows .* T.cols);
  if (n > 2^27)
    error ("muonlab:badArg",
           "%s: the model has %.4g parameters, more than 2^27 to hold as arrays here; plan it with zero_cost (M, W) or use a smaller config.",
           fname, n);
  endif
  f = T.field;
  if (! iscellstr (f))
    f = model_fields (T.name);
  endif
  args = [f(:).'; cellfun(@(r, c) {zeros(r, c)}, num2cell (T.rows(:).'), num2cell (T.cols(:).'),
                          "UniformOutput", false)];
  P = struct (args{:});
endfunction
