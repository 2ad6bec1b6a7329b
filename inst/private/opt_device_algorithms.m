## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} opt_device_algorithms (@var{fname}, @var{opt})
## A @code{muonlab:unsupported} error naming @var{fname} and the parameter unless every
## Muon parameter of the optimizer state @var{opt} runs what device arrays run: Muon
## itself (ALGORITHM @qcode{"muon"}) with NORMSCALE 1 and EPSPLACEMENT @qcode{"add"}
## (@code{gpu_unsupported}), whether its options give them or its @qcode{"Preset"} sets
## them (expanded as its steps expand it, @code{family_presets}).  So a state kept on a
## device (@code{muon_optimizer}'s @qcode{"Resident"}, @code{muon_load_state}'s
## @qcode{"Device"}) is refused when it is made, not at its first step.
## @end deftypefn

function opt_device_algorithms (fname, opt)
  for n = fieldnames (opt.update_args).'
    args = family_presets ("expand", fname, opt.update_args.(n{1}));
    what = gpu_unsupported (parse_options (fname, "muon_update", args));
    if (! isempty (what))
      error ("muonlab:unsupported",
             "%s: a state on the device runs Muon (ALGORITHM 'muon', NORMSCALE 1, EPSPLACEMENT 'add'); parameter '%s' runs %s.",
             fname, n{1}, what);
    endif
  endfor
endfunction
