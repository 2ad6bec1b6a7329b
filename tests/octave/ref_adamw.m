## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{p}, @var{hist}] =} ref_adamw (@var{p}, @var{G}, @var{lr}, @var{wd}, @var{betas}, @var{eps})
## Test reference: AdamW with decoupled weight decay written as the textbook closed form
## (Loshchilov & Hutter; the DeepSpeed/Moonlight/torch convention that the decay uses the
## plain lr), independently of inst/.  @var{G} is a cell of the gradients of steps
## 1..T; @var{hist}@{t@} is the parameter after step t.
## @example
## p = p - lr*wd*p
## m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g.^2
## p = p - lr * (m/(1-b1^t)) ./ (sqrt (v/(1-b2^t)) + eps)
## @end example
## @end deftypefn

function [p, hist] = ref_adamw (p, G, lr, wd, betas, eps)
  m = zeros (size (p));
  v = zeros (size (p));
  hist = cell (1, numel (G));
  for t = 1:numel (G)
    g = G{t};
    p = p - lr * wd * p;
    m = betas(1) * m + (1 - betas(1)) * g;
    v = betas(2) * v + (1 - betas(2)) * g .^ 2;
    mhat = m / (1 - betas(1) ^ t);
    vhat = v / (1 - betas(2) ^ t);
    p = p - lr * mhat ./ (sqrt (vhat) + eps);
    hist{t} = p;
  endfor
endfunction
