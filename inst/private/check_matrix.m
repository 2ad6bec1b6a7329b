## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {} check_matrix (@var{fname}, @var{argname}, @var{G})
## @deftypefnx {} {} check_matrix (@var{fname}, @var{argname}, @var{G}, @var{finite})
## Validate a gradient-like input: a real, full, double or single, finite, non-empty M x N
## matrix or M x N x E stack, 1 x N and M x 1 too (an integer, logical or char array is told to
## convert itself with double, a sparse one with full).  Errors are muonlab:badType, muonlab:badShape
## and muonlab:nonFinite.  With @var{finite} false the finiteness pass is left to the
## caller's gateway (@code{muon_mex_check_finite}: the same error, a pass in C instead of
## Octave's @code{isfinite}, which is most of this function's time on a large @var{G}).
## @end deftypefn

function check_matrix (fname, argname, G, finite)
  if (isinteger (G) || islogical (G) || ischar (G))
    error ("muonlab:badType", "%s: %s must be a double or single matrix, not %s (convert it: double (%s)).",
           fname, argname, class (G), argname);
  elseif (issparse (G))               # (real and numeric: "a real numeric matrix" misled)
    error ("muonlab:badType", "%s: %s must be a full matrix, not sparse (convert it: full (%s)).",
           fname, argname, argname);
  elseif (! (isfloat (G) && isreal (G)))
    error ("muonlab:badType", "%s: %s must be a real numeric matrix.", fname, argname);
  endif
  if (isempty (G))
    error ("muonlab:badShape", "%s: %s must not be empty.", fname, argname);
  endif
  if (ndims (G) > 3)
    error ("muonlab:badShape", "%s: %s must have 2 or 3 dimensions.", fname, argname);
  endif
  check_pages (fname, argname, size (G));
  if ((nargin < 4 || finite) && ! all (isfinite (G(:))))
    error ("muonlab:nonFinite", "%s: %s must not contain NaN or Inf.", fname, argname);
  endif
endfunction
