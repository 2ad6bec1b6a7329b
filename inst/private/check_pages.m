## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} check_pages (@var{fname}, @var{argname}, @var{sz})
## The shape rule of a gradient-like input of size @var{sz} (host or device array): a
## non-empty matrix or stack of pages, any M x N with M, N >= 1 (a 1 x N or N x 1 page is
## a matrix of one singular value, as torch.optim.Muon, Keller's Muon and DeepSpeed take any
## 2-D tensor); an empty one is a muonlab:badShape error.
## @end deftypefn

function check_pages (fname, argname, sz)
  if (any (sz == 0))
    error ("muonlab:badShape", "%s: %s must not be empty.", fname, argname);
  endif
endfunction
