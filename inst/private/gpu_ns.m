## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{X}, @var{stats}] =} gpu_ns (@var{G}, @var{args})
## @code{muon_ns} on a device array @var{G} (a @code{muon_gpuarray}): the options of the
## cell @var{args} as @code{muon_ns} takes them (the default precision is @var{G}'s storage
## class), run on @var{G}'s device; @var{X} is a new device array like @var{G}.
## @var{stats} has the fields @code{device}, @code{device_ms} (CUDA events around the
## call; wall time on the CPU stand-in), @code{tiny_pages} and @code{diverged_pages}, with
## their warnings, as @code{muon_ns} counts them from each page's sum of squares.  @qcode{"Device"}, when given, must name
## @var{G}'s device; @qcode{"Trace"} is a host-only option.
## @end deftypefn

function [X, stats] = gpu_ns (G, args)
  check_pages ("muon_ns", "G", G.Size);
  opts = parse_options ("muon_ns", "muon_ns", args, "precision", G.Storage);
  if (! isempty (args))
    unsafe_schedule ("muon_ns", opts);
  endif
  gpu_check_device ("muon_ns", "G", G, args, opts.device);
  if (opts.trace)
    error ("muonlab:unsupported",
           "muon_ns: TRACE needs a host array G (gather (G) first).");
  endif
  if (opts.norm_scale != 1 || ! strcmp (opts.eps_placement, "add"))
    error ("muonlab:unsupported",
           "muon_ns: NORMSCALE and EPSPLACEMENT need a host array G (gather (G) first).");
  endif
  opts = rmfield (opts, {"trace", "norm_scale", "eps_placement"});
  mark = __muon_gpu__ ("mark");
  unwind_protect
    [h, ms] = __muon_gpu__ ("ns", G.Handle, opts);
    X = muon_gpuarray (h, G.Size, G.Storage, G.Device);
  unwind_protect_cleanup
    __muon_gpu__ ("drop", mark);         # an array a Ctrl-C left unwrapped
  end_unwind_protect
  stats = struct ("device", G.Device, "device_ms", ms,
                  "tiny_pages", tiny_pages (G, opts), "diverged_pages", 0);
  ## muon_ns's divergence check with the bound the device gives cheaply: a page's
  ## largest singular value is at least norm (X, "fro") / sqrt (min (m, n))
  [ss, finite] = __muon_gpu__ ("page_sumsq", X.Handle, "muon_ns");
  sx = sqrt (ss / min (G.Size(1:2)));
  hit = finite & sx > 2 * schedule_top (opts);
  stats.diverged_pages = sum (hit);
  if (any (hit))
    warn_diverged ("muon_ns", sum (hit), "page(s) of the result have", max (sx(hit)),
                   "this schedule gives", schedule_top (opts));
  endif
endfunction

## muon_ns's tinyInput on the device: the pages of G with 0 < norm < Eps, from their sums
## of squares (a double page whose sum is below realmin, entries below 1e-154, lost bits
## or underflowed to 0: such pages are measured again scaled by 2^600, exactly)
function tiny = tiny_pages (G, opts)
  tiny = 0;
  if (! (opts.eps > 0 && strcmp (opts.normalize, "frobenius")))
    return;
  endif
  ss = __muon_gpu__ ("page_sumsq", G.Handle, "muon_ns");
  nk = sqrt (ss);
  low = ss < realmin;
  if (any (low) && strcmp (G.Storage, "double"))
    mark = __muon_gpu__ ("mark");
    unwind_protect
      up = muon_gpuarray (__muon_gpu__ ("ew", "mul", G.Handle, [], 2^600), G.Size,
                          G.Storage, G.Device);
    unwind_protect_cleanup
      __muon_gpu__ ("drop", mark);       # an array a Ctrl-C left unwrapped
    end_unwind_protect
    ssu = __muon_gpu__ ("page_sumsq", up.Handle, "muon_ns");
    nk(low) = sqrt (ssu(low)) * 2^-600;
  endif
  tiny = sum (nk > 0 & nk < opts.eps);
  warn_tiny (tiny, opts.eps, 1);
endfunction
