## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{G} =} zero_train_average (@var{comm}, @var{x}, @var{shapes})
## The rank average of @code{zero_train_step}'s local mean gradients @var{x} (nl x P, the
## matrices of @var{shapes}): a 1 x P cell, from one all-reduce.
## @end deftypefn

function G = zero_train_average (comm, x, shapes)
  [nl, P] = size (x);
  v = cell (nl, 1);
  for l = 1:nl
    v{l} = cell2mat (cellfun (@(g) g(:), x(l,:).', "UniformOutput", false));
  endfor
  a = zero_train_allreduce (comm, v, "avg");
  G = cell (1, P);
  at = 0;
  for p = 1:P
    n = prod (shapes(p,:));
    G{p} = reshape (a(at+1:at+n), shapes(p,:));
    at += n;
  endfor
endfunction
