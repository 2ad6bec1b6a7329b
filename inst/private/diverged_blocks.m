## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} diverged_blocks (@var{fname}, @var{U}, @var{opts})
## Warn (@code{muonlab:diverged}) when a block of the Muon update @var{U} (M x N or
## M x N x P, the matrix the core orthogonalized, before a 4-D reshape) has a singular
## value past twice what its Newton-Schulz schedule gives times its scale: every page, each
## of its @code{opts.experts} row blocks and, inside each, the @code{opts.split_rows}
## blocks, as the core runs them, each scaled by @code{family_scale} of its own shape.
## The check of @code{muon_ns} (see there): a power-method lower bound, no false alarm;
## the blocks of one height are checked together (@code{sv_max_lower} of their stack).
## @end deftypefn

function diverged_blocks (fname, U, opts)
  top = schedule_top (opts);
  [m, n, P] = size (U);
  br = m / opts.experts;
  sr = [];
  if (isfield (opts, "split_rows"))
    sr = opts.split_rows;
  endif
  if (isempty (sr))
    sr = br;
  endif
  starts = cumsum ([0, sr(1:end-1)]) + br * (0:opts.experts-1)';   # E x numel (sr)
  [count, worst, bound] = deal (0, 0, 0);
  for b = unique (sr)
    r0 = starts(:, sr == b)(:);          # first rows (0-based) of the blocks b high
    rows = (r0 + (1:b)).';               # b x K: block k's rows in column k
    blocks = reshape (permute (reshape (U(rows(:), :, :), b, numel (r0), n, P),
                               [1 3 2 4]), b, n, []);
    x = sv_max_lower (blocks);
    lim = 2 * top * family_scale (opts, b, n);
    hit = isfinite (x) & x > lim;
    if (any (hit))
      count += sum (hit);
      worst = max (worst, max (x(hit)));
      bound = max (bound, lim / 2);
    endif
  endfor
  if (count > 0)
    warn_diverged (fname, count, "block(s) of the update have", worst,
                   "this schedule and scale give", bound);
  endif
endfunction
