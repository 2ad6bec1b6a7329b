## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} comm_agree (@var{fname}, @var{comm}, @var{sig}, @var{names}, @var{labels})
## Check that every rank of a communicator spanning several processes (MPI, NCCL) was
## called with the same arguments, before a call on which ranks that disagree would hang,
## fail in the library's words, or pair unlike data (@code{muon_comm_agree}: one all-gather
## of @code{numel (@var{sig})} + 1 doubles, not counted as traffic).  @var{sig} is a row of
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
## the caller reads COMM from its arguments, @code{comm_in_args}; a name such as
## @qcode{"mpi"} joins too).  Such a rank whose COMM names no communicator at all (5, a
## cell, a struct whose @code{kind} is not a name; [] is the default sim and joins nothing)
## joins on the process's MPI communicator when MPI is live in this process, and joins
## nothing otherwise.  If the others make no agreement there (they use "sim" or "self"
## communicators of their own), that rank waits until the job ends: a wait, never a
## pairing with another call's data, which raising at once would give (MPI has no way to
## withdraw from a collective after a deadline).  Every agreement sends the same
## number of doubles (a status, the function, @var{sig} padded to 8), so that ranks in
## different functions' agreements pair up and say so ("FNAME: every rank must make the
## same call: rank R is in zero_muon_step, rank 0 in muon_collective.") instead of
## truncating or hanging.
##
## Whether there is anything to agree is the gateway's, from @var{comm}'s kind and
## reduction only (not the handle's other fields: a handle whose @code{local_ranks},
## @code{size} or @code{rank} were edited, or a name, still agrees under MPI; a rank whose
## handle the gateway cannot read at all joins on its kind).  The gateway adds the
## communicator itself to the signature, its kind and reduction, and runs every agreement
## on the process's one MPI communicator (an NCCL call's too, before its NCCL
## communicator is made: making it is collective), so that ranks whose handles differ in
## kind, or only in
## @qcode{"Reduction"} raise "FNAME: every rank must pass the same communicator: rank R
## has mpi with Reduction 'mpi', rank 0 mpi with Reduction 'fixed'." instead of pairing
## unlike reductions.
## @end deftypefn

function comm_agree (fname, comm, sig, names, labels)
  if (isnumeric (comm) && isempty (comm))
    return;                             # [] (the default sim): nothing to agree
  endif
  fns = {"muon_collective", "zero_muon_step", "zero_train_step", "zero_save_state", ...
         "zero_load_state"};
  t = zeros (10, 1);                    # status, function, SIG padded: one length for all
                                        # (the gateway adds the communicator)
  t(2) = find (strcmp (fname, fns));
  if (isempty (sig))                    # this rank failed: join, and let it raise its own
    try
      __muon_comm__ ("agree", comm, t);
      return;
    catch                               # a handle the gateway cannot read (its reduction
    end_try_catch                       # edited, say): join on its kind's communicator
    try
      if (isstruct (comm) && isscalar (comm) && isfield (comm, "kind")
          && ischar (comm.kind) && isrow (comm.kind))
        __muon_comm__ ("agree", comm.kind, t);
        return;
      endif
    catch
    end_try_catch
    ## no communicator at all (5, a cell, a struct whose kind is not a name): the other
    ## ranks can only be waiting on the process's MPI communicator, if MPI is live here
    if (__muon_comm__ ("mpi_live"))
      __muon_comm__ ("agree", "mpi", t);
    endif
    return;
  endif
  t(1) = 1;
  t(2 + (1:numel (sig))) = sig + 0;     # (-0 + 0 is 0: the same value, the same bits)
  d = __muon_comm__ ("agree", comm, t);
  if (d(1) < 0)
    return;
  endif
  if (d(2) == numel (t) + 1)            # the gateway's entry: the communicator itself
    kinds = core_lists ().lists.comm_kind;
    txt = @(v) sprintf ("%s with Reduction '%s'", kinds{floor(v/2) + 1},
                        merge (mod (v, 2) == 1, kinds{floor(v/2) + 1}, "fixed"));
    error ("muonlab:badArg",
           "%s: every rank must pass the same communicator: rank %d has %s, rank 0 %s.",
           fname, d(1), txt (d(3)), txt (d(4)));
  endif
  if (d(2) == 2)                        # entry 2: the function (before its own checks)
    name = @(v) merge (any (v == 1:numel (fns)), fns{min (max (round (v), 1), numel (fns))},
                       "another call");
    error ("muonlab:badArg",
           "%s: every rank must make the same call: rank %d is in %s, rank 0 in %s.", fname,
           d(1), name (d(3)), name (d(4)));
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
