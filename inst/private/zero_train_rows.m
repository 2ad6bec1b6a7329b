## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{S} =} zero_train_rows (@var{ranks}, @var{state}, @var{upd}, @var{owned}, @var{Uref})
## The per-rank rows of a @code{zero_train_step} result: the window's counts, the owned
## update @var{upd} and its error against the reference @var{Uref} (optional).
## @end deftypefn

function S = zero_train_rows (ranks, state, upd, owned, Uref)
  nl = numel (ranks);
  S = struct ("rank", num2cell (ranks(:)), "ns_calls", num2cell (state.ns_calls),
              "bytes_sent", num2cell (state.bytes), "update", {[]}, "owned", {[]},
              "rel_err", NaN);
  for l = 1:min (nl, numel (upd))
    S(l).update = upd{l};
    S(l).owned = owned{l};
    if (nargin > 4 && ! isempty (Uref{1}))
      r = [];
      for p = 1:numel (Uref)
        Ut = Uref{p}.';
        r = [r; Ut(owned{l}(p,1)+1:owned{l}(p,2))(:)];
      endfor
      S(l).rel_err = norm (upd{l} - r) / (norm (r) + 1e-8);
    endif
  endfor
endfunction
