## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{R} =} fixed_randn (@var{seed}, @var{dims})
## @code{randn (@var{dims}@{:@})} drawn from @code{randn ("state", @var{seed})}, the same
## numbers on every call, with the caller's generator left as it was: which generator
## Octave uses (setting a "state" selects the new one, and a caller may be on the old one
## through @code{randn ("seed", s)}) and its randn stream.  The new generator's rand,
## rande and randi streams are kept too; Octave's old generator cannot give back rand's
## stream once randn's seed is set (its seeds are shared), so under it rand starts anew.
## @var{dims} is a cell of sizes.
## @end deftypefn

function R = fixed_randn (seed, dims)
  state = randn ("state");
  old = randn ("seed");
  randn (1);                            # moves the seed only when the old generator runs
  use_old = randn ("seed") != old;
  unwind_protect
    randn ("state", seed);
    R = randn (dims{:});
  unwind_protect_cleanup
    if (use_old)
      randn ("seed", old);
    else
      randn ("state", state);
    endif
  end_unwind_protect
endfunction
