## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} opt_check_device (@var{fname}, @var{opt}, @var{params}, @var{grads})
## muon_step's check of device arrays (@code{muon_gpuarray}) in @var{params} or
## @var{grads}: they need the optimizer's state on their device (device arithmetic never
## meets a host momentum) and, for a device parameter or a device gradient, the gradient
## in the parameter's class (the update, the momentum and the step keep one class there;
## muon_step casts a host gradient to it, but there is no cast of a device array).
## @end deftypefn

function opt_check_device (fname, opt, params, grads)
  for i = 1:numel (opt.names)
    n = opt.names{i};
    p = params.(n);
    g = grads.(n);
    for x = {{"PARAMS", p}, {"GRADS", g}}
      [what, a] = x{1}{:};
      if (isa (a, "muon_gpuarray") && ! strcmp (a.Device, opt.resident))
        error ("muonlab:badArg",
               "%s: %s.%s is a device array on %s; make the optimizer with \"Device\", \"%s\", \"Resident\", true to keep its state there too.",
               fname, what, n, a.Device, a.Device);
      endif
    endfor
    if (isa (p, "muon_gpuarray") && ! strcmp (class_of (g), p.Storage))
      error ("muonlab:badType", "%s: GRADS.%s must be of class %s, the class of PARAMS.%s.",
             fname, n, p.Storage, n);
    elseif (isa (g, "muon_gpuarray") && ! strcmp (g.Storage, opt.classes{i}))
      ## a host gradient is cast to its parameter's class; a device array has no cast
      error ("muonlab:badType",
             "%s: GRADS.%s must be a %s device array, the class of PARAMS.%s, not %s (device arrays are not converted: muon_gpu (G, \"Class\", \"%s\")).",
             fname, n, opt.classes{i}, n, g.Storage, opt.classes{i});
    endif
  endfor
endfunction

function c = class_of (x)
  if (isa (x, "muon_gpuarray"))
    c = x.Storage;
  else
    c = class (x);
  endif
endfunction
