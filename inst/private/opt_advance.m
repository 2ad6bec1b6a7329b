## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{U}, @var{st}, @var{bad}, @var{called}] =} opt_advance (@var{fname}, @var{n}, @var{st}, @var{g}, @var{args}, @var{poison})
## muon_step's one Muon momentum advance of parameter @var{n}.  A finite gradient and
## momentum go through muon_update (its body, run_update: errors read "FNAME: parameter
## 'N': ...").
## Otherwise, on the poisoned path (DeepSpeed #8432), the gradient is folded into the
## momentum as the peers' lerp does (M = beta M + (1-beta) g, or beta M + g for the SGD
## form), which makes it non-finite for good; on the correct path nothing is touched.
## @end deftypefn

function [U, st, bad, called] = opt_advance (fname, n, st, g, args, poison)
  who = sprintf ("%s: parameter '%s'", fname, n);
  bad = opt_overflows (g) || (! isempty (st) && ! all_finite (st.momentum));
  called = 0;
  if (isa (g, "muon_gpuarray"))
    U = g * NaN;
  else
    U = NaN (size (g), class (g));
  endif
  if (! bad)
    [U, st] = run_update (who, g, st, args);
    called = 1;
    bad = ! all_finite (U);
  elseif (poison)
    o = parse_options (who, "muon_update", family_presets ("expand", who, args));
    beta = o.beta;                      # as muon_update reads them: a double, [] the default
    form = o.form;
    if (isempty (st))
      if (isa (g, "muon_gpuarray"))
        z = muon_gpu ("zeros", size (g), "Device", g.Device, "Class", g.Storage);
      else
        z = zeros (size (g), class (g));
      endif
      [~, st] = run_update (who, z, [], args);
    elseif (isfield (st, "step"))
      st.step += 1;
    endif
    st.momentum = opt_momentum_fold (st.momentum, g, beta, form);
  endif
endfunction

function tf = all_finite (x)
  [~, tf] = opt_sumsq (x);
endfunction
