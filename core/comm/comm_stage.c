/* comm_stage.c - the fixed-order collectives of the communicators that hand the transfer to a
 * library (comm_mpi.c, comm_nccl.c), written once over the library's transfer of one piece
 * (comm_stage.h): the pieces keep the staging memory bounded (and MPI's counts within an
 * int), and every element is reduced on its own in rank order (muon_comm_reduce), so the
 * pieces do not change the result: bit for bit comm_sim.c's.
 */
#include <string.h>

#include "comm_stage.h"

// Elements of the piece that starts at element a of count.
static size_t piece_at (size_t a, size_t count, size_t piece)
{
  return count - a < piece ? count - a : piece;
}

muon_status muon_stage_allreduce (muon_ctx *ctx, muon_stage *stage, muon_stage *copy, int W,
                                  const void *in, void *out, size_t count, muon_dtype dtype,
                                  muon_reduce_op op, muon_stage_xfer xfer, void *lib)
{
  muon_status status = MUON_OK;
  size_t e = muon_dtype_size (dtype), piece = muon_stage_piece (W);
  char *st = NULL;
  // identical buffers are fine piece by piece; a partial overlap needs a copy first
  if (in != out)
    CHECKSTATUS (muon_stage_detach (ctx, copy, &in, count * e, &out, 1, count * e));
  CHECKSTATUS (muon_stage_get (ctx, stage, (size_t) W * piece * e, (void **) &st));
  for (size_t a = 0; a < count; a += piece)
  {
    size_t m = piece_at (a, count, piece);
    CHECKSTATUS (xfer (lib, ctx, MUON_STAGE_GATHER, (const char *) in + a * e, st, m, dtype));
    muon_comm_reduce (NULL, st, m, 0, m, W, dtype, op, (char *) out + a * e);
  }
fail:
  return status;
}

muon_status muon_stage_reduce_scatter (muon_ctx *ctx, muon_stage *stage, muon_stage *copy,
                                       int W, const void *in, void *out, size_t count,
                                       muon_dtype dtype, muon_reduce_op op,
                                       muon_stage_xfer xfer, int summed, void *lib)
{
  muon_status status = MUON_OK;
  size_t e = muon_dtype_size (dtype), Wz = (size_t) W, piece = muon_stage_piece (W);
  char *st = NULL;
  CHECKSTATUS (muon_stage_detach (ctx, copy, &in, Wz * count * e, &out, 1, count * e));
  // pieces [a, a + m) of every block: packed block by block into the first half of the
  // stage, exchanged (summed: reduced by the library straight into out) into the second
  CHECKSTATUS (muon_stage_get (ctx, stage, 2 * Wz * piece * e, (void **) &st));
  char *pack = st, *got = st + Wz * piece * e;
  for (size_t a = 0; a < count; a += piece)
  {
    size_t m = piece_at (a, count, piece);
    for (size_t q = 0; q < Wz; q++)
      memcpy (pack + q * m * e, (const char *) in + (q * count + a) * e, m * e);
    CHECKSTATUS (xfer (lib, ctx, summed ? MUON_STAGE_SUM : MUON_STAGE_EXCHANGE, pack,
                       summed ? (char *) out + a * e : got, m, dtype));
    if (!summed)
      muon_comm_reduce (NULL, got, m, 0, m, W, dtype, op, (char *) out + a * e);
  }
fail:
  return status;
}

muon_status muon_stage_all_gather (muon_ctx *ctx, muon_stage *stage, muon_stage *copy, int W,
                                   const void *in, void *const *recv, size_t count,
                                   muon_dtype dtype, muon_stage_xfer xfer, void *lib)
{
  muon_status status = MUON_OK;
  size_t e = muon_dtype_size (dtype), piece = muon_stage_piece (W);
  char *st = NULL;
  CHECKSTATUS (muon_stage_detach (ctx, copy, &in, count * e, recv, W, count * e));
  CHECKSTATUS (muon_stage_get (ctx, stage, (size_t) W * piece * e, (void **) &st));
  for (size_t a = 0; a < count; a += piece)
  {
    size_t m = piece_at (a, count, piece);
    CHECKSTATUS (xfer (lib, ctx, MUON_STAGE_GATHER, (const char *) in + a * e, st, m, dtype));
    for (int q = 0; q < W; q++)      // sources in order, as comm_sim.c
      memcpy ((char *) recv[q] + a * e, st + (size_t) q * m * e, m * e);
  }
fail:
  return status;
}
