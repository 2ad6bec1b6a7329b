## Copyright (C) 2026 The muonlab authors
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{o} =} agree_opts (@var{o})
## The parsed options @var{o} (a struct from @code{parse_options}, or any value) as the
## ranks compare them (@code{comm_agree}'s @code{value_hash}): the values the call takes
## effect with, so that a rank that passes a default explicitly agrees with one that omits
## it.  Logical and numeric values of any class become double (@qcode{"Nesterov"},
## true and the default 1 are one value); in a struct with fields @code{coeffs} and
## @code{steps}, an empty @code{coeffs} becomes the default schedule's triples and a
## @code{steps} of 0 its default count (5 for one triple, else the number of triples:
## the core's rule, @code{muon_ns}).  Structs and cells are converted element by element.
## The options a caller resolves itself (@qcode{"Assemble"}'s [] in @code{zero_muon_step})
## it sets before the call.
## @end deftypefn

function o = agree_opts (o)
  if (isstruct (o))
    if (isscalar (o) && all (isfield (o, {"coeffs", "steps"})))
      if (isempty (o.coeffs))
        o.coeffs = muon_coeffs (core_lists ().defaults.ns.coefficients);
      endif
      if (isnumeric (o.steps) && isscalar (o.steps) && o.steps == 0)
        K = rows (o.coeffs);
        o.steps = merge (K == 1, 5, K);
      endif
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
