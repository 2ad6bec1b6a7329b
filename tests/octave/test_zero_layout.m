## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_zero_layout - property tests of zero_layout over random shape lists (world 1-8,
## both orders, all stages) against closed forms and an element-by-element owner map built
## here, independently of the C code.  Run: `test test_zero_layout` (needs inst/ and
## build/mex on the path), or call test_zero_layout () which errors on the first failure.
## test_zero_layout ("check", L, shapes, W, A, stage, order) checks one layout.

function test_zero_layout (varargin)
  if (nargin > 0)
    check_layout (varargin{2:end});
    return;
  endif
  rand ("seed", 7);
  for trial = 1:100
    P = randi (8);
    shapes = [randi(20, P, 1), randi(20, P, 1)];
    if (rand () < 0.3)
      shapes(randi (P), :) = shapes(1, :);       # ties, to exercise the stable sort
    endif
    W = randi (8);
    A = randi (4);
    stage = randi (3);
    orders = {"given", "size_desc"};
    order = orders{randi (2)};
    L = zero_layout (num2cell (shapes, 2), W, "Stage", stage, "AlignFactor", A,
                     "Order", order);
    check_layout (L, shapes, W, A, stage, order);
  endfor
endfunction

function check_layout (L, shapes, W, A, stage, order)
  numels = prod (shapes, 2).';
  P = numel (numels);
  total = sum (numels);
  assert ([L.world, L.stage, L.total], [W, stage, total]);

  ## order: DeepSpeed's sorted (params, key=lambda x: x.size (), reverse=True), a stable
  ## sort of the (rows, cols) tuples, largest first
  if (strcmp (order, "size_desc"))
    [~, ord] = sortrows ([-shapes, (1:P).']);
    ord = ord.';
  else
    ord = 1:P;
  endif
  assert (L.order, ord);
  assert ([L.params(ord).slot], 1:P);

  ## sizes, offsets and padding in closed form
  if (stage == 3)
    chunk = ceil (numels / W);
    padded = chunk * W;
    S = sum (chunk);
  else
    padded = numels;
    S = ceil (total / (A * W)) * A;
  endif
  off = zeros (1, P);
  off(ord) = [0, cumsum(padded(ord))(1:end-1)];
  assert ([L.params.offset], off);
  assert ([L.params.padded_numel], padded);
  assert (L.partition_size, S);
  assert (L.padded_total, W * S);
  if (stage == 3)
    assert (L.padding, sum (padded - numels));
  else
    assert (L.padding, mod (-total, A * W));
  endif

  ## partitions tile the (partitioned) buffer: [r S, (r+1) S)
  assert ([L.ranks.rank], 0:W-1);
  assert ([L.ranks.start], (0:W-1) * S);
  assert ([L.ranks.stop], (1:W) * S);

  ## owner map of the flat buffer, element by element: -1 = padding
  own = -ones (1, L.padded_total);
  for p = 1:P
    e = 0:numels(p)-1;                   # row-major element index in the parameter
    if (stage == 3)
      r = floor (e / chunk(p));
    else
      r = floor ((off(p) + e) / S);
    endif
    own(off(p) + e + 1) = r;
    q = L.params(p);
    assert ([q.rows, q.cols, q.numel], [shapes(p,:), numels(p)]);
    assert (q.owners, unique (r));
    ## straddles iff the range crosses a partition boundary (stages 1-2) / is split (3)
    if (stage == 3)
      crosses = numels(p) > chunk(p);
    else
      b = S * (1:W-1);
      crosses = any (b > off(p) & b < off(p) + numels(p));
    endif
    assert (q.straddles, crosses);
    ## owner_ranges tile [0 numel) in owner order, one non-empty row per owner, each the
    ## elements the element map above gives that rank
    R = q.owner_ranges;
    assert (size (R), [numel(q.owners) 2]);
    assert (R(1,1), 0);
    assert (R(end,2), numels(p));
    assert (R(2:end,1), R(1:end-1,2));
    assert (all (R(:,2) > R(:,1)));
    for k = 1:numel (q.owners)
      mine = e(r == q.owners(k));
      assert (R(k,:), [mine(1), mine(end)+1]);
    endfor
  endfor
  assert (sum (own == -1), L.padding);

  ## pieces: each element of each parameter exactly once, at the right place
  seen = zeros (1, L.padded_total);
  for rr = 1:W
    k = L.ranks(rr);
    pc = k.params;
    held = 0;
    lastpart = 0;
    for i = 1:numel (pc)
      c = pc(i);
      p = c.param;
      len = diff (c.local);
      assert (len > 0);
      held += len;
      assert (c.local, L.params(p).owner_ranges(L.params(p).owners == rr - 1,:));
      assert (c.flat, off(p) + c.local);
      assert (diff (c.part), len);
      assert (c.part(1) >= lastpart);    # in partition order, not overlapping
      lastpart = c.part(2);
      assert (c.part(2) <= S);
      if (stage != 3)
        assert (c.part, c.flat - k.start);
      endif
      idx = c.flat(1)+1:c.flat(2);
      assert (all (own(idx) == rr - 1));
      seen(idx) += 1;
      ## rows consistent with the element range
      n = L.params(p).cols;
      assert (c.rows, [floor(c.local(1) / n), ceil(c.local(2) / n)]);
      fp = mod (c.local(1), n) != 0;
      lp = mod (c.local(2), n) != 0;
      assert (c.whole_rows, ! (fp || lp));
      want = [];
      if (fp) want(end+1) = c.rows(1); endif
      if (lp) want(end+1) = c.rows(2) - 1; endif
      assert (c.partial_rows(:).', unique (want)(:).');
      ## whole rows: exactly the rows' elements
      if (c.whole_rows)
        assert (c.local, c.rows * n);
      endif
    endfor
    assert (held + k.padding, S);
  endfor
  assert (seen, double (own >= 0));
endfunction

%!test
%! test_zero_layout ();

## the hand-computed case of the issue, cross-checked against the owner map
%!test
%! sh = [3 4; 2 5; 4 4];
%! for W = [2 4]
%!   for stage = 1:3
%!     for o = {"given", "size_desc"}
%!       L = zero_layout ({[3 4], [2 5], [4 4]}, W, "Stage", stage, "Order", o{1});
%!       test_zero_layout ("check", L, sh, W, 2, stage, o{1});
%!     endfor
%!   endfor
%! endfor

## stages 1 and 2 give the same layout
%!test
%! a = zero_layout ({[7 3], [5 5], [1 9]}, 3, "Stage", 1);
%! b = zero_layout ({[7 3], [5 5], [1 9]}, 3, "Stage", 2);
%! a.stage = 2;
%! assert (struct (a), struct (b));

## large world: more ranks than elements
%!test
%! L = zero_layout ({[1 3]}, 8, "AlignFactor", 1);
%! assert ([L.partition_size, L.padded_total], [1 8]);
%! assert (L.params.owners, 0:2);
%! test_zero_layout ("check", L, [1 3], 8, 1, 2, "given");
