/* muon_mex_comm.c - a gateway's 'Comm' argument as a muon_comm (muon_mex_comm.h): the
 * communicators of this process, made for the call ('sim' with the layout's world, 'self').
 */
#include <string.h>

#include "muon_mex_comm.h"

muon_comm *muon_mex_comm_get (const char *fname, const mxArray *spec, int default_world,
                              int *owned)
{
  char kind[16] = "sim";
  int world = default_world;
  muon_comm *c = NULL;
  if (mxIsChar (spec))
    mxGetString (spec, kind, sizeof kind);
  else if (mxIsStruct (spec))
  {
    muon_mex_field_string (fname, spec, "kind", kind, sizeof kind);
    double w = world;
    muon_mex_field_double (fname, spec, "size", &w);
    world = (int) w;
  }
  else if (!mxIsEmpty (spec))
    muon_mex_error (fname, "badArg", "COMM must be 'sim', 'self' or a muon_comm handle.");
  *owned = 1;
  if (strcmp (kind, "self") == 0)
    muon_mex_check (fname, muon_comm_self_create (muon_mex_ctx (), &c));
  else if (strcmp (kind, "sim") == 0)
    muon_mex_check (fname, muon_comm_sim_create (muon_mex_ctx (), world, &c));
  else
    muon_mex_error (fname, "notBuilt", "the '%s' communicator is not in this build.", kind);
  return c;
}
