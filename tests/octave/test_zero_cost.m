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
##  * bytes scale with ElementBytes; the step time is the sum of its phases;
##  * the profile: every field out of its range or unknown is refused, naming it, and its
##    numbers enter the step time as the ring model written here says;
##  * params.slot counts from 0 (the layout's from 1).
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
%! ## bytes scale with the element size; the step is the sum of its phases
%! M = muon_model ("moonlight-16b-a3b");
%! C8 = zero_cost (M, 64, "ElementBytes", 8, "Design", "zero2_multi_owner");
%! C2 = zero_cost (M, 64, "ElementBytes", 2, "Design", "zero2_multi_owner");
%! assert (C8.sent, 4 * C2.sent);
%! assert (C2.ranks.ns_flops, C8.ranks.ns_flops);
%! t = C2.time;
%! assert (t.step, t.comm + t.ns + t.memory + t.overhead, 1e-12 * t.step);
%! assert (t.comm, t.reduce_scatter + t.allreduce, 1e-12 * t.comm);

%!test
%! ## every profile field is checked: each bad value is refused, naming the field
%! P = jsondecode (fileread (fullfile (fileparts (which ("zero_cost")), "profiles",
%!                                     "h100_node.json")));
%! bad = {"devices_per_node", "x", "a positive integer (at most 65536)";
%!        "devices_per_node", 2.5, "a positive integer (at most 65536)";
%!        "devices_per_node", 65537, "a positive integer (at most 65536)";
%!        "devices_per_node", 1e300, "a positive integer (at most 65536)";
%!        "mem_bw", "fast", "a positive finite number";
%!        "mem_bw", Inf, "a positive finite number";
%!        "memory_bytes", -1, "a positive finite number";
%!        "mem_efficiency", [1 2], "a number in (0, 1]";
%!        "gemm_efficiency", 0, "a number in (0, 1]";
%!        "gemm_efficiency", 1.5, "a number in (0, 1]";
%!        "ns_call_overhead", -1, "a finite number >= 0";
%!        "step_overhead", NaN, "a finite number >= 0";
%!        "step_overhead", 1i, "a finite number >= 0";
%!        "gemm_peak.fp16", 0, "a positive finite number";
%!        "gemm_peak", 1, "a struct of GEMM rates: double, single, bf16 and fp16";
%!        "intra.bandwidth", [], "a positive finite number";
%!        "intra.latency", "x", "a finite number >= 0";
%!        "inter.efficiency", 0, "a number in (0, 1]";
%!        "intra.allreduce", "x", "a struct of bandwidth and / or latency";
%!        "intra.allreduce.bandwidth", -5e9, "a positive finite number";
%!        "inter.all_to_all.latency", "x", "a finite number >= 0";
%!        "name", 3, "a string";
%!        "sources", {1}, "a string or a list of strings"};
%! for k = 1:rows (bad)
%!   Q = P;
%!   path = strsplit (bad{k,1}, ".");
%!   Q = setfield (Q, path{:}, bad{k,2});
%!   try
%!     zero_cost ([64 64; 32 64], 4, "Profile", Q);
%!     error ("test:noError", "%s = %s: accepted", bad{k,1}, disp (bad{k,2}));
%!   catch err
%!     assert (err.message, sprintf ("zero_cost: profile field '%s' must be %s.", bad{k,1},
%!                                   bad{k,3}));
%!     assert (err.identifier, "muonlab:badArg");
%!   end_try_catch
%! endfor
%! ## unknown fields are refused by name, missing ones too
%! Q = P;
%! Q.intra.broadcast = struct ("latency", 1e-6);
%! fail ("zero_cost ([4 4], 2, \"Profile\", Q)", "unknown profile field 'intra.broadcast'");
%! Q = P;
%! Q.mem_bandwidth = 1e12;
%! fail ("zero_cost ([4 4], 2, \"Profile\", Q)", "unknown profile field 'mem_bandwidth'");
%! Q = P;
%! Q.intra = rmfield (Q.intra, "latency");
%! fail ("zero_cost ([4 4], 2, \"Profile\", Q)", "the profile has no field 'intra.latency'");
%! ## a GEMM rate per precision of the core (core_lists), each required
%! for p = __muon_lists__ ().lists.precision
%!   Q = P;
%!   Q.gemm_peak = rmfield (Q.gemm_peak, p{1});
%!   fail ("zero_cost ([4 4], 2, \"Profile\", Q)",
%!         sprintf ("the profile has no field 'gemm_peak.%s'", p{1}));
%! endfor

%!test
%! ## a profile path that is not a regular file is refused before a byte is read (a FIFO
%! ## blocked fileread for ever, /dev/zero ate all memory), and so is one over 16 MiB
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   fail ("zero_cost ([4 4], 2, \"Profile\", d)",
%!         sprintf ("zero_cost: cannot read '%s': it is a folder\\.", d));
%!   fail ("zero_cost ([4 4], 2, \"Profile\", \"/dev/null\")",
%!         ["zero_cost: cannot read '/dev/null': not a regular file ", ...
%!          "\\(a FIFO, a device or a socket\\)\\."]);
%!   big = fullfile (d, "big.json");
%!   fid = fopen (big, "w");
%!   fwrite (fid, zeros (1, 2^24 + 1, "uint8"));    # one byte over max_config_bytes
%!   fclose (fid);
%!   fail ("zero_cost ([4 4], 2, \"Profile\", big)",
%!         sprintf ("zero_cost: '%s' is 16777217 bytes; at most 16777216 bytes", big));
%!   deep = fullfile (d, "deep.json");
%!   fid = fopen (deep, "w");
%!   fprintf (fid, "%s", repmat ("[", 1, 300));
%!   fclose (fid);
%!   fail ("zero_cost ([4 4], 2, \"Profile\", deep)",
%!         sprintf ("zero_cost: '%s' nests 300 deep; at most 200", deep));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## the profile's numbers enter the time as the flat ring model says (closed form here)
%! Q = struct ("devices_per_node", int32 (8), "mem_bw", 1e11,
%!             "gemm_peak", struct ("double", 1e12, "single", 2e12, "bf16", 4e12, "fp16", 4e12),
%!             "intra", struct ("bandwidth", 1e10, "latency", 1e-6, "efficiency", 0.5,
%!                              "allreduce", struct ("latency", 3e-6)),
%!             "inter", struct ("bandwidth", 1e9, "latency", 1e-5),
%!             "gemm_efficiency", 0.25, "ns_call_overhead", 1e-4, "step_overhead", 2e-3);
%! W = 4;
%! C = zero_cost ([64 64; 32 64], W, "Design", "zero12_allreduce", "Profile", Q);
%! N = C.padded_total;
%! assert (C.time.allreduce, 2 * (W - 1) * 3e-6 + 2 * (W - 1) / W * N * 2 / (0.5 * 1e10),
%!         1e-12);
%! assert (C.time.ns, max (C.ranks.ns_flops / (0.25 * 4e12) + C.ranks.ns_calls * 1e-4),
%!         1e-15);
%! assert (C.time.overhead, 2e-3);
%! C = zero_cost ([64 64; 32 64], 16, "Design", "zero12_allreduce", "Profile", Q);
%! N = C.padded_total;
%! assert (C.time.allreduce, 2 * 15 * 1e-5 + 2 * 15 / 16 * N * 2 / 1e9, 1e-12);

%!test
%! ## the two all-to-alls (to the owners, NS, back) run in sequence: the bandwidth term is
%! ## each call's busiest rank, summed over the two calls, not the busiest rank's total
%! ## (costmodel review F1).  One 4096 x 4096 matrix on 8 ranks (one H100 node: 3 us,
%! ## 450 GB/s x 0.8): every rank holds 512 rows; the owner (rank 0; LPT's, and
%! ## expert_parallel's partition is the same 512 rows a rank) receives 7 x 512 x 4096 bf16
%! ## elements in the first call and sends them in the second
%! one = 7 * 512 * 4096 * 2;                             # bytes of one call's busiest rank
%! want = 2 * 7 * 3e-6 + 2 * one / (450e9 * 0.8);       # 205.1 us (the review's figure)
%! assert (round (want * 1e7), 2051);
%! d = {"alltoall_owner", "muon_bp", "expert_parallel"};
%! S = struct (zero_cost ([4096 4096], 8, "Design", d));
%! for c = S
%!   assert (c.time.all_to_all, want, 1e-15);
%!   assert ([c.calls(1,6) c.sent(1,6) c.recv(1,6)], [2 one one]);   # the counters' totals
%! endfor
%! ## the ranking it changes: [3136 3072; 512 2432] on 8 ranks.  alltoall_owner: rank 0 owns
%! ## the large matrix and gathers 7 of its 8 shards of 392 rows; expert_parallel: its
%! ## stage-2 partition S = total / 8 (16 | total), rank 0 (the LPT owner of the large one)
%! ## lacks all of it but its S, rank 1 owns the small one
%! a2a = @(b) 2 * 7 * 3e-6 + 2 * b * 2 / (450e9 * 0.8);
%! tot = 3136 * 3072 + 512 * 2432;
%! S = struct (zero_cost ([3136 3072; 512 2432], 8, "Design",
%!                        {"alltoall_owner", "muon_bp", "expert_parallel", "moonlight_gather"}));
%! assert (arrayfun (@(c) c.time.all_to_all, S(1:3)),
%!         [a2a(7 * 392 * 3072), a2a(7 * 392 * 3072), a2a(3136 * 3072 - tot / 8)], 1e-15);
%! assert (S(1).time.step > S(4).time.step);             # moonlight_gather is cheaper now
%! txt = evalc ("disp (zero_cost_result (S([1 4])))");
%! assert (! isempty (strfind (txt, "cheapest: moonlight_gather,")));
%! ## a profile of its own: latency and bandwidth of the all-to-all, efficiency
%! Q = struct ("devices_per_node", int32 (8), "mem_bw", 1e11,
%!             "gemm_peak", struct ("double", 1e12, "single", 2e12, "bf16", 4e12, "fp16", 4e12),
%!             "intra", struct ("bandwidth", 1e10, "latency", 1e-6, "efficiency", 0.5,
%!                              "all_to_all", struct ("latency", 5e-6, "bandwidth", 2e10)),
%!             "inter", struct ("bandwidth", 1e9, "latency", 1e-5),
%!             "gemm_efficiency", 0.25, "ns_call_overhead", 1e-4, "step_overhead", 2e-3);
%! c = zero_cost ([64 48; 40 48; 8 48], 4, "Design", "alltoall_owner", "Profile", Q);
%! ## owners 0, 1, 2 (size order); shards of 16, 10 and 2 rows; rank 0 receives 3 x 16 x 48,
%! ## rank 1 3 x 10 x 48, rank 3 sends 16 + 10 + 2 rows: the busiest call moves rank 0's
%! ## 48 rows (its total, 48 + 12 rows, is not a call's)
%! assert (c.time.all_to_all, 2 * 3 * 5e-6 + 2 * 48 * 48 * 2 / (0.5 * 2e10), 1e-18);

%!test
%! ## peak memory past the profile's memory_bytes: summary.memory_over and "over memory" in
%! ## the display; the ranking ignores it (a profile of its own with 72 kB a device)
%! Q = struct ("devices_per_node", 8, "mem_bw", 1e11, "memory_bytes", 72e3,
%!             "gemm_peak", struct ("double", 1e12, "single", 2e12, "bf16", 4e12, "fp16", 4e12),
%!             "intra", struct ("bandwidth", 1e10, "latency", 1e-6),
%!             "inter", struct ("bandwidth", 1e9, "latency", 1e-5));
%! d = {"zero12_allreduce", "zero2_slice_only", "alltoall_owner", "layerwise_lpt"};
%! S = struct (zero_cost ({[64 64], [32 64], [96 32]}, 4, "Design", d, "Profile", Q));
%! s = [S.summary];
%! over = [s.memory_max] > 72e3;
%! assert (any (over) && ! all (over));
%! assert ([s.memory_over], over);
%! txt = evalc ("disp (zero_cost_result (S))");
%! for k = 1:numel (d)
%!   row = regexp (txt, ["\n  " d{k} " [^\n]*"], "match", "once");
%!   assert (! isempty (strfind (row, "over memory")), over(k), d{k});
%! endfor
%! assert (! isempty (strfind (txt, "over memory: past the profile's device memory, still ranked")));
%! t = arrayfun (@(c) c.time.step, S);
%! ok = ! ismember (d, zero_cost_result.wrong_designs ());
%! t(! ok) = Inf;
%! [~, b] = min (t);
%! assert (! isempty (strfind (txt, ["cheapest: " d{b} ","])));
%! ## without memory_bytes nothing is over; the H100 profile's is 80 GB
%! Q = rmfield (Q, "memory_bytes");
%! S = struct (zero_cost ({[64 64], [32 64], [96 32]}, 4, "Design", d, "Profile", Q));
%! assert ([[S.summary].memory_over], false (1, 4));
%! C = zero_cost ([4096 4096], 8, "Design", "alltoall_owner");
%! assert (C.summary.memory_over, C.summary.memory_max > 80e9);

%!test
%! ## the designs without all-to-all keep their times exactly (the values before the
%! ## costmodel review's F1 fix): their calls are balanced, one busiest rank for all
%! S = struct (zero_cost ([3136 3072; 512 2432], 8, "Design",
%!                        {"zero3_round_robin", "moonlight_gather", "zero2_multi_owner"}));
%! assert ([S(1).time.allreduce S(1).time.all_gather S(1).time.step], ...
%!         [0.00014776782222222223 0.00086517884444444447 0.0026833045338788171]);
%! assert ([S(2).time.reduce_scatter S(2).time.all_gather],
%!         [7.3883911111111115e-05 7.3883911111111115e-05]);
%! assert ([S(3).time.allreduce S(3).time.step], [0.00013566186666666668 0.0018290808095684907]);
%! S = struct (zero_cost ([123 1850; 660 389; 132 2811], 8, "Design", "layerwise_lpt"));
%! assert ([S.time.reduce_scatter S.time.step], [3.5430577777777781e-05 6.4025088538759614e-05]);
%! S = struct (zero_cost ([1000 300; 77 512; 4096 11; 5 5], 24, "Design", "zero12_allreduce"));
%! assert ([S.time.allreduce S.time.step], [0.00049685060000000006 0.00054245297604276984]);

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
