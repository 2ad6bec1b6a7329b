## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} zero_check_lengths (@var{fname}, @var{what}, @var{m}, @var{ranks}, @var{shapes}, @var{W}, @var{lopts}, @var{variant}, @var{plan}, @var{bucket})
## zero_muon_step's check, under MPI / NCCL before the ranks agree, that each local rank's
## state buffer @var{m}@{l@} (a host column or a device array; named @var{what} in the
## error, muonlab:badState) holds the momentum length of rank @var{ranks}(l) under
## @var{variant}'s plan of the layout (@var{shapes}, @var{W}, @var{lopts}; the layout
## object's @var{plan}, else one made for the call; @var{bucket} the layer-wise designs'
## bucket size, [] for one bucket): the gateway's own check comes after
## the agreement, where a rank that failed it would leave the others waiting.
## @end deftypefn

function zero_check_lengths (fname, what, m, ranks, shapes, W, lopts, variant, plan, bucket)
  len = momentum_lengths (shapes, W, lopts, variant, plan, bucket);
  for l = 1:numel (m)
    n = numel (m{l});
    want = len(ranks(l) + 1);
    if (n != want)
      error ("muonlab:badState",
             "%s: %s{%d} holds %d elements; rank %d's momentum under '%s' holds %d.",
             fname, what, l, n, ranks(l), variant, want);
    endif
  endfor
endfunction

## The momentum length of every rank (W x 1) under VARIANT's plan of the layout (the layout
## object's plan PLAN, else one made for the call; __muon_zero_step__ ('map')), kept for the
## next steps of the same layout and variant.
function len = momentum_lengths (shapes, W, lopts, variant, plan, bucket)
  persistent cache = struct ("key", {}, "len", {});
  key = {shapes, W, lopts, variant, bucket};
  for k = 1:numel (cache)
    if (isequal (cache(k).key, key))
      len = cache(k).len;
      return;
    endif
  endfor
  args = {"map", shapes, W, lopts, variant, plan, bucket};
  [~, len] = __muon_zero_step__ (args{:});
  cache = [struct("key", {key}, "len", len), cache(1:min (end, 7))];   # the last 8
endfunction
