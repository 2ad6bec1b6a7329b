## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_demo_scripts ()
## Suite (run with @code{test test_demo_scripts}): every research demo that
## @code{muonlab_demo} lists (demo/ in a checkout, the package's demos/ once installed) runs
## to the end in its fast mode (ns_turbo_muon on one seed
## of 128 x 512; mpi_zero2 on 2 ranks, only where mpirun and the MPI build are there), and
## each file it says it wrote ("wrote FILE") was written during the run, in the demos' output
## folder (@code{muonlab_demo ("output")}), every demo but the table-only zero2_experiment
## and mpi_zero2 wrote a PNG, and each PNG is one (its signature) of more than 5 kB.  A demo
## that errors (as plan_at_scale did once zero_cost returned more designs than its style
## table had) fails the suite.  The figures of that run (recorded by
## @code{figure_snapshot}) and its tables are then read as a class would: ticks on short
## log axes, keys clear of the data, each curve told apart, headings over their columns.
## Run by tests/octave/run_all.m and, after
## @code{pkg install}, by @code{pkg test muonlab} (tests/dist_install.sh).
## @end deftypefn

function test_demo_scripts ()
  help test_demo_scripts
endfunction

%!test
%! names = muonlab_demo ();
%! out = muonlab_demo ("output");
%! fast = struct ("ns_turbo_muon", {{1, [128 512]}}, "mpi_zero2", {{2}});
%! have_mpi = ! isempty (file_in_path (getenv ("PATH"), "mpirun")) && __muon_comm__ ("have_mpi");
%! old = get (0, "defaultfigurevisible");
%! set (0, "defaultfigurevisible", "off");
%! nrun = 0;
%! printed = struct ();
%! figure_snapshot ("start");              # the figures, looked at below
%! unwind_protect
%!   for k = 1:numel (names)
%!     nm = names{k};
%!     if (strcmp (nm, "mpi_zero2") && ! have_mpi)
%!       printf ("    mpi_zero2 skipped: no mpirun or no MPI build\n");
%!       continue;
%!     endif
%!     args = {};
%!     if (isfield (fast, nm))
%!       args = fast.(nm);
%!     endif
%!     t0 = time ();
%!     before = get (0, "children");
%!     try
%!       txt = evalc ("muonlab_demo (nm, args{:}, 'Display', 'final')");   # (no ;)
%!     catch err
%!       error ("demo %s: %s", nm, err.message);
%!     end_try_catch
%!     close (setdiff (get (0, "children"), before));
%!     printed.(nm) = txt;
%!     assert (isempty (regexp (txt, '^ans =', "once", "lineanchors")),
%!             "demo %s: called without an output, it printed its result as ans", nm);
%!     ## the files it says it wrote: written in this run, the PNGs real ones
%!     f = regexp (txt, 'wrote (\S+)$', "tokens", "lineanchors");
%!     f = cellfun (@(c) c{1}, f, "UniformOutput", false);
%!     if (! any (strcmp (nm, {"zero2_experiment", "mpi_zero2"})))   # (tables only)
%!       assert (any (! cellfun ("isempty", regexp (f, '\.png$', "once"))),
%!               "demo %s wrote no PNG file", nm);
%!     endif
%!     for i = 1:numel (f)
%!       st = stat (f{i});
%!       assert (! isempty (st) && st.mtime >= floor (t0), "%s: %s not written", nm, f{i});
%!       assert (strncmp (f{i}, out, numel (out)), "%s: %s outside %s", nm, f{i}, out);
%!       if (regexp (f{i}, '\.png$'))
%!         fid = fopen (f{i}, "r");
%!         magic = fread (fid, 8, "uint8=>double").';
%!         fclose (fid);
%!         assert (isequal (magic, [137 80 78 71 13 10 26 10]), "%s: %s is not a PNG", nm, f{i});
%!         assert (st.size > 5000, "%s: %s has %d bytes", nm, f{i}, st.size);
%!       endif
%!     endfor
%!     if (strcmp (nm, "plan_at_scale"))
%!       ## the band table's TF columns are the designs its header names (they once came in
%!       ## zero_cost's column-major reading of a 2 x 2 cell): Llama's first band against
%!       ## zero_cost asked for each design alone
%!       tail = txt(strfind (txt, "Llama-3.1-70B on 1024 ranks"):end);
%!       assert (! isempty (regexp (tail, 'ZeRO-1/2 TF\s+RR TF\s+LPT TF\s+a2a TF', "once")));
%!       t = regexp (tail, '^\s+0-(\d+)\s+\d+-\d+\s+\d+\s+\d+\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$',
%!                   "tokens", "once", "lineanchors");
%!       M = muon_model ("llama-3.1-70b");
%!       d = {"zero12_allreduce", "zero3_round_robin", "layerwise_lpt", "alltoall_owner"};
%!       r = 1:str2double (t{1}) + 1;
%!       for k = 1:4
%!         C = zero_cost (M, 1024, "Stage", 2, "ElementBytes", 2, "Precision", "bf16",
%!                        "Design", d{k});
%!         assert (str2double (t{k+1}), mean (C.ranks.ns_flops(r)) / 1e12, 0.006);
%!       endfor
%!     endif
%!     printf ("    %-24s ok  %.1f s, %d files\n", nm, time () - t0, numel (f));
%!     nrun++;
%!   endfor
%! unwind_protect_cleanup
%!   F = figure_snapshot ("stop");
%!   set (0, "defaultfigurevisible", old);
%! end_unwind_protect
%! assert (nrun >= numel (names) - 1);
%! ## the figures (recorded by figure_snapshot) and tables, as a class reads them
%! ## plan_at_scale.png: a log y axis spanning under three decades gets 1-2-5 ticks (the
%! ## Llama bytes and peak-memory panels had labels only at 10^3 and 10^4, with the winners
%! ## at 120-210 GB below them); plan_imbalance.png too
%! A = F(! cellfun (@isempty, regexp ({F.png}, 'plan_at_scale\.png$'))).axes;
%! t = {A.title};
%! for p = {"(e) Llama-3.1-70B: bytes sent per rank", "(h) Llama-3.1-70B: peak memory in the step"}
%!   a = A(strcmp (t, p{1}));
%!   assert (a.ytick, [100 200 500 1000 2000 5000 10000]);
%!   assert (a.yticklabel(:).', {"100", "200", "500", "1000", "2000", "5000", "10000"});
%! endfor
%! ## a wider axis (NS time, 5 decades) keeps the powers of ten
%! a = A(strcmp (t, "(f) Llama-3.1-70B: Newton-Schulz time"));
%! assert (all (abs (log10 (a.ytick) - round (log10 (a.ytick))) < 1e-12));
%! A = F(! cellfun (@isempty, regexp ({F.png}, 'plan_imbalance\.png$'))).axes;
%! for a = A(! strcmp ({A.tag}, "legend"))
%!   assert (numel (a.ytick) >= 3, "%s: %d y ticks", a.title, numel (a.ytick));
%! endfor
%! ## plan_layout.png (d): LPT, round robin and all-to-all give the same sorted work on
%! ## Llama at 1,024 ranks (each rank holds at most one matrix): one curve, one key entry
%! ## naming the three (the legend listed 4 designs over 2 visible curves); in (b) and (d)
%! ## every curve drawn differs from the others
%! A = F(! cellfun (@isempty, regexp ({F.png}, 'plan_layout\.png$'))).axes;
%! lg = A(strcmp ({A.tag}, "legend"));
%! s = [lg.string];
%! assert (any (strcmp (s, "zero3_round_robin = layerwise_lpt = alltoall_owner")));
%! for p = {"(b) ", "(d) "}
%!   a = A(strncmp ({A.title}, p{1}, 4));
%!   y = {a.lines.ydata};
%!   for i = 1:numel (y)
%!     for j = i+1:numel (y)
%!       assert (! isequal (y{i}, y{j}), "%s: two curves the same", a.title);
%!     endfor
%!   endfor
%! endfor
%! a = A(strncmp ({A.title}, "(d) ", 4));
%! assert (numel (a.lines), 2);
%! ## zero2_muon_correctness.png: the methods' key sits in panel (ii)'s southeast corner,
%! ## clear of panel (i)'s PR 8091 threshold line (at 0.40 it ran through the key's text)
%! A = F(! cellfun (@isempty, regexp ({F.png}, 'zero2_muon_correctness\.png$'))).axes;
%! t = {A.title};
%! a1 = A(strncmp (t, "(i)", 3));
%! a2 = A(strncmp (t, "(ii)", 4));
%! lg = A(strcmp ({A.tag}, "legend"));
%! assert (numel (lg), 1);
%! assert (lg.location, "southeast");
%! assert (lg.position(1) > a2.position(1) && lg.position(1) > sum (a1.position([1 3])));
%! th = a1.lines(cellfun (@(x) isequal (x, [0.4 0.4]), {a1.lines.xdata}));
%! assert (numel (th), 1);                 # the threshold line is in panel (i)
%! ## muon_family: each of the 11 presets has a colour and a marker of its own, no dotted
%! ## line (rendered as specks), and the markers are drawn on the curves; the lr column
%! ## prints 4 significant digits (adamuon_eo's 0.000645499 printed as 0.0006, 7% off)
%! assert (! isempty (regexp (printed.muon_family, '^adamuon_eo .* 0\.0006455 ', "once",
%!                            "lineanchors", "dotexceptnewline")));
%! A = F(! cellfun (@isempty, regexp ({F.png}, 'muon_family\.png$'))).axes;
%! lg = A(strcmp ({A.tag}, "legend"));
%! ax = A(! strcmp ({A.tag}, "legend"));
%! assert (numel (lg.string) >= 11);
%! assert (any (strcmp (lg.string, "dion2")));
%! L = ax.lines;
%! key = L(cellfun (@(x) all (isnan (x)), {L.xdata}));      # the key's lines
%! assert (numel (key), numel (lg.string));
%! assert (! any (strcmp ({key.linestyle}, ":")));
%! assert (! any (strcmp ({key.marker}, "none")));
%! id = strcat (cellfun (@(c) sprintf ("%.3f ", c), {key.color}, "UniformOutput", false),
%!              {key.marker});
%! assert (numel (unique (id)), numel (key));
%! nc = numel (unique (cellfun (@(c) sprintf ("%.3f ", c), {key.color}, "UniformOutput", false)));
%! assert (nc, numel (key));               # (7 colours before)
%! for k = 1:numel (key)                   # its marker on its curve
%!   m = L(strcmp ({L.marker}, key(k).marker) & strcmp ({L.linestyle}, "none")
%!         & cellfun (@(c) isequal (c, key(k).color), {L.color}));
%!   assert (numel (m), 1);
%!   assert (numel (m.xdata) >= 8);
%! endfor
%! ## ns_design_lab.png (c), (d): a y label, and the dotted line at 1 has a key entry
%! A = F(! cellfun (@isempty, regexp ({F.png}, 'ns_design_lab\.png$'))).axes;
%! for p = {"(c) ", "(d) "}
%!   a = A(strncmp ({A.title}, p{1}, 4));
%!   assert (a.ylabel, "singular value; polar error");
%!   assert (any (cellfun (@(x, y) isequal (y, [1 1]), {a.lines.xdata}, {a.lines.ydata})
%!                & strcmp ({a.lines.linestyle}, ":")));
%! endfor
%! lg = A(strcmp ({A.tag}, "legend"));
%! assert (sum (cellfun (@(c) any (strcmp (c, "1 (target)")), {lg.string})), 2);
%! ## moe_expert_parallel table (b): "dense" and "NS calls" are two headings (one space
%! ## apart they read as one), each over its column; the zero2 table's last column (ok or
%! ## FAIL against PR 8091's threshold) has a heading
%! h = regexp (printed.moe_expert_parallel, '^ +rank +experts it orthogonalizes.*$', "match",
%!             "once", "lineanchors", "dotexceptnewline");
%! assert (! isempty (regexp (h, 'dense {3,}NS calls', "once")));
%! r = regexp (printed.moe_expert_parallel, '^ +0  w_up.*$', "match", "once", "lineanchors",
%!             "dotexceptnewline");
%! for c = {"dense", "NS calls"}         # each number ends under its heading's end
%!   e = strfind (h, c{1}) + numel (c{1}) - 1;
%!   assert (isdigit (r(e)) && r(e+1) == " ", "moe table (b): %s | %s", h, r);
%! endfor
%! for nm = {"zero2_muon_correctness", "zero2_experiment"}
%!   if (isfield (printed, nm{1}))
%!     h = regexp (printed.(nm{1}), '^variant .*$', "match", "once", "lineanchors",
%!                 "dotexceptnewline");
%!     assert (! isempty (regexp (h, ' pass$', "once")), "%s: %s", nm{1}, h);
%!     r = regexp (printed.(nm{1}), '^reference .*$', "match", "once", "lineanchors",
%!                 "dotexceptnewline");
%!     assert (numel (r), numel (h));    # ok under pass, right-aligned
%!     assert (r(end-1:end), "ok");
%!   endif
%! endfor


%!test
%! ## called without an output and "Display", "off", a demo prints nothing at all, through
%! ## muonlab_demo and called itself (no "ans": [varargout{1:nargout}] = f () would assign
%! ## one output even when nargout is 0, and so does function T = f when it sets T)
%! old = get (0, "defaultfigurevisible");
%! set (0, "defaultfigurevisible", "off");
%! d = muonlab_demo ("folder");
%! addpath (d);
%! unwind_protect
%!   assert (evalc ('muonlab_demo ("zero3_pads", "Display", "off")'), "");
%!   assert (evalc ('zero3_pads ("Display", "off")'), "");
%!   assert (evalc ('moe_expert_parallel ("Display", "off")'), "");
%!   assert (evalc ('ns_turbo_muon (1, [64 256], "Display", "off")'), "");
%!   T = zero3_pads ("Display", "off");    # with an output, the rows
%!   assert (isstruct (T) && numel (T) >= 7);
%! unwind_protect_cleanup
%!   rmpath (d);
%!   set (0, "defaultfigurevisible", old);
%! end_unwind_protect

%!test
%! ## ns_turbo_muon's "Frobenius + aol" runs do not warn muonlab:unsafeSchedule (printed
%! ## with a traceback in the middle of the table): the normalized inputs' largest singular
%! ## value, 0.19 at 64 x 256, is far below 0.884 where aol's map turns negative; the
%! ## warning's state is the caller's again afterwards
%! old = get (0, "defaultfigurevisible");
%! set (0, "defaultfigurevisible", "off");
%! d = muonlab_demo ("folder");
%! addpath (d);
%! st = warning ("query", "muonlab:unsafeSchedule");
%! warning ("on", "muonlab:unsafeSchedule");
%! unwind_protect
%!   randn ("state", 1);
%!   G = randn (64, 256);
%!   assert (norm (G) / norm (G, "fro") < 0.3);
%!   lastwarn ("");
%!   [~, T] = evalc ('ns_turbo_muon (1, [64 256], "Display", "final")');
%!   [~, id] = lastwarn ();
%!   assert (id, "");
%!   assert (warning ("query", "muonlab:unsafeSchedule").state, "on");
%!   ## its rows 4-5, Turbo-Muon's code today (AOL, then you's last four triples) and its
%!   ## baseline (you's five), against the SVD's polar factor
%!   [U, ~, V] = svd (G, "econ");
%!   you = muon_coeffs ("you");
%!   e = @(X) norm (double (X) - U * V', "fro") / norm (U * V', "fro");
%!   assert (T.config(4:5).', {"AOL + you(2:5), 4 steps", "Frobenius + you, 5 steps"});
%!   assert (T.bf16(4), e (muon_ns (G, "Normalize", "aol", "Coefficients", you(2:5,:),
%!                                  "Steps", 4, "Precision", "bf16")), 1e-10);
%!   assert (T.fp32(5), e (muon_ns (G, "Coefficients", "you", "Steps", 5,
%!                                  "Precision", "single")), 1e-10);
%!   ## the silenced runs do not use up muon_ns's once-per-session warning: the caller's
%!   ## own aol call after the demo still warns
%!   setappdata (0, "muonlab_unsafe_schedule_seen", []);
%!   evalc ('ns_turbo_muon (1, [64 256], "Display", "off")');
%!   lastwarn ("");
%!   randn ("state", 1);
%!   muon_ns (randn (4, 1024), "Normalize", "aol", "Coefficients", "aol", "Steps", 4);
%!   [~, id] = lastwarn ();
%!   assert (id, "muonlab:unsafeSchedule");
%!   ## a 4 x 1024 input reaches sigma 1 under AOL's scaling (aol reverses every direction,
%!   ## an error of 2): the demo's AOL + aol row warns there
%!   setappdata (0, "muonlab_unsafe_schedule_seen", []);
%!   lastwarn ("");
%!   [~, T] = evalc ('ns_turbo_muon (1, [4 1024], "Display", "off")');
%!   [~, id] = lastwarn ();
%!   assert (id, "muonlab:unsafeSchedule");
%!   assert (T.bf16(1) > 1.9);
%! unwind_protect_cleanup
%!   warning (st.state, "muonlab:unsafeSchedule");
%!   rmpath (d);
%!   set (0, "defaultfigurevisible", old);
%! end_unwind_protect

%!test
%! ## ns_turbo_muon with a tall SHAPE: its reference is the SVD's U V' to 1e-14 as on a wide
%! ## one (from G G', m x m of rank n, it was complex and 5e-7 off at 256 x 8, 6e-6 at
%! ## 2048 x 2): every polar error of the table recomputed against svd's
%! d = muonlab_demo ("folder");
%! addpath (d);
%! unwind_protect
%!   T = ns_turbo_muon (1, [256 8], "Display", "off");
%!   assert (isreal (T.errors));
%!   randn ("state", 1);
%!   G = randn (256, 8);
%!   [U, ~, V] = svd (G, "econ");
%!   P = U * V';
%!   you = muon_coeffs ("you");
%!   cfg = {{"Normalize", "aol", "Coefficients", "aol", "Steps", 4},
%!          {"Normalize", "frobenius", "Coefficients", "keller", "Steps", 5},
%!          {"Normalize", "frobenius", "Coefficients", "aol", "Steps", 4},
%!          {"Normalize", "aol", "Coefficients", you(2:5,:), "Steps", 4},
%!          {"Normalize", "frobenius", "Coefficients", "you", "Steps", 5}};
%!   w = warning ("off", "muonlab:unsafeSchedule");
%!   unwind_protect
%!     for c = 1:5
%!       q = {"bf16", "single"};
%!       for k = 1:2
%!         X = double (muon_ns (G, cfg{c}{:}, "Precision", q{k}));
%!         assert (T.errors(1,c,k), norm (X - P, "fro") / norm (P, "fro"), 1e-12);
%!       endfor
%!     endfor
%!   unwind_protect_cleanup
%!     warning (w);
%!   end_unwind_protect
%! unwind_protect_cleanup
%!   rmpath (d);
%! end_unwind_protect

%!test
%! ## demo_run runs a demo's body with Octave's BLAS on one thread (the references' svd and
%! ## eig sum in another order on two) and gives the count back
%! d = muonlab_demo ("folder");
%! prev = __muon_blas_threads__ (2);
%! addpath (d);
%! unwind_protect
%!   if (prev > 0)                         # OpenBLAS (else nothing to pin)
%!     n = demo_run ("zero3_pads", {"Display", "off"}, @(o) __muon_blas_threads__ (0));
%!     assert (n, 1);
%!     assert (__muon_blas_threads__ (0), 2);
%!   endif
%! unwind_protect_cleanup
%!   rmpath (d);
%!   __muon_blas_threads__ (max (prev, 1));
%! end_unwind_protect
