## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{tf} =} opt_overflows (@var{x})
## True for a gradient a step cannot take: NaN or Inf, or a sum of squares that overflows
## fp64 (which would turn AdamW's second moment, or a global norm, into Inf).  @var{x}
## may be a device array (@code{muon_gpuarray}).
## @end deftypefn

function tf = opt_overflows (x)
  tf = ! isfinite (opt_sumsq (x));
endfunction
