## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{opt} =} opt_state_device (@var{fname}, @var{opt}, @var{device})
## The optimizer state @var{opt} with its arrays moved: @var{device} @qcode{""} gathers
## every device array to the host (muon_save_state), a window's accumulated device
## gradients included, @qcode{"cuda"} or @qcode{"cpu"}
## (the CPU stand-in device) copies the Muon momenta and the AdamW moments of parameters
## of at most 3 dimensions there (muon_optimizer's @qcode{"Resident"}, muon_load_state's
## @qcode{"Device"}).  @code{opt.resident} says where the state lives.  Errors (no device,
## no memory there, a device array of an earlier session) name @var{fname}, the function
## the user called.
## @end deftypefn

function opt = opt_state_device (fname, opt, device)
  ## gathering takes a window's device gradients too
  opt = opt_map_state (opt, @(x, where) move (fname, x, where, device), isempty (device));
  opt.resident = device;
endfunction

function x = move (fname, x, where, device)
  if (isa (x, "muon_gpuarray"))
    if (isempty (device))
      try
        x = gather (x);
      catch err
        gpu_stale (err, fname, where);  # muon_save_state: OPT.muon.W.momentum is ... stale
      end_try_catch
    endif
  elseif (! isempty (device) && ndims (x) <= 3)
    x = gpu_upload (fname, x, device);
  endif
endfunction
