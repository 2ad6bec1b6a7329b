## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} check_pages (@var{fname}, @var{argname}, @var{sz})
## The shape rule of a gradient-like input of size @var{sz} (host or device array): a
## matrix, or a stack of pages, at least 2 x 2 each (muonlab:badShape, naming a stack's
## page size).
## @end deftypefn

function check_pages (fname, argname, sz)
  if (all (sz(1:2) >= 2))
    return;
  elseif (numel (sz) == 3 && sz(3) > 1)
    error ("muonlab:badShape",
           "%s: each page of the stack %s must be at least 2 x 2, not %d x %d.",
           fname, argname, sz(1), sz(2));
  endif
  error ("muonlab:badShape",
         "%s: %s must be a matrix (at least 2 x 2), not a vector or scalar.", fname, argname);
endfunction
