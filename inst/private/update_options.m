## -*- texinfo -*-
## @deftypefn {} {[@var{opts}, @var{rest}] =} update_options (@var{fname}, @var{cls}, @var{args})
## Parse and validate the options shared by everything that runs a Muon update
## (@code{muon_update}, @code{zero_muon_step}): Beta, Nesterov, MomentumForm, Scale,
## ScaleFactor and every Newton-Schulz option of @code{ns_options}.  @var{opts} is the
## struct the gateways take; @var{rest} holds the pairs that are none of these.
## @end deftypefn

function [opts, rest] = update_options (fname, cls, args)
  defaults = struct ("Beta", 0.95, "Nesterov", true, "MomentumForm", "ema",
                     "Scale", "keller", "ScaleFactor", 1);
  [v, rest] = parse_pairs (fname, defaults, args);
  [opts, rest] = ns_options (fname, cls, rest);
  b = v.Beta;
  if (! (isscalar (b) && isnumeric (b) && isreal (b) && isfinite (b) && b >= 0 && b < 1))
    error ("muonlab:badArg", "%s: BETA must be a scalar in [0, 1).", fname);
  endif
  nest = v.Nesterov;
  if (! (isscalar (nest) && (islogical (nest) || (isnumeric (nest) && any (nest == [0 1])))))
    error ("muonlab:badArg", "%s: NESTEROV must be true or false.", fname);
  endif
  sf = v.ScaleFactor;
  if (! (isscalar (sf) && isnumeric (sf) && isreal (sf) && isfinite (sf) && sf > 0))
    error ("muonlab:badArg", "%s: SCALEFACTOR must be a positive finite scalar.", fname);
  endif
  opts.beta = double (b);
  opts.nesterov = double (nest);
  opts.form = choose_option (fname, "MOMENTUMFORM", v.MomentumForm, {"ema", "sgd"});
  opts.scale = choose_option (fname, "SCALE", v.Scale,
                              {"keller", "rms", "spectral", "unit_rms", "none"});
  opts.scale_factor = double (sf);
endfunction
