## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{C} =} expand_schedule (@var{coeffs}, @var{steps}, @var{mode})
## A schedule as @code{muon_ns} runs it: the rows of the K x 3 matrix @var{coeffs} ([]:
## the core's default schedule) for @var{steps} steps (0: its default count, 5 for a single
## triple, else K, as the core's @code{muon_coeffs_default_steps}), beyond K by @var{mode}
## (@qcode{"repeat_last"} or @qcode{"cycle"}, as the core's @code{muon_coeffs_expand}).
## @end deftypefn

function C = expand_schedule (coeffs, steps, mode)
  if (isempty (coeffs))
    coeffs = muon_coeffs (core_lists ().defaults.ns.coefficients);
  endif
  K = rows (coeffs);
  if (steps == 0)
    steps = 5 * (K == 1) + K * (K > 1);
  endif
  idx = 1:steps;
  if (strcmp (mode, "cycle"))
    idx = mod (idx - 1, K) + 1;
  else
    idx = min (idx, K);
  endif
  C = coeffs(idx,:);
endfunction
