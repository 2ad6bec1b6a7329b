## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {muonlab bench} {@var{R} =} bench_ns ()
## Side-by-side timings of Newton-Schulz, run by @code{make bench}.
##
## In one process, on the same matrices and the same BLAS (and BLAS threads):
## @enumerate
## @item @code{muon_ns} in fp32 against a plain Octave loop in single (same normalization:
## the norm summed in fp64, rounded to fp32, the division in fp32; 5 Keller steps;
## @code{A = X*X.'; B = b*A + (c*A)*A; X = a*X + B*X}) on 1024x1024, 1024x4096, 2048x8192
## and a 16-page 768x2048 stack (a loop over pages for Octave).  Target: speedup >= 1.10.
## @item Gram / standard time of @code{muon_ns} (fp32) at aspect 1, 2, 4, 5, 8 with
## n = 1024, next to the FLOP model of @code{ns_flops} (general and symmetric products).
## At aspect 1 @code{muon_ns} falls back to the standard iteration (GramMinAspect = 1), so
## the measured ratio is about 1 there.  Targets: <= 0.70 at aspect 5, <= 0.60 at 8.
## @item bf16 and fp16 emulation time over fp32 time (1024x4096, standard and Gram).
## Target: <= 1.25.
## @end enumerate
## Times are the best of 3 runs of tic/toc (1 run for 2048x8192, 2 for the stack), the
## contenders interleaved within each run, after an untimed warm-up (not for 2048x8192).
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

  thr = getenv ("OPENBLAS_NUM_THREADS");
  if (isempty (thr))
    thr = "unset";
  endif
  printf ("\nmuonlab bench: %s\n", version ("-blas"));
  printf ("OPENBLAS_NUM_THREADS=%s, %d CPU cores; best of N runs (tic/toc)\n", thr, nproc ());
  t_all = tic ();

  randn ("state", 42);
  muon_ns (randn (64, 128, "single"));       # load the MEX, start the BLAS threads
  oct_ns (randn (64, 128, "single"));

  ## (1) muon_ns fp32 vs a plain Octave loop in single
  printf ("\n(1) muon_ns fp32 vs plain Octave NS loop (single), keller 5 steps; target >= 1.10x\n");
  printf ("%-16s %5s %12s %12s %9s %12s\n", "shape", "runs", "octave [s]", "muon_ns [s]",
          "speedup", "rel diff");
  cases = {[1024 1024 1], 3; [1024 4096 1], 3; [2048 8192 1], 1; [768 2048 16], 2};
  R.loop = struct ("shape", {}, "t_octave", {}, "t_muon", {}, "speedup", {});
  for i = 1:rows (cases)
    sz = cases{i,1};
    reps = cases{i,2};
    G = randn (sz, "single");
    [t, out] = best_times ({@() oct_ns_pages(G), @() muon_ns(G)}, reps, reps > 1);
    t_o = t(1);  t_m = t(2);  Xo = out{1};  Xm = out{2};
    d = norm (double (Xm(:)) - double (Xo(:))) / norm (double (Xo(:)));
    if (sz(3) == 1)
      name = sprintf ("%dx%d", sz(1), sz(2));
    else
      name = sprintf ("%dx%dx%d", sz(1), sz(2), sz(3));
    endif
    printf ("%-16s %5d %12.3f %12.3f %8.2fx %12.1e\n", name, reps, t_o, t_m, t_o / t_m, d);
    R.loop(end+1) = struct ("shape", sz, "t_octave", t_o, "t_muon", t_m,
                            "speedup", t_o / t_m);
  endfor
  clear G Xo Xm;

  ## (2) Gram / standard time vs the FLOP model
  n = 1024;
  printf ("\n(2) Gram / standard time, muon_ns fp32, n = %d, restarts [2]; targets <= 0.70 at 5, <= 0.60 at 8\n", n);
  printf ("%-6s %-11s %5s %10s %10s %10s %12s %12s\n", "aspect", "shape", "runs",
          "std [s]", "gram [s]", "measured", "model gen.", "model sym.");
  aspects = [1 2 4 5 8];
  R.gram = struct ("aspect", {}, "t_std", {}, "t_gram", {}, "ratio", {}, "model", {},
                   "model_sym", {});
  for a = aspects
    G = randn (n, a * n, "single");
    t = best_times ({@() muon_ns(G), @() muon_ns(G, "Method", "gram")}, 3, true);
    t_s = t(1);  t_g = t(2);
    Fg = ns_flops (n, a * n);
    Fs = ns_flops (n, a * n, "Symmetric", true);
    note = "";
    if (a == 1)
      note = "  (muon_ns falls back to standard)";
    endif
    printf ("%-6d %-11s %5d %10.3f %10.3f %10.2f %12.2f %12.2f%s\n", a,
            sprintf ("%dx%d", n, a * n), 3, t_s, t_g, t_g / t_s, Fg.ratio, Fs.ratio, note);
    R.gram(end+1) = struct ("aspect", a, "t_std", t_s, "t_gram", t_g, "ratio", t_g / t_s,
                            "model", Fg.ratio, "model_sym", Fs.ratio);
  endfor
  clear G;

  ## (3) bf16 / fp16 emulation vs fp32
  printf ("\n(3) low-precision emulation time / fp32 time, 1024x4096; target <= 1.25\n");
  printf ("%-9s %10s %10s %10s %10s %10s\n", "method", "fp32 [s]", "bf16 [s]", "fp16 [s]",
          "bf16/fp32", "fp16/fp32");
  G = randn (1024, 4096, "single");
  R.emul = struct ("method", {}, "t_fp32", {}, "t_bf16", {}, "t_fp16", {});
  for m = {"standard", "gram"}
    t = best_times ({@() muon_ns(G, "Method", m{1}),
                     @() muon_ns(G, "Method", m{1}, "Precision", "bf16"),
                     @() muon_ns(G, "Method", m{1}, "Precision", "fp16")}, 3, true);
    t32 = t(1);  tb = t(2);  th = t(3);
    printf ("%-9s %10.3f %10.3f %10.3f %10.2f %10.2f\n", m{1}, t32, tb, th, tb / t32,
            th / t32);
    R.emul(end+1) = struct ("method", m{1}, "t_fp32", t32, "t_bf16", tb, "t_fp16", th);
  endfor

  printf ("\nbench total %.0f s\n", toc (t_all));
  if (nargout == 0)
    clear R;
  endif
endfunction

## Best of REPS wall-clock times of each function in the cell FS, interleaved (each
## repetition runs them all in turn, so that a slow spell of a shared machine hits all
## alike), after one untimed warm-up round if WARM; the last results come back too.
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
      out{i} = fs{i} ();
      t(i) = min (t(i), toc (t0));
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
