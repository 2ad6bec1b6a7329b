## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {muonlab bench} {@var{R} =} bench_ns ()
## Side-by-side timings of Newton-Schulz, run by @code{make bench}.
##
## In one process, on the same matrices and the same BLAS (and BLAS threads):
## @enumerate 0
## @item The time a call spends outside the C core: @code{[X, stats] = muon_ns (G)} with
## default options, 100 calls (after 5 untimed ones) on 64x256 double and 256x1024 single;
## per call the wall time (tic/toc around the call) less @code{stats.total_seconds} (the
## core's time) is the overhead: option parsing, checks, the gateway, the copy of the
## result.  The table gives the medians of the wall time, the core time and the overhead
## (ms), and the overhead's share of the wall time.  Targets: at most 0.3 ms at 64x256,
## at most 10% at 256x1024 (fp32).
## @item @code{muon_ns} in fp32 and in bf16 (default GEMM provider: oneDNN when built, native
## bf16 products) against a plain Octave loop in single (same normalization: the norm summed
## in fp64, rounded to fp32, the division in fp32; 5 Keller steps;
## @code{A = X*X.'; B = b*A + (c*A)*A; X = a*X + B*X}) on 1024x1024, 1024x4096, 2048x8192
## and a 16-page 768x2048 stack (a loop over pages for Octave).  Targets: fp32 >= 1.5x,
## bf16 >= 2.5x.  Then, when @code{/usr/bin/python3 -c "import torch"} works, the same
## shapes through torch's eager bf16 Newton-Schulz (bench_ns_torch.py: Keller's function,
## a batched tensor for the stack, as many threads as muon_ns uses), run after the Octave
## timings in a separate process.  Target: muon_ns bf16 >= 1.0x torch.  Without torch that
## table is skipped with a note.  Before it, table (1b) splits the best fp32 and bf16 runs
## with @code{muon_ns}'s stats: the time inside the products, their GFLOP/s, and the
## @emph{ceiling}, the speed-up over the Octave loop if everything but the products were
## free; a target above the ceiling needs faster products, not leaner passes.  Octave's own
## sgemm rate is printed with it.
## @item Gram / standard time of @code{muon_ns} (fp32) at aspect 1, 2, 4, 5, 8 with
## n = 1024, and 512 x 2560 (aspect 5 again), next to the FLOP model of @code{ns_flops}
## (general and symmetric products).  In fp32 and fp64 the Gram path computes half of its
## symmetric n x n products but Q's update (core/gemm/gemm.c's muon_gemm_product_upper),
## and the standard path
## uses SYRK for X X' and A A, so the symmetric model is the one to meet.  At aspect 1
## @code{muon_ns} falls back to the standard iteration (GramMinAspect = 1), so the measured
## ratio is about 1 there.  Target: within 1.1x of the symmetric model's ratio from aspect
## 2 on (0.65 at aspect 5, 0.57 at 8).  The aspect-5 rows are timed on one thread too
## (@qcode{"Threads"}, 1): on a machine shared with other work the multi-threaded ratio
## wanders with the load, the single-threaded one much less.
## @item bf16 and fp16 emulation time over fp32 time (1024x4096, standard and Gram), all on
## the OpenBLAS provider (fp32 products of the low-precision values).  Target: <= 1.25.
## @end enumerate
## Times are the best of 3 runs of tic/toc (5 for 1024x1024, 1 for 2048x8192, 2 for the
## stack, 7 for table (2)'s shapes of at most 2^21 elements, whose runs take tens of ms), the contenders interleaved within each run, after an untimed warm-up (not for
## 2048x8192).  The machine may be shared: a slow spell shows as a low ratio in one row.
## Nothing is asserted; the targets are printed next to the figures.  With an output
## argument the measured numbers come back in a struct.
## @end deftypefn

function R = bench_ns ()
  here = fileparts (mfilename ("fullpath"));
  for d = {fullfile(here, "..", "..", "inst"), fullfile(here, "..", "..", "build", "mex")}
    if (isfolder (d{1}))
      addpath (d{1});
    endif
  endfor

  env = @(v) ifelse_empty (getenv (v), "unset");
  printf ("\nmuonlab bench: %s\n", version ("-blas"));
  printf ("OPENBLAS_NUM_THREADS=%s, OPENBLAS_CORETYPE=%s, OMP_NUM_THREADS=%s, %d CPU cores\n",
          env ("OPENBLAS_NUM_THREADS"), env ("OPENBLAS_CORETYPE"), env ("OMP_NUM_THREADS"),
          nproc ("all"));
  info = muon_info ();
  printf ("GEMM: %s\nbest of N runs (tic/toc)\n", info.gemm_text);
  t_all = tic ();

  randn ("state", 42);
  muon_ns (randn (64, 128, "single"));       # load the MEX, start the BLAS threads
  muon_ns (randn (64, 128, "single"), "Precision", "bf16");
  oct_ns (randn (64, 128, "single"));

  ## (0) time outside the core per call
  R.overhead = overhead_table ();

  ## (1) muon_ns fp32 and bf16 vs a plain Octave loop in single (then torch bf16)
  printf ("\n(1) muon_ns fp32 / bf16 vs plain Octave NS loop (single), keller 5 steps; targets fp32 >= 1.5x, bf16 >= 2.5x\n");
  printf ("%-12s %4s %10s %10s %10s %8s %8s %9s %9s\n", "shape", "runs", "octave[s]",
          "fp32[s]", "bf16[s]", "fp32 x", "bf16 x", "fp32 diff", "bf16 err");
  cases = {[1024 1024 1], 5; [1024 4096 1], 3; [2048 8192 1], 1; [768 2048 16], 2};
  R.loop = struct ("shape", {}, "t_octave", {}, "t_muon", {}, "t_bf16", {}, "speedup", {},
                   "speedup_bf16", {}, "t_torch", {}, "stats", {}, "stats_bf16", {});
  for i = 1:rows (cases)
    sz = cases{i,1};
    reps = cases{i,2};
    G = randn (sz, "single");
    [t, out] = best_times ({@() {oct_ns_pages(G), []}, @() ns_run(G), ...
                            @() ns_run(G, "Precision", "bf16")}, reps, reps > 1);
    rel = @(X, Y) norm (double (X(:)) - double (Y(:))) / norm (double (Y(:)));
    d32 = rel (out{2}{1}, out{1}{1});
    db = rel (out{3}{1}, out{1}{1});          # bf16 precision error, against fp32
    printf ("%-12s %4d %10.3f %10.3f %10.3f %7.2fx %7.2fx %9.1e %9.4f\n", shape_name (sz),
            reps, t, t(1) / t(2), t(1) / t(3), d32, db);
    R.loop(end+1) = struct ("shape", sz, "t_octave", t(1), "t_muon", t(2), "t_bf16", t(3),
                            "speedup", t(1) / t(2), "speedup_bf16", t(1) / t(3),
                            "t_torch", NaN, "stats", out{2}{2}, "stats_bf16", out{3}{2});
    clear out;
  endfor
  clear G;
  R.octave_sgemm_gflops = octave_sgemm_rate ();
  ceiling_table (R);
  R = torch_table (R, cases, info.gemm.threads, fileparts (mfilename ("fullpath")));

  ## (2) Gram / standard time vs the FLOP model
  printf ("\n(2) Gram / standard time, muon_ns fp32, restarts [2]; target <= 1.1 x the symmetric model (0.65 at aspect 5, 0.57 at 8)\n");
  printf ("%-6s %-11s %5s %10s %10s %10s %12s %12s %8s %s\n", "aspect", "shape", "runs",
          "std [s]", "gram [s]", "measured", "model gen.", "model sym.", "target", "result");
  shapes = [1024 * [1 2 4 5 8].', 1024 * ones(5, 1); 2560, 512];   # [m n]: n x m
  R.gram = struct ("aspect", {}, "shape", {}, "t_std", {}, "t_gram", {}, "ratio", {},
                   "model", {}, "model_sym", {}, "target", {}, "ratio_1thread", {});
  for i = 1:rows (shapes)
    m = shapes(i,1);  n = shapes(i,2);  a = m / n;
    G = randn (n, m, "single");
    runs = merge (n * m <= 2^21, 7, 3);   # tens of ms: more runs against the noise
    t = best_times ({@() muon_ns(G), @() muon_ns(G, "Method", "gram")}, runs, true);
    t_s = t(1);  t_g = t(2);
    Fg = ns_flops (n, m);
    Fs = ns_flops (n, m, "Symmetric", true);
    target = 1.1 * Fs.ratio;
    if (a == 1)
      tgt = "-";
      res = "(muon_ns falls back to standard)";
    else
      tgt = sprintf ("<= %.3f", target);
      res = merge (t_g / t_s <= target, "pass", "FAIL");
    endif
    printf ("%-6d %-11s %5d %10.3f %10.3f %10.3f %12.3f %12.3f %8s %s\n", a,
            sprintf ("%dx%d", n, m), runs, t_s, t_g, t_g / t_s, Fg.ratio, Fs.ratio, tgt, res);
    r1 = NaN;
    if (a == 5)
      t = best_times ({@() muon_ns(G, "Threads", 1),
                       @() muon_ns(G, "Method", "gram", "Threads", 1)}, runs, true);
      r1 = t(2) / t(1);
      printf ("%-6s %-11s %5d %10.3f %10.3f %10.3f %12s %12s %8s %s\n", "", "  1 thread",
              runs, t(1), t(2), r1, "", "", tgt, merge (r1 <= target, "pass", "FAIL"));
    endif
    R.gram(end+1) = struct ("aspect", a, "shape", [n m], "t_std", t_s, "t_gram", t_g,
                            "ratio", t_g / t_s, "model", Fg.ratio, "model_sym", Fs.ratio,
                            "target", target, "ratio_1thread", r1);
  endfor
  clear G;

  ## (3) bf16 / fp16 emulation vs fp32, all on OpenBLAS
  printf ("\n(3) low-precision emulation time / fp32 time, 1024x4096, Gemm openblas; target <= 1.25\n");
  printf ("    (bf16f: bf16 with \"Fused\", true, the scale-adds in the products' epilogues)\n");
  printf ("%-9s %10s %10s %10s %10s %10s %10s %10s\n", "method", "fp32 [s]", "bf16 [s]",
          "fp16 [s]", "bf16f [s]", "bf16/fp32", "fp16/fp32", "bf16f/bf16");
  G = randn (1024, 4096, "single");
  R.emul = struct ("method", {}, "t_fp32", {}, "t_bf16", {}, "t_fp16", {}, "t_bf16f", {});
  for m = {"standard", "gram"}
    ob = {"Method", m{1}, "Gemm", "openblas"};
    t = best_times ({@() muon_ns(G, ob{:}),
                     @() muon_ns(G, ob{:}, "Precision", "bf16"),
                     @() muon_ns(G, ob{:}, "Precision", "fp16"),
                     @() muon_ns(G, ob{:}, "Precision", "bf16", "Fused", true)}, 3, true);
    t32 = t(1);  tb = t(2);  th = t(3);  tf = t(4);
    printf ("%-9s %10.3f %10.3f %10.3f %10.3f %10.2f %10.2f %10.2f\n", m{1}, t32, tb, th, tf,
            tb / t32, th / t32, tf / tb);
    R.emul(end+1) = struct ("method", m{1}, "t_fp32", t32, "t_bf16", tb, "t_fp16", th,
                            "t_bf16f", tf);
  endfor

  printf ("\nbench total %.0f s\n", toc (t_all));
  if (nargout == 0)
    clear R;
  endif
endfunction

## Table (0): per shape, 100 calls of [X, stats] = muon_ns (G) with default options; the
## medians of the wall time, of the core's time (stats.total_seconds) and of their
## difference, the time spent outside the core, and that difference's share of the wall
## time, against the targets (0.3 ms at 64x256 double, 10% at 256x1024 single).
function T = overhead_table ()
  printf ("\n(0) time outside the C core per muon_ns call (default options; median of 100 calls); targets <= 0.3 ms at 64x256, <= 10%% at 256x1024 fp32\n");
  printf ("%-16s %10s %10s %12s %7s  %-10s %s\n", "shape", "wall [ms]", "core [ms]",
          "outside [ms]", "share", "target", "result");
  cases = {[64 256], "double", "ms", 0.3; [256 1024], "single", "share", 0.10};
  T = struct ("shape", {}, "class", {}, "wall", {}, "core", {}, "outside", {}, "share", {},
              "pass", {});
  n = 100;
  for i = 1:rows (cases)
    [sz, cls, kind, target] = cases{i,:};
    G = randn (sz, cls);
    for k = 1:5
      [X, st] = muon_ns (G);
    endfor
    wall = core = zeros (n, 1);
    for k = 1:n
      t0 = tic ();
      [X, st] = muon_ns (G);
      wall(k) = toc (t0);
      core(k) = st.total_seconds;
    endfor
    outside = median (wall - core);
    share = outside / median (wall);
    if (strcmp (kind, "ms"))
      pass = outside <= target * 1e-3;
      tgt = sprintf ("<= %.1f ms", target);
    else
      pass = share <= target;
      tgt = sprintf ("<= %.0f%%", 100 * target);
    endif
    printf ("%-16s %10.3f %10.3f %12.3f %6.1f%%  %-10s %s\n",
            sprintf ("%dx%d %s", sz, cls), 1e3 * median (wall), 1e3 * median (core),
            1e3 * outside, 100 * share, tgt, merge (pass, "PASS", "over"));
    T(end+1) = struct ("shape", sz, "class", cls, "wall", median (wall),
                       "core", median (core), "outside", outside, "share", share,
                       "pass", pass);
  endfor
endfunction

## The torch rows of table (1): bench_ns_torch.py on the same shapes and run counts, with
## THREADS threads; skipped with a note when /usr/bin/python3 cannot import torch.
function R = torch_table (R, cases, threads, here)
  py = "/usr/bin/python3";
  [st, ~] = system (sprintf ("%s -c 'import torch' 2>/dev/null", py));
  if (st != 0)
    printf ("\n    torch: skipped (%s cannot import torch; optional: apt-get install python3-torch)\n",
            py);
    return;
  endif
  specs = "";
  for i = 1:rows (cases)
    specs = [specs sprintf(" %s:%d", shape_name (cases{i,1}, true), cases{i,2})];
  endfor
  [st, txt] = system (sprintf ("%s %s %d%s", py, fullfile (here, "bench_ns_torch.py"),
                               threads, specs));
  if (st != 0)
    printf ("\n    torch: bench_ns_torch.py failed (status %d):\n%s\n", st, txt);
    return;
  endif
  lines = strsplit (strtrim (txt), "\n");
  printf ("\n    torch eager bf16 NS (%s) vs muon_ns bf16; target >= 1.0x\n", lines{end});
  printf ("    %-12s %10s %10s %10s\n", "shape", "torch[s]", "muon bf16", "torch/muon x");
  for i = 1:rows (cases)
    tt = NaN;
    for k = 1:numel (lines)
      f = strsplit (lines{k});
      if (numel (f) == 2 && strcmp (f{1}, shape_name (cases{i,1}, true)))
        tt = str2double (f{2});
      endif
    endfor
    R.loop(i).t_torch = tt;
    printf ("    %-12s %10.3f %10.3f %11.2fx\n", shape_name (cases{i,1}), tt,
            R.loop(i).t_bf16, tt / R.loop(i).t_bf16);
  endfor
endfunction

## Table (1b): the products alone in the best runs of table (1) (muon_ns's stats), their
## rate, and the speed-up over the Octave loop that muon_ns would reach if everything but
## its products took no time: targets above that ceiling cannot be met by the elementwise
## passes, only by faster products.  Octave's own sgemm rate is measured beside them.
function ceiling_table (R)
  printf ("\n(1b) where muon_ns's time goes (the best runs above): products alone, their rate, and the speed-up they cap\n");
  printf ("%-12s %12s %8s %9s %12s %8s %9s\n", "shape", "fp32 prod[s]", "GFLOP/s",
          "ceiling", "bf16 prod[s]", "GFLOP/s", "ceiling");
  for r = R.loop
    s32 = r.stats;  sb = r.stats_bf16;
    printf ("%-12s %12.3f %8.0f %8.2fx %12.3f %8.0f %8.2fx\n", shape_name (r.shape),
            s32.product_seconds, s32.product_gflops, r.t_octave / s32.product_seconds,
            sb.product_seconds, sb.product_gflops, r.t_octave / sb.product_seconds);
  endfor
  s = R.loop(1).stats;  sb = R.loop(1).stats_bf16;
  printf ("products on %s (%d threads; bf16 %s); Octave's own single product (OpenBLAS, 1024x4096 by 4096x1024): %.0f GFLOP/s\n",
          s.gemm, s.threads, merge (sb.bf16_products, "native", "as fp32 products"),
          R.octave_sgemm_gflops);
endfunction

## GFLOP/s of Octave's single-precision product (the BLAS the plain loop runs on), best of 3.
function r = octave_sgemm_rate ()
  A = randn (1024, 4096, "single");
  B = randn (4096, 1024, "single");
  C = A * B;
  t = Inf;
  for i = 1:3
    t0 = tic ();
    C = A * B;
    t = min (t, toc (t0));
  endfor
  r = 2 * 1024 * 4096 * 1024 / t / 1e9;
endfunction

## muon_ns's result and its stats, as one cell (for best_times).
function c = ns_run (varargin)
  [X, s] = muon_ns (varargin{:});
  c = {X, s};
endfunction

## "1024x4096", "768x2048x16"; with FULL, always three dimensions ("1024x4096x1").
function s = shape_name (sz, full)
  if (sz(3) == 1 && ! (nargin > 1 && full))
    s = sprintf ("%dx%d", sz(1), sz(2));
  else
    s = sprintf ("%dx%dx%d", sz(1), sz(2), sz(3));
  endif
endfunction

function s = ifelse_empty (s, dflt)
  if (isempty (s))
    s = dflt;
  endif
endfunction

## Best of REPS wall-clock times of each function in the cell FS, interleaved (each
## repetition runs them all in turn, so that a slow spell of a shared machine hits all
## alike), after one untimed warm-up round if WARM; each function's result in its best run
## comes back too.
function [t, out] = best_times (fs, reps, warm)
  t = Inf (1, numel (fs));
  out = cell (1, numel (fs));
  if (warm)
    for i = 1:numel (fs)
      fs{i} ();
    endfor
  endif
  for r = 1:reps
    for i = 1:numel (fs)
      t0 = tic ();
      res = fs{i} ();
      dt = toc (t0);
      if (dt < t(i))
        t(i) = dt;
        out{i} = res;
      endif
    endfor
  endfor
endfunction

## The plain Octave loop over the pages of G.
function X = oct_ns_pages (G)
  X = zeros (size (G), "single");
  for e = 1:size (G, 3)
    X(:,:,e) = oct_ns (G(:,:,e));
  endfor
endfunction

## Keller's NS5 in single: the baseline muon_ns is measured against.
function X = oct_ns (G)
  a = single (3.4445);  b = single (-4.7750);  c = single (2.0315);
  tr = rows (G) > columns (G);
  if (tr)
    G = G.';
  endif
  nrm = single (norm (double (G(:))));       # summed in fp64, rounded to fp32
  X = G / (nrm + single (1e-7));
  for k = 1:5
    A = X * X.';
    B = b * A + (c * A) * A;
    X = a * X + B * X;
  endfor
  if (tr)
    X = X.';
  endif
endfunction
