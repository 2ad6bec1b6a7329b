## -*- texinfo -*-
## @deftypefn  {} {} unsafe_schedule (@var{fname}, @var{opts})
## @deftypefnx {} {} unsafe_schedule ()
## Warn (@code{muonlab:unsafeSchedule}) when the schedule that @var{opts} (a parsed
## @code{muon_ns} option struct: @code{coeffs}, @code{steps}, @code{schedule_mode}) runs
## has a composed map that goes negative on (0, 1]: every singular value of the normalized
## input in that range comes out with its sign flipped, so the update reverses that
## direction.  Once per session and schedule (as expanded to its steps): the check and the
## warning are remembered here; with no argument, forget them (for the tests).
## @end deftypefn

function unsafe_schedule (fname, opts)
  persistent lc ls lm seen;
  if (nargin == 0)
    lm = [];
    seen = {};
    return;
  endif
  c = opts.coeffs;                        # the common case: the same schedule again
  if (ischar (lm) && opts.steps == ls && strcmp (opts.schedule_mode, lm)
      && size_equal (c, lc) && ! any (c(:) != lc(:)))
    return;
  endif
  [lc, ls, lm] = deal (c, opts.steps, opts.schedule_mode);
  C = expand_schedule (opts.coeffs, opts.steps, opts.schedule_mode);
  if (isempty (seen))
    seen = {};
  endif
  if (any (cellfun (@(s) isequal (s, C), seen)))
    return;
  endif
  seen{end+1} = C;
  [p, x] = ns_map (C);
  k = find (p < 0, 1);
  if (! isempty (k))
    warning ("muonlab:unsafeSchedule",
             ["%s: this coefficient schedule's composed map is negative from sigma = %.3g " ...
              "(p(1) = %.3g): singular directions of the normalized input there are " ...
              "reversed; see ns_schedule_audit."], fname, x(k), p(end));
  endif
endfunction
