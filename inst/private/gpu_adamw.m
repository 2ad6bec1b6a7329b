## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{p}, @var{st}] =} gpu_adamw (@var{p}, @var{g}, @var{st}, @var{lr}, @var{wd}, @var{betas}, @var{eps})
## @code{opt_adamw} with the moments @code{st.m}, @code{st.v} as device arrays: one
## kernel on their device (muon_darray_adamw), every element as @code{opt_adamw} computes
## it on host arrays, so the bits are the same.  A host @var{p} or @var{g} is copied there
## (in the moments' class) and @var{p} comes back to the host; a device @var{p} stays.
## @end deftypefn

function [p, st] = gpu_adamw (p, g, st, lr, wd, betas, eps)
  dev = st.m.Device;
  cls = st.m.Storage;
  host = ! isa (p, "muon_gpuarray");
  P = p;
  if (host)
    P = muon_gpu (p, "Device", dev, "Class", cls);
  endif
  G = g;
  if (! isa (g, "muon_gpuarray"))
    G = muon_gpu (g, "Device", dev, "Class", cls);
  endif
  st.step += 1;
  t = st.step;
  coef = [1 - betas(1), 1 - betas(2), 1 - betas(1) ^ t, 1 - betas(2) ^ t, 1 - lr * wd, ...
          lr, eps];
  sz = size (st.m);
  mark = __muon_gpu__ ("mark");
  unwind_protect
    [hp, hm, hv] = __muon_gpu__ ("adamw", P.Handle, G.Handle, st.m.Handle, st.v.Handle, coef);
    st.m = muon_gpuarray (hm, sz, cls, dev);
    st.v = muon_gpuarray (hv, sz, cls, dev);
    p = muon_gpuarray (hp, sz, cls, dev);
  unwind_protect_cleanup
    __muon_gpu__ ("drop", mark);         # arrays an error or Ctrl-C left unwrapped
  end_unwind_protect
  if (host)
    p = gather (p);
  endif
endfunction
