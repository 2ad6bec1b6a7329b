## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} zero_check_key (@var{fname}, @var{k}, @var{L}, @var{W}, @var{shapes}, @var{nl})
## The key @var{k} of a ZeRO state (of @code{zero_muon_step} or @code{zero_train_step})
## against the layout @var{L} (world @var{W}, @var{shapes}) and the @var{nl} local ranks of
## the communicator: a @code{muonlab:badState} error naming what differs.
## @end deftypefn

function zero_check_key (fname, k, L, W, shapes, nl)
  if (! (isequal (k.world, W) && isequal (k.shapes, shapes) && isequal (k.stage, L.stage)
         && isequal (k.align_factor, L.align_factor) && isequal (k.order, L.order_mode)))
    error ("muonlab:badState", "%s: STATE belongs to another layout than L.", fname);
  endif
  if (! isequal (k.local_ranks, nl))
    error ("muonlab:badState", "%s: STATE holds %d local ranks, the communicator %d.", fname,
           k.local_ranks, nl);
  endif
endfunction
