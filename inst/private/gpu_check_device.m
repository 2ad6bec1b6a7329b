## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} gpu_check_device (@var{fname}, @var{what}, @var{D}, @var{args}, @var{device})
## A device array @var{D} (argument @var{what} of @var{fname}) computes where it lives: a
## @qcode{"Device"} option in the cell @var{args} (parsed as @var{device}) naming another
## device is a @code{muonlab:unsupported} error.
## @end deftypefn

function gpu_check_device (fname, what, D, args, device)
  given = any (strcmpi (args(1:2:end), "Device"));
  if (given && ! strcmp (device, D.Device))
    error ("muonlab:unsupported",
           "%s: %s is a device array on %s; a device array computes where it lives (DEVICE '%s').",
           fname, what, D.Device, device);
  endif
endfunction
