/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_comm_nccl.c - the host half of the NCCL communicator (core/comm/comm_nccl.c) on a
 * machine that may have no GPU: argument errors, MUON_ERR_NOTBUILT when libmuon_nccl.so cannot
 * be loaded (with the loader's text), and - when build/mex/libmuon_nccl.so exists and no
 * device answers - MUON_ERR_NODEVICE, with a self or a one-rank bootstrap, and no communicator
 * left behind.  On a GPU machine the last case instead checks a one-rank NCCL allreduce.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "harness.h"
#include "muon.h"

static muon_ctx *ctx;

static void test_args (void)
{
  muon_comm *c = (muon_comm *) 1, *sim = NULL;
  T_EQ_INT (muon_comm_nccl_create (NULL, NULL, 0, &c), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_nccl_create (ctx, NULL, 0, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_comm_sim_create (ctx, 2, &sim), MUON_OK);
  T_EQ_INT (muon_comm_nccl_create (ctx, sim, 0, &c), MUON_ERR_BADARG);
  T_ASSERT (c == NULL);
  T_ASSERT (strstr (muon_ctx_last_error (ctx), "one rank per process") != NULL);
  // a reduction other than 0 (fixed) and 1 (library), before anything loads: refused as
  // muon_comm_set_reduction refuses it (5 was taken as 1)
  c = (muon_comm *) 1;
  T_EQ_INT (muon_comm_nccl_create (ctx, NULL, 5, &c), MUON_ERR_BADARG);
  T_ASSERT (c == NULL);
  T_EQ_STR (muon_ctx_last_error (ctx), "unknown reduction 5");
  T_EQ_INT (muon_comm_nccl_create (ctx, NULL, -1, &c), MUON_ERR_BADARG);
  muon_comm_destroy (&sim);
}

static void test_notbuilt (void)
{
  muon_comm *c = NULL;
  setenv ("MUON_NCCL_LIB", "/nonexistent/libmuon_nccl.so", 1);
  for (int lib = 0; lib < 2; lib++)
  {
    T_EQ_INT (muon_comm_nccl_create (ctx, NULL, lib, &c), MUON_ERR_NOTBUILT);
    T_ASSERT (c == NULL);
    T_ASSERT (strstr (muon_ctx_last_error (ctx), "nccl: the NCCL communicator is not built")
              != NULL);
    T_ASSERT (strstr (muon_ctx_last_error (ctx), "/nonexistent/libmuon_nccl.so") != NULL);
  }
  unsetenv ("MUON_NCCL_LIB");
}

static void test_built_library (void)
{
  const char *path = "build/mex/libmuon_nccl.so";
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return;                               // not built here (no nvcc or nccl.h): nothing to load
  fclose (f);
  setenv ("MUON_NCCL_LIB", path, 1);
  muon_comm *self = NULL, *c = NULL;
  T_EQ_INT (muon_comm_self_create (ctx, &self), MUON_OK);
  muon_status s = muon_comm_nccl_create (ctx, self, 0, &c);
  if (s == MUON_OK)                       // a GPU: one rank, the sum of one rank is the value
  {
    double x[3] = { 1, 2, 3 }, y[3] = { 0 };
    const void *in[1] = { x };
    void *out[1] = { y };
    T_EQ_INT (muon_comm_allreduce (ctx, c, in, out, 3, MUON_F64, MUON_REDUCE_AVG), MUON_OK);
    T_EQ_DBL (y[2], 3);
    T_EQ_STR (muon_comm_name (c), "nccl");
    T_EQ_INT (muon_comm_counts_measured (c), 0);
  }
  else
  {
    T_EQ_INT (s, MUON_ERR_NODEVICE);
    T_ASSERT (c == NULL);
    T_ASSERT_MSG (strncmp (muon_ctx_last_error (ctx), "nccl: no CUDA device", 20) == 0, "%s",
                  muon_ctx_last_error (ctx));
    T_EQ_INT (muon_comm_nccl_create (ctx, NULL, 1, &c), MUON_ERR_NODEVICE);
  }
  muon_comm_destroy (&c);
  muon_comm_destroy (&self);
  unsetenv ("MUON_NCCL_LIB");
}

int main (int argc, char **argv)
{
  muon_ctx_create (&ctx);
  T_RUN (test_args);
  T_RUN (test_notbuilt);
  T_RUN (test_built_library);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
