## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_parity ()
## Suite (run with @code{test test_parity}): same input, same bits (DESIGN.md 3).  For every
## precision (double, single, bf16, fp16) and both methods, with the standard schedule
## (keller) and one other (polar_express), on three shapes (square 300 x 300, wide 288 x
## 1440 of aspect 5, a 3-page stack 260 x 300 x 3; each product spans several of the core's
## tiles), @code{muon_ns} with @qcode{"Threads"} 1, 2 and 4 gives bitwise identical results;
## then again while a busy process started here loads the machine (the automatic thread
## count no longer reads the load, and the tiles' edges never depend on the threads; in
## make check's octave layer only, not again in octave-avx2 and octave-nodnnl).
## Also: the default provider is the one @code{muon_info} reports, and @code{stats.threads}
## reports the count asked for, above the cores too.
##
## The same sweep runs with @qcode{"Device", "cuda"} against the CPU in tests/gpu (make
## check-gpu); sim vs MPI ranks are compared bitwise in tests/mpi.
## @end deftypefn

function test_parity ()
  help test_parity
endfunction

%!function [neq, ncase] = sweep (shapes, tag)
%!  neq = 0; ncase = 0;
%!  for s = 1:numel (shapes)
%!    G = shapes{s};
%!    for prec = {"double", "single", "bf16", "fp16"}
%!      for m = {"standard", "gram"}
%!        for c = {"keller", "polar_express"}
%!          args = {"Precision", prec{1}, "Method", m{1}, "Coefficients", c{1}};
%!          [X1, s1] = muon_ns (G, args{:}, "Threads", 1);
%!          X2 = muon_ns (G, args{:}, "Threads", 2);
%!          [X4, s4] = muon_ns (G, args{:}, "Threads", 4);
%!          assert ([s1.threads s4.threads], [1 4]);
%!          ok = isequal (X1, X2) && isequal (X1, X4);
%!          ncase++; neq += ok;
%!          if (! ok)
%!            printf ("    DIFFER %s %s %s %s %s: max|1-2| %g, max|1-4| %g\n", tag,
%!                    mat2str (size (G)), prec{1}, m{1}, c{1},
%!                    max (abs (X1(:) - X2(:))), max (abs (X1(:) - X4(:))));
%!          endif
%!        endfor
%!      endfor
%!    endfor
%!  endfor
%!  printf ("    %s: %d / %d cases bitwise equal for Threads 1, 2, 4\n", tag, neq, ncase);

%!shared shapes
%! randn ("state", 42);
%! shapes = {randn(300, 300), randn(288, 1440), randn(260, 300, 3)};

%!test
%! [neq, n] = sweep (shapes, "quiet machine");
%! assert (neq, n);

%!test
%! ## 'Normalize', "aol" (both orders; its scaling Gram spans 2 x 2 tiles): same bits for
%! ## Threads 1 and 4, in every precision (bf16 on the default provider: oneDNN's native
%! ## bf16 products where the CPU has them, the bf16-bits storage of core/math/ns_impl.h)
%! G = shapes{3}(:,:,1);
%! ncase = 0;
%! for prec = {"double", "single", "bf16", "fp16"}
%!   for m = {"standard", "gram"}
%!     for nf = [true false]
%!       args = {"Precision", prec{1}, "Method", m{1}, "Normalize", "aol", ...
%!               "Coefficients", "aol", "NormalizeFirst", nf};
%!       X1 = muon_ns (G, args{:}, "Threads", 1);
%!       assert (isequal (X1, muon_ns (G, args{:}, "Threads", 4)), "%s",
%!               sprintf ("aol %s %s nf=%d", prec{1}, m{1}, nf));
%!       ncase++;
%!     endfor
%!   endfor
%! endfor
%! ## the two bf16 providers sum in other orders: the same statistics, not the same bits
%! [U, ~, V] = svd (G, "econ");
%! e = @(X) norm (X - U * V', "fro") / norm (U * V', "fro");
%! eb = e (muon_ns (G, "Precision", "bf16", "Normalize", "aol", "Coefficients", "aol",
%!                  "Gemm", "openblas"));
%! ed = e (muon_ns (G, "Precision", "bf16", "Normalize", "aol", "Coefficients", "aol"));
%! printf ("    aol: %d cases bitwise equal for Threads 1, 4; bf16 polar error %.3g (openblas) %.3g (default)\n",
%!         ncase, eb, ed);
%! assert (abs (ed - eb) < 0.25 * eb);

%!test
%! ## a busy process on every core while the sweep runs: bits do not move (once per make
%! ## check: in its octave layer; the repeated layers, octave-avx2 and octave-nodnnl, run
%! ## the plain sweep above, which is what their other kernels change)
%! if (! any (strcmp (getenv ("MUON_LAYER"), {"", "octave"})))
%!   printf ("    (the loaded sweep runs in the octave layer only: this is %s)\n",
%!           getenv ("MUON_LAYER"));
%!   return;
%! endif
%! cores = nproc ();
%! pids = [];
%! unwind_protect
%!   for i = 1:cores
%!     pids(end+1) = system ("exec timeout 300 sh -c 'while :; do :; done'", false, "async");
%!   endfor
%!   pause (0.2);
%!   [neq, n] = sweep (shapes, sprintf ("%d busy processes", cores));
%! unwind_protect_cleanup
%!   for p = pids
%!     kill (p, 15);                     # timeout passes it on to its loop
%!     waitpid (p);
%!   endfor
%! end_unwind_protect
%! assert (neq, n);

%!test
%! ## the default provider is the one muon_info names for that precision
%! g = muon_info ().gemm;
%! G = shapes{1};
%! for prec = {"double", "single", "bf16", "fp16"}
%!   [~, s] = muon_ns (G, "Precision", prec{1});
%!   assert (s.gemm, g.provider.(prec{1}));
%!   assert (s.threads, g.threads);
%! endfor
%! ## 'Threads' above the cores is honoured and reported
%! [~, s] = muon_ns (G, "Threads", g.cores + 2);
%! assert (s.threads, g.cores + 2);
