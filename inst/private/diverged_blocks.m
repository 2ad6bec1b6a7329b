## -*- texinfo -*-
## @deftypefn {} {} diverged_blocks (@var{fname}, @var{U}, @var{opts})
## Warn (@code{muonlab:diverged}) when a block of the Muon update @var{U} (M x N or
## M x N x P, the matrix the core orthogonalized, before a 4-D reshape) has a singular
## value past twice what its Newton-Schulz schedule gives times its scale: every page, each
## of its @code{opts.experts} row blocks and, inside each, the @code{opts.split_rows}
## blocks, as the core runs them, each scaled by @code{family_scale} of its own shape.
## The check of @code{muon_ns} (see there): a power-method lower bound, no false alarm.
## @end deftypefn

function diverged_blocks (fname, U, opts)
  top = schedule_top (opts);
  [m, n, P] = size (U);
  br = m / opts.experts;
  sr = opts.split_rows;
  if (isempty (sr))
    sr = br;
  endif
  [count, worst, bound] = deal (0, 0, 0);
  for p = 1:P
    r0 = 0;
    for e = 1:opts.experts
      for b = sr
        s = family_scale (opts, b, n) * top;
        x = sv_max_lower (U(r0 + (1:b), :, p));
        if (isfinite (x) && x > 2 * s)
          count++;
          [worst, bound] = deal (max (worst, x), max (bound, s));
        endif
        r0 += b;
      endfor
    endfor
  endfor
  if (count > 0)
    warning ("muonlab:diverged",
             "%s: %d block(s) of the update have a singular value of %.3g or more, where this schedule and scale give at most %.3g: the iteration diverged (rounding this schedule cannot absorb in this precision, or for Gram, too many steps since its last restart).",
             fname, count, worst, bound);
  endif
endfunction
