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
## options would have given.  That holds for a list that is no NAME, VALUE list too (a value
## left out before @qcode{"Comm"}): there @qcode{"Comm"} is looked for at every position.
## @end deftypefn

function comm = comm_in_args (args)
  comm = [];
  names = args(1:2:end);
  ## a list that is no NAME, VALUE list (a value left out before "Comm") is read at every
  ## position: the options are refused, but the rank must still join with its communicator
  step = 1 + (mod (numel (args), 2) == 0 && iscellstr (names));
  for i = 1:step:numel (args) - 1
    if (ischar (args{i}) && strcmpi (args{i}, "comm"))
      comm = args{i+1};
      if (isnumeric (comm) && isempty (comm))
        comm = {};
      endif
    endif
  endfor
endfunction
