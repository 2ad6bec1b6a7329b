## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} opt_scaler_update (@var{s}, @var{overflow})
## Advance the loss scaler @var{s} (@code{opt_loss_scaler}) after a step: on an
## @var{overflow} a dynamic scale backs off (never below its minimum) and counts it; after
## @code{growth_interval} clean steps in a row it grows.  A disabled scaler is returned as
## it is.
## @end deftypefn

function s = opt_scaler_update (s, overflow)
  if (! s.enabled)
    return;
  endif
  if (overflow)
    s.scale = max (s.scale * s.backoff, s.min_scale);
    s.good_steps = 0;
    s.overflows += 1;
  else
    s.good_steps += 1;
    if (s.good_steps >= s.growth_interval)
      s.scale *= s.growth;
      s.good_steps = 0;
    endif
  endif
endfunction
