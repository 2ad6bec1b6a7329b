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
## orthogonalize parts of blocks (the variant table's Newton-Schulz scope, read from
## @code{core_lists}).  Non-finite elements are not flagged (the step warns of
## them itself).  On device arrays, each rank's update is measured whole on the device
## first (one sum of squares, against the sum of its pieces' bounds) and read back for the
## piece-by-piece check only when over it or not finite: a diverged piece whose excess the
## rest of that rank's update absorbs is not told on the device.
## @end deftypefn

function count = zero_step_diverged (upd, owned, ranks, shapes, opts, names)
  P = rows (shapes);
  W = size (owned, 1);
  owned = reshape (owned, W, 2, P);
  top = schedule_top (opts);
  L = core_lists ();
  scope = L.ns_scope.zero_variant{strcmp (L.lists.zero_variant, opts.variant)};
  slice = strcmp (scope, "piece_rows");
  block_step = strcmp (scope, "block_step_shard_rows") && mod (opts.step, opts.period) != 0;
  factor = merge (block_step, opts.block_scale, 1);
  part = slice || block_step;           # NS ran on the rows of the piece in the block
  B = blocks (shapes, opts);            # [param r0 h cols], one row per block, in order
  flagged = false (rows (B), 1);
  [worst, bound] = deal (0);
  for l = 1:numel (upd)
    own = reshape (owned(ranks(l)+1,:,:), 2, P).';   # P x 2 [start stop)
    ## the rank's pieces: its span of each block's parameter within the block's rows
    n = B(:,4);
    lo = max (own(B(:,1),1), B(:,2) .* n);
    hi = min (own(B(:,1),2), (B(:,2) + B(:,3)) .* n);
    k = find (lo < hi);
    if (isempty (k))
      continue;
    endif
    [lo, hi, n] = deal (lo(k), hi(k), n(k));
    t = ceil (hi ./ n) - floor (lo ./ n);            # rows touched
    s = top * factor * family_scale (opts, merge (part, t, B(k,3)), n);
    m = min (t, n);
    lim = m .* (2 * s) .^ 2;
    u = upd{l};
    if (isa (u, "muon_gpuarray"))
      [ss, finite] = __muon_gpu__ ("sumsq", u.Handle, []);
      if (finite && ss <= sum (lim))
        continue;                       # sound as a whole: no piece can be over
      endif
      u = gather (u);
    endif
    ## the pieces tile the rank's update in order (parameter by parameter, each block's
    ## rows in turn), so piece j holds elements id == j of it
    x = u(:);
    id = repelem ((1:numel (k)).', hi - lo)(:);     # (a column even for one piece)
    bad = accumarray (id, ! isfinite (x), [numel(k) 1]) > 0;
    x(! isfinite (x)) = 0;
    sc = accumarray (id, abs (x), [numel(k) 1], @max);
    sc(sc == 0) = 1;
    nx = sc .* sqrt (accumarray (id, (x ./ sc(id)) .^ 2, [numel(k) 1]));   # no overflow
    hit = ! bad & nx > sqrt (lim);
    if (any (hit))
      flagged(k(hit)) = true;
      worst = max (worst, max (nx(hit) ./ sqrt (m(hit))));
      bound = max (bound, max (s(hit)));
    endif
  endfor
  count = accumarray (B(:,1), flagged, [P 1]).';
  if (any (count))
    warn_diverged ("zero_muon_step", sum (count),
                   sprintf ("block(s) of the update of %s have", param_list (find (count), names)),
                   worst, "this schedule and scale give", bound);
  endif
endfunction

## The blocks of every parameter, one row each [param r0 h cols] (r0 its first row,
## 0-based, h its rows): each expert page's split row blocks (the page when none), in
## row order, parameter after parameter.
function B = blocks (shapes, opts)
  P = rows (shapes);
  E = opts.param_experts;
  if (all (E == 1) && all (cellfun (@isempty, opts.param_split)))
    B = [(1:P).', zeros(P, 1), shapes];            # one block per matrix
    return;
  endif
  B = cell (P, 1);
  for p = 1:P
    page = shapes(p,1) / E(p);
    sr = opts.param_split{p};
    if (isempty (sr))
      sr = page;
    endif
    r0 = cumsum ([0, sr(1:end-1)]).' + page * (0:E(p)-1);    # numel (sr) x E
    h = repmat (sr(:), 1, E(p));
    B{p} = [p * ones(numel (r0), 1), r0(:), h(:), shapes(p,2) * ones(numel (r0), 1)];
  endfor
  B = vertcat (B{:});
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
