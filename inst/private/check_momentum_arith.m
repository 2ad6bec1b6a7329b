## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} check_momentum_arith (@var{fname}, @var{opts})
## The rule of MomentumArith that no single option checks: torch's arithmetic is that of
## the lerp / mul_ add_ momentum, so dion and dion2 (M += G) refuse it
## (@code{muonlab:unsupported}).  @var{opts} is parse_options's struct of muon_update's
## options; one rule for a step (run_update) and for a state being checked.
## @end deftypefn

function check_momentum_arith (fname, opts)
  if (any (strcmp (opts.algorithm, {"dion", "dion2"})) && strcmp (opts.arith, "torch"))
    error ("muonlab:unsupported",
           "%s: MOMENTUMARITH 'torch' does not apply to ALGORITHM '%s' (its momentum is M += G).",
           fname, opts.algorithm);
  endif
endfunction
