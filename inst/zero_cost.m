## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{C} =} zero_cost (@var{model}, @var{world})
## @deftypefnx {muonlab} {@var{C} =} zero_cost (@var{L}, @var{world})
## @deftypefnx {muonlab} {@var{C} =} zero_cost (@var{shapes}, @var{world})
## @deftypefnx {muonlab} {@var{C} =} zero_cost (@dots{}, @var{name}, @var{value}, @dots{})
## What one distributed Muon step costs each of @var{world} ranks, for every design, from
## the shapes alone: no tensor is made and no layout is built, so a trillion-parameter
## model on 16,384 ranks plans in seconds: every design, loading the model included, on 2
## cores, Kimi K2 (1.03e12 parameters) in about 5 s of CPU and DeepSeek-V3 (671e9) in about
## 3.5 s (@code{make bench}'s targets at 16,384 ranks: 8 s for each).
##
## The first argument is a model from @code{muon_model} (the object or @code{struct (M)}:
## its Muon parameters, in checkpoint order, with their expert pages and split rows; the
## AdamW ones only count in the memory),
## a layout from @code{zero_layout} (its matrices, stage, alignment and order;
## @var{world} may be [] for its own), or the matrices themselves: a cell of
## @code{[rows cols]} or a P x 2 matrix.
##
## For each design the plan follows what @code{zero_muon_step} does (the same names; for
## @qcode{"alltoall_owner"}, the all-to-all owner idea of FSDP2 / Dion (owners round robin
## by size, not Dion's padded blocks per shape group): dim-0 shards of
## @code{ceil (rows / W)} rows, a reduce-scatter of the gradients, matrices owned round robin
## in size order, one ragged all-to-all to the owners and one back (real rows only: Dion's
## padded groups move several times more, growing with W); @qcode{"muon_bp"} is planned as
## its full step, a block step moving only the reduce-scatter; @qcode{"expert_parallel"} runs
## each expert page (a model's fused expert weights, or @qcode{"Experts"}) on its expert's
## rank and each matrix without experts on its LPT owner).  Per rank it gives
## the calls and bytes of each collective (the model of @code{muon_collective}: what the
## simulator counts and MPI reports, exactly; a ring's bytes where W divides the count), the Newton-Schulz calls and FLOPs (the count of
## @code{ns_flops}, standard or Gram with restarts, per expert page and split block), the
## momentum, update and master-weight elements, the gather pads and the buffers the step
## allocates.  A machine profile turns that into a step time per phase.
##
## Options (names are case-insensitive):
## @table @asis
## @item "Design"
## a design name, a row or column cellstr of them (the results come in that order), or
## @qcode{"all"} (default: every design of @code{zero_muon_step}).
## @item "Stage", "AlignFactor", "Order", "PadCount"
## the layout (defaults 2, 2, @qcode{"given"}; a layout's own) and the aliased-pad count
## rule, as in @code{zero_layout} and @code{zero_muon_step}.
## @item "Experts", "SplitRows"
## each matrix's expert pages and split row blocks, for shapes and layouts (a model carries its
## own), as in @code{zero_muon_step}: one value for all or one per matrix (at most 4096
## row blocks a matrix, as @code{muon_update} takes).  On a model's layout the one not
## given is the model's own.
## @item "ElementBytes"
## bytes an element on the wire (default 2: bf16 gradients; 8 gives the fp64 counters of
## @code{zero_muon_step}).
## @item "MomentumBytes", "MasterBytes", "AdamBytes"
## bytes per momentum element (4), per master weight (4) and per AdamW element of state
## (8: two fp32 moments), for the memory figures.
## @item "Symmetric"
## false (default); true: symmetric products at half cost (as @code{ns_flops}), whatever
## the precision: the count of the GPU's block-symmetric 16-bit products and of the CPU's
## double and single ones (SYRK-style; at small n these do more, e.g. Gram 1.23x the
## model at n = 16, 1.03x at 256: see @code{ns_flops}); the CPU's bf16 path runs the
## general products, the count of false.
## @item "BucketSize"
## Megatron's DDP @code{bucket_size} in elements for @qcode{"layerwise_lpt"} and
## @qcode{"layerwise_ns_cost"}, as in @code{zero_muon_step} (default [], one bucket): their
## owners, one reduce-scatter per bucket (@code{calls}) of its own padded shards
## (@code{partition_size} the sum of a rank's shards, @code{padded_total} W times it); the
## other designs ignore it.
## @item "Profile"
## @qcode{"h100"} (default: an HGX H100 node from public figures, shipped as
## @file{profiles/h100_node.json}), a profile JSON file (in a checkout, @code{make bench}
## writes the one it measures on this CPU; a regular file of at most 16 MiB, as
## @code{muon_model}'s configs: a folder, a FIFO or a device is refused before it is read;
## a relative name is taken from the working folder, not the load path)
## or a struct (the fields of the shipped file: a field out of its
## range, e.g. an efficiency outside (0, 1] or a negative overhead, or one not known, is
## refused, naming it).
## @item "Method", "Steps", "Restarts", "GramMinAspect", "Coefficients", "Precision"
## as in @code{muon_ns} (the default precision is @qcode{"bf16"}: which GEMM rate of the
## profile applies).
## @item "Display"
## @qcode{"off"} (default), @qcode{"final"} (one line at the end) or @qcode{"iter"} (also
## one line per design with its bytes, NS work and the elapsed time), as in @code{optimset}.
## @end table
##
## @var{C} is a @code{zero_cost_result}: typing it prints the designs ranked by step time,
## the cheapest correct one marked; @code{C(k)} is design k (in the order of the list of
## designs), @code{C.design} their names, @code{C.summary.bytes_max} a column over them,
## and @code{struct (C)} the struct array, one element per design, with fields @code{design},
## @code{world}, @code{stage}, @code{elem_bytes}, @code{precision}, @code{method},
## @code{fails} and @code{why} (a design @code{zero_muon_step} would refuse:
## @qcode{"zero3_round_robin_aliased_pads"} on a mixed-size round, @qcode{"layerwise_ns_cost"}
## when the matrices' NS costs pass 2^64, its figures then layerwise_lpt's, and among several
## designs one whose padded buffer holds 2^53 elements or more, its counts then rounded,
## and one whose bytes pass 2^64 (a collective of n elements on W ranks with 8 n W at least
## 2^64, as the communicators' byte counters refuse it, or a rank's bytes of a collective
## at ElementBytes past 2^64, or a rank's transient elements reaching 2^64 - 1, its
## @code{transient} then 2^64), its collectives then left out: @code{calls}, @code{sent} and
## @code{recv} all 0, so its bytes and communication time are 0; a reason of its own comes
## first, the others after @qcode{"; "}; alone such a design is an error), @code{total},
## @code{padded_total}, @code{partition_size}, @code{straddle_total}, @code{nstraddle},
## @code{rounds}, @code{nmatrices}, @code{flops_total} (one NS of every matrix),
## @code{calls}, @code{sent}, @code{recv} (W x 6 per collective: allreduce,
## reduce_scatter, all_gather, broadcast, barrier, all_to_all), and:
## @table @code
## @item ranks
## a table (struct of W x 1 columns): @code{rank} (0-based), @code{ns_calls},
## @code{ns_flops}, @code{momentum}, @code{owned}, @code{master}, @code{pads},
## @code{transient}, @code{bytes_sent}, @code{bytes_recv}, @code{persistent} (bytes kept
## between steps: momentum, master weights and the rank's share of the AdamW master weights
## and moments), @code{memory} (the peak: @code{persistent} plus the step's buffers at
## ElementBytes each) and @code{seconds} (its modelled step: @code{time.comm}, shared, plus
## its own NS and memory passes and the overhead).
## @item params
## a table (P x 1 columns): @code{name} (for a model), @code{rows}, @code{cols},
## @code{experts}, @code{slot} (@strong{0-based}: its place in the flat buffer, the
## layout's 1-based @code{L.params.slot} less 1; for @qcode{"layerwise_lpt"},
## @qcode{"alltoall_owner"} and @qcode{"muon_bp"}, which deal whole matrices out in size
## order, its place in that order (equal sizes: the later first in @qcode{"layerwise_lpt"},
## as Megatron walks them), and for @qcode{"layerwise_ns_cost"} in the order of
## Newton-Schulz cost it deals them), @code{first_owner}, @code{last_owner}, @code{ns_rank}
## (the one rank that orthogonalizes it; -1 when more than one rank does: every owner, every
## rank in @qcode{"reference"}, or the ranks its expert pages are dealt to in
## @qcode{"expert_parallel"}) and @code{ns_flops}.
## @item summary
## @code{bytes_max}, @code{bytes_mean} (sent per rank), @code{ns_flops_max},
## @code{ns_flops_mean}, @code{imbalance} (max / mean NS FLOPs over the ranks; Inf when no
## rank works), @code{idle_ranks} (ranks with no NS), @code{momentum_max},
## @code{persistent_max}, @code{memory_max} (peak), @code{transient_max} (bytes),
## @code{memory_over} (true when @code{memory_max} passes the profile's
## @code{memory_bytes}, a device's memory; false for a profile without it).  The memory
## figures do not enter the time or the ranking: a design past the device's memory is
## still ranked, and marked @samp{over memory} in the display.
## @item time
## seconds per phase under the profile, the same fields for every design:
## @code{allreduce}, @code{reduce_scatter}, @code{all_gather} and @code{all_to_all} (0 for
## one the design does not use; the flat ring model: calls x ring steps x latency + bytes /
## bandwidth, NVLink-class inside a node, network between nodes, the calls in sequence:
## the bytes are each call's busiest rank's, summed over the calls, so for the two
## all-to-alls of @qcode{"alltoall_owner"}, @qcode{"muon_bp"} and
## @qcode{"expert_parallel"}, to the owners and back with Newton-Schulz between, twice the
## busiest rank's of one call, not the busiest rank's total), @code{comm} (their sum),
## @code{ns} (the slowest rank's FLOPs / GEMM rate plus a launch overhead per call),
## @code{memory} (the slowest rank's elementwise passes at memory bandwidth: the local
## gradients, the step's buffers and the momentum), @code{overhead} (the profile's fixed
## cost of a step) and @code{step} (the sum of the phases, each phase's slowest rank:
## phases synchronised by their collectives, no overlap assumed; so at least the largest
## of @code{ranks.seconds}, above it where the slowest NS and memory ranks differ).
## @end table
##
## @example
## M = muon_model ("llama-3.1-8b");
## C = zero_cost (M, 64, "Design", @{"zero12_allreduce", "layerwise_lpt"@});
## C                           # the designs ranked by step time, the cheapest marked
## C.summary.bytes_max         # bytes each design sends per rank
## C(2).summary.imbalance      # LPT's max / mean NS work
## @end example
## @seealso{muon_model, zero_muon_step, zero_layout, ns_flops, muon_export}
## @end deftypefn

function C = zero_cost (what, world, varargin)
  fname = "zero_cost";
  if (nargin < 2)
    print_usage ();
  endif
  persistent designs colls own;
  if (isempty (designs))
    [designs, colls] = __muon_zero_cost__ ();        # the core's names (core/zero/zero_cost.c)
  endif

  ## what is planned
  [shapes, experts, split, names, adamw, L] = planned (fname, what);
  if (isempty (world) && ! isempty (L))
    world = L.world;
  endif
  ## the core's limits, defined once: the layout's, and the ring model's that counts bytes
  wmax = min (core_lists ().limits.zero_max_world, core_lists ().limits.comm_max_world);
  if (! (isnumeric (world) && isreal (world) && isscalar (world) && world >= 1
         && world == fix (world) && world <= wmax))
    error ("muonlab:badArg", "%s: WORLD must be a positive integer (at most %d).", fname, wmax);
  endif
  W = double (world);

  ns = parse_options (fname, "zero_cost", varargin);
  if (isempty (own))                    # field, Name of this function's own options
    own = own_options ();
  endif
  v = struct ();
  for k = 1:rows (own)                  # this function's own options out of the NS ones
    v.(own{k,2}) = ns.(own{k,1});
  endfor
  ns = rmfield (ns, own(:,1));
  if (! (isempty (v.Experts) && isempty (v.SplitRows)))
    if (! isempty (names))
      error ("muonlab:badArg",
             "%s: EXPERTS and SPLITROWS are for shapes and layouts; a model carries its own.",
             fname);
    endif
    [E, S] = deal (v.Experts, v.SplitRows);
    if (! isempty (L))                  # the one not given: a model layout's own
      [E, S] = zero_layout_blocks (L, E, S, fname);
    endif
    [experts, split] = zero_blocks (fname, E, S, shapes);
    experts = experts(:);
    split = split(:);                   # P x 1, as a model's
    if (all (cellfun ("isempty", split)))
      split = [];
    endif
  endif
  if (ns.steps == 0)                    # the schedule's default count, as muon_ns
    k = max (rows (ns.coeffs), 1);      # (no schedule given: keller, one triple)
    ns.steps = merge (k == 1, 5, k);
  endif
  ## the layout's defaults: the planned layout's own, else zero_layout's
  layout = {"Stage", 2, "stage"; "AlignFactor", 2, "align_factor"; "Order", "given", "order_mode"};
  for k = 1:rows (layout)
    if (isempty (v.(layout{k,1})))
      v.(layout{k,1}) = layout{k,2};
      if (! isempty (L))
        v.(layout{k,1}) = L.(layout{k,3});
      endif
    endif
  endfor

  if (ischar (v.Design) && strcmpi (v.Design, "all"))
    which = designs;
  else
    which = v.Design;
    if (ischar (which))
      which = {which};
    endif
    if (! iscellstr (which) || isempty (which) || ! isvector (which))
      error ("muonlab:badArg",
             "%s: DESIGN must be a design name, a row or column cellstr of them or \"all\".",
             fname);
    endif
    which = cellfun (@(d) choose_option (fname, "DESIGN", d, designs), which,
                     "UniformOutput", false);
  endif
  if (! (isnumeric (v.Stage) && isscalar (v.Stage) && any (v.Stage == [1 2 3])))
    error ("muonlab:badArg", "%s: STAGE must be 1, 2 or 3.", fname);
  endif
  a = v.AlignFactor;
  amax = core_lists ().limits.zero_max_align;
  if (! (isnumeric (a) && isreal (a) && isscalar (a) && a >= 1 && a == fix (a) && a <= amax))
    error ("muonlab:badArg", "%s: ALIGNFACTOR must be a positive integer (at most %d).", fname,
           amax);
  endif
  o = struct ("stage", double (v.Stage), "align_factor", double (a),
              "order", choose_option (fname, "ORDER", v.Order, core_lists ().lists.zero_order),
              "pad_count", choose_option (fname, "PADCOUNT", v.PadCount,
                                          core_lists ().lists.zero_pad_count),
              "elem_bytes", pos_num (fname, "ELEMENTBYTES", v.ElementBytes, 64, true),
              "symmetric", double (logical_opt (fname, "SYMMETRIC", v.Symmetric)),
              "bucket_size", v.BucketSize);   # [] one bucket (the layer-wise designs')
  mb = pos_num (fname, "MOMENTUMBYTES", v.MomentumBytes, 64, false);
  wb = pos_num (fname, "MASTERBYTES", v.MasterBytes, 64, false);
  ab = pos_num (fname, "ADAMBYTES", v.AdamBytes, 64, false);
  prof = load_profile (fname, v.Profile);
  o = copy_fields (o, ns, fieldnames (ns));

  ## one plan per design
  rate = prof.gemm_peak.(ns.precision) * prof.gemm_efficiency;
  if (W <= prof.devices_per_node)
    link = prof.intra;
  else
    link = prof.inter;
  endif
  adam_share = ceil (adamw / W) * (wb + ab);
  pf = [];
  C = struct ([]);
  t0 = tic ();
  for d = 1:numel (which)
    o.design = which{d};
    ## bytes past 2^64: alone an error; among several the design fails, its collectives
    ## left out (the core's overflow_fails)
    o.overflow_fails = double (numel (which) > 1);
    R = __muon_zero_cost__ (shapes, experts, split, W, o);
    if (R.padded_total >= flintmax () && numel (which) > 1)
      ## its counts are not exact as doubles: this design fails, the others are costed
      big = sprintf ("the padded buffer (%.17g elements) must hold fewer than 2^53 elements",
                     R.padded_total);
      R.why = merge (R.fails, [R.why "; " big], big);
      R.fails = true;
    endif
    check_flat_size ("zero_cost", R.padded_total * (numel (which) == 1));
    c = struct ();
    c.design = which{d};
    c.world = W;
    c.stage = o.stage;
    c.elem_bytes = o.elem_bytes;
    c.precision = ns.precision;
    c.method = ns.method;
    c = copy_fields (c, R, {"fails", "why", "total", "padded_total", "partition_size", ...
                            "straddle_total", "nstraddle", "rounds", "flops_total"});
    c.nmatrices = rows (shapes);
    c = copy_fields (c, R, {"calls", "sent", "recv"});

    ## time per phase: the flat ring model; every design has the four collectives' fields
    ## (0 when unused), so the designs' time records stack (muon_export, [S.time])
    T = struct ();
    comm = 0;
    for k = [1 2 3 6]
      t = 0;
      if (any (R.calls(:,k) > 0))
        [lat, bw] = link_of (link, colls{k});
        hops = (W - 1) * (1 + (k == 1));
        ## the calls in sequence: each call's busiest rank, summed over the calls (R.busy)
        t = max (R.calls(:,k)) * hops * lat + R.busy(k) / bw;
      endif
      T.(colls{k}) = t;
      comm += t;
    endfor
    T.comm = comm;
    ns_r = R.ns_flops / rate + R.ns_calls * prof.ns_call_overhead;
    T.ns = max (ns_r);
    touched = (c.total + R.transient + R.momentum) * o.elem_bytes + R.momentum * mb;
    mem_r = touched / (prof.mem_bw * prof.mem_efficiency);
    T.memory = max (mem_r);
    T.overhead = prof.step_overhead;
    T.step = T.comm + T.ns + T.memory + T.overhead;
    c.time = T;

    ## tables
    r.rank = (0:W-1).';
    r = copy_fields (r, R, {"ns_calls", "ns_flops", "momentum", "owned", "master", "pads", ...
                            "transient"});
    r.bytes_sent = sum (R.sent, 2);
    r.bytes_recv = sum (R.recv, 2);
    if (strcmp (which{d}, "reference"))
      r.persistent = R.momentum * mb + R.master * wb + adamw * (wb + ab);
    else
      r.persistent = R.momentum * mb + R.master * wb + adam_share;
    endif
    r.memory = r.persistent + R.transient * o.elem_bytes;
    r.seconds = comm + ns_r + mem_r + prof.step_overhead;
    c.ranks = r;
    if (isempty (pf))
      pf = zero_cost_flops (shapes, experts, split, o);
    endif
    p = struct ();
    if (! isempty (names))
      p.name = names;
    endif
    p.rows = shapes(:,1);
    p.cols = shapes(:,2);
    p.experts = experts;
    if (isempty (p.experts))
      p.experts = ones (rows (shapes), 1);
    endif
    p = copy_fields (p, R, {"slot", "first_owner", "last_owner", "ns_rank"});
    p.ns_flops = pf;
    c.params = p;
    s.bytes_max = max (r.bytes_sent);
    s.bytes_mean = mean (r.bytes_sent);
    s.ns_flops_max = max (R.ns_flops);
    s.ns_flops_mean = mean (R.ns_flops);
    s.imbalance = s.ns_flops_max / s.ns_flops_mean;
    if (s.ns_flops_max == 0)
      s.imbalance = Inf;
    endif
    s.idle_ranks = sum (R.ns_calls == 0);
    s.momentum_max = max (R.momentum) * mb;
    s.persistent_max = max (r.persistent);
    s.memory_max = max (r.memory);
    s.transient_max = max (R.transient) * o.elem_bytes;
    ## past the profile's device memory (its optional memory_bytes): marked, still ranked
    s.memory_over = isfield (prof, "memory_bytes") && s.memory_max > prof.memory_bytes;
    c.summary = s;
    if (isempty (C))
      C = c;
    else
      C(end+1) = c;
    endif
    if (strcmp (v.Display, "iter"))
      printf ("%s: %-32s %10.4g GB sent/rank, NS %10.4g GFLOP max, imbalance %.3g%s  (%.2f s)\n",
              fname, c.design, s.bytes_max / 1e9, s.ns_flops_max / 1e9, s.imbalance,
              merge (c.fails, " FAILS", ""), toc (t0));
    endif
  endfor
  if (! strcmp (v.Display, "off"))
    printf ("%s: %d designs on %d ranks planned in %.2f s\n", fname, numel (C), W, toc (t0));
  endif
  C = zero_cost_result (C);
endfunction

## The matrices to plan: P x 2 shapes, experts (P x 1 or []), split (cell or []), names
## (cellstr or {}), the AdamW elements (a model's) and the layout (or []).
function [shapes, experts, split, names, adamw, L] = planned (fname, what)
  L = [];
  what = layout_plain (what);         # a muon_model or zero_layout result (also one made
  if (isa (what, "muon_result"))      # before `clear functions`), any other result
    what = struct (what);
  endif
  [ismodel, shapes, names, experts, split, adamw] = model_muon (fname, what);
  if (ismodel)
    if (all (cellfun ("isempty", split)))
      split = [];
    endif
  elseif (isstruct (what) && isscalar (what)
          && all (isfield (what, {"world", "stage", "align_factor", "order_mode", "params"})))
    L = what;
    [~, shapes] = zero_check_layout (fname, L);
    [experts, split] = zero_layout_blocks (L, [], [], fname);   # a model layout's own blocks
    experts = experts(:);
    split = split(:);
    if (! iscell (split) || all (cellfun ("isempty", split)))
      split = [];
    endif
  elseif (iscell (what) && ! isempty (what)
          && all (cellfun (@(s) isnumeric (s) && numel (s) == 2, what(:))))
    shapes = cell2mat (cellfun (@(s) double (s(:).'), what(:), "UniformOutput", false));
  elseif (isnumeric (what) && ismatrix (what) && columns (what) == 2 && rows (what) >= 1)
    shapes = double (what);
  else
    error ("muonlab:badArg",
           "%s: the first argument must be a model from muon_model, a layout from zero_layout, or shapes (a cell of [rows cols] or a P x 2 matrix).",
           fname);
  endif
  if (! (isreal (shapes) && all (isfinite (shapes(:))) && all (shapes(:) >= 1)
         && all (shapes(:) == fix (shapes(:)))))
    error ("muonlab:badShape", "%s: every shape must be two positive integers.", fname);
  endif
endfunction

function [lat, bw] = link_of (link, coll)
  lat = link.latency;
  bw = link.bandwidth;
  if (isfield (link, coll) && isstruct (link.(coll)))
    c = link.(coll);
    if (isfield (c, "latency"))
      lat = c.latency;
    endif
    if (isfield (c, "bandwidth"))
      bw = c.bandwidth;
    endif
  endif
  bw *= link.efficiency;
endfunction

function x = pos_num (fname, what, x, hi, integer)
  if (! (isnumeric (x) && isreal (x) && isscalar (x) && x > 0 && x <= hi
         && (! integer || x == fix (x))))
    error ("muonlab:badArg", "%s: %s must be a positive %s of at most %d.", fname, what,
           merge (integer, "integer", "number"), hi);
  endif
  x = double (x);
endfunction

## s with the fields names (a cellstr) of R
function s = copy_fields (s, R, names)
  for f = names(:).'
    s.(f{1}) = R.(f{1});
  endfor
endfunction

function tf = logical_opt (fname, what, x)
  if (! (isscalar (x) && (islogical (x) || (isnumeric (x) && any (x == [0 1])))))
    error ("muonlab:badArg", "%s: %s must be true or false.", fname, what);
  endif
  tf = logical (x);
endfunction

## The options zero_cost reads itself (a row per option: field, Name), from its option
## table (option_spec): every row but the Newton-Schulz ones it passes on to the cost model.
function own = own_options ()
  S = option_spec ("zero_cost");
  ns = option_spec ("muon_ns").field;
  k = ! ismember (S.field(1:S.nown), ns);
  own = [S.field(k); S.names(k)].';
endfunction

%!error <zero_cost: BUCKETSIZE must be a positive integer \(at most 2\^53\)\.> zero_cost ([4 4], 2, "BucketSize", 0)
%!error <Invalid call> zero_cost ()
%!error <zero_cost: WORLD must be a positive integer \(at most 65536\).> zero_cost ([4 4], 0)
%!error <zero_cost: WORLD must be a positive integer \(at most 65536\).> zero_cost ([4 4], 65537)
%!error <zero_cost: WORLD must be a positive integer \(at most 65536\)\.> zero_cost ([4 4], 2.5)
%!error <zero_cost: every shape must be two positive integers\.> zero_cost ([4 0], 2)
%!error id=muonlab:badShape zero_cost ([4 0], 2)
%!error <zero_cost: the first argument must be a model from muon_model, a layout from zero_layout, or shapes \(a cell of \[rows cols\] or a P x 2 matrix\)\.> zero_cost ("x", 2)
%!error <zero_cost: EXPERTS and SPLITROWS are for shapes and layouts; a model carries its own.>
%! zero_cost (muon_model ("llama-3.1-8b"), 2, "Experts", 2)
%!error <zero_cost: EXPERTS \(2\) must divide the 5 rows of parameter 1.>
%! zero_cost ([5 4], 2, "Experts", 2)
%!error <zero_cost: DESIGN must be a design name, a row or column cellstr of them or "all"\.> zero_cost ([4 4], 2, "Design", {"zero12_allreduce", "zero3_round_robin"; "layerwise_lpt", "alltoall_owner"})
%!test
%! ## the results come in the order asked, a row or a column
%! d = {"layerwise_lpt"; "zero12_allreduce"};
%! assert (zero_cost ([4 4; 6 4], 2, "Design", d).design, d);
%! assert (zero_cost ([4 4; 6 4], 2, "Design", d.').design, d);

%!demo
%! ## Llama-3.1-70B on 512 H100s: bytes, NS work and memory per rank, by design
%! C = zero_cost (muon_model ("llama-3.1-70b"), 512)
%! printf ("%-32s %12s %10s %10s %10s\n", "design", "sent/rank", "NS ms", "imbalance",
%!         "peak mem");
%! for c = struct (C)
%!   printf ("%-32s %9.2f GB %10.1f %10.1f %7.2f GB\n", c.design, c.summary.bytes_max / 1e9,
%!           1e3 * c.time.ns, c.summary.imbalance, c.summary.memory_max / 1e9);
%! endfor
