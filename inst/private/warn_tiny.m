## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} warn_tiny (@var{tiny}, @var{eps}, @var{norm_scale})
## The warning @code{muonlab:tinyInput} of @code{muon_ns} (host and device paths) when
## @var{tiny} > 0 pages of G have 0 < @var{norm_scale} * norm (G, "fro") < @var{eps}.
## @end deftypefn

function warn_tiny (tiny, eps, norm_scale)
  if (tiny == 0)
    return;
  endif
  scaled = "";
  if (norm_scale != 1)
    scaled = "NORMSCALE * ";
  endif
  warning ("muonlab:tinyInput",
           "muon_ns: %d page(s) of G have 0 < %snorm (G, 'fro') < EPS (%g): their result is about G / EPS, far from orthogonal.",
           tiny, scaled, eps);
endfunction
