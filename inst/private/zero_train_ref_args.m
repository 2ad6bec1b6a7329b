## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{a}, @var{E}, @var{S}] =} zero_train_ref_args (@var{fname}, @var{zargs}, @var{L})
## For @code{zero_train_step}'s correct step: @code{muon_update}'s options of the call
## @var{zargs} (the update and Newton-Schulz ones, in double), and each matrix's expert
## count and split row blocks (@var{E}, @var{S}) on the layout @var{L}.
## @end deftypefn

function [a, E, S] = zero_train_ref_args (fname, zargs, L)
  drop = {"variant", "comm", "reference", "assemble", "padcount", "period", "blockscale", ...
          "bucketsize", ...
          "precision", "experts", "splitrows"};
  keep = true (1, numel (zargs));
  E = [];
  S = [];
  for i = 1:2:numel (zargs)
    if (any (strcmpi (zargs{i}, drop)))
      keep(i:i+1) = false;
    endif
    if (strcmpi (zargs{i}, "experts"))
      E = zargs{i+1};
    elseif (strcmpi (zargs{i}, "splitrows"))
      S = zargs{i+1};
    endif
  endfor
  a = [zargs(keep), {"Precision", "double"}];
  [E, S] = zero_layout_blocks (L, E, S, fname);   # a model layout's own, when none are given
  [E, S] = zero_blocks (fname, E, S, [[L.params.rows]; [L.params.cols]].');
endfunction
