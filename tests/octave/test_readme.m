## -*- texinfo -*-
## @deftypefn {} {} test_readme ()
## Suite (run with @code{test test_readme}): every @code{```octave} block of README.md runs
## verbatim, in the order written, in one workspace, in a scratch folder that holds links
## to inst/ and build/mex (so the tour's @code{addpath ("inst", "build/mex")} works and the
## files it writes land there).  The multi-process block needs a function file
## @file{my_rank.m}, whose body its comment lines spell out: the suite writes it from them
## and runs the block without its @code{muon_mpirun} line (an mpirun started from inside a
## test session of MPI-linked MEX files fails in Open MPI's launcher; tests/mpi/test_mpirun.m
## runs @code{muon_mpirun} from a plain Octave).
## @end deftypefn

function blocks = test_readme ()
  here = fileparts (mfilename ("fullpath"));
  txt = fileread (fullfile (here, "..", "..", "README.md"));
  blocks = regexp (txt, '```octave\n(.*?)```', "tokens");
  blocks = cellfun (@(c) c{1}, blocks, "UniformOutput", false);
endfunction

## Runs the blocks in the current folder, one workspace (this function's), and says which
## block failed.
%!function run_blocks (blocks, mpi)
%!  for i = 1:numel (blocks)
%!    code = blocks{i};
%!    if (! isempty (strfind (code, "my_rank.m")))
%!      ## the function file the block's comment describes
%!      lines = regexp (code, '^%[^:\n]*:?\s*(.*)$', "tokens", "lineanchors");
%!      body = cellfun (@(c) c{1}, lines, "UniformOutput", false);
%!      fid = fopen ("my_rank.m", "w");
%!      fprintf (fid, "%s\n", body{:});
%!      fprintf (fid, "endfunction\n");
%!      fclose (fid);
%!      if (! mpi)
%!        code = regexprep (code, '^R = muon_mpirun.*?$', "", "lineanchors");
%!      endif
%!    endif
%!    try
%!      evalc (code);
%!    catch err
%!      error ("README block %d failed: %s\n%s", i, err.message, code);
%!    end_try_catch
%!  endfor

%!test
%! blocks = test_readme ();
%! assert (numel (blocks) >= 5);
%! root = fullfile (fileparts (which ("test_readme")), "..", "..");
%! mexdir = fileparts (which ("__muon_ns__"));
%! tmp = tempname ();
%! mkdir (tmp);
%! mkdir (fullfile (tmp, "build"));
%! here = pwd ();
%! p = path ();
%! unwind_protect
%!   symlink (canonicalize_file_name (fullfile (root, "inst")), fullfile (tmp, "inst"));
%!   symlink (mexdir, fullfile (tmp, "build", "mex"));
%!   cd (tmp);
%!   addpath (tmp);
%!   run_blocks (blocks, false);
%!   printf ("    %d README blocks ran (the muon_mpirun line left out)\n", numel (blocks));
%! unwind_protect_cleanup
%!   cd (here);
%!   path (p);
%!   close all;
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (tmp, "s");
%! end_unwind_protect
