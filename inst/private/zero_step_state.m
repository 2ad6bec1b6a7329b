## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{state} =} zero_step_state (@var{fname}, @var{state}, @var{key}, @var{do_ref}, @var{device}, @var{ranks}, @var{shapes}, @var{W}, @var{lopts}, @var{plan})
## @code{zero_muon_step}'s state before a step: a new one for @var{state} [] (step 0, no
## momenta yet), or @var{state} checked against this call: its @var{key} (the layout,
## variant, momentum form and local ranks; a difference is named), its step count, its
## momenta (one buffer per local rank, of the gradients' @var{device}) and, with
## @var{do_ref}, its reference momenta.  Under MPI / NCCL (fewer local ranks than @var{W})
## the buffers' lengths too, against the plan (@var{plan} or the variant's), here: the
## gateway's own check comes after the ranks' agreement, where a rank that failed it would
## leave the others waiting in the step's collectives.
## @end deftypefn

function state = zero_step_state (fname, state, key, do_ref, device, ranks, shapes, W, lopts,
                                  plan)
  if (isa (state, "double") && isequal (size (state), [0 0]))
    state = struct ("key", key, "step", 0, "momentum", [], "reference", [], "has_ref", true);
  elseif (! (isstruct (state) && isscalar (state)
             && all (isfield (state, {"key", "step", "momentum", "reference", "has_ref"}))))
    error ("muonlab:badState", "%s: STATE must be [] or the state of a previous call.", fname);
  elseif (! isequal (state.key, key))
    error ("muonlab:badState",
           "%s: STATE belongs to another layout, variant, momentum form or communicator: %s.",
           fname, key_diff (state.key, key));
  endif
  ## the momenta passed back: [] before the first step only (the gateway reads any empty
  ## value as zeros, so {} would silently restart), then one buffer per local rank
  step = state.step;
  if (! (isa (step, "double") && isscalar (step) && isreal (step) && isfinite (step)
         && step >= 0 && step == fix (step)))
    error ("muonlab:badState", "%s: STATE.step must be a non-negative integer.", fname);
  endif
  if (! (islogical (state.has_ref) && isscalar (state.has_ref)))
    error ("muonlab:badState", "%s: STATE.has_ref must be true or false.", fname);
  endif
  nl = key.local_ranks;
  zero_check_momentum (fname, "STATE.momentum", state.momentum, step, nl, device);
  if (do_ref && state.has_ref)
    zero_check_momentum (fname, "STATE.reference", state.reference, step, nl, device);
  endif
  if (do_ref && ! state.has_ref)
    error ("muonlab:badArg",
           "%s: STATE has no reference momentum (a step ran with 'Reference', false).", fname);
  endif
  if (step > 0 && nl < W)
    zero_check_lengths (fname, "STATE.momentum", state.momentum, ranks, shapes, W, lopts,
                        key.variant, plan, key.bucket_size);
    if (do_ref && state.has_ref)
      zero_check_lengths (fname, "STATE.reference", state.reference, ranks, shapes, W,
                          lopts, "reference", plan, []);
    endif
  endif
endfunction
