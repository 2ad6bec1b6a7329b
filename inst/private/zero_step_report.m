## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{R} =} zero_step_report (@var{variant}, @var{info}, @var{st}, @var{upd}, @var{full}, @var{ref_full}, @var{W}, @var{P}, @var{step}, @var{diverged})
## zero_muon_step's result of a step that ran: the gateway's (or the device step's) info,
## per-rank counters @var{st} and updates @var{upd}, the assembled updates @var{full} and the
## reference's @var{ref_full} (either may be empty) turned into a zero_step_result, with the
## relative error of each parameter against the reference, its owners and whether it
## straddles ranks; @var{diverged} (1 x P) is @code{zero_step_diverged}'s count.
## @end deftypefn

function R = zero_step_report (variant, info, st, upd, full, ref_full, W, P, step, diverged)
  R.variant = variant;
  R.world = W;
  R.comm = info.comm;
  R.counts = merge (info.counts_measured != 0, "measured", "modelled");
  R.step = step;
  R.plans_built = info.plans_built;
  R.skipped = false;
  R.skip_reason = "";
  R.updates = cell (1, P);
  if (! isempty (full))
    R.updates = full;
  endif
  R.reference = cell (1, P);
  R.rel_err = NaN (1, P);
  if (! isempty (ref_full))
    R.reference = ref_full;
    if (! isempty (full))
      for p = 1:P
        d = norm (full{p} - ref_full{p}, "fro");
        R.rel_err(p) = d / (norm (ref_full{p}, "fro") + 1e-8);
      endfor
    endif
  endif
  owned = info.owned;                         # W x 2 x P, 0-based [start stop)
  R.owners = cell (1, P);
  for p = 1:P
    R.owners{p} = find (owned(:,2,p) > owned(:,1,p)).' - 1;
  endfor
  R.straddles = cellfun (@numel, R.owners) > 1;
  R.diverged = diverged;
  names = {"rank", "ns_calls", "momentum_elements", "pad_elements", "bytes_sent", ...
           "bytes_recv", "calls", "sent", "recv", "update", "owned"};
  R.ranks = cell2struct (cell (numel (names), numel (st)), names, 1);
  for l = 1:numel (st)
    r = st(l).rank;
    R.ranks(l).rank = r;
    R.ranks(l).ns_calls = st(l).ns_calls;
    R.ranks(l).momentum_elements = st(l).momentum_elements;
    R.ranks(l).pad_elements = st(l).pad_elements;
    R.ranks(l).bytes_sent = sum (st(l).bytes_sent);
    R.ranks(l).bytes_recv = sum (st(l).bytes_recv);
    R.ranks(l).calls = st(l).calls;
    R.ranks(l).sent = st(l).bytes_sent;
    R.ranks(l).recv = st(l).bytes_recv;
    R.ranks(l).update = upd{l};
    R.ranks(l).owned = reshape (owned(r+1,:,:), 2, []).';   # P x 2 (squeeze: 2 x 1 at P 1)
  endfor
  R = zero_step_result (R);
endfunction
