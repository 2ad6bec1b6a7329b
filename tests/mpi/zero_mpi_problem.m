## The same random problem on every rank: a layout of 3 to 5 random shapes for W ranks
## (zero_mpi_grads makes their gradients).
function [L, shapes] = zero_mpi_problem (W, seed, stage, order)
  rand ("state", seed);
  P = 3 + mod (seed, 3);
  shapes = 2 + floor (7 * rand (P, 2));
  L = zero_layout (num2cell (shapes, 2), W, "Stage", stage, "Order", order);
endfunction
