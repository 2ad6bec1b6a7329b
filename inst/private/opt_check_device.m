## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} opt_check_device (@var{fname}, @var{opt}, @var{params}, @var{grads})
## muon_step's check of device arrays (@code{muon_gpuarray}) in @var{params} or
## @var{grads}: they need the optimizer's state on their device (device arithmetic never
## meets a host momentum), and a parameter, host or device, the class its state keeps
## (the update, the momentum and the step keep one class: a single parameter would
## otherwise run a double state's update in fp32).  A gradient of another class, host or
## device, is no error: muon_step casts it to its parameter's class (a device array on
## the device).
## @end deftypefn

function opt_check_device (fname, opt, params, grads)
  for i = 1:numel (opt.names)
    n = opt.names{i};
    p = params.(n);
    for x = {{"PARAMS", p}, {"GRADS", grads.(n)}}
      [what, a] = x{1}{:};
      if (isa (a, "muon_gpuarray") && ! strcmp (a.Device, opt.resident))
        error ("muonlab:badArg",
               "%s: %s.%s is a device array on %s; make the optimizer with \"Device\", \"%s\", \"Resident\", true (or load it with muon_load_state (..., \"Device\", \"%s\")) to keep its state there too.",
               fname, what, n, a.Device, a.Device, a.Device);
      endif
    endfor
    if (isa (p, "muon_gpuarray") && ! strcmp (p.Storage, opt.classes{i}))
      error ("muonlab:badType",
             "%s: PARAMS.%s must be a %s device array, the class of its optimizer state, not %s (muon_gpu (P, \"Class\", \"%s\")).",
             fname, n, opt.classes{i}, p.Storage, opt.classes{i});
    elseif (! isa (p, "muon_gpuarray") && ! strcmp (class (p), opt.classes{i}))
      error ("muonlab:badType",
             "%s: PARAMS.%s must be %s, the class of its optimizer state, not %s.",
             fname, n, opt.classes{i}, class (p));
    endif
  endfor
endfunction
