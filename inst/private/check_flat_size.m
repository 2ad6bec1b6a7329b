## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} check_flat_size (@var{fname}, @var{padded_total})
## The core counts a layout's elements in 64-bit integers; they reach Octave as doubles,
## exact only below 2^53 (a rounded total is at least 2^53 too): refuse a flat buffer of
## @var{padded_total} elements that large (@code{muonlab:badShape}, naming @var{fname}), as
## @code{zero_layout} and @code{zero_cost} do, rather than return rounded counts.
## @end deftypefn

function check_flat_size (fname, padded_total)
  if (padded_total >= flintmax ())
    error ("muonlab:badShape",
           "%s: the padded buffer (%.17g elements) must hold fewer than 2^53 elements.",
           fname, padded_total);
  endif
endfunction
