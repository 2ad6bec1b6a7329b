## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{ranks}, @var{nl}] =} zero_local_ranks (@var{fname}, @var{comm}, @var{W})
## The ranks (0-based, a row) this process drives for the communicator option @var{comm}
## (@qcode{"sim"}: all @var{W}; a handle from @code{muon_comm}: its local ranks), and how
## many.  A handle of another size is a @code{muonlab:badArg} error naming @var{fname}.
## @end deftypefn

function [ranks, nl] = zero_local_ranks (fname, comm, W)
  if (ischar (comm))
    ranks = 0:W-1;
  else
    if (! (isnumeric (comm.size) && isscalar (comm.size) && comm.size == W
           && isfield (comm, "rank") && isfield (comm, "local_ranks")))
      error ("muonlab:badArg", "%s: the communicator has %s ranks, the layout %d.", fname,
             num2str (comm.size), W);
    endif
    ranks = comm.rank + (0:comm.local_ranks-1);
  endif
  nl = numel (ranks);
endfunction
