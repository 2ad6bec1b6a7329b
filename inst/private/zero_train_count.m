## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{state} =} zero_train_count (@var{state}, @var{Rz})
## The Newton-Schulz calls and bytes of the @code{zero_muon_step} result @var{Rz}, added to
## @code{zero_train_step}'s window counts in @var{state}.
## @end deftypefn

function state = zero_train_count (state, Rz)
  state.ns_calls += [Rz.ranks.ns_calls].';
  state.bytes += [Rz.ranks.bytes_sent].';
endfunction
