## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{p}, @var{st}] =} opt_adamw (@var{p}, @var{g}, @var{st}, @var{lr}, @var{wd}, @var{betas}, @var{eps})
## One AdamW step on one parameter, as DeepSpeed's @code{MuonWithAuxAdam.adam_update}
## (and torch's AdamW): moments by lerp (@code{m += (1-b1) (g - m)}, @code{v += (1-b2)
## (g.^2 - v)}), bias correction @code{m/(1-b1^t)}, @code{v/(1-b2^t)}, update
## @code{mhat ./ (sqrt (vhat) + eps)}; decoupled decay @code{p *= 1 - lr*wd} first, then
## @code{p -= lr * update}.  @var{st} has fields @code{m}, @code{v}, @code{step}.
## @end deftypefn

function [p, st] = opt_adamw (p, g, st, lr, wd, betas, eps)
  if (isa (st.m, "muon_gpuarray"))      # the moments on the device
    [p, st] = gpu_adamw (p, g, st, lr, wd, betas, eps);
    return;
  endif
  st.step += 1;
  t = st.step;
  st.m += (1 - betas(1)) * (g - st.m);
  st.v += (1 - betas(2)) * (g .* g - st.v);
  mh = st.m / (1 - betas(1) ^ t);
  vh = st.v / (1 - betas(2) ^ t);
  p = p * (1 - lr * wd);
  p = p - lr * (mh ./ (sqrt (vh) + eps));
endfunction
