## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_docs ()
## Suite (run with @code{test test_docs}): where the documentation states a fact in more
## than one place, the places agree, and agree with what the code does (issue 25).
## Threads: @code{help muon_ns}, the README and core/base/threads.c say that the default
## is @env{OMP_NUM_THREADS} or the cores, never the load, and that a requested count is used
## as given: @qcode{"Threads"}, 8 runs 8 threads on any machine (@var{stats}.threads), the
## default runs @code{muon_info ().gemm.threads}, which is @env{OMP_NUM_THREADS} when set.
## @end deftypefn

function test_docs ()
  help test_docs
endfunction

%!shared root
%! root = fullfile (fileparts (which ("muon_ns")), "..");

%!test
%! ## Threads: what runs
%! G = randn (64, 128);
%! [~, s8] = muon_ns (G, "Threads", 8, "Precision", "single");
%! assert (s8.threads, 8);
%! [~, s0] = muon_ns (G, "Precision", "single");
%! assert (s0.threads, muon_info ().gemm.threads);
%! omp = str2double (getenv ("OMP_NUM_THREADS"));
%! if (isfinite (omp) && omp >= 1)
%!   assert (s0.threads, omp);
%! endif

%!test
%! ## Threads: one truth in the help, the README and threads.c
%! h = help ("muon_ns");
%! k = strfind (h, "\"Threads\"");
%! t = regexprep (h(k(1):k(1) + 900), '\s+', " ");
%! assert (! isempty (strfind (t, "never derived from the machine load")));
%! assert (! isempty (strfind (t, "used as given, even above the number of cores")));
%! assert (! isempty (strfind (t, "at most 1024")));
%! assert (isempty (strfind (t, "busy")) && isempty (strfind (t, "leave free")));
%! if (exist (fullfile (root, "README.md"), "file"))   # (not beside an installed inst/)
%!   r = regexprep (fileread (fullfile (root, "README.md")), '\s+', " ");
%!   assert (! isempty (strfind (r, "A requested count (1 to 1024) is used as given, even above the number of cores")));
%!   assert (! isempty (strfind (r, "It is never derived from the machine load")));
%! endif
%! c = fullfile (root, "core", "base", "threads.c");
%! if (exist (c, "file"))                # (the source tree; an installed package has none)
%!   c = regexprep (fileread (c), '\s+', " ");
%!   assert (! isempty (strfind (c, "never * the load")) || ! isempty (strfind (c, "never the load")));
%! endif

%!test
%! ## huge and tiny finite inputs: the README's claim, checked.  1e155 G gives G's answer at
%! ## any Eps; 1e-300 G only with "Eps", 0 (with the default Eps its norm is below Eps: a
%! ## muonlab:tinyInput warning and a result about G / Eps, not G's)
%! randn ("state", 3);
%! G = randn (32, 64);
%! X = muon_ns (G, "Eps", 0);
%! assert (muon_ns (G * 1e155, "Eps", 0), X, 1e-14);
%! assert (muon_ns (G * 1e155), X, 1e-6);
%! assert (muon_ns (G * 1e-300, "Eps", 0), X, 1e-14);
%! warning ("off", "muonlab:tinyInput", "local");
%! [Xt, st] = muon_ns (G * 1e-300);
%! assert (st.tiny_pages, 1);
%! assert (norm (Xt - X, "fro") > 0.1);
%! warning ("error", "muonlab:tinyInput", "local");
%! try
%!   muon_ns (G * 1e-300);
%!   error ("no warning");
%! catch err
%!   assert (err.identifier, "muonlab:tinyInput");
%! end_try_catch
%! if (exist (fullfile (root, "README.md"), "file"))
%!   r = regexprep (fileread (fullfile (root, "README.md")), '\s+', " ");
%!   assert (! isempty (strfind (r, "and so does a tiny one (double entries of 1e-300) with `\"Eps\", 0`")));
%!   assert (isempty (strfind (r, "1e155 or 1e-300")));
%! endif

%!test
%! ## zero_muon_step's help example: the straddling middle matrix's error is about 0.6
%! ## (0.6 to 0.67 over seeds), as the help says, the others 0
%! h = help ("zero_muon_step");
%! assert (! isempty (strfind (h, "R.rel_err       # [0 ~0.6 0]")));
%! for s = 1:3
%!   randn ("state", s);
%!   L = zero_layout ({[64 64], [64 64], [64 64]}, 2);
%!   g = arrayfun (@(k) randn (64), 1:6, "UniformOutput", false);
%!   R = zero_muon_step (L, reshape (g, 2, 3), [], "Variant", "zero2_reduce_scatter_buggy");
%!   assert (R.rel_err([1 3]), [0 0]);
%!   assert (R.rel_err(2) > 0.55 && R.rel_err(2) < 0.7);
%! endfor
%! ## ns_restart_search's example names both sides of its near tie ([3 9] 6.04e-7 and
%! ## [2 9] 6.12e-7 with randn ("state", 1): which comes first depends on the CPU's kernels)
%! ## and the default's error; the example is run, so the figures cannot go stale
%! h = regexprep (help ("ns_restart_search"), '\s+', " ");
%! assert (! isempty (strfind (h, "about 6e-7: [3 9] or [2 9]")));
%! assert (! isempty (strfind (h, "the default [2] about 2e-6")));
%! randn ("state", 1);
%! G = {randn(32, 64), randn(64, 192), randn(128, 512)};
%! T = ns_restart_search (G, "Coefficients", "deepseekv4");
%! assert (any (cellfun (@(r) isequal (T.restarts{1}, r), {[2 9], [3 9]})));
%! assert (T.error(1) > 5.5e-7 && T.error(1) < 6.5e-7);
%! e2 = T.error(cellfun (@(r) isequal (r, 2), T.restarts));
%! assert (e2 > 1.5e-6 && e2 < 2.5e-6);

%!test
%! ## the demos' times: one list, each demo's help ("About N s."); the README's table of
%! ## times and its prose ("`make demo DEMO=name` (about N s)") say the same
%! r = fullfile (root, "README.md");
%! dir = muonlab_demo ("folder");
%! names = muonlab_demo ();
%! help_time = struct ();
%! for k = 1:numel (names)
%!   t = regexp (fileread (fullfile (dir, [names{k} ".m"])), 'About (\d+(-\d+)? s)', "tokens", "once");
%!   assert (! isempty (t), "%s: its help states no time", names{k});
%!   help_time.(names{k}) = t{1};
%! endfor
%! if (exist (r, "file"))
%!   r = fileread (r);
%!   row = regexp (r, '`muonlab_demo \(name\)`:([^|]*)\|', "tokens", "once");
%!   assert (! isempty (row));
%!   groups = regexp (row{1}, '(\d+(?:-\d+)? s) \(([^)]*)\)', "tokens");
%!   seen = {};
%!   for g = groups
%!     for nm = strsplit (g{1}{2}, ", ")
%!       assert (isfield (help_time, nm{1}), "README's table: %s is no demo", nm{1});
%!       assert (strcmp (g{1}{1}, help_time.(nm{1})), "README's table: %s %s, its help %s",
%!               nm{1}, g{1}{1}, help_time.(nm{1}));
%!       seen{end+1} = nm{1};
%!     endfor
%!   endfor
%!   assert (sort (seen), sort (names));
%!   r = regexprep (r, '\s+', " ");
%!   prose = [regexp(r, '`make demo DEMO=(\w+)` \(about ([^)]*)\)', "tokens"), ...
%!            regexp(r, '`demo/(\w+)\.m` \(about ([^)]*)\)', "tokens")];
%!   assert (numel (prose) >= 4);
%!   for p = prose
%!     assert (strcmp (p{1}{2}, help_time.(p{1}{1})), "README's prose: %s %s, its help %s",
%!             p{1}{1}, p{1}{2}, help_time.(p{1}{1}));
%!   endfor
%! endif

%!test
%! ## bench_export's table: the row count its header and the README's make bench line state
%! ## is zero_cost's, a row per design and rank of Llama-3.1-8B at 1,024 (both said 12,288
%! ## once it had 13 designs: 13,312)
%! C = zero_cost (muon_model ("llama-3.1-8b"), 1024);
%! R = [C.ranks];
%! n = numel (vertcat (R.rank));
%! assert (n, numel (C) * 1024);
%! f = {fullfile(root, "tests", "bench", "bench_export.m"), fullfile(root, "README.md")};
%! pat = {'(\d[\d,]*) rows', '(\d[\d,]*)(?:-row table| rows\)) through muon_export'};
%! for k = 1:2
%!   if (exist (f{k}, "file"))             # (not beside an installed inst/)
%!     t = regexprep (fileread (f{k}), '\s+(##?\s+)?', " ");    # (comment lines joined)
%!     c = regexp (t, pat{k}, "tokens");
%!     c = cellfun (@(x) str2double (strrep (x{1}, ",", "")), c);
%!     assert (! isempty (c) && all (c == n), "%s: %s rows, zero_cost %d", f{k}, mat2str (c), n);
%!   endif
%! endfor

%!test
%! ## the schedule audit's grid: ns_schedule_audit's help and ns_map's say 60 log-spaced
%! ## points on [1e-6, 1e-3), and ns_map samples them (then 20001 from 1e-3 to 1)
%! h = regexprep (help ("ns_schedule_audit"), '\s+', " ");
%! assert (! isempty (strfind (h, "60 log-spaced points on [1e-6, 1e-3) and 20001 even points")));
%! old = cd (fullfile (fileparts (which ("muon_ns")), "private"));
%! unwind_protect
%!   [~, x] = ns_map ([1 0 0]);
%!   hm = regexprep (help ("ns_map"), '\s+', " ");
%! unwind_protect_cleanup
%!   cd (old);
%! end_unwind_protect
%! assert (! isempty (strfind (hm, "60 points log-spaced on [1e-6, 1e-3)")));
%! assert ([nnz(x < 1e-3), nnz(x >= 1e-3)], [60 20001]);
%! assert ([x(1), x(60) / x(59)], [1e-6, 10^0.05], -1e-12);

%!test
%! ## the Polar Express tables: muon_coeffs' and ns_design_coeffs' help say what the
%! ## regeneration gives, 1e-12 for polar_express_dion, 1e-4 (not 1e-12) for polar_express_eo
%! h = regexprep (help ("muon_coeffs"), '\s+', " ");
%! assert (! isempty (strfind (h, "polar_express and polar_express_dion to 1e-12 per coefficient, polar_express_eo to 1e-4")));
%! h = regexprep (help ("ns_design_coeffs"), '\s+', " ");
%! assert (! isempty (strfind (h, "Emerging-Optimizers' 4-decimal table to 1e-4")));
%! assert (isempty (strfind (h, "regenerates each to 1e-12")));
%! C = ns_design_coeffs (8, "Lower", 1e-3, "Cushion", 0.02407327424182751, "Safety", 1.01,
%!                       "SafetyMode", "after");
%! d = max (abs (C(:) - muon_coeffs ("polar_express_eo")(:)));
%! assert (d > 1e-6 && d < 1e-4);
%! C = ns_design_coeffs (5, "Lower", 1e-3, "Cushion", 0.02, "Safety", 1.02);
%! assert (C, muon_coeffs ("polar_express_dion"), -1e-12);

%!test
%! ## the H100 profile: plain FP64 is 34 TFLOPS, the 67 of gemm_peak.double is the FP64
%! ## tensor core rate (DGEMM runs on the tensor cores), as its sources say
%! J = jsondecode (fileread (fullfile (fileparts (which ("muon_ns")), "profiles",
%!                                     "h100_node.json")));
%! src = J.sources{1};
%! assert (! isempty (strfind (src, "FP64 34 TFLOPS and FP64 tensor core 67 TFLOPS")));
%! assert (isempty (strfind (src, "FP64 and FP64 tensor core 67")));
%! assert ([J.gemm_peak.double, J.gemm_peak.single], [67e12, 67e12]);

%!test
%! ## Batched: muon_math.h's comment of muon_ns_opts.batched states the exception that
%! ## help muon_ns states (the automatic SymBlocks of a 16-bit page, n 2048..4095: k = 2 in a
%! ## stack of four pages or more, k = 1 alone), not "each page the bits of that page alone"
%! h = regexprep (help ("muon_ns"), '\s+', " ");
%! assert (! isempty (strfind (h, "n from 2048 to 4095 takes k = 2 in a stack of four pages or more, k = 1 alone")));
%! f = fullfile (root, "core", "include", "muon_math.h");
%! if (exist (f, "file"))                   # (not beside an installed inst/)
%!   c = fileread (f);
%!   k = strfind (c, "int batched;");
%!   e = strfind (c(k:end), "int sym_blocks;");
%!   t = regexprep (strrep (c(k:k + e(1)), "//", ""), '\s+', " ");
%!   assert (! isempty (strfind (t, "n from 2048 to 4095 takes k = 2 in a stack of four pages or more, k = 1 alone")));
%! endif
