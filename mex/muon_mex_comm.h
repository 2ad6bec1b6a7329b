/* muon_mex_comm.h - a gateway's 'Comm' argument as a muon_comm.
 *
 *   int owned = 0;
 *   muon_comm *c = muon_mex_comm_get (fname, prhs[IN_COMM], W, &owned);
 *   ...
 *   if (owned) muon_comm_destroy (&c);
 */
#ifndef MUON_MEX_COMM_H
#define MUON_MEX_COMM_H

#include "muon_mex.h"

// spec: [] or 'sim' (default_world simulated ranks), 'self', or a handle struct (kind,
// size).  *owned = 1: the caller destroys the communicator.  Errors raise "<fname>: ...".
muon_comm *muon_mex_comm_get (const char *fname, const mxArray *spec, int default_world,
                              int *owned);

#endif
