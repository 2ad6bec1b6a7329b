## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{host_ms}, @var{octave_ms}] =} bench_gpu_host (@var{G}, @var{device}, @var{args})
## Wall times of a host array's calls, after a warm-up, for @code{bench_gpu}:
## @var{host_ms}, the median of 2 host-array @code{muon_ns (G, "Device", device, args@{:@})}
## calls (NaN when @var{args} is not given), and @var{octave_ms}, the trip of @var{G}
## through Octave's arrays, @code{gather (muon_gpu (G))}.  bench_gpu times them in its own
## process and, for bf16, again in a child whose malloc keeps freed memory
## (@code{gpu_kept_heap}).
## @end deftypefn

function [host_ms, octave_ms] = bench_gpu_host (G, device, args)
  host_ms = NaN;
  if (nargin > 2)
    a = [{"Device", device}, args];
    muon_ns (G, a{:});
    t = zeros (2, 1);
    for r = 1:2
      t0 = tic ();
      muon_ns (G, a{:});
      t(r) = toc (t0) * 1e3;
    endfor
    host_ms = median (t);
  endif
  for r = 1:2                                         # the first one warms up
    t0 = tic ();
    X = gather (muon_gpu (G, "Device", device));
    octave_ms = toc (t0) * 1e3;
  endfor
endfunction

%!test
%! ## on the stand-in device: both times measured, positive
%! [h, o] = bench_gpu_host (single (magic (8)), "cpu", {"Precision", "bf16"});
%! assert (h > 0 && o > 0);
%! [h, o] = bench_gpu_host (single (magic (8)), "cpu");
%! assert (isnan (h) && o > 0);
