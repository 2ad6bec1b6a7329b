## Copyright (C) 2026 The muonlab authors
##
## This program is free software: you can redistribute it and/or modify it under the terms
## of the GNU General Public License as published by the Free Software Foundation, either
## version 3 of the License, or (at your option) any later version.

## -*- texinfo -*-
## @deftypefn  {muonlab} {} zero_plot_layout (@var{L})
## @deftypefnx {muonlab} {@var{h} =} zero_plot_layout (@var{L}, @qcode{"File"}, @var{file})
## Draw the flat buffer of a ZeRO layout coloured by owning rank.
##
## @var{L} is a struct from @code{zero_layout}.  The bar is the flat buffer (element 0 at the
## left): each rank's elements in its colour, padding in grey, parameter boundaries as black
## lines, partition cuts as dashed lines, and row boundaries as short ticks at the bottom when
## the buffer is small enough to show them.  Parameters that straddle a cut are labelled in
## red with a @qcode{"*"} and a red bracket above them.
##
## With no display (@env{DISPLAY} unset) the figure is invisible and uses the gnuplot
## toolkit, so it works headless.  @var{h} is the figure handle.  Called with a
## @qcode{"File"} and no output argument, the figure is closed once written.
##
## Options (names are case-insensitive):
## @table @asis
## @item "File"
## a file name: the figure is also written there as a PNG (default @qcode{""}: not written).
## It is printed to a private temporary name and moved into place, so the name (any
## characters, quotes and @samp{$(...)} included) never reaches a shell.
## @end table
##
## @example
## L = zero_layout (@{[3 4], [2 5], [4 4]@}, 2);
## zero_plot_layout (L, "File", "layout.png");
## @end example
## @seealso{zero_layout}
## @end deftypefn

function h = zero_plot_layout (L, varargin)

  if (nargin < 1)
    print_usage ();
  endif
  need = {"stage", "world", "params", "ranks", "padded_total", "partition_size", "total"};
  if (! (isstruct (L) && isscalar (L) && all (isfield (L, need))))
    error ("muonlab:badArg",
           "zero_plot_layout: L must be a layout struct from zero_layout.");
  endif
  zero_check_layout ("zero_plot_layout", L);
  file = parse_options ("zero_plot_layout", "zero_plot_layout", varargin).file;

  W = L.world;
  N = L.padded_total;
  S = L.partition_size;
  if (W <= 7)
    cmap = lines (7)(1:W,:);
  else
    cmap = hsv (W) * 0.85;
  endif
  grey = [0.8 0.8 0.8];

  headless = isempty (getenv ("DISPLAY"));
  if (headless)
    ws = warning ("off", "Octave:gnuplot-graphics");
    hf = figure ("visible", "off");
    if (! strcmp (graphics_toolkit (hf), "gnuplot")
        && any (strcmp (available_graphics_toolkits (), "gnuplot")))
      graphics_toolkit (hf, "gnuplot");
    endif
    warning (ws);
  else
    hf = figure ();
  endif
  set (hf, "position", [100 100 1000 360]);
  ax = axes ("parent", hf);
  hold (ax, "on");

  ## padding, then every rank's pieces
  pad = [];
  if (L.stage == 3)
    for p = 1:numel (L.params)
      q = L.params(p);
      if (q.padded_numel > q.numel)
        pad(end+1,:) = q.offset + [q.numel, q.padded_numel];
      endif
    endfor
  elseif (N > L.total)
    pad = [L.total, N];
  endif
  hpad = [];
  for i = 1:rows (pad)
    hpad = box (ax, pad(i,:), grey);
  endfor
  hrank = zeros (1, W);
  for r = 1:W
    pc = L.ranks(r).params;
    for i = 1:numel (pc)
      hrank(r) = box (ax, pc(i).flat, cmap(r,:));
    endfor
  endfor

  ## row boundaries (small buffers only), partition cuts, parameter boundaries
  if (N <= 2000)
    for p = 1:numel (L.params)
      q = L.params(p);
      x = q.offset + q.cols * (1:q.rows-1);
      vlines (ax, x, [0 0.12], [1 1 1], 0.5, "-");
    endfor
  endif
  if (L.stage == 3)
    for p = 1:numel (L.params)
      q = L.params(p);
      c = q.padded_numel / W;
      vlines (ax, q.offset + c * (1:W-1), [-0.05 1.05], [0.3 0.3 0.3], 0.5, "--");
    endfor
  else
    vlines (ax, S * (1:W-1), [-0.15 1.15], [0 0 0], 1, "--");
  endif
  edges = unique ([[L.params.offset], [L.params.offset] + [L.params.padded_numel]]);
  vlines (ax, edges, [-0.05 1.05], [0 0 0], 2, "-");

  ## labels: straddling parameters in red with a bracket
  for p = 1:numel (L.params)
    q = L.params(p);
    xm = q.offset + q.numel / 2;
    if (q.straddles)
      plot (ax, q.offset + [0 0 q.numel q.numel], [1.08 1.14 1.14 1.08], "r-",
            "linewidth", 2);
      text (xm, 1.24, sprintf ("p%d* %dx%d", p, q.rows, q.cols), "parent", ax,
            "color", [0.8 0 0], "horizontalalignment", "center", "fontweight", "bold");
    else
      text (xm, 1.24, sprintf ("p%d %dx%d", p, q.rows, q.cols), "parent", ax,
            "horizontalalignment", "center");
    endif
  endfor

  nstr = sum ([L.params.straddles]);
  title (ax, sprintf (["ZeRO-%d layout: %d parameters, world %d, %d elements per rank, ", ...
                       "padding %d, %d straddling (*)"], L.stage, numel (L.params), W, S,
                      N - L.total, nstr));
  xlabel (ax, "flat buffer element (0-based; each matrix row-major)");
  set (ax, "ytick", [], "ylim", [-0.3 1.45], "xlim", [0 max(N, 1)]);
  names = arrayfun (@(r) sprintf ("rank %d", r), 0:W-1, "UniformOutput", false);
  keep = hrank != 0;
  hl = hrank(keep);
  names = names(keep);
  if (! isempty (hpad))
    hl(end+1) = hpad;
    names{end+1} = "padding";
  endif
  legend (ax, hl, names, "location", "eastoutside");
  hold (ax, "off");

  if (! isempty (file))
    print_png ("zero_plot_layout", hf, file);
  endif
  if (nargout > 0)
    h = hf;
  elseif (! isempty (file))
    close (hf);
  endif

endfunction

## A filled rectangle over elements [x(1) x(2)) of the bar.
function hp = box (ax, x, color)
  hp = patch (ax, [x(1) x(2) x(2) x(1)], [0 0 1 1], color, "edgecolor", "none");
endfunction

function vlines (ax, x, y, color, width, style)
  for xi = x(:).'
    plot (ax, [xi xi], y, "color", color, "linewidth", width, "linestyle", style);
  endfor
endfunction

%!test
%! L = zero_layout ({[3 4], [2 5], [4 4]}, 2);
%! f = [tempname() ".png"];
%! unwind_protect
%!   h = zero_plot_layout (L, "File", f);
%!   assert (ishghandle (h));
%!   s = dir (f);
%!   assert (! isempty (s) && s.bytes > 1000);
%! unwind_protect_cleanup
%!   if (exist ("h", "var") && ishghandle (h))
%!     close (h);
%!   endif
%!   if (exist (f, "file"))
%!     delete (f);
%!   endif
%! end_unwind_protect

%!test
%! L = zero_layout ({[3 4], [2 5], [4 4]}, 4, "Stage", 3, "Order", "size_desc");
%! f = [tempname() ".png"];
%! unwind_protect
%!   h = zero_plot_layout (L, "file", f);
%!   s = dir (f);
%!   assert (s.bytes > 1000);
%! unwind_protect_cleanup
%!   close (h);
%!   delete (f);
%! end_unwind_protect

%!error <zero_plot_layout: L must be a layout struct from zero_layout.> zero_plot_layout (1)
%!error <zero_plot_layout: FILE must be a file name.> zero_plot_layout (zero_layout ({[2 2]}, 1), "File", 3)
%!error <zero_plot_layout: unknown option 'Foo'.> zero_plot_layout (zero_layout ({[2 2]}, 1), "Foo", 3)
%!error <zero_plot_layout: options must be NAME, VALUE pairs.> zero_plot_layout (zero_layout ({[2 2]}, 1), "File")

%!demo
%! ## Three matrices over two ranks: the 2 x 5 one straddles the cut at element 20.
%! L = zero_layout ({[3 4], [2 5], [4 4]}, 2);
%! zero_plot_layout (L);
