## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## mpirun_state - a rank function for test_mpirun.m (run by muon_mpirun on every rank):
## muon_optimizer's state of a fixed P (a muon_state); with stale true made before
## `clear functions`, after which it is a muon_state still but no muon_result.
function st = mpirun_state (stale)
  st = muon_optimizer (struct ("W", reshape (1:12, 4, 3), "b", (1:4).'), "LR", 0.01);
  if (stale)
    clear functions;
  endif
endfunction
