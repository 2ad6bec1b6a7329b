## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab demo} {} ns_precision_sweep
## @deftypefnx {muonlab demo} {@var{T} =} ns_precision_sweep ()
## @deftypefnx {muonlab demo} {@var{T} =} ns_precision_sweep ("Display", @var{how})
## Precision error of low-precision Newton-Schulz, standard vs Gram, by restart list and
## aspect ratio.
##
## For bf16 and fp16, the standard iteration and Gram with restart lists [], [2] and [1 3],
## and shapes 128 x 128, 128 x 256, 128 x 512 and 128 x 1024 (aspect 1, 2, 4, 8), it runs
## Keller's 5-step schedule (@code{muon_ns} defaults otherwise) on N(0,1) inputs with fixed
## seeds and reports the mean over the seeds of the relative Frobenius error
## ||X - X64||_F / ||X64||_F against fp64 NS (X64, standard) and, for scale,
## ||X - U V'||_F / ||U V'||_F against the SVD polar factor (dominated by the schedule:
## Keller's coefficients leave the singular values in about [0.7, 1.2] for aspect 2 and
## more, while a square input keeps a few small ones, 0.013 at 128 x 128; the fp64 line
## shows that floor).  At aspect 1 @code{muon_ns} runs the standard iteration for Gram
## too (GramMinAspect = 1, as DeepSpeed), marked "std*".
##
## Prints a table and writes demo/output/ns_precision_sweep.png (headless; (a) bf16 and (b)
## fp16, each on its own log axis: their errors differ by about 10x).  @qcode{"Display"}: @qcode{"final"} (default:
## the table), @qcode{"iter"} (also one line per shape with the elapsed time) or
## @qcode{"off"} (the figure only).  With an output argument the rows come back as a
## struct array @var{T} as well.  About 2-3 s.
## Run it with @code{make demo}, or from demo/ with @code{ns_precision_sweep}.
## @end deftypefn

function varargout = ns_precision_sweep (varargin)
  if (nargout > 0)
    [varargout{1:nargout}] = demo_run ("ns_precision_sweep", varargin, @run);
  else
    demo_run ("ns_precision_sweep", varargin, @run);     # no "ans" without an output
  endif
endfunction

function T = run (o)

  n = 128;
  aspects = [1 2 4 8];
  seeds = 1:5;
  precs = {"bf16", "fp16"};
  ## {label, method, restarts}
  variants = {"standard", "standard", [];
              "gram",     "gram",     [];
              "gram",     "gram",     2;
              "gram",     "gram",     [1 3]};
  nv = rows (variants);

  err64 = zeros (numel (precs), nv, numel (aspects));   # vs fp64 NS
  errpf = zeros (numel (precs), nv, numel (aspects));   # vs the SVD polar factor
  base = zeros (1, numel (aspects));                    # fp64 NS vs the polar factor
  t0 = tic ();
  for ia = 1:numel (aspects)
    m = n * aspects(ia);
    for sd = seeds
      randn ("state", 1000 * sd + m);
      G = randn (n, m);
      X64 = muon_ns (G);
      [U, ~, V] = svd (G, "econ");
      W = U * V.';
      nW = norm (W, "fro");
      n64 = norm (X64, "fro");
      base(ia) += norm (X64 - W, "fro") / nW / numel (seeds);
      for ip = 1:numel (precs)
        for iv = 1:nv
          X = muon_ns (G, "Precision", precs{ip}, "Method", variants{iv,2},
                       "Restarts", variants{iv,3});
          err64(ip,iv,ia) += norm (X - X64, "fro") / n64 / numel (seeds);
          errpf(ip,iv,ia) += norm (X - W, "fro") / nW / numel (seeds);
        endfor
      endfor
    endfor
    if (o.iter)
      printf ("ns_precision_sweep: %d x %d done  (%.1f s)\n", n, m, toc (t0));
    endif
  endfor
  elapsed = toc (t0);

  ## table
  rs = @(r) merge (isempty (r), "[]", ["[" strjoin(arrayfun (@num2str, r, "UniformOutput", false), " ") "]"]);
  printf ("\nNewton-Schulz precision sweep: keller, 5 steps, N(0,1) inputs, n = %d, mean of %d seeds\n",
          n, numel (seeds));
  printf ("relative Frobenius error vs fp64 NS (standard) and vs the SVD polar factor U*V'\n\n");
  printf ("%-9s %-10s %-8s %6s %10s %14s %14s\n", "precision", "method", "restarts",
          "aspect", "shape", "err vs fp64", "err vs polar");
  printf ("%s\n", repmat ("-", 1, 76));
  rows_out = struct ("precision", {}, "method", {}, "restarts", {}, "aspect", {},
                     "shape", {}, "err_fp64", {}, "err_polar", {});
  for ip = 1:numel (precs)
    for iv = 1:nv
      for ia = 1:numel (aspects)
        meth = variants{iv,1};
        r = variants{iv,3};
        rtxt = rs (r);
        if (strcmp (meth, "standard"))
          rtxt = "-";
        elseif (aspects(ia) == 1)
          meth = "gram(std*)";
        endif
        shape = sprintf ("%dx%d", n, n * aspects(ia));
        printf ("%-9s %-10s %-8s %5d %10s %14.4e %14.4e\n", precs{ip}, meth, rtxt,
                aspects(ia), shape, err64(ip,iv,ia), errpf(ip,iv,ia));
        rows_out(end+1) = struct ("precision", precs{ip}, "method", meth, "restarts", r,
                                  "aspect", aspects(ia), "shape", shape,
                                  "err_fp64", err64(ip,iv,ia), "err_polar", errpf(ip,iv,ia));
      endfor
    endfor
    printf ("%s\n", repmat ("-", 1, 76));
  endfor
  for ia = 1:numel (aspects)
    printf ("%-9s %-10s %-8s %5d %10s %14s %14.4e\n", "fp64", "standard", "-", aspects(ia),
            sprintf ("%dx%d", n, n * aspects(ia)), "0", base(ia));
  endfor
  printf ("\n* at aspect 1 muon_ns runs the standard iteration for Gram (GramMinAspect = 1).\n");
  printf ("%d NS runs in %.1f s\n", numel (aspects) * numel (seeds) * (1 + numel (precs) * nv),
          elapsed);

  png = make_plot (precs, variants, aspects, err64, n, numel (seeds), rs);
  printf ("wrote %s\n", png);

  if (nargout > 0)
    T = rows_out;
  endif
endfunction

function png = make_plot (precs, variants, aspects, err64, n, nseeds, rs)
  [h, png] = demo_figure ("ns_precision_sweep", [100 100 1100 460]);
  unwind_protect
    styles = {"-o", "--s", "-.^", ":d"};
    for ip = 1:numel (precs)
      ## each panel its own log range (bf16's errors are ~10x fp16's: one shared range
      ## flattened both), with head room above the curves for the legend
      e = err64(ip,:,:);
      lo = min (e(:)) / 1.3;
      hi = max (e(:)) * 1.3;
      yl = [lo, hi * (hi / lo) ^ 0.8];
      subplot (1, numel (precs), ip);
      labels = cell (1, rows (variants));
      for iv = 1:rows (variants)
        loglog (aspects, squeeze (err64(ip,iv,:)), styles{iv}, "linewidth", 1.5,
                "markersize", 7);
        hold on;
        if (strcmp (variants{iv,1}, "standard"))
          labels{iv} = "Method standard";
        else
          labels{iv} = ["Method gram, Restarts " rs(variants{iv,3})];
        endif
      endfor
      hold off;
      set (gca, "xtick", aspects, "xlim", [0.9 9], "ylim", yl,
           "xticklabel", arrayfun (@num2str, aspects, "UniformOutput", false));
      yt = kron (10 .^ (-6:1), [1 1.5 2 3 4 5 7]);
      yt = yt(yt >= yl(1) & yt <= yl(2));
      set (gca, "ygrid", "on", "ytick", yt,
           "yticklabel", arrayfun (@(v) sprintf ("%g", v), yt, "UniformOutput", false));
      xlabel (sprintf ("aspect ratio (%d x %d*aspect; Gram runs standard at 1)", n, n));
      ylabel ("mean rel. error vs fp64 NS (log)");
      title (sprintf ("(%c) Precision %s, keller 5 steps, mean of %d seeds", "a" + ip - 1,
                      precs{ip}, nseeds));
      legend (labels, "location", "north");
    endfor
    demo_print (h, png, "-r100");
  unwind_protect_cleanup
    close (h);
  end_unwind_protect
endfunction
