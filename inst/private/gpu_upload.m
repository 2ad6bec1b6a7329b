## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{D} =} gpu_upload (@var{fname}, @var{X}, @var{device})
## @code{muon_gpu (@var{X}, "Device", @var{device})} for the function @var{fname} the user
## called: its errors (no device, no memory there) name @var{fname}, not muon_gpu.
## @end deftypefn

function D = gpu_upload (fname, X, device)
  try
    D = muon_gpu (X, "Device", device);
  catch err
    if (strncmp (err.message, "muon_gpu: ", 10))
      err.message = [fname, err.message(9:end)];
    endif
    rethrow (err);
  end_try_catch
endfunction
