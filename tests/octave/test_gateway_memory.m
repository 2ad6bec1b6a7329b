## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_gateway_memory - the MEX gateways' memory errors of issue 13, as far as a plain Octave
## session can see them (the valgrind layer, tests/valgrind, sees the rest: the 8 bytes that
## zero_muon_step wrote past its output list, and the layout and plan that a failing call
## leaked).  A gateway called with fewer outputs than it has must not write the others
## (__muon_zero_layout__ with 1-4 outputs aborted Octave with "free(): invalid next size"), so
## those calls run in a child octave-cli whose exit status is checked.  Run: `test
## test_gateway_memory` with inst/ and build/mex on the path.

function test_gateway_memory ()
  test ("test_gateway_memory");
endfunction

%!function [rc, out] = child (code)
%!  ## runs CODE in a new octave-cli with the MEX files on the path (those this session
%!  ## uses: build/mex in the tree, the package's folder after pkg install)
%!  mex = fileparts (which ("__muon_ns__"));
%!  exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%!  cmd = sprintf ("'%s' --no-gui --norc --silent --eval \"addpath ('%s'); %s\" 2>&1", exe,
%!                 mex, code);
%!  [rc, out] = system (cmd);

%!test
%! ## every output count of every multi-output gateway, many times over: the child survives
%! code = ["S = [4 3; 2 5; 3 3]; g = {ones(4,3), ones(2,5), eye(3); 2*ones(4,3), ones(2,5), eye(3)}; " ...
%!         "lo = struct (); o = struct (); G = magic (4); " ...
%!         "for k = 1:40, " ...
%!         "  a = __muon_zero_layout__ (S, 2, lo); [a, b] = __muon_zero_layout__ (S, 2, lo); " ...
%!         "  [a, b, c] = __muon_zero_layout__ (S, 2, lo); [a, b, c, d] = __muon_zero_layout__ (S, 2, lo); " ...
%!         "  __muon_zero_layout__ (S, 2, lo); " ...
%!         "  a = __muon_zero_step__ (S, 2, lo, g, [], o, 'sim', true); " ...
%!         "  [a, b] = __muon_zero_step__ (S, 2, lo, g, [], o, 'sim', true); " ...
%!         "  [a, b, c, d] = __muon_zero_step__ (S, 2, lo, g, [], o, 'sim', true); " ...
%!         "  a = __muon_update__ (G, [], o); __muon_update__ (G, G, o); " ...
%!         "end; printf ('survived\\n');"];
%! [rc, out] = child (code);
%! assert (rc == 0, "exit %d: %s", rc, out);
%! assert (! isempty (strfind (out, "survived")), out);

%!test
%! ## and each output it is asked for is the one it documents (in a child too: before the fix
%! ## these calls crashed the session that made them)
%! code = ["S = [4 3; 2 5; 3 3]; o = struct (); " ...
%!         "[p5, q5, r5, s5] = __muon_zero_layout__ (S, 2, o); [p2, q2] = __muon_zero_layout__ (S, 2, o); " ...
%!         "p1 = __muon_zero_layout__ (S, 2, o); " ...
%!         "g = {ones(4,3), ones(2,5), eye(3); 2*ones(4,3), ones(2,5), eye(3)}; " ...
%!         "[u5, m5, st5, f5, i5] = __muon_zero_step__ (S, 2, o, g, [], o, 'sim', true); " ...
%!         "[u4, m4, st4, f4] = __muon_zero_step__ (S, 2, o, g, [], o, 'sim', true); " ...
%!         "[U2, M2] = __muon_update__ (magic (4), [], o); U1 = __muon_update__ (magic (4), [], o); " ...
%!         "printf ('equal=%d\\n', isequal ({p2, q2, p1, u4, m4, f4, U1}, {p5, q5, p5, u5, m5, f5, U2}));"];
%! [rc, out] = child (code);
%! assert (rc == 0, "exit %d: %s", rc, out);
%! assert (! isempty (strfind (out, "equal=1")), out);

## a sparse momentum with fewer stored elements than its length was read past its data
%!error id=muonlab:badShape
%! S = [4 3; 2 5];  # (five outputs, here and below: the output counts are the child's test)
%! g = {ones(4,3), ones(2,5); 2*ones(4,3), ones(2,5)};
%! [~, m, ~, ~, ~] = __muon_zero_step__ (S, 2, struct (), g, [], struct (), "sim", true);
%! m{1} = sparse (numel (m{1}), 1);
%! [u, m, s, f, i] = __muon_zero_step__ (S, 2, struct (), g, m, struct (), "sim", true);

## WORLD that is not a real scalar: a muonlab error, not Octave's conversion error
%!error id=muonlab:badArg [u, m, s, f, i] = __muon_zero_step__ ([2 2], [], struct (), {ones(2)}, [], struct (), "self", true)
%!error id=muonlab:badArg [u, m, s, f, i] = __muon_zero_step__ ([2 2], {1}, struct (), {ones(2)}, [], struct (), "self", true)
%!error id=muonlab:badArg [u, m, s, f, i] = __muon_zero_step__ ([2 2], "a", struct (), {ones(2)}, [], struct (), "self", true)

## a failing call (bad communicator) after the layout and plan exist: a clean error (the
## valgrind layer checks that nothing is leaked)
%!error <zero_muon_step: unknown communicator kind 'x'.>
%! [u, m, s, f, i] = __muon_zero_step__ ([3 2; 2 2], 2, struct (), ...
%!                                       repmat ({ones(3,2), ones(2)}, 2, 1), [], struct (), ...
%!                                       struct ("kind", "x"), true);

## output counts beyond a gateway's: the usage error
%!error id=muonlab:badArg [a, b] = __muon_comm__ ("have_mpi")
%!error id=muonlab:badArg [a, b] = __muon_comm__ ("mpi_live")
%!error id=muonlab:badArg [a, b] = __muon_comm__ ("barrier", "self")
%!error id=muonlab:badArg [a, b, c] = __muon_comm__ ("allreduce", "self", 1, "sum")
%!error id=muonlab:badArg [a, b, c, d, e] = __muon_zero_layout__ ([2 2], 1, struct ())
%!error id=muonlab:badArg [a, b, c] = __muon_update__ (magic (3), [], struct ())

## option values that would overflow a cast to int: a muonlab error
## (all outputs asked for: the output counts are the child's test above)
%!error id=muonlab:badArg X = __muon_ns__ (magic (4), struct ("steps", 1e300))
%!error id=muonlab:badArg X = __muon_ns__ (magic (4), struct ("restarts", [1 NaN]))
%!error id=muonlab:badArg X = __muon_ns__ (magic (4), struct ("restarts", 1e20))
%!error id=muonlab:badShape [U, M] = __muon_update__ (magic (4), [], struct ("experts", 1e300))
%!error id=muonlab:badArg [U, M] = __muon_update__ (magic (4), [], struct ("split_rows", [2 Inf]))

## Large outputs (256 KiB and more) are arrays Octave made (its builtin zeros, called from
## the gateway) and the gateway filled in place, so that Octave need not copy them on
## return.  They must hold the right values, share memory with nothing (the inputs, each
## other, Octave's other zeros), and not depend on a zeros.m on the path.
%!test
%! G = single (reshape (sin (1:256*320), 256, 320));   # 320 KiB of single
%! G0 = G;
%! z0 = zeros (256, 320, "single");
%! p = {"Precision", "bf16"};
%! X1 = muon_ns (G, p{:}, "Gemm", "openblas");    # ref_ns's products (test_ns_bitwise)
%! X2 = muon_ns (G, p{:}, "Gemm", "openblas");
%! assert (isequal (X1, X2, ref_ns (G, p{:})));
%! X1(1) = 7;
%! assert (X2(1) != 7);
%! assert (isequal (G, G0));
%! assert (! any (z0(:)) && ! any (zeros (256, 320, "single")(:)));
%! M0 = 2 * G;
%! [U, M] = __muon_update__ (G, M0, struct ());   # M: the gateway's copy of M0, updated
%! assert (isequal (G, G0) && isequal (M0, 2 * G0));
%! assert (M, 1.95 * G0, -4 * eps ("single"));    # 0.95 M0 + 0.05 G
%! M(1) = 7;
%! assert (isequal (G, G0));
%! assert (! any (zeros (256, 320, "single")(:)));

%!test
%! ## a zeros.m on the path does not change an output
%! G = reshape (cos (1:300*300), 300, 300);    # 703 KiB of double
%! want = muon_ns (G);
%! [Uw, Mw] = __muon_update__ (G, [], struct ());
%! d = tempname ();
%! mkdir (d);
%! fid = fopen (fullfile (d, "zeros.m"), "w");
%! fprintf (fid, "function z = zeros (varargin)\n  error ('shadowed zeros called');\nendfunction\n");
%! fclose (fid);
%! addpath (d);
%! unwind_protect
%!   X = muon_ns (G);
%!   [U, M] = __muon_update__ (G, [], struct ());
%! unwind_protect_cleanup
%!   rmpath (d);
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect
%! assert (isequal (X, want));
%! assert (isequal ({U, M}, {Uw, Mw}));

%!test
%! ## gather of a large device array (the CPU stand-in device): its bits, a new array each time
%! G = single (reshape (sin (1:512*256), 512, 256, 1));
%! D = muon_gpu (G, "Device", "cpu");
%! a = gather (D);
%! b = gather (D);
%! a(:) = 0;
%! assert (isequal (b, G) && isequal (gather (D), G));

%!test
%! ## muon_mex_new_array itself (through the test-only __muon_copy_out__): both classes,
%! ## 2-D and 3-D, below and above the size where Octave makes the array, and empty
%! if (exist ("__muon_copy_out__") != 3)
%!   return;                          # tests/mex not on the path (the installed package)
%! endif
%! for cls = {"double", "single"}
%!   for sz = {[3 4], [300 300], [64 64 40], [0 5], [70000 1]}
%!     X = cast (reshape (sin (1:prod (sz{1})), sz{1}), cls{1});
%!     Y = __muon_copy_out__ (X, "octave");
%!     Z = __muon_copy_out__ (X, "mx");
%!     assert (isequal (Y, Z, X) && strcmp (class (Y), cls{1}) && isequal (size (Y), sz{1}));
%!     Y(:) = 1;
%!     assert (isequal (Z, X));
%!   endfor
%! endfor
%!test
%! ## what Octave hands back is checked: a builtin.m on the path that returns something else
%! ## (an int8 scalar) leaves the gateway on mxCreate, with the same values
%! if (exist ("__muon_copy_out__") != 3)
%!   return;
%! endif
%! d = tempname ();
%! mkdir (d);
%! fid = fopen (fullfile (d, "builtin.m"), "w");
%! fprintf (fid, "function varargout = builtin (varargin)\n  varargout = {int8(1)};\nendfunction\n");
%! fclose (fid);
%! warning ("off", "Octave:shadowed-function", "local");
%! X = reshape (1:90000, 300, 300);
%! addpath (d);
%! unwind_protect
%!   Y = __muon_copy_out__ (X, "octave");
%!   b = builtin ("zeros", 2);              # the shadow is the one called
%! unwind_protect_cleanup
%!   rmpath (d);
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect
%! assert (isequal (b, int8 (1)));
%! assert (isequal (Y, X) && isa (Y, "double"));
%!test
%! ## a result the process cannot have is muonlab:noMemory, named by the user function, not
%! ## Octave's own "out of memory or dimension too large"; nothing is kept and the session
%! ## goes on.  In a child whose address space is capped (prlimit) 80 MB above what it uses
%! ## once it holds a 160 MB X: every output of 160 MB is refused before any work (the
%! ## momentum of zero_muon_step, made before its step).
%! if (system ("prlimit --version > /dev/null 2>&1") != 0)
%!   return;                          # util-linux's prlimit is not installed
%! endif
%! dirs = cellfun (@(f) fileparts (which (f)), {"__muon_ns__", "muon_ns", "__muon_copy_out__"},
%!                 "UniformOutput", false);
%! script = [tempname() ".m"];
%! fid = fopen (script, "w");
%! fprintf (fid, "addpath (%s);\n", strjoin (strcat ("'", dirs(! cellfun (@isempty, dirs)), "'"), ", "));
%! fputs (fid, ["X = sin (reshape (1:2e7, 20, 1e6));\n" ...
%!              "c = muon_comm ('sim', 2); L = zero_layout ([20 1e6], 1);\n" ...
%!              "calls = {@() muon_ns (X), @() muon_update (X, []), " ...
%!              "@() muon_collective (c, 'allreduce', {X(:, 1:5e5), X(:, 5e5+1:end)}), " ...
%!              "@() zero_muon_step (L, {X}, [])};\n" ...
%!              "if (exist ('__muon_copy_out__') == 3), calls{end+1} = @() __muon_copy_out__ (X, 'octave'); end\n" ...
%!              "A = reshape (sin (1:48), 6, 8); U0 = muon_ns (A); muon_update (A, []);\n" ...
%!              "zero_muon_step (zero_layout ([6 8], 1), {A}, []);\n" ...
%!              "vm = str2double (regexp (fileread ('/proc/self/status'), 'VmSize:\\s*(\\d+)', 'tokens', 'once'){1});\n" ...
%!              "system (sprintf ('prlimit --pid %d --as=%d:', getpid (), round (vm * 1024 + 80e6)));\n" ...
%!              "for k = 1:numel (calls)\n" ...
%!              "  try, calls{k} (); printf ('call %d: no error\\n', k);\n" ...
%!              "  catch err, printf ('call %d: %s | %s\\n', k, err.identifier, err.message); end\n" ...
%!              "end\n" ...
%!              "system (sprintf ('prlimit --pid %d --as=unlimited:', getpid ()));\n" ...
%!              "printf ('after: same=%d\\n', isequal (muon_ns (A), U0));\n"]);
%! fclose (fid);
%! exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%! [rc, out] = system (sprintf ("'%s' --no-gui --norc --silent '%s' 2>&1", exe, script));
%! unlink (script);
%! assert (rc == 0, "exit %d: %s", rc, out);
%! lines = regexp (out, '^call \d+: [^\n]*', "match", "lineanchors");
%! who = {"muon_ns", "muon_update", "muon_collective", "zero_muon_step", "__muon_copy_out__"};
%! mb = [160 160 160 160 160];         # muon_collective: both ranks' halves
%! assert (numel (lines) >= 4, out);
%! for k = 1:numel (lines)
%!   what = merge (k == 3, "the results of 2 ranks (%d MB)", "a result of %d MB");
%!   assert (lines{k}, sprintf (["call %d: muonlab:noMemory | %s: out of memory for " what "."],
%!                              k, who{k}, mb(k)));
%! endfor
%! assert (! isempty (strfind (out, "after: same=1")), out);
%!test
%! ## the test-only gateway's usage (not in an installed package: pkg test runs without it)
%! if (exist ("__muon_copy_out__") != 3)
%!   return;
%! endif
%! usage = "__muon_copy_out__: usage: Y = __muon_copy_out__ \\(X, HOW\\)\\.";
%! fail ("__muon_copy_out__ (int8 (1), \"mx\")", usage);
%! fail ("__muon_copy_out__ (1, \"other\")", usage);

%!function s = sq (s)
%!  s = ["'" strrep(s, "'", "'\\''") "'"];

%!test
%! ## under an address-space limit (ulimit -v, as HPC schedulers set): a thread count whose
%! ## stacks do not fit runs on fewer threads, the same bits (OpenMP ended the process when
%! ## it could not create one), and results that do not fit are muonlab:noMemory naming the
%! ## function (muon_ns's trace, a collective's buffers on 65536 simulated ranks: each
%! ## raised Octave's error with no id and leaked), after which the session goes on; a
%! ## layout of 20,000 parameters on 65536 ranks fits (it made a W x 2 x P table of 21 GB:
%! ## now its owners' ranges only); zero_muon_step's single gradients, as doubles, do not
%! inst = fileparts (which ("muon_ns"));
%! mex = fileparts (which ("__muon_ns__"));
%! exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%! code = ["G = randn (300, 600); [X1, s1] = muon_ns (G, 'Threads', 1); " ...
%!         "[X, s] = muon_ns (G, 'Threads', 1024); " ...
%!         "printf ('threads %d same %d\\n', s.threads < 1024, isequal (X, X1)); " ...
%!         "calls = {@() zero_layout (repmat ({[64 64]}, 1, 20000), 65536), " ...
%!         "@() muon_ns (randn (256, 1024), 'Trace', true, 'Steps', 1000), " ...
%!         "@() muon_collective (muon_comm ('sim', 65536), 'all_gather', num2cell (1:65536)), " ...
%!         "@() zero_muon_step (zero_layout ({[4096 8192]}, 16), " ...
%!         "repmat ({ones(4096, 8192, 'single')}, 16, 1), [])}; " ...
%!         "for k = 1:4, try, calls{k} (); printf ('%d no error\\n', k); " ...
%!         "catch e, printf ('%s | %s\\n', e.identifier, e.message); end, end; " ...
%!         "L = zero_layout ({[8 4]}, 2); printf ('after %d\\n', L.total);"];
%! cmd = sprintf (["ulimit -v 3000000; OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 '%s' " ...
%!                 "--no-gui --norc --silent --eval \"addpath ('%s', '%s'); %s\" 2>&1"],
%!                exe, inst, mex, code);
%! [rc, out] = system (["bash -c " sq(cmd)]);
%! assert (rc == 0, "exit %d: %s", rc, out);
%! assert (! isempty (strfind (out, "threads 1 same 1")), out);
%! assert (! isempty (strfind (out, "1 no error")), out);
%! assert (! isempty (regexp (out, "muonlab:noMemory \\| muon_ns: out of memory for a result of \\d+ MB\\.")), out);
%! ## all_gather's 65536 results of 65536 doubles, each rank's X staged and the tables of
%! ## their addresses: 69 GB, told at once
%! assert (! isempty (strfind (out, "muonlab:noMemory | muon_collective: out of memory for the results of 65536 ranks (68721 MB).")), out);
%! ## single gradients take twice their size as the double copies the step works on: told
%! ## before the gateway (it was Octave's own out-of-memory error, with no muonlab id)
%! assert (! isempty (regexp (out, "muonlab:noMemory \\| zero_muon_step: out of memory for the double copy of RANK_GRADS\\{\\d+,1\\} \\(4096 x 8192\\)\\.")), out);
%! assert (! isempty (strfind (out, "after 32")), out);

## sparse or complex numbers where a gateway reads numbers with mxGetPr (a sparse array
## holds only its nonzeros: read past its end, the values shifted) or mxGetScalar (the real
## part only): a muonlab error (the inst/ functions densify or refuse them first)
%!test
%! L = __muon_lists__ ();
%! co = L.defaults.layout;
%! co.design = "reference";
%! H = __muon_gpu__ ("upload", ones (2), "cpu", "double");
%! c = [0.1 0.001 0.1 0.001 0 1 1e-8];
%! calls = {@() __muon_zero_cost__ ([3 6; 4 6], sparse ([1; 2]), [], 2, co), "badShape";
%!          @() __muon_zero_cost__ ([3 6; 4 6], [], {sparse([1 2]), []}, 2, co), "badShape";
%!          @() __muon_gpu__ ("fill", "zeros", sparse ([3 0 4]), "cpu", "double", 1), "badShape";
%!          @() __muon_gpu__ ("fill", "zeros", [3 4] + 1i, "cpu", "double", 1), "badShape";
%!          @() __muon_gpu__ ("adamw", H, H, H, H, sparse (c)), "badArg";
%!          @() __muon_gpu__ ("copy_time", "cpu", {5}), "badShape";
%!          @() __muon_gpu__ ("copy_time", "cpu", []), "badShape";
%!          @() __muon_blas_threads__ (1 + 1i), "badArg";
%!          @() __muon_zero_cost__ ([3 6; 4 6], [0; 2], [], 2, co), "badArg"};
%! for k = 1:rows (calls)
%!   try
%!     calls{k,1} ();
%!     error ("call %d: no error", k);
%!   catch err
%!     assert (err.identifier, ["muonlab:", calls{k,2}], sprintf ("call %d: %s", k, err.message));
%!   end_try_catch
%! endfor
%! assert (__muon_gpu__ ("copy_time", "cpu", 64) >= 0);

%!test
%! ## sparse EXPERTS and SPLITROWS from the user: the dense answer (the gateway refuses
%! ## sparse numbers; the functions pass them full)
%! L = zero_layout ({[8 5], [4 6]}, 2);
%! randn ("state", 3);
%! G = {randn(8, 5), randn(4, 6); randn(8, 5), randn(4, 6)};
%! want = zero_muon_step (L, G, [], "Experts", [2 1], "SplitRows", {[1 3], []});
%! got = zero_muon_step (L, G, [], "Experts", sparse ([2 1]), "SplitRows", {sparse([1 3]), []});
%! assert (isequal (got.updates, want.updates));
%! c = zero_cost (L, [], "Experts", [2 1], "SplitRows", {[1 3], []});
%! cs = zero_cost (L, [], "Experts", sparse ([2 1]), "SplitRows", {sparse([1 3]), []});
%! assert (isequal (struct (cs), struct (c)));
