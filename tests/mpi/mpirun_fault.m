## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## mpirun_fault - a rank function for test_mpirun.m: rank `bad` fails in the way `how` names
## while every other rank waits in the collective `coll` (which would never finish unless the
## failing rank's end ends the job):
##   "raise"  error ("mpirun_fault: rank <bad> gives up")
##   "exit"   exit (status)
##   "kill"   kill (getpid (), 9): SIGKILL, nothing runs after it
##   "term"   kill (getpid (), 15): SIGTERM, which Octave catches (it exits with status 1)
##   "check"  passes a complex X to the collective: its own check fails, and the others
##            (told by the agreement) raise "...: rank <bad> raised an error (...)." too
##   "skip"   returns at once: the others wait in the collective for good
## or, with how "hang", every rank pauses for 600 s in Octave code (where a SIGTERM makes
## Octave save its workspace, were crash dumps not turned off here) until muon_mpirun's
## timeout stops the job.
function s = mpirun_fault (bad, how, coll, status)
  crash_dumps_octave_core (false);      # no octave-workspace file left in the test's folder
  comm = muon_comm ("mpi");
  if (strcmp (how, "hang"))
    pause (600);
  endif
  if (strcmp (how, "check"))
    s = muon_collective (comm, coll, ones (4 * comm.size, 1) * (1 + (comm.rank == bad) * 1i));
    return;
  endif
  if (comm.rank == bad)
    pause (0.5);                        # the others are in the collective by now
    switch (how)
      case "raise"
        error ("mpirun_fault: rank %d gives up", comm.rank);
      case "exit"
        exit (status);
      case "kill"
        kill (getpid (), 9);
      case "term"
        kill (getpid (), 15);
      case "skip"
        s = 0;
        return;
      otherwise
        error ("mpirun_fault: unknown HOW '%s'", how);
    endswitch
    pause (600);
  endif
  if (strcmp (coll, "barrier"))
    s = muon_collective (comm, "barrier");
  else
    s = muon_collective (comm, coll, ones (4 * comm.size, 1));
  endif
endfunction
