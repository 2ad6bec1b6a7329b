## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{why} =} zero_train_overflow (@var{x}, @var{ranks}, @var{poison}, @var{zst})
## This process's reason to skip a @code{zero_train_step} window ("" for none): a local
## gradient of @var{x} that overflows, or (on the poisoned path, @var{poison}) a momentum of
## the design's state @var{zst} that already holds NaN or Inf.
## @end deftypefn

function why = zero_train_overflow (x, ranks, poison, zst)
  why = "";
  [nl, P] = size (x);
  for l = 1:nl
    for p = 1:P
      if (opt_overflows (x{l,p}))
        why = sprintf ("non-finite or overflowing gradient (rank %d, parameter %d)",
                       ranks(l), p);
        return;
      endif
    endfor
    if (poison && isstruct (zst) && iscell (zst.momentum)
        && ! all (isfinite (zst.momentum{l})))
      why = sprintf ("non-finite momentum (rank %d)", ranks(l));
      return;
    endif
  endfor
endfunction
