## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## The same random problem on every rank: a layout of 3 to 5 random shapes for W ranks
## (zero_mpi_grads makes their gradients); seed 11: 1 x n, n x 1 and 1 x 1 matrices among
## the matrices (torch.optim.Muon and DeepSpeed give any 2-D tensor Muon).
function [L, shapes] = zero_mpi_problem (W, seed, stage, order)
  rand ("state", seed);
  P = 3 + mod (seed, 3);
  shapes = 2 + floor (7 * rand (P, 2));
  if (seed == 11)
    shapes = [6 8; 1 8; 8 1; 1 1; 5 4; 1 3];
  endif
  L = zero_layout (num2cell (shapes, 2), W, "Stage", stage, "Order", order);
endfunction
