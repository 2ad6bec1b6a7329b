## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## COMM = mpi_setup () - the preamble of every mpi-layer suite (run_*.m): the package and its
## MEX files (build/mex) on the path, output unbuffered, and this process's MPI communicator.

function comm = mpi_setup ()
  root = fileparts (fileparts (fileparts (mfilename ("fullpath"))));
  addpath (fullfile (root, "inst"), fullfile (root, "build", "mex"));
  more off;
  page_screen_output (false);
  comm = muon_comm ("mpi");
endfunction
