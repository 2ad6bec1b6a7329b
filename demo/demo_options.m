## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{o} =} demo_options (@var{name}, @var{args})
## The options of a demo, NAME, VALUE pairs in the cell @var{args}, read by muonlab's one
## option parser (the table @qcode{"demo"} of inst/private/option_spec.m, reached through
## @code{muonlab_demo ("options", @var{name}, @var{args})}): @code{o.display}
## is @qcode{"off"} (nothing printed; the PNG files are still written), @qcode{"final"} (the
## default: the tables at the end) or @qcode{"iter"} (also one line per run or
## configuration with the elapsed time), as in @code{optimset}.  Puts the in-tree inst/ and
## build/mex/ on the path first (@code{demo_paths}).  @code{o.iter} and @code{o.final} are
## true when lines of that level are to be printed.
## @end deftypefn

function o = demo_options (name, args)
  demo_paths ();
  o = muonlab_demo ("options", name, args);   # muonlab's parser, private to inst/
  o.iter = strcmp (o.display, "iter");
  o.final = ! strcmp (o.display, "off");
endfunction
