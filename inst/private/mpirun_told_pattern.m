## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{p} =} mpirun_told_pattern ()
## The regular expression of @code{comm_agree}'s report of a rank that raised its own error
## (@qcode{"FNAME: rank Q raised an error (its own message says why)."}), rank Q its token:
## @code{muon_mpirun}'s rank driver waits for rank Q's own error, and
## @code{mpirun_collect} names that one before a report of it.
## @end deftypefn

function p = mpirun_told_pattern ()
  p = '^\w+: rank (\d+) raised an error \(its own message says why\)\.$';
endfunction
