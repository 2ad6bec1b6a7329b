## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{M} =} zero_shard_map (@var{L}, @var{variant})
## Where each rank of @code{zero_muon_step}'s @var{variant} keeps the momentum of each matrix
## of the layout @var{L}: the map its momentum buffers follow, which the sharded checkpoints
## (@code{zero_save_state} / @code{zero_load_state}) record, and which the training loop
## (@code{zero_train_step}) uses to reach a rank's momentum.
##
## @var{M} has @code{world}, @code{len} (W x 1: the length of each rank's buffer) and
## @code{seg}, a W x 1 cell whose entry r+1 is a K x 5 matrix, one row per stretch of rank
## r's buffer: @code{[p, at, start, stop, rowmajor]}: the buffer's elements
## @code{at+1 : at+stop-start} hold elements @code{[start stop)} of matrix p (1-based), in
## row-major order when @code{rowmajor} is 1, column-major when 0.  Two designs:
## @itemize
## @item whole matrices (@qcode{"reference"}, @qcode{"zero12_allreduce"},
## @qcode{"zero2_reduce_scatter_buggy"}, @qcode{"zero2_multi_owner"},
## @qcode{"layerwise_lpt"}): each matrix the rank updates, column-major, back to back in
## parameter order (every matrix for the reference, the matrices it owns a piece of for the
## ZeRO-1/2 ones, its LPT matrices for Megatron's);
## @item the rank's partition (@qcode{"zero2_slice_only"}, @qcode{"moonlight_gather"}: of
## @var{L}; the two ZeRO-3 designs: of the stage-3 layout of @var{L}'s matrices in its
## order): its row-major pieces at their places in the partition, the padding zero.
## @end itemize
## The lengths are checked against @code{zero_cost}'s momentum per rank (the core's plan),
## so a map that drifted from the core is a @code{muonlab:internal} error, never a
## misplaced momentum.
## @end deftypefn

function M = zero_shard_map (L, variant)
  W = L.world;
  P = numel (L.params);
  shapes = [[L.params.rows]; [L.params.cols]].';
  M.world = W;
  M.len = zeros (W, 1);
  M.seg = cell (W, 1);
  switch (variant)
    case {"reference", "zero12_allreduce", "zero2_reduce_scatter_buggy", ...
          "zero2_multi_owner", "layerwise_lpt"}
      holds = false (W, P);
      if (strcmp (variant, "reference"))
        holds(:) = true;
      elseif (strcmp (variant, "layerwise_lpt"))
        C = zero_cost (L, [], "Design", "layerwise_lpt");
        holds(sub2ind ([W P], C.params.first_owner(:).' + 1, 1:P)) = true;
      else
        for p = 1:P
          holds(L.params(p).owners + 1, p) = true;
        endfor
      endif
      for r = 1:W
        ps = find (holds(r,:));
        n = shapes(ps,1) .* shapes(ps,2);
        at = cumsum ([0; n(:)]);
        z = zeros (numel (ps), 1);
        M.seg{r} = [ps(:), at(1:end-1), z, n(:), z];
        M.len(r) = sum (n);
      endfor
    otherwise
      part = L;
      if (any (strcmp (variant, {"zero3_round_robin", "zero3_round_robin_aliased_pads"}))
          && L.stage != 3)
        part = zero_layout (num2cell (shapes, 2), W, "Stage", 3, "Order", L.order_mode,
                            "AlignFactor", L.align_factor);
      endif
      for r = 1:W
        q = part.ranks(r).params;
        k = numel (q);
        s = zeros (k, 5);
        for i = 1:k
          s(i,:) = [q(i).param, q(i).part(1), q(i).local, 1];
        endfor
        M.seg{r} = s;
        M.len(r) = part.partition_size;
      endfor
  endswitch
  C = zero_cost (L, [], "Design", variant);
  if (! isequal (M.len, C.ranks.momentum(:)))
    error ("muonlab:internal", "zero_shard_map: the momentum map of '%s' disagrees with the plan.",
           variant);
  endif
endfunction
