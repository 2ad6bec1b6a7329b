## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{comm} =} comm_in_args (@var{args})
## The value of the option @qcode{"Comm"} (any case) in the NAME, VALUE cell @var{args},
## read without checking the others; [] when there is none (the default sim), and @{@}
## (no communicator) for a @qcode{"Comm"} given as [], which the functions refuse: such a
## rank must join the others' agreement like one given 5, not stay out as the default does.
## For a rank whose options were refused (a misspelt name, a bad value): it still joins
## the agreement of the others (@code{comm_agree}), which needs the communicator the
## options would have given.  That holds for a list that is no NAME, VALUE list too (values
## left out, an extra string): where no NAME position holds @qcode{"Comm"}, every position
## is looked at, and a @qcode{"Comm"} with no value after it is no communicator (@{@}).
## @end deftypefn

function comm = comm_in_args (args)
  ## the NAME positions first; then, for a list that is no NAME, VALUE list (a value left
  ## out before "Comm", two left out, an extra string), every position
  comm = [];
  is_comm = cellfun (@(x) ischar (x) && strcmpi (x, "comm"), args);
  k = find (is_comm(1:2:end), 1, "last") * 2 - 1;
  if (isempty (k))
    ## at a VALUE position, a "comm" followed by a string names "Comm" only if that string
    ## is a kind of communicator ("sim", "mpi", ...): else it is a value ("Coefficients",
    ## "comm", "Steps", 2)
    n = numel (args);
    kinds = core_lists ().lists.comm_kind;
    ok = @(i) i == n || ! ischar (args{i+1}) || any (strcmpi (args{i+1}, kinds));
    k = find (is_comm & arrayfun (ok, 1:n), 1, "last");
  endif
  if (isempty (k))
    return;
  elseif (k == numel (args))            # "Comm" with no value: no communicator
    comm = {};
    return;
  endif
  comm = args{k+1};
  if (isnumeric (comm) && isempty (comm))
    comm = {};
  endif
endfunction
