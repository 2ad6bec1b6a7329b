## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{root} =} test_headers ()
## Suite (run with @code{test test_headers}): the repository's packaging checks that need
## the source tree (git and tests/make_dist.sh), so it is not shipped in the tarball.
## Every tracked source file (.m .c .h .cu .cc .sh .py, the Makefile) has the lines
## @samp{Copyright (C) 2026 muonlab developers} and
## @samp{SPDX-License-Identifier: GPL-3.0-or-later} in its first 15 lines (COPYING's holder),
## a shell or Python file with a @samp{#!} line keeps it first, and the help of a
## function file is still its texinfo block (Octave skips a first comment block that starts
## with Copyright).  make_dist warns about the inst/*.m files INDEX does not list, and only about those it
## ships (the tracked ones): an untracked inst/scratch.m is neither shipped nor warned
## about.  Returns the repository root.
## @end deftypefn

function root = test_headers ()
  root = canonicalize_file_name (fullfile (fileparts (mfilename ("fullpath")), "..", ".."));
endfunction

%!test
%! ## a clone of this checkout with this tree's make_dist.sh, one new inst/*.m file staged
%! ## (tracked: shipped, so warned about) and one left untracked (neither)
%! root = test_headers ();
%! [st, ~] = system (sprintf ("git -C '%s' rev-parse --is-inside-work-tree 2>/dev/null", root));
%! if (st != 0)
%!   return;                               # an exported tree: nothing is untracked
%! endif
%! tmp = tempname ();
%! unwind_protect
%!   [st, out] = system (sprintf ("git clone -q --shared '%s' '%s' 2>&1", root, tmp));
%!   assert (st, 0, out);
%!   copyfile (fullfile (root, "tests", "make_dist.sh"), fullfile (tmp, "tests"));
%!   for f = {"zz_staged_fn", "zz_untracked_fn"}
%!     fid = fopen (fullfile (tmp, "inst", [f{1} ".m"]), "w");
%!     fprintf (fid, "function %s ()\nendfunction\n", f{1});
%!     fclose (fid);
%!   endfor
%!   [st, out] = system (sprintf ("git -C '%s' add inst/zz_staged_fn.m 2>&1", tmp));
%!   assert (st, 0, out);
%!   [st, out] = system (sprintf ("cd '%s' && bash tests/make_dist.sh 2>&1 >/dev/null", tmp));
%!   assert (st, 0, out);
%!   assert (! isempty (strfind (out, ...
%!     "make_dist: warning: inst/zz_staged_fn.m is not listed in INDEX")), out);
%!   assert (isempty (strfind (out, "zz_untracked_fn")), out);
%!   [st, list] = system (sprintf ("cd '%s' && tar tzf muonlab-*.tar.gz", tmp));
%!   assert (st, 0);
%!   assert (! isempty (strfind (list, "/inst/zz_staged_fn.m")));
%!   assert (isempty (strfind (list, "zz_untracked_fn")));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   if (exist (tmp, "dir"))
%!     rmdir (tmp, "s");
%!   endif
%! end_unwind_protect

%!test
%! ## every tracked source file has the two header lines in its first 15 lines
%! root = test_headers ();
%! [st, out] = system (sprintf ("git -C '%s' -c core.quotePath=false ls-files 2>/dev/null", root));
%! if (st != 0)
%!   return;                               # an exported tree: no list of tracked files
%! endif
%! files = strsplit (strtrim (out), "\n");
%! files = files(! cellfun (@isempty, regexp (files, '\.(m|c|h|cu|cc|sh|py)$|(^|/)Makefile', "once")));
%! assert (numel (files) > 400);           # 526 when this test was written
%! bad = {};
%! for k = 1:numel (files)
%!   txt = fileread (fullfile (root, files{k}));
%!   lines = strsplit (txt, "\n");
%!   top = strjoin (lines(1:min (15, end)), "\n");
%!   if (isempty (strfind (top, "Copyright (C) 2026 muonlab developers"))
%!       || isempty (strfind (top, "SPDX-License-Identifier: GPL-3.0-or-later"))
%!       || ! isempty (strfind (txt, ["muonlab" " authors"]))
%!       || any (strncmp (lines(2:min (15, end)), "#!", 2)))   # a #! line stays first
%!     bad{end+1} = files{k};
%!   endif
%! endfor
%! if (! isempty (bad))
%!   error ("test_headers: no or another header in %s", strjoin (bad, " "));
%! endif

%!test
%! ## the help of a function file behind the header is its texinfo block, not the header
%! root = test_headers ();
%! for f = {fullfile(root, "inst", "muon_ns.m"), fullfile(root, "inst", "private", "check_matrix.m"), ...
%!          fullfile(root, "tests", "octave", "ns_fixture.m"), ...
%!          fullfile(root, "tests", "octave", "test_headers.m")}
%!   [txt, fmt] = get_help_text (f{1});
%!   [~, name] = fileparts (f{1});
%!   assert (fmt, "texinfo");                 # (a plain-text header would be the help)
%!   assert (! isempty (regexp (txt, '^\s*@deftypefn', "once")), txt);
%!   assert (! isempty (strfind (txt, [name " ("])), txt);
%! endfor
