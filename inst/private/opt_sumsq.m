## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {[@var{s}, @var{finite}] =} opt_sumsq (@var{x})
## @deftypefnx {} {[@var{s}, @var{finite}] =} opt_sumsq (@var{x}, @var{y})
## The fp64 sum of squares of the elements of @var{x}, or of @code{@var{x} - @var{y}} taken
## in their class (@code{sumsq (double (x(:) - y(:)))}), and whether every one of them is
## finite; @var{s} is Inf when the sum overflows.  Host arrays and device arrays alike
## (@code{muon_gpuarray}: the sum runs where the data lives, the bits of Octave's ordered
## sum on the CPU stand-in, a fixed tree on CUDA).
## @end deftypefn

function [s, finite] = opt_sumsq (x, y)
  if (isa (x, "muon_gpuarray"))
    hy = [];
    if (nargin > 1)
      hy = y.Handle;
    endif
    [s, finite] = __muon_gpu__ ("sumsq", x.Handle, hy);
    return;
  endif
  if (nargin > 1)
    x = x(:) - y(:);
  endif
  s = sumsq (double (x(:)));
  finite = isfinite (s) || all (isfinite (x(:)));
endfunction
