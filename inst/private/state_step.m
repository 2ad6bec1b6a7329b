## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{step} =} state_step (@var{fname}, @var{state}, @var{form})
## The step count of a @code{muon_update} state, checked with its momentum form against
## @var{form}, the @qcode{"MomentumForm"} in use (@code{muonlab:badState} else); the
## host and the device paths of the update share it.
## @end deftypefn

function step = state_step (fname, state, form)
  step = state.step;
  if (! (isscalar (step) && isnumeric (step) && isreal (step) && isfinite (step)
         && step >= 0 && step == fix (step)))
    error ("muonlab:badState", "%s: STATE.step must be a non-negative integer.", fname);
  endif
  if (! (ischar (state.form) && strcmpi (state.form, form)))
    error ("muonlab:badState", "%s: STATE.form must be '%s', the MOMENTUMFORM in use.",
           fname, form);
  endif
endfunction
