## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_readme ()
## Suite (run with @code{test test_readme}): every @code{```octave} block of README.md runs
## alone, verbatim, in a fresh octave-cli started in the repository root with muonlab on
## the path (inst/ and the MEX files under test, as after @code{pkg load muonlab}) and a
## private @env{TMPDIR}, and leaves nothing behind (issue 25): no new file or folder in the
## repository root, nothing left in its @code{tempdir}, and none of the file names the
## block mentions new in /tmp.  The multi-process block runs its @code{muon_mpirun} line
## only where mpirun and the MPI build are there (it is left out otherwise); its child has
## no Open MPI variables of this session.
## @end deftypefn

function blocks = test_readme ()
  here = fileparts (mfilename ("fullpath"));
  txt = fileread (fullfile (here, "..", "..", "README.md"));
  blocks = regexp (txt, '```octave\n(.*?)```', "tokens");
  blocks = cellfun (@(c) c{1}, blocks, "UniformOutput", false);
endfunction

%!function names = entries (d)
%!  names = readdir (d);
%!  names = names(! ismember (names, {".", ".."}));
%!endfunction

%!test
%! blocks = test_readme ();
%! assert (numel (blocks) >= 5);
%! root = canonicalize_file_name (fullfile (fileparts (which ("test_readme")), "..", ".."));
%! inst = fullfile (root, "inst");
%! mexdir = fileparts (which ("__muon_ns__"));
%! octave = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%! if (! exist (octave, "file"))
%!   octave = "octave-cli";
%! endif
%! have_mpi = ! isempty (file_in_path (getenv ("PATH"), "mpirun")) && __muon_comm__ ("have_mpi");
%! sq = @(s) ["'" strrep(s, "'", "'\\''") "'"];
%! for i = 1:numel (blocks)
%!   code = blocks{i};
%!   if (! have_mpi)
%!     code = regexprep (code, '^R = muon_mpirun.*?$', "", "lineanchors");
%!   endif
%!   work = tempname ();
%!   tmp = fullfile (work, "tmp");
%!   mkdir (work);
%!   mkdir (tmp);
%!   unwind_protect
%!     script = fullfile (work, "block.m");
%!     fid = fopen (script, "w");
%!     fprintf (fid, "crash_dumps_octave_core (false);\naddpath (%s, %s);\n%s\n",
%!              sq (inst), sq (mexdir), code);
%!     fclose (fid);
%!     before_root = entries (root);
%!     before_tmp = entries ("/tmp");
%!     cmd = sprintf (["cd %s && for v in $(env | sed -n 's/^\\(OMPI_[^=]*\\|PMIX_[^=]*\\)=.*/\\1/p'); " ...
%!                     "do unset $v; done; TMPDIR=%s OMP_NUM_THREADS=1 %s --no-gui --norc " ...
%!                     "--silent --no-history %s 2>&1"], sq (root), sq (tmp), sq (octave),
%!                    sq (script));
%!     [rc, out] = system (cmd);
%!     assert (rc == 0, "exit %d: %s", rc, sprintf ("README block %d failed:\n%s\n--- output:\n%s", i, code, out));
%!     o = regexprep (out, "error: ignoring const execution_exception[^\n]*", "");  # (harmless)
%!     assert (isempty (strfind (o, "error:")), "README block %d printed an error:\n%s", i, out);
%!     new_root = setdiff (entries (root), before_root);
%!     assert (isempty (new_root), "README block %d left %s in the repository root", i,
%!             strjoin (new_root, ", "));
%!     left = entries (tmp);
%!     assert (isempty (left), "README block %d left %s in its tempdir", i, strjoin (left, ", "));
%!     new_tmp = setdiff (entries ("/tmp"), before_tmp);
%!     named = new_tmp(cellfun (@(n) ! isempty (strfind (code, n)), new_tmp));
%!     assert (isempty (named), "README block %d wrote %s into /tmp", i, strjoin (named, ", "));
%!   unwind_protect_cleanup
%!     confirm_recursive_rmdir (false, "local");
%!     rmdir (work, "s");
%!   end_unwind_protect
%! endfor
%! printf ("    %d README blocks ran alone%s\n", numel (blocks),
%!         merge (have_mpi, "", " (the muon_mpirun line left out: no mpirun or no MPI build)"));
