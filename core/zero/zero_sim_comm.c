/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_sim_comm.c - the simulated communicator a context keeps between distributed Muon
 * steps (muon_zero.h), so that stepping again on the same world makes none.  Held in the
 * context's "zero.sim" slot as a cache (muon_ctx_release with keep 0 frees it, as
 * muon_ctx_destroy does).  Plans are not kept here: the caller owns them (zero_layout's
 * object holds its own, mex/muon_mex_zero.c).
 */
#include <stdlib.h>

#include "muon_internal.h"
#include "muon_zero.h"

static void sim_free (void *state)
{
  muon_comm *c = state;
  muon_comm_destroy (&c);
}

muon_status muon_zero_comm_sim_cached (muon_ctx *ctx, int world, muon_comm **comm)
{
  muon_status status = MUON_OK;
  muon_comm *sim = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, comm != NULL, "communicator pointer must not be NULL");
  *comm = muon_ctx_lookup (ctx, "zero.sim");
  if (*comm != NULL && muon_comm_size (*comm) == world)
    return MUON_OK;
  *comm = NULL;
  CHECKSTATUS (muon_comm_sim_create (ctx, world, &sim));
  muon_ctx_detach (ctx, "zero.sim");            // the one of another world, freed
  muon_comm *made = sim;
  sim = NULL;                                   // the context's now, even on failure
  CHECKSTATUS (muon_ctx_attach (ctx, "zero.sim", made, sim_free, MUON_CTX_CACHE));
  *comm = made;
fail:
  muon_comm_destroy (&sim);
  return status;
}
