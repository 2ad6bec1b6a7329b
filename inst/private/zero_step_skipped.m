## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{R} =} zero_step_skipped (@var{variant}, @var{info}, @var{P}, @var{shapes}, @var{step}, @var{why})
## zero_muon_step's result of a skipped step (@var{why} says why): no update anywhere
## (zeros), no collective counted, the step count as it was (the caller returns the state
## unchanged).  The layout facts are those of a step that ran, from the gateway's
## @var{info} of the same layout, variant and communicator (@code{zero_step_report}'s
## rules): @code{comm}, @code{counts}, @code{owners}, @code{straddles} and each local
## rank's @code{rank} and @code{owned} ranges, whose @code{update} is zeros of their
## length.  @var{P} parameters of @var{shapes}.
## @end deftypefn

function R = zero_step_skipped (variant, info, P, shapes, step, why)
  W = size (info.owned, 1);
  R.variant = variant;
  R.world = W;
  R.comm = info.comm;
  R.counts = merge (info.counts_measured != 0, "measured", "modelled");
  R.step = step;
  R.plans_built = NaN;
  R.skipped = true;
  R.skip_reason = why;
  R.updates = arrayfun (@(p) zeros (shapes(p,:)), 1:P, "UniformOutput", false);
  R.reference = R.updates;
  R.rel_err = zeros (1, P);
  owned = reshape (info.owned, W, 2, P);      # W x 2 x P, 0-based [start stop)
  R.owners = cell (1, P);
  for p = 1:P
    R.owners{p} = find (owned(:,2,p) > owned(:,1,p)).' - 1;
  endfor
  R.straddles = cellfun (@numel, R.owners) > 1;
  z = zeros (1, numel (core_lists ().lists.coll));
  nl = numel (info.ranks);
  R.ranks = struct ("rank", num2cell (info.ranks(:)), "ns_calls", 0, "momentum_elements", 0,
                    "pad_elements", 0, "bytes_sent", 0, "bytes_recv", 0, "calls", z,
                    "sent", z, "recv", z, "update", {[]}, "owned", {[]});
  for l = 1:nl
    o = reshape (owned(info.ranks(l)+1,:,:), 2, []).';   # P x 2
    R.ranks(l).owned = o;
    R.ranks(l).update = zeros (sum (o(:,2) - o(:,1)), 1);
  endfor
  R = zero_step_result (R);
endfunction
