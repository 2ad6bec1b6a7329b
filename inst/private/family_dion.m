## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{U}, @var{M}, @var{Q}] =} family_dion (@var{fname}, @var{G}, @var{M}, @var{Q}, @var{opts})
## Dion and Dion2 (microsoft/dion, issue 27) for an m x n gradient @var{G}: momentum
## @var{M}, Dion's right factor @var{Q} ([] at the first step; Dion2 keeps none), the
## parsed options @var{opts} (mu = Beta).  @var{U} includes the shape factor
## (@qcode{"Scale"} on the full m x n); the decay is @code{muon_step}'s, before the update.
## @example
## dion   (dion_reference.py) on B = M' when m < n (so B is tall):
##        M += G;  P = orth (B Q) (economy QR);  R = B' P;  M -= (1 - mu) P R';
##        (the products and the Householder QR written here, in a fixed order: the bits
##        do not depend on the thread count, which Octave's BLAS products' do)
##        Q = R ./ (colnorm (R) + 1e-8);  U = scale P Q'   (transposed back)
##        Q starts as DionQ0, else a min (m, n) x r Gaussian drawn from a fixed seed (the
##        caller's randn stream is left as it was: fixed_randn); r = Rank (default min (m, n)).
## dion2  (dion/dion2.py) M += G;  rows when m <= n, else columns: the top
##        ceil (Fraction * count) by L1 norm;  S = M(sel);  M(sel) *= EFDecay;
##        U(sel) = scale NS (S) (with the muon_ns options), U zero elsewhere
## @end example
## P and Q are defined up to the signs of their columns; U and M are not.
## @end deftypefn

function [U, M, Q] = family_dion (fname, G, M, Q, opts)
  [m, n] = size (G);
  s = family_scale (opts, m, n);
  M = M + G;
  if (strcmp (opts.algorithm, "dion2"))
    U = zeros (m, n, class (G));
    f = opts.fraction;
    if (m <= n)
      [~, i] = sort (sum (abs (M), 2), "descend");
      sel = sort (i(1:ceil (f * m)));
      S = M(sel,:);
      M(sel,:) = M(sel,:) * opts.ef_decay;
      U(sel,:) = s * family_ns (S, opts);
    else
      [~, i] = sort (sum (abs (M), 1), "descend");
      sel = sort (i(1:ceil (f * n)));
      S = M(:,sel);
      M(:,sel) = M(:,sel) * opts.ef_decay;
      U(:,sel) = s * family_ns (S, opts);
    endif
    Q = [];
    return;
  endif

  tr = m < n;
  B = M;
  if (tr)
    B = M.';
  endif
  nb = min (m, n);
  r = opts.rank;
  if (isempty (r) || r > nb)
    r = nb;
  endif
  if (isempty (Q))
    Q = opts.dion_q0;
    if (isempty (Q))
      Q = fixed_randn (27, {nb, r});      # the caller's random stream left as it was
    elseif (! (isnumeric (Q) && isreal (Q) && isequal (size (Q), [nb r])
               && all (isfinite (Q(:)))))
      error ("muonlab:badArg",
             "%s: DIONQ0 must be a real finite %d x %d matrix (min (m, n) x RANK).",
             fname, nb, r);
    endif
    Q = cast (Q, class (G));
  elseif (! isequal (size (Q), [nb r]))
    error ("muonlab:badState", "%s: STATE.family.buffer must be the %d x %d Q of DION.",
           fname, nb, r);
  endif
  P = ordered_qr (ordered_mtimes (B, Q));
  R = ordered_mtimes (B', P);
  B = B - (1 - opts.beta) * ordered_mtimes (P, R');
  Q = R ./ (sqrt (sum (R .^ 2, 1)) + 1e-8);
  U = s * ordered_mtimes (P, Q');
  if (tr)
    M = B.';
    U = U.';
  else
    M = B;
  endif
endfunction
