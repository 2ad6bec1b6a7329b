## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{ranks}, @var{nl}] =} zero_local_ranks (@var{fname}, @var{comm}, @var{W})
## The ranks (0-based, a row) this process drives for the communicator option @var{comm}
## (@qcode{"sim"}: all @var{W}; a handle from @code{muon_comm}: its local ranks), and how
## many.  Anything else, or a handle of another size, is a @code{muonlab:badArg} error
## naming @var{fname}.  The one check of a communicator for every zero_* function.
## @end deftypefn

function [ranks, nl] = zero_local_ranks (fname, comm, W)
  cnt = @(x) isnumeric (x) && isreal (x) && isscalar (x) && x >= 1 && x == fix (x);
  if (ischar (comm))
    ranks = 0:W-1;
  elseif (! (isstruct (comm) && isscalar (comm)
             && all (isfield (comm, {"kind", "size", "local_ranks"}))
             && cnt (comm.size) && cnt (comm.local_ranks)))
    error ("muonlab:badArg", "%s: COMM must be \"sim\" or a handle from muon_comm.", fname);
  else
    if (! (isnumeric (comm.size) && isscalar (comm.size) && comm.size == W
           && isfield (comm, "rank") && isfield (comm, "local_ranks")))
      error ("muonlab:badArg", "%s: the communicator has %s ranks, the layout %d.", fname,
             num2str (comm.size), W);
    endif
    r = comm.rank;
    if (! (isnumeric (r) && isreal (r) && isscalar (r) && r >= 0 && r == fix (r)
           && r + comm.local_ranks <= W))
      error ("muonlab:badArg", "%s: COMM must be \"sim\" or a handle from muon_comm.", fname);
    endif
    ranks = r + (0:comm.local_ranks-1);
  endif
  nl = numel (ranks);
endfunction
