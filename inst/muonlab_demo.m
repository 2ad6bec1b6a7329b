## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {} muonlab_demo ()
## @deftypefnx {muonlab} {@var{names} =} muonlab_demo ()
## @deftypefnx {muonlab} {[@dots{}] =} muonlab_demo (@var{name}, @dots{})
## @deftypefnx {muonlab} {@var{folder} =} muonlab_demo ("folder")
## @deftypefnx {muonlab} {@var{folder} =} muonlab_demo ("output")
## Run one of muonlab's research demos, in the source tree as after @code{pkg install}.
##
## Without arguments it lists the demos, a line each (name, time, what it shows: the time
## the demo's help states, on a 2-core machine, and the first line of its help), or
## returns their names as a cellstr.  @code{muonlab_demo (@var{name}, @dots{})} runs the
## demo @var{name} with the arguments that follow (every demo takes
## @qcode{"Display"}, @qcode{"off"} | @qcode{"final"} | @qcode{"iter"}) and returns its
## outputs.  The errors of the demo itself, its option errors included, start with the
## demo's name, as when it is called directly (@qcode{"zero3_pads: unknown option
## 'Bogus'. @dots{}"}); those of @code{muonlab_demo}'s own arguments with
## @qcode{"muonlab_demo: "}; @code{help} of the demo's name, after @code{muonlab_demo ("folder")} is on the
## path, or the list, say what each does.  @code{muonlab_demo ("folder")} returns the folder
## that holds them: demo/ in a checkout, the package's demos/ folder once installed.
##
## The demos write their PNG (and CSV) files to demo/output/ in a checkout and to
## @code{fullfile (tempdir, sprintf ("muonlab_demo-%d", getuid ()))} once installed, one
## folder per user, readable by its owner only (@code{muonlab_demo ("output")} says which;
## the folder is made when missing); each prints the files it wrote.  The demo
## folder is put on the path for the call only.
##
## @example
## muonlab_demo                                   # the list
## T = muonlab_demo ("zero3_pads", "Display", "off");   # the rows, no printing
## muonlab_demo ("ns_turbo_muon", 1, [128 512])   # one seed of a small shape: a second
## @end example
## @seealso{muon_ns, zero_muon_step, zero_cost}
## @end deftypefn

function varargout = muonlab_demo (name, varargin)
  fname = "muonlab_demo";
  dir = demo_folder (fname);
  if (nargin > 0)
    if (! (ischar (name) && isrow (name)))
      error ("muonlab:badArg", "%s: NAME must be a demo name (a string).", fname);
    elseif (any (strcmp (name, {"folder", "output"})))
      if (nargin > 1)
        error ("muonlab:badArg", "%s: \"%s\" takes no other arguments.", fname, name);
      elseif (nargout > 1)
        error ("muonlab:badArg", "%s: \"%s\" has one output, the folder.", fname, name);
      elseif (strcmp (name, "folder"))
        varargout{1} = dir;
      else
        varargout{1} = output_folder (dir);
      endif
      return;
    elseif (strcmp (name, "options") && nargin == 3)   # internal, for demo_options.m:
      varargout{1} = parse_options (varargin{1}, "demo", varargin{2});   # a demo's options
      return;
    endif
  endif
  names = demo_names (dir);
  if (nargin == 0)
    if (nargout > 1)
      error ("muonlab:badArg", "%s: the list has one output, the names.", fname);
    elseif (nargout > 0)
      varargout{1} = names;
    else
      printf ("muonlab demos (muonlab_demo (NAME), help in the demo folder %s):\n", dir);
      for k = 1:numel (names)
        [s, t] = summary_line (fullfile (dir, [names{k} ".m"]));
        printf ("  %-22s %-6s %s\n", names{k}, t, s);
      endfor
    endif
    return;
  endif
  name = choose_option (fname, "NAME", name, names);
  ## (the path holds the working folder as ".": run from demo/, the demos are on it already)
  on_path = any (strcmp (canonical_entries (strsplit (path (), pathsep ())), dir));
  if (! on_path)
    addpath (dir);
  endif
  unwind_protect
    ## (more outputs than a demo has are refused before it runs, "NAME: function called
    ## with too many outputs": by Octave, or by demo_run for the varargout ones)
    if (nargout > 0)
      [varargout{1:nargout}] = feval (name, varargin{:});
    else
      feval (name, varargin{:});       # ([varargout{1:0}] = ... would still give an "ans")
    endif
  unwind_protect_cleanup
    if (! on_path)
      rmpath (dir);
    endif
  end_unwind_protect
endfunction

## The folders of path entries P as canonical names ("." the working folder's; an entry
## that does not exist as it is).
function p = canonical_entries (p)
  for k = 1:numel (p)
    [c, ok] = canonicalize_file_name (p{k});
    if (ok == 0)
      p{k} = c;
    endif
  endfor
endfunction

## demo/ beside inst/ in a checkout; demos/ inside the installed package (tests/make_dist.sh)
function dir = demo_folder (fname)
  here = fileparts (mfilename ("fullpath"));
  for d = {fullfile(here, "demos"), fullfile(fileparts (here), "demo")}
    if (isfolder (d{1}))
      dir = canonicalize_file_name (d{1});
      return;
    endif
  endfor
  error ("muonlab:notBuilt", "%s: no demo folder beside %s (demos/ or ../demo/).", fname, here);
endfunction

## demo/output/ in a checkout (demo/ beside inst/), else tempdir's muonlab_demo-UID/: one
## per user (a shared one would be the first user's, unwritable for the others), made
## readable by its owner only
function out = output_folder (dir)
  [up, base] = fileparts (dir);
  installed = ! (strcmp (base, "demo") && isfolder (fullfile (up, "inst")));
  if (installed)
    out = fullfile (tempdir (), sprintf ("muonlab_demo-%d", getuid ()));
  else
    out = fullfile (dir, "output");
  endif
  if (! isfolder (out))
    if (installed)
      old = umask (77);                 # 0700 (umask reads its digits as octal)
    endif
    [ok, msg] = mkdir (out);
    if (installed)
      umask (old);
    endif
    if (! ok)
      error ("muonlab:badArg", "muonlab_demo: cannot make the output folder %s: %s.", out, msg);
    endif
  endif
  [st, err] = lstat (out);              # (a folder planted by another user is not ours)
  if (installed && (err != 0 || S_ISLNK (st.mode) || st.uid != getuid ()))
    error ("muonlab:badArg", "muonlab_demo: the output folder %s is not this user's own.", out);
  endif
endfunction

## the files of DIR whose help is a "muonlab demo" (the helpers demo_*.m are not)
function names = demo_names (dir)
  f = glob (fullfile (dir, "*.m"));
  names = {};
  for k = 1:numel (f)
    txt = fileread (f{k});
    if (! isempty (strfind (txt(1:min (end, 2000)), "{muonlab demo}")))
      [~, names{end+1}] = fileparts (f{k});
    endif
  endfor
  names = sort (names);
endfunction

## the first line of a demo's help text, as plain text, and its time (its help's "About
## N s." sentence, the one list of the demos' times)
function [s, t] = summary_line (file)
  txt = fileread (file);
  t = regexp (txt, '\<About (\d+(-\d+)? s)\>', "tokens", "once");
  if (isempty (t))
    t = "?";
  else
    t = t{1};
  endif
  lines = regexp (txt, '^## (?!@|-\*-|Copyright|SPDX)(.*)$', "tokens", "lineanchors");
  s = "";
  if (! isempty (lines))
    s = lines{1}{1};
  endif
  s = texinfo_plain (s);
  if (numel (s) > 70)
    s = [s(1:67) "..."];
  endif
endfunction

## TXT without its Texinfo: @dots{} as "...", @NAME{X} as X (inner ones first), @@, @{, @}
function s = texinfo_plain (s)
  s = strrep (s, "@dots{}", "...");
  do
    t = s;
    s = regexprep (s, '@[a-zA-Z]+\{([^{}@]*)\}', "$1");
  until (strcmp (s, t))
  s = regexprep (s, '@([@{}])', "$1");
endfunction

%!test
%! ## the list: every demo of the folder, none of the helpers
%! n = muonlab_demo ();
%! assert (iscellstr (n) && numel (n) >= 10);
%! assert (all (ismember ({"plan_at_scale", "zero2_muon_correctness", "train_mlp"}, n)));
%! assert (! any (strncmp (n, "demo_", 5)));
%! txt = evalc ("muonlab_demo ()");
%! assert (numel (strfind (txt, "\n")), numel (n) + 1);
%! ## plain text: no Texinfo left (muon_family's first line has @qcode, zero2_experiment's @var)
%! assert (isempty (strfind (txt, "@")), "Texinfo left in the list:\n%s", txt);
%! ## each line: name, the time of the demo's help, what it shows
%! for k = 1:numel (n)
%!   t = regexp (fileread (which (fullfile (muonlab_demo ("folder"), [n{k} ".m"]))),
%!               'About (\d+(-\d+)? s)', "tokens", "once");
%!   assert (! isempty (t), "%s: its help states no time", n{k});
%!   assert (! isempty (regexp (txt, ['^  ' n{k} ' +' t{1} ' +\S'], "once", "lineanchors")),
%!           "%s: no time %s in the list", n{k}, t{1});
%! endfor
%! assert (! isempty (regexp (txt, '^  muon_family +8 s +The Muon family of 2026 \(NorMuon, AdaMuon, Dion, \.\.\.\) on one small \.\.\.$', "once", "lineanchors")));

%!test
%! ## a demo runs through it, returns its outputs, and its folder leaves the path again
%! d = muonlab_demo ("folder");
%! on = @() any (strcmp (strsplit (path (), pathsep ()), d));
%! was = on ();
%! T = muonlab_demo ("zero3_pads", "Display", "off");
%! assert (isstruct (T) && numel (T) >= 7);
%! assert (on (), was);                  # the demo folder on the path for the call only

%!test
%! ## run from the demo folder (the path holds it as "."): no rmpath warning, path unchanged
%! d = muonlab_demo ("folder");
%! here = pwd ();
%! p0 = path ();
%! unwind_protect
%!   cd (d);
%!   lastwarn ("");
%!   T = muonlab_demo ("zero3_pads", "Display", "off");
%!   assert (lastwarn (), "");
%!   assert (path (), p0);
%! unwind_protect_cleanup
%!   cd (here);
%! end_unwind_protect

%!demo
%! muonlab_demo ()

%!error <muonlab_demo: NAME must be a demo name \(a string\).> muonlab_demo (1)
%!error <muonlab_demo: NAME must be 'moe_expert_parallel', 'mpi_zero2', 'muon_family', 'ns_design_lab', 'ns_precision_sweep', 'ns_turbo_muon', 'plan_at_scale', 'train_mlp', 'zero2_experiment', 'zero2_muon_correctness' or 'zero3_pads'; did you mean 'plan_at_scale'\?> muonlab_demo ("plan_at_scal")
%!error <^muonlab_demo: NAME must be .*\.$> muonlab_demo ("options")
%!error id=muonlab:badArg muonlab_demo ("options")
%!error <^muonlab_demo: NAME must be .*\.$> muonlab_demo ("options", "x")
%!error id=muonlab:badArg muonlab_demo ("options", "x")

## its own forms take nothing more and have one output (the extra arguments were ignored, a
## second output gave Octave's "element number 2 undefined in return list")
%!error <^muonlab_demo: "folder" takes no other arguments\.$> muonlab_demo ("folder", 1)
%!error id=muonlab:badArg muonlab_demo ("folder", 1)
%!error <^muonlab_demo: "output" takes no other arguments\.$> muonlab_demo ("output", "x", "y")
%!error <^muonlab_demo: "folder" has one output, the folder\.$> [a, b] = muonlab_demo ("folder")
%!error <^muonlab_demo: "output" has one output, the folder\.$> [a, b] = muonlab_demo ("output")
%!error <^muonlab_demo: the list has one output, the names\.$> [a, b] = muonlab_demo ()
%!error id=muonlab:badArg [a, b] = muonlab_demo ()

%!error <^zero3_pads: unknown option 'Bogus'\. Options: Display\.$> muonlab_demo ("zero3_pads", "Bogus", 1)
%!error <^zero3_pads: DISPLAY must be 'off', 'final' or 'iter'\.$> muonlab_demo ("zero3_pads", "Display", "loud")

## zero2_experiment (WORLD) checks WORLD and COMM before it draws the gradients (without
## COMM it failed after them on an undefined variable; WORLD 2.5 gave zero_layout's error)
%!error <^zero2_experiment: WORLD needs COMM \("sim" or muon_comm \("mpi"\)\)\.$> muonlab_demo ("zero2_experiment", 2)
%!error id=muonlab:badArg muonlab_demo ("zero2_experiment", 2)
%!error <^zero2_experiment: WORLD must be an integer of at least 2\.$> muonlab_demo ("zero2_experiment", 2.5, "sim")
%!error <^zero2_experiment: WORLD must be an integer of at least 2\.$> muonlab_demo ("zero2_experiment", 1, "sim")
%!error <^zero2_experiment: WORLD must be an integer of at least 2\.$> muonlab_demo ("zero2_experiment", [2 4], "sim")
%!error <^zero2_experiment: COMM must be "sim" or muon_comm \("mpi"\)'s communicator\.$> muonlab_demo ("zero2_experiment", 2, "Display", "off")
%!test
%! randn ("state", 7);
%! s = randn ("state");
%! try
%!   muonlab_demo ("zero2_experiment", 2);
%! catch err
%!   assert (err.identifier, "muonlab:badArg");
%! end_try_catch
%! assert (randn ("state"), s);            # refused before the gradients are drawn

%!test
%! ## more outputs than a demo has: refused before it runs, with the demo's name (zero3_pads
%! ## said "run: function called with too many outputs", ns_precision_sweep ran 1.7 s and
%! ## then said "some elements undefined in return list")
%! for nm = muonlab_demo ()
%!   t0 = tic ();
%!   try
%!     [a, b] = muonlab_demo (nm{1}, "Display", "off");
%!     error ("%s: two outputs given", nm{1});
%!   catch err
%!     assert (err.message, [nm{1} ": function called with too many outputs"]);
%!   end_try_catch
%!   assert (toc (t0) < 1, "%s ran before it refused", nm{1});
%! endfor
%! d = muonlab_demo ("folder");
%! addpath (d);
%! unwind_protect
%!   try                                   # called itself, the same
%!     [a, b] = ns_precision_sweep ("Display", "off");
%!     error ("two outputs given");
%!   catch err
%!     assert (err.message, "ns_precision_sweep: function called with too many outputs");
%!   end_try_catch
%!   ## one output, the rows; and [~, T] = evalc (...) gets them (with a declared output,
%!   ## function T = ..., Octave 7 loses it: "element number 2 undefined")
%!   [~, T] = evalc ('zero3_pads ("Display", "off")');
%!   assert (isstruct (T) && numel (T) >= 7);
%! unwind_protect_cleanup
%!   rmpath (d);
%! end_unwind_protect
