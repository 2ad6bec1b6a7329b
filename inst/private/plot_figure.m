## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{hf} =} plot_figure (@var{position})
## A new figure for the plotting functions: visible where there is a display; without one
## invisible and on the gnuplot toolkit where that is there (its warning silenced), so a
## plot works headless.  @var{position} ([x y width height]) may be [] for the default.
## @end deftypefn

function hf = plot_figure (position)
  args = {};
  if (! isempty (position))
    args = {"position", position};
  endif
  if (! isempty (getenv ("DISPLAY")))
    hf = figure (args{:});
    return;
  endif
  ws = warning ("off", "Octave:gnuplot-graphics");
  hf = figure ("visible", "off", args{:});
  if (! strcmp (graphics_toolkit (hf), "gnuplot")
      && any (strcmp (available_graphics_toolkits (), "gnuplot")))
    graphics_toolkit (hf, "gnuplot");
  endif
  warning (ws);
endfunction
