## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} opt_scaler_upgrade (@var{s})
## The loss scaler @var{s} of a checkpoint (@code{opt_loss_scaler}'s struct, or its
## settings alone as a @code{zero_train_step} key holds them) with the fields that muonlab
## added later filled in where it lacks them, as the scaler it was: @code{hysteresis} 1,
## @code{consecutive} false and @code{growth_rule} @qcode{"interval"}, and, when @var{s}
## has a @code{scale} (a running scaler), @code{hysteresis_left} equal to its
## @code{hysteresis}.  Anything but a scalar struct is returned as it is, for the
## checks of the state to name.
## @end deftypefn

function s = opt_scaler_upgrade (s)
  if (! (isstruct (s) && isscalar (s)))
    return;
  endif
  if (! isfield (s, "hysteresis"))
    s.hysteresis = 1;
  endif
  if (! isfield (s, "consecutive"))
    s.consecutive = false;
  endif
  if (! isfield (s, "growth_rule"))
    s.growth_rule = "interval";
  endif
  if (isfield (s, "scale") && ! isfield (s, "hysteresis_left"))
    s.hysteresis_left = s.hysteresis;
  endif
endfunction
