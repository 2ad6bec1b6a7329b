/* muon_mex_gpu.h - the device arrays of __muon_gpu__ (linked only into it): a table of the
 * muon_darray objects this MEX file holds, each known to Octave as a handle, the 1 x 2 double
 * [SESSION ID].  SESSION is drawn when the MEX file is loaded, so a handle that outlives
 * `clear mex` (or `clear __muon_gpu__`) is recognized as stale and never reaches freed
 * memory.  The table is emptied (every array freed) when the MEX file is unloaded.
 */
#ifndef MUON_MEX_GPU_H
#define MUON_MEX_GPU_H

#include "muon_mex.h"

// This load's session number.
double muon_mex_gpu_session (void);
// Registers a (the table owns it from now on) and returns its handle; frees a and raises
// muonlab:noMemory when the table cannot grow.
mxArray *muon_mex_gpu_handle (const char *fname, muon_darray *a);
// The array of handle h (argument `what` in messages): "<what> must be a device array
// handle." (muonlab:badArg) for anything but a 1 x 2 double, and "<what> is a device array
// of an earlier session (cleared by clear mex or muon_gpu ("reset")); make it again."
// (muonlab:staleHandle) for a handle this table does not hold.
muon_darray *muon_mex_gpu_get (const char *fname, const char *what, const mxArray *h);
// Frees the array of h; a stale or malformed handle is ignored (a destructor calls this).
void muon_mex_gpu_free (const mxArray *h);
// Frees every array (the session goes on, with a new session number).
void muon_mex_gpu_clear (void);
// Arrays held.
size_t muon_mex_gpu_count (void);

#endif
