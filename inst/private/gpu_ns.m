## -*- texinfo -*-
## @deftypefn {} {[@var{X}, @var{stats}] =} gpu_ns (@var{G}, @var{args})
## @code{muon_ns} on a device array @var{G} (a @code{muon_gpuarray}): the options of the
## cell @var{args} as @code{muon_ns} takes them (the default precision is @var{G}'s storage
## class), run on @var{G}'s device; @var{X} is a new device array like @var{G}.
## @var{stats} has the fields @code{device} and @code{device_ms} (CUDA events around the
## call; wall time on the CPU stand-in).  @qcode{"Device"}, when given, must name
## @var{G}'s device; @qcode{"Trace"} is a host-only option.
## @end deftypefn

function [X, stats] = gpu_ns (G, args)
  if (any (G.Size(1:2) < 2))
    error ("muonlab:badShape",
           "muon_ns: G must be a matrix (at least 2 x 2), not a vector or scalar.");
  endif
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
  [h, ms] = __muon_gpu__ ("ns", G.Handle, opts);
  X = muon_gpuarray (h, G.Size, G.Storage, G.Device);
  stats = struct ("device", G.Device, "device_ms", ms);
endfunction
