## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{P}, @var{blocks}, @var{route}] =} model_params (@var{fname}, @var{M})
## The parameters of the @code{muon_model} result @var{M} as a struct of zero arrays
## (rows x cols, double), one field per parameter in checkpoint order, named by
## @code{M.params.field} (the valid field name @code{muon_model} made of each dotted torch
## name, which @code{M.params.name} keeps beside it).  At most 2^27 elements (1 GiB of
## doubles): a larger model is refused (@code{muonlab:badArg}, pointing to
## @code{zero_cost}, which plans any size from the shapes alone).  @var{blocks} holds, per
## fused parameter, the @code{muon_update} options that run its Newton-Schulz per expert
## (@qcode{"Experts"}, @code{M.params.experts}) and per fused block (@qcode{"SplitRows"},
## @code{M.params.split}), as @code{muon_optimizer}'s @qcode{"ParamOptions"} takes them.
## @var{route} holds each parameter's @code{M.params.route} (@qcode{"muon"} or
## @qcode{"adamw"}), by field.
## @end deftypefn

function [P, blocks, route] = model_params (fname, M)
  T = model_table (fname, M);
  n = sum (T.rows .* T.cols);
  if (n > 2^27)
    error ("muonlab:badArg",
           "%s: the model has %.4g parameters, more than 2^27 to hold as arrays here; plan it with zero_cost (M, W) or use a smaller config.",
           fname, n);
  endif
  if (isfield (T, "field") && iscellstr (T.field))
    f = T.field;
  else
    f = model_fields (T.name);
  endif
  args = [f(:).'; cellfun(@(r, c) {zeros(r, c)}, num2cell (T.rows(:).'), num2cell (T.cols(:).'),
                          "UniformOutput", false)];
  P = struct (args{:});
  r = [f(:).'; T.route(:).'];
  route = struct (r{:});
  ## Newton-Schulz per expert and per fused block, as the model says (muon_update's
  ## "Experts" and "SplitRows")
  blocks = struct ();
  for k = 1:numel (f)
    o = {};
    if (T.experts(k) > 1)
      o = [o, {"Experts", T.experts(k)}];
    endif
    if (! isempty (T.split{k}))
      o = [o, {"SplitRows", T.split{k}}];
    endif
    if (! isempty (o))
      blocks.(f{k}) = o;
    endif
  endfor
endfunction
