## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{U}, @var{S}] =} ref_family (@var{G}, @var{S}, @var{c})
## Test reference: one update of the Muon family in plain double-precision Octave, written
## from the rules of issue 27 (not from inst/): @var{G} an m x n gradient, @var{S} the
## state (@code{[]} to start; fields M, V, Q), @var{c} the conventions, a struct with
## fields
## @table @code
## @item alg
## muon | scion | normuon | adamuon | namo | polargrad | dion | dion2
## @item beta, nesterov, form
## momentum beta (Dion's mu), Nesterov (logical), "ema" | "sgd"
## @item ns
## "K" (Keller), "PE" (dion's Polar Express), "EO" (Emerging-Optimizers quintic)
## @item scale
## "keller" | "rms" | "spectral" | "unit_rms" | "none"
## @item beta2, axis, sign, veps, vmax, rms, rmseps, rmsmax
## NorMuon / AdaMuon / NAMO: second-moment beta, "row" | "col" | "shorter" | "element"
## | "conv_kernel" (a 4-D weight's per-kernel V; on this m x n G the same as "row"),
## sign before NS, the eps of the V division and whether it is max (V, eps) (else
## sqrt (V) + eps), the rescale ("keep", "none" or a target RMS), its eps and whether it is
## max (||O2||, eps) (else ||O2|| + eps)
## @item q0, fraction, efdecay
## Dion's starting Q; Dion2's fraction and error-feedback decay
## @end table
## Missing fields are not used by the rule.  lerp (a, b, w) = a + w (b - a).
## @end deftypefn

function [U, S] = ref_family (G, S, c)
  [m, n] = size (G);
  if (isempty (S))
    S = struct ("M", zeros (m, n), "V", [], "Q", []);
  endif
  M = S.M;
  switch (c.scale)
    case "keller",   s = max (1, m / n) ^ 0.5;
    case "rms",      s = 0.2 * max (m, n) ^ 0.5;
    case "spectral", s = max (m, n) ^ 0.5;
    case "unit_rms", s = (m / n) ^ 0.5;
    otherwise,       s = 1;
  endswitch

  if (strcmp (c.alg, "dion"))
    M = M + G;
    B = M;
    if (m < n)
      B = M';
    endif
    Q = S.Q;
    if (isempty (Q))
      Q = c.q0;
    endif
    [P, ~] = qr (B * Q, 0);
    R = B' * P;
    B = B - (1 - c.beta) * (P * R');
    Q = R ./ (sqrt (sum (R .^ 2)) + 1e-8);
    O = P * Q';
    if (m < n)
      B = B';
      O = O';
    endif
    U = s * O;
    S.M = B;
    S.Q = Q;
    return;
  elseif (strcmp (c.alg, "dion2"))
    M = M + G;
    U = zeros (m, n);
    if (m <= n)
      L1 = sum (abs (M'));                 # per row
      k = ceil (c.fraction * m);
    else
      L1 = sum (abs (M));                  # per column
      k = ceil (c.fraction * n);
    endif
    [~, order] = sort (L1, "descend");
    sel = order(1:k);
    if (m <= n)
      X = M(sel,:);
      M(sel,:) = c.efdecay * M(sel,:);
      U(sel,:) = s * ns_ (X, c.ns);
    else
      X = M(:,sel);
      M(:,sel) = c.efdecay * M(:,sel);
      U(:,sel) = s * ns_ (X, c.ns);
    endif
    S.M = M;
    return;
  endif

  if (strcmp (c.form, "ema"))
    M = M + (1 - c.beta) * (G - M);
    X = M;
    if (c.nesterov)
      X = G + c.beta * (M - G);
    endif
  else
    M = c.beta * M + G;
    X = M;
    if (c.nesterov)
      X = G + c.beta * M;
    endif
  endif
  S.M = M;

  switch (c.alg)
    case {"muon", "scion"}
      U = s * ns_ (X, c.ns);
    case "polargrad"
      O = ns_ (X, c.ns);
      U = s * sum (sum (O .* X)) * O;
    case "namo"
      v = S.V;
      if (isempty (v))
        v = 0;
      endif
      v = v + (1 - c.beta2) * (norm (G, "fro") ^ 2 - v);
      S.V = v;
      U = s * norm (X, "fro") / (sqrt (v) + c.veps) * ns_ (X, c.ns);
    case {"normuon", "adamuon"}
      if (c.sign)
        X = sign (X);
      endif
      O = ns_ (X, c.ns);
      ax = c.axis;
      if (strcmp (ax, "conv_kernel"))     # 2-D: zichongli5's mean over dim -1, per row
        ax = "row";
      elseif (strcmp (ax, "shorter"))
        if (m >= n)
          ax = "row";
        else
          ax = "col";
        endif
      endif
      if (strcmp (ax, "row"))
        q = mean (O .^ 2, 2);
      elseif (strcmp (ax, "col"))
        q = mean (O .^ 2, 1);
      else
        q = O .^ 2;
      endif
      V = S.V;
      if (isempty (V))
        V = zeros (size (q));
      endif
      V = V + (1 - c.beta2) * (q - V);
      S.V = V;
      if (c.vmax)
        O2 = O ./ sqrt (max (V, c.veps));
      else
        O2 = O ./ (sqrt (V) + c.veps);
      endif
      if (! (ischar (c.rms) && strcmp (c.rms, "none")))
        if (ischar (c.rms))
          target = norm (O, "fro");
        else
          target = c.rms * sqrt (m * n);
        endif
        if (c.rmsmax)
          O2 = O2 * (target / max (norm (O2, "fro"), c.rmseps));
        else
          O2 = O2 * (target / (norm (O2, "fro") + c.rmseps));
        endif
      endif
      U = s * O2;
  endswitch
endfunction

## The three Newton-Schulz variants of issue 27, five steps, coefficients typed here.
function X = ns_ (G, kind)
  [m, n] = size (G);
  if (m > n)
    G = G';
  endif
  nrm = norm (G, "fro");
  switch (kind)
    case "K"                            # Keller
      X = G / (nrm + 1e-7);
      C = repmat ([3.4445, -4.7750, 2.0315], 5, 1);
    case "PE"                           # dion's Polar Express (MUON_FACTS 6.1)
      X = G / (1.02 * nrm + 1e-8);
      C = [8.156554524902461, -22.48329292557795, 15.878769915207462
           4.042929935166739, -2.808917465908714, 0.5000178451051316
           3.8916678022926607, -2.772484153217685, 0.5060648178503393
           3.285753657755655, -2.3681294933425376, 0.46449024233003106
           2.3465413258596377, -1.7097828382687081, 0.42323551169305323];
    case "EO"                           # Emerging-Optimizers coefficient_type="quintic"
      X = G / max (nrm, 1e-15);
      C = [4.0848, -6.8946, 2.9270; 3.9505, -6.3029, 2.6377; 3.7418, -5.5913, 2.3037
           2.8769, -3.1427, 1.2046; 2.8366, -3.0525, 1.2012];
  endswitch
  for k = 1:5
    A = X * X';
    X = C(k,1) * X + (C(k,2) * A + C(k,3) * A * A) * X;
  endfor
  if (m > n)
    X = X';
  endif
endfunction
