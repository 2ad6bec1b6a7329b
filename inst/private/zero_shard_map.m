## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{M} =} zero_shard_map (@var{L}, @var{variant})
## @deftypefnx {} {@var{M} =} zero_shard_map (@var{L}, @var{variant}, @var{bucket})
## Where each rank of @code{zero_muon_step}'s @var{variant} keeps the momentum of each matrix
## of the layout @var{L}: the map its momentum buffers follow, which the sharded checkpoints
## (@code{zero_save_state} / @code{zero_load_state}) record, and which the training loop
## (@code{zero_train_step}) uses to reach a rank's momentum.
##
## The map is the core's: the plan of the design on @var{L} (muon_zero_plan_momentum_map
## through @code{__muon_zero_step__}; a layout object's own plan, the one its steps use,
## else one made for the call), laid out as the design's row of the variant table
## (core/zero/zero_variant.h) says: whole matrices of the matrices a rank updates
## (column-major, back to back in parameter order), the rank's pieces of its partition
## (of @var{L}, or of the stage-3 layout of its matrices; row-major, at their places in the
## partition, the padding zero), or its row shards (row-major, beside its updates).
## @var{bucket}: the layer-wise designs' bucket size (@qcode{"BucketSize"}, whose owners it
## changes; [] or absent for one bucket).
##
## @var{M} has @code{world}, @code{len} (W x 1: the length of each rank's buffer) and
## @code{seg}, a W x 1 cell whose entry r+1 is a K x 5 matrix, one row per stretch of rank
## r's buffer: @code{[p, at, start, stop, rowmajor]}: the buffer's elements
## @code{at+1 : at+stop-start} hold elements @code{[start stop)} of matrix p (1-based), in
## row-major order when @code{rowmajor} is 1, column-major when 0.
## @end deftypefn

function M = zero_shard_map (L, variant, bucket = [])
  shapes = [[L.params.rows]; [L.params.cols]].';
  opts = struct ("stage", L.stage, "align_factor", L.align_factor, "order", L.order_mode);
  plan = [];
  [~, live] = layout_plain (L);         # (an object made before `clear functions` has no
  if (live)                             # working methods)
    plan = plan_handle (L, shapes, L.world, opts);
  endif
  [seg, len] = __muon_zero_step__ ("map", shapes, L.world, opts, variant, plan,
                                   zero_bucket (variant, bucket, L));
  M = struct ("world", L.world, "len", len, "seg", {seg});
endfunction
