## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{zst} =} zero_train_fold (@var{zst}, @var{G}, @var{L}, @var{zo}, @var{ranks})
## DeepSpeed #8432 in @code{zero_train_step}: the averaged gradient @var{G} (NaN and Inf
## included) folded into every local rank's momentum of the design's state @var{zst}, where
## the design keeps each element; the state comes back with one more step, poisoned.
## @end deftypefn

function zst = zero_train_fold (zst, G, L, zo, ranks)
  M = zero_shard_map (L, zo.variant, zo.bucket_size);
  nl = numel (ranks);
  if (isempty (zst))
    key = struct ("variant", zo.variant, "world", L.world,
                  "shapes", [[L.params.rows]; [L.params.cols]].', "stage", L.stage,
                  "align_factor", L.align_factor, "order", L.order_mode, "form", zo.form,
                  "local_ranks", nl, "bucket_size", zo.bucket_size);
    zst = struct ("key", key, "step", 0, "momentum", [], "reference", [], "has_ref", false);
  endif
  if (zst.step == 0)
    zst.momentum = arrayfun (@(r) zeros (M.len(r+1), 1), ranks(:), "UniformOutput", false);
  endif
  for l = 1:nl
    gb = zero_shard_pack (M, ranks(l), G);
    zst.momentum{l} = opt_momentum_fold (zst.momentum{l}, gb, zo.beta, zo.form);
  endfor
  zst.step += 1;
endfunction
