## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{o} =} agree_opts (@var{o})
## The parsed options @var{o} (a struct from @code{parse_options}, or any value) as the
## ranks compare them (@code{comm_agree}'s @code{value_hash}): the values the call takes
## effect with, so that a rank that passes a default explicitly agrees with one that omits
## it.  Logical and numeric values of any class become double (@qcode{"Nesterov"},
## true and the default 1 are one value); in a struct with fields @code{coeffs} and
## @code{steps}, the schedule becomes the triples it runs (@code{expand_schedule}: an
## empty @code{coeffs} is the default schedule, a @code{steps} of 0 its default count,
## beyond the list by @code{schedule_mode}) and @code{steps} their number, and a
## @code{schedule_mode} field becomes @qcode{"repeat_last"}: @qcode{"cycle"} and
## @qcode{"repeat_last"} agree where they run the same triples (one triple, or no step
## past the list).  Structs and cells are converted element by element.
## The options a caller resolves itself (@qcode{"Assemble"}'s [] in @code{zero_muon_step})
## it sets before the call.
## @end deftypefn

function o = agree_opts (o)
  if (isstruct (o))
    if (isscalar (o) && all (isfield (o, {"coeffs", "steps"})) && isnumeric (o.coeffs)
        && (isempty (o.coeffs) || columns (o.coeffs) == 3)
        && isnumeric (o.steps) && isscalar (o.steps))
      mode = "repeat_last";
      if (isfield (o, "schedule_mode"))
        [mode, o.schedule_mode] = deal (o.schedule_mode, "repeat_last");
      endif
      o.coeffs = expand_schedule (double (o.coeffs), o.steps, mode);
      o.steps = rows (o.coeffs);
    endif
    f = fieldnames (o);
    for i = 1:numel (o)
      for k = 1:numel (f)
        o(i).(f{k}) = agree_opts (o(i).(f{k}));
      endfor
    endfor
  elseif (iscell (o))
    o = cellfun (@agree_opts, o, "UniformOutput", false);
  elseif ((islogical (o) || isnumeric (o)) && ! isa (o, "double"))
    o = double (o);
  endif
endfunction
