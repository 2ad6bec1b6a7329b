## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{opt} =} opt_settings_double (@var{opt})
## The settings of muon_step's state @var{opt} a user may edit between steps, in double: a
## single learning rate (say) would make Octave compute the step of double parameters in
## single, and the moments it stores single, which the next step refuses.
## @end deftypefn

function opt = opt_settings_double (opt)
  for f = {"muon_lr", "adam_lr", "muon_wd", "adam_wd", "adam_eps", "adam_betas", "clip_norm"}
    opt.(f{1}) = double (opt.(f{1}));
  endfor
  for f = {"scale", "min_scale", "backoff", "growth", "growth_interval", "hysteresis"}
    opt.scaler.(f{1}) = double (opt.scaler.(f{1}));
  endfor
endfunction
