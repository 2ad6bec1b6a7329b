/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* bench_comm_mpi.c - `make bench` (bench_cost.m runs it under mpirun -np 2): the MPI
 * communicator's collectives as zero_muon_step calls them (core/comm_mpi.c, the fixed-order
 * reduction, host buffers, no Octave in between), for the CPU profile of zero_cost.
 *
 * For allreduce, reduce_scatter and all_gather of 1 and of N doubles per rank (N = 2^20, or
 * argv[1]), each the best of 8 calls after a barrier, timed in CPU seconds of the process
 * (CLOCK_PROCESS_CPUTIME_ID: the machine is shared, and a waiting rank spins, so its CPU time
 * is what a dedicated core would take); the slowest rank's figure is printed by rank 0, one
 * line per collective and size: "<collective> <count> <seconds>".  Built by the Makefile's
 * MPI block with mpicc against build/libmuon_mpi.a and build/libmuon.a.
 */
#define _POSIX_C_SOURCE 199309L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "muon.h"

static double cpu_now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

int main (int argc, char **argv)
{
  int provided, rank, size;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  size_t big = argc > 1 ? (size_t) strtoull (argv[1], NULL, 10) : (size_t) 1 << 20;
  muon_ctx *ctx = NULL;
  muon_comm *c = NULL;
  int rc = 1;
  if (muon_ctx_create (&ctx) != MUON_OK || muon_comm_mpi_create (ctx, 0, &c) != MUON_OK)
  {
    fprintf (stderr, "bench_comm_mpi: %s\n", ctx ? muon_ctx_last_error (ctx) : "no context");
    goto done;
  }
  double *send = malloc ((size_t) size * big * sizeof *send);
  double *recv = malloc ((size_t) size * big * sizeof *recv);
  void **slots = malloc ((size_t) size * sizeof *slots);
  if (!send || !recv || !slots)
    goto done;
  for (size_t i = 0; i < (size_t) size * big; i++)
    send[i] = (double) (rank + 1) / (double) (i + 1);
  const char *names[3] = { "allreduce", "reduce_scatter", "all_gather" };
  size_t counts[2] = { 1, big };
  for (int k = 0; k < 3; k++)
    for (int s = 0; s < 2; s++)
    {
      size_t n = counts[s];
      double best = 1e30;
      for (int rep = 0; rep < 8; rep++)
      {
        const void *in[1] = { send };
        void *out[1] = { recv };
        muon_comm_barrier (ctx, c);
        double t0 = cpu_now ();
        muon_status st = MUON_OK;
        if (k == 0)
          st = muon_comm_allreduce (ctx, c, in, out, n, MUON_F64, MUON_REDUCE_AVG);
        else if (k == 1)
          st = muon_comm_reduce_scatter (ctx, c, in, out, n, MUON_F64, MUON_REDUCE_AVG);
        else
        {
          for (int q = 0; q < size; q++)
            slots[q] = recv + (size_t) q * n;
          st = muon_comm_all_gather (ctx, c, in, slots, n, MUON_F64);
        }
        double t = cpu_now () - t0;
        if (st < 0)
        {
          fprintf (stderr, "bench_comm_mpi: %s\n", muon_ctx_last_error (ctx));
          goto done;
        }
        best = t < best ? t : best;
      }
      double worst;
      MPI_Reduce (&best, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (rank == 0)
        printf ("%s %zu %.9g\n", names[k], n, worst);
    }
  rc = 0;
  free (send);
  free (recv);
  free (slots);
done:
  muon_comm_destroy (&c);
  muon_ctx_destroy (&ctx);
  MPI_Finalize ();
  return rc;
}
