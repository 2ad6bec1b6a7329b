## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} demo_paths ()
## Put the in-tree inst/ and build/mex/ on the path when the demos run from a checkout
## (after @code{pkg load muonlab} they are not needed, and missing folders are skipped).
## @end deftypefn

function demo_paths ()
  here = fileparts (mfilename ("fullpath"));
  for d = {fullfile(here, "..", "inst"), fullfile(here, "..", "build", "mex")}
    if (isfolder (d{1}))
      addpath (d{1});
    endif
  endfor
endfunction
