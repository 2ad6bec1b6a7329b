## -*- texinfo -*-
## @deftypefn {} {@var{top} =} schedule_top (@var{opts})
## The largest singular value the schedule of @var{opts} (a parsed @code{muon_ns} option
## struct: @code{coeffs}, @code{steps}, @code{schedule_mode}, @code{norm_scale}) can give:
## max |p| of its composed map on the audit grid of (0, hi], hi = max (1, 1 / NormScale)
## the largest singular value of the normalized input (Frobenius, AOL and the "max" eps
## placement all give at most 1 / NormScale).  The last schedule's answer is kept: a loop of
## calls with the same options maps the grid once.
## @end deftypefn

function top = schedule_top (opts)
  persistent last = {[], -1, "", 0, 0};
  hi = max (1, 1 / opts.norm_scale);
  [c, steps, mode, h, t] = deal (last{:});
  if (opts.steps == steps && hi == h && strcmp (opts.schedule_mode, mode)
      && size_equal (opts.coeffs, c) && ! any (opts.coeffs(:) != c(:)))
    top = t;
    return;
  endif
  C = expand_schedule (opts.coeffs, opts.steps, opts.schedule_mode);
  top = max (abs (ns_map (C, hi)));
  last = {opts.coeffs, opts.steps, opts.schedule_mode, hi, top};
endfunction
