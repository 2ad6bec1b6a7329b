## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{t} =} ns_trace_table (@var{G}, @var{raw})
## muon_ns's "Trace" result from the core's per-step snapshots @var{raw} (fields steps, x,
## r, q, gram, transposed): per step the singular-value range of the iterate, its polar
## error against G's fp64 SVD polar factor, and for Gram the smallest eigenvalue of R and
## the condition number of Q, as an ns_trace_result.  NaN where a snapshot is not finite
## (a run that overflowed its precision) and, for the polar error, where G is all zero (it
## has no polar factor, as in @code{polar_metrics}).
## @end deftypefn

function t = ns_trace_table (G, raw)
  pin = blas_one_thread ();              # the same bits on any number of threads
  steps = raw.steps;
  x = raw.x;
  if (raw.transposed)
    x = permute (x, [2 1 3]);
  endif
  [U, ~, V] = svd (double (G), "econ");
  P = U * V';
  if (! any (G(:)))
    P(:) = NaN;
  endif
  finite = @(A) all (isfinite (A(:)));
  k = (0:steps).';
  [smin, smax, perr, rmin, qcond] = deal (NaN (steps + 1, 1));
  for i = 1:steps + 1
    if (finite (x(:,:,i)))
      sv = svd (x(:,:,i));
      smin(i) = min (sv);
      smax(i) = max (sv);
      perr(i) = norm (x(:,:,i) - P, "fro") / norm (P, "fro");
    endif
    if (raw.gram && i <= steps && finite (raw.r(:,:,i)))
      R = raw.r(:,:,i);
      rmin(i) = min (eig ((R + R.') / 2));
    endif
    if (raw.gram && i > 1 && finite (raw.q(:,:,i)))
      qcond(i) = cond (raw.q(:,:,i));
    endif
  endfor
  t = ns_trace_result (struct ("step", k, "sv_min", smin, "sv_max", smax,
                               "polar_error", perr, "r_min_eig", rmin, "q_cond", qcond,
                               "gram", raw.gram, "iterates", x, "R", raw.r, "Q", raw.q));
endfunction
