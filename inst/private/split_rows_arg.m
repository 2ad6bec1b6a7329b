## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{sr} =} split_rows_arg (@var{fname}, @var{sr}, @var{brows})
## The @qcode{"SplitRows"} option of an update checked against blocks of @var{brows} rows:
## empty, or positive integers summing to @var{brows}, at most the core's limit of row
## blocks (checked here so that the message names the option); returned as a double row.
## @end deftypefn

function sr = split_rows_arg (fname, sr, brows)
  if (! (isnumeric (sr) && isreal (sr)
         && (isempty (sr) || (isvector (sr) && all (sr(:) >= 1 & sr(:) == fix (sr(:)))
                              && sum (sr(:)) == brows))))
    error ("muonlab:badShape",
           "%s: SPLITROWS must be positive integers summing to the rows of each block (%d).",
           fname, brows);
  endif
  if (numel (sr) > core_lists ().limits.max_splits)
    error ("muonlab:badArg", "%s: SPLITROWS has %d row blocks; at most %d.", fname,
           numel (sr), core_lists ().limits.max_splits);
  endif
  sr = double (sr(:).');
endfunction
