## -*- texinfo -*-
## @deftypefn {} {} test_files ()
## Suite (run with @code{test test_files}): the files muonlab writes (issue 23, items 1
## and 4).
## @itemize
## @item no path text reaches a shell: every path argument of every function that writes a
## file (@code{zero_plot_layout} "File", @code{muon_save_state} FILE,
## @code{zero_save_state} PREFIX, @code{muon_export} FILE as CSV and JSON, the demos'
## @code{demo_print}) is given names holding @code{$(...)}, backticks, @code{;}, @code{|}
## and both quotes, in the file name and in the folder name; the oracle: no file the
## planted commands would create appears, and the file lands at exactly the path given
## with the content written (PNG signature; the checkpoint loads back isequal; the CSV
## and JSON read back by @code{fileread} / @code{jsondecode});
## @item temporary files never follow a link: a link planted at the temporary name the
## writers used before (@file{FILE.part<pid>}) and a link at FILE itself leave their
## target (a victim file) byte-identical; no temporary folder is left behind, also when
## the write fails.
## @end itemize
## @end deftypefn

function test_files ()
  help test_files
endfunction

%!function names = evil_names (ext)
%!  ## each would run `touch pwnN` in the current folder if it reached a shell
%!  names = {["a$(touch pwn1)" ext], ["b`touch pwn2`" ext], ["c;touch pwn3;" ext], ...
%!           ["d|touch pwn4|" ext], ["e'$(touch pwn5)'" ext], ["f\"$(touch pwn6)\"" ext], ...
%!           ["g';touch pwn7;'" ext], ["h\";touch pwn8;\"" ext], ...
%!           fullfile("dir$(touch pwn9)", ["i" ext]), fullfile("dir;touch pwn10;'", ["j" ext])};

%!function d = in_scratch ()
%!  d = tempname ();
%!  mkdir (d);
%!  mkdir (fullfile (d, "dir$(touch pwn9)"));
%!  mkdir (fullfile (d, "dir;touch pwn10;'"));

%!function check_clean (d)
%!  pwned = [glob(fullfile (d, "pwn*")); glob(fullfile (d, "*", "pwn*")); glob("/tmp/pwn*")];
%!  assert (isempty (pwned), "a shell ran: %s", strjoin (pwned(:).', " "));
%!  left = [glob(fullfile (d, ".muonlab-*")); glob(fullfile (d, "*", ".muonlab-*"))];
%!  assert (isempty (left), "left behind: %s", strjoin (left(:).', " "));

%!function b = file_bytes (file)
%!  fid = fopen (file, "r");
%!  b = fread (fid, Inf, "uint8=>uint8").';
%!  fclose (fid);

%!function clean_up (here, d)
%!  cd (here);
%!  confirm_recursive_rmdir (false, "local");
%!  rmdir (d, "s");

%!test
%! ## zero_plot_layout "File": before issue 23 `touch pwn1` ran (print pipes through a shell)
%! here = pwd ();
%! d = in_scratch ();
%! unwind_protect
%!   cd (d);
%!   L = zero_layout ({[3 4], [2 5]}, 2);
%!   for f = evil_names (".png")
%!     zero_plot_layout (L, "File", f{1});
%!     b = file_bytes (f{1});
%!     assert (isequal (b(1:8), uint8 ([137 80 78 71 13 10 26 10])), f{1});
%!     check_clean (d);
%!   endfor
%!   assert (numel (glob ("*.png")), 8);
%! unwind_protect_cleanup
%!   clean_up (here, d);
%! end_unwind_protect

%!test
%! ## the demos' print helper, with a folder and file name full of shell syntax
%! here = pwd ();
%! d = in_scratch ();
%! demos = muonlab_demo ("folder");     # demo/ in a checkout, demos/ once installed
%! unwind_protect
%!   addpath (demos);
%!   cd (d);
%!   h = figure ("visible", "off");
%!   plot (1:3);
%!   for f = evil_names (".png")([1 4 6 9])
%!     demo_print (h, fullfile (d, f{1}), "-r50");
%!     b = file_bytes (f{1});
%!     assert (isequal (b(1:4), uint8 ([137 80 78 71])), f{1});
%!     check_clean (d);
%!   endfor
%!   close (h);
%! unwind_protect_cleanup
%!   rmpath (demos);
%!   clean_up (here, d);
%! end_unwind_protect

%!test
%! ## checkpoints, shards and exports under the same names: written where asked, exactly
%! here = pwd ();
%! d = in_scratch ();
%! unwind_protect
%!   cd (d);
%!   P = struct ("W", reshape (sin (1:32), 4, 8));
%!   opt = muon_optimizer (P);
%!   L = zero_layout ({[4 4], [2 4]}, 2);
%!   g = {ones(4), ones(2, 4); 2*ones(4), 3*ones(2, 4)};
%!   [~, s] = zero_muon_step (L, g, []);
%!   T = struct ("a", [1; 2], "b", {{"x"; "y,z"}});
%!   for f = evil_names ("")
%!     muon_save_state ([f{1} ".ckpt"], opt);
%!     assert (isequal (muon_load_state ([f{1} ".ckpt"], P), opt), f{1});
%!     files = zero_save_state (f{1}, L, s);
%!     assert (files, {[f{1} ".rank0.ckpt"], [f{1} ".rank1.ckpt"]});
%!     assert (isequal (zero_load_state (f{1}, L), s), f{1});
%!     muon_export (T, [f{1} ".csv"]);
%!     assert (fileread ([f{1} ".csv"]), sprintf ("a,b\n1,x\n2,\"y,z\"\n"));
%!     muon_export (T, [f{1} ".json"]);
%!     assert (jsondecode (fileread ([f{1} ".json"])), struct ("a", {1; 2}, "b", {"x"; "y,z"}));
%!     check_clean (d);
%!   endfor
%! unwind_protect_cleanup
%!   clean_up (here, d);
%! end_unwind_protect

%!test
%! ## links planted at the old temporary name and at the target never write their target
%! here = pwd ();
%! d = in_scratch ();
%! unwind_protect
%!   cd (d);
%!   victim = fullfile (d, "victim");
%!   fid = fopen (victim, "w"); fputs (fid, "precious"); fclose (fid);
%!   opt = muon_optimizer (struct ("W", ones (4, 8)));
%!   L = zero_layout ({[4 4]}, 1);
%!   [~, s] = zero_muon_step (L, {ones(4)}, []);
%!   for f = {"s.ckpt", "z.rank0.ckpt", "t.csv", "t.json"}
%!     symlink (victim, sprintf ("%s.part%d", f{1}, getpid ()));
%!   endfor
%!   symlink (victim, "u.csv");
%!   symlink (victim, "u.json");
%!   symlink (victim, "u.ckpt");
%!   muon_save_state ("s.ckpt", opt);
%!   muon_save_state ("u.ckpt", opt);
%!   zero_save_state ("z", L, s);
%!   muon_export (struct ("a", 1), "t.csv");
%!   muon_export (struct ("a", 1), "t.json");
%!   muon_export (struct ("a", 1), "u.csv");
%!   muon_export (struct ("a", 1), "u.json");
%!   assert (fileread (victim), "precious");
%!   for f = {"u.csv", "u.json", "u.ckpt"}
%!     [~, err, msg] = lstat (f{1});
%!     assert (err == 0 && ! S_ISLNK (lstat (f{1}).mode), f{1});
%!   endfor
%!   assert (fileread ("u.csv"), sprintf ("a\n1\n"));
%!   ## a failed write leaves nothing behind (and the old file whole)
%!   try
%!     muon_export (struct ("a", {{@sin}}), "u.json");
%!   catch
%!   end_try_catch
%!   assert (jsondecode (fileread ("u.json")), struct ("a", 1));
%!   check_clean (d);
%! unwind_protect_cleanup
%!   clean_up (here, d);
%! end_unwind_protect
