## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} opt_scaler_update (@var{s}, @var{overflow})
## Advance the loss scaler @var{s} (@code{opt_loss_scaler}) after a step.  On an
## @var{overflow} (a skipped step) it counts it and zeroes @code{good_steps}; then, when
## @code{hysteresis_left} is 1, the scale backs off (never below its minimum), else
## @code{hysteresis_left} drops by one and the scale stays (the counter is not refilled
## by a back-off).  On a clean step @code{good_steps} grows by one (with
## @code{consecutive}, @code{hysteresis_left} refills to @code{hysteresis}) and the scale
## grows (refilling @code{hysteresis_left}) when, for @code{growth_rule}
## @qcode{"interval"}, @code{good_steps} reaches @code{growth_interval} (then zeroed), or,
## for @qcode{"deepspeed"}, @code{good_steps} (the clean steps since the last overflow or
## the start, not zeroed by a growth) less one is a positive multiple of it: DeepSpeed's
## DynamicLossScaler.update_scale (stable_interval = cur_iter - last_overflow_iter - 1).
## A disabled scaler is returned as it is.
## @end deftypefn

function s = opt_scaler_update (s, overflow)
  if (! s.enabled)
    return;
  endif
  if (overflow)
    if (s.hysteresis_left <= 1)
      s.scale = max (s.scale * s.backoff, s.min_scale);
    else
      s.hysteresis_left -= 1;
    endif
    s.good_steps = 0;
    s.overflows += 1;
  else
    if (s.consecutive)
      s.hysteresis_left = s.hysteresis;
    endif
    s.good_steps += 1;
    if (strcmp (s.growth_rule, "deepspeed"))
      grow = s.good_steps > 1 && mod (s.good_steps - 1, s.growth_interval) == 0;
    else
      grow = s.good_steps >= s.growth_interval;
      if (grow)
        s.good_steps = 0;
      endif
    endif
    if (grow)
      s.scale *= s.growth;
      s.hysteresis_left = s.hysteresis;
    endif
  endif
endfunction
