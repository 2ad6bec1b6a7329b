/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_mex_handle.h - a table of core objects held by one MEX file (linked into the gateways
 * that hand objects to Octave: __muon_gpu__'s device arrays, __muon_zero_step__'s plans),
 * each known to Octave as a handle, the 1 x 2 double [SESSION ID].  SESSION is drawn when the
 * MEX file is loaded, so a handle that outlives `clear functions` is recognized as stale and never
 * reaches freed memory.  The table is emptied (every object destroyed) when the MEX file is
 * unloaded.  Each MEX file links its own copy, so each holds one kind of object.
 */
#ifndef MUON_MEX_HANDLE_H
#define MUON_MEX_HANDLE_H

#include "muon_mex.h"

// What the table holds, for its messages and its destructor.
typedef struct {
  const char *noun;        // "a device array"
  const char *remedy;      // after "of an earlier session ": "(cleared by ...); make it again"
  void (*destroy) (void *obj);
  // after "<what> is <noun> " for a handle of this session whose object was freed
  // (delete): "that was deleted; make it again"; NULL: the remedy's message
  const char *freed;
} muon_mex_handle_kind;

// Sets the kind of this MEX file's table (before any other call; again is fine).
void muon_mex_handle_init (const muon_mex_handle_kind *kind);
// Registers obj (the table owns it from now on) and returns its handle; destroys obj and
// raises muonlab:noMemory when the table cannot grow.
mxArray *muon_mex_handle_new (const char *fname, void *obj);
// The object of handle h (argument `what` in messages): "<what> must be <noun> handle."
// (muonlab:badArg) for anything but a 1 x 2 double, and "<what> is <noun> of an earlier
// session <remedy>." (muonlab:staleHandle) for a handle this table does not hold ("<what>
// is <noun> <freed>." for one of this session whose object was freed, when kind->freed).
void *muon_mex_handle_get (const char *fname, const char *what, const mxArray *h);
// The object of h, or NULL for a stale or malformed handle.
void *muon_mex_handle_find (const mxArray *h);
// Destroys the object of h; a stale or malformed handle is ignored (a destructor calls this).
void muon_mex_handle_free (const mxArray *h);
// Destroys every object (the session goes on, with a new session number).
void muon_mex_handle_clear (void);
// Objects held.
size_t muon_mex_handle_count (void);
// An object is claimed once an Octave object wraps its handle (muon_gpuarray's
// constructor): whether h's is, and marking it (stale or malformed h: 0, ignored).
int muon_mex_handle_claimed (const mxArray *h);
void muon_mex_handle_claim (const mxArray *h);
// The id the next object gets; then destroying every unclaimed object with an id from
// mark on (what an error or Ctrl-C left unwrapped since the mark), returning how many.
double muon_mex_handle_mark (void);
size_t muon_mex_handle_drop (double mark);

#endif
