## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{G} =} zero_check_grads (@var{fname}, @var{rank_grads}, @var{nl}, @var{shapes})
## @deftypefnx {} {[@var{G}, @var{device}] =} zero_check_grads (@dots{}, true)
## Check that @var{rank_grads} is an @var{nl} x P cell (local ranks x parameters) whose
## cell @{l,p@} is a real matrix of the shape @code{shapes(p,:)} (else a
## @code{muonlab:badShape} error naming @var{fname} and the cell), and return it with every
## matrix in double.  The one check of the gradients of @code{zero_muon_step} and
## @code{zero_train_step}.  With a fifth argument true, the cells may instead all be double
## device arrays (@code{muon_gpuarray}) on one device, returned as they are, and
## @var{device} names it (@qcode{""} for host arrays).
## @end deftypefn

function [G, device] = zero_check_grads (fname, G, nl, shapes, allow_device)
  P = rows (shapes);
  device = "";
  if (! (iscell (G) && isequal (size (G), [nl P])))
    error ("muonlab:badShape", "%s: RANK_GRADS must be a %d x %d cell (ranks x parameters).",
           fname, nl, P);
  endif
  on_device = cellfun (@(g) isa (g, "muon_gpuarray"), G);
  if (nargin > 4 && allow_device && any (on_device(:)))
    device = check_device (fname, G, on_device, shapes);
    return;
  endif
  if (any (on_device(:)))               # a caller that takes host arrays only
    [l, p] = ind2sub ([nl P], find (on_device, 1));
    error ("muonlab:unsupported",
           "%s: RANK_GRADS{%d,%d} is a device array; %s takes host arrays (gather (G) first).",
           fname, l, p, fname);
  endif
  for k = 1:numel (G)
    [l, p] = ind2sub ([nl P], k);
    g = G{k};
    if (! isfloat (g) && (isnumeric (g) || islogical (g) || ischar (g)))   # as muon_ns says
      error ("muonlab:badType",
             "%s: RANK_GRADS{%d,%d} must be a double or single matrix, not %s (convert it: double (G)).",
             fname, l, p, class (g));
    elseif (issparse (g))
      error ("muonlab:badType",
             "%s: RANK_GRADS{%d,%d} must be a full matrix, not sparse (convert it: full (G)).",
             fname, l, p);
    elseif (! (isfloat (g) && isreal (g) && isequal (size (g), shapes(p,:))))
      error ("muonlab:badShape", "%s: RANK_GRADS{%d,%d} must be a real %d x %d matrix.",
             fname, l, p, shapes(p,1), shapes(p,2));
    endif
    try                                 # a single set needs twice its size here
      G{k} = double (g);
    catch err
      if (! strcmp (err.identifier, "Octave:bad-alloc"))
        rethrow (err);
      endif
      error ("muonlab:noMemory",
             "%s: out of memory for the double copy of RANK_GRADS{%d,%d} (%d x %d).",
             fname, l, p, shapes(p,1), shapes(p,2));
    end_try_catch
  endfor
endfunction

function device = check_device (fname, G, on_device, shapes)
  [nl, P] = size (G);
  if (! all (on_device(:)))
    [l, p] = ind2sub ([nl P], find (on_device, 1));     # one of each, not "others"
    [lh, ph] = ind2sub ([nl P], find (! on_device, 1));
    error ("muonlab:badArg",
           "%s: RANK_GRADS{%d,%d} is a device array and RANK_GRADS{%d,%d} a host array: give all of them on one device.",
           fname, l, p, lh, ph);
  endif
  device = G{1}.Device;
  for k = 1:numel (G)
    [l, p] = ind2sub ([nl P], k);
    g = G{k};
    if (! strcmp (g.Device, device))
      error ("muonlab:badArg", "%s: RANK_GRADS{%d,%d} is on another device than RANK_GRADS{1,1}.",
             fname, l, p);
    elseif (! strcmp (g.Storage, "double"))
      error ("muonlab:badType",
             "%s: RANK_GRADS{%d,%d} must be a double device array, not %s (muon_gpu (G, \"Class\", \"double\")).",
             fname, l, p, g.Storage);
    elseif (! isequal (g.Size, shapes(p,:)))
      error ("muonlab:badShape", "%s: RANK_GRADS{%d,%d} must be a real %d x %d matrix.",
             fname, l, p, shapes(p,1), shapes(p,2));
    endif
  endfor
endfunction
