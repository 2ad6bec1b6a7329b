## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} gpu_profile_workload (@var{shape}, @var{reps}, @var{device}, @var{opts})
## What @code{gpu_profile} runs under Nsight Systems for one case: @code{muon_ns} on a
## device array of @var{shape} (single N(0,1), made on the device) with the options in the
## cell @var{opts}, once to warm up and then @var{reps} times.  Prints the line
## "profile workload: calls C device_ms D" (C the calls made, D the median device time of
## the timed ones, @code{stats.device_ms}) and then "profile workload: done"; any error
## propagates.  @var{device} is @qcode{"cuda"} or @qcode{"cpu"} (the stand-in).
## @end deftypefn

function gpu_profile_workload (shape, reps, device, opts)
  D = muon_gpu ("randn", shape, "Device", device, "Seed", 51);
  a = [{"Device", device}, opts];
  muon_ns (D, a{:});                    # warm-up: buffers, handles, graphs
  t = zeros (reps, 1);
  for r = 1:reps
    [~, st] = muon_ns (D, a{:});
    t(r) = st.device_ms;
  endfor
  printf ("profile workload: calls %d device_ms %.6g\n", reps + 1, median (t));
  printf ("profile workload: done\n");
endfunction

%!test
%! out = evalc ("gpu_profile_workload ([24 40 2], 2, 'cpu', {'Precision', 'bf16'})");
%! t = regexp (out, 'calls (\d+) device_ms (\S+)', "tokens"){1};
%! assert (str2double (t{1}), 3);
%! assert (str2double (t{2}) > 0);
%! assert (! isempty (strfind (out, "profile workload: done")));
