## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {[@var{h}, @var{png}] =} demo_figure (@var{name}, @var{position})
## @deftypefnx {} {[~, @var{png}] =} demo_figure (@var{name})
## A headless figure for a demo: the gnuplot toolkit when there is no display (its
## warning silenced), an invisible figure at @var{position} ([x y width height]), and
## @var{png}, the file @var{name}.png in the demos' output folder (@code{muonlab_demo
## ("output")}: demo/output/ in a checkout, tempdir's muonlab_demo-UID/ once installed,
## UID the user's).  The demo prints into @var{png} and closes @var{h} (in an unwind_protect_cleanup block).
## Without @var{position} no figure is opened (@var{h} is []): only the file name.
## @end deftypefn

function [h, png] = demo_figure (name, position)
  warning ("off", "Octave:gnuplot-graphics", "local");   # (the caller's state kept)
  if (isempty (getenv ("DISPLAY")) && any (strcmp (available_graphics_toolkits (), "gnuplot")))
    graphics_toolkit ("gnuplot");
  endif
  outdir = muonlab_demo ("output");
  png = fullfile (outdir, [name ".png"]);
  h = [];
  if (nargin > 1)
    h = figure ("visible", "off", "position", position);
  endif
endfunction
