## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{p} =} opt_fused_add (@var{q}, @var{alpha}, @var{O})
## torch's @code{q.add_ (O, alpha=alpha)} on the CPU for single or double @var{q} and @var{O}
## of one class: one fused multiply-add, @code{fma (alpha, O, q)} rounded once into the
## class, @var{alpha} (double) first rounded to it (torch's opmath; the core's
## @code{muon_fma_array}).  Rounding @code{alpha O} and then the sum differs from it where
## the sum falls near a midpoint (a few elements a step).  For @code{muon_step}'s
## @qcode{"MomentumArith"} @qcode{"torch"} apply.
## @end deftypefn

function p = opt_fused_add (q, alpha, O)
  p = __muon_fma__ (alpha, O, q);
endfunction
