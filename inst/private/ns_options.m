## -*- texinfo -*-
## @deftypefn  {} {[@var{opts}, @var{rest}] =} ns_options (@var{fname}, @var{cls}, @var{args})
## @deftypefnx {} {@var{names} =} ns_options ()
## Parse and validate the Newton-Schulz options of @code{muon_ns} (and of every function
## built on it) from the NAME, VALUE pairs in @var{args}.  @var{cls} is the input's class,
## the default precision.  @var{opts} is the struct the gateway @code{__muon_ns__} takes;
## @var{rest} holds the pairs that are not Newton-Schulz options.  Errors name @var{fname}.
##
## The option names, the defaults, the allowed values and the schedules (from the core's
## table, see @code{coeff_table}) are built once per session; only the options given are
## validated, on top of a default struct also built once, and with no options at all the
## cached default struct is all there is to do.  With no argument, return the option
## names (a row cell).
## @end deftypefn

function [opts, rest] = ns_options (fname, cls, args)
  persistent T;
  if (isempty (T))
    T = tables ();
  endif
  if (nargin == 0)
    opts = T.names.';
    return;
  endif
  opts = T.opts;
  opts.precision = cls;
  if (isempty (args))
    rest = {};
    return;
  endif
  d = T.defaults;
  d.Precision = cls;
  [v, rest, given] = parse_pairs (fname, d, args, T.names);
  if (! any (given))
    return;
  endif
  ## checked in this order whatever the order given (the first error wins)
  if (given(T.k.Method))
    opts.method = choose_option (fname, "METHOD", v.Method, T.methods);
  endif
  if (given(T.k.Precision))
    opts.precision = choose_option (fname, "PRECISION", v.Precision, T.precisions);
  endif
  if (given(T.k.ScheduleMode))
    opts.schedule_mode = choose_option (fname, "SCHEDULEMODE", v.ScheduleMode, T.modes);
  endif
  if (given(T.k.Device))
    opts.device = choose_option (fname, "DEVICE", v.Device, T.devices);
  endif
  if (given(T.k.Coefficients))
    c = v.Coefficients;
    if (ischar (c))
      k = find (strcmpi (c, T.schedules), 1);
      if (isempty (k))
        error ("muonlab:badArg", "%s: unknown coefficient schedule '%s'.", fname, c);
      endif
      c = T.coeffs{k};
    elseif (! (isnumeric (c) && isreal (c) && ismatrix (c) && columns (c) == 3
               && rows (c) >= 1 && all (isfinite (c(:)))))
      error ("muonlab:badArg",
             "%s: COEFFICIENTS must be a schedule name or a K x 3 real matrix.", fname);
    endif
    opts.coeffs = double (c);
    opts.steps = default_steps (rows (c));
  endif
  if (given(T.k.Steps))
    s = v.Steps;
    if (isempty (s))
      s = opts.steps;
    endif
    if (! (isscalar (s) && isreal (s) && s == fix (s) && s >= 1 && s <= T.max_steps))
      error ("muonlab:badArg", "%s: STEPS must be a positive integer (at most %d).", fname,
             T.max_steps);
    endif
    opts.steps = double (s);
  endif
  if (given(T.k.Restarts))
    r = v.Restarts;
    if (! (isnumeric (r) && isreal (r) && (isempty (r) || isvector (r))
           && all (r(:) >= 0 & r(:) == fix (r(:))) && numel (r) <= T.max_restarts))
      error ("muonlab:badArg",
             "%s: RESTARTS must be a vector of non-negative integers.", fname);
    endif
    opts.restarts = double (r(:).');
  endif
  if (given(T.k.GramMinAspect))
    a = v.GramMinAspect;
    if (! (isscalar (a) && isreal (a) && isfinite (a) && a >= 1))
      error ("muonlab:badArg", "%s: GRAMMINASPECT must be a finite scalar of at least 1.",
             fname);
    endif
    opts.gram_min_aspect = double (a);
  endif
  if (given(T.k.Eps))
    e = v.Eps;
    if (! (isscalar (e) && isreal (e) && isfinite (e) && e >= 0))
      error ("muonlab:badArg", "%s: EPS must be a non-negative finite scalar.", fname);
    endif
    opts.eps = double (e);
  endif
  if (given(T.k.NormalizeFirst))
    nf = v.NormalizeFirst;
    if (! (isscalar (nf) && (islogical (nf) || (isnumeric (nf) && any (nf == [0 1])))))
      error ("muonlab:badArg", "%s: NORMALIZEFIRST must be true or false.", fname);
    endif
    opts.normalize_first = double (nf);
  endif
  if (given(T.k.Normalize))
    opts.normalize = choose_option (fname, "NORMALIZE", v.Normalize, T.normalizes);
  endif
  if (given(T.k.Gemm))
    opts.gemm = choose_option (fname, "GEMM", v.Gemm, T.gemms);
  endif
  if (given(T.k.Threads))
    t = v.Threads;
    if (! (isscalar (t) && isnumeric (t) && isreal (t) && t == fix (t) && t >= 0
           && t <= intmax ("int32")))
      error ("muonlab:badArg", "%s: THREADS must be a non-negative integer (0: automatic).",
             fname);
    endif
    opts.threads = double (t);
  endif
endfunction

## The session's tables: option names and defaults (for parse_pairs), allowed values,
## limits, the schedules, and the default option struct for the gateway.
function T = tables ()
  T.defaults = struct ("Method", "standard", "Steps", [], "Coefficients", "keller",
                       "ScheduleMode", "repeat_last", "Precision", "double", "Restarts", 2,
                       "GramMinAspect", 1, "Eps", 1e-7, "NormalizeFirst", true,
                       "Device", "cpu", "Gemm", "auto", "Threads", 0,
                       "Normalize", "frobenius");
  T.names = fieldnames (T.defaults);
  for i = 1:numel (T.names)
    T.k.(T.names{i}) = i;
  endfor
  T.methods = {"standard", "gram"};
  T.precisions = {"double", "single", "bf16", "fp16"};
  T.modes = {"repeat_last", "cycle"};
  T.devices = {"cpu", "cuda"};
  T.gemms = {"auto", "openblas", "onednn"};
  T.normalizes = {"frobenius", "aol"};
  T.max_steps = 1000;
  T.max_restarts = 64;
  [T.schedules, T.coeffs] = coeff_table ();
  k = find (strcmp (T.defaults.Coefficients, T.schedules), 1);
  c = T.coeffs{k};
  T.opts = struct ("method", T.defaults.Method, "precision", T.defaults.Precision,
                   "schedule_mode", T.defaults.ScheduleMode, "device", T.defaults.Device,
                   "coeffs", c, "steps", default_steps (rows (c)),
                   "restarts", T.defaults.Restarts,
                   "gram_min_aspect", T.defaults.GramMinAspect, "eps", T.defaults.Eps,
                   "normalize_first", double (T.defaults.NormalizeFirst),
                   "gemm", T.defaults.Gemm, "threads", T.defaults.Threads,
                   "normalize", T.defaults.Normalize);
endfunction

## DESIGN.md 4: 5 steps for a single triple, else the schedule's length.
function s = default_steps (k)
  if (k == 1)
    s = 5;
  else
    s = k;
  endif
endfunction
