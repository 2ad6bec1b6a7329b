## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{G} =} zero_check_grads (@var{fname}, @var{rank_grads}, @var{nl}, @var{shapes})
## Check that @var{rank_grads} is an @var{nl} x P cell (local ranks x parameters) whose
## cell @{l,p@} is a real matrix of the shape @code{shapes(p,:)} (else a
## @code{muonlab:badShape} error naming @var{fname} and the cell), and return it with every
## matrix in double.  The one check of the gradients of @code{zero_muon_step} and
## @code{zero_train_step}.
## @end deftypefn

function G = zero_check_grads (fname, G, nl, shapes)
  P = rows (shapes);
  if (! (iscell (G) && isequal (size (G), [nl P])))
    error ("muonlab:badShape", "%s: RANK_GRADS must be a %d x %d cell (ranks x parameters).",
           fname, nl, P);
  endif
  for k = 1:numel (G)
    [l, p] = ind2sub ([nl P], k);
    g = G{k};
    if (! (isfloat (g) && isreal (g) && ! issparse (g) && isequal (size (g), shapes(p,:))))
      error ("muonlab:badShape", "%s: RANK_GRADS{%d,%d} must be a real %d x %d matrix.",
             fname, l, p, shapes(p,1), shapes(p,2));
    endif
    G{k} = double (g);
  endfor
endfunction
