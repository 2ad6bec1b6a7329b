## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{p} =} opt_fused_add (@var{q}, @var{alpha}, @var{O})
## torch's @code{q.add_ (O, alpha=alpha)} on the CPU for single or double @var{q} and @var{O}
## of one class: one fused multiply-add, @code{fma (alpha, O, q)} rounded once into the
## class, @var{alpha} (double) first rounded to it (torch's opmath; the core's
## @code{muon_fma_array}).  Rounding @code{alpha O} and then the sum differs from it where
## the sum falls near a midpoint (a few elements a step).  For @code{muon_step}'s
## @qcode{"MomentumArith"} @qcode{"torch"} apply.  Device arrays (@var{q} and @var{O}
## single or double device arrays of one size, class and device) take the device arrays'
## element-wise @qcode{"fma"} (@code{muon_darray_ew}), the same bits.
## @end deftypefn

function p = opt_fused_add (q, alpha, O)
  if (isa (q, "muon_gpuarray") || isa (O, "muon_gpuarray"))
    if (! (isa (q, "muon_gpuarray") && isa (O, "muon_gpuarray")
           && isequal (q.Size, O.Size) && strcmp (q.Storage, O.Storage)
           && strcmp (q.Device, O.Device)))
      error ("muonlab:badArg",
             "opt_fused_add: Q and O must be device arrays of one size, class and device.");
    endif
    mark = __muon_gpu__ ("mark");
    unwind_protect
      p = muon_gpuarray (__muon_gpu__ ("ew", "fma", O.Handle, q.Handle, double (alpha)),
                         q.Size, q.Storage, q.Device);
    unwind_protect_cleanup
      __muon_gpu__ ("drop", mark);       # an array a Ctrl-C left unwrapped
    end_unwind_protect
  else
    p = __muon_fma__ (alpha, O, q);
  endif
endfunction
