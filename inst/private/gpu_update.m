## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{U}, @var{state}] =} gpu_update (@var{fname}, @var{G}, @var{state}, @var{args}, @var{strict})
## @code{run_update} where the gradient or the momentum is a device array: one Muon update
## on that device.  A host @var{G} is copied to the momentum's device (in its own class);
## @var{U} and the new @code{state.momentum} are device arrays there (a new momentum array:
## the one in @var{state} is left as it was).  Same options (a @qcode{"Preset"} expanded as
## on the host) and errors as @code{muon_update}; 4-D convolution weights, and what
## @code{gpu_unsupported} names (another ALGORITHM, NORMSCALE or EPSPLACEMENT, whether
## given or set by a preset), need host arrays: @code{muonlab:unsupported}.  @var{strict}:
## as in @code{run_update} (@code{check_unread}).
## @end deftypefn

function [U, state] = gpu_update (fname, G, state, args, strict)
  fresh = isa (state, "double") && ndims (state) == 2 && ! any (size (state));   # [] only
  if (! fresh && ! (isstruct (state) && isscalar (state)
                    && all (isfield (state, {"momentum", "step", "form"}))))
    error ("muonlab:badState",
           "%s: STATE must be [] or a struct with fields momentum, step and form.", fname);
  endif
  host = ! isa (G, "muon_gpuarray");           # a host gradient joins its momentum
  if (host)
    if (ndims (G) > 3)
      error ("muonlab:badShape", "%s: a 4-D G needs a host momentum.", fname);
    endif
    check_matrix (fname, "G", G);              # finite here: the upload would name muon_gpu
    storage = class (G);
  else
    check_pages (fname, "G", G.Size);           # check_matrix's rule
    storage = G.Storage;
  endif
  given = args;
  args = family_presets ("expand", fname, args);     # "Preset", NAME: as run_update has it
  opts = parse_options (fname, "muon_update", args, "precision", storage);
  if (! isempty (args))
    unsafe_schedule (fname, opts);
  endif
  if (host)                    # the device array that decides where it runs: the momentum
    gpu_check_device (fname, "STATE.momentum", state.momentum, args, opts.device);
    G = muon_gpu (G, "Device", state.momentum.Device, "Class", class (G));
  else
    gpu_check_device (fname, "G", G, args, opts.device);
  endif
  what = gpu_unsupported (opts);
  if (! isempty (what))
    error ("muonlab:unsupported",
           "%s: device arrays run Muon (ALGORITHM 'muon', NORMSCALE 1, EPSPLACEMENT 'add'); gather them for %s.",
           fname, what);
  endif
  if (strict)
    check_unread (fname, given, opts.algorithm);
  endif
  E = opts.experts;
  if (E > 1 && numel (G.Size) != 2)
    error ("muonlab:badShape", "%s: EXPERTS needs a 2-D fused (E*M) x N weight G.", fname);
  endif
  if (mod (G.Size(1), E) != 0)
    error ("muonlab:badShape", "%s: EXPERTS must divide the number of rows of G.", fname);
  endif
  opts.split_rows = split_rows_arg (fname, opts.split_rows, G.Size(1) / E);
  M = [];
  step = 0;
  if (! fresh)
    M = state.momentum;
    if (! isa (M, "muon_gpuarray"))
      error ("muonlab:badState",
             "%s: STATE.momentum must be a device array on %s, like G.", fname, G.Device);
    endif
    if (! isequal (M.Size, G.Size))
      error ("muonlab:badState", "%s: STATE.momentum must match the size of G.", fname);
    endif
    step = state_step (fname, state, opts.form);
    M = M.Handle;
  endif
  opts.fname = fname;
  mclass = G.Storage;
  if (! fresh)
    mclass = state.momentum.Storage;
  endif
  mark = __muon_gpu__ ("mark");
  unwind_protect
    [hu, hm] = __muon_gpu__ ("update", G.Handle, M, opts, E);
    U = muon_gpuarray (hu, G.Size, G.Storage, G.Device);   # both owned at once: an error
    M = muon_gpuarray (hm, G.Size, mclass, G.Device);      # in the check below frees them
  unwind_protect_cleanup
    __muon_gpu__ ("drop", mark);         # arrays an error or Ctrl-C left unwrapped
  end_unwind_protect
  diverged_pages (fname, U, opts);
  state = struct ("momentum", M, "step", double (step) + 1, "form", opts.form);
endfunction

## diverged_blocks on the device, from each page's sum of squares: a page's blocks (its
## experts' row blocks of split_rows) with singular values at most twice the schedule's
## top times their scale give a page sum of squares of at most
## 4 top^2 sum_k min (m_k, n) scale_k^2; a page above that holds a diverged block, whose
## largest singular value is at least sqrt (sum of squares / sum_k min (m_k, n)).
function diverged_pages (fname, U, opts)
  n = U.Size(2);
  heights = opts.split_rows;
  if (isempty (heights))
    heights = U.Size(1) / opts.experts;
  endif
  ranks = min (heights, n);
  scales = arrayfun (@(b) family_scale (opts, b, n), heights);
  top = schedule_top (opts);
  limit = 4 * top^2 * opts.experts * sum (ranks .* scales .^ 2);
  [ss, finite] = __muon_gpu__ ("page_sumsq", U.Handle, fname);
  hit = finite & ss > limit;
  if (any (hit))
    worst = sqrt (max (ss(hit)) / (opts.experts * sum (ranks)));
    warn_diverged (fname, sum (hit), "page(s) of the update have a block with", worst,
                   "this schedule and scale give", top * max (scales));
  endif
endfunction
