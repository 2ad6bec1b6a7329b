## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{tf} =} opt_check_count (@var{x})
## True when @var{x} is a count of an optimizer state (@code{opt_check_state}): a
## non-negative integer, finite, held in a real double scalar.
## @end deftypefn

function tf = opt_check_count (x)
  tf = (isa (x, "double") && isreal (x) && isscalar (x) && isfinite (x) && x >= 0
        && x == fix (x));
endfunction
