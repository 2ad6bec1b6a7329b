## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## F = mpi_check (OK, COMM, FMT, ...) - one check of an mpi-layer test: F = !OK, and a
## failure is printed on this rank with the sprintf message FMT, ...

function f = mpi_check (ok, comm, fmt, varargin)
  f = ! ok;
  if (! ok)
    printf ("rank %d: FAIL %s\n", comm.rank, sprintf (fmt, varargin{:}));
    fflush (stdout);
  endif
endfunction
