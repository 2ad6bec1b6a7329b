## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{top} =} schedule_top (@var{opts})
## The largest value the composed map of the schedule of @var{opts} (a parsed
## @code{muon_ns} option struct: @code{coeffs}, @code{steps}, @code{schedule_mode}) takes on
## [0, 1], where the normalization puts the singular values (Frobenius and AOL alike; a
## NormScale below 1 can leave them above 1, where a schedule may explode: that is a
## divergence too): max |p| on the audit grid (@code{ns_map}).  The answers for the last 8
## schedules are kept, so that a loop of calls, or one alternating between schedules, maps
## each grid once.
## @end deftypefn

function top = schedule_top (opts)
  persistent keys = {};
  persistent tops = [];
  key = {opts.coeffs, opts.steps, opts.schedule_mode};
  for k = 1:numel (keys)
    c = keys{k}{1};
    if (opts.steps == keys{k}{2} && strcmp (opts.schedule_mode, keys{k}{3})
        && size_equal (opts.coeffs, c) && ! any (opts.coeffs(:) != c(:)))
      top = tops(k);
      return;
    endif
  endfor
  C = expand_schedule (opts.coeffs, opts.steps, opts.schedule_mode);
  top = max (abs (ns_map (C)));
  keys = [{key}, keys(1:min (end, 7))];
  tops = [top, tops(1:min (end, 7))];
endfunction
