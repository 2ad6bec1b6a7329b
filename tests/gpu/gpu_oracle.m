## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{X} =} gpu_oracle (@var{G}, @var{sched})
## @deftypefnx {} {@var{X} =} gpu_oracle (@var{G}, @var{sched}, @var{eps})
## The independent fp64 oracle of the GPU layer: what Newton-Schulz with the schedule
## @var{sched} (a name of @code{muon_coeffs}) computes in exact arithmetic, from the fp64 SVD
## of each page of @var{G} (M x N or M x N x E):
## @example
## [U, S, V] = svd (G, "econ");  s = diag (S) / (norm (G, "fro") + eps);
## s = a_k s + b_k s.^3 + c_k s.^5   for k = 1 .. steps;   X = U * diag (s) * V'
## @end example
## that is the SVD polar factor U*V' with the singular values mapped by the schedule's
## scalar polynomial (a finite schedule does not reach U*V' itself: keller leaves them in
## about [0.7, 1.2]).  No matrix product of the iteration is involved, so it is the same
## oracle for the standard and the Gram method (equal in exact arithmetic).  Steps as
## @code{muon_ns}'s default: 5 for a single triple, else the schedule's length; @var{eps}
## default 1e-7.
## @end deftypefn

function X = gpu_oracle (G, sched, eps)
  if (nargin < 3)
    eps = 1e-7;
  endif
  c = muon_coeffs (sched);
  K = rows (c);
  if (K == 1)
    steps = 5;
  else
    steps = K;
  endif
  G = double (G);
  X = zeros (size (G));
  for e = 1:size (G, 3)
    P = G(:,:,e);
    [U, S, V] = svd (P, "econ");
    s = diag (S) / (norm (P, "fro") + eps);
    for k = 1:steps
      abc = c(min (k, K),:);
      s = abc(1) * s + abc(2) * s.^3 + abc(3) * s.^5;
    endfor
    X(:,:,e) = U * diag (s) * V';
  endfor
endfunction

%!test
%! ## the closed form of muon_ns's own test: fp64 NS equals it to round-off
%! randn ("state", 1);
%! G = randn (8, 24);
%! X = gpu_oracle (G, "keller");
%! assert (muon_ns (G), X, 1e-12 * norm (X, "fro"));
%! G3 = randn (12, 20, 3);
%! X3 = gpu_oracle (G3, "polar_express");
%! for e = 1:3
%!   assert (X3(:,:,e), gpu_oracle (G3(:,:,e), "polar_express"));
%! endfor
%! assert (muon_ns (G3, "Coefficients", "polar_express"), X3, 1e-12 * norm (X3(:), 2));
