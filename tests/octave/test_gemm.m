## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_gemm ()
## Suite (run with @code{test test_gemm}): the CPU GEMM providers of @code{muon_ns}
## (options @qcode{"Gemm"} auto | openblas | onednn and @qcode{"Threads"}; core/gemm/gemm.c).
## @itemize
## @item Per provider, the foundation's tolerances (DESIGN.md 6): fp32 within 3e-5 of the
## fp64 SVD closed form U*diag(phi(s))*V'; bf16 standard within 0.05 and fp16 Gram within
## 0.008 of fp64 NS (keller, aspect >= 2, as test_ns_precision).
## @item oneDNN bf16 (native bf16 products) against the emulated bf16 of OpenBLAS (fp32
## products of the same bf16 values): they differ only in the fp32 summation order, which
## low-precision NS amplifies chaotically, so they are compared statistically: over 20 seeds
## their mean error against fp64 agrees within 10% (measured: within 0.3%).  With
## @qcode{"Gemm", "auto"} oneDNN runs bf16 only where it multiplies bf16 natively, and
## OpenBLAS runs everything else.
## @item Changing shapes, more than the primitive cache holds, each correct.
## @item Threads, muon_update passing the options on, and the option errors.
## @end itemize
## oneDNN cases are skipped (with a note) when the build did not find oneDNN; then
## @qcode{"Gemm", "onednn"} must fail with muonlab:notBuilt.
## @end deftypefn

function test_gemm ()
  help test_gemm
endfunction

%!function e = relerr (X, Y)
%!  e = norm (double (X(:)) - double (Y(:))) / norm (double (Y(:)));

%!function Xo = oracle (G)
%!  ## keller 5 steps on the singular values (test_ns_oracle's closed form)
%!  [U, S, V] = svd (double (G), "econ");
%!  s = diag (S) / (norm (double (G), "fro") + 1e-7);
%!  for k = 1:5
%!    s = 3.4445 * s - 4.7750 * s.^3 + 2.0315 * s.^5;
%!  endfor
%!  Xo = U * diag (s) * V';

%!function p = providers ()
%!  p = {"openblas"};
%!  if (muon_info ().gemm.onednn_built)
%!    p{end+1} = "onednn";
%!  endif

%!test
%! ## per provider: fp32 vs the SVD closed form, bf16 / fp16 vs fp64 NS
%! randn ("state", 61);
%! shapes = {[96 256], [256 96], [64 320], [128 128]};
%! for g = providers ()
%!   for i = 1:numel (shapes)
%!     G = randn (shapes{i});
%!     X64s = muon_ns (G, "Precision", "double");
%!     X64g = muon_ns (G, "Precision", "double", "Method", "gram");
%!     e32 = [relerr(muon_ns (single (G), "Gemm", g{1}), oracle (G)), ...
%!            relerr(muon_ns (single (G), "Gemm", g{1}, "Method", "gram"), oracle (G))];
%!     eb = relerr (muon_ns (G, "Precision", "bf16", "Gemm", g{1}), X64s);
%!     ef = relerr (muon_ns (G, "Precision", "fp16", "Method", "gram", "Gemm", g{1}), X64g);
%!     printf ("    %-8s %3dx%-3d fp32 %.1e %.1e  bf16 std %.4f  fp16 gram %.4f\n", g{1},
%!             shapes{i}, e32, eb, ef);
%!     assert (all (e32 <= 3e-5));
%!     if (shapes{i}(1) != shapes{i}(2))              # the precision figures: aspect >= 2
%!       assert (eb <= 0.05 && ef <= 0.008);
%!     endif
%!   endfor
%! endfor

%!test
%! ## oneDNN bf16 vs emulated bf16: mean error against fp64 over 20 seeds, within 10%
%! if (! muon_info ().gemm.onednn_built)
%!   printf ("    skipped: oneDNN not built\n");
%!   return;
%! endif
%! for m = {"standard", "gram"}
%!   e = zeros (20, 2);
%!   same = 0;
%!   for s = 1:20
%!     randn ("state", 100 + s);
%!     G = randn (128, 1024);
%!     X64 = muon_ns (G, "Precision", "double", "Method", m{1});
%!     Xe = muon_ns (G, "Precision", "bf16", "Method", m{1}, "Gemm", "openblas");
%!     Xd = muon_ns (G, "Precision", "bf16", "Method", m{1}, "Gemm", "onednn");
%!     e(s,:) = [relerr(Xe, X64), relerr(Xd, X64)];
%!     same += isequal (Xe, Xd);
%!   endfor
%!   mu = mean (e);
%!   printf (["    bf16 %-8s 128x1024, 20 seeds: mean error emulated %.5f, oneDNN %.5f " ...
%!            "(%+.2f%%), std %.5f %.5f; %d seeds bitwise equal\n"], m{1}, mu,
%!           100 * (mu(2) / mu(1) - 1), std (e), same);
%!   assert (abs (mu(2) / mu(1) - 1) <= 0.10);
%! endfor

%!test
%! ## the products differ between providers (the option reaches the core: fp32 sums in
%! ## another order; in bf16, whose products are exact in fp32, the two often sum in the same
%! ## order and agree bitwise), and a provider is deterministic
%! if (! muon_info ().gemm.onednn_built)
%!   return;
%! endif
%! randn ("state", 62);
%! G = randn (128, 1024);
%! assert (! isequal (muon_ns (single (G), "Gemm", "openblas"),
%!                    muon_ns (single (G), "Gemm", "onednn")));
%! b = muon_ns (G, "Precision", "bf16", "Gemm", "onednn");
%! assert (isequal (b, muon_ns (G, "Precision", "bf16", "Gemm", "onednn")));
%! if (muon_info ().gemm.onednn_native_bf16)       # auto = oneDNN for native bf16 only
%!   assert (isequal (b, muon_ns (G, "Precision", "bf16")));
%! else
%!   assert (isequal (muon_ns (G, "Precision", "bf16"),
%!                    muon_ns (G, "Precision", "bf16", "Gemm", "openblas")));
%! endif
%! assert (isequal (muon_ns (single (G)), muon_ns (single (G), "Gemm", "openblas")));
%! ## 'double' runs on OpenBLAS whatever is asked
%! assert (isequal (muon_ns (G, "Gemm", "onednn"), muon_ns (G, "Gemm", "openblas")));

%!test
%! ## changing shapes: 30 shapes of 3 products each, more than the primitive cache holds (64),
%! ## each against the closed form
%! randn ("state", 63);
%! worst = 0;
%! for g = providers ()
%!   for k = 1:30
%!     sz = [8 + k, 20 + 3 * k];
%!     if (mod (k, 3) == 0) sz = fliplr (sz); endif
%!     G = randn (sz);
%!     worst = max (worst, relerr (muon_ns (single (G), "Gemm", g{1}), oracle (G)));
%!   endfor
%! endfor
%! printf ("    30 shapes per provider: worst fp32 error %.1e\n", worst);
%! assert (worst <= 3e-5);

%!test
%! ## Threads: 1 thread, the automatic count and more than the cores (honoured, and the
%! ## same bits: test_parity) all meet the tolerance
%! randn ("state", 64);
%! G = randn (160, 320);
%! X64 = muon_ns (G, "Precision", "double");
%! for g = providers ()
%!   for t = [0 1 nproc() + 5]
%!     assert (relerr (muon_ns (single (G), "Gemm", g{1}, "Threads", t), X64) <= 3e-5);
%!     assert (relerr (muon_ns (G, "Precision", "bf16", "Gemm", g{1}, "Threads", t), X64)
%!             <= 0.05);
%!   endfor
%! endfor

%!test
%! ## muon_update hands the options to NS (same parser)
%! randn ("state", 65);
%! G = randn (32, 64);
%! U1 = muon_update (G, [], "Gemm", "openblas", "Threads", 1);
%! U2 = muon_update (G, [], "Gemm", "openblas");
%! assert (isequal (U1, U2));

%!test
%! if (! muon_info ().gemm.onednn_built)
%!   try
%!     muon_ns (randn (4, 8), "Gemm", "onednn");
%!     error ("no error raised");
%!   catch err
%!     assert (err.identifier, "muonlab:notBuilt");
%!     assert (err.message, ["muon_ns: the oneDNN GEMM provider is not built (the build " ...
%!                           "found no oneDNN; install libdnnl-dev and rebuild)."]);
%!   end_try_catch
%! endif

%!error <muon_ns: GEMM must be 'auto', 'openblas' or 'onednn'.> muon_ns (randn (4, 8), "Gemm", "mkl")
%!error <muon_ns: GEMM must be 'auto', 'openblas' or 'onednn'.> muon_ns (randn (4, 8), "Gemm", 1)
%!error <muon_ns: THREADS must be a non-negative integer \(0: automatic\).> muon_ns (randn (4, 8), "Threads", -1)
%!error <muon_ns: THREADS must be a non-negative integer \(0: automatic\).> muon_ns (randn (4, 8), "Threads", 1.5)
%!error <muon_ns: THREADS must be a non-negative integer \(0: automatic\).> muon_ns (randn (4, 8), "Threads", [1 2])
%!error <muon_ns: THREADS must be a non-negative integer \(0: automatic\).> muon_ns (randn (4, 8), "Threads", "2")
%!error <muon_update: GEMM must be 'auto', 'openblas' or 'onednn'.> muon_update (randn (4, 8), [], "Gemm", "x")
%!error id=muonlab:badArg muon_ns (randn (4, 8), "Gemm", "mkl")
%!error id=muonlab:badArg muon_ns (randn (4, 8), "Threads", -1)

%!function out = fresh_octave (env, code)
%!  ## runs CODE in a new Octave with the environment assignment ENV and muonlab on the path
%!  ## (the folders this session uses: in the tree or after pkg install)
%!  exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%!  cmd = sprintf ("%s '%s' --no-gui --norc --silent --eval \"addpath ('%s'); addpath ('%s'); %s\" 2>/dev/null",
%!                 env, exe, fileparts (which ("muon_ns")), fileparts (which ("__muon_ns__")), code);
%!  [rc, out] = system (cmd);
%!  assert (rc, 0);
%!  out = strtrim (out);

%!test
%! ## same bits for any thread count with either provider, also on oneDNN's AVX2 kernels (an
%! ## AVX2-only CPU's) and under OMP_DYNAMIC: a oneDNN tile run outside the tiles' parallel
%! ## region (a matrix of at most 64 rows is one tile) split its sums by the call's threads
%! ## (single 32 x 512: 2.4e-7 apart), and under OMP_DYNAMIC parts of tiles went uncomputed
%! code = ["randn ('state', 1); same = []; " ...
%!         "for sz = {[32 512], [300 700]}, G = randn (sz{1}); " ...
%!         "for g = {'openblas', 'onednn'}, for p = {'single', 'fp16', 'bf16'}, " ...
%!         "o = {'Precision', p{1}, 'Gemm', g{1}}; X = muon_ns (G, o{:}, 'Threads', 1); " ...
%!         "U = muon_update (G, [], o{:}, 'Threads', 1); " ...
%!         "for t = [2 5], same(end+1) = isequal (muon_ns (G, o{:}, 'Threads', t), X) " ...
%!         "&& isequal (muon_update (G, [], o{:}, 'Threads', t), U); end, end, end, end; " ...
%!         "printf ('%d', same)"];
%! if (muon_info ().gemm.onednn_built)
%!   out = fresh_octave ("OMP_DYNAMIC=true DNNL_MAX_CPU_ISA=AVX2 ONEDNN_MAX_CPU_ISA=AVX2", code);
%!   assert (out, repmat ("1", 1, 24));
%! endif

%!test
%! ## muon_info names the implementation oneDNN runs for Newton-Schulz's tiles, as oneDNN's
%! ## own log of the run says (it named the one of a dense 64 x 64 x 64 product, brg:, which
%! ## no tile gets)
%! if (muon_info ().gemm.onednn_native_bf16)
%!   exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%!   code = ["muon_ns (randn (300, 700), 'Precision', 'bf16'); " ...
%!           "printf ('IMPL,%s,', muon_info ().gemm.onednn_impl_bf16)"];
%!   [rc, out] = system (sprintf (["DNNL_VERBOSE=1 ONEDNN_VERBOSE=1 '%s' --no-gui --norc " ...
%!                                 "--silent --eval \"addpath ('%s'); addpath ('%s'); %s\" " ...
%!                                 "2>/dev/null"], exe, fileparts (which ("muon_ns")),
%!                                fileparts (which ("__muon_ns__")), code));
%!   assert (rc, 0);
%!   ran = regexp (out, 'onednn_verbose,exec,cpu,matmul,([^,]+),', "tokens");
%!   named = regexp (out, 'IMPL,([^,]+),', "tokens", "once");
%!   assert (numel (ran) > 0 && numel (named) == 1, out);
%!   assert (unique (cellfun (@(c) c{1}, ran, "UniformOutput", false)), named);
%! endif

%!test
%! ## MUONLAB_GEMM is read at every call and changes what 'auto' stands for; a value that
%! ## is no provider's name is reported and ignored, never an error
%! code = ["g = muon_info ().gemm; [~, s] = muon_ns (randn (8, 16), 'Precision', 'bf16'); " ...
%!         "[~, t] = muon_ns (single (randn (8, 16))); " ...
%!         "printf ('%s|%s|%s|%s', g.env, g.provider.bf16, s.gemm, t.gemm)"];
%! assert (fresh_octave ("MUONLAB_GEMM=openblas", code), "openblas|openblas|openblas|openblas");
%! out = strsplit (fresh_octave ("MUONLAB_GEMM=mkl", code), "|");
%! assert (out{1}, "mkl");
%! assert (out{4}, "openblas");
%! if (muon_info ().gemm.onednn_built)
%!   out = strsplit (fresh_octave ("MUONLAB_GEMM=onednn", code), "|");
%!   assert (out([1 4]), {"onednn", "onednn"});
%! endif

%!test
%! ## a setenv of MUONLAB_GEMM in a session counts from the next call for every function:
%! ## muon_ns called before it, then muon_update and muon_info for the first time after it,
%! ## all take the new value (each gateway kept the value its first call read: muon_ns
%! ## stayed on OpenBLAS while muon_update ran oneDNN, 5.7e-7 apart on single 300 x 500)
%! want = merge (muon_info ().gemm.onednn_built, "onednn", "openblas");
%! code = ["randn ('state', 1); G = single (randn (300, 500)); muon_ns (G); " ...
%!         "setenv ('MUONLAB_GEMM', '" want "'); [X, s] = muon_ns (G); " ...
%!         "U = muon_update (G, [], 'Beta', 0, 'Nesterov', false, 'Scale', 'none'); " ...
%!         "g = muon_info ().gemm; " ...
%!         "printf ('%s|%s|%s|%d', g.env, g.provider.single, s.gemm, isequal (U, X))"];
%! assert (fresh_octave ("MUONLAB_GEMM=", code), [want "|" want "|" want "|1"]);
