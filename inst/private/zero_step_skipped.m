## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{R} =} zero_step_skipped (@var{variant}, @var{owned}, @var{comm}, @var{ranks}, @var{shapes}, @var{step}, @var{why})
## zero_muon_step's result of a skipped step (@var{why} says why): no update anywhere
## (zeros), no collective counted, the step count as it was (the caller returns the state
## unchanged).  The layout facts are those of a step that ran (@code{zero_step_report}'s
## rules), read off the plan and the communicator without running anything: @var{owned},
## the W x 2 x P owned spans of the variant's plan (@code{__muon_zero_step__ ("owned",
## @dots{})}, the gateway's @code{info.owned}), give @code{owners}, @code{straddles} and each
## local rank's @code{owned} ranges, whose @code{update} is zeros of their length;
## @var{comm} (@qcode{"sim"} or a handle from @code{muon_comm}) gives @code{comm}, its
## kind, and @code{counts}, @qcode{"measured"} for the ranks of this process (sim, self),
## else @qcode{"modelled"} (the gateway's rule, @code{muon_comm_counts_measured});
## @var{ranks} are the local ranks (@code{zero_local_ranks}).  The parameters' @var{shapes}
## (P x 2).  @code{diverged} is zeros (nothing ran to diverge).
## @end deftypefn

function R = zero_step_skipped (variant, owned, comm, ranks, shapes, step, why)
  P = rows (shapes);
  W = size (owned, 1);
  owned = reshape (owned, W, 2, P);           # W x 2 x P, 0-based [start stop)
  kind = "sim";
  if (isstruct (comm))
    kind = comm.kind;
  endif
  R.variant = variant;
  R.world = W;
  R.comm = kind;
  R.counts = merge (any (strcmp (kind, {"sim", "self"})), "measured", "modelled");
  R.step = step;
  R.plans_built = NaN;
  R.skipped = true;
  R.skip_reason = why;
  R.updates = arrayfun (@(p) zeros (shapes(p,:)), 1:P, "UniformOutput", false);
  R.reference = R.updates;
  R.rel_err = zeros (1, P);
  R.owners = cell (1, P);
  for p = 1:P
    R.owners{p} = find (owned(:,2,p) > owned(:,1,p)).' - 1;
  endfor
  R.straddles = cellfun (@numel, R.owners) > 1;
  R.diverged = zeros (1, P);
  z = zeros (1, numel (core_lists ().lists.coll));
  R.ranks = struct ("rank", num2cell (ranks(:)), "ns_calls", 0, "momentum_elements", 0,
                    "pad_elements", 0, "bytes_sent", 0, "bytes_recv", 0, "calls", z,
                    "sent", z, "recv", z, "update", {[]}, "owned", {[]});
  for l = 1:numel (ranks)
    o = reshape (owned(ranks(l)+1,:,:), 2, []).';   # P x 2
    R.ranks(l).owned = o;
    R.ranks(l).update = zeros (sum (o(:,2) - o(:,1)), 1);
  endfor
  R = zero_step_result (R);
endfunction
