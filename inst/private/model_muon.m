## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{ismodel}, @var{shapes}, @var{names}, @var{experts}, @var{split}, @var{adamw}] =} model_muon (@var{fname}, @var{M})
## Whether @var{M} is a model from @code{muon_model}, the object or its plain struct
## (@code{model_table}), and if so its Muon matrices in checkpoint order: @var{shapes} (P x 2),
## @var{names} (P x 1 cellstr), @var{experts} (P x 1), @var{split} (P x 1 cell of row
## blocks, [] each where none) and @var{adamw} (the elements of its other parameters); for
## anything else [], @{@}, [], [] and 0.  The
## one reading of a model for @code{zero_layout} and @code{zero_cost}; a model without a
## Muon matrix is an error (@code{muonlab:badArg}) naming @var{fname}.
## @end deftypefn

function [ismodel, shapes, names, experts, split, adamw] = model_muon (fname, M)
  shapes = [];
  names = {};
  experts = [];
  split = [];
  adamw = 0;
  T = model_table (fname, M);
  ismodel = ! isempty (T);
  if (! ismodel)
    return;
  endif
  mu = strcmp (T.route, "muon");
  if (! any (mu))
    error ("muonlab:badArg", "%s: the model has no Muon parameter.", fname);
  endif
  shapes = [T.rows(mu) T.cols(mu)];
  names = T.name(mu);
  experts = T.experts(mu);
  split = T.split(mu);
  adamw = sum (T.numel(! mu));
endfunction
