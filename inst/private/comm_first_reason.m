## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{why} =} comm_first_reason (@var{comm}, @var{why}, @var{key})
## Why a step is skipped, the same on every rank: of the ranks that have a reason
## (@var{why}, "" for none, at most 254 characters), the one with the smallest @var{key}
## (default 0), the lowest rank among equal keys: what the sim communicator finds first
## when it scans its ranks in that order (@code{zero_muon_step} keys by the parameter,
## @code{zero_train_step} by none).  On a communicator spanning several processes (MPI,
## NCCL) an uncounted agreement first (@code{muon_comm_agree}: where no rank has a reason,
## nothing more moves), then an all-gather of 256 doubles only when some rank has one;
## @var{why} unchanged where every rank is in this process.
## @end deftypefn

function why = comm_first_reason (comm, why, key)
  if (! (isstruct (comm) && isfield (comm, "local_ranks") && comm.local_ranks < comm.size))
    return;
  endif
  if (nargin < 3 || isempty (why))
    key = 0;
  endif
  n = 256;
  t = zeros (n, 1);
  m = min (numel (why), n - 2);
  t(1:2) = [! isempty(why), key];
  t(2 + (1:m)) = double (why(1:m));
  d = __muon_comm__ ("agree", comm, t);
  if (d(1) < 0)                         # every rank the same: this one's reason is theirs
    return;
  endif
  A = reshape (__muon_comm__ ("all_gather", comm, t), n, []);
  has = find (A(1,:));
  [~, i] = min (A(2,has));              # the smallest key, the lowest rank among equals
  k = has(i);
  why = char (A(3:2 + find (A(3:end,k), 1, "last"), k).');
endfunction
