## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} zero_check_momentum (@var{fname}, @var{what}, @var{m}, @var{step}, @var{nl}, @var{device})
## zero_muon_step's check of a state's momentum @var{m} (named @var{what} in the errors,
## muonlab:badState): [] before the first step (@var{step} 0); after it, an @var{nl} x 1 cell
## of momentum vectors (one per local rank), real double columns on the host, or double
## device arrays on the gradients' @var{device} ("" for host gradients, whose state must
## hold no device array).
## @end deftypefn

function zero_check_momentum (fname, what, m, step, nl, device)
  if (step == 0)
    if (! (isa (m, "double") && isequal (size (m), [0 0])))
      error ("muonlab:badState", "%s: %s must be [] in a state before the first step.",
             fname, what);
    endif
  elseif (! isempty (device))
    if (! (iscell (m) && isequal (size (m), [nl 1])
           && all (cellfun (@(x) is_buffer (x) || is_device_buffer (x, device), m))))
      error ("muonlab:badState",
             "%s: %s must be a %d x 1 cell of momentum vectors, on the host or on the gradients' device.",
             fname, what, nl);
    endif
  elseif (iscell (m) && isequal (size (m), [nl 1])
          && any (cellfun (@(x) isa (x, "muon_gpuarray"), m)))
    error ("muonlab:badState",
           "%s: %s holds device arrays: give RANK_GRADS on their device too, or gather the state's arrays first.",
           fname, what);
  elseif (! (iscell (m) && isequal (size (m), [nl 1]) && all (cellfun (@is_buffer, m))))
    error ("muonlab:badState",
           "%s: %s must be a %d x 1 cell of momentum vectors (one per local rank).", fname,
           what, nl);
  endif
endfunction

function tf = is_buffer (x)
  tf = isa (x, "double") && isreal (x) && ! issparse (x) && iscolumn (x);
endfunction

## A momentum vector on that device.
function tf = is_device_buffer (x, device)
  tf = (isa (x, "muon_gpuarray") && strcmp (x.Device, device) && strcmp (x.Storage, "double")
        && x.Size(2) == 1);
endfunction
