## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{count} =} zero_step_diverged (@var{upd}, @var{owned}, @var{ranks}, @var{shapes}, @var{opts}, @var{names})
## zero_muon_step's divergence check (@code{muonlab:diverged}, muon_update's check on the
## elements a rank owns): @var{count} (1 x P) is, per parameter, the number of its blocks
## (expert pages' split row blocks, as @code{muon_update} runs them) in which the elements
## of some local rank's update were flagged.  @var{upd} are the local ranks' owned updates
## (an nl x 1 cell of columns, host or device arrays), @var{owned} the plan's W x 2 x P
## spans, @var{ranks} the local ranks, @var{shapes} P x 2, @var{opts} the step's parsed
## options (variant, step, period, block_scale, param_experts, param_split, the scale and
## the schedule), @var{names} the layout's parameter names (@{@} for none).
##
## The bound: the Newton-Schulz result X of a block the design orthogonalized has singular
## values at most the schedule's top (@code{schedule_top}) times its scale s, so each of its
## rows has norm at most that, and the t rows of X a rank's elements touch hold a sum of
## squares of at most min (t, cols) (top s)^2.  The elements of a rank within one block are
## flagged when their sum of squares exceeds min (t, cols) (2 top s)^2 (muon_update's margin
## of 2; measured as a norm, which does not overflow), which a sound run never gives; the
## largest singular value of a flagged piece's block is at least sqrt (sum of squares /
## min (t, cols)), the value the warning names.  The block X
## and its scale are the design's: the whole block with the scale of its shape for every
## design that orthogonalizes whole blocks (the owner holds the block's result; the
## DeepSpeed #7807 reproduction too, on its wrong input); the rows of the piece (slice-only,
## with the scale of their shape) or of the rank's row shard in the block (MuonBP's block
## steps, with the scale of their shape times BlockScale) for the designs that
## orthogonalize parts of blocks.  Non-finite elements are not flagged (the step warns of
## them itself).  On device arrays, each rank's update is measured whole on the device
## first (one sum of squares, against the sum of its pieces' bounds) and read back for the
## piece-by-piece check only when over it or not finite: a diverged piece whose excess the
## rest of that rank's update absorbs is not told on the device.
## @end deftypefn

function count = zero_step_diverged (upd, owned, ranks, shapes, opts, names)
  P = rows (shapes);
  count = zeros (1, P);
  W = size (owned, 1);
  owned = reshape (owned, W, 2, P);
  top = schedule_top (opts);
  slice = strcmp (opts.variant, "zero2_slice_only");
  block_step = strcmp (opts.variant, "muon_bp") && mod (opts.step, opts.period) != 0;
  factor = merge (block_step, opts.block_scale, 1);
  part = slice || block_step;           # NS ran on the rows of the piece in the block
  hit = cell (1, P);                    # the flagged blocks of each parameter
  [worst, bound] = deal (0);
  for l = 1:numel (upd)
    ## this rank's pieces: parameter, block, [lo hi) in the update, t rows, the bound
    pc = pieces (owned(ranks(l)+1,:,:), shapes, opts, top, part, factor);
    if (isempty (pc))
      continue;
    endif
    u = upd{l};
    if (isa (u, "muon_gpuarray"))
      [s, finite] = __muon_gpu__ ("sumsq", u.Handle, []);
      if (finite && s <= sum (pc(:,6)))
        continue;                       # sound as a whole: no piece can be over
      endif
      u = gather (u);
    endif
    for k = 1:rows (pc)
      x = u(pc(k,3)+1:pc(k,4));
      if (! all (isfinite (x)))
        continue;
      endif
      nx = norm (x);                    # (scaled: no overflow of the sum of squares)
      if (nx > sqrt (pc(k,6)))
        p = pc(k,1);
        hit{p}(end+1) = pc(k,2);
        worst = max (worst, nx / sqrt (pc(k,5)));
        bound = max (bound, pc(k,7));
      endif
    endfor
  endfor
  count = cellfun (@(h) numel (unique (h)), hit);
  if (any (count))
    warn_diverged ("zero_muon_step", sum (count),
                   sprintf ("block(s) of the update of %s have", param_list (find (count), names)),
                   worst, "this schedule and scale give", bound);
  endif
endfunction

## One row per piece of a rank (its owned span of a parameter within one block): [param
## block lo hi m lim top*s], lo and hi 0-based in the rank's update buffer, m = min (t,
## cols) for the t rows the piece touches, lim = m (2 top s)^2.
function pc = pieces (own, shapes, opts, top, part, factor)
  P = rows (shapes);
  own = reshape (own, 2, P).';          # P x 2 [start stop)
  pc = zeros (0, 7);
  at = 0;
  for p = 1:P
    a = own(p,1);
    b = own(p,2);
    if (b <= a)
      continue;
    endif
    [m, n] = deal (shapes(p,1), shapes(p,2));
    E = opts.param_experts(p);
    sr = opts.param_split{p};
    if (isempty (sr))
      sr = m / E;
    endif
    r0 = (cumsum ([0, sr(1:end-1)]) + (m / E) * (0:E-1)')';   # numel (sr) x E: first rows
    h = repmat (sr(:), 1, E);
    r0 = r0(:);
    h = h(:);
    for k = 1:numel (r0)
      lo = max (a, r0(k) * n);
      hi = min (b, (r0(k) + h(k)) * n);
      if (lo >= hi)
        continue;
      endif
      t = ceil (hi / n) - floor (lo / n);          # rows touched
      rows_ns = merge (part, t, h(k));             # the rows Newton-Schulz ran on
      s = top * family_scale (opts, rows_ns, n) * factor;
      mk = min (t, n);
      pc(end+1,:) = [p, k, at + lo - a, at + hi - a, mk, mk * (2 * s)^2, s];
    endfor
    at += b - a;
  endfor
endfunction

## "parameter 2", "parameters 2, 5 (attn.w, mlp.w)": the flagged parameters, with their
## names when the layout has them.
function txt = param_list (ps, names)
  txt = sprintf ("parameter%s %s", merge (numel (ps) > 1, "s", ""),
                 strjoin (arrayfun (@num2str, ps, "UniformOutput", false), ", "));
  if (! isempty (names))
    txt = sprintf ("%s (%s)", txt, strjoin (names(ps), ", "));
  endif
endfunction
