## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{h} =} zero_shard_digest (@var{S})
## The digest of one rank's checkpoint payload @var{S} (@code{zero_save_state}): a
## @code{value_hash} of what differs between two saves of one run at one step, its
## @code{momentum}, @code{reference} and @code{train}.  Every file of a save records
## every rank's (@code{digests}); @code{zero_load_state} recomputes each file's.
## @end deftypefn

function h = zero_shard_digest (S)
  h = value_hash ({S.momentum, S.reference, S.train});
endfunction
