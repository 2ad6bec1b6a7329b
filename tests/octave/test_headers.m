## -*- texinfo -*-
## @deftypefn {} {@var{root} =} test_headers ()
## Suite (run with @code{test test_headers}): the repository's packaging checks that need
## the source tree (git and tests/make_dist.sh), so it is not shipped in the tarball.
## make_dist warns about the inst/*.m files INDEX does not list, and only about those it
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
