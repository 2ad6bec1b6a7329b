## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{upd}, @var{mom}, @var{st}, @var{full}, @var{info}, @var{rmom}, @var{ref_full}] =} zero_device_step (@var{G}, @var{state}, @var{opts}, @var{shapes}, @var{W}, @var{lopts}, @var{comm}, @var{assemble}, @var{do_ref}, @var{device})
## @code{zero_muon_step}'s step on device arrays (@code{__muon_gpu__}'s, which holds
## them; @code{muon_zero_step_device}): the variant's and, with @var{do_ref}, the
## reference's on the same gradients @var{G} (an nl x P cell of double device arrays on
## @var{device}), their momenta and owned updates device arrays (columns; a rank holding
## none gets @code{zeros (0, 1)}); host momenta in @var{state} are uploaded (one holding
## NaN or Inf: @code{muonlab:badState}).  @var{full} and
## @var{ref_full} are the updates assembled on the host with @var{assemble} (every rank
## local), else [].  The outputs are those of @code{__muon_zero_step__}.
## @end deftypefn

function [upd, mom, st, full, info, rmom, ref_full] = ...
           zero_device_step (G, state, opts, shapes, W, lopts, comm, assemble, do_ref, device)
  ## the gateway's raw handles wait for wrap: arrays an error or Ctrl-C leaves unwrapped
  ## are freed by the cleanup
  mark = __muon_gpu__ ("mark");
  unwind_protect
    hg = cellfun (@(g) g.Handle, G, "UniformOutput", false);
    [hm, keep] = handles (state.momentum, device, "STATE.momentum");
    [upd, mom, st, info] = __muon_gpu__ ("zero_step", shapes, W, lopts, hg, hm, opts, comm);
    upd = wrap (upd, info.owned_len(info.ranks+1), device);
    mom = wrap (mom, info.momentum_len(info.ranks+1), device);
    [full, rmom, ref_full] = deal ([]);
    if (assemble)
      full = assemble_updates (upd, info, shapes);
    endif
    if (do_ref)
      opts.variant = "reference";
      ## the step's warning is the variant's (one call on the host): not twice
      warning ("off", "muonlab:nonFiniteResult", "local");
      [hm, keep] = handles (state.reference, device, "STATE.reference");
      [rupd, rmom, ~, rinfo] = __muon_gpu__ ("zero_step", shapes, W, lopts, hg, hm, opts, comm);
      rupd = wrap (rupd, rinfo.owned_len(rinfo.ranks+1), device);   # freed when dropped
      rmom = wrap (rmom, rinfo.momentum_len(rinfo.ranks+1), device);
      if (assemble)
        ref_full = assemble_updates (rupd, rinfo, shapes);
      endif
    endif
  unwind_protect_cleanup
    __muon_gpu__ ("drop", mark);
  end_unwind_protect
endfunction

## The momenta's handles: device arrays as they are, host vectors uploaded to the device
## (a loaded checkpoint; the gateway copies either), an empty one [].  A host vector
## holding NaN or Inf (a hand-edited state: zero_save_state refuses to save one) cannot be
## uploaded: muonlab:badState naming it as WHAT{k}, zero_save_state's words.
function [h, keep] = handles (m, device, what)
  h = m;
  keep = {};                     # the uploaded arrays: the caller holds them for the call
  for k = 1:numel (m)
    x = m{k};
    if (isa (x, "double") && ! isempty (x))
      if (! all (isfinite (x(:))))
        error ("muonlab:badState", "zero_muon_step: %s{%d} must not contain NaN or Inf.",
               what, k);
      endif
      x = muon_gpu (x, "Device", device, "Class", "double");
      keep{end+1} = x;
    endif
    h{k} = [];
    if (isa (x, "muon_gpuarray"))
      h{k} = x.Handle;
    endif
  endfor
endfunction

## The gateway's handles as device arrays, columns of len(k) elements (an empty one is a
## host zeros (0, 1), as the host step's).
function d = wrap (h, len, device)
  d = h;
  for k = 1:numel (h)
    d{k} = zeros (0, 1);
    if (! isempty (h{k}))
      d{k} = muon_gpuarray (h{k}, [len(k) 1], "double", device);
    endif
  endfor
endfunction

## The full updates (1 x P cell) from every rank's owned elements: rank r's update holds,
## parameter after parameter, the row-major elements owned(r+1,:,p) (0-based [start stop)).
function full = assemble_updates (upd, info, shapes)
  P = rows (shapes);
  full = cell (1, P);
  for p = 1:P
    full{p} = zeros (shapes(p,2), shapes(p,1));     # transposed: row-major in column order
  endfor
  for l = 1:numel (upd)
    r = info.ranks(l);
    u = [];
    if (! isempty (upd{l}))
      u = gather (upd{l});
    endif
    at = 0;
    for p = 1:P
      span = info.owned(r+1,:,p);
      n = span(2) - span(1);
      full{p}(span(1)+1:span(2)) = u(at+1:at+n);
      at += n;
    endfor
  endfor
  full = cellfun (@(f) f.', full, "UniformOutput", false);
endfunction
