## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{x} =} state_plain (@var{x})
## The plain struct of a state (@code{muon_state}); anything else as it is, for the checks
## that follow.  Every function that takes a state calls it first, so the state and its
## @code{struct} are the same input.
## @end deftypefn

function x = state_plain (x)
  if (isa (x, "muon_state"))
    x = state_wrapped (x);               # (also a state made before `clear functions`)
  endif
endfunction
