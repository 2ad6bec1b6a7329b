## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {[@var{R}, @var{state}] =} zero_train_step (@var{L}, @var{rank_grads}, @var{state})
## @deftypefnx {muonlab} {[@var{R}, @var{state}] =} zero_train_step (@dots{}, @var{name}, @var{value}, @dots{})
## One micro-batch of data-parallel Muon training on W ranks: gradient accumulation, global
## gradient clipping and an fp16 loss scaler around the distributed step of
## @code{zero_muon_step}, in the correct form and in the failure modes real systems
## shipped.
##
## Why this shape: @code{zero_muon_step} is one optimizer step on gradients that are
## already final.  The failure modes here live between steps (micro-batches accumulated
## over several calls, a scale that backs off, a momentum poisoned for good), so the
## training loop keeps a state of its own, the design's momentum inside it, and takes one
## micro-batch a call, as @code{muon_step} does on one process; its options are
## @code{muon_optimizer}'s (the same names, values and code: the loss scaler, the clip
## factor, the overflow test) plus those of @code{zero_muon_step} (@qcode{"BucketSize"} of the
## layer-wise designs too: Megatron's buckets, which the state records).
##
## @var{L} is a layout from @code{zero_layout}, @var{rank_grads} a cell with one row per
## rank this process drives (W on simulated ranks, 1 under MPI) and one column per matrix:
## each rank's gradient of this micro-batch, multiplied by the current loss scale
## @code{state.scaler.scale} when a scaler is on (and, for fp16, rounded to fp16 by the
## caller, e.g. @code{muon_round}, which overflows to Inf): host arrays (for device
## gradients, @code{zero_muon_step} takes them).  @var{state} is @code{[]} at
## the start, then the @var{state} returned by the previous call with the same options (a
## @code{muon_state}: typed, a summary; read as a struct; @code{struct (state)} is taken
## too).
##
## Each call accumulates the micro-batch (each rank its own sum); the k-th call of a window
## (k = @qcode{"AccumulationSteps"}) ends it:
## @enumerate
## @item every rank checks its mean gradient still multiplied by the loss scale (the
## accumulated sum divided by k, as @code{muon_step} checks it) for NaN, Inf or a sum of
## squares that overflows, and one all-reduce of the flags tells all of them: if any rank
## found one, EVERY rank skips the step, nothing changes but the loss scaler, which counts
## it on every rank alike (backs off, or counts down its Hysteresis) (@code{R.skipped},
## @code{R.skip_reason} naming the first rank
## found; for @qcode{"PerMicroBatchNS"} and @qcode{"PoisonMomentum"} see below);
## @item the mean gradient (the accumulated sum divided by k and by the loss scale)
## is averaged over the ranks, and its global norm is Megatron's: each rank sums the
## squares of its own partition of @var{L}, one all-reduce adds them (with a copy scaled
## by a power of two, so that a norm past @code{sqrt (realmax)} stays finite);
## @item the clip policy (@qcode{"ClipPolicy"}, as in @code{muon_optimizer}; every matrix
## here is a Muon matrix):
## @table @asis
## @item "none"
## nothing is clipped (@code{R.global_norm} reports the norm).
## @item "before_ns"
## the gradients are clipped by the global norm before the momentum (Megatron's
## ChainedOptimizer before PR 5395: a large norm can push them under the Newton-Schulz eps).
## @item "after_ns"
## the orthogonalized updates are clipped by their own global norm, all-reduced the same
## way (DeepSpeed ZeRO-1/2, #8439); @code{R.global_norm} is then the updates' norm.
## @item "skip_muon"
## Megatron PR 5395: Muon matrices are not clipped.  With @qcode{"ClipSkipFlag"}
## @qcode{"container"} the skip flag sits on the container optimizer and not on its
## per-layer members, whose step reads it from each member: the members are clipped as
## under @qcode{"before_ns"} (the PR's nested-optimizer case).
## @end table
## @item one @code{zero_muon_step} of the design on the (clipped) mean gradients: one
## Newton-Schulz call per matrix and step.
## @end enumerate
## With @qcode{"PerMicroBatchNS"} (DeepSpeed #8443, ZeRO-3's reduce hook) each micro-batch
## instead goes through @code{zero_muon_step} at once, divided by k: the momentum and
## Newton-Schulz advance k times a step, and the applied step is the sum of the k updates.
## A micro-batch whose gradient overflows on any rank, in any matrix, is skipped by
## @code{zero_muon_step} as a whole, for every matrix (the sharded step is all or nothing),
## and the window then ends skipped; the window's clean micro-batches have advanced
## @code{state.zero} when they came, and it keeps those advances.  (@code{muon_step}
## advances each matrix on its own: there the clean matrices of that micro-batch advance
## too.)
## With @qcode{"PoisonMomentum"} (DeepSpeed #8432) a step whose averaged gradient is not
## finite is folded into every rank's momentum (the peers' lerp) before it is skipped, so
## the momentum stays non-finite and every later step is skipped too: training stops
## while the scale falls to its minimum.
##
## Options (names are case-insensitive):
## @table @asis
## @item "AccumulationSteps"
## k, default 1: micro-batches per optimizer step.
## @item "PerMicroBatchNS"
## false (default); true: DeepSpeed #8443's per-micro-batch update (not with a clip before
## Newton-Schulz).
## @item "ClipPolicy"
## @qcode{"none"} (default), @qcode{"before_ns"}, @qcode{"after_ns"} or
## @qcode{"skip_muon"}, above.
## @item "ClipNorm"
## default 1.0; the clip factor is @code{min (1, ClipNorm / (norm + 1e-6))}.
## @item "ClipSkipFlag"
## where @qcode{"skip_muon"}'s flag sits: @qcode{"members"} (default: on the per-layer
## optimizers, honoured) or @qcode{"container"} (missed: clipped as @qcode{"before_ns"}).
## @item "LossScaler"
## @qcode{"none"} (default), @qcode{"dynamic"}, @qcode{"deepspeed"} (DeepSpeed's ZeRO 1-3
## scaler) or a struct, as in @code{muon_optimizer}.
## @item "PoisonMomentum"
## false (default); true: DeepSpeed #8432, above.
## @item every option of @code{zero_muon_step}
## the design (@qcode{"Variant"}), the communicator (@qcode{"Comm"}), the momentum,
## scale and Newton-Schulz options; the default precision is @qcode{"double"}.
## @qcode{"Reference"} true (default) also runs the correct step on one process: the
## mean gradient over ranks and micro-batches, the same clip policy, one
## @code{muon_update} per matrix and step in double (its own momentum in @var{state});
## false skips it.  @qcode{"Assemble"} as in @code{zero_muon_step}.  Under MPI / NCCL the
## ranks agree on the layout, these options as they take effect (a default passed
## explicitly agrees with the option left out) and the communicator, as in
## @code{zero_muon_step}.
## @end table
##
## @var{R} is a @code{zero_train_result} (typing it prints a line per parameter and per
## rank, never the matrices; @code{struct (R)} gives the plain struct) with @code{variant},
## @code{world}, @code{comm}, @code{micro} (1..k),
## @code{applied} (an optimizer step ended and was taken), @code{skipped},
## @code{skip_reason}, @code{step} (steps taken so far), @code{loss_scale} (the scale this
## call's gradients were divided by; @code{state.scaler.scale} is the next),
## @code{global_norm} (the updates' under @qcode{"after_ns"}) and @code{clip_coef} (NaN and
## 1 until a window ends), and per matrix
## (1 x P) @code{updates} (the assembled applied update, before the learning rate),
## @code{reference} (the correct step's) and @code{rel_err} (@code{norm (U - Uref, "fro") /
## (norm (Uref, "fro") + 1e-8)}) and @code{diverged} (the blocks whose update diverged in
## this call's @code{zero_muon_step}, which warned @code{muonlab:diverged}: its
## @code{R.diverged}; zeros when no step ran); per local rank @code{ranks}, a struct array
## with @code{rank}, @code{ns_calls} (Newton-Schulz calls in this window so far),
## @code{bytes_sent} (likewise), @code{update} and @code{owned} (as in
## @code{zero_muon_step}) and @code{rel_err} (its owned elements against the correct
## step's).  @var{state} holds the design's momentum (@code{state.zero}, a
## @code{zero_muon_step} state), the accumulation, the loss scaler (@code{state.scaler})
## and the counters @code{step} and @code{skipped}; @code{zero_save_state} saves all of it
## and @code{zero_load_state} brings it back, resharded between two windows
## (@code{zero_save_state} refuses a state whose momentum @qcode{"PoisonMomentum"} made
## non-finite: a @code{muonlab:badState} error, and no file is written).
##
## @example
## L = zero_layout (@{[16 16], [16 8]@}, 4, "Stage", 3);
## T = [];
## for j = 1:4                       # one step of 4 micro-batches
##   g = cellfun (@@(s) randn (s), repmat (@{[16 16], [16 8]@}, 4, 1), "UniformOutput", false);
##   [R, T] = zero_train_step (L, g, T, "Variant", "zero3_round_robin",
##                             "AccumulationSteps", 4, "PerMicroBatchNS", true);
## endfor
## [R.ranks.ns_calls]                # 4 times the calls of one step
## R.rel_err                         # the #8443 divergence from the correct step
## @end example
## @seealso{zero_muon_step, muon_optimizer, muon_step, zero_save_state}
## @end deftypefn

function [R, state] = zero_train_step (L, rank_grads, state, varargin)
  if (nargin < 3)
    print_usage ();
  endif
  [R, state] = train_step (L, rank_grads, state_plain (state), varargin{:});
  R = zero_train_result (R);             # typing R prints a summary, not the matrices
  state = muon_state ("zero_train", state);
endfunction

function [R, state] = train_step (L, rank_grads, state, varargin)
  fname = "zero_train_step";
  ## under MPI / NCCL a rank whose own checks fail (its options too) still joins the
  ## agreement below, so that the others raise too instead of waiting in it
  names = {"layout and training options", "options", "STATE (its micro-batch count)", ...
           "STATE (its step count)"};
  try
    [v, zargs] = parse_options (fname, "zero_train_step", varargin);
    zo = parse_options (fname, "zero_muon_step", zargs);
    zero_fp64_momentum (fname, zo.arith);
    zo.bucket_size = zero_bucket (zo.variant, zo.bucket_size, L);   # layer-wise only
    [W, shapes] = zero_check_layout (fname, L);
    P = rows (shapes);
    [ranks, nl] = zero_local_ranks (fname, zo.comm, W);
    pre_clip = (strcmp (v.clip_policy, "before_ns")
                || (strcmp (v.clip_policy, "skip_muon") && strcmp (v.clip_flag, "container")));
    if (v.per_micro_ns && pre_clip)
      error ("muonlab:badArg",
             "%s: PERMICROBATCHNS cannot be combined with a clip before Newton-Schulz.", fname);
    endif
    scaler = opt_loss_scaler (fname, v.loss_scaler);

    rank_grads = zero_check_grads (fname, rank_grads, nl, shapes);

    ## state
    key = struct ("variant", zo.variant, "world", W, "shapes", shapes, "stage", L.stage,
                  "align_factor", L.align_factor, "order", L.order_mode, "form", zo.form,
                  "local_ranks", nl, "bucket_size", zo.bucket_size,
                  "accum_steps", v.accum_steps,
                  "per_micro_ns", v.per_micro_ns, "poison", v.poison,
                  "clip_policy", v.clip_policy, "clip_norm", v.clip_norm,
                  "clip_flag", v.clip_flag, "reference", zo.reference,
                  "scaler", rmfield (scaler, {"scale", "good_steps", "overflows", ...
                                              "hysteresis_left"}));
    fields = {"type", "key", "zero", "micro", "accum", "upd", "full", "owned", "ns_calls", ...
              "bytes", "pending", "why", "scaler", "ref", "step", "skipped"};
    if (isa (state, "double") && isequal (size (state), [0 0]))
      state = struct ("type", "muonlab.zero_train", "key", key, "zero", [], "micro", 0,
                      "accum", {cell(nl, P)}, "upd", {cell(nl, 1)}, "full", {cell(1, P)},
                      "owned", {cell(nl, 1)}, "ns_calls", zeros (nl, 1),
                      "bytes", zeros (nl, 1), "pending", false, "why", "", "scaler", scaler,
                      "ref", {cell(1, P)}, "step", 0, "skipped", 0);
    elseif (! (isstruct (state) && isscalar (state) && isempty (setxor (fieldnames (state), fields))
               && isequal (state.type, "muonlab.zero_train")))
      error ("muonlab:badState", "%s: STATE must be [] or the state of a previous call.", fname);
    elseif (! isequal (state.key, key))
      error ("muonlab:badState",
             "%s: STATE belongs to another layout, design, communicator or training option: %s.",
             fname, key_diff (state.key, key));
    endif
    zero_train_check (fname, state, L, zo.variant, ranks, shapes, scaler);

    ## the collectives of the loop: the communicator's fixed-order reductions
    if (ischar (zo.comm))
      comm = muon_comm ("sim", W);
    else
      comm = zo.comm;
    endif
    ## under MPI / NCCL the ranks' layouts, options and windows must agree (zero_muon_step
    ## checks its own part again)
    [E, S] = zero_layout_blocks (L, zo.param_experts, zo.param_split, fname);   # the blocks it runs
    ## checked on every call, not only where a window ends and the step runs
    zero_blocks (fname, E, S, [[L.params.rows]; [L.params.cols]].');
    ## (as they take effect: a default passed explicitly is the default, agree_opts)
    za = zo;
    if (isempty (za.assemble))          # zero_muon_step's default
      za.assemble = nl == W;
    endif
    sig = [value_hash(agree_opts ({rmfield(key, "local_ranks"), E, S})), ...
           value_hash(agree_opts (rmfield (za, {"comm", "threads", "param_experts", ...
                                                "param_split"}))), ...
           state.micro, state.step];
  catch err
    comm_agree (fname, comm_in_args (varargin), [], names);
    rethrow (err);
  end_try_catch
  comm_agree (fname, comm, sig, names, {"hash", "hash", [], []});
  k = v.accum_steps;
  s = state.scaler.scale;
  zcall = [zargs, {"Reference", false}];
  R = result_head (zo, W, comm, state, s, P);

  ## 1. accumulate this micro-batch (PerMicroBatchNS: its update at once, #8443)
  state.micro += 1;
  R.micro = state.micro;
  for i = 1:numel (rank_grads)
    if (state.micro == 1)
      state.accum{i} = rank_grads{i};
    else
      state.accum{i} = state.accum{i} + rank_grads{i};
    endif
  endfor
  if (v.per_micro_ns)
    x = cellfun (@(g) mean_grad (g, 1, s) / ifelse (k > 1, k, 1), rank_grads,
                 "UniformOutput", false);
    [state, zr, R.diverged] = zero_train_micro (fname, state, L, x, zcall, zo, v, comm,
                                                ranks);
    if (! isempty (zr))
      state.pending = true;
      state.why = ifelse (isempty (state.why), zr, state.why);
    endif
  endif
  if (state.micro < k)
    R.ranks = zero_train_rows (ranks, state, [], {});
    return;
  endif

  ## 2. the window ends: every rank learns whether any rank overflowed (muon_step's test:
  ## on the mean gradient still multiplied by the loss scale)
  state.micro = 0;
  x = cellfun (@(g) mean_grad (g, k, 1), state.accum, "UniformOutput", false);
  why = state.why;
  if (isempty (why))
    why = zero_train_overflow (x, ranks, v.poison, state.zero);
  endif
  x = cellfun (@(g) mean_grad (g, 1, s), x, "UniformOutput", false);
  why = comm_first_reason (comm, why);  # every process: the lowest rank's reason
  bad = state.pending || ! isempty (why);
  G = [];
  if (! bad || v.poison)
    G = zero_train_average (comm, x, shapes);
  endif
  if (bad)
    if (v.poison && ! v.per_micro_ns)
      state.zero = zero_train_fold (state.zero, G, L, zo, ranks);
    endif
    state.scaler = opt_scaler_update (state.scaler, true);
    state.skipped += 1;
    R.skipped = true;
    R.skip_reason = why;
    R.ranks = zero_train_rows (ranks, state, [], {});
    state = end_window (state, nl, P);
    return;
  endif

  ## 3. Megatron's global norm: each rank its partition of L, one all-reduce (of the
  ## squares and their scaled copy, opt_norm_sq: a norm past sqrt (realmax) is no Inf)
  part = cell (nl, 1);
  for l = 1:nl
    t = [0 0];
    for p = 1:P
      rr = owned_range (L.params(p), ranks(l));
      Gt = G{p}.';
      t += opt_norm_sq ("part", Gt(rr(1)+1:rr(2)));
    endfor
    part{l} = t;
  endfor
  R.global_norm = opt_norm_sq ("norm", zero_train_allreduce (comm, part, "sum"));
  c = 1;
  if (pre_clip)
    c = opt_clip_coef (R.global_norm, v.clip_norm);
  endif

  ## 4. the distributed step (or the summed per-micro-batch updates)
  if (v.per_micro_ns)
    upd = state.upd;
    full = state.full;
    owned = state.owned;
  else
    xc = x;
    if (c < 1)
      xc = cellfun (@(g) g * c, x, "UniformOutput", false);
    endif
    [Rz, zst] = zero_muon_step (L, xc, state.zero, zcall{:});
    state.zero = struct (zst);
    state = zero_train_count (state, Rz);
    R.diverged = Rz.diverged;
    upd = {Rz.ranks.update}.';
    full = Rz.updates;
    owned = {Rz.ranks.owned}.';
  endif
  if (strcmp (v.clip_policy, "after_ns"))
    R.global_norm = sqrt (zero_train_allreduce (comm, cellfun (@sumsq, upd, "UniformOutput", false),
                                     "sum"));
    c = opt_clip_coef (R.global_norm, v.clip_norm);
    if (c < 1)
      upd = cellfun (@(u) u * c, upd, "UniformOutput", false);
      full = cellfun (@(u) u * c, full, "UniformOutput", false);
    endif
  endif
  R.clip_coef = c;

  ## 5. the correct step on one process
  Uref = cell (1, P);
  if (zo.reference)
    [rargs, E, S] = zero_train_ref_args (fname, zargs, L);
    cr = 1;
    if (pre_clip)
      cr = c;
    endif
    for p = 1:P
      [Uref{p}, state.ref{p}] = run_update (sprintf ("%s: reference of matrix %d", fname, p),
                                            cr * G{p}, state.ref{p},
                                            [rargs {"Experts", E(p), "SplitRows", S{p}}]);
    endfor
    if (strcmp (v.clip_policy, "after_ns"))
      cr = opt_clip_coef (sqrt (sum (cellfun (@(u) sumsq (u(:)), Uref))), v.clip_norm);
      Uref = cellfun (@(u) u * cr, Uref, "UniformOutput", false);
    endif
    R.reference = Uref;
    if (! isempty (full) && ! isempty (full{1}))
      R.rel_err = cellfun (@(u, r) norm (u - r, "fro") / (norm (r, "fro") + 1e-8), full, Uref);
    endif
  endif
  state.scaler = opt_scaler_update (state.scaler, false);
  state.step += 1;
  R.applied = true;
  R.step = state.step;
  R.updates = full;
  R.ranks = zero_train_rows (ranks, state, upd, owned, Uref);
  state = end_window (state, nl, P);
endfunction

function R = result_head (zo, W, comm, state, s, P)
  R.variant = zo.variant;
  R.world = W;
  R.comm = comm.kind;
  R.micro = 0;
  R.applied = false;
  R.skipped = false;
  R.skip_reason = "";
  R.step = state.step;
  R.loss_scale = s;
  R.diverged = zeros (1, P);
  R.global_norm = NaN;
  R.clip_coef = 1;
  R.updates = cell (1, P);
  R.reference = cell (1, P);
  R.rel_err = NaN (1, P);
  R.ranks = struct ([]);
endfunction

## the accumulated sum of a window as muon_step forms it: divided by k, then by the scale
function x = mean_grad (g, k, s)
  x = g;
  if (k > 1)
    x = x / k;
  endif
  if (s != 1)
    x = x / s;
  endif
endfunction

function y = ifelse (c, a, b)
  if (c)
    y = a;
  else
    y = b;
  endif
endfunction

function state = end_window (state, nl, P)
  state.micro = 0;
  state.accum = cell (nl, P);
  state.upd = cell (nl, 1);
  state.full = cell (1, P);
  state.owned = cell (nl, 1);
  state.ns_calls = zeros (nl, 1);
  state.bytes = zeros (nl, 1);
  state.pending = false;
  state.why = "";
endfunction

%!demo
%! ## DeepSpeed #8443 on 4 simulated ranks, ZeRO-3 round robin, k = 4 micro-batches a step:
%! ## NS once per step (correct) vs once per micro-batch (the shipped hook)
%! shapes = {[32 32], [32 16], [48 32], [16 32]};
%! L = zero_layout (shapes, 4, "Stage", 3);
%! o = {"Variant", "zero3_round_robin", "AccumulationSteps", 4};
%! A = [];  B = [];
%! randn ("state", 1);
%! for t = 1:12
%!   g = cellfun (@(s) randn (s) + 0.2, repmat (shapes, 4, 1), "UniformOutput", false);
%!   [Ra, A] = zero_train_step (L, g, A, o{:});
%!   [Rb, B] = zero_train_step (L, g, B, o{:}, "PerMicroBatchNS", true);
%!   if (Ra.applied)
%!     printf ("step %d: NS calls per rank %s vs %s; rel. error per rank %s vs %s\n", Ra.step,
%!             mat2str ([Ra.ranks.ns_calls]), mat2str ([Rb.ranks.ns_calls]),
%!             mat2str ([Ra.ranks.rel_err], 2), mat2str ([Rb.ranks.rel_err], 2));
%!   endif
%! endfor
%! ## one rank's fp16 overflow: every rank skips and the scale backs off
%! L = zero_layout (shapes, 4);
%! T = [];
%! for t = 1:3
%!   s = 65536;
%!   if (! isempty (T))
%!     s = T.scaler.scale;
%!   endif
%!   g = cellfun (@(x) muon_round (s * randn (x) / 64, "fp16"), repmat (shapes, 4, 1),
%!                "UniformOutput", false);
%!   if (t == 2)
%!     g{3,1}(1) = muon_round (s * 2, "fp16");      # rank 2: a spike past 65504
%!   endif
%!   [R, T] = zero_train_step (L, g, T, "LossScaler", "dynamic");
%!   printf ("step %d: skipped %d (%s), scale %g -> %g\n", t, R.skipped, R.skip_reason,
%!           R.loss_scale, T.scaler.scale);
%! endfor

%!shared L, shapes, grads
%! shapes = {[6 4], [5 4], [6 4]};
%! L = zero_layout (shapes, 2);
%! grads = @(seed) cellfun (@(s) randn (s), repmat (shapes, 2, 1), "UniformOutput", false);

%!error <Invalid call> zero_train_step (1, 2)
%!error <zero_train_step: RANK_GRADS must be a 2 x 3 cell \(ranks x parameters\).> zero_train_step (L, {}, [])
%!error <zero_train_step: MOMENTUMARITH 'torch' is muon_update's: a distributed step computes its momentum in fp64\.> zero_train_step (L, {}, [], "MomentumArith", "torch")
%!error <zero_train_step: PERMICROBATCHNS cannot be combined with a clip before Newton-Schulz.> zero_train_step (L, {}, [], "PerMicroBatchNS", true, "ClipPolicy", "before_ns")
%!error <zero_train_step: CLIPSKIPFLAG must be 'members' or 'container'.> zero_train_step (L, {}, [], "ClipSkipFlag", "x")
%!error <zero_train_step: VARIANT must be 'reference', 'zero12_allreduce', 'zero2_reduce_scatter_buggy', 'zero2_slice_only', 'zero2_multi_owner', 'zero3_round_robin', 'zero3_round_robin_aliased_pads', 'layerwise_lpt', 'moonlight_gather', 'alltoall_owner', 'muon_bp', 'expert_parallel' or 'layerwise_ns_cost'\.> zero_train_step (L, {}, [], "Variant", "x")
%!error <zero_train_step: RANK_GRADS\{1,2\} is a device array; zero_train_step takes host arrays \(gather \(G\) first\).>
%! g = grads (1);
%! g{1,2} = muon_gpu (g{1,2}, "Device", "cpu", "Class", "double");
%! zero_train_step (L, g, []);
%!error <zero_train_step: STATE must be \[\] or the state of a previous call.> zero_train_step (L, grads (1), struct ())
## a peer's name of a loss scaler setting: the LOSSSCALER field it is (README's table)
%!error <^zero_train_step: unknown option 'min_loss_scale': "min_loss_scale" \(DeepSpeed, Megatron\) is the LOSSSCALER field "MinScale" here \("LossScaler", struct \("MinScale", 1\)\): the same number \(1\)\. Options: ClipPolicy, .*, Threads\.$> zero_train_step (L, grads (1), [], "min_loss_scale", 1)
%!error <^zero_train_step: unknown option 'loss_scale_window': "loss_scale_window" \(DeepSpeed, Megatron\) is the LOSSSCALER field "GrowthInterval" here \("LossScaler", struct \("GrowthInterval", 1000\)\): the same count \(their default 1000, muonlab's 2000\); DeepSpeed counts it as GrowthRule deepspeed does, Megatron as interval \(muonlab's default\)\. Options: ClipPolicy, .*, Threads\.$> zero_train_step (L, grads (1), [], "loss_scale_window", 1000)
%!error <^zero_train_step: unknown option 'initial_loss_scale': "initial_loss_scale" \(Megatron\) is the LOSSSCALER field "InitScale" here \("LossScaler", struct \("InitScale", 4294967296\)\): the same number \(Megatron's default 2\^32, muonlab's 2\^16\)\. Options: ClipPolicy, .*, Threads\.$> zero_train_step (L, grads (1), [], "initial_loss_scale", 2^32)
%!error <^zero_train_step: unknown LOSSSCALER field 'backoff_factor': "backoff_factor" \(torch GradScaler\) is "Backoff" here: the same factor \(0\.5\)\. LOSSSCALER fields: InitScale, GrowthInterval, Backoff, Growth, MinScale, Hysteresis, ConsecutiveHysteresis, GrowthRule\.$> zero_train_step (L, grads (1), [], "LossScaler", struct ("backoff_factor", 0.5))
%!error <^zero_train_step: unknown LOSSSCALER field 'hysteresis_interval'; did you mean 'Hysteresis'\? LOSSSCALER fields: .*\.$> zero_train_step (L, grads (1), [], "LossScaler", struct ("hysteresis_interval", 2))
%!error <zero_train_step: STATE belongs to another layout, design, communicator or training option: its clip policy is 'none', this call's 'after_ns'\.>
%! [~, T] = zero_train_step (L, grads (1), []);
%! zero_train_step (L, grads (1), T, "ClipPolicy", "after_ns");
%!error <zero_train_step: STATE belongs to another layout, design, communicator or training option: its scaler's growth interval is 2000, this call's 100\.>
%! [~, T] = zero_train_step (L, grads (1), [], "LossScaler", "dynamic");
%! zero_train_step (L, grads (1), T, "LossScaler", struct ("GrowthInterval", 100));
%!error <zero_train_step: STATE belongs to another layout, design, communicator or training option: its scaler's enabled is true, this call's false\.>
%! [~, T] = zero_train_step (L, grads (1), [], "LossScaler", "dynamic");
%! zero_train_step (L, grads (1), T);
%!error <zero_train_step: STATE belongs to another layout, design, communicator or training option: its scaler has no min scale\.>
%! [~, T] = zero_train_step (L, grads (1), []);
%! T.key.scaler = rmfield (T.key.scaler, "min_scale");
%! zero_train_step (L, grads (1), T);
