## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {} figure_snapshot ("start")
## @deftypefnx {} {@var{F} =} figure_snapshot ("stop")
## Test helper: between "start" and "stop", the demos' @code{demo_print} is shadowed by a
## stand-in (written to a temporary folder put first on the path, the demos' folder behind
## it, so that @code{muonlab_demo} leaves the order alone) that records each figure
## it is given and then prints it through the demos' own, so that a test can look at the
## figures a demo drew and closed (a DeleteFcn comes too late: Octave deletes a figure's
## children first).  @var{F} is a struct array, one per figure printed, with fields
## @code{png} (the file) and @code{axes}: per axes (legends included) its tag, position
## (normalized figure units), title,
## xlabel, ylabel, xtick, ytick, xticklabel, yticklabel, @code{lines} (per line its
## xdata, ydata, linestyle, marker, color, markersize) and for a legend its
## @code{string} and @code{location}.
## @end deftypefn

function F = figure_snapshot (what, h, png)
  switch (what)
    case "start"
      d = tempname ();
      mkdir (d);
      fid = fopen (fullfile (d, "demo_print.m"), "w");
      fprintf (fid, "%s\n", "function demo_print (h, png, varargin)",
               "  figure_snapshot (\"record\", h, png);",
               "  here = fileparts (mfilename (\"fullpath\"));",
               "  rmpath (here);",
               "  unwind_protect",
               "    demo_print (h, png, varargin{:});",
               "  unwind_protect_cleanup",
               "    addpath (here);",
               "  end_unwind_protect",
               "endfunction");
      fclose (fid);
      ## the demos' folder on the path behind the stand-in (muonlab_demo adds it in front
      ## only when it is not there), taken off again at "stop" if it was not there
      dd = muonlab_demo ("folder");
      added = ! any (strcmp (strsplit (path (), pathsep ()), dd));
      if (added)
        addpath (dd);
      endif
      setappdata (0, "muon_figure_snapshot_dir", {d, merge(added, dd, "")});
      setappdata (0, "muon_figure_snapshot", struct ("png", {}, "axes", {}));
      addpath (d);
    case "stop"
      F = getappdata (0, "muon_figure_snapshot");
      d = getappdata (0, "muon_figure_snapshot_dir");
      rmpath (d{1});
      if (! isempty (d{2}))
        rmpath (d{2});
      endif
      confirm_recursive_rmdir (false, "local");
      rmdir (d{1}, "s");
      rmappdata (0, "muon_figure_snapshot");
      rmappdata (0, "muon_figure_snapshot_dir");
    case "record"
      record (h, png);
  endswitch
endfunction

function record (h, png)
  A = struct ("tag", {}, "position", {}, "title", {}, "xlabel", {}, "ylabel", {}, "xtick", {}, "ytick", {},
              "xticklabel", {}, "yticklabel", {}, "lines", {}, "string", {}, "location", {});
  for ax = findall (h, "type", "axes").'
    a.tag = get (ax, "tag");
    a.position = get (ax, "position");
    a.title = get (get (ax, "title"), "string");
    a.xlabel = get (get (ax, "xlabel"), "string");
    a.ylabel = get (get (ax, "ylabel"), "string");
    a.xtick = get (ax, "xtick");
    a.ytick = get (ax, "ytick");
    a.xticklabel = get (ax, "xticklabel");
    a.yticklabel = get (ax, "yticklabel");
    ln = findobj (ax, "type", "line");
    f = {"xdata", "ydata", "linestyle", "marker", "color", "markersize"};
    a.lines = cell2struct (cell (numel (f), 0), f, 1);
    for k = 1:numel (ln)
      a.lines(k) = cell2struct (get (ln(k), f).', f, 1);
    endfor
    if (strcmp (a.tag, "legend"))
      a.string = get (ax, "string");
      a.location = get (ax, "location");
    else
      a.string = {};
      a.location = "";
    endif
    A(end+1) = a;
  endfor
  F = getappdata (0, "muon_figure_snapshot");
  F(end+1) = struct ("png", png, "axes", A);
  setappdata (0, "muon_figure_snapshot", F);
endfunction
