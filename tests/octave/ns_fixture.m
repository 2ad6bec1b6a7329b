## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{G}, @var{s0}, @var{U}, @var{V}, @var{phi}] =} ns_fixture ()
## The small input of the Newton-Schulz suites and its closed form: an 8 x 24 normal
## @var{G} (randn state 1), its SVD's @var{U} and @var{V}, its singular values as
## @code{muon_ns} normalizes them (@var{s0}: over the Frobenius norm plus 1e-7), and the
## quintic @var{phi} (s, [a b c]) of one step, so that k steps of a schedule give
## U diag (phi (... phi (s0))) V'.
## @end deftypefn

function [G, s0, U, V, phi] = ns_fixture ()
  randn ("state", 1);
  G = randn (8, 24);
  [U, S, V] = svd (G, "econ");
  s0 = diag (S) / (norm (G, "fro") + 1e-7);
  phi = @(s, c) c(1)*s + c(2)*s.^3 + c(3)*s.^5;
endfunction
