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
## then raises its own error: it joins the agreement the other ranks wait in, so that they
## raise "FNAME: rank R raised an error (its own message says why)." instead of waiting
## for ever under @code{mpirun} (the rank's own error comes first, even a refused option:
## the caller reads COMM from its arguments, @code{comm_in_args}).  Every agreement sends the same
## number of doubles (a status, the function, @var{sig} padded to 8), so that ranks in
## different functions' agreements pair up and say so ("FNAME: every rank must make the
## same call: rank R is in zero_muon_step, rank 0 in muon_collective.") instead of
## truncating or hanging.
## @end deftypefn

function comm_agree (fname, comm, sig, names, labels)
  if (! (isstruct (comm) && isscalar (comm) && all (isfield (comm, {"local_ranks", "size"}))
         && isnumeric (comm.local_ranks) && isscalar (comm.local_ranks)
         && isnumeric (comm.size) && isscalar (comm.size) && comm.local_ranks < comm.size))
    return;                             # (a malformed handle: the gateway says what is wrong)
  endif
  fns = {"muon_collective", "zero_muon_step", "zero_train_step", "zero_save_state", ...
         "zero_load_state"};
  t = zeros (10, 1);                    # status, function, SIG padded: one length for all
  t(2) = find (strcmp (fname, fns));
  if (isempty (sig))                    # this rank failed: join, and let it raise its own
    try
      __muon_comm__ ("agree", comm, t);
    end_try_catch
    return;
  endif
  t(1) = 1;
  t(2 + (1:numel (sig))) = sig;
  d = __muon_comm__ ("agree", comm, t);
  if (d(1) < 0)
    return;
  endif
  if (d(2) == 2)                        # entry 2: the function (before its own checks)
    error ("muonlab:badArg",
           "%s: every rank must make the same call: rank %d is in %s, rank 0 in %s.", fname,
           d(1), fns{d(3)}, fns{d(4)});
  endif
  if (d(2) == 1)                        # entry 1: whether the rank passed its own checks
    error ("muonlab:badArg",
           "%s: rank %d raised an error (its own message says why).",
           fname, merge (d(3) == 0, d(1), 0));
  endif
  i = d(2) - 2;
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
