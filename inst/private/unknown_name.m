## -*- texinfo -*-
## @deftypefn {} {@var{msg} =} unknown_name (@var{fname}, @var{what}, @var{name}, @var{valid})
## The message for an unknown option @var{name} (or field, @var{what}) of @var{fname}
## whose valid names are the cellstr @var{valid}: @qcode{"fname: unknown option 'name'"},
## then what a peer's user meant by it when @code{option_aliases} knows the name and its
## muonlab spelling is valid here (@qcode{": \"momentum\" (torch.optim.Muon, DeepSpeed)
## is \"Beta\" here: the same number (0.95)."}), else the closest valid names
## (@qcode{"; did you mean 'Precision'?"}, @code{suggest}), and last the valid set
## (@qcode{" Options: Method, Precision, @dots{}."}).
## @end deftypefn

function msg = unknown_name (fname, what, name, valid)
  msg = sprintf ("%s: unknown %s '%s'", fname, what, name);
  A = option_aliases ();
  k = find (strcmpi (name, A(:,1)), 1);
  hit = [];
  if (! isempty (k))
    hit = find (strcmpi (A{k,3}, valid), 1);
  endif
  if (! isempty (hit))
    msg = sprintf ("%s: \"%s\" (%s) is \"%s\" here: %s.", msg, A{k,1}, A{k,2}, valid{hit},
                   A{k,4});
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
