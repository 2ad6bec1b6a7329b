## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} host_only (@var{fname}, @var{argname}, @var{X})
## For a function that takes host arrays only: when @var{X} is a device array
## (@code{muon_gpuarray}) raise @code{muonlab:badType},
## @qcode{"@var{fname}: @var{argname} is a device array (muon_gpuarray) on @var{device};
## gather it first: gather (@var{argname})."}, instead of the function's type error, which
## for a real 2-D device array read as though its values were wrong.
## @end deftypefn

function host_only (fname, argname, X)
  if (isa (X, "muon_gpuarray"))
    error ("muonlab:badType",
           "%s: %s is a device array (muon_gpuarray) on %s; gather it first: gather (%s).",
           fname, argname, X.Device, argname);
  endif
endfunction
