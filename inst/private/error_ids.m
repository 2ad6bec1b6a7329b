## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{T} =} error_ids ()
## The error and warning ids that inst/ raises itself, beside those of the core's status
## table (@code{core_lists ().status.id}, raised by the gateways as
## @code{muonlab:@var{id}}).  @var{T} is an n x 3 cell, one row per id: the id (without
## @qcode{"muonlab:"}), its kind (@qcode{"error"}, @qcode{"warning"}, or
## @qcode{"internal"} for an id caught and raised again under another inside inst/), and
## when it is raised.  README's table "Error and warning ids" lists these and the status
## table's, and tests/octave/test_messages.m checks that every id raised anywhere in the
## package is one of them.
## @end deftypefn

function T = error_ids ()
  T = {
    "badState",       "error",    "a state or checkpoint that is corrupt, of another run or layout, or out of its domain";
    "nonFinite",      "error",    "an input with NaN or Inf where a finite one is needed";
    "diverged",       "warning",  "a Newton-Schulz result past what its schedule can give (stats.diverged_pages, R.diverged)";
    "tinyInput",      "warning",  "a page whose norm is below Eps: divided by about Eps, so far from orthogonal";
    "unsafeSchedule", "warning",  "a schedule whose composed map leaves singular values past its bound (once per session and schedule)";
    "modelCount",     "warning",  "a model's counted parameters differ from its checkpoint's";
    "stateCheck",     "internal", "an optimizer state's check, caught: its message goes into the caller's own error";
    "matCheck",       "internal", "a checkpoint file's check, caught: its message goes into the caller's own error";
  };
endfunction
