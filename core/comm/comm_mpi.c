/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* comm_mpi.c - the `mpi` communicator: one rank per process over MPI (Open MPI), on a
 * duplicate of MPI_COMM_WORLD.  The caller initializes and finalizes MPI (muonlab's MEX
 * files do it once per process, mex/muon_mex_comm.c).
 *
 * Built with -DMUON_HAVE_MPI by mpicc into build/libmuon_mpi.a, which only the MEX files
 * that need MPI link (ahead of libmuon.a); without mpicc the same file builds a stub whose
 * muon_comm_mpi_create returns MUON_ERR_NOTBUILT.  libmuon.a never contains this file.
 *
 * Reductions, two modes (muon_comm_mpi_create's use_library_reduction):
 *   fixed (0, the default): bit for bit the `sim` communicator's result - every rank gathers
 *     every rank's contribution and sums them itself in rank order 0..W-1 in the buffers'
 *     type, then divides once by W for the average (comm_stage.c, the arithmetic of
 *     comm_sim.c).  The cost, per rank, for n elements (c per block):
 *       allreduce       MPI_Allgather of the vectors: receives (W - 1) n elements where a
 *                       ring allreduce receives 2 (W - 1)/W n (W/2 times the traffic), and
 *                       adds W n numbers instead of n; staging W * piece elements.
 *       reduce_scatter  MPI_Alltoall of the blocks (rank q sends its block r to rank r):
 *                       (W - 1) c elements each way, the ring's figure; staging 2 W piece.
 *     A piece is at most MUON_STAGE_ELEMS / W elements (comm_stage.h), so the memory stays
 *     bounded and the counts fit an int.
 *   library (1): MPI_Allreduce / MPI_Reduce_scatter_block with MPI_SUM in place (the
 *     library picks the algorithm and the order of the additions), then / W for the
 *     average: equal to the fixed mode to within round-off (a few ulps per addition).
 * all_gather (MPI_Allgather into a staging buffer, then copied to the receive slots in
 * source order), broadcast (MPI_Bcast), barrier (MPI_Barrier) and all_to_all (an
 * MPI_Alltoall of the counts, then MPI_Alltoallv; comm_stage.c) are the same in both.
 *
 * Counters: the ring model of muon_comm_model_bytes (counts_measured = 0), not what this
 * process's MPI library moved.  Errors: the duplicate has MPI_ERRORS_RETURN, so a failing
 * MPI call becomes MUON_ERR_MPI with MPI_Error_string's text; peers may then still wait in
 * the collective, so a caller that cannot go on should MPI_Abort (never finalize).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "comm_stage.h"

#ifdef MUON_HAVE_MPI
#include <mpi.h>

MUON_NAME_TABLE (coll_names, MUON_COLL_LIST);   // the collective in error messages

typedef struct {
  muon_staged staged;   // first: comm_stage.c's reductions and all-gather (library: 1 for
                        // MPI's own sums)
  MPI_Comm comm;        // the duplicate of MPI_COMM_WORLD
} mpi_state;

// Largest count handed to MPI at once in the library modes (MPI counts are int).
#define LIB_PIECE ((size_t) 1 << 28)

// Runs an MPI call; a failure records MUON_ERR_MPI with the library's text and jumps to fail.
#define MPI_TRY(call)                                                                   \
  do {                                                                                  \
    int rc_ = (call);                                                                   \
    if (rc_ != MPI_SUCCESS)                                                             \
    {                                                                                   \
      char s_[MPI_MAX_ERROR_STRING] = "";                                               \
      int l_ = 0;                                                                       \
      MPI_Error_string (rc_, s_, &l_);                                                  \
      CHECK (MUON_ERR_MPI, 0, "mpi: %s failed: %s", what, s_);                          \
    }                                                                                   \
  } while (0)

static MPI_Datatype mpi_type (muon_dtype t) { return t == MUON_F32 ? MPI_FLOAT : MPI_DOUBLE; }

//---- collectives --------------------------------------------------------------------------

// MPI's transfers (comm_stage.h's muon_stage_xfer).  MPI counts are ints: a piece of the
// fixed order fits one; the library mode's whole sums go LIB_PIECE at a time (allreduce, in
// place) or in packed pieces (a reduce_scatter longer than LIB_PIECE).
static muon_status mpi_xfer (muon_comm *c, muon_ctx *ctx, muon_coll coll, muon_stage_kind kind,
                             const void *send, void *recv, size_t m, muon_dtype dtype)
{
  muon_status status = MUON_OK;
  mpi_state *s = c->impl;
  const char *what = MUON_NAME_OF (coll_names, coll);
  MPI_Datatype t = mpi_type (dtype);
  size_t e = muon_dtype_size (dtype);
  if (kind == MUON_STAGE_GATHER)
    MPI_TRY (MPI_Allgather (send, (int) m, t, recv, (int) m, t, s->comm));
  else if (kind == MUON_STAGE_EXCHANGE)
    MPI_TRY (MPI_Alltoall (send, (int) m, t, recv, (int) m, t, s->comm));
  else if (kind == MUON_STAGE_SUM && m > LIB_PIECE)
    CHECKSTATUS (muon_staged_reduce_scatter (c, ctx, send, recv, m, dtype, MUON_REDUCE_SUM, 1));
  else if (kind == MUON_STAGE_SUM)
  {
    CHECKSTATUS (muon_stage_detach (ctx, &s->staged.copy, &send, (size_t) c->size * m * e,
                                    &recv, 1, m * e));
    MPI_TRY (MPI_Reduce_scatter_block (send, recv, (int) m, t, MPI_SUM, s->comm));
  }
  else
  {
    if (send != recv)
      memmove (recv, send, m * e);
    for (size_t a = 0; a < m; a += LIB_PIECE)
      MPI_TRY (MPI_Allreduce (MPI_IN_PLACE, (char *) recv + a * e,
                              (int) (m - a < LIB_PIECE ? m - a : LIB_PIECE), t, MPI_SUM,
                              s->comm));
  }
fail:
  return status;
}

// The ragged all-to-all: MPI_Alltoallv (comm_stage.c has checked that every count and
// displacement fits an int: max_elems).
static muon_status mpi_xferv (muon_comm *c, muon_ctx *ctx, const void *send,
                              const size_t *send_counts, void *recv, const size_t *recv_counts,
                              muon_dtype dtype)
{
  muon_status status = MUON_OK;
  mpi_state *s = c->impl;
  const char *what = "all_to_all";
  int W = c->size, *v = NULL;
  CHECKMEM (v = malloc (4 * (size_t) W * sizeof *v));
  int *sc = v, *sd = v + W, *rc = v + 2 * W, *rd = v + 3 * W, so = 0, ro = 0;
  for (int q = 0; q < W; q++)
  {
    sc[q] = (int) send_counts[q];
    rc[q] = (int) recv_counts[q];
    sd[q] = so;
    rd[q] = ro;
    so += sc[q];
    ro += rc[q];
  }
  MPI_TRY (MPI_Alltoallv (send, sc, sd, mpi_type (dtype), recv, rc, rd, mpi_type (dtype),
                          s->comm));
fail:
  free (v);
  return status;
}

static muon_status mpi_broadcast (muon_comm *c, muon_ctx *ctx, void *const *buf, size_t count,
                                  muon_dtype dtype, int root)
{
  muon_status status = MUON_OK;
  const char *what = "broadcast";
  mpi_state *s = c->impl;
  size_t e = muon_dtype_size (dtype);
  for (size_t a = 0; a < count; a += LIB_PIECE)
  {
    size_t m = count - a < LIB_PIECE ? count - a : LIB_PIECE;
    MPI_TRY (MPI_Bcast ((char *) buf[0] + a * e, (int) m, mpi_type (dtype), root, s->comm));
  }
  CHECKSTATUS (muon_stage_count (c, ctx, MUON_COLL_BROADCAST, root, count, dtype));
fail:
  return status;
}

static muon_status mpi_barrier (muon_comm *c, muon_ctx *ctx)
{
  muon_status status = MUON_OK;
  const char *what = "barrier";
  mpi_state *s = c->impl;
  MPI_TRY (MPI_Barrier (s->comm));
fail:
  return status;
}

//---- create / destroy ---------------------------------------------------------------------

static void mpi_destroy (muon_comm *c)
{
  mpi_state *s = c->impl;
  if (s == NULL)
    return;
  int fin = 1;
  MPI_Finalized (&fin);
  if (!fin && s->comm != MPI_COMM_NULL)   // after MPI_Finalize nothing may touch MPI
    MPI_Comm_free (&s->comm);
  free (s->staged.stage.p);
  free (s->staged.copy.p);
  free (s);
  c->impl = NULL;
}

static const muon_comm_ops mpi_ops = {
  MUON_COMM_MPI, 0, muon_staged_reduce, muon_staged_all_gather, mpi_broadcast, mpi_barrier,
  muon_staged_all_to_all, mpi_destroy,
  muon_staged_device, muon_staged_device_v, MUON_DEVICE_CPU,  // the stand-in's memory (no CUDA-aware MPI assumed)
  1
};

muon_status muon_comm_mpi_create (muon_ctx *ctx, int use_library_reduction, muon_comm **comm)
{
  muon_status status = MUON_OK;
  const char *what = "creating the communicator";
  muon_comm *c = NULL;
  mpi_state *s = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, comm != NULL, "communicator pointer must not be NULL");
  *comm = NULL;
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_COMM_REDUCTION_LIST, use_library_reduction),
         "unknown reduction %d", use_library_reduction);   // muon_comm_set_reduction's
  int init = 0, fin = 0, rank = 0, size = 0;
  MPI_Initialized (&init);
  MPI_Finalized (&fin);
  CHECK (MUON_ERR_MPI, init && !fin, "mpi: MPI is %s", fin ? "already finalized"
         : "not initialized (call MPI_Init or MPI_Init_thread first)");
  CHECKMEM (s = calloc (1, sizeof *s));
  s->comm = MPI_COMM_NULL;
  s->staged = (muon_staged) { use_library_reduction == 1, { NULL, 0 }, { NULL, 0 }, mpi_xfer,
                              mpi_xferv, INT_MAX };
  MPI_TRY (MPI_Comm_dup (MPI_COMM_WORLD, &s->comm));
  MPI_TRY (MPI_Comm_set_errhandler (s->comm, MPI_ERRORS_RETURN));
  MPI_TRY (MPI_Comm_rank (s->comm, &rank));
  MPI_TRY (MPI_Comm_size (s->comm, &size));
  CHECKSTATUS (muon_comm_alloc (ctx, &mpi_ops, size, 1, rank, &c));
  c->impl = s;
  s = NULL;
  *comm = c;
  c = NULL;
fail:
  if (s)
  {
    muon_comm tmp = { .impl = s };
    mpi_destroy (&tmp);
  }
  muon_comm_destroy (&c);
  return status;
}

#else  // built without MPI

muon_status muon_comm_mpi_create (muon_ctx *ctx, int use_library_reduction, muon_comm **comm)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, comm != NULL, "communicator pointer must not be NULL");
  *comm = NULL;
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_COMM_REDUCTION_LIST, use_library_reduction),
         "unknown reduction %d", use_library_reduction);
  CHECK (MUON_ERR_NOTBUILT, 0, "the MPI communicator is not built (no mpicc was found when "
         "muonlab was built; install Open MPI and rebuild)");
fail:
  return status;
}

#endif
