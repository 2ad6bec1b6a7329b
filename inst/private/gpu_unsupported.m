## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{what} =} gpu_unsupported (@var{opts})
## What of the parsed @code{muon_update} options @var{opts} (presets expanded,
## @code{family_presets}) device arrays cannot run, as a phrase for an error, e.g.
## @qcode{"ALGORITHM 'normuon'"} or @qcode{"NORMSCALE 1.02 and EPSPLACEMENT 'max'"};
## @qcode{""} when they run all of it.  Device arrays run Muon itself (ALGORITHM
## @qcode{"muon"}) with the core's normalization (NORMSCALE 1, EPSPLACEMENT @qcode{"add"}):
## the device paths of @code{muon_update} (@code{gpu_update}) and the states kept on a device
## (@code{opt_device_algorithms}) refuse the rest with @code{muonlab:unsupported}.
## @end deftypefn

function what = gpu_unsupported (opts)
  w = {};
  if (! strcmp (opts.algorithm, "muon"))
    w{end+1} = sprintf ("ALGORITHM '%s'", opts.algorithm);
  endif
  if (opts.norm_scale != 1)
    w{end+1} = ["NORMSCALE ", double_text(opts.norm_scale){1}];
  endif
  if (! strcmp (opts.eps_placement, "add"))
    w{end+1} = sprintf ("EPSPLACEMENT '%s'", opts.eps_placement);
  endif
  what = strjoin (w, ", ");
  k = strfind (what, ", ");
  if (! isempty (k))                     # "A, B and C"
    what = [what(1:k(end)-1), " and ", what(k(end)+2:end)];
  endif
endfunction
