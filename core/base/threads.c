/* threads.c - the thread policy (DESIGN.md 3, "same input, same bits"): how many threads a
 * call gets when it does not say.  A constant of the machine and the launch: OMP_NUM_THREADS
 * when set, else this process's cores shared out among the MPI ranks on its machine; never
 * the load.  The GEMM layer runs its tiles and the elementwise passes on that many threads
 * (core/gemm/gemm.c), and muon_info reports it.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "muon_internal.h"

int muon_core_count (void)
{
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return CPU_COUNT (&set);
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int) n : 1;
}

int muon_default_threads (void)
{
  const char *env = getenv ("OMP_NUM_THREADS");
  int n = env ? atoi (env) : 0;
  if (n > 0)
    return n < MUON_MAX_THREADS ? n : MUON_MAX_THREADS;
  const char *local = getenv ("OMPI_COMM_WORLD_LOCAL_SIZE");     // Open MPI
  if (local == NULL)
    local = getenv ("MPI_LOCALNRANKS");                          // MPICH (Hydra)
  int ranks = local ? atoi (local) : 1;
  n = muon_core_count () / (ranks > 1 ? ranks : 1);
  return n > 1 ? n : 1;
}
