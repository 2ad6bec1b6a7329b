## mpirun_fail - a rank function for test_mpirun.m: rank `bad` raises an error while every
## other rank waits in a collective `coll` (which would never finish without MPI_Abort).
function s = mpirun_fail (bad, coll)
  comm = muon_comm ("mpi");
  if (comm.rank == bad)
    pause (0.5);                        # the others are in the collective by now
    error ("mpirun_fail: rank %d gives up", comm.rank);
  endif
  if (strcmp (coll, "barrier"))
    s = muon_collective (comm, "barrier");
  else
    s = muon_collective (comm, coll, ones (4 * comm.size, 1));
  endif
endfunction
