## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

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
## the write fails;
## @item a full disk (a small tmpfs, mounted where the test may: root; else skipped with a
## note) makes every writer fail with its @qcode{"cannot write"} error and leaves the
## previous files whole (@code{zero_save_state}, @code{muon_save_state}, @code{muon_export}
## CSV and JSON), though @code{fwrite} and @code{fclose} report success there; a full
## @env{TMPDIR} makes @code{zero_plot_layout} "File" fail with no file and no figure left;
## an empty or cut PNG from the printer (a stand-in @code{print}) is refused, a complete
## one written; checkpoints save and load with a full or missing @env{TMPDIR}.
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

%!function [ok, D] = small_disk (kb)
%!  ## a tmpfs of KB KiB mounted at a new folder D; ok false, with a note, where mount
%!  ## cannot (not root, no CAP_SYS_ADMIN): the caller then skips
%!  D = tempname ();
%!  mkdir (D);
%!  [st, out] = system (sprintf ("mount -t tmpfs -o size=%dk tmpfs '%s' 2>&1", kb, D));
%!  ok = st == 0;
%!  if (! ok)
%!    rmdir (D);
%!    printf ("test_files: full-disk case skipped (cannot mount a tmpfs: %s)\n",
%!            strtrim (out));
%!  endif

%!function fill_disk (D)
%!  [~] = system (sprintf ("dd if=/dev/zero of='%s/filler' bs=1k count=4096 2>/dev/null",
%!                         D));
%!  assert (statvfs_free (D), 0);

%!function n = statvfs_free (D)
%!  [~, out] = system (sprintf ("df -k --output=avail '%s' | tail -1", D));
%!  n = str2double (out);

%!function drop_disk (D)
%!  [~] = system (sprintf ("umount '%s'", D));
%!  [~] = rmdir (D);

%!function check_full_err (err, file)
%!  assert (err.identifier, "muonlab:badArg");
%!  assert (regexp (err.message, ["^\\w+: cannot write '" regexptranslate("escape", file) ...
%!                 "': (short write|the disk is full or the file was cut short .*)\\.$"],
%!                 "once"), 1, err.message);

%!test
%! ## a full disk: fwrite and fclose say every byte went out (stdio buffer); the writes
%! ## must fail, leave the previous files whole and loadable, and no temporary folders
%! [ok, D] = small_disk (64);
%! if (ok)
%!   unwind_protect
%!     P = struct ("W", reshape (sin (1:32), 4, 8));
%!     opt = muon_optimizer (P);
%!     L = zero_layout ({[4 4], [2 4]}, 2);
%!     g = {ones(4), ones(2, 4); 2*ones(4), 3*ones(2, 4)};
%!     [~, s] = zero_muon_step (L, g, []);
%!     [~, s2] = zero_muon_step (L, g, s);
%!     T = struct ("a", (1:5000).');
%!     z = fullfile (D, "z");
%!     muon_export (struct ("a", 1), fullfile (D, "t.json"));
%!     muon_export (struct ("a", [1; 2]), fullfile (D, "t.csv"));
%!     zero_save_state (z, L, s);
%!     muon_save_state (fullfile (D, "s.ckpt"), opt);
%!     fill_disk (D);
%!     try
%!       zero_save_state (z, L, s2);
%!       error ("zero_save_state wrote on a full disk");
%!     catch err
%!       check_full_err (err, [z ".rank0.ckpt"]);
%!     end_try_catch
%!     assert (isequal (zero_load_state (z, L), s));   # the previous checkpoint, whole
%!     try
%!       muon_save_state (fullfile (D, "s.ckpt"), setfield (opt, "step", 7));
%!       error ("muon_save_state wrote on a full disk");
%!     catch err
%!       check_full_err (err, fullfile (D, "s.ckpt"));
%!     end_try_catch
%!     assert (isequal (muon_load_state (fullfile (D, "s.ckpt"), P), opt));
%!     try
%!       muon_export (struct ("b", 2), fullfile (D, "t.json"));
%!       error ("muon_export wrote a JSON on a full disk");
%!     catch err
%!       check_full_err (err, fullfile (D, "t.json"));
%!     end_try_catch
%!     assert (jsondecode (fileread (fullfile (D, "t.json"))), struct ("a", 1));
%!     try
%!       muon_export (T, fullfile (D, "t.csv"));
%!       error ("muon_export wrote a CSV on a full disk");
%!     catch err
%!       check_full_err (err, fullfile (D, "t.csv"));
%!     end_try_catch
%!     assert (fileread (fullfile (D, "t.csv")), sprintf ("a\n1\n2\n"));
%!     assert (isempty (glob (fullfile (D, ".muonlab-*"))));
%!   unwind_protect_cleanup
%!     drop_disk (D);
%!   end_unwind_protect
%! endif

%!test
%! ## a full TMPDIR: the printed PNG cannot be whole (Ghostscript fails, print returns);
%! ## no file, no figure left; checkpoints neither need it to save nor to load
%! [ok, D] = small_disk (64);
%! if (ok)
%!   old = getenv ("TMPDIR");
%!   d = tempname ();
%!   mkdir (d);
%!   nfig = numel (get (0, "children"));
%!   unwind_protect
%!     fill_disk (D);
%!     setenv ("TMPDIR", D);
%!     f = fullfile (d, "l.png");
%!     L = zero_layout ({[3 4], [2 5]}, 2);
%!     try
%!       zero_plot_layout (L, "File", f);
%!       error ("zero_plot_layout printed with a full TMPDIR");
%!     catch err
%!       assert (err.identifier, "muonlab:badArg");
%!       assert (regexp (err.message, "^zero_plot_layout: cannot print the figure: ",
%!                       "once"), 1, err.message);
%!     end_try_catch
%!     assert (! exist (f, "file"));
%!     assert (numel (get (0, "children")), nfig);
%!     P = struct ("W", reshape (sin (1:32), 4, 8));
%!     opt = muon_optimizer (P);
%!     muon_save_state (fullfile (d, "s.ckpt"), opt);
%!     assert (isequal (muon_load_state (fullfile (d, "s.ckpt"), P), opt));
%!     Lz = zero_layout ({[4 4]}, 2);
%!     [~, s] = zero_muon_step (Lz, {ones(4); 2*ones(4)}, []);
%!     zero_save_state (fullfile (d, "z"), Lz, s);
%!     assert (isequal (zero_load_state (fullfile (d, "z"), Lz), s));
%!     assert (isempty (glob (fullfile ({D, d}, ".muonlab-*"))));
%!   unwind_protect_cleanup
%!     setenv ("TMPDIR", old);
%!     drop_disk (D);
%!     confirm_recursive_rmdir (false, "local");
%!     rmdir (d, "s");
%!   end_unwind_protect
%! endif

%!test
%! ## the printer's output is checked: an empty file or a PNG cut before its IEND chunk
%! ## (what gnuplot/Ghostscript leave when they fail) is an error, nothing is written and
%! ## the figure is closed; a complete PNG goes through
%! d = tempname ();
%! mkdir (d);
%! fake = fullfile (d, "fake");
%! mkdir (fake);
%! fid = fopen (fullfile (fake, "print.m"), "w");
%! fputs (fid, ["function print (varargin)\n" ...
%!              "  src = fullfile (fileparts (mfilename (\"fullpath\")), \"png\");\n" ...
%!              "  fid = fopen (src, \"r\");\n" ...
%!              "  b = fread (fid, Inf, \"uint8=>uint8\");\n" ...
%!              "  fclose (fid);\n" ...
%!              "  fid = fopen (varargin{end}, \"w\"); fwrite (fid, b); fclose (fid);\n" ...
%!              "endfunction\n"]);
%! fclose (fid);
%! sig = uint8 ([137 80 78 71 13 10 26 10]);
%! ihdr = uint8 ([0 0 0 13 73 72 68 82 0 0 0 1 0 0 0 1 8 0 0 0 0 58 126 155 85]);
%! iend = uint8 ([0 0 0 0 73 69 78 68 174 66 96 130]);
%! nfig = numel (get (0, "children"));
%! L = zero_layout ({[3 4], [2 5]}, 2);
%! warning ("off", "Octave:shadowed-function", "local");
%! unwind_protect
%!   addpath (fake);
%!   f = fullfile (d, "l.png");
%!   for b = {uint8([]), sig, [sig ihdr], [sig ihdr iend(1:8)]}
%!     fid = fopen (fullfile (fake, "png"), "w"); fwrite (fid, b{1}); fclose (fid);
%!     try
%!       zero_plot_layout (L, "File", f);
%!       error ("zero_plot_layout took a bad PNG of %d bytes", numel (b{1}));
%!     catch err
%!       assert (err.identifier, "muonlab:badArg");
%!       assert (regexp (err.message, ["^zero_plot_layout: cannot print the figure: the " ...
%!                                     "printer gave (an empty file|no complete PNG) "],
%!                       "once"), 1, err.message);
%!     end_try_catch
%!     assert (! exist (f, "file"));
%!     assert (numel (get (0, "children")), nfig);
%!   endfor
%!   fid = fopen (fullfile (fake, "png"), "w"); fwrite (fid, [sig ihdr iend]); fclose (fid);
%!   zero_plot_layout (L, "File", f);
%!   assert (file_bytes (f), [sig ihdr iend]);
%!   assert (numel (get (0, "children")), nfig);
%! unwind_protect_cleanup
%!   rmpath (fake);
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## checkpoints do not need TMPDIR: a missing one neither stops a save nor a load
%! old = getenv ("TMPDIR");
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   setenv ("TMPDIR", "/nonexistent_muonlab_tmp");
%!   P = struct ("W", reshape (sin (1:32), 4, 8));
%!   opt = muon_optimizer (P);
%!   muon_save_state (fullfile (d, "s.ckpt"), opt);
%!   assert (isequal (muon_load_state (fullfile (d, "s.ckpt"), P), opt));
%!   L = zero_layout ({[4 4]}, 2);
%!   [~, s] = zero_muon_step (L, {ones(4); 2*ones(4)}, []);
%!   zero_save_state (fullfile (d, "z"), L, s);
%!   assert (isequal (zero_load_state (fullfile (d, "z"), L), s));
%!   assert (isempty (glob (fullfile (d, ".muonlab-*"))));
%! unwind_protect_cleanup
%!   setenv ("TMPDIR", old);
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect
