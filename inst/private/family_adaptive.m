## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{O2}, @var{V}] =} family_adaptive (@var{X}, @var{V}, @var{opts})
## NorMuon and AdaMuon after the momentum (issue 27), for the m x n NS input @var{X}, the
## second moment @var{V} ([] at the first step) and the parsed options @var{opts}; the
## shape factor is the caller's.
## @example
## O  = NS (X)          (NS (sign (X)) with SignBeforeNS: AdaMuon's official code)
## q  = mean (O.^2, 2)  row: m x 1 (NorMuon's default) | mean (O.^2, 1) col: 1 x n
##      | row when m >= n, else col: shorter (EO) | O.^2 element: m x n (AdaMuon's default)
##      | conv_kernel: O viewed as the out x in x kh x kw weight (opts.conv_shape),
##        mean (O.^2, 4): out x in x kh (zichongli5's p[..., 0:1]; row for a 2-D G)
## V  = lerp (V, q, 1 - Beta2)               (no bias correction)
## O2 = O ./ (sqrt (V) + VEps)               (VEpsPlacement max: O ./ sqrt (max (V, VEps)))
## O2 = O2 * (r / (||O2|| + RMSEps))         (RMSEpsPlacement max: / max (||O2||, RMSEps))
##      r = ||O|| (RMSMatch keep: NorMuon's default), RMSMatch sqrt (m n) (a number: AdaMuon's
##      0.2 by default; RMSShape min_max: sqrt (min * max of a 4-D G's sides)), none: no
##      rescale; under conv_kernel (4-D) the norms and the sqrt (kh kw) of each out, in
##      kh x kw kernel, one rescale per kernel
## @end example
## A @var{V} of another shape (the axis changed, or another algorithm's state) is a
## muonlab:badState error.
## @end deftypefn

function [O2, V] = family_adaptive (X, V, opts)
  [m, n] = size (X);
  normuon = strcmp (opts.algorithm, "normuon");
  if (opts.sign_before_ns)
    X = sign (X);
  endif
  O = family_ns (X, opts);
  [axis, vsz] = family_axis (opts, opts.algorithm, m, n);
  kern = strcmp (axis, "conv_kernel");
  if (kern)                    # the 4-D O: V over kw, the rescale per kh x kw kernel
    O = reshape (O, opts.conv_shape);
  endif
  switch (axis)
    case "row"
      q = mean (O .^ 2, 2);
    case "col"
      q = mean (O .^ 2, 1);
    case "conv_kernel"
      q = mean (O .^ 2, 4);
    otherwise
      q = O .^ 2;
  endswitch
  if (isempty (V))
    V = zeros (size (q), class (O));
  elseif (! isequal (size (V), vsz))
    error ("muonlab:badState", "%s: STATE.family.buffer must be the %s V of NORMAXIS '%s'.",
           opts.fname, strjoin (arrayfun (@num2str, vsz, "UniformOutput", false), " x "),
           axis);
  endif
  V = V + (1 - opts.beta2) * (q - V);
  if (strcmp (opts.v_eps_placement, "add"))
    O2 = O ./ (sqrt (V) + opts.v_eps);
  else
    O2 = O ./ sqrt (max (V, opts.v_eps));
  endif
  r = opts.rms_match;
  if (isempty (r))
    r = merge (normuon, "keep", 0.2);
  endif
  if (ischar (r) && strcmp (r, "none"))
    O2 = reshape (O2, m, n);
    return;
  endif
  if (kern)                    # one rescale per (out, in): norms over kh x kw
    nrm = @(A) sqrt (sum (sum (A .^ 2, 3), 4));
    cnt = opts.conv_shape(3) * opts.conv_shape(4);
  else
    nrm = @(A) norm (A, "fro");
    cnt = m * n;
    if (strcmp (opts.rms_shape, "min_max") && isfield (opts, "conv_shape"))
      cnt = min (opts.conv_shape) * max (opts.conv_shape);    # AdaMuon's, of the 4-D sides
    endif
  endif
  if (ischar (r))
    r = nrm (O);
  else
    r = r * sqrt (cnt);
  endif
  d = nrm (O2);
  if (strcmp (opts.rms_eps_placement, "add"))
    d = d + opts.rms_eps;
  else
    d = max (d, opts.rms_eps);
  endif
  O2 = reshape (O2 .* (r ./ d), m, n);
endfunction
