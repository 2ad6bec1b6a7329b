## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{state}, @var{why}, @var{diverged}] =} zero_train_micro (@var{fname}, @var{state}, @var{L}, @var{x}, @var{zcall}, @var{zo}, @var{v}, @var{comm}, @var{ranks})
## @code{zero_train_step} with PerMicroBatchNS: this micro-batch's update (a
## @code{zero_muon_step}), summed into the window's; @var{why} is "" or the reason this
## micro-batch was skipped; @var{diverged} the step's @code{R.diverged} (1 x P, zeros when
## skipped).
## @end deftypefn

function [state, why, diverged] = zero_train_micro (fname, state, L, x, zcall, zo, v, comm,
                                                    ranks)
  why = "";
  diverged = zeros (1, numel (L.params));
  nl = numel (ranks);
  if (v.poison)
    why = comm_first_reason (comm, zero_train_overflow (x, ranks, true, state.zero));
    if (! isempty (why))
      G = zero_train_average (comm, x, state.key.shapes);
      state.zero = zero_train_fold (state.zero, G, L, zo, ranks);
      return;
    endif
  endif
  [Rz, zst] = zero_muon_step (L, x, state.zero, zcall{:});
  if (Rz.skipped)
    why = Rz.skip_reason;
    return;
  endif
  state.zero = struct (zst);
  state = zero_train_count (state, Rz);
  diverged = Rz.diverged;
  for l = 1:nl
    u = Rz.ranks(l).update;
    if (isempty (state.upd{l}))
      state.upd{l} = u;
    else
      state.upd{l} = state.upd{l} + u;
    endif
    state.owned{l} = Rz.ranks(l).owned;
  endfor
  for p = 1:numel (Rz.updates)
    if (isempty (Rz.updates{p}))
      continue;
    elseif (isempty (state.full{p}))
      state.full{p} = Rz.updates{p};
    else
      state.full{p} = state.full{p} + Rz.updates{p};
    endif
  endfor
endfunction
