## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_zero_cost - zero_cost against what the simulator measures and oracles built here:
##  * exactness: on random layouts (world 1-8, stages 1-3, both orders, 1-7 matrices, some
##    lists of equal shapes so the aliased pads survive), for every design of
##    zero_muon_step, the plan's calls and bytes per rank and collective, NS calls, momentum
##    elements, pad elements and owned elements equal the counters of a real zero_muon_step on
##    simulated ranks exactly (fp64: "ElementBytes", 8), and it fails where the step fails;
##  * NS work: each rank's FLOPs equal the sum, over the matrices the step updates on it
##    (from zero_layout's owners, the round-robin slots, Megatron's layer-wise owners
##    written here), of ns_flops' count; the imbalance is max / mean of that;
##  * the all-to-all owner design (whose first step muon_bp shares) also against an
##    element-by-element port here;
##  * params.slot counts from 0 (the layout's from 1).
## The time model and the profile: test_zero_cost_time; small cases: test_zero_cost_cases.
## Run: `test test_zero_cost` with inst/ and build/mex on the path.

function varargout = test_zero_cost (name, varargin)
  if (nargin > 0)
    [varargout{1:nargout}] = feval (name, varargin{:});
  endif
endfunction

function designs = sim_designs ()
  designs = {"reference", "zero12_allreduce", "zero2_reduce_scatter_buggy", ...
             "zero2_slice_only", "zero2_multi_owner", "zero3_round_robin", ...
             "zero3_round_robin_aliased_pads", "layerwise_lpt", "moonlight_gather", ...
             "alltoall_owner", "muon_bp", "layerwise_ns_cost"};
endfunction

## A random problem: shapes, world, stage, order.
function [shapes, W, stage, order] = problem (trial)
  rand ("seed", trial);
  P = randi (7);
  shapes = randi (7, P, 2);
  if (rand () < 0.3)
    shapes = repmat (shapes(1,:), P, 1);
  endif
  W = randi (8);
  stage = randi (3);
  orders = {"given", "size_desc"};
  order = orders{randi (2)};
endfunction

function f = cfg_file (name)
  f = fullfile (fileparts (mfilename ("fullpath")), "configs", [name ".json"]);
endfunction


## Megatron's LayerWiseDistributedOptimizer, one bucket, written here from its description:
## walk the matrices last first, sort stably by a key descending; by_cost false (before its
## PR #6379): the key is numel, each matrix to the rank of least element cursor (a cursor
## moves to the start rounded up to 64, then past the matrix); by_cost true (since): the key
## is the NS cost max (m, n) * min (m, n)^2, each matrix to the least accumulated cost among
## the ranks whose cursor plus the matrix stays within 1.3 total / W, else to the least
## cursor.  The lowest rank on ties.  0-based owners.
function owner = megatron_owners (shapes, W, by_cost = true)
  P = rows (shapes);
  walk = P:-1:1;
  big = max (shapes(walk,:), [], 2);
  small = min (shapes(walk,:), [], 2);
  if (by_cost)
    [~, k] = sort (-(big .* small .^ 2));    # Octave's sort is stable
  else
    [~, k] = sort (-(big .* small));
  endif
  cap = sum (prod (shapes, 2)) / W * 1.3;
  cost = zeros (1, W);
  cursor = zeros (1, W);
  owner = zeros (1, P);
  for p = walk(k)
    n = prod (shapes(p,:));
    fits = find (ceil (cursor / 64) * 64 + n <= cap);
    if (! by_cost)
      fits = [];
    endif
    if (isempty (fits))
      [~, r] = min (cursor);
    else
      [~, i] = min (cost(fits));
      r = fits(i);
    endif
    owner(p) = r - 1;
    cursor(r) = ceil (cursor(r) / 64) * 64 + n;
    cost(r) += max (shapes(p,:)) * min (shapes(p,:)) ^ 2;
  endfor
endfunction

## The all-to-all model element by element: rank r holds rows [r rc, (r+1) rc) of each matrix.
function [sent, recv, mom, owner] = alltoall_port (shapes, W)
  P = rows (shapes);
  numels = prod (shapes, 2).';
  [~, ord] = sort (-numels);
  owner = zeros (1, P);
  owner(ord) = mod (0:P-1, W);
  sent = zeros (W, 1);
  recv = zeros (W, 1);
  mom = zeros (W, 1);
  for p = 1:P
    rc = ceil (shapes(p,1) / W);
    for r = 0:W-1
      n = max (0, min (rc, shapes(p,1) - r * rc)) * shapes(p,2);
      mom(r+1) += n;
      if (r != owner(p))              # there and back
        sent(r+1) += n;
        recv(owner(p)+1) += n;
        sent(owner(p)+1) += n;
        recv(r+1) += n;
      endif
    endfor
  endfor
endfunction

%!test
%! ## exactness against the simulator's counters, every design, 60 random layouts
%! designs = test_zero_cost ("sim_designs");
%! ncase = 0;
%! for trial = 1:60
%!   [shapes, W, stage, order] = test_zero_cost ("problem", trial);
%!   L = zero_layout (num2cell (shapes, 2), W, "Stage", stage, "Order", order);
%!   randn ("seed", trial);
%!   g = cell (W, rows (shapes));
%!   for k = 1:numel (g)
%!     [~, p] = ind2sub (size (g), k);
%!     g{k} = randn (shapes(p,:));
%!   endfor
%!   C = zero_cost (L, [], "ElementBytes", 8, "Design", designs);
%!   for d = 1:numel (designs)
%!     what = sprintf ("trial %d %s W=%d stage %d %s", trial, designs{d}, W, stage, order);
%!     try
%!       R = zero_muon_step (L, g, [], "Variant", designs{d}, "Reference", false,
%!                           "Steps", 1);
%!     catch err
%!       assert (C(d).fails, [what ": the step failed, the plan did not: " err.message]);
%!       assert (strcmp (err.identifier, "muonlab:badShape"), what);
%!       continue;
%!     end_try_catch
%!     assert (! C(d).fails, [what ": the plan fails, the step did not"]);
%!     assert (isequal (C(d).calls, vertcat (R.ranks.calls)), what);
%!     assert (isequal (C(d).sent, vertcat (R.ranks.sent)), what);
%!     assert (isequal (C(d).recv, vertcat (R.ranks.recv)), what);
%!     assert (isequal (C(d).ranks.ns_calls, [R.ranks.ns_calls].'), what);
%!     assert (isequal (C(d).ranks.momentum, [R.ranks.momentum_elements].'), what);
%!     assert (isequal (C(d).ranks.pads, [R.ranks.pad_elements].'), what);
%!     assert (isequal (C(d).ranks.owned, cellfun (@numel, {R.ranks.update}).'), what);
%!     assert (isequal (C(d).ranks.bytes_sent, [R.ranks.bytes_sent].'), what);
%!     ncase++;
%!   endfor
%! endfor
%! assert (ncase > 550);

%!test
%! ## NS FLOPs per rank: the matrices the step updates there, counted by ns_flops
%! designs = test_zero_cost ("sim_designs");
%! for trial = 1:30
%!   [shapes, W, stage, order] = test_zero_cost ("problem", 100 + trial);
%!   L = zero_layout (num2cell (shapes, 2), W, "Stage", stage, "Order", order);
%!   L3 = zero_layout (num2cell (shapes, 2), W, "Stage", 3, "Order", order);
%!   f = ns_flops (shapes(:,1), shapes(:,2), "Method", "gram");
%!   sq = f.alpha <= 1;
%!   pf = f.gram;
%!   pf(sq) = f.standard(sq);
%!   pf = pf(:).';
%!   C = zero_cost (L, [], "Method", "gram", "Design", designs([1 2 5 6 8 9 12]));
%!   owners = {L.params.owners};
%!   lp = test_zero_cost ("megatron_owners", shapes, W, false);
%!   mg = test_zero_cost ("megatron_owners", shapes, W);
%!   for c = struct (C)
%!     want = zeros (W, 1);
%!     for p = 1:rows (shapes)
%!       switch (c.design)
%!         case "reference"
%!           r = 0:W-1;
%!         case "zero3_round_robin"
%!           r = mod (L3.params(p).slot - 1, W);
%!         case "layerwise_lpt"
%!           r = lp(p);
%!         case "layerwise_ns_cost"
%!           r = mg(p);
%!         otherwise
%!           r = owners{p};
%!       endswitch
%!       want(r+1) += pf(p);
%!     endfor
%!     assert (c.ranks.ns_flops, want, 1e-12 * max (want));
%!     assert (c.params.ns_flops, pf(:));
%!     assert (c.summary.imbalance, max (want) / mean (want), 1e-12);
%!   endfor
%! endfor

%!test
%! ## slice only: each rank orthogonalizes the rows its pieces touch (zero_layout's pieces)
%! for trial = 1:30
%!   [shapes, W, stage, order] = test_zero_cost ("problem", 400 + trial);
%!   shapes(:,1) *= 3;                     # taller matrices: pieces of several rows
%!   L = zero_layout (num2cell (shapes, 2), W, "Stage", stage, "Order", order);
%!   C = zero_cost (L, [], "Design", "zero2_slice_only");
%!   want = zeros (W, 1);
%!   for r = 1:W
%!     for k = 1:numel (L.ranks(r).params)
%!       q = L.ranks(r).params(k);
%!       rows = diff (q.rows);
%!       want(r) += ns_flops (rows, shapes(q.param,2)).standard;
%!     endfor
%!   endfor
%!   assert (C.ranks.ns_flops, want, 1e-12 * max (want));
%! endfor

%!test
%! ## LPT owners: Megatron's numel rule written here (the small shapes: ties everywhere)
%! for trial = 1:30
%!   [shapes, W] = test_zero_cost ("problem", 200 + trial);
%!   C = zero_cost (shapes, W, "Design", "layerwise_lpt");
%!   assert (C.params.ns_rank.', test_zero_cost ("megatron_owners", shapes, W, false));
%! endfor
%! ## four equal matrices on 2 ranks: walked last first, the 4th and 2nd go to rank 0
%! C = zero_cost (repmat ([64 64], 4, 1), 2, "Design", "layerwise_lpt");
%! assert (C.params.ns_rank.', [1 0 1 0]);

%!test
%! ## ns_rank of the ZeRO-1/2 designs: every owner orthogonalizes its matrix (the simulator's
%! ## R.owners), so it is the owner of a matrix held by one rank and -1 for a straddler
%! ## (it was -1 for every matrix); every rank in the reference
%! shapes = {[7 5], [4 9], [11 3]};
%! G = repmat (cellfun (@ones, shapes, "UniformOutput", false), 3, 1);
%! for d = {"zero12_allreduce", "zero2_slice_only", "zero2_multi_owner", "moonlight_gather"}
%!   C = zero_cost (shapes, 3, "Design", d{1});
%!   R = zero_muon_step (zero_layout (shapes, 3), G, [], "Variant", d{1});
%!   one = cellfun (@isscalar, R.owners(:));
%!   assert (C.params.ns_rank(one), [R.owners{one}].');
%!   assert (all (C.params.ns_rank(! one) == -1) && any (! one));
%! endfor
%! assert (zero_cost (shapes, 3, "Design", "reference").params.ns_rank, -ones (3, 1));
%! assert (zero_cost (shapes, 1, "Design", "reference").params.ns_rank, zeros (3, 1));

%!test
%! ## the all-to-all owner design against the element-by-element port
%! for trial = 1:40
%!   [shapes, W] = test_zero_cost ("problem", 300 + trial);
%!   C = zero_cost (shapes, W, "Design", "alltoall_owner", "ElementBytes", 1);
%!   [s, r, m, o] = test_zero_cost ("alltoall_port", shapes, W);
%!   assert (C.sent(:,6), s);
%!   assert (C.recv(:,6), r);
%!   assert (C.ranks.momentum, m);
%!   assert (C.params.ns_rank.', o);
%!   assert (C.calls(:,6), 2 * ones (W, 1));
%!   rc = ceil (shapes(:,1) / W);
%!   assert (C.sent(:,2), (W - 1) * sum (rc .* shapes(:,2)) * ones (W, 1));
%! endfor

%!test
%! ## fused experts and split rows: the core's NS work per rank (whole-matrix designs: each
%! ## matrix once) adds up to ns_flops over every expert page and split block
%! M = muon_model (test_zero_cost ("cfg_file", "tiny_deepseek_v3"), "Experts", "fused",
%!                 "Fuse", "all");
%! k = strcmp (M.params.route, "muon");
%! C = zero_cost (M, 3, "Method", "gram", "Design", {"layerwise_lpt", "zero3_round_robin"});
%! ## ns_flops' Gram count; square blocks (aspect 1) fall back to standard in muon_ns
%! want2 = 0;
%! for p = find (k).'
%!   E = M.params.experts(p);
%!   b = M.params.split{p};
%!   if (isempty (b))
%!     b = M.params.rows(p) / E;
%!   endif
%!   F = ns_flops (b(:), M.params.cols(p), "Method", "gram");
%!   f = F.gram;
%!   f(F.alpha <= 1) = F.standard(F.alpha <= 1);
%!   want2 += E * sum (f);
%! endfor
%! for c = struct (C)
%!   assert (sum (c.ranks.ns_flops), want2, 1e-12 * want2);
%!   assert (sum (c.params.ns_flops), want2, 1e-12 * want2);
%!   assert (c.flops_total, want2, 1e-12 * want2);
%! endfor
%! assert (any (M.params.experts(k) > 1) && any (! cellfun ("isempty", M.params.split(k))));

%!test
%! ## a model's layout: "SplitRows" alone splits the model's expert pages (the experts not
%! ## given are the model's, L.blocks), in the plan and in the step alike; before, it
%! ## orthogonalized the fused expert weights whole (0.4 off on each)
%! c = struct ("model_type", "qwen3_moe", "vocab_size", 50, "hidden_size", 8,
%!             "intermediate_size", 12, "moe_intermediate_size", 4, "num_hidden_layers", 1,
%!             "num_attention_heads", 2, "num_key_value_heads", 1, "head_dim", 4,
%!             "num_experts", 3, "num_experts_per_tok", 2);
%! L = zero_layout (muon_model (c, "Experts", "fused"), 2);
%! E = L.blocks.experts(:).';
%! P = numel (E);
%! assert (max (E), 3);
%! randn ("state", 3);
%! g = cell (2, P);
%! for i = 1:numel (g)
%!   p = ceil (i / 2);
%!   g{i} = randn (L.params(p).rows, L.params(p).cols);
%! endfor
%! S = cell (1, P);
%! S{1} = [4 4];                          # q_proj's two heads
%! R = zero_muon_step (L, g, [], "Variant", "expert_parallel", "SplitRows", S);
%! Rb = zero_muon_step (L, g, [], "Variant", "expert_parallel", "SplitRows", S, "Experts", E);
%! assert (isequal (R.updates, Rb.updates));
%! for p = find (E > 1)                   # each expert page on its own, against muon_update
%!   G = (g{1,p} + g{2,p}) / 2;
%!   assert (R.updates{p}, muon_update (G, [], "Experts", E(p)), 1e-14);
%! endfor
%! C = struct (zero_cost (L, [], "Design", "expert_parallel", "SplitRows", S));
%! Cb = struct (zero_cost (L, [], "Design", "expert_parallel", "SplitRows", S, "Experts", E));
%! assert ([C.flops_total; C.ranks.ns_calls], [Cb.flops_total; Cb.ranks.ns_calls]);
%! assert (C.ranks.ns_calls(:).', [R.ranks.ns_calls]);

%!test
%! ## "Experts" alone keeps the model's split row blocks, which must tile the new pages: a
%! ## misfit names EXPERTS (the caller gave no SPLITROWS); a 1 x P cell of [] turns the
%! ## split off
%! M = muon_model (test_zero_cost ("cfg_file", "tiny_deepseek_v3"), "Experts", "fused",
%!                 "Fuse", "all");
%! L = zero_layout (M, 2);
%! P = numel (L.params);
%! p = find (! cellfun ("isempty", L.blocks.split) & L.blocks.experts(:) > 1, 1);
%! msg = sprintf ("EXPERTS (1) of parameter %d gives pages of %d rows, which the model's split row blocks (L.blocks.split{%d}, %d rows) do not tile; give SPLITROWS too.",
%!                p, L.params(p).rows, p, sum (L.blocks.split{p}));
%! try
%!   zero_cost (L, [], "Design", "zero12_allreduce", "Experts", 1);
%!   error ("no error");
%! catch err
%!   assert ({err.identifier, err.message}, {"muonlab:badShape", ["zero_cost: " msg]});
%! end_try_catch
%! C = struct (zero_cost (L, [], "Design", "zero12_allreduce", "Experts", 1, "SplitRows", cell (1, P)));
%! assert (C.params.ns_flops(p), ns_flops (L.params(p).rows, L.params(p).cols).flops, 1e-9 * C.params.ns_flops(p));

%!test
%! ## params.slot: 0-based, the layout's 1-based slot less 1; the designs that deal whole
%! ## matrices out in size order number them in that order (stable, largest first; Megatron's
%! ## layer-wise walk takes equal sizes last first)
%! for trial = 1:20
%!   [shapes, W, stage, order] = test_zero_cost ("problem", 500 + trial);
%!   L = zero_layout (num2cell (shapes, 2), W, "Stage", stage, "Order", order);
%!   P = rows (shapes);
%!   [~, bysize] = sort (-prod (shapes, 2));
%!   want = zeros (P, 1);
%!   want(bysize) = 0:P - 1;
%!   [~, k] = sort (-prod (shapes(P:-1:1,:), 2));
%!   walk = P:-1:1;
%!   want_lw = zeros (P, 1);
%!   want_lw(walk(k)) = 0:P - 1;
%!   C = zero_cost (L, [], "Design", {"zero12_allreduce", "zero3_round_robin", ...
%!                                    "layerwise_lpt", "alltoall_owner", "muon_bp"});
%!   for c = struct (C)
%!     if (strcmp (c.design, "layerwise_lpt"))
%!       assert (c.params.slot, want_lw);
%!     elseif (any (strcmp (c.design, {"alltoall_owner", "muon_bp"})))
%!       assert (c.params.slot, want);
%!     else
%!       assert (c.params.slot, [L.params.slot].' - 1);
%!     endif
%!   endfor
%! endfor
