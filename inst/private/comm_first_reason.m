## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{why} =} comm_first_reason (@var{comm}, @var{why})
## Why a step is skipped, the same on every rank: the reason of the lowest rank that has
## one (@var{why}, "" for none, at most 256 characters), as the sim communicator finds it
## scanning its ranks in order.  One all-gather of 256 doubles on a communicator spanning
## several processes (MPI, NCCL); @var{why} unchanged where every rank is in this process.
## @end deftypefn

function why = comm_first_reason (comm, why)
  if (! (isstruct (comm) && isfield (comm, "local_ranks") && comm.local_ranks < comm.size))
    return;
  endif
  n = 256;
  t = zeros (n, 1);
  m = min (numel (why), n);
  t(1:m) = double (why(1:m));
  A = reshape (__muon_comm__ ("all_gather", comm, t), n, []);
  k = find (A(1,:), 1);
  why = "";
  if (! isempty (k))
    why = char (A(1:find (A(:,k), 1, "last"), k).');
  endif
endfunction
