## -*- texinfo -*-
## @deftypefn {} {[@var{opts}, @var{rest}] =} ns_options (@var{fname}, @var{cls}, @var{args})
## Parse and validate the Newton-Schulz options of @code{muon_ns} (and of every function
## built on it) from the NAME, VALUE pairs in @var{args}.  @var{cls} is the input's class,
## the default precision.  @var{opts} is the struct the gateway @code{__muon_ns__} takes;
## @var{rest} holds the pairs that are not Newton-Schulz options.
## @end deftypefn

function [opts, rest] = ns_options (fname, cls, args)
  defaults = struct ("Method", "standard", "Steps", [], "Coefficients", "keller",
                     "ScheduleMode", "repeat_last", "Precision", cls, "Restarts", 2,
                     "GramMinAspect", 1, "Eps", 1e-7, "NormalizeFirst", true,
                     "Device", "cpu", "Gemm", "auto", "Threads", 0);
  [v, rest] = parse_pairs (fname, defaults, args);
  opts = struct ();
  opts.method = choose_option (fname, "METHOD", v.Method, {"standard", "gram"});
  opts.precision = choose_option (fname, "PRECISION", v.Precision,
                           {"double", "single", "bf16", "fp16"});
  opts.schedule_mode = choose_option (fname, "SCHEDULEMODE", v.ScheduleMode,
                               {"repeat_last", "cycle"});
  opts.device = choose_option (fname, "DEVICE", v.Device, {"cpu", "cuda"});
  c = v.Coefficients;
  if (ischar (c))
    names = muon_coeffs ();
    k = find (strcmpi (c, names), 1);
    if (isempty (k))
      error ("muonlab:badArg", "%s: unknown coefficient schedule '%s'.", fname, c);
    endif
    c = muon_coeffs (names{k});
  elseif (! (isnumeric (c) && isreal (c) && ismatrix (c) && columns (c) == 3
             && rows (c) >= 1 && all (isfinite (c(:)))))
    error ("muonlab:badArg",
           "%s: COEFFICIENTS must be a schedule name or a K x 3 real matrix.", fname);
  endif
  opts.coeffs = double (c);
  if (isempty (v.Steps))
    v.Steps = ifelse_steps (rows (c));
  endif
  if (! (isscalar (v.Steps) && isreal (v.Steps) && v.Steps == fix (v.Steps)
         && v.Steps >= 1 && v.Steps <= 1000))
    error ("muonlab:badArg", "%s: STEPS must be a positive integer (at most 1000).", fname);
  endif
  opts.steps = double (v.Steps);
  r = v.Restarts;
  if (! (isnumeric (r) && isreal (r) && (isempty (r) || isvector (r))
         && all (r(:) >= 0 & r(:) == fix (r(:))) && numel (r) <= 64))
    error ("muonlab:badArg",
           "%s: RESTARTS must be a vector of non-negative integers.", fname);
  endif
  opts.restarts = double (r(:).');
  a = v.GramMinAspect;
  if (! (isscalar (a) && isreal (a) && isfinite (a) && a >= 1))
    error ("muonlab:badArg", "%s: GRAMMINASPECT must be a finite scalar of at least 1.", fname);
  endif
  opts.gram_min_aspect = double (a);
  e = v.Eps;
  if (! (isscalar (e) && isreal (e) && isfinite (e) && e >= 0))
    error ("muonlab:badArg", "%s: EPS must be a non-negative finite scalar.", fname);
  endif
  opts.eps = double (e);
  nf = v.NormalizeFirst;
  if (! (isscalar (nf) && (islogical (nf) || (isnumeric (nf) && any (nf == [0 1])))))
    error ("muonlab:badArg", "%s: NORMALIZEFIRST must be true or false.", fname);
  endif
  opts.normalize_first = double (nf);
  opts.gemm = choose_option (fname, "GEMM", v.Gemm, {"auto", "openblas", "onednn"});
  t = v.Threads;
  if (! (isscalar (t) && isnumeric (t) && isreal (t) && t == fix (t) && t >= 0
         && t <= intmax ("int32")))
    error ("muonlab:badArg", "%s: THREADS must be a non-negative integer (0: automatic).",
           fname);
  endif
  opts.threads = double (t);
endfunction

## DESIGN.md 4: 5 steps for a single triple, else the schedule's length.
function s = ifelse_steps (k)
  if (k == 1)
    s = 5;
  else
    s = k;
  endif
endfunction
