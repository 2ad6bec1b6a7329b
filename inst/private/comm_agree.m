## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} comm_agree (@var{fname}, @var{comm}, @var{sig}, @var{names}, @var{labels})
## Check that every rank of a communicator spanning several processes (MPI, NCCL) was
## called with the same arguments, before a call on which ranks that disagree would hang,
## fail in the library's words, or pair unlike data (@code{muon_comm_agree}: one all-gather
## of @code{numel (@var{sig})} doubles, not counted as traffic).  @var{sig} is a row of
## doubles that must be equal on every rank; @var{names}@{i@} names entry i in the
## message, and @var{labels}@{i@}, when a cellstr, is the text of its values 1, 2, @dots{},
## when @qcode{"hash"} marks a @code{value_hash} (no value shown), else the number is
## shown.  On a disagreement every rank raises the same @code{muonlab:badArg}: "FNAME:
## every rank must pass the same NAME: rank R has A, rank 0 B." (or "...: rank R's differs
## from rank 0's.").  A communicator whose ranks are all in this process (sim, self, a
## name) has nothing to check.
##
## A rank whose own checks failed before the agreement calls it with @var{sig} empty and
## then raises its own error: it joins the agreement the other ranks wait in (with the
## same number of entries), so that they raise "FNAME: rank R raised an error before the
## collectives (its own message says why)." instead of waiting for ever under
## @code{mpirun}.  Only where every rank is bound to reach the agreement (a call of the
## same function that always agrees).
## @end deftypefn

function comm_agree (fname, comm, sig, names, labels)
  if (! (isstruct (comm) && isscalar (comm) && all (isfield (comm, {"local_ranks", "size"}))
         && isnumeric (comm.local_ranks) && isscalar (comm.local_ranks)
         && isnumeric (comm.size) && isscalar (comm.size) && comm.local_ranks < comm.size))
    return;                             # (a malformed handle: the gateway says what is wrong)
  endif
  if (isempty (sig))                    # this rank failed: join, and let it raise its own
    try
      __muon_comm__ ("agree", comm, zeros (1 + numel (names), 1));
    end_try_catch
    return;
  endif
  d = __muon_comm__ ("agree", comm, [1; double(sig(:))]);
  if (d(1) < 0)
    return;
  endif
  if (d(2) == 1)                        # entry 1: whether the rank passed its own checks
    error ("muonlab:badArg",
           "%s: rank %d raised an error before the collectives (its own message says why).",
           fname, merge (d(3) == 0, d(1), 0));
  endif
  i = d(2) - 1;
  if (nargin > 4 && ischar (labels{i}))
    error ("muonlab:badArg", "%s: every rank must pass the same %s: rank %d's differs from rank 0's.",
           fname, names{i}, d(1));
  endif
  txt = @(v) num2str (v);
  if (nargin > 4 && iscellstr (labels{i}))
    txt = @(v) labels{i}{v};
  endif
  error ("muonlab:badArg", "%s: every rank must pass the same %s: rank %d has %s, rank 0 %s.",
         fname, names{i}, d(1), txt (d(3)), txt (d(4)));
endfunction
