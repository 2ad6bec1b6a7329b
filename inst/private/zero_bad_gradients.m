## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{why} =} zero_bad_gradients (@var{rank_grads}, @var{comm})
## zero_muon_step's reason to skip the step ("" when it need not): a local gradient of the
## cell @var{rank_grads} with NaN or Inf, or whose fp64 sum of squares overflows.  Under MPI
## / NCCL (@var{comm} a communicator) every rank learns whether any rank found one (one
## all-reduce of a flag), so all of them skip together.
## @end deftypefn

function why = zero_bad_gradients (rank_grads, comm)
  why = "";
  p = 0;
  [nr, np] = size (rank_grads);
  for k = 1:numel (rank_grads)          # parameter by parameter, rank by rank
    try
      s = opt_sumsq (rank_grads{k});
    catch err                           # a stale device array: zero_muon_step: RANK_GRADS{l,p}
      [l, q] = ind2sub ([nr np], k);
      gpu_stale (err, "zero_muon_step", sprintf ("RANK_GRADS{%d,%d}", l, q));
    end_try_catch
    if (! isfinite (s))
      [l, p] = ind2sub ([nr np], k);
      r = l - 1;
      if (isstruct (comm))
        r = comm.rank + l - 1;
      endif
      why = sprintf ("non-finite or overflowing gradient (rank %d, parameter %d)", r, p);
      break;
    endif
  endfor
  why = comm_first_reason (comm, why, p);   # every process: the one sim's scan finds first
endfunction
