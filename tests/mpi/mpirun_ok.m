## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## mpirun_ok - a rank function for test_mpirun.m (run by muon_mpirun on every rank): prints
## a line on each rank, all-reduces x * (rank + 1) and the random vectors of seed, and returns
## what it saw.
function s = mpirun_ok (x, seed, extra)
  comm = muon_comm ("mpi");
  printf ("mpirun_ok: rank %d of %d\n", comm.rank, comm.size);
  s.rank = comm.rank;
  s.size = comm.size;
  s.sum = muon_collective (comm, "allreduce", x * (comm.rank + 1));
  randn ("state", seed + comm.rank);
  [s.y, s.info] = muon_collective (comm, "allreduce", randn (50, 1) .* 10 .^ (3 * randn (50, 1)));
  s.extra = extra;
  s.pwd = pwd ();
endfunction
