## -*- texinfo -*-
## @deftypefn {} {[@var{opts}, @var{rest}] =} update_options (@var{fname}, @var{cls}, @var{args})
## @deftypefnx {} {@var{names} =} update_options ()
## Parse and validate the options shared by everything that runs a Muon update
## (@code{muon_update}, @code{zero_muon_step}): Beta, Nesterov, MomentumForm, Scale,
## ScaleFactor and every Newton-Schulz option of @code{ns_options}.  @var{opts} is the
## struct the gateways take; @var{rest} holds the pairs that are none of these.  Errors name
## @var{fname}.  The names, defaults and allowed values are built once per session, and a
## call with no options returns the cached default struct.
##
## With no argument, return the names of these options (this parser's, then
## @code{ns_options}'s), for a caller that checks option names before handing them on.
## @end deftypefn

function [opts, rest] = update_options (fname, cls, args)
  persistent T;
  if (isempty (T))
    T.defaults = struct ("Beta", 0.95, "Nesterov", true, "MomentumForm", "ema",
                         "Scale", "keller", "ScaleFactor", 1);
    T.names = fieldnames (T.defaults);
    for i = 1:numel (T.names)
      T.k.(T.names{i}) = i;
    endfor
    T.forms = {"ema", "sgd"};
    T.scales = {"keller", "rms", "spectral", "unit_rms", "none"};
    T.extra = struct ("beta", T.defaults.Beta, "nesterov", double (T.defaults.Nesterov),
                      "form", T.defaults.MomentumForm, "scale", T.defaults.Scale,
                      "scale_factor", T.defaults.ScaleFactor);
  endif
  if (nargin == 0)
    opts = [T.names.', ns_options()];
    return;
  endif
  if (isempty (args))
    opts = add_fields (ns_options (fname, cls, args), T.extra);
    rest = {};
    return;
  endif
  [v, rest, given] = parse_pairs (fname, T.defaults, args, T.names);
  [opts, rest] = ns_options (fname, cls, rest);
  opts = add_fields (opts, T.extra);
  if (! any (given))
    return;
  endif
  if (given(T.k.Beta))
    b = v.Beta;
    if (! (isscalar (b) && isnumeric (b) && isreal (b) && isfinite (b) && b >= 0 && b < 1))
      error ("muonlab:badArg", "%s: BETA must be a scalar in [0, 1).", fname);
    endif
    opts.beta = double (b);
  endif
  if (given(T.k.Nesterov))
    nest = v.Nesterov;
    if (! (isscalar (nest)
           && (islogical (nest) || (isnumeric (nest) && any (nest == [0 1])))))
      error ("muonlab:badArg", "%s: NESTEROV must be true or false.", fname);
    endif
    opts.nesterov = double (nest);
  endif
  if (given(T.k.ScaleFactor))
    sf = v.ScaleFactor;
    if (! (isscalar (sf) && isnumeric (sf) && isreal (sf) && isfinite (sf) && sf > 0))
      error ("muonlab:badArg", "%s: SCALEFACTOR must be a positive finite scalar.", fname);
    endif
    opts.scale_factor = double (sf);
  endif
  if (given(T.k.MomentumForm))
    opts.form = choose_option (fname, "MOMENTUMFORM", v.MomentumForm, T.forms);
  endif
  if (given(T.k.Scale))
    opts.scale = choose_option (fname, "SCALE", v.Scale, T.scales);
  endif
endfunction

function s = add_fields (s, extra)
  s.beta = extra.beta;
  s.nesterov = extra.nesterov;
  s.form = extra.form;
  s.scale = extra.scale;
  s.scale_factor = extra.scale_factor;
endfunction
