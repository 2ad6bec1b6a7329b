## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} opt_device_algorithms (@var{fname}, @var{opt})
## A @code{muonlab:unsupported} error naming @var{fname} unless every Muon parameter of the
## optimizer state @var{opt} runs ALGORITHM @qcode{"muon"}: device arrays run Muon itself
## (@code{gpu_update}), so a state kept on a device (@code{muon_optimizer}'s
## @qcode{"Resident"}, @code{muon_load_state}'s @qcode{"Device"}) is refused when it is
## made, not at its first step.
## @end deftypefn

function opt_device_algorithms (fname, opt)
  for n = fieldnames (opt.update_args).'
    alg = parse_options (fname, "muon_update", opt.update_args.(n{1})).algorithm;
    if (! strcmp (alg, "muon"))
      error ("muonlab:unsupported",
             "%s: a state on the device runs ALGORITHM 'muon' only; parameter '%s' runs '%s'.",
             fname, n{1}, alg);
    endif
  endfor
endfunction
