## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{msg} =} unknown_name (@var{fname}, @var{what}, @var{name}, @var{valid})
## @deftypefnx {} {@var{msg} =} unknown_name (@var{fname}, @var{what}, @var{name}, @var{valid}, @var{value})
## The message for an unknown option @var{name} (or field, @var{what}) of @var{fname}
## whose valid names are the cellstr @var{valid}: @qcode{"fname: unknown option 'name'"},
## then what a peer's user meant by it when @code{option_aliases} knows the name and its
## muonlab spelling is valid here (@qcode{": \"momentum\" (torch.optim.Muon, DeepSpeed)
## is \"Beta\" here: the same number (0.95)."}), else the closest valid names
## (@qcode{"; did you mean 'Precision'?"}, @code{suggest}), and last the valid set
## (@qcode{" Options: Method, Precision, @dots{}."}).  A peer's name of a loss scaler
## setting, typed as an option, is a field of the @qcode{"LossScaler"} struct: the message
## says so and shows the call, with the option's @var{value} when it is a real scalar
## (@qcode{": \"hysteresis\" (DeepSpeed, Megatron) is the LOSSSCALER field
## \"Hysteresis\" here (\"LossScaler\", struct (\"Hysteresis\", 2)): @dots{}"}), or
## which functions take @qcode{"LossScaler"} when @var{fname} does not.
## @end deftypefn

function msg = unknown_name (fname, what, name, valid, value)
  msg = sprintf ("%s: unknown %s '%s'", fname, what, name);
  A = option_aliases ();
  k = find (strcmpi (name, A(:,1)), 1);
  hit = [];
  field = false;                        # a LossScaler field, typed as an option
  if (! isempty (k))
    hit = find (strcmpi (A{k,3}, valid), 1);
    field = (isempty (hit) && strcmp (what, "option")
             && any (strcmp (A{k,3}, option_spec ("loss_scaler").names)));
  endif
  if (! isempty (hit))
    msg = sprintf ("%s: \"%s\" (%s) is \"%s\" here: %s.", msg, A{k,1}, A{k,2}, valid{hit},
                   A{k,4});
  elseif (field && any (strcmp ("LossScaler", valid)))
    if (nargin < 5)
      value = [];
    endif
    msg = sprintf ("%s: \"%s\" (%s) is the LOSSSCALER field \"%s\" here (\"LossScaler\", %s): %s.",
                   msg, A{k,1}, A{k,2}, A{k,3}, scaler_call (A{k,1}, A{k,3}, value), A{k,4});
  elseif (field && isvarname (fname))
    msg = sprintf ("%s: \"%s\" (%s) is the LOSSSCALER field \"%s\" here, of %s, not of %s.",
                   msg, A{k,1}, A{k,2}, A{k,3}, owner_list (option_owners ("LossScaler")),
                   fname);
  elseif (! isempty (k) && strcmp (what, "option") && isvarname (fname)
          && ! isempty (owners = option_owners (A{k,3})))
    msg = sprintf ("%s: \"%s\" (%s) is \"%s\" here, an option of %s, not of %s.", msg,
                   A{k,1}, A{k,2}, A{k,3}, owner_list (owners), fname);
  else
    s = suggest (name, valid);
    if (isempty (s) && strcmp (what, "option") && isvarname (fname)
        && ! isempty (owners = option_owners (name)))
      msg = sprintf ("%s: an option of %s, not of %s.", msg, owner_list (owners), fname);
    elseif (isempty (s))
      msg = [msg "."];
    else
      msg = sprintf ("%s; did you mean %s?", msg, quoted_list (s, "or"));
    endif
  endif
  msg = sprintf ("%s %ss: %s.", msg, [upper(what(1)) what(2:end)], strjoin (valid, ", "));
endfunction

## The "LossScaler" value that sets the field FIELD as the peer's NAME = VALUE does: a
## struct of the value given (mat2str) where it is a real scalar, else of "...";
## initial_scale_power p is InitScale 2^p, loss_scale 0 (DeepSpeed's dynamic) the preset
## "deepspeed", a fixed loss_scale s an InitScale s that never changes.
function txt = scaler_call (name, field, value)
  if (! ((isnumeric (value) || islogical (value)) && isscalar (value) && isreal (value)
         && ! isnan (value)))
    txt = sprintf ("struct (\"%s\", ...)", field);
  elseif (strcmp (name, "initial_scale_power"))
    txt = sprintf ("struct (\"InitScale\", 2^%s)", mat2str (double (value)));
  elseif (strcmp (name, "loss_scale") && value == 0)
    txt = "\"deepspeed\"";
  elseif (strcmp (name, "loss_scale"))
    v = mat2str (double (value));
    txt = sprintf ("struct (\"InitScale\", %s, \"GrowthInterval\", Inf, \"Backoff\", 1%s)", v,
                   merge (value < 1, sprintf (", \"MinScale\", %s", v), ""));
  else
    if (! islogical (value))
      value = double (value);
    endif
    txt = sprintf ("struct (\"%s\", %s)", field, mat2str (value));
  endif
endfunction

## "muon_optimizer", "muon_ns and muon_update", up to four named, then "muon_ns,
## muon_update, muon_optimizer and 5 other functions"
function txt = owner_list (owners)
  if (numel (owners) > 4)
    txt = sprintf ("%s and %d other functions", strjoin (owners(1:3), ", "), numel (owners) - 3);
  else
    txt = strrep (quoted_list (owners, "and"), "'", "");
  endif
endfunction

## The user functions whose options include NAME (option_spec's tables; only asked on the
## way to an error).
function owners = option_owners (name)
  keys = setdiff (option_spec (), {"muon_optimizer_param", "loss_scaler", "demo"}, "stable");
  owners = keys(cellfun (@(key) any (strcmpi (name, option_spec (key).names)), keys));
endfunction
