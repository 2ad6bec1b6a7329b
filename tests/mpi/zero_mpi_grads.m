## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## W x P gradients of the shapes of zero_mpi_problem, the same on every rank.
function g = zero_mpi_grads (shapes, W, seed)
  randn ("state", seed);
  g = cell (W, rows (shapes));
  for k = 1:numel (g)
    [~, p] = ind2sub ([W rows(shapes)], k);
    g{k} = randn (shapes(p,1), shapes(p,2));
  endfor
endfunction
