## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {[@var{R}, @var{state}] =} zero_muon_step (@var{L}, @var{rank_grads}, @var{state})
## @deftypefnx {muonlab} {[@var{R}, @var{state}] =} zero_muon_step (@dots{}, @var{name}, @var{value}, @dots{})
## @deftypefnx {muonlab} {} zero_muon_step ("release")
## One data-parallel Muon step on W ranks, in the design of a real system, correct or buggy.
##
## @var{L} is a layout from @code{zero_layout} (its world W, stage, alignment and order).
## @var{rank_grads} is a cell with one row per rank this process drives and one column per
## parameter: W x P on simulated ranks (the default), 1 x P for this rank under MPI.
## Each entry is that rank's local gradient of the parameter, a real rows x cols matrix
## (single is taken as double).  Nothing passed in is modified.  @var{state} is @code{[]} for
## the first step or the @var{state} returned by the previous call with the same layout,
## variant and communicator: each rank's momentum as the variant holds it, so steps chain and
## the memory each rank holds is real (a @code{muon_state}: typed, a summary; read as a
## struct; @code{struct (state)} is taken too).  Any other @var{state} (a cell, a momentum that is
## not one buffer per rank, as @code{state.momentum = @{@}}) is a @code{muonlab:badState}
## error, never a silent restart from zero momentum.
##
## Every variant averages the gradients over the ranks (the communicator's rank-order sum,
## then one division), runs the Muon update of @code{muon_update} where its design runs it,
## and leaves each rank the update of the elements it owns.  Element ranges are of the
## ROW-major matrix, as in the flat buffer of @code{zero_layout}.
## @table @code
## @item reference
## all-reduce; every rank updates every matrix (DDP).  The oracle of the others.
## @item zero12_allreduce
## all-reduce; each rank updates every matrix it owns a piece of (redundantly on the owners
## of a straddling matrix, each holding its full momentum) and keeps its pieces (DeepSpeed
## ZeRO-1/2 with reduce_scatter off).
## @item zero2_reduce_scatter_buggy
## reduce-scatter; each rank orthogonalizes the matrix it sees, averaged on its own
## partition and LOCAL elsewhere, and keeps its pieces (DeepSpeed #7807).  Wrong on
## straddling matrices only.  LOCAL is the rank's own gradient, as the DeepSpeed issue
## states the bug; DeepSpeed's @code{average_tensor} divides its bucket by W in place before the
## reduce, so in its code the part a rank does not own is its gradient / W, which bends
## the update somewhat less.
## @item zero2_slice_only
## reduce-scatter; each rank orthogonalizes only the block of rows its piece touches, with
## the elements it does not own set to zero and the scale of the block's shape, and holds
## momentum for its own elements only (the naive sharded model).
## @item zero2_multi_owner
## reduce-scatter plus an all-reduce of the straddling matrices, so each owner has their
## full average (DeepSpeed PR 8141).  The bytes counted are those of that model: PR 8141
## sends a straddling matrix's slices through its all-reduce bucket instead of the reduce,
## so DeepSpeed moves the straddlers' share of the reduce-scatter less.
## @item zero3_round_robin
## DeepSpeed stage 3: all-reduce of the gradients, all-gather of the momentum chunks, matrix
## in flat slot s updated by rank mod (s, W) (DeepSpeed deals them out per gradient
## bucket, in the order backward produces them: which rank runs which matrix, and which
## shapes share a round, can differ), then per round an all-gather of the updates
## and of the momenta with distinct zero-filled pads the size of the round's largest matrix.
## Always uses stage-3 chunks (ceil (numel / W) per rank) of L's matrices in L's order.
## @item zero3_round_robin_aliased_pads
## the same with the shipped padding: each slot gathered at its own size and every pad slot
## one uninitialised buffer shaped like the last matrix.  A round whose slots differ in size
## fails with @code{muonlab:badShape} (DeepSpeed PR 8628); same-size rounds survive.
## @item layerwise_lpt
## Megatron's layer-wise optimizer before its PR #6379 (2026-08), its layout of one bucket:
## whole matrices given to ranks by LPT bin packing (the matrices walked last first and
## sorted by element count, largest first, so equal sizes go the later first; each onto the
## rank of fewest elements, where each matrix's start counts rounded up to 64; the lowest
## rank on ties), one reduce-scatter of Megatron's buffer of one bucket, no matrix split.
## The buffer: rank r's shard holds its matrices in the order dealt, each starting at the
## shard's cursor rounded up to 64 elements, and every shard is as long as the longest
## rounded up to 64 elements (even W) or 128 (odd W), zeros in the gaps; the reduce-scatter
## moves W such shards (@code{zero_cost}'s @code{partition_size} and @code{padded_total}).
## With @qcode{"BucketSize"} it is Megatron's layout of several buckets (its DDP's
## @code{bucket_size}, set by default with @code{overlap_grad_reduce}): the walk, last
## first, closes a bucket before a matrix once the bucket holds at least
## @code{max (BucketSize, fix (0.9 W m))} elements (m its largest matrix's) and the matrix
## would grow the bucket's padded shards (Megatron's estimate: the walk dealt unsorted to
## the least-loaded shard); each bucket is sorted, dealt (the cursors from 0) and padded as
## the one bucket above, the buckets lie back to back and each has its own reduce-scatter,
## in order.  Owners and bytes then differ from one bucket's; updates stay the reference's.
## @item layerwise_ns_cost
## Megatron's layer-wise optimizer since that PR (its layout of one bucket): the matrices
## walked last first, sorted by the Newton-Schulz cost max (m, n) min (m, n)^2 (equal costs:
## the later matrix first), each to the rank of least accumulated cost among those whose
## elements, each matrix's start rounded up to 64, stay within 1.3 x total / W with it, else
## to the rank of fewest (those padded) elements; the same buffer, reduce-scatter and whole
## matrices as @code{layerwise_lpt}.  On mixed aspect
## ratios the owners differ: @{8192 x 9, 256 x 256, 256 x 256@} on 2 ranks has NS imbalance
## 1.97 under @code{layerwise_lpt} and 1.01 here (@code{zero_cost}).  A matrix's cost is that
## of its whole rows x cols: Megatron's experts are matrices of their own.  With
## @qcode{"BucketSize"} the buckets of @code{layerwise_lpt}, each bucket dealt under its own
## 1.3 x (bucket's elements) / W cap, the accumulated costs carried from bucket to bucket
## (as Megatron since that PR).
## @item moonlight_gather
## ZeRO-1 with Moonlight's DP gather: reduce-scatter, momentum on the partition, one
## all-gather of the straddling matrices' pieces, NS on each full matrix.
## @item alltoall_owner
## the all-to-all owner idea of FSDP2 Muon and Dion (not Dion's owner rule, which gives each
## rank a block of every group of same-shape matrices, padded with zero matrices to a
## multiple of W, with a pair of all-to-alls per group): each rank holds a dim-0 (row) shard of
## every matrix (rows @code{r*rc+1 : (r+1)*rc}, @code{rc = ceil (rows / W)}, the last ranks
## fewer or none) with its momentum; a reduce-scatter of the shards (padded to rc rows)
## averages the gradients; each matrix has one owner rank (round robin over the matrices by
## size, largest first); one all-to-all brings each owner the other shards of its matrices'
## Newton-Schulz input, the owner orthogonalizes the full matrix, and a second all-to-all
## returns each rank its rows.  The all-to-alls are ragged: real rows only, no zero
## matrices, nothing sent to itself, so a rank moves about twice its shard, which falls as
## 1/W, where the all-gather designs move whole matrices.  Dion pads every shard to rc rows
## and every shape group to a multiple of W matrices, Npad rc cols per rank and group, which
## grows with W for distinct shapes (5 small matrices: 1584, 2736, 3584 bytes a rank at W 2,
## 4, 8, where this design moves 768, at most 672, at most 544).  Ignores L's stage and order (only its
## shapes and W count); @code{zero_cost}'s @qcode{"alltoall_owner"} is its plan.
## @item muon_bp
## block-periodic Muon (MuonBP): the shards and owners of @code{alltoall_owner}; every
## @qcode{"Period"} steps (the first step of a run, and each one whose count of earlier
## steps P divides) the full step of @code{alltoall_owner}, otherwise each rank
## orthogonalizes its own row block alone, with the scale rule of the block's shape, and
## nothing moves after the reduce-scatter.  Period 1 is the reference bit for bit; larger
## periods trade exactness for communication and Newton-Schulz work.
## @item expert_parallel
## ZeRO-2 with expert parallelism (DeepSpeed-MoE; the ZeRO-2 + MoE setting of the Moonlight
## and DeepSeek-V3 AutoEP work), the expert-parallel group being the whole world: the fused
## expert weights (@qcode{"Experts"}) sit in the flat buffer of L and each expert lives on one
## rank, expert e (0-based) of E on rank @code{floor (e*W/E)} (contiguous blocks of experts,
## E/W per rank when W divides E); a matrix without experts has one owner, by LPT after the
## experts (numel descending, onto the least-loaded rank).  A reduce-scatter averages the
## gradients onto L's partition, which holds the momentum; one all-to-all brings each owner
## the pieces of its experts' (and matrices') Newton-Schulz input, the owner orthogonalizes
## each expert once (with its split row blocks) and a second all-to-all returns the pieces:
## @code{ns_calls} shows each expert once, on its owner, and each rank keeps the update of its
## partition.  Equal, bit for bit, to @code{reference} with the same experts.
## @end table
##
## Options (names are case-insensitive):
## @table @asis
## @item "Variant"
## one of the names above (default @qcode{"zero12_allreduce"}).
## @item "Comm"
## @qcode{"sim"} (default: W ranks in this process), or a handle from @code{muon_comm}.
## Under MPI / NCCL the ranks first agree on the layout, the options (but
## @qcode{"Threads"}) as they take effect (a default passed explicitly, true for 1, the
## default schedule by name, agree with the option left out), the state's step, where the
## gradients live (host arrays, or device arrays on which device: the device step runs
## other collectives) and the communicator with its @qcode{"Reduction"}: ranks that differ
## get one @code{muonlab:badArg} each instead of a hang.  A rank whose own arguments fail
## its checks (a gradient of another shape, a momentum or reference buffer in
## @var{state} whose length is not its rank's under the variant's plan) raises its own
## error, and the other ranks the @code{muonlab:badArg} "rank R raised an error (its own
## message says why)".  Ctrl-C does not stop a step with ranks in other processes partway
## (a rank stopped alone would leave the others waiting in a collective): at the terminal it
## reaches every rank, and @code{muon_mpirun} ends the job.
## @item "Reference"
## true (default): also run @code{reference} on the same gradients, in the same call (with
## its own momentum in @var{state}), and report each parameter's error; false skips it (for
## timing), after which the state carries no reference.  On simulated ranks the reference's
## W identical DDP copies are orthogonalized once per matrix (a rank whose momentum is the
## same as the first one's takes its result), and each rank still reports DDP's counters: one
## Newton-Schulz call per matrix and the all-reduce of the flat buffer.
## @item "Assemble"
## true: every rank gets the full updates (free when all ranks are local, an all-gather
## under MPI, not counted in the step's bytes).  Default true with all ranks local, else
## false.
## @item "PadCount"
## @qcode{"deepspeed"} (default) @code{(W - P mod W) mod W} pads, or @qcode{"keller"}
## @code{W - P mod W}, which adds a whole round of pads when W divides P
## (zero3_round_robin_aliased_pads only).
## @item "Period"
## a positive integer, at most 2147483647 (2^31 - 1; default 4): @code{muon_bp} runs a full
## step when the number of steps before this one is a multiple of it (muon_bp only).
## @item "BucketSize"
## Megatron's DDP @code{bucket_size} in elements, a positive integer (at most 2^53), for
## @code{layerwise_lpt} and @code{layerwise_ns_cost} (the other designs ignore it, as they do
## @qcode{"Period"}); default [] is one bucket (Megatron's @code{bucket_size} None).  It
## changes the owners, so a state records it: a state of another bucket size is refused
## (@code{muonlab:badState}), and @code{zero_save_state} / @code{zero_load_state} carry it.
## @item "Experts"
## a positive integer for every parameter, or one per parameter (1 x P; default 1): a
## parameter with E experts is a fused (E*M) x N expert weight, expert e in rows
## @code{(e-1)*M+1 : e*M} (one contiguous range of the row-major flat buffer), and each
## expert is orthogonalized on its own, as @code{muon_update}'s @qcode{"Experts"} does.
## On a layout made from a model, each of @qcode{"Experts"} and @qcode{"SplitRows"} not
## given is the model's own (@code{L.blocks}): a @qcode{"SplitRows"} alone splits the
## model's expert pages, and an @qcode{"Experts"} alone keeps the model's split row blocks
## (which must tile its pages: give both otherwise; a 1 x P cell of [] is no split).
## @item "SplitRows"
## split row blocks (fused QKV, GLM's MuonSplit): a vector of row counts for every parameter,
## or a cell of one vector (or @code{[]}) per parameter; each expert page of the parameter is
## cut into those row blocks (at most 4096), each orthogonalized and scaled on its own, as
## @code{muon_update}'s @qcode{"SplitRows"} does.  Every design takes experts and split
## rows and still runs each block whole, except @code{zero2_slice_only}, whose row blocks of
## pieces are not whole blocks (@code{muonlab:badArg}); @code{muon_bp}'s block steps
## orthogonalize each part of a rank's row shard that lies in one block on its own.
## @item "BlockScale"
## a positive number (default 1) multiplying the updates of @code{muon_bp}'s block steps
## (the scale rule of the block's shape, times @qcode{"ScaleFactor"}, times it): the MuonBP
## paper's block step size over its full one, so that a training loop with the full step's
## learning rate takes both (muon_bp only).
## @item "Beta", "Nesterov", "MomentumForm", "MomentumArith", "Scale", "ScaleFactor"
## the momentum and the update scale, as in @code{muon_update}; the momentum arithmetic
## is fp64 here: @qcode{"MomentumArith"} @qcode{"torch"} is a @code{muonlab:unsupported}
## error (@qcode{"fp64"}, the default, is taken).  The momentum is kept in
## the gradients' class; DeepSpeed keeps it in 16 bits by default (its
## gradient_accumulation_dtype at stages 1-2, communication_data_type at stage 3), which
## a multi-step reproduction of its bits would round (@code{muon_round}) after each step.
## @item @code{muon_ns} options
## every option of @code{muon_ns} (@qcode{"Method"}, @qcode{"Precision"},
## @qcode{"Coefficients"}, @qcode{"Steps"}, @dots{}) but @qcode{"NormScale"},
## @qcode{"EpsPlacement"} and @qcode{"Trace"} (host @code{muon_ns} only); the default
## precision is @qcode{"double"}.
## @end table
##
## Plans belong to the layout: the C layout and what each rank holds and owns under a
## variant are planned by the first step on a layout object @var{L} (@code{zero_layout}'s
## result) and kept in it (@code{zero_plan}), so a later step with the same layout and
## variant plans nothing; they are freed with the last copy of @var{L}.  A layout given as
## a plain struct plans for each call.  @code{R.plans_built} counts the plans this process
## has built (with device gradients, those of the device step, which plans each call: the
## plans are a few index lists, measured at no visible cost against a 200-matrix step).
## The simulated communicator and the per-rank buffers of the largest step are kept too,
## so a step allocates little; @code{zero_muon_step ("release")} gives those back (Octave
## 7's @code{clear mex} does not unload the MEX file, so it frees nothing).
##
## Device arrays: when every entry of @var{rank_grads} is a double @code{muon_gpuarray}
## (@code{muon_gpu (g, "Class", "double")}) on one device, the step of every design runs there,
## buffer for buffer as on the host: the gradients are averaged and the momenta updated and
## orthogonalized where they live, and @code{state.momentum} and each @code{R.ranks(l).update}
## come back as device arrays (but the update of a rank that owns nothing is a host
## @code{zeros (0, 1)}, as a device array cannot be empty; host momenta, as
## @code{zero_load_state} gives them, are
## uploaded (one holding NaN or Inf, which @code{zero_save_state} refuses to save, is a
## @code{muonlab:badState} error naming it: the device takes no such upload); @code{zero_save_state} gathers; a state whose momenta are device arrays needs
## device gradients, else @code{muonlab:badState}).  A communicator that moves device memory moves
## the buffers themselves: @code{muon_comm ("nccl")} on CUDA, with no host staging (under
## @code{muon_mpirun}, rank r runs on GPU @code{mod (r, GPUs per node)}), and @code{muon_comm
## ("mpi")} on the CPU stand-in device; several simulated ranks (@qcode{"sim"}) hold the
## stand-in's arrays only (on CUDA a @code{muonlab:unsupported} error; one rank is its own
## average anywhere).  The average is the communicator's fixed order computed on the device (an
## all-gather, then the rank-order sum and one division; with the library's reduction its sum,
## then one division), so the bits are those of the host step with the Newton-Schulz on the
## same device.  With @qcode{"Assemble"} the owned updates are gathered to the host (every rank
## local only).  Each call plans for itself (the layout's kept plans serve the host step).
##
## Non-finite and overflowing gradients (NaN, Inf, or a gradient whose fp64 sum of squares
## overflows) are not taken: every rank skips the step (under MPI and NCCL one all-reduce of
## a flag makes them agree), @var{state} comes back unchanged, and @var{R} says so
## (@code{skipped} true, @code{skip_reason} naming the first rank and parameter found here,
## zero updates and counters), as @code{muon_step} skips an overflowing step.  The layout
## facts of @var{R} (@code{comm}, @code{counts}, @code{owners}, @code{straddles} and each
## rank's @code{owned}, its @code{update} then zeros of that length) are those of a step
## that runs on the same layout and communicator: the skipped call reads them off the
## variant's plan (its owned ranges, which are the layout's partition for some designs
## only: whole matrices for @code{layerwise_lpt}, stage-3 chunks for the round robins, row
## shards for @code{alltoall_owner} and @code{muon_bp}) and the communicator's kind, after
## the checks a step makes of the options against the plan (a skipped
## @code{zero2_slice_only} step with split rows is refused as a step is), and runs no
## collective and no Newton-Schulz.  So a skipped @code{zero3_round_robin_aliased_pads}
## step on a round of mixed sizes returns, where a step that runs fails in its gather (as
## the shipped design's skipped step never reaches it).
##
## Divergence: a Newton-Schulz result past what its schedule can give (rounding this
## schedule cannot absorb in this precision, or Gram's error over a long schedule) warns
## @code{muonlab:diverged}, as @code{muon_update} does, naming @code{zero_muon_step} and the
## parameters (by index, and by name for a model's layout), and @code{R.diverged} counts
## the blocks.  The check is @code{muon_update}'s bound applied to the elements each local
## rank owns of the variant's update (the reference's is not checked): the t rows of a
## block that a rank's elements touch hold a sum of squares of at most min (t, cols)
## (2 top s)^2, top the largest value of the schedule's composed map on [0, 1] and s the
## scale of the block Newton-Schulz ran on (each row of a matrix whose singular values are
## at most top s has a norm at most top s), which a sound run never exceeds.  The block and
## its scale are the design's: the whole matrix, expert page or split row block for every
## design that orthogonalizes whole blocks (the owner holds the block's result; the
## #7807 reproduction too, on its wrong input); for the designs that orthogonalize parts of
## blocks, the part: the piece's rows for @code{zero2_slice_only} and the rank's rows of a
## block on @code{muon_bp}'s block steps, each with the scale of its own shape (times
## @qcode{"BlockScale"}), as they scale them.  It tells gross divergence (a block blown up
## well past its bound), not a singular value a little past it.  Under MPI / NCCL each
## process checks the elements its own ranks hold and warns on its own (a warning is
## local): ranks may warn, or count, differently.  On device arrays each rank's update is
## measured whole on the device first and read back only when it is over the sum of its
## pieces' bounds (or not finite): a diverged piece whose excess the rest of that rank's
## update absorbs goes untold there.  Non-finite updates are not counted (the step warns
## of them itself).
##
## @var{R} has fields @code{variant}, @code{world}, @code{comm}, @code{counts}
## (@qcode{"measured"} by the simulator, @qcode{"modelled"} under MPI/NCCL), @code{step},
## @code{plans_built} (see above; NaN on a skipped step),
## @code{skipped} and @code{skip_reason},
## and per parameter (1 x P): @code{updates} (the assembled update, rows x cols),
## @code{reference} (the reference's), @code{rel_err} (@code{norm (U - Uref, "fro") /
## (norm (Uref, "fro") + 1e-8)}, the metric of DeepSpeed PR 8091; NaN without a reference or
## assembly), @code{owners} (cell of the ranks that own elements of it) and
## @code{straddles}, @code{diverged} (the number of its blocks, expert pages' split row
## blocks as @code{muon_update} runs them, in which some local rank's elements were flagged
## by the divergence check above; zeros on a skipped step); per local rank @code{ranks},
## a struct array with @code{rank},
## @code{ns_calls} (Newton-Schulz calls: one per matrix, or per expert page of a matrix
## with experts, its split row blocks counting as one), @code{momentum_elements},
## @code{pad_elements}, @code{bytes_sent},
## @code{bytes_recv} (totals), @code{calls}, @code{sent}, @code{recv} (1 x 6, per
## collective: allreduce, reduce_scatter, all_gather, broadcast, barrier, all_to_all), @code{update}
## (its owned elements) and @code{owned} (P x 2 row-major element ranges @code{[start stop)}).
## @var{R} is a @code{zero_step_result} object, not a struct (@code{isstruct (R)} is false):
## its fields read as a struct's, typing @var{R} prints a summary of a few lines per
## parameter and per rank, and @code{struct (R)} gives the plain struct.
##
## @example
## L = zero_layout (@{[64 64], [64 64], [64 64]@}, 2);
## g = arrayfun (@@(k) randn (64), 1:6, "UniformOutput", false);
## R = zero_muon_step (L, reshape (g, 2, 3), [], "Variant", "zero2_reduce_scatter_buggy");
## R.rel_err       # [0 ~0.6 0]: only the straddling middle matrix is wrong
## @end example
## @seealso{zero_layout, muon_update, muon_comm}
## @end deftypefn

function [R, state] = zero_muon_step (L, rank_grads, state, varargin)
  if (nargin == 1 && ischar (L) && strcmp (L, "release"))
    __muon_zero_step__ ("release");     # the communicator and buffers kept here
    return;
  endif
  if (nargin < 3)
    print_usage ();
  endif
  [R, state] = step (L, rank_grads, state_plain (state), varargin{:});
  state = muon_state ("zero_step", state);   # typing it shows a summary, not the buffers
endfunction

function [R, state] = step (L, rank_grads, state, varargin)
  fname = "zero_muon_step";
  ## under MPI / NCCL a rank whose own checks fail (its options too) still joins the
  ## agreement below, so that the others raise too instead of waiting in it
  variants = core_lists ().lists.zero_variant;
  devices = core_lists ().lists.device;
  names = {"layout", "VARIANT", "REFERENCE", "options", "STATE (its step count)", ...
           "device of RANK_GRADS"};
  try
    opts = parse_options (fname, "zero_muon_step", varargin);
    zero_fp64_momentum (fname, opts.arith);
    opts.bucket_size = zero_bucket (opts.variant, opts.bucket_size, L);   # layer-wise only
    want_ref = opts.reference;
    ## layout, communicator and gradients: the checks every zero_* function shares (a light
    ## one of the layout: the step runs in a loop; the checkpoints rebuild it)
    given = L;
    [L, live] = layout_plain (L);
    [W, shapes, L] = zero_check_layout (fname, L, "light");
    P = rows (shapes);
    lopts = struct ("stage", L.stage, "align_factor", L.align_factor, "order", L.order_mode);
    plan = [];                            # a layout object's plans, else this call's (also
    if (live)                             # for one made before `clear functions`: no methods)
      plan = plan_handle (given, shapes, W, lopts);
    endif

    [opts.param_experts, opts.param_split] = ...
      zero_layout_blocks (L, opts.param_experts, opts.param_split, fname);   # a model layout's own
    [opts.param_experts, opts.param_split] = ...
      zero_blocks (fname, opts.param_experts, opts.param_split, shapes);

    comm = opts.comm;
    [ranks, nl] = zero_local_ranks (fname, comm, W);
    assemble = opts.assemble;
    if (isempty (assemble))
      assemble = nl == W;
    endif

    [rank_grads, device] = zero_check_grads (fname, rank_grads, nl, shapes, true);
    if (! isempty (device) && assemble && nl < W)
      error ("muonlab:unsupported",
             "%s: ASSEMBLE with device arrays needs every rank in this process (gather the updates).",
             fname);
    endif

    ## state: new, or a previous call's checked against this call
    key = struct ("variant", opts.variant, "world", W, "shapes", shapes, "stage", L.stage,
                  "align_factor", L.align_factor, "order", L.order_mode, "form", opts.form,
                  "local_ranks", nl, "bucket_size", opts.bucket_size);
    do_ref = want_ref && ! strcmp (opts.variant, "reference");
    state = zero_step_state (fname, state, key, do_ref, device, ranks, shapes, W, lopts, plan);

    ## where the gradients live (host arrays 1, else 1 + the device's index): a device step
    ## runs other collectives than a host step, which would never pair
    place = 1;
    if (! isempty (device))
      place = 1 + find (strcmp (device, devices));
    endif
    ## under MPI / NCCL the ranks' layouts and options must agree, or the collectives below
    ## would hang or pair unlike buffers
    ## (the layout with its expert and row blocks; the options but Threads, which changes
    ## no bit and may differ between processes, as they take effect: a default passed
    ## explicitly is the default, agree_opts)
    sig = [value_hash({shapes, W, lopts, opts.param_experts, opts.param_split}), ...
           find(strcmp (opts.variant, variants)), want_ref + 1, ...
           value_hash(agree_opts (rmfield (setfield (opts, "assemble", assemble), ...
                                           {"comm", "variant", "reference", "threads", ...
                                            "param_experts", "param_split"}))), state.step, ...
           place];
  catch err
    comm_agree (fname, comm_in_args (varargin), [], names);
    rethrow (err);
  end_try_catch
  comm_agree (fname, comm, sig, names, {"hash", variants, {"false", "true"}, "hash", [], ...
                                        [{"none (host arrays)"}, devices]});

  ## non-finite or overflowing gradients: every rank skips the step (muon_step's policy)
  why = zero_bad_gradients (rank_grads, comm);
  if (! isempty (why))
    ## the layout facts of the result (owners, straddles, each rank's owned ranges, the
    ## counts' wording) are the plan's and the communicator's, asked without the step: the
    ## owned spans of the variant's plan (the layout object's, after the step's own checks
    ## of the options against it), the kind of the communicator the agreement above read;
    ## no collective, no Newton-Schulz
    o0 = opts;
    o0.step = state.step;
    owned = __muon_zero_step__ ("owned", shapes, W, lopts, o0, plan);
    R = zero_step_skipped (opts.variant, owned, comm, ranks, shapes, state.step, why);
    return;
  endif

  opts.step = state.step;               # muon_bp's place in its period
  if (! isempty (device))
    [upd, mom, st, full, info, rmom, ref_full] = ...
      zero_device_step (rank_grads, state, opts, shapes, W, lopts, comm, assemble, do_ref,
                        device);
  else
    ## one crossing: the variant's step and, with do_ref, the reference's on the same
    ## gradients
    [upd, mom, st, full, info, rmom, ref_full] = ...
      __muon_zero_step__ (shapes, W, lopts, rank_grads, state.momentum, opts, comm, assemble,
                          do_ref, state.reference, plan);
  endif
  if (strcmp (opts.variant, "reference") && want_ref)
    ref_full = full;
  elseif (do_ref)
    state.reference = per_rank (rmom, nl);
  endif
  state.momentum = per_rank (mom, nl);
  state.step += 1;
  ## the reference design's momentum is the reference's, kept with or without 'Reference'
  state.has_ref = strcmp (opts.variant, "reference") || (state.has_ref && want_ref);

  ## the divergence check of muon_update on the elements this process's ranks own
  names = {};
  if (isfield (L, "names") && iscellstr (L.names) && numel (L.names) == P)
    names = L.names;
  endif
  div = zero_step_diverged (upd, info.owned, info.ranks, shapes, opts, names);
  R = zero_step_report (opts.variant, info, st, upd, full, ref_full, W, P, state.step, div);
endfunction

## The gateway returns the reference's momentum once (a 1 x 1 cell) when every local rank
## holds the same one; the state keeps one entry per rank, copies of one value (shared).
function m = per_rank (m, nl)
  if (numel (m) == 1 && nl > 1)
    m = repmat (m, nl, 1);
  endif
endfunction

%!demo
%! ## DeepSpeed #7807: reduce-scatter before NS is wrong on the matrix that straddles the cut
%! L = zero_layout ({[64 64], [64 64], [64 64]}, 2);
%! randn ("state", 1);
%! g = arrayfun (@(k) randn (64), ones (2, 3), "UniformOutput", false);
%! R = zero_muon_step (L, g, [], "Variant", "zero2_reduce_scatter_buggy")
%! R = zero_muon_step (L, g, [], "Variant", "zero2_multi_owner");
%! R.rel_err                    # the fix (PR 8141): 0 everywhere

%!shared L, g
%! L = zero_layout ({[6 4], [5 4], [6 4]}, 2);
%! randn ("seed", 1);
%! g = arrayfun (@(k) randn (L.params(mod (k - 1, 3) + 1).rows, 4), 1:6, "UniformOutput", false);
%! g = reshape (g, 3, 2).';

%!error <zero_muon_step: RANK_GRADS must be a 2 x 3 cell \(ranks x parameters\).>
%! zero_muon_step (L, g(:,1:2), []);
%!error <zero_muon_step: MOMENTUMARITH 'torch' is muon_update's: a distributed step computes its momentum in fp64\.>
%! zero_muon_step (L, g, [], "MomentumArith", "torch");
%!error id=muonlab:unsupported zero_muon_step (L, g, [], "MomentumArith", "torch");
%!test
%! ## "fp64" (the default) is taken and changes nothing
%! assert (isequal (zero_muon_step (L, g, [], "MomentumArith", "fp64"), zero_muon_step (L, g, [])));
%!error <zero_muon_step: RANK_GRADS\{2,1\} must be a real 6 x 4 matrix.>
%! h = g; h{2,1} = 1; zero_muon_step (L, h, []);
%!error <zero_muon_step: RANK_GRADS\{2,1\} must be a double or single matrix, not int32 \(convert it: double \(G\)\)\.>
%! h = g; h{2,1} = int32 (h{2,1}); zero_muon_step (L, h, []);
%!error <zero_muon_step: RANK_GRADS\{1,2\} must be a double or single matrix, not logical \(convert it: double \(G\)\)\.>
%! h = g; h{1,2} = h{1,2} > 0; zero_muon_step (L, h, []);
%!error <zero_muon_step: VARIANT must be 'reference', 'zero12_allreduce', 'zero2_reduce_scatter_buggy', 'zero2_slice_only', 'zero2_multi_owner', 'zero3_round_robin', 'zero3_round_robin_aliased_pads', 'layerwise_lpt', 'moonlight_gather', 'alltoall_owner', 'muon_bp', 'expert_parallel' or 'layerwise_ns_cost'.>
%! zero_muon_step (L, g, [], "Variant", "zero4");
%!error <zero_muon_step: EXPERTS must be a positive integer, or a vector of one per parameter.>
%! zero_muon_step (L, g, [], "Experts", [1 2]);
%!error <zero_muon_step: EXPERTS \(2\) must divide the 5 rows of parameter 2.>
%! zero_muon_step (L, g, [], "Experts", 2);
%!error <zero_muon_step: SPLITROWS must be a vector of row counts, or a cell of one per parameter.>
%! zero_muon_step (L, g, [], "SplitRows", {[3 3]});
%!error <zero_muon_step: SPLITROWS\{2\} must be positive integers summing to the rows of each block \(5\).>
%! zero_muon_step (L, g, [], "SplitRows", [3 3]);
%!error <zero_muon_step: experts and split row blocks need whole matrices; 'zero2_slice_only' updates row blocks of pieces.>
%! zero_muon_step (L, g, [], "Variant", "zero2_slice_only", "SplitRows", {[3 3], [], []});
%!error <zero_muon_step: BLOCKSCALE must be a positive finite scalar.>
%! zero_muon_step (L, g, [], "Variant", "muon_bp", "BlockScale", 0);
%!error <zero_muon_step: PERIOD must be a positive integer \(at most 2147483647\)\.>
%! zero_muon_step (L, g, [], "Variant", "muon_bp", "Period", 2^31);
%!error <zero_muon_step: PERIOD must be a positive integer \(at most 2147483647\)\.>
%! zero_muon_step (L, g, [], "Variant", "muon_bp", "Period", 0);
%!error <zero_muon_step: L must be a layout from zero_layout.>
%! zero_muon_step (1, g, []);
