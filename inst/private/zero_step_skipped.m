## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{R} =} zero_step_skipped (@var{variant}, @var{W}, @var{P}, @var{shapes}, @var{comm}, @var{step}, @var{nl}, @var{why})
## zero_muon_step's result of a skipped step (@var{why} says why): no update anywhere
## (zeros), no collective counted, the step count as it was (the caller returns the state
## unchanged).  @var{nl} local ranks of @var{W}, @var{P} parameters of @var{shapes}.
## @end deftypefn

function R = zero_step_skipped (variant, W, P, shapes, comm, step, nl, why)
  R.variant = variant;
  R.world = W;
  R.comm = comm;
  if (isstruct (comm))
    R.comm = comm.kind;
  endif
  R.counts = "measured";
  R.step = step;
  R.plans_built = NaN;
  R.skipped = true;
  R.skip_reason = why;
  R.updates = arrayfun (@(p) zeros (shapes(p,:)), 1:P, "UniformOutput", false);
  R.reference = R.updates;
  R.rel_err = zeros (1, P);
  R.owners = cell (1, P);
  R.straddles = false (1, P);
  r0 = 0;
  if (isstruct (comm))
    r0 = comm.rank;
  endif
  z = zeros (1, numel (core_lists ().lists.coll));
  R.ranks = struct ("rank", num2cell (r0 + (0:nl-1)), "ns_calls", 0, "momentum_elements", 0,
                    "pad_elements", 0, "bytes_sent", 0, "bytes_recv", 0, "calls", z,
                    "sent", z, "recv", z, "update", {[]}, "owned", zeros (P, 2));
  R = zero_step_result (R);
endfunction
