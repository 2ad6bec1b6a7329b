## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {[@var{U}, @var{state}] =} run_update (@var{fname}, @var{G}, @var{state}, @var{args})
## @deftypefnx {} {[@var{U}, @var{state}] =} run_update (@dots{}, @var{strict})
## The body of @code{muon_update} (see there): one Muon update of @var{G} from
## @var{state} with the NAME, VALUE pairs of the cell @var{args} (the option table
## @qcode{"muon_update"} of @code{option_spec}).  Every error, its own, the option
## parser's and the gateway's (@var{fname} travels to @code{__muon_update__} in the option
## struct), starts with @var{fname}: @code{muon_update} passes its own name,
## @code{muon_optimizer} and @code{muon_step} theirs with the parameter, e.g.
## @qcode{"muon_step: parameter 'W1'"}.  With @var{strict} true (@code{muon_update}) an
## option given in @var{args} that the algorithm does not read is an error
## (@code{check_unread}); @code{muon_optimizer} and @code{muon_step} pass one option set to
## every parameter group, and do not set it.
## @end deftypefn

function [U, state] = run_update (fname, G, state, args, strict)
  if (nargin < 5)
    strict = false;
  endif
  if (isa (G, "muon_gpuarray")
      || (isstruct (state) && isscalar (state) && isfield (state, "momentum")
          && isa (state.momentum, "muon_gpuarray")))
    [U, state] = gpu_update (fname, G, state, args, strict);   # on the device
    return;
  endif
  ## G: 4-D conv weights are viewed as out x (in*kh*kw)
  sz = size (G);
  if (numel (sz) > 4)
    error ("muonlab:badShape", "%s: G must have 2, 3 or 4 dimensions.", fname);
  endif
  conv = numel (sz) == 4;
  if (conv)
    G2 = reshape (G, sz(1), prod (sz(2:4)));
  else
    G2 = G;
  endif
  check_matrix (fname, "G", G2);
  given = args;
  args = family_presets ("expand", fname, args);     # "Preset", NAME: its pairs, in place
  opts = parse_options (fname, "muon_update", args, "precision", class (G));
  if (strict)                           # muon_update: no option the algorithm ignores
    check_unread (fname, given, opts.algorithm);
  endif
  if (! isempty (args))                 # the default schedule is safe (test_ns_audit)
    unsafe_schedule (fname, opts);
  endif
  form = opts.form;
  ## the Muon family (and Muon with a normalization the core does not spell) runs here
  family = (! strcmp (opts.algorithm, "muon") || opts.norm_scale != 1
            || ! strcmp (opts.eps_placement, "add"));

  ## options that depend on G
  E = opts.experts;
  if (E > 1 && ndims (G) != 2)
    error ("muonlab:badShape", "%s: EXPERTS needs a 2-D fused (E*M) x N weight G.", fname);
  endif
  if (mod (rows (G2), E) != 0)
    error ("muonlab:badShape", "%s: EXPERTS must divide the number of rows of G.", fname);
  endif
  brows = rows (G2) / E;
  sr = split_rows_arg (fname, opts.split_rows, brows);

  ## state: [] starts fresh; anything else must be a state this function returned
  if (isa (state, "double") && ndims (state) == 2 && ! any (size (state)))
    M = [];
    step = 0;
  else
    if (! (isstruct (state) && isscalar (state)
           && all (isfield (state, {"momentum", "step", "form"}))))
      error ("muonlab:badState",
             "%s: STATE must be [] or a struct with fields momentum, step and form.", fname);
    endif
    M = state.momentum;
    if (! (isfloat (M) && isreal (M) && ! issparse (M)))
      error ("muonlab:badState", "%s: STATE.momentum must be a real double or single array.",
             fname);
    endif
    if (! isequal (size (M), sz))
      error ("muonlab:badState", "%s: STATE.momentum must match the size of G.", fname);
    endif
    step = state_step (fname, state, form);
    if (conv)
      M = reshape (M, size (G2));
    endif
  endif

  check_momentum_arith (fname, opts);
  check_aol_eps (fname, opts);
  if (family && (E > 1 || ! isempty (sr) || ndims (G) == 3))
    error ("muonlab:badArg",
           "%s: ALGORITHM '%s' (and NORMSCALE, EPSPLACEMENT) needs one 2-D matrix G: no EXPERTS, SPLITROWS or stack.",
           fname, opts.algorithm);
  endif
  if (conv)                             # NormAxis conv_kernel reads the 4-D shape
    opts.conv_shape = sz;
  endif
  fam = [];
  if (isstruct (state))                 # family_state: what a family buffer must be
    msg = family_state ("STATE", state, opts, rows (G2), columns (G2),
                        unique ({class(M), class(G2)}, "stable"));
    if (! isempty (msg))
      error ("muonlab:badState", "%s: %s.", fname, msg);
    endif
    if (isfield (state, "family"))
      fam = state.family;
    endif
  endif
  if (conv && strcmp (opts.conv_scale, "last_two"))   # the scale reads kh x kw
    opts.scale_rows = sz(3);
    opts.scale_cols = sz(4);
  endif
  if (family)
    B = [];
    if (! isempty (fam))
      B = fam.buffer;
    endif
    [prev_msg, prev_id] = lastwarn ("");
    [U, M, B] = family_update (fname, G2, M, B, opts);
    [~, id] = lastwarn ();
    ## a poisoned second-moment buffer (NaN) reaches U after the Newton-Schulz, which
    ## warned of its own non-finite values only
    bad = nnz (! isfinite (U));
    if (bad > 0 && ! strcmp (id, "muonlab:nonFiniteResult"))
      warning ("muonlab:nonFiniteResult",
               "%s: %d non-finite values in the update from a finite input (an overflow of its precision or state).",
               fname, bad);
    elseif (isempty (id))
      lastwarn (prev_msg, prev_id);
    endif
    if (strcmp (opts.algorithm, "muon"))   # Muon with NormScale or EpsPlacement max
      diverged_blocks (fname, U, opts);
    endif
    if (conv)
      U = reshape (U, sz);
      M = reshape (M, sz);
    endif
    state = struct ("momentum", M, "step", double (step) + 1, "form", form,
                    "family", struct ("algorithm", opts.algorithm, "buffer", B));
    return;
  endif

  opts.split_rows = sr;
  opts.fname = fname;                  # the gateway's errors name the caller too
  [U, M] = __muon_update__ (G2, M, opts);
  diverged_blocks (fname, U, opts);
  if (conv)
    U = reshape (U, sz);
    M = reshape (M, sz);
  endif
  state = struct ("momentum", M, "step", double (step) + 1, "form", form);
endfunction
