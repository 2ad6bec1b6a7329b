## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab demo} {} zero2_muon_correctness
## @deftypefnx {muonlab demo} {@var{T} =} zero2_muon_correctness ()
## @deftypefnx {muonlab demo} {@var{T} =} zero2_muon_correctness ("Display", @var{how})
## DeepSpeed PR 8091's numerical-correctness experiment for Muon under ZeRO-1/2, on two
## simulated ranks, for every distributed design of @code{zero_muon_step}.
##
## The model is a 3-layer MLP of 256 x 256 linears (ReLU between them, cross-entropy over
## 256 classes: the shapes of DeepSpeed's @code{SimpleModel (hidden_dim=256, nlayers=3)}).
## Its three weights form the Muon group, flattened row-major in module order into one
## ZeRO-2 buffer over world 2 (alignment factor 2); the three biases are the AdamW group,
## flattened in a buffer of their own as DeepSpeed does, so they do not move the cut.  The
## layout puts the cut at element 98304, in the middle of W2: W2 straddles ranks 0 and 1.
##
## Each rank draws its own micro-batch of 256 samples; the gradients come from a forward and
## backward pass in plain Octave and are rounded to fp16 (loss scale 1).  One Muon step with
## lr 0.02, momentum 0.95, Nesterov, gradient clipping 0 (so the applied delta is exactly
## -lr times the update) is taken by every variant, for ns_method gram in fp16 (W is
## square, so it falls back to the standard iteration in fp16, as in DeepSpeed) and
## standard in bf16.  The table gives, per variant and method:
## @table @asis
## @item (i) vs same-precision reference
## the relative Frobenius error of the applied update against @code{reference} (NS on the
## full DP-averaged gradient) in the same precision: about 0 for a correct design, O(0.5)
## for the bug; PR 8091's threshold 0.40 applies to this column (largest of the three
## weights);
## @item (ii) vs fp64 reference
## against the fp64 reference: the precision level of the method (PR 8091 saw up to 0.07
## for gram and 0.22 for standard against its own low-precision reference);
## @end table
## plus the Newton-Schulz calls and the bytes each rank moved.  The #7807 row is the bug
## as the issue states it (a rank orthogonalizes its own gradient where it does not own
## the matrix: 0.65 on W2); DeepSpeed's own average_tensor divides that part by W first,
## and the line under the table gives that form too (0.58: PR 8091 measured 0.60-0.67 in
## its own runs).  Writes
## demo/output/zero2_layout.png (the flat buffer by owner) and
## demo/output/zero2_muon_correctness.png (the errors as bars on log axes, an exact 0
## marked at the axis floor).  @qcode{"Display"}: @qcode{"final"} (default: the table),
## @qcode{"iter"} (also one line per variant and method with the elapsed time) or
## @qcode{"off"} (the figures only).  About 2-3 s;
## @code{make demo} runs it.  With an output argument the rows come
## back as a struct array @var{T}.  The experiment itself is @code{zero2_experiment};
## @code{mpi_zero2} runs it on real MPI ranks.
## @end deftypefn

function T = zero2_muon_correctness (varargin)
  o = demo_options ("zero2_muon_correctness", varargin);
  t_all = tic ();
  X = zero2_experiment (2, "sim", "Display", o.display);
  if (o.final)
    zero2_experiment ("print", X);
  endif

  ## figures
  png2 = plot_errors (X.T, X.variants, X.methods, X.threshold);
  png1 = fullfile (fileparts (png2), "zero2_layout.png");
  names = arrayfun (@(p) sprintf ("W%d", p), 1:numel (X.L.params), "UniformOutput", false);
  zero_plot_layout (X.L, "File", png1, "Names", names);   # the weights as the log names them
  if (! o.final)
    if (nargout > 0)
      T = X.T;
    endif
    return;
  endif
  printf ("wrote %s\nwrote %s\n%d steps in %.1f s\n", png1, png2, 2 * numel (X.T),
          toc (t_all));
  if (nargout > 0)
    T = X.T;
  endif
endfunction

## (i) and (ii) as bars on log axes from 1e-4 (PR 8091's threshold and the bug near 1 in
## the same panel as the correct designs), one row per variant, its option name as the
## label; an exact 0, which a log axis cannot draw, is a marker at the floor with a label.
function png = plot_errors (T, variants, methods, threshold)
  nv = numel (variants);
  E = reshape ([T.err_same], nv, rows (methods));
  E64 = reshape ([T.err_fp64], nv, rows (methods));
  lo = 1e-4;
  [h, png] = demo_figure ("zero2_muon_correctness", [0 0 1250 560]);
  unwind_protect
    ax1 = axes ("position", [0.2 0.12 0.37 0.76]);
    bar_panel (ax1, E, lo, variants, true);
    hold (ax1, "on");
    plot (ax1, [threshold threshold], [0.4 nv + 0.6], "r--", "linewidth", 1.5);
    hold (ax1, "off");
    xlabel (ax1, "rel. error vs same-precision reference (log)");
    title (ax1, sprintf ("(i) sharding error (dashed: PR 8091 threshold %.2f)", threshold));
    ax2 = axes ("position", [0.61 0.12 0.37 0.76]);
    bar_panel (ax2, E64, lo, variants, false);
    xlabel (ax2, "rel. error vs fp64 reference (log)");
    title (ax2, "(ii) precision level (same rows)");
    ## the key of both panels, where (ii)'s short bars leave room (in (i)'s southeast
    ## corner the threshold line ran through its text; gnuplot ignores a legend position)
    legend (ax2, strcat (methods(:,1), " (", methods(:,2), ")"), "location", "southeast");
    demo_print (h, png);
  unwind_protect_cleanup
    close (h);
  end_unwind_protect
endfunction

function bar_panel (ax, E, lo, variants, labels)
  nv = rows (E);
  Y = flipud (E);
  zero = Y == 0;
  Y(zero) = lo;
  barh (ax, Y, "basevalue", lo);
  set (ax, "xscale", "log", "xlim", [lo 1], "ylim", [0.4 nv + 0.6], "ytick", 1:nv);
  set (ax, "yticklabel", {});
  if (labels)                           # text, not tick labels: gnuplot would read _ as TeX
    names = fliplr (variants);
    for r = 1:nv
      text (ax, lo / 1.25, r, names{r}, "interpreter", "none", "horizontalalignment", "right",
            "verticalalignment", "middle");
    endfor
  endif
  hold (ax, "on");
  for r = find (any (zero, 2)).'
    plot (ax, lo, r, "kd", "markersize", 8, "markerfacecolor", [0.2 0.7 0.2]);
    text (ax, lo * 1.5, r, "0 (exact) for both methods", "color", [0 0.45 0], "verticalalignment", "middle");
  endfor
  hold (ax, "off");
endfunction
