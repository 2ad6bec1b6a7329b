## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{names}, @var{C}] =} coeff_table ()
## The core's coefficient schedules, asked once per session: @var{names} (a 1 x S cell of
## strings, the core's order) and @var{C} (a 1 x S cell of their K x 3 matrices).  The
## core's table is the only list of names; @code{muon_coeffs} and the option table of
## @code{muon_ns} (@code{option_spec}) read it here, so that no call crosses into C to look
## a schedule up.
## @end deftypefn

function [names, C] = coeff_table ()
  persistent N M;
  if (isempty (N))
    [N, M] = __muon_coeffs__ ();
  endif
  names = N;
  C = M;
endfunction
