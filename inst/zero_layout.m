## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later
##
## This program is free software: you can redistribute it and/or modify it under the terms
## of the GNU General Public License as published by the Free Software Foundation, either
## version 3 of the License, or (at your option) any later version.

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{L} =} zero_layout (@var{shapes}, @var{world})
## @deftypefnx {muonlab} {@var{L} =} zero_layout (@dots{}, @var{name}, @var{value}, @dots{})
## The ZeRO-1/2/3 partition layout of a list of parameter matrices over @var{world}
## data-parallel ranks, as DeepSpeed builds it.
##
## @var{shapes} is a cell array of @code{[rows cols]} pairs, or a P x 2 matrix with one
## parameter per row, or a model from @code{muon_model} (the object or its plain struct,
## @code{struct (M)}, as @code{zero_cost} takes): its Muon matrices in checkpoint order,
## their names in @code{L.names}, their expert pages and fused row blocks in
## @code{L.blocks} (which @code{zero_muon_step}, @code{zero_train_step} and
## @code{zero_cost} then run per block, as for the model itself).  @var{world} is the
## number of ranks (a positive integer).  Each matrix is flattened @strong{row-major}, as
## torch and DeepSpeed do, so a partition cut falls between two rows or inside one.
##
## Options (names are case-insensitive):
## @table @asis
## @item @qcode{"Stage"}
## 1 or 2 (default 2): one flat buffer, the parameters back to back, its total padded up to a
## multiple of @var{AlignFactor} * @var{world} and cut into @var{world} equal partitions.
## 3: every parameter is padded on its own to a multiple of @var{world} and split into
## @var{world} pieces of @code{ceil (numel / world)} elements (zero padding at the tail).
## @item @qcode{"AlignFactor"}
## DeepSpeed's @code{nccl_start_alignment_factor}: a positive integer, at most 1048576
## (default 2); stages 1 and 2 only.
## @item @qcode{"Order"}
## @qcode{"given"} (default) or @qcode{"size_desc"}: DeepSpeed's Muon order, a stable sort
## by shape, largest first: by rows, then by columns (its @code{sorted (params,
## key=lambda x: x.size (), reverse=True)} compares each @code{torch.Size} as a tuple), so
## a 256 x 64 comes before a 64 x 256 and a 192 x 64, and the 192 x 64 before the
## 64 x 256.
## @end table
##
## @strong{Indexing.}  Ranks, element offsets and row indices are @strong{0-based} and every
## range is half-open @code{[start stop)}, as in DeepSpeed: rank @var{r} is described by
## @code{L.ranks(r+1)}, and the elements @code{[a b)} of a matrix @var{G} are
## @code{reshape (G.', 1, [])(a+1:b)}; rows @code{[a b)} are @code{G(a+1:b, :)}.  Parameter
## indices are 1-based: @code{L.params(p)} describes @code{shapes@{p@}}.
##
## @var{L} is a @code{zero_layout_result}: read like a struct (@code{struct (L)} gives
## one), shown at the prompt as a short table of the ranks.  Its fields:
## @table @code
## @item stage, world, align_factor
## the options used (align_factor is reported at stage 3 too, where it has no effect).
## @item order_mode
## @qcode{"given"} or @qcode{"size_desc"}.
## @item order
## 1 x P: @code{order(k)} is the parameter in the k-th place of the flat buffer.
## @item total
## the number of parameter elements.
## @item padded_total
## the length of the flat buffer with padding (= @var{world} * @code{partition_size}).
## @item partition_size
## elements per rank.
## @item padding
## @code{padded_total - total}.
## @item params
## P x 1 struct array, in the order of @var{shapes}, with fields @code{index} (p),
## @code{rows}, @code{cols}, @code{numel}, @code{offset} (first element in the flat buffer),
## @code{padded_numel} (elements it occupies there: @code{numel} at stages 1-2,
## @code{ceil (numel / world) * world} at stage 3), @code{slot} (its place k in
## @code{order}: @strong{1-based}, where @code{zero_cost}'s @code{C.params.slot} counts
## from 0), @code{owners} (row vector of the ranks that hold part of it),
## @code{straddles} (true when it has more than one owner) and @code{owner_ranges}, a
## @code{numel (owners)} x 2 matrix whose row k is the @code{[start stop)} of its elements
## that rank @code{owners(k)} holds; the rows tile @code{[0 numel)} in order.  (A rank r
## that is no owner holds none: @code{owner_ranges(r - owners(1) + 1,:)} where
## @code{any (owners == r)}.  No table over every rank: a model's tens of thousands of
## parameters on thousands of ranks would need gigabytes.)
## @item ranks
## @var{world} x 1 struct array with fields @code{rank} (r), @code{start} and @code{stop}
## (the rank's partition, @code{[r S, (r+1) S)} with S = @code{partition_size}),
## @code{padding} (how many of its elements are padding) and @code{params}, one entry per
## parameter it holds part of, in the order they sit in its partition, with fields
## @code{param} (index p), @code{local} (@code{[start stop)} within the parameter),
## @code{flat} (the same elements in the flat buffer), @code{part} (their place in the rank's
## partition, @code{[0 S)}), @code{rows} (@code{[start stop)} of the rows touched),
## @code{whole_rows} (true when the piece is exactly those rows) and @code{partial_rows} (the
## rows touched but owned only in part: none, one or two row indices).
## @item names
## for a model's layout, the model's names of @code{params} in order; @code{@{@}} else.
## @item blocks
## for a model's layout, a struct: @code{experts} (P x 1, each matrix's expert count, 1 for
## none) and @code{split} (P x 1 cell, its fused row blocks, [] for none), the defaults of
## the steps' @qcode{"Experts"} and @qcode{"SplitRows"}; [] else.
## @end table
##
## At stages 1 and 2 the flat buffer is the parameters back to back in @code{order} and rank
## r owns @code{[r S, (r+1) S)} of it.  At stage 3 it is the parameters back to back, each
## padded to @code{padded_numel}; rank r holds elements @code{[r c, (r+1) c)} of each
## parameter (c = @code{padded_numel / world}), and its partition is those chunks in
## @code{order}, so @code{start}/@code{stop} index the ranks' partitions laid end to end.
##
## @example
## L = zero_layout (@{[3 4], [2 5], [4 4]@}, 2);
## L.params(2).owners         # [0 1]: the 2 x 5 matrix straddles the cut at 20
## L.ranks(2).params(1).rows  # [1 2]: rank 1 holds part of its row 1
## @end example
## @seealso{zero_plot_layout}
## @end deftypefn

function L = zero_layout (shapes, world, varargin)

  if (nargin < 2)
    print_usage ();
  endif
  blocks = [];
  [ismodel, s, names, e, b] = model_muon ("zero_layout", shapes);
  if (ismodel)                          # a model (or its struct): its Muon matrices
    blocks = struct ("experts", e, "split", {b});
    shapes = s;
  endif
  S = shapes_matrix (shapes);
  wmax = core_lists ().limits.zero_max_world;
  if (! (isnumeric (world) && isreal (world) && isscalar (world) && world >= 1
         && world == fix (world) && world <= wmax))
    error ("muonlab:badArg", "zero_layout: WORLD must be a positive integer (at most %d).",
           wmax);
  endif
  opts = parse_options ("zero_layout", "zero_layout", varargin);

  [par, pieces, ranks, info] = __muon_zero_layout__ (S, double (world), opts);
  check_flat_size ("zero_layout", info(2));   # the offsets exact as doubles

  P = rows (par);
  W = double (world);
  L.stage = opts.stage;
  L.world = W;
  L.align_factor = opts.align_factor;
  L.order_mode = opts.order;
  [~, L.order] = sort (par(:,6).');
  L.total = info(1);
  L.padded_total = info(2);
  L.partition_size = info(3);
  L.padding = info(4);

  params = struct ("index", num2cell ((1:P).'), "rows", num2cell (par(:,1)),
                   "cols", num2cell (par(:,2)), "numel", num2cell (par(:,3)),
                   "offset", num2cell (par(:,4)), "padded_numel", num2cell (par(:,5)),
                   "slot", num2cell (par(:,6)), "owners", [], "straddles", [],
                   "owner_ranges", []);
  ## each parameter's pieces, rank by rank (they come rank by rank, and sort is stable):
  ## an owner holds one piece of it
  [~, k] = sort (pieces(:,2));
  ranges = mat2cell (pieces(k,3:4), accumarray (pieces(:,2), 1, [P 1]), 2);
  for p = 1:P
    params(p).owners = par(p,7):par(p,8);
    params(p).straddles = logical (par(p,9));
    params(p).owner_ranges = ranges{p};
  endfor
  L.params = params;

  empty = struct ("param", {}, "local", {}, "flat", {}, "part", {}, "rows", {},
                  "whole_rows", {}, "partial_rows", {});
  rk = struct ("rank", num2cell ((0:W-1).'), "start", num2cell (ranks(:,1)),
               "stop", num2cell (ranks(:,2)), "padding", num2cell (ranks(:,3)),
               "params", []);
  ## the pieces' fields as cell columns, once.  DeepSeek-V3 at W = 256, stage 3, has 11.7 M
  ## pieces, and a value of its own per piece and field took 10 GB and 28 s: the fields
  ## that repeat (a piece's place in its matrix and its rows repeat for every matrix of one
  ## shape, its place in the partition for every rank at stage 3) hold one value per
  ## distinct one, shared by reference (4.4 GB, 15 s)
  c = pieces;
  len = c(:,4) - c(:,3);
  col = @(x) num2cell (x, 2);
  [u, ~, j] = unique (c(:,7:10), "rows");
  rows_fields = {col(u(:,1:2)), col(! (u(:,3) | u(:,4))), partial_rows(u)};
  f = {shared(c(:,2)), shared(c(:,3:4)), col([c(:,5), c(:,5) + len]), ...
       shared([c(:,6), c(:,6) + len]), rows_fields{1}(j), rows_fields{2}(j), rows_fields{3}(j)};
  for r = 1:W
    k = ranks(r,4) + (0:ranks(r,5)-1);
    if (isempty (k))
      rk(r).params = empty;
    else
      rk(r).params = struct ("param", f{1}(k), "local", f{2}(k), "flat", f{3}(k),
                             "part", f{4}(k), "rows", f{5}(k), "whole_rows", f{6}(k),
                             "partial_rows", f{7}(k));
    endif
  endfor
  L.ranks = rk;
  L.names = names;                      # a model's names of L.params, in order ({} else)
  L.blocks = blocks;                    # and its experts and fused blocks ([] else)
  L = zero_layout_result (L);

endfunction

## The rows of X as a cell column of 1 x columns (X) values, one value per distinct row,
## shared by every row equal to it.
function v = shared (x)
  [u, ~, j] = unique (x, "rows");
  u = num2cell (u, 2);
  v = u(j);
endfunction

## Each piece's rows cut by the partition (C, columns 7-10 of the pieces as the core lists
## them: its first row, one past its last, whether the first / last row is cut), in
## increasing order, a cell column: [] (0 x 0) for none, one row, or two.
function pr = partial_rows (c)
  a = c(:,1);
  b = c(:,2) - 1;
  ha = c(:,3) != 0;
  hb = c(:,4) != 0;
  pr = cell (rows (c), 1);
  pr(:) = {[]};
  one = (ha & ! hb) | (ha & hb & a == b);
  pr(one) = num2cell (a(one));
  pr(hb & ! ha) = num2cell (b(hb & ! ha));
  two = ha & hb & a != b;
  pr(two) = num2cell ([min(a(two), b(two)), max(a(two), b(two))], 2);
endfunction

## SHAPES as a P x 2 double matrix of positive integers.
function S = shapes_matrix (shapes)
  if (iscell (shapes))
    ok = ! isempty (shapes) && all (cellfun (@(s) isnumeric (s) && numel (s) == 2,
                                             shapes(:)));
    if (ok)
      S = cell2mat (cellfun (@(s) double (s(:).'), shapes(:), "UniformOutput", false));
    endif
  else
    ok = (isnumeric (shapes) && ! isempty (shapes) && ismatrix (shapes)
          && columns (shapes) == 2);
    if (ok)
      S = double (shapes);
    endif
  endif
  if (! ok)
    error ("muonlab:badShape",
           "zero_layout: SHAPES must be a non-empty cell of [rows cols] pairs or a P x 2 matrix.");
  endif
  if (! (isreal (S) && all (S(:) >= 1) && all (S(:) == fix (S(:)))
         && all (S(:) < 2^53)))
    error ("muonlab:badShape",
           "zero_layout: SHAPES must hold positive integer sizes below 2^53.");
  endif
endfunction

%!demo
%! ## three 256 x 256 weights on 2 ranks: the cut falls in the middle of the second
%! L = zero_layout ({[256 256], [256 256], [256 256]}, 2);
%! for p = 1:numel (L.params)
%!   printf ("W%d: elements [%d, %d), owners %s\n", p, L.params(p).offset,
%!           L.params(p).offset + L.params(p).numel, mat2str (L.params(p).owners));
%! endfor
%! h = zero_plot_layout (L);
%! close (h);

%!shared H2, H4, HD, H3
%! H2 = zero_layout ({[3 4], [2 5], [4 4]}, 2);
%! H4 = zero_layout ({[3 4], [2 5], [4 4]}, 4, "AlignFactor", 2);
%! HD = zero_layout ([3 4; 2 5; 4 4], 2, "order", "SIZE_DESC");
%! H3 = zero_layout ({[3 4], [2 5], [4 4]}, 4, "Stage", 3);

## Hand-computed: numel 12, 10, 16, total 38; world 2, align 2: unit 4, padded 40, S = 20.
%!test
%! ## a model's layout keeps its expert pages and fused blocks: zero_cost and the steps on
%! ## the layout (object or struct) plan and run per block, as on the model itself
%! c = struct ("model_type", "mixtral", "vocab_size", 40, "hidden_size", 16,
%!             "intermediate_size", 24, "num_hidden_layers", 1, "num_attention_heads", 2,
%!             "num_key_value_heads", 1, "num_local_experts", 3, "num_experts_per_tok", 2);
%! M = muon_model (c, "Experts", "fused", "Fuse", "all");
%! L = zero_layout (M, 2);
%! mu = strcmp (M.params.route, "muon");
%! assert (L.blocks.experts, M.params.experts(mu));
%! assert (L.blocks.split, M.params.split(mu));
%! assert (isempty (zero_layout ({[2 3]}, 2).blocks));
%! ## the model's plain struct is the model (as zero_cost takes it)
%! Ls = zero_layout (struct (M), 2);
%! assert (struct (Ls), struct (L));
%! assert ([[Ls.params.rows]; [Ls.params.cols]].', [M.params.rows(mu), M.params.cols(mu)]);
%! assert (Ls.names, M.params.name(mu));
%! o = {"Design", "expert_parallel"};
%! C = zero_cost (M, 2, o{:});
%! assert (zero_cost (L, [], o{:}).ranks.ns_calls, C.ranks.ns_calls);
%! assert (zero_cost (struct (L), [], o{:}).ranks.ns_calls, C.ranks.ns_calls);
%! sh = num2cell ([M.params.rows(mu), M.params.cols(mu)], 2).';
%! randn ("state", 3);
%! g = cellfun (@(s) randn (s), repmat (sh, 2, 1), "UniformOutput", false);
%! R = zero_muon_step (L, g, [], "Variant", "expert_parallel", "Assemble", true);
%! assert ([R.ranks.ns_calls], C.ranks.ns_calls(:).');
%! k = find (M.params.experts(mu) > 1, 1);                 # a fused expert weight, per expert
%! avg = (g{1,k} + g{2,k}) / 2;
%! e = rows (avg) / 3;
%! sp = L.blocks.split{k};
%! if (isempty (sp))
%!   sp = e;
%! endif
%! r0 = 0;
%! for x = 1:3
%!   for b = sp(:).'
%!     r = r0 + (1:b);
%!     assert (R.updates{k}(r,:), muon_update (avg(r,:), []), 1e-13);
%!     r0 += b;
%!   endfor
%! endfor
%! Rt = zero_train_step (L, g, [], "Variant", "expert_parallel");
%! assert (max (Rt.rel_err), 0);
%! ## blocks that do not fit the layout's matrices are the layout's fault, not an option's
%! Lb = struct (L);
%! Lb.blocks.experts(k) = 5;
%! try
%!   zero_muon_step (Lb, g, []);
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "muonlab:badType");
%!   assert (strncmp (err.message, "zero_muon_step: L must be a layout from zero_layout (L.blocks: EXPERTS (5) must divide", 86), err.message);
%! end_try_catch
%! ## a layout struct saved before blocks existed is still a layout
%! Lo = rmfield (struct (zero_layout ({[4 6], [6 4]}, 2)), "blocks");
%! assert (zero_cost (Lo, []).ranks.ns_calls, zero_cost (zero_layout ({[4 6], [6 4]}, 2), []).ranks.ns_calls);

%!test
%! assert ([H2.total, H2.padded_total, H2.partition_size, H2.padding], [38 40 20 2]);
%! assert ([H2.params.offset], [0 12 22]);
%! assert ({H2.params.owners}, {0, [0 1], 1});
%! assert ([H2.params.straddles], [false true false]);
%! assert (H2.params(2).owner_ranges, [0 8; 8 10]);
%! assert ({H2.params([1 3]).owner_ranges}, {[0 12], [0 16]});
%! assert ([H2.ranks.padding], [0 2]);
%! assert (H2.order, [1 2 3]);
%!test
%! ## rank 0 holds p1 whole and elements [0 8) of the 2 x 5 p2: row 0 and 3 of row 1
%! pc = H2.ranks(1).params;
%! assert ([pc.param], [1 2]);
%! assert (pc(2).local, [0 8]);
%! assert (pc(2).part, [12 20]);
%! assert (pc(2).rows, [0 2]);
%! assert (pc(2).whole_rows, false);
%! assert (pc(2).partial_rows, 1);
%! pc = H2.ranks(2).params;
%! assert ([pc.param], [2 3]);
%! assert (pc(1).flat, [20 22]);
%! assert (pc(1).part, [0 2]);
%! assert (pc(1).partial_rows, 1);
%! assert (pc(2).flat, [22 38]);
%! assert (pc(2).whole_rows, true);

## world 4: unit 8, padded 40, S = 10; every parameter straddles.
%!test
%! assert ([H4.padded_total, H4.partition_size, H4.padding], [40 10 2]);
%! assert ({H4.params.owners}, {[0 1], [1 2], [2 3]});
%! assert (H4.params(1).owner_ranges, [0 10; 10 12]);
%! assert (H4.params(3).owner_ranges, [0 8; 8 16]);
%! ## the cut at 30 falls between rows 1 and 2 of the 4 x 4 p3
%! pc = H4.ranks(4).params;
%! assert (pc.rows, [2 4]);
%! assert (pc.whole_rows, true);
%! pc = H4.ranks(1).params;
%! assert (pc.rows, [0 3]);
%! assert (pc.partial_rows, 2);
%! assert ([H4.ranks.padding], [0 0 0 2]);

## size_desc: p3 (4 x 4), p1 (3 x 4), p2 (2 x 5); p1 is cut between its rows 0 and 1.
%!test
%! assert (HD.order, [3 1 2]);
%! assert ([HD.params.slot], [2 3 1]);
%! assert ([HD.params.offset], [16 28 0]);
%! assert (HD.params(1).owner_ranges, [0 4; 4 12]);
%! assert (HD.ranks(2).params(1).rows, [1 3]);
%! assert (HD.ranks(2).params(1).whole_rows, true);

%!test
%! ## DeepSpeed's order compares (rows, cols) tuples: 256 x 64, 192 x 64, 64 x 256, 64 x 64
%! ## (by numel the 64 x 256 would come second); ties keep their given order
%! L = zero_layout ({[192 64], [64 64], [256 64], [64 256]}, 4, "Order", "size_desc");
%! assert (L.order, [3 1 4 2]);
%! assert ({L.params.owners}, {[1 2], 3, [0 1], [2 3]});
%! assert (zero_layout ({[2 3], [2 5], [2 3]}, 1, "Order", "size_desc").order, [2 1 3]);
%! C = zero_cost ({[192 64], [64 64], [256 64], [64 256]}, 4, "Order", "size_desc");
%! assert (C(1).params.slot(:).', [1 3 0 2]);

## stage 3: chunks 3, 3, 4; padded 12, 12, 16; S = 10.
%!test
%! assert ([H3.padded_total, H3.partition_size, H3.padding], [40 10 2]);
%! assert ([H3.params.offset], [0 12 24]);
%! assert ([H3.params.padded_numel], [12 12 16]);
%! assert (H3.params(2).owner_ranges, [0 3; 3 6; 6 9; 9 10]);
%! assert ([H3.ranks.padding], [0 0 0 2]);
%! assert (H3.ranks(4).params(2).part, [3 4]);
%! assert (H3.ranks(4).params(2).flat, [21 22]);
%! L = zero_layout ({[1 2]}, 4, "Stage", 3);
%! assert (L.params.owners, [0 1]);
%! assert (L.params.owner_ranges, [0 1; 1 2]);
%! assert ([L.ranks.padding], [0 0 1 1]);

## world 1: one partition, padding to the align factor
%!test
%! L = zero_layout ({[3 3]}, 1, "AlignFactor", 4);
%! assert ([L.padded_total, L.padding, L.params.straddles], [12 3 0]);

%!error <zero_layout: the padded buffer \(9007199254741004 elements\) must hold fewer than 2\^53 elements.> zero_layout ({[2^26 2^26], [2^26 2^26], [3 3]}, 2)
%!error <zero_layout: the padded buffer \(9007199254740992 elements\) must hold fewer than 2\^53 elements\.> zero_layout ({[2^26 2^27]}, 1)
%!error id=muonlab:badShape zero_layout ({[2^26 2^27]}, 1)
%!error <zero_layout: WORLD must be a positive integer \(at most 1048576\).> zero_layout ({[2 2]}, 0)
%!error <zero_layout: WORLD must be a positive integer \(at most 1048576\).> zero_layout ({[2 2]}, 1e9)
%!error <zero_layout: WORLD must be a positive integer \(at most 1048576\)\.> zero_layout ({[2 2]}, 1.5)
%!error <zero_layout: SHAPES must be a non-empty cell of \[rows cols\] pairs or a P x 2 matrix.> zero_layout ({}, 2)
%!error <zero_layout: SHAPES must be a non-empty cell of \[rows cols\] pairs or a P x 2 matrix.> zero_layout ({[1 2 3]}, 2)
%!error <zero_layout: SHAPES must be a non-empty cell of \[rows cols\] pairs or a P x 2 matrix.> zero_layout (ones (2, 3), 2)
%!error <zero_layout: SHAPES must hold positive integer sizes below 2\^53.> zero_layout ({[0 2]}, 2)
%!error <zero_layout: SHAPES must hold positive integer sizes below 2\^53.> zero_layout ([2 2.5], 2)
%!error <zero_layout: SHAPES must hold positive integer sizes below 2\^53.> zero_layout ([2^53 1], 2)
%!error <zero_layout: parameter 1: 4294967296 x 4294967296 elements overflow.> zero_layout ([2^32 2^32], 2)
%!error <zero_layout: STAGE must be 1, 2 or 3.> zero_layout ({[2 2]}, 2, "Stage", 4)
%!error <zero_layout: ALIGNFACTOR must be a positive integer \(at most 1048576\)\.> zero_layout ({[2 2]}, 2, "AlignFactor", 0)
%!error <zero_layout: ALIGNFACTOR must be a positive integer \(at most 1048576\)\.> zero_layout ({[3 4]}, 2, "AlignFactor", 2^20+1)
%!test
%! L = zero_layout ({[3 4]}, 2, "AlignFactor", 2^20);
%! assert (L.padded_total, 2^21);
%!error <zero_layout: ORDER must be 'given' or 'size_desc'.> zero_layout ({[2 2]}, 2, "Order", "asc")
%!error <^zero_layout: unknown option 'Foo'\. Options: .*\.$> zero_layout ({[2 2]}, 2, "Foo", 1)
%!error <zero_layout: options must be NAME, VALUE pairs.> zero_layout ({[2 2]}, 2, "Stage")
%!error <zero_layout: the model has no Muon parameter.> zero_layout (struct ("params", struct ("route", {{"adamw"}}, "rows", 3, "cols", 1, "numel", 3, "experts", 1, "split", {{[]}}, "name", {{"b"}})), 2)
%!error <zero_layout: option names must be strings.> zero_layout ({[2 2]}, 2, 3, 1)
%!error <zero_layout: SHAPES must be a real P x 2 double matrix.> __muon_zero_layout__ (ones (2, 3), 2, struct ())
%!error <zero_layout: unknown order 'x'.> __muon_zero_layout__ ([2 2], 2, struct ("order", "x"))
%!error <zero_layout: stage must be 1, 2 or 3 \(got 5\).> __muon_zero_layout__ ([2 2], 2, struct ("stage", 5))
