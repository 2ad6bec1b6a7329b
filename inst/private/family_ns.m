## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{O} =} family_ns (@var{X}, @var{opts})
## The Newton-Schulz of a Muon-family update: @code{ns_run (@var{X}, @var{opts})}, or NaN
## of @var{X}'s size and class where @var{X} (the momentum, or a mix of it) is not finite: a
## poisoned state gives a non-finite update, as the core's Muon does, not the
## Newton-Schulz input check's error about G.
## @end deftypefn

function O = family_ns (X, opts)
  if (all (isfinite (X(:))))
    O = ns_run (X, opts);
  else
    O = NaN (size (X), class (X));
  endif
endfunction
