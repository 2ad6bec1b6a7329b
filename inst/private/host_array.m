## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{X} =} host_array (@var{X})
## @var{X} gathered to the host when it is a device array (@code{muon_gpuarray}), else as
## it is.
## @end deftypefn

function X = host_array (X)
  if (isa (X, "muon_gpuarray"))
    X = gather (X);
  endif
endfunction
