## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{W}, @var{shapes}] =} zero_check_layout (@var{fname}, @var{L})
## Check that @var{L} is a layout from @code{zero_layout} (else a @code{muonlab:badType}
## error naming @var{fname}) and return its world and its P x 2 @code{[rows cols]}.
## @end deftypefn

function [W, shapes] = zero_check_layout (fname, L)
  cnt = @(x) isnumeric (x) && isreal (x) && isscalar (x) && x >= 1 && x == fix (x);
  if (! (isstruct (L) && isscalar (L)
         && all (isfield (L, {"world", "stage", "align_factor", "order_mode", "params", ...
                              "ranks", "partition_size"}))
         && cnt (L.world) && cnt (L.stage) && cnt (L.align_factor) && ischar (L.order_mode)
         && isstruct (L.params) && ! isempty (L.params)
         && all (isfield (L.params, {"rows", "cols", "owners"}))
         && all (arrayfun (@(q) cnt (q.rows) && cnt (q.cols), L.params(:)))))
    error ("muonlab:badType", "%s: L must be a layout from zero_layout.", fname);
  endif
  W = L.world;
  shapes = [[L.params.rows]; [L.params.cols]].';
endfunction
