## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{wd}, @var{first}] =} opt_muon_decay (@var{fname}, @var{n}, @var{opt})
## muon_step's decoupled decay of Muon parameter @var{n}: @var{wd} (the unadjusted lr:
## p *= 1 - lr wd) and whether it comes before the update (@qcode{"DecayFirst"}, every
## reference's order) or after it; Scion forces wd = 1 (Emerging-Optimizers' scion.py:
## p *= 1 - lr).
## @end deftypefn

function [wd, first] = opt_muon_decay (fname, n, opt)
  wd = opt.muon_wd;
  first = true;
  args = opt.update_args.(n);
  if (isempty (args))
    return;
  endif
  ## the options as muon_update reads them (a preset expanded, empty values, the last
  ## mention of each name winning)
  o = parse_options (fname, "muon_update", family_presets ("expand", fname, args));
  wd = merge (strcmp (o.algorithm, "scion"), 1, opt.muon_wd);
  first = o.decay_first;
endfunction
