## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{opt} =} muon_optimizer (@var{params})
## @deftypefnx {muonlab} {@var{opt} =} muon_optimizer (@var{params}, @var{name}, @var{value}, @dots{})
## @deftypefnx {muonlab} {@var{list} =} muon_optimizer ("presets")
## @deftypefnx {muonlab} {[@var{opt}, @var{params}] =} muon_optimizer (@var{M}, @dots{})
## Create the state of a hybrid Muon + AdamW optimizer over a struct of named arrays.
##
## @code{muon_optimizer ("presets")} prints the @qcode{"Preset"} names of the Muon family
## with a line each saying where it comes from, then the Newton-Schulz variants those lines
## name (NS_K Keller's, NS_PE dion's Polar Express, NS_EO NVIDIA Emerging-Optimizers') as
## the options each sets; with an output, @var{list} is their P x 2 cell @{name, source@}.
##
## @var{params} is a scalar struct; each field is one parameter (a real double or single
## array), the field name its name.  The optimizer is advanced by @code{muon_step}.
## A model @var{M} from @code{muon_model} (the object or @code{struct (M)}, as
## @code{zero_layout} and @code{zero_cost} take it; at most 2^27 elements) stands for its parameters
## as zeros, returned in @var{params}: each field is @code{M.params.field} (the dotted torch
## name made a valid field name; @code{M.params.name} keeps the torch name beside it), each
## routed as @code{M.params.route} says (@code{muon_model} sets it by the rule below; a
## table that sends a 1 x N head to Muon is followed, as @code{zero_layout} follows it).  A
## fused weight's Newton-Schulz runs per expert and per fused block as the model says
## (@code{M.params.experts} and @code{.split} become its @qcode{"Experts"} and
## @qcode{"SplitRows"}; a parameter's @qcode{"ParamOptions"} giving either replaces both).
## @var{opt} is a @code{muon_state}: it reads and changes as a struct (inspect it, plot
## it, change @code{opt.muon_lr} or @code{opt.adam_lr} between steps for a schedule),
## typing it shows a summary of a line per parameter, and @code{struct (opt)} gives the
## plain struct, which every function takes too.  It holds the routing, the options,
## the per-parameter state (@code{opt.muon.(name)}: the @code{muon_update} state, [] before
## the first step; @code{opt.adam.(name)}: AdamW moments @code{m}, @code{v} and
## @code{step}), the gradient-accumulation buffers and the loss-scaler state.
##
## @strong{Routing} (DeepSpeed's @code{set_optimizer_flags}, but for vectors): a parameter
## goes to Muon when it is a matrix, both of its first two dimensions > 1 (an Octave vector
## has @code{ndims} 2 too, so DeepSpeed's @code{ndims >= 2} would send it to Muon; a torch
## Linear weight of one row, which DeepSpeed gives Muon, goes to AdamW here), of at most 4
## dimensions (a stack of matrices or a convolution weight, as @code{muon_update} takes
## them), and its lower-case name contains neither @qcode{"embed"} nor @qcode{"lm_head"};
## everything else goes to AdamW.  @qcode{"Route"} overrides it per name, and can send
## a 1 x N or N x 1 parameter (or a 1 x 1) to Muon as torch.optim.Muon and DeepSpeed do
## with any 2-D tensor (@code{Route.head = "muon"}: its update is the vector normalized,
## times the schedule's map of its one singular value, times the scale of its r x c; see
## @code{muon_update}).  Octave drops
## trailing singleton dimensions: a conv weight with kw = 1 (out x in x kh x 1) is an
## out x in x kh array, which Muon treats as a stack of kh matrices; reshape it to
## out x (in*kh) for the convolution's view.
##
## Options (names are case-insensitive):
## @table @asis
## @item "LR"
## learning rate of both halves.  Without it Muon uses 0.02 and AdamW 3e-4, the defaults
## of DeepSpeed's @code{MuonWithAuxAdam} groups (Keller's Muon lr is 0.02 too).
## @item "MuonLR", "AdamLR"
## override @qcode{"LR"} for one half (DeepSpeed's @code{muon_lr} / @code{adam_lr}).
## @item "WeightDecay", "MuonWeightDecay", "AdamWeightDecay"
## decoupled weight decay of both halves (default 0): @code{p *= 1 - lr*wd} with the
## @emph{unadjusted} lr, then @code{p -= lr * update}, as DeepSpeed, Moonlight and
## torch.optim.Muon (an update-scale rule such as @qcode{"Scale"} @qcode{"rms"} scales the
## update only).  @qcode{"MuonWeightDecay"} / @qcode{"AdamWeightDecay"} override it for one
## half.
## @item "AdamBetas"
## default [0.9 0.95].
## @item "AdamEps"
## default 1e-10, added to the bias-corrected @code{sqrt (v)}.
## @item "ClipPolicy"
## global-norm gradient clipping, coefficient @code{min (1, ClipNorm / (norm + 1e-6))}
## (torch/DeepSpeed):
## @table @asis
## @item "none"
## (default) no clipping; @code{info.global_norm} still reports the raw gradient norm.
## @item "before_ns"
## the norm of all raw gradients (Muon and AdamW) clips all of them before the momentum.
## @item "after_ns"
## DeepSpeed ZeRO-1/2's order (DeepSpeed #8439): the norm is taken over the already
## orthogonalized Muon updates and the AdamW gradients, and clips both; the Muon step
## norm is then pinned near @code{ClipNorm * MuonLR} whatever the model size.
## @item "skip_muon"
## Megatron PR 5395 / xtuner: the norm of the AdamW gradients clips only them.
## @end table
## @item "ClipNorm"
## default 1.0.
## @item "LossScaler"
## @qcode{"none"} (default), @qcode{"dynamic"} (fp16-style: initial scale 2^16, growth
## interval 2000, backoff 0.5, growth 2, minimum scale 1, hysteresis 1),
## @qcode{"deepspeed"} (the fp16 defaults of DeepSpeed's ZeRO 1-3 scaler: 2^16, 1000, 0.5,
## 2, 1, hysteresis 2, growth rule @qcode{"deepspeed"}; without ZeRO its FP16_Optimizer
## ignores the hysteresis: Hysteresis 1 with that growth rule), or a struct overriding any
## of the fields
## @code{InitScale}, @code{GrowthInterval} (Inf: never grows), @code{Backoff},
## @code{Growth}, @code{MinScale}, @code{Hysteresis}, @code{ConsecutiveHysteresis},
## @code{GrowthRule} of @qcode{"dynamic"}.  An overflow skips the step and backs the scale
## off (not below @code{MinScale}) when the counter @code{opt.scaler.hysteresis_left} is
## 1, else drops the counter; a growth refills it to @code{Hysteresis} (1: every overflow
## backs off), as does every clean step with @code{ConsecutiveHysteresis}.
## @code{GrowthRule} @qcode{"interval"} grows after @code{GrowthInterval} clean steps in a
## row (torch; with @code{Hysteresis}, Megatron's DynamicGradScaler, whose float32 scale
## matches to the bit with power-of-two factors), @qcode{"deepspeed"}
## when c - 1 is a positive multiple of it, c the clean steps since the last overflow or
## the start (DeepSpeed's update_scale since PR 6976); at @code{MinScale} DeepSpeed raises
## instead.  The gradients handed to @code{muon_step} are multiplied by the current scale
## @code{opt.scaler.scale}.
## @item "PoisonMomentum"
## false (default).  true reproduces DeepSpeed #8432: the Muon momentum is advanced
## (a lerp that folds a non-finite gradient into it) @emph{before} the overflow check; the
## step is skipped and the scale backed off, but the momentum stays non-finite, so every
## later step overflows too and training stops.
## @item "AccumulationSteps"
## k, default 1: @code{muon_step} takes one micro-batch gradient a call; the first k-1
## calls accumulate, the k-th applies one optimizer step on the mean gradient, with one
## @code{muon_update} (one NS) per Muon parameter.
## @item "PerMicroBatchNS"
## false (default).  true reproduces DeepSpeed #8443 (ZeRO-3): each micro-batch gradient
## (divided by k, as DeepSpeed's loss scaling by 1/k does) goes through
## @code{muon_update} at once, so the momentum and NS advance k times a step, and the k
## updates are summed into the applied step; a window that ends skipped (an overflow)
## keeps the momenta its clean micro-batches advanced.  Not allowed with
## @qcode{"before_ns"}.
## @item "Route"
## a struct (@code{Route.name = "muon"} or @qcode{"adamw"}, or true / false) or an
## n x 2 cell @code{@{name, route; @dots{}@}} overriding the default routing per name.
## @item "ParamOptions"
## a struct: @code{ParamOptions.name} a cell of @code{muon_update} NAME, VALUE pairs for
## that Muon parameter only (e.g. @code{@{"Experts", 8@}} for a fused expert weight),
## after and over the global ones.
## @item "QKClip"
## attention weights to clip after every applied step (@code{qk_clip}, MuonClip):
## @code{@{QNAME, KNAME, "Heads", h, @dots{}@}}, or a cell of such pairs (a parameter in
## one pair at most: it is clipped once a step), the rest any
## @code{qk_clip} options; the caller gives the largest logit of each head to
## @code{muon_step} (its @var{maxlogits}).  Default @code{@{@}}: none.
## @item "Resident"
## true: keep the optimizer's state on the device of the Muon update's @qcode{"Device"}
## as device arrays (@code{muon_gpu}) between steps: every Muon momentum (made there by
## the first step) and the AdamW moments of every parameter of at most 3 dimensions.
## Default: true when @qcode{"Device"} is @qcode{"cuda"}, false otherwise
## (@qcode{"Device", "cpu", "Resident", true} keeps it on the CPU stand-in device, the
## same bits, @qcode{"MomentumArith"} @qcode{"torch"}'s fused apply included).  Gradients and parameters may be host arrays (each step copies a gradient
## in and the Muon update or the new AdamW parameter out, once) or device arrays of the
## same device (@code{muon_gpu}; nothing crosses the bus: @code{muon_step} returns the
## new parameters as device arrays; a device gradient may be double, single, bf16 or
## fp16, converted to its parameter's class on the device with the bits of the host
## cast).  The
## update, the moments and the steps compute where they live, with the host path's
## bits (on CUDA, the sums of squares of the global norm and of @code{info.update_norm}
## run a fixed tree instead of Octave's ordered sum: the same on every run, within a
## few ulps).  @var{params} itself may hold device arrays.  Not with
## @qcode{"PoisonMomentum"} or @qcode{"PerMicroBatchNS"}, which read the momentum on the
## host.  The device runs Muon itself (@qcode{"Algorithm"} @qcode{"muon"},
## @qcode{"NormScale"} 1, @qcode{"EpsPlacement"} @qcode{"add"}): another value, given or
## set by a @qcode{"Preset"}, is a @code{muonlab:unsupported} error here (a preset the
## device runs, as @qcode{"Preset", "dion_reference", "Algorithm", "muon"}, gives the host
## path's bits).  @code{muon_save_state} gathers the state, @code{muon_load_state} puts it
## back with its @qcode{"Device"} option.
## @item any @code{muon_update} option
## every option of @code{muon_update}, its @code{muon_ns} options included:
## @qcode{"Beta"} (the Muon momentum, default 0.95), @qcode{"MomentumForm"},
## @qcode{"MomentumArith"} (@qcode{"torch"}: torch's momentum bits, and
## torch.optim.Muon's parameter update for a single or double matrix under the Muon
## rule with the decay first (host arrays, device arrays and a state on the device alike,
## the device's element-wise fma giving the host's bits): @code{p = p (1 - lr wd)}, then its fused @code{add_ (O,
## alpha=-lr*scale)}, one rounding of @code{p - (lr scale) O} (an fma), O the NS output
## before the scale, lr scale in double as torch's @code{_adjust_lr}; with the README's
## recipe muon_step then gives its parameters bit for bit where the NS output matches.
## (No bf16 / fp16 parameter takes it: muon_optimizer takes none, and torch's 16-bit add
## with alpha rounds two ways.)  The Muon family's rules, @qcode{"Experts"},
## @qcode{"SplitRows"}, stacks, @qcode{"DecayFirst"} false, @qcode{"ClipPolicy"} @qcode{"after_ns"} and
## @qcode{"PerMicroBatchNS"} keep muonlab's apply, U, lr U and p - lr U each rounded),
## @qcode{"Scale"},
## @qcode{"Experts"}, @dots{}, @qcode{"Method"}, @qcode{"Precision"},
## @qcode{"Eps"} (the NS normalization eps, not AdamW's), @dots{}, and the Muon family's
## @qcode{"Algorithm"} (@qcode{"normuon"}, @qcode{"adamuon"}, @qcode{"namo"},
## @qcode{"polargrad"}, @qcode{"scion"}, @qcode{"dion"}, @qcode{"dion2"}) and
## @qcode{"Preset"} (a reference's algorithm and conventions, later options overriding
## single ones), with their options (@qcode{"Beta2"}, @qcode{"NormAxis"},
## @qcode{"DecayFirst"}, @dots{}).  They are checked here by a dry run of
## @code{muon_update} on zeros of each Muon parameter's shape.
## @end table
##
## Example:
## @example
## P = struct ("W1", randn (64, 32) / 8, "b1", zeros (64, 1), "embed", randn (100, 32));
## opt = muon_optimizer (P, "Method", "gram", "WeightDecay", 0.1);
## opt.route          % W1: muon, b1: adamw, embed: adamw
## G = struct ("W1", randn (64, 32), "b1", randn (64, 1), "embed", randn (100, 32));
## [P, opt, info] = muon_step (opt, P, G);
## @end example
##
## @seealso{muon_step, muon_update, muon_save_state, muon_load_state}
## @end deftypefn

function [opt, params] = muon_optimizer (params, varargin)
  if (nargin < 1)
    print_usage ();
  endif
  fname = "muon_optimizer";
  if (ischar (params) && strcmpi (params, "presets"))
    if (nargin > 1)
      error ("muonlab:badArg", "%s: \"presets\" takes no other argument.", fname);
    endif
    [names, sources, ~, ns] = family_presets ();
    if (nargout > 0)
      opt = [names; sources].';
    else
      printf ("%-20s %s\n", [names; sources]{:});
      printf ("\nthe Newton-Schulz variants they run:\n");
      printf ("%-20s %s\n", ns.'{:});
    endif
    return;
  endif
  blocks = struct ();                     # a model's per-expert and per-block NS
  mroute = [];                            # and its routing
  if (! isempty (model_table (fname, params)))  # a model: its parameters as zeros, fields named
    [params, blocks, mroute] = model_params (fname, params);  # by M.params.field (.name: torch's)
  endif
  opt_check_tree (fname, "PARAMS", params, {}, {}, true);
  given = params;
  params = host_zeros (params);    # device parameters: zeros of their shape and class
  ## its own options (checked), and the muon_update ones (checked by the dry run below)
  [v, update_args] = parse_options (fname, "muon_optimizer", varargin);

  names = fieldnames (params);
  opt = struct ();
  opt.type = "muonlab.optimizer";
  opt.version = 1;
  opt.names = names;
  opt.shapes = cellfun (@(n) size (params.(n)), names, "UniformOutput", false);
  opt.classes = cellfun (@(n) class (params.(n)), names, "UniformOutput", false);

  ## learning rates and weight decay (a half's own value, else the common one, else the
  ## DeepSpeed MuonWithAuxAdam group default)
  opt.muon_lr = pick (v.muon_lr, v.lr, 0.02);
  opt.adam_lr = pick (v.adam_lr, v.lr, 3e-4);
  opt.muon_wd = pick (v.muon_wd, v.weight_decay, 0);
  opt.adam_wd = pick (v.adam_wd, v.weight_decay, 0);
  opt.adam_betas = v.adam_betas;
  opt.adam_eps = v.adam_eps;

  ## clipping, accumulation, the two bug switches
  opt.clip_policy = v.clip_policy;
  opt.clip_norm = v.clip_norm;
  opt.accum_steps = v.accum_steps;
  opt.per_micro_ns = v.per_micro_ns;
  opt.poison = v.poison;
  if (opt.per_micro_ns && strcmp (opt.clip_policy, "before_ns"))
    error ("muonlab:badArg",
           "%s: PERMICROBATCHNS cannot be combined with CLIPPOLICY 'before_ns'.", fname);
  endif
  opt.scaler = opt_loss_scaler (fname, v.loss_scaler);
  opt.qk_clip = opt_qk_clip (fname, params, v.qk_clip);

  ## routing
  opt.route = struct ();
  for i = 1:numel (names)
    n = names{i};
    if (isempty (mroute))
      opt.route.(n) = default_route (n, params.(n));
    else
      opt.route.(n) = mroute.(n);         # the model's (muon_model: the same rule)
    endif
  endfor
  opt.route = apply_route (fname, opt.route, params, v.route);

  ## muon_update options, global and per parameter; dry run on zeros of each shape
  popt = v.param_options;
  if (isempty (popt))
    popt = struct ();
  elseif (! (isstruct (popt) && isscalar (popt)))
    error ("muonlab:badArg", "%s: PARAMOPTIONS must be a struct of option cells.", fname);
  endif
  pn = fieldnames (popt);
  for i = 1:numel (pn)
    if (! any (strcmp (pn{i}, names)))
      error ("muonlab:badArg", "%s: PARAMOPTIONS names unknown parameter '%s'.", fname,
             pn{i});
    endif
    if (! strcmp (opt.route.(pn{i}), "muon"))
      error ("muonlab:badArg", "%s: PARAMOPTIONS names '%s', which is not a Muon parameter.",
             fname, pn{i});
    endif
    if (! iscell (popt.(pn{i})))
      error ("muonlab:badArg", "%s: PARAMOPTIONS.%s must be a cell of NAME, VALUE pairs.",
             fname, pn{i});
    endif
  endfor
  bn = fieldnames (blocks);              # the model's blocks, then the user's options;
  for i = 1:numel (bn)                   # the user's Experts or SplitRows replace them
    if (strcmp (opt.route.(bn{i}), "muon"))
      more = {};
      if (isfield (popt, bn{i}))
        more = popt.(bn{i});
      endif
      if (! any (cellfun (@(x) ischar (x) && any (strcmpi (x, {"Experts", "SplitRows"})),
                          more(1:2:end))))
        popt.(bn{i}) = [blocks.(bn{i}), more];
      endif
    endif
  endfor
  opt.update_args = struct ();
  opt.muon = struct ();
  opt.adam = struct ();
  opt.accum = struct ();
  for i = 1:numel (names)
    n = names{i};
    p = params.(n);
    opt.accum.(n) = [];
    if (strcmp (opt.route.(n), "muon"))
      args = update_args;
      if (isfield (popt, n))
        [~, more] = parse_options (sprintf ("%s: PARAMOPTIONS.%s", fname, n),
                                   "muon_optimizer_param", popt.(n));
        args = [args, more];
      endif
      opt.update_args.(n) = args;
      ## every error of the dry run reads "muon_optimizer: parameter 'n': ..."
      run_update (sprintf ("%s: parameter '%s'", fname, n), zeros (size (p), class (p)), [],
                  args);
      opt.muon.(n) = [];
    else
      opt.adam.(n) = struct ("m", zeros (size (p), class (p)),
                             "v", zeros (size (p), class (p)), "step", 0);
    endif
  endfor

  ## the state on the device (Resident): the Muon momenta (made there by the first step)
  ## and the AdamW moments
  opt.resident = resident_device (fname, v.resident, update_args, opt);
  if (! isempty (opt.resident))
    opt = opt_state_device ("muon_optimizer", opt, opt.resident);
  endif
  ## counters
  opt.micro = 0;              # micro-batches accumulated towards the next step
  opt.overflow_pending = false;
  opt.step = 0;               # optimizer steps applied
  opt.skipped = 0;            # optimizer steps skipped (overflow)
  opt.ns_calls = 0;           # muon_update calls so far
  params = given;
  opt = muon_state ("optimizer", opt);    # typing it shows a summary, not every moment
endfunction

## P with each device array (muon_gpuarray) replaced by host zeros of its size and class:
## what the routing, the dry runs and the moments read is the shape and the class
function P = host_zeros (P)
  names = fieldnames (P);
  for i = 1:numel (names)
    x = P.(names{i});
    if (isa (x, "muon_gpuarray"))
      P.(names{i}) = zeros (size (x), x.Storage);
    endif
  endfor
endfunction

## "" (the state on the host) or the device the state lives on: the Muon update's
## DEVICE when RESIDENT is true, or by default when that is "cuda".
function d = resident_device (fname, resident, update_args, opt)
  if (! (isempty (resident) || (isscalar (resident) && (islogical (resident)
                                                        || isnumeric (resident))
                                && any (resident == [0 1]))))
    error ("muonlab:badArg", "%s: RESIDENT must be true or false.", fname);
  endif
  dev = parse_options (fname, "muon_update", update_args).device;
  if (isempty (resident))
    resident = strcmp (dev, "cuda");
  endif
  d = "";
  if (! resident)
    return;
  endif
  if (opt.poison || opt.per_micro_ns)
    error ("muonlab:badArg",
           "%s: RESIDENT cannot be combined with POISONMOMENTUM or PERMICROBATCHNS (they read the momentum on the host).",
           fname);
  endif
  opt_device_algorithms (fname, opt);
  d = dev;
endfunction

function r = default_route (name, p)
  if (route_rule (name, size (p, 1), size (p, 2))    # the rule muon_model shares
      && ndims (p) <= 4)                             # muon_update's shapes
    r = "muon";
  else
    r = "adamw";
  endif
endfunction

function route = apply_route (fname, route, params, R)
  if (isempty (R))
    return;
  endif
  if (isstruct (R) && isscalar (R))
    keys = fieldnames (R);
    vals = struct2cell (R);
  elseif (iscell (R) && columns (R) == 2)
    keys = R(:,1);
    vals = R(:,2);
  else
    error ("muonlab:badArg", "%s: ROUTE must be a struct or an n x 2 cell.", fname);
  endif
  for i = 1:numel (keys)
    n = keys{i};
    if (! (ischar (n) && isrow (n)))
      error ("muonlab:badArg", "%s: ROUTE's parameter names must be strings.", fname);
    elseif (! isfield (params, n))
      error ("muonlab:badArg", "%s: ROUTE names unknown parameter '%s'.", fname, n);
    endif
    r = vals{i};
    if ((islogical (r) || isnumeric (r)) && isscalar (r) && any (r == [0 1]))
      if (r)
        r = "muon";
      else
        r = "adamw";
      endif
    elseif (! (ischar (r) && isrow (r) && any (strcmpi (r, {"muon", "adamw"}))))
      error ("muonlab:badArg", "%s: ROUTE.%s must be 'muon' or 'adamw'.", fname, n);
    endif
    r = lower (r);
    p = params.(n);
    if (strcmp (r, "muon") && ndims (p) > 4)
      error ("muonlab:badShape",
             "%s: parameter '%s' cannot use Muon: it has more than 4 dimensions.", fname, n);
    endif
    route.(n) = r;
  endfor
endfunction

## The first non-empty of x, fallback and dflt (all checked by the option table).
function x = pick (x, fallback, dflt)
  if (isempty (x))
    x = fallback;
    if (isempty (x))
      x = dflt;
    endif
  endif
endfunction

%!demo
%! ## Muon on the matrices, AdamW on the rest (the default routing), ten steps
%! P = struct ("W", reshape (sin (1:512), 16, 32), "b", zeros (16, 1));
%! opt = muon_optimizer (P, "MuonLR", 0.02, "AdamLR", 1e-3)
%! for t = 1:10
%!   G = struct ("W", P.W - 0.1, "b", P.b - 1);     # the gradient of a quadratic
%!   [P, opt, info] = muon_step (opt, P, G);
%! endfor
%! info

%!shared P
%! randn ("state", 1);
%! P = struct ("W1", randn (6, 4), "b1", randn (6, 1), "embed_tok", randn (10, 4),
%!             "LM_Head", randn (3, 6), "row", randn (1, 5), "W3", randn (4, 5, 2));

%!error <Invalid call> muon_optimizer ()
%!error <muon_optimizer: PARAMS must be a scalar struct of named arrays.> muon_optimizer (1)
%!error <muon_optimizer: PARAMS must have at least one field.> muon_optimizer (struct ())
%!error <muon_optimizer: PARAMS.a must be a real, non-empty double or single array.> muon_optimizer (struct ("a", int8 (1)))
%!error <muon_optimizer: PARAMS.a must not contain NaN or Inf.> muon_optimizer (struct ("a", [1 NaN]))
%!error <^muon_optimizer: unknown option 'Foo'\. Options: .*\.$> muon_optimizer (P, "Foo", 1)
%!error <muon_optimizer: options must be NAME, VALUE pairs.> muon_optimizer (P, "LR")
%!error <muon_optimizer: LR must be a non-negative finite scalar.> muon_optimizer (P, "LR", -1)
%!error <muon_optimizer: MUONLR must be a non-negative finite scalar.> muon_optimizer (P, "MuonLR", [1 2])
%!error <muon_optimizer: ADAMBETAS must be two numbers in \[0, 1\).> muon_optimizer (P, "AdamBetas", [0.9 1])
%!error <muon_optimizer: ADAMEPS must be a non-negative finite scalar.> muon_optimizer (P, "AdamEps", NaN)
%!error <muon_optimizer: CLIPPOLICY must be 'none', 'before_ns', 'after_ns' or 'skip_muon'; did you mean 'after_ns'\?> muon_optimizer (P, "ClipPolicy", "after")
%!error <muon_optimizer: CLIPNORM must be a positive finite scalar.> muon_optimizer (P, "ClipNorm", 0)
%!error <muon_optimizer: ACCUMULATIONSTEPS must be a positive integer.> muon_optimizer (P, "AccumulationSteps", 1.5)
%!error <muon_optimizer: POISONMOMENTUM must be true or false.> muon_optimizer (P, "PoisonMomentum", 2)
%!error <muon_optimizer: PERMICROBATCHNS must be true or false.> muon_optimizer (P, "PerMicroBatchNS", "yes")
%!error <muon_optimizer: PERMICROBATCHNS cannot be combined with CLIPPOLICY 'before_ns'.> muon_optimizer (P, "PerMicroBatchNS", true, "ClipPolicy", "before_ns")
%!error <muon_optimizer: ROUTE must be a struct or an n x 2 cell.> muon_optimizer (P, "Route", 1)
%!error <muon_optimizer: ROUTE names unknown parameter 'W9'.> muon_optimizer (P, "Route", struct ("W9", "muon"))
%!error <muon_optimizer: ROUTE.W1 must be 'muon' or 'adamw'.> muon_optimizer (P, "Route", struct ("W1", "sgd"))
%!error <muon_optimizer: parameter 'C5' cannot use Muon: it has more than 4 dimensions.>
%! muon_optimizer (struct ("C5", ones (4, 3, 2, 2, 2)), "Route", struct ("C5", "muon"))
%!error <muon_optimizer: PARAMOPTIONS must be a struct of option cells.> muon_optimizer (P, "ParamOptions", 1)
%!error <muon_optimizer: PARAMOPTIONS names unknown parameter 'W9'.> muon_optimizer (P, "ParamOptions", struct ("W9", {{}}))
%!error <muon_optimizer: PARAMOPTIONS names 'b1', which is not a Muon parameter.> muon_optimizer (P, "ParamOptions", struct ("b1", {{}}))
%!error <muon_optimizer: PARAMOPTIONS.W1 must be a cell of NAME, VALUE pairs.> muon_optimizer (P, "ParamOptions", struct ("W1", 1))
%!error <^muon_optimizer: PARAMOPTIONS\.W1: unknown option 'Bogus'\. Options: .*\.$> muon_optimizer (P, "ParamOptions", struct ("W1", {{"Bogus", 1}}))
%!error <^muon_optimizer: PARAMOPTIONS\.W1: unknown option 'LR'\. Options: Method, .*, DecayFirst\.$> muon_optimizer (P, "ParamOptions", struct ("W1", {{"LR", 0.5}}))
%!error <muon_optimizer: PARAMOPTIONS\.W1: options must be NAME, VALUE pairs\.> muon_optimizer (P, "ParamOptions", struct ("W1", {{"Beta"}}))
%!error <muon_optimizer: PARAMOPTIONS\.W1: option names must be strings\.> muon_optimizer (P, "ParamOptions", struct ("W1", {{1, 2}}))
%!error <muon_optimizer: parameter 'W1': METHOD must be 'standard' or 'gram'.> muon_optimizer (P, "Method", "fast")
%!error <^muon_optimizer: parameter 'W1': unknown coefficient schedule 'foo'\. Coefficient schedules: .*\.$> muon_optimizer (P, "Coefficients", "foo")
%!error <muon_optimizer: parameter 'W1': GEMM must be 'auto', 'openblas' or 'onednn'.> muon_optimizer (P, "Gemm", "mkl")
%!error <muon_optimizer: parameter 'W1': THREADS must be a non-negative integer \(0: automatic\), at most 1024\.> muon_optimizer (P, "Threads", -1)
%!error <^muon_optimizer: parameter 'W3': unknown coefficient schedule 'bar'\. Coefficient schedules: .*\.$> muon_optimizer (P, "ParamOptions", struct ("W3", {{"Coefficients", "bar"}}))
%!test
%! ## automatic routing keeps vectors on AdamW; Route sends a 1 x n or n x 1 to Muon
%! o = muon_optimizer (P);
%! assert ({o.route.row, o.route.b1}, {"adamw", "adamw"});
%! o = muon_optimizer (P, "Route", struct ("row", "muon", "b1", true));
%! assert ({o.route.row, o.route.b1, o.route.W1}, {"muon", "muon", "muon"});
%!error <muon_optimizer: PARAMS.z must be a real, non-empty double or single array.> muon_optimizer (struct ("z", zeros (1, 0)), "Route", struct ("z", "muon"))
%!error <muon_optimizer: parameter 'W1': PRESET must be 'keller', 'normuon_zichongli5', 'normuon_dion', 'normuon_eo', 'adamuon_official', 'adamuon_eo', 'namo_eo', 'polargrad_eo', 'scion_eo', 'dion_reference' or 'dion2'.> muon_optimizer (P, "Preset", "x")
%!error <muon_optimizer: parameter 'W3': ALGORITHM 'normuon' \(and NORMSCALE, EPSPLACEMENT\) needs one 2-D matrix G: no EXPERTS, SPLITROWS or stack.> muon_optimizer (P, "Algorithm", "normuon")
%!error <muon_optimizer: "presets" takes no other argument.> muon_optimizer ("presets", 1)
%!error <muon_optimizer: ROUTE's parameter names must be strings\.> muon_optimizer (P, "Route", {["W1"; "W1"], "muon"})
%!error <muon_optimizer: ROUTE's parameter names must be strings\.> muon_optimizer (P, "Route", {1, "muon"})
%!error <muon_optimizer: ROUTE.W1 must be 'muon' or 'adamw'.> muon_optimizer (P, "Route", {"W1", ["muon"; "muon"]})
