## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} family_scale (@var{opts}, @var{m}, @var{n})
## The shape factor of an m x n update under the parsed options @var{opts}: the
## @qcode{"Scale"} rule times @qcode{"ScaleFactor"} (the core's rules, the same names; used
## by the Octave-side algorithms of the Muon family), on @code{opts.scale_rows} x
## @code{opts.scale_cols} instead of m x n where those are set (ConvScale last_two): keller
## @code{sqrt (max (1, m/n))}, rms @code{0.2 sqrt (max (m, n))}, spectral
## @code{sqrt (max (m, n))}, unit_rms @code{sqrt (m/n)}, none 1.  Elementwise: @var{m} and
## @var{n} may be arrays of one size (or a scalar and an array).
## @end deftypefn

function s = family_scale (opts, m, n)
  if (isfield (opts, "scale_rows"))
    m = opts.scale_rows;
    n = opts.scale_cols;
  endif
  switch (opts.scale)
    case "keller"
      s = sqrt (max (1, m ./ n));
    case "rms"
      s = 0.2 * sqrt (max (m, n));
    case "spectral"
      s = sqrt (max (m, n));
    case "unit_rms"
      s = sqrt (m ./ n);
    otherwise
      s = 1;
  endswitch
  s *= opts.scale_factor;
endfunction
