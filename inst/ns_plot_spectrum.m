## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {} ns_plot_spectrum (@var{G})
## @deftypefnx {muonlab} {} ns_plot_spectrum (@var{G}, @var{X})
## @deftypefnx {muonlab} {[@var{h}, @var{S}] =} ns_plot_spectrum (@dots{}, @var{name}, @var{value}, @dots{})
## The singular values of a gradient and of its Newton-Schulz outputs: what one looks at
## first for Muon.
##
## Panel (a) is the input spectrum: the singular values of @var{G} (one matrix) divided by
## its Frobenius norm, as Newton-Schulz sees them after normalization, largest first, on a
## log axis.  Panel (b) is the map: each output singular value against the input singular
## value it came from (log x axis), one curve per output, with the target 1 dotted red; an
## exact polar factor would be the line at 1, and the gap below it at the small singular
## values is what a schedule leaves.  The outputs are @code{muon_ns (G, ...)} for every
## schedule of @qcode{"Coefficients"} in every precision of @qcode{"Precision"}, or the
## matrices @var{X} given (a matrix or a cell of them, the size of @var{G}).
##
## Options (names are case-insensitive):
## @table @asis
## @item "Coefficients"
## a schedule name or a cellstr of them (default @code{@{"keller", "polar_express"@}}).
## @item "Precision"
## a precision or a cellstr of them (default: the class of @var{G}).
## @item "Method", "Steps", "Restarts", "ScheduleMode", "GramMinAspect", "Eps", "Normalize", "NormScale", "EpsPlacement", "NormalizeFirst", "Fused", "Batched", "SymBlocks", "Gemm", "Threads"
## as in @code{muon_ns}, for every run (on the CPU): every option of @code{muon_ns} but
## @qcode{"Device"} and @qcode{"Trace"}.
## @item "Labels"
## a cellstr naming the matrices @var{X} (default "X1", "X2", @dots{}).
## @item "File"
## a file name: the figure is also written there as a PNG (and closed when there is no
## output argument).
## @end table
##
## @var{h} is the figure handle; @var{S} holds the spectra: @code{S.input} (the normalized
## singular values of @var{G}, largest first), @code{S.labels} and @code{S.output} (a cell of
## the outputs' singular values, in the input's order: the i-th is the image of the i-th
## input singular value, by the uv' of the SVD of @var{G}).  Headless (no @env{DISPLAY}) the
## figure is invisible and drawn by gnuplot.
##
## @example
## G = randn (128, 512);
## ns_plot_spectrum (G, "Precision", @{"double", "bf16"@}, "File", fullfile (tempdir, "s.png"));
## @end example
## @seealso{muon_ns, polar_metrics, muon_coeffs}
## @end deftypefn

function [h, S] = ns_plot_spectrum (G, varargin)
  fname = "ns_plot_spectrum";
  if (nargin < 1)
    print_usage ();
  endif
  check_matrix (fname, "G", G);
  if (ndims (G) > 2)
    error ("muonlab:badShape", "%s: G must be one matrix (2-D).", fname);
  endif
  X = {};
  if (! isempty (varargin) && ! ischar (varargin{1}))
    X = varargin{1};
    varargin(1) = [];
    if (! iscell (X))
      X = {X};
    endif
    for k = 1:numel (X)
      check_matrix (fname, "X", X{k});
      if (! isequal (size (X{k}), size (G)))
        error ("muonlab:badShape", "%s: each X must be the size of G (%d x %d).", fname,
               rows (G), columns (G));
      endif
    endfor
  endif
  o = parse_options (fname, "ns_plot_spectrum", varargin);
  pin = blas_one_thread ();              # S: the same bits on any number of threads
  [U, Sg, V] = svd (double (G), "econ");
  sg = diag (Sg);
  S.input = sg / (norm (double (G), "fro") + 1e-7);
  if (isempty (X))
    co = cellstr_of (fname, "COEFFICIENTS", o.coefficients);
    pr = o.precision;
    if (isempty (pr))
      pr = {class(G)};
    endif
    pr = cellstr_of (fname, "PRECISION", pr);
    ## the muon_ns options given, as given (parse_options checked them)
    ns = option_spec ("ns_plot_spectrum").names;
    ns = setdiff (ns, {"Coefficients", "Precision", "Labels", "File", "Names"});
    pass = false (size (varargin));
    for i = 1:2:numel (varargin)
      pass(i:i+1) = any (strcmpi (varargin{i}, ns));
    endfor
    args = varargin(pass);
    labels = {};
    for c = co
      for p = pr
        X{end+1} = muon_ns (G, "Coefficients", c{1}, "Precision", p{1}, args{:});
        labels{end+1} = sprintf ("%s, %s", c{1}, p{1});
      endfor
    endfor
  else
    labels = o.labels;
    if (isempty (labels))
      labels = arrayfun (@(k) sprintf ("X%d", k), 1:numel (X), "UniformOutput", false);
    elseif (! (iscellstr (labels) && numel (labels) == numel (X)))
      error ("muonlab:badArg", "%s: LABELS must be a cellstr of %d names.", fname, numel (X));
    endif
  endif
  ## each output's singular values in the input's order: diag (U' X V)'s magnitude is
  ## the image of each input singular value when X = U f(S) V' (Newton-Schulz keeps U, V)
  S.labels = labels;
  S.output = cellfun (@(x) abs (diag (U' * double (x) * V)), X, "UniformOutput", false);

  hf = plot_figure ([100 100 1100 440]);
  ax1 = subplot (1, 2, 1, "parent", hf);
  semilogy (ax1, 1:numel (S.input), S.input, "k-", "linewidth", 1.5);
  set (ax1, "xlim", [0.5, numel(S.input) + 0.5],
       "ylim", [min(S.input) / 1.5, max(S.input) * 1.5]);
  grid (ax1, "on");
  xlabel (ax1, "index i (largest first)");
  ylabel (ax1, "sigma_i (G) / ||G||_F");
  title (ax1, sprintf ("(a) input spectrum, %d x %d", rows (G), columns (G)));
  ax2 = subplot (1, 2, 2, "parent", hf);
  styles = {"-", "--", "-.", ":"};
  hold (ax2, "on");
  for k = 1:numel (X)
    semilogx (ax2, S.input, S.output{k}, styles{mod (k - 1, 4) + 1}, "linewidth", 1.5);
  endfor
  xl = [min(S.input) / 1.2, max(S.input) * 1.2];
  semilogx (ax2, xl, [1 1], "color", [0.8 0 0], "linestyle", ":", "linewidth", 2);
  hold (ax2, "off");
  set (ax2, "xscale", "log", "xlim", xl);
  top = max ([cellfun(@max, S.output), 1]);
  ylim (ax2, [0, 1.45 * top]);              # head room: the legend above the curves
  set (ax2, "xgrid", "on", "ygrid", "off");   # (the target line is the grid at 1)
  xlabel (ax2, "input sigma_i / ||G||_F");
  ylabel (ax2, "output sigma_i");
  title (ax2, "(b) Newton-Schulz output per input singular value");
  legend (ax2, [labels, {"target 1"}], "location", "north", "orientation", "horizontal",
          "interpreter", "none");
  o.file = strtrim (o.file);
  if (! isempty (o.file))
    try                                 # the caller's name never reaches a shell
      print_png ("ns_plot_spectrum", hf, o.file, "-r90");
    catch err
      close (hf);
      rethrow (err);
    end_try_catch
  endif
  if (nargout > 0)
    h = hf;
  elseif (! isempty (o.file))
    close (hf);
  endif
endfunction

function c = cellstr_of (fname, what, v)
  if (ischar (v) && isrow (v))
    c = {v};
  elseif (iscellstr (v) && ! isempty (v))
    c = v(:).';
  else
    error ("muonlab:badArg", "%s: %s must be a name or a cellstr of names.", fname, what);
  endif
endfunction

%!test
%! ## fp64 keller: each output singular value is Keller's quintic applied 5 times to the
%! ## normalized input singular value (the closed form of muon_ns on exact arithmetic)
%! randn ("state", 7);
%! G = randn (24, 64);
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller");
%! close (h);
%! s = svd (G) / (norm (G, "fro") + 1e-7);
%! assert (S.input, s, 1e-14);
%! for k = 1:5
%!   s = 3.4445 * s - 4.7750 * s.^3 + 2.0315 * s.^5;
%! endfor
%! assert (S.output{1}, s, 1e-12);
%! assert (S.labels, {"keller, double"});

%!test
%! ## given matrices; every schedule x precision otherwise; the PNG written
%! randn ("state", 8);
%! G = randn (16, 48);
%! f = [tempname() ".png"];
%! unwind_protect
%!   [h, S] = ns_plot_spectrum (G, {muon_ns(G), muon_ns(G, "Precision", "bf16")},
%!                              "Labels", {"fp64", "bf16"}, "File", f);
%!   close (h);
%!   assert (S.labels, {"fp64", "bf16"});
%!   assert (sort (S.output{1}, "descend"), svd (muon_ns (G)), 1e-12);   # the same values
%!   assert (stat (f).size > 5000);
%!   [h, S] = ns_plot_spectrum (G, "Precision", {"double", "bf16"});
%!   close (h);
%!   assert (numel (S.output), 4);
%!   assert (S.labels{4}, "polar_express, bf16");
%! unwind_protect_cleanup
%!   if (exist (f, "file"))
%!     delete (f);
%!   endif
%! end_unwind_protect

%!test
%! ## the options of muon_ns reach every run: "Gemm" and "Threads" accepted, "Eps" and
%! ## "Steps" change the curve as the closed form says (Keller's quintic twice on the input
%! ## singular values normalized with eps 1)
%! randn ("state", 9);
%! G = randn (16, 32);
%! f = [tempname() ".png"];
%! unwind_protect
%!   [h, S] = ns_plot_spectrum (G, "Coefficients", "keller", "Gemm", "openblas",
%!                              "Threads", 1, "Eps", 1, "steps", 2, "File", f);
%!   close (h);
%!   s = svd (G) / (norm (G, "fro") + 1);
%!   for k = 1:2
%!     s = 3.4445 * s - 4.7750 * s.^3 + 2.0315 * s.^5;
%!   endfor
%!   assert (S.output{1}, s, 1e-12);
%!   assert (stat (f).size > 5000);
%! unwind_protect_cleanup
%!   if (exist (f, "file"))
%!     delete (f);
%!   endif
%! end_unwind_protect

%!demo
%! randn ("state", 1);
%! G = randn (128, 512);
%! ns_plot_spectrum (G, "Precision", {"double", "bf16"});

%!error <ns_plot_spectrum: G must be one matrix \(2-D\).> ns_plot_spectrum (randn (4, 4, 2))
%!error <ns_plot_spectrum: each X must be the size of G \(4 x 8\).> ns_plot_spectrum (randn (4, 8), randn (4, 4))
%!error <ns_plot_spectrum: LABELS must be a cellstr of 1 names.> ns_plot_spectrum (randn (4, 8), randn (4, 8), "Labels", {"a", "b"})
%!error <ns_plot_spectrum: COEFFICIENTS must be a name or a cellstr of names.> ns_plot_spectrum (randn (4, 8), "Coefficients", 3)
%!error <ns_plot_spectrum: GEMM must be> ns_plot_spectrum (randn (4, 8), "Gemm", "bogus")
%!error <ns_plot_spectrum: unknown option 'Device'.> ns_plot_spectrum (randn (4, 8), "Device", "cuda")

%!test
%! ## the file gets exactly the name given; no part of it runs in a shell
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   f = fullfile (d, "a$(touch PWNED).png");
%!   ns_plot_spectrum (randn (6, 12), "Steps", 1, "File", f);
%!   assert (exist (f, "file"), 2);
%!   assert (! exist (fullfile (d, "PWNED"), "file") && ! exist ("PWNED", "file"));
%!   assert (! exist (fullfile (d, "a.png"), "file"));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!error <ns_plot_spectrum: cannot write '/nonexistent-muonlab/x.png': no such folder.>
%! n = numel (get (0, "children"));
%! unwind_protect
%!   ns_plot_spectrum (randn (6, 12), "Steps", 1, "File", "/nonexistent-muonlab/x.png");
%! unwind_protect_cleanup
%!   assert (numel (get (0, "children")), n);        # no figure left behind
%! end_unwind_protect

