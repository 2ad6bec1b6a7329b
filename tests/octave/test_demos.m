## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_demos ()
## Suite (run with @code{test test_demos}): every user function of inst/ (not private/) has
## at least one %!demo block, and every block runs headless (figures invisible, the gnuplot
## toolkit without a display) under @code{evalc} without error; the figures a demo draws
## (for the user to see, at the prompt) are closed after it.  And every one has Texinfo help
## that @code{help} can show: found (a classdef's inside its @code{classdef} block), and
## formatted by makeinfo without error or a command left in the text.
## Run by tests/octave/run_all.m and, after @code{pkg install}, by @code{pkg test muonlab}'s
## dist layer (tests/dist_install.sh).
## @end deftypefn

function test_demos ()
  help test_demos
endfunction

%!test
%! inst = fileparts (which ("muon_ns"));
%! fns = cellfun (@(f) regexprep (f, '^.*/|\.m$', ""), glob (fullfile (inst, "*.m")), "UniformOutput", false)';
%! old = get (0, "defaultfigurevisible");
%! set (0, "defaultfigurevisible", "off");
%! warning ("off", "Octave:gnuplot-graphics", "local");
%! if (isempty (getenv ("DISPLAY")) && any (strcmp (available_graphics_toolkits (), "gnuplot")))
%!   graphics_toolkit ("gnuplot");
%! endif
%! nrun = 0;
%! unwind_protect
%!   for f = fns
%!     [~, idx] = test (f{1}, "grabdemo");
%!     n = numel (idx) - 1;
%!     assert (n >= 1, "%s has no %%!demo block", f{1});
%!     for k = 1:n
%!       before = get (0, "children");
%!       try
%!         evalc (sprintf ("demo ('%s', %d)", f{1}, k));
%!       catch err
%!         error ("demo %d of %s: %s", k, f{1}, err.message);
%!       end_try_catch
%!       close (setdiff (get (0, "children"), before));   # a demo that plots leaves its figure
%!       nrun++;
%!     endfor
%!   endfor
%! unwind_protect_cleanup
%!   set (0, "defaultfigurevisible", old);
%! end_unwind_protect
%! printf ("    %d demos of %d functions ran\n", nrun, numel (fns));

%!test
%! ## help: Texinfo that makeinfo formats (a blank line inside the comment block cuts the help
%! ## short and leaves a block unclosed; a classdef's help outside classdef is not found)
%! inst = fileparts (which ("muon_ns"));
%! fns = cellfun (@(f) regexprep (f, '^.*/|\.m$', ""), glob (fullfile (inst, "*.m")),
%!                "UniformOutput", false)';
%! for f = fns
%!   [txt, fmt] = get_help_text (f{1});
%!   assert (strcmp (fmt, "texinfo"), "%s: help is %s", f{1}, fmt);
%!   [out, status] = __makeinfo__ (txt, "plain text");
%!   assert (status == 0, "%s: makeinfo failed", f{1});
%!   left = regexp (out, '@[a-z]+(\{|\s)', "match", "once");
%!   assert (isempty (left), "%s: '%s' left in the formatted help", f{1}, left);
%! endfor

%!test
%! ## a demo shows a result in a few lines, not a whole matrix or table (muon_state's
%! ## printed its 64 x 32 update, muon_import's a table of 8 rows x 29 columns: 334 and
%! ## 421 lines)
%! for f = {"muon_state", "muon_import"}
%!   txt = evalc (sprintf ("demo ('%s', 1)", f{1}));
%!   n = numel (strfind (txt, "\n"));
%!   assert (n <= 40, "demo of %s printed %d lines", f{1}, n);
%! endfor

%!test
%! ## muon_update's demo: a y label and a title, and the legend in the empty decades
%! ## between the norms (~10) and the relative difference (~3e-8), not in the northeast
%! ## corner over the norm curves
%! old = get (0, "defaultfigurevisible");
%! set (0, "defaultfigurevisible", "off");
%! before = get (0, "children");
%! unwind_protect
%!   evalc ("demo ('muon_update', 1)");
%!   h = setdiff (get (0, "children"), before);
%!   assert (numel (h), 1);
%!   ax = findobj (h, "type", "axes", "-not", "tag", "legend");
%!   assert (get (get (ax, "ylabel"), "string"), "norm, relative difference (log)");
%!   assert (! isempty (get (get (ax, "title"), "string")));
%!   assert (get (findobj (h, "tag", "legend"), "location"), "east");
%!   y = get (findobj (ax, "type", "line"), "ydata");
%!   y = [y{:}];
%!   assert (! any (y > 1e-5 & y < 1));     # the legend's band is empty
%! unwind_protect_cleanup
%!   close (setdiff (get (0, "children"), before));
%!   set (0, "defaultfigurevisible", old);
%! end_unwind_protect
