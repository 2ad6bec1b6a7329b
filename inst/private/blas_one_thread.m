## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{restore} =} blas_one_thread ()
## Run Octave's own BLAS and LAPACK calls (products, @code{svd}, @code{eig}, @code{norm
## (X, 2)}) on one OpenBLAS thread until @var{restore}, an @code{onCleanup} object, is
## cleared (at the latest when the caller returns or raises), which gives the thread count
## back.  OpenBLAS sums in another order on 2 threads than on 1 (a 300 x 700 SVD differs
## in the last bits), so the metrics computed in Octave (@code{polar_metrics}, the trace of
## @code{muon_ns}, @code{ns_plot_spectrum}) would depend on the machine's threads.  With
## another BLAS it does nothing (a probe never fails).
## @end deftypefn

function restore = blas_one_thread ()
  prev = 0;
  try
    prev = __muon_blas_threads__ (1);
  catch                                 # not OpenBLAS (or no gateway): nothing to pin
  end_try_catch
  restore = onCleanup (@() give_back (prev));
endfunction

function give_back (prev)
  if (prev > 0)
    __muon_blas_threads__ (prev);
  endif
endfunction
