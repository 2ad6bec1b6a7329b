## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_help_examples ()
## Suite (run with @code{test test_help_examples}): every @code{@@example} block in the help
## of inst/ that is Octave code runs as written, each in a fresh workspace inside a scratch
## folder (some write files by a relative name), its output discarded.  A help example that
## no longer runs (a renamed option, a changed result field) fails here, not in a user's
## session.  The blocks that are not Octave code (formulas, a byte table, Python) and the one
## that needs a launcher are listed in @code{not_run} with the reason; the list is checked
## to name real blocks, so it cannot go stale either.  What an example prints is checked
## where a suite states it (test_docs: zero_muon_step's and ns_restart_search's figures).
## @end deftypefn

function test_help_examples ()
  help test_help_examples
endfunction

%!function blocks = help_examples (file)
%!  ## the @example blocks of FILE's help comments, texinfo escapes undone
%!  lines = strsplit (fileread (file), "\n");
%!  blocks = {};
%!  cur = [];
%!  for k = 1:numel (lines)
%!    t = regexprep (lines{k}, '^\s*##', "", "once");
%!    if (strcmp (t, lines{k}))           # not a comment line
%!      continue;
%!    endif
%!    if (! isempty (regexp (t, '^\s*@example\s*$', "once")))
%!      cur = {};
%!    elseif (! isempty (regexp (t, '^\s*@end example\s*$', "once")))
%!      blocks{end+1} = strjoin (cur, "\n");
%!      cur = [];
%!    elseif (iscell (cur))
%!      cur{end+1} = regexprep (t, '^ ', "", "once");
%!    endif
%!  endfor
%!  blocks = strrep (blocks, "@dots{}", "...");
%!  blocks = regexprep (blocks, '@(code|qcode|var)\{([^}]*)\}', "$2");
%!  blocks = regexprep (blocks, '@([{}@])', "$1");
%!endfunction

%!function run_examples (code)
%!  ## CODE (a cellstr) run in this function's own workspace, in a scratch folder
%!  old = pwd ();
%!  d = tempname ();
%!  mkdir (d);
%!  fig = get (0, "defaultfigurevisible");
%!  set (0, "defaultfigurevisible", "off");
%!  unwind_protect
%!    cd (d);
%!    for k = 1:numel (code)
%!      evalc (code{k});
%!    endfor
%!  unwind_protect_cleanup
%!    cd (old);
%!    set (0, "defaultfigurevisible", fig);
%!    close all;
%!    confirm_recursive_rmdir (false, "local");
%!    rmdir (d, "s");
%!  end_unwind_protect
%!endfunction

%!shared inst, not_run, after
%! inst = fullfile (fileparts (which ("muon_ns")));
%! ## name:k (the k-th block of that file) -> why it is not run
%! not_run = struct ("key", {"muon_ns:1", "muon_update:1", "muon_update:2", "ns_flops:1", ...
%!                           "muon_save_state:1", "muon_save_state:2", "muon_mpirun:1"},
%!                   "why", {"the two iterations as formulas", "the momentum forms as formulas", ...
%!                           "every algorithm's step as formulas", "the FLOP counts as formulas", ...
%!                           "the file's byte table", "Python that reads the file", ...
%!                           "a function file and mpirun (tests/mpi/test_mpirun.m runs it)"});
%! ## name:k -> the block it continues (run first, in the same workspace)
%! after = {"zero_load_state:1", "zero_save_state:1"};

%!test
%! ## not_run names real blocks (a renumbering shows here)
%! for i = 1:numel (not_run)
%!   t = regexp (not_run(i).key, '^(\w+):(\d+)$', "tokens", "once");
%!   b = help_examples (fullfile (inst, [t{1} ".m"]));
%!   assert (numel (b) >= str2double (t{2}), "%s: no such block", not_run(i).key);
%! endfor

%!test
%! ## every other block runs
%! files = sort (glob (fullfile (inst, "*.m")));
%! nrun = 0;
%! for i = 1:numel (files)
%!   [~, name] = fileparts (files{i});
%!   b = help_examples (files{i});
%!   for k = 1:numel (b)
%!     key = sprintf ("%s:%d", name, k);
%!     if (any (strcmp (key, {not_run.key})))
%!       continue;
%!     endif
%!     code = b(k);
%!     j = find (strcmp (key, after(:,1)));
%!     if (! isempty (j))
%!       t = regexp (after{j,2}, '^(\w+):(\d+)$', "tokens", "once");
%!       first = help_examples (fullfile (inst, [t{1} ".m"]));
%!       code = [first(str2double (t{2})), code];
%!     endif
%!     try
%!       run_examples (code);
%!     catch err
%!       error ("%s: the help example does not run: %s", key, err.message);
%!     end_try_catch
%!     nrun++;
%!   endfor
%! endfor
%! assert (nrun >= 28);
