## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{M} =} opt_momentum_fold (@var{M}, @var{g}, @var{beta}, @var{form})
## The peers' momentum lerp on the poisoned path of DeepSpeed #8432 (option
## @qcode{"PoisonMomentum"}): @code{beta M + (1 - beta) g} (@var{form} @qcode{"ema"}) or
## @code{beta M + g} (@qcode{"sgd"}), run on a gradient that may hold Inf or NaN, which the
## momentum then keeps for good.
## @end deftypefn

function M = opt_momentum_fold (M, g, beta, form)
  if (strcmp (form, "sgd"))
    M = beta * M + g;
  else
    M = beta * M + (1 - beta) * g;
  endif
endfunction
