## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## mpirun_layout - a rank function for test_mpirun.m (run by muon_mpirun on every rank):
## zero_layout's layout of two fixed shapes on 2 ranks (a zero_layout_result); with stale
## true made before `clear functions`, after which it is a zero_layout_result still but no
## muon_result.
function L = mpirun_layout (stale)
  L = zero_layout ({[4 4], [2 4]}, 2);
  if (stale)
    clear functions;
  endif
endfunction
