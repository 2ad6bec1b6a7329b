## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## mpi_suite (COMM, TESTS, TITLE) - runs the per-rank tests of one mpi-layer suite
## (run_*.m) on every rank of the MPI communicator COMM and reports once.
##
## TESTS is a cell {name, @fn, name, @fn, ...}; each fn (COMM) returns this rank's failure
## count.  The ranks agree on pass/fail: the counts are all-gathered, so a test fails when
## it failed on any rank.  Rank 0 prints one line per test (with the ranks it failed on) and
## "mpi TITLE np=W: P passed, F failed", and appends "mpi P F" to the file named by
## $MUON_MPI_RESULTS.  An unexpected error on one rank cannot leave the others waiting in a
## collective: it is printed and the job is aborted (MPI_Abort).

function mpi_suite (comm, tests, title)
  n = numel (tests) / 2;
  fails = zeros (n, 1);
  for k = 1:n
    try
      fails(k) = tests{2*k} (comm);
    catch err
      msg = sprintf ("rank %d: test %s raised: %s", comm.rank, tests{2*k-1}, err.message);
      printf ("%s\n", msg);
      fflush (stdout);
      __muon_comm__ ("abort", msg);
    end_try_catch
  endfor
  G = muon_collective (comm, "all_gather", fails);   # n x W: every rank's counts
  bad = any (G > 0, 2);
  if (comm.rank == 0)
    for k = 1:n
      if (bad(k))
        printf ("  FAIL %-28s (failed on ranks %s)\n", tests{2*k-1},
                sprintf ("%d ", find (G(k,:) > 0) - 1));
      else
        printf ("  pass %s\n", tests{2*k-1});
      endif
    endfor
    printf ("mpi %s np=%d: %d passed, %d failed\n", title, comm.size, sum (! bad), sum (bad));
    res = getenv ("MUON_MPI_RESULTS");
    if (! isempty (res))
      fid = fopen (res, "a");
      fprintf (fid, "mpi %d %d\n", sum (! bad), sum (bad));
      fclose (fid);
    endif
  endif
  fflush (stdout);
endfunction
