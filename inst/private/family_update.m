## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{U}, @var{M}, @var{B}] =} family_update (@var{fname}, @var{G}, @var{M}, @var{B}, @var{opts})
## One update of the Muon family (issue 27) for an m x n gradient @var{G} (the 2-D view
## of the parameter), in Octave on top of @code{ns_run}: @var{M} the momentum ([] at the
## first step), @var{B} the algorithm's own buffer ([] at the first step: NorMuon and
## AdaMuon V, NAMO's scalar v, Dion's Q), @var{opts} the parsed @code{muon_update}
## options.  @var{U} is what @code{muon_step} subtracts times the lr, the shape factor
## included; the decay is @code{muon_step}'s.  Rules, lerp (a, b, w) = a + w (b - a):
## @example
## momentum  ema: M = lerp (M, G, 1-beta), X = lerp (G, M, beta) | M   (Nesterov | not)
##           sgd: M = beta M + G,          X = G + beta M      | M
## muon, scion  U = scale (m, n) NS (X)
## normuon, adamuon   family_adaptive
## namo      v = lerp (v, ||G||^2, 1-beta2) (raw G; v in fp64, a scalar);
##           U = scale ||X|| / den (v) NS (X)
## polargrad O = NS (X);  U = scale <O, X> O
## dion, dion2        family_dion (their own momentum and error feedback)
## @end example
## scale (m, n) is the @qcode{"Scale"} rule times @qcode{"ScaleFactor"}; den (v) is
## @code{sqrt (v) + VEps} (VEpsPlacement add) or @code{sqrt (max (v, VEps))} (max).
## @end deftypefn

function [U, M, B] = family_update (fname, G, M, B, opts)
  [m, n] = size (G);
  a = opts.algorithm;
  opts.fname = fname;
  cls = class (G);
  if (isempty (M))
    M = zeros (m, n, cls);
  endif
  ## a given momentum keeps its class: the rule runs in it, U comes back in G's; the
  ## buffer (V, Q) follows the momentum (NAMO's v is fp64)
  G0 = G;                               # (MomentumArith torch: X into G's class)
  G = cast (G, class (M));
  if (! (isempty (B) || strcmp (a, "namo")))
    B = cast (B, class (M));
  endif
  switch (a)
    case {"dion", "dion2"}
      [U, M, B] = family_dion (fname, G, M, B, opts);
      U = cast (U, cls);
      return;
  endswitch

  ## momentum and the NS input X
  beta = opts.beta;
  if (strcmp (opts.arith, "torch"))     # torch's ops: the core's (muon_update_momentum)
    o = opts;
    o.momentum_only = 1;
    o.split_rows = [];
    [X, M] = __muon_update__ (G0, M, o);
    X = cast (X, class (M));
  elseif (strcmp (opts.form, "ema"))
    M = M + (1 - beta) * (G - M);
    if (opts.nesterov)
      X = G + beta * (M - G);
    else
      X = M;
    endif
  else
    M = beta * M + G;
    if (opts.nesterov)
      X = G + beta * M;
    else
      X = M;
    endif
  endif
  s = family_scale (opts, m, n);

  switch (a)
    case {"muon", "scion"}
      U = s * family_ns (X, opts);
    case {"normuon", "adamuon"}
      [U, B] = family_adaptive (X, B, opts);
      U = s * U;
    case "namo"
      if (isempty (B))
        B = 0;
      elseif (! isscalar (B))
        error ("muonlab:badState", "%s: STATE.family.buffer must be the scalar v of NAMO.",
               fname);
      endif
      g2 = norm (double (G), "fro") ^ 2;  # scaled sum, in fp64 whatever G's class
      if (isinf (g2))
        error ("muonlab:nonFinite",
               "%s: NAMO's second moment needs norm (G, 'fro')^2 below realmax (fp64).",
               fname);
      endif
      B = double (B);                     # v in fp64: ||G||^2 passes single's range first
      B = B + (1 - opts.beta2) * (g2 - B);
      alpha = norm (X, "fro") / vden (B, opts.v_eps, opts.v_eps_placement);
      U = (s * alpha) * family_ns (X, opts);
    case "polargrad"
      O = family_ns (X, opts);
      U = (s * sum (O(:) .* X(:))) * O;
  endswitch
  U = cast (U, cls);
endfunction

## sqrt (v) + eps, or sqrt (max (v, eps))
function d = vden (v, e, place)
  if (strcmp (place, "add"))
    d = sqrt (v) + e;
  else
    d = sqrt (max (v, e));
  endif
endfunction
