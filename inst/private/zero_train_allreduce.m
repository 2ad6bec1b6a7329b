## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{y}] =} zero_train_allreduce (@var{comm}, @var{xs}, @var{op})
## One all-reduce of @code{zero_train_step}'s local values @var{xs} (an nl x 1 cell of equal-size
## arrays) over @var{comm} with @var{op} (@qcode{"sum"}, @qcode{"avg"}): the result.
## @end deftypefn

function y = zero_train_allreduce (comm, xs, op)
  if (strcmp (comm.kind, "sim"))
    y = muon_collective (comm, "allreduce", reshape (xs, 1, []), "Op", op);
  else
    y = muon_collective (comm, "allreduce", xs{1}, "Op", op);
  endif
  if (iscell (y))
    y = y{1};
  endif
endfunction
