## -*- texinfo -*-
## @deftypefn {} {@var{sr} =} split_rows_arg (@var{fname}, @var{sr}, @var{brows})
## The @qcode{"SplitRows"} option of an update checked against blocks of @var{brows} rows:
## empty, or positive integers summing to @var{brows}; returned as a double row.
## @end deftypefn

function sr = split_rows_arg (fname, sr, brows)
  if (! (isnumeric (sr) && isreal (sr)
         && (isempty (sr) || (isvector (sr) && all (sr(:) >= 1 & sr(:) == fix (sr(:)))
                              && sum (sr(:)) == brows))))
    error ("muonlab:badShape",
           "%s: SPLITROWS must be positive integers summing to the rows of each block (%d).",
           fname, brows);
  endif
  sr = double (sr(:).');
endfunction
