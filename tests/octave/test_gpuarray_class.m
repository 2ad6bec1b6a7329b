## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_gpuarray_class ()
## Suite (run with @code{test test_gpuarray_class}): the methods of the class
## @code{muon_gpuarray} on the CPU stand-in device: the constructor (only a handle no device
## array holds, with its array's own size, class and device; a 1-page SIZE), @code{disp} of
## live and freed arrays with the bytes of every precision, @code{size (D, DIM)} as
## Octave's, the gateway's mark and drop, and the errors of deleted and stale arrays.
## Device arrays in the functions: test_gpuarray; the optimizer's state: test_gpuarray_state.
## @end deftypefn

function test_gpuarray_class ()
  help test_gpuarray_class
endfunction

%!test
%! ## a 1-page SIZE is kept as size () writes it
%! h = __muon_gpu__ ("upload", ones (2, 3), "cpu", "single");
%! assert (size (muon_gpuarray (h, [2 3 1], "single", "cpu")), [2 3]);

%!test
%! ## a freed array says so, whichever way it went
%! D = muon_gpu (ones (2, 3), "Device", "cpu");
%! E = D;
%! delete (D);
%! assert (disp (E), "  2x3 double device array on cpu, freed (deleted or reset): make it again\n");
%! R = muon_gpu (ones (4, 1), "Device", "cpu", "Class", "bf16");
%! muon_gpu ("reset");
%! assert (disp (R), "  4x1 bf16 device array on cpu, freed (deleted or reset): make it again\n");

%!test                                  # the bytes disp counts: 8, 4, 2, 2 per element
%! w = struct ("double", 8, "single", 4, "bf16", 2, "fp16", 2);
%! for p = __muon_lists__ ().lists.precision   # every precision of the core has a size
%!   D = muon_gpu (ones (2, 3), "Device", "cpu", "Class", p{1});
%!   assert (disp (D), sprintf ("  2x3 %s device array on cpu (%d B); gather () copies it to the host\n",
%!                              p{1}, 6 * w.(p{1})));
%! endfor

%!test
%! ## the constructor takes only a handle no device array holds, with its array's own size,
%! ## class and device (a relabelled or second owner: the first cleared freed the data of
%! ## both, and the labels were trusted)
%! D = muon_gpu (reshape (1:24, 4, 6), "Device", "cpu");
%! fix = "make a device array with muon_gpu, e.g. muon_gpu \\(X\\)\\.";
%! fail ("muon_gpuarray (D.Handle, [6 4], \"bf16\", \"cuda\")",
%!       ["muon_gpuarray: H is held by a device array already; " fix]);
%! fail ("muon_gpuarray (D.Handle, [4 6], \"double\", \"cpu\")",
%!       ["muon_gpuarray: H is held by a device array already; " fix]);
%! assert (gather (D), reshape (1:24, 4, 6));
%! h = __muon_gpu__ ("upload", ones (2, 3), "cpu", "single");   # a raw handle: no owner yet
%! for bad = {{[3 2], "single", "cpu"}, {[2 3], "bf16", "cpu"}, {[2 3], "single", "cuda"}, ...
%!            {[2 3 2], "single", "cpu"}}
%!   fail ("muon_gpuarray (h, bad{1}{:})",
%!         ["muon_gpuarray: H holds a 2x3x1 single array on cpu, not the SIZE, CLASS and " ...
%!          "DEVICE given; " fix]);
%! endfor
%! F = muon_gpuarray (h, [2 3], "single", "cpu");
%! assert (gather (F), ones (2, 3, "single"));
%! n = muon_gpu ("info").arrays;
%! clear F
%! assert (muon_gpu ("info").arrays, n - 1);
%! assert (gather (D), reshape (1:24, 4, 6));

%!test
%! ## drop frees the arrays made since the mark that no device array holds, only those
%! n0 = __muon_gpu__ ("count");
%! h0 = __muon_gpu__ ("upload", 1, "cpu", "double");
%! m = __muon_gpu__ ("mark");
%! D = muon_gpu (2, "Device", "cpu");
%! h = __muon_gpu__ ("upload", 3, "cpu", "double");
%! assert (__muon_gpu__ ("count"), n0 + 3);
%! assert (__muon_gpu__ ("drop", m), 1);
%! assert (__muon_gpu__ ("count"), n0 + 2);
%! assert (gather (D), 2);
%! assert (__muon_gpu__ ("gather", h0), 1);
%! fail ("__muon_gpu__ (\"gather\", h)", "gather: D is a device array that was deleted");
%! __muon_gpu__ ("free", h0);

%!test
%! ## size (D, DIM) beyond ndims is 1 without a vector of length DIM (size (D, 1e12) ran out
%! ## of memory, size (D, 1e8) made an 800 MB temporary); DIM vectors as Octave's
%! D = muon_gpu (ones (2, 3), "Device", "cpu");
%! X = ones (2, 3);
%! for dim = {1, 2, 3, 1e8, 1e12, 2^53, [1 2], [2 1], [1 5 2], [1; 2], [3 1e12 2]}
%!   assert (size (D, dim{1}), size (X, dim{1}));
%! endfor
%! [a, b] = size (D, [2 1e12]);
%! assert ([a b], [3 1]);
%! assert (size (muon_gpu (ones (2, 3, 4), "Device", "cpu"), [3 1e10 1]), [4 1 2]);

%!test
%! ## a deleted or stale array: the error names the function called (isequal was "gather"),
%! ## the array as the caller wrote it (always "D") and the cause (delete blamed on clear
%! ## functions or a reset)
%! R = muon_gpu (ones (2), "Device", "cpu");
%! delete (R);
%! fail ("gather (R)", "^gather: R is a device array that was deleted; make it again\\.$");
%! fail ("isequal (ones (2), R)", "^isequal: R is a device array that was deleted; make it again\\.$");
%! Q = muon_gpu (ones (2), "Device", "cpu");
%! s.w = muon_gpu (ones (2), "Device", "cpu");
%! muon_gpu ("reset");
%! old = [" is a device array of an earlier session \\(cleared by clear functions or " ...
%!        "muon_gpu \\(\"reset\"\\)\\); make it again\\.$"];
%! fail ("isequal (Q, ones (2))", ["^isequal: Q" old]);
%! fail ("isequaln (1, s.w)", ["^isequaln: argument 2" old]);
%! fail ("gather (s.w)", ["^gather: D" old]);

%!test
%! ## out of memory gathering for isequal / isequaln names them (it named gather): in a
%! ## child capped (prlimit) 80 MB above what it uses once it holds a 128 MB device array
%! if (system ("prlimit --version > /dev/null 2>&1") != 0)
%!   return;                          # util-linux's prlimit is not installed
%! endif
%! dirs = cellfun (@(f) fileparts (which (f)), {"__muon_gpu__", "muon_gpu"},
%!                 "UniformOutput", false);
%! script = [tempname() ".m"];
%! fid = fopen (script, "w");
%! fprintf (fid, "addpath (%s);\n", strjoin (strcat ("'", dirs, "'"), ", "));
%! fputs (fid, ["D = muon_gpu ('randn', [4000 4000], 'double', 'Device', 'cpu');\n" ...
%!              "vm = str2double (regexp (fileread ('/proc/self/status'), 'VmSize:\\s*(\\d+)', 'tokens', 'once'){1});\n" ...
%!              "system (sprintf ('prlimit --pid %d --as=%d:', getpid (), round (vm * 1024 + 80e6)));\n" ...
%!              "calls = {@() isequal (D, D), @() isequaln (1, D)};\n" ...
%!              "for k = 1:numel (calls)\n" ...
%!              "  try, calls{k} (); printf ('call %d: no error\\n', k);\n" ...
%!              "  catch err, printf ('call %d: %s | %s\\n', k, err.identifier, err.message); end\n" ...
%!              "end\n"]);
%! fclose (fid);
%! exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%! [rc, out] = system (sprintf ("'%s' --no-gui --norc --silent '%s' 2>&1", exe, script));
%! unlink (script);
%! assert (! isempty (strfind (out, "call 1: muonlab:noMemory | isequal: out of memory for a result of 128 MB.")), out);
%! assert (! isempty (strfind (out, "call 2: muonlab:noMemory | isequaln: out of memory for a result of 128 MB.")), out);

## the functions that need the elements, the size predicates, size and disp (moved from
## test_gpuarray.m)
%!test
%! ## the functions of arrays that need the elements: an error naming the function;
%! ## the size predicates and isequal answer for the arrays, not the handle objects
%! R = muon_gpu (1:4, "Device", "cpu");
%! E = muon_gpu (1:4, "Device", "cpu");
%! for op = {@any, @all, @abs, @sum, @double, @isnan, @isdiag, @transpose, @ctranspose, ...
%!           @cos, @svd, @median, @int32, @(D) mod (D, 2), @sumsq, ...
%!           @(D) D .^ 2, @(D) D == D, @(D) D > 0, @(D) ! D, @(D) D \ 2, @(D) reshape (D, 4, 1)}
%!   try
%!     op{1} (R);
%!     error ("no error");
%!   catch err
%!     assert (err.identifier, "muonlab:unsupported");
%!     assert (regexp (err.message,
%!                     '^muon_gpuarray: \w+ is not defined for a device array; gather \(D\) first\.$'));
%!   end_try_catch
%! endfor
%! assert (isequal (R, E) && isequal (R, 1:4) && isequal (1:4, E, R));
%! assert (isequaln (R, E) && isequaln (R, 1:4) && ! isequaln (R, 1:3));
%! assert (isequal (gather (+R), 1:4));
%! assert (! isequal (R, muon_gpu (1:3, "Device", "cpu")) && ! isequal (R, [1 2 3 5]));
%! assert (size_equal (R, E) && size_equal (R, ones (1, 4)));
%! assert (! size_equal (R, muon_gpu (ones (2, 5), "Device", "cpu")));
%! assert (! size_equal (R, ones (4, 1)));
%! assert ([isrow(R), isvector(R), isscalar(R), ismatrix(R)], [true true false true]);
%!error <muon_gpuarray: any is not defined for a device array; gather \(D\) first.>
%! any (muon_gpu (ones (2), "Device", "cpu"))
%!error <muon_gpuarray: power is not defined for a device array; gather \(D\) first.>
%! muon_gpu (ones (2), "Device", "cpu") .^ 2
%!error <muon_gpuarray: size: DIM must be positive integers, e.g. size \(D, 1\).>
%! size (muon_gpu (ones (2), "Device", "cpu"), 0)
%!error <muon_gpuarray: size: DIM must be positive integers, e.g. size \(D, 1\).>
%! size (muon_gpu (ones (2), "Device", "cpu"), 1.5)
%!error <muon_gpuarray: size: DIM must be positive integers, e.g. size \(D, 1\).>
%! size (muon_gpu (ones (2), "Device", "cpu"), "a")
%!test
%! ## size with several dimensions, and disp's text as a value, as Octave's arrays do
%! D = muon_gpu (ones (2, 3, 4), "Device", "cpu");
%! X = ones (2, 3, 4);
%! assert (size (D, [1 3]), size (X, [1 3]));
%! assert (size (D, 2, 3), size (X, 2, 3));
%! [a, b] = size (D, [3 1]);
%! assert ([a b], [4 2]);
%! assert (disp (D), evalc ("disp (D)"));
%! assert (disp (D), "  2x3x4 double device array on cpu (192 B); gather () copies it to the host\n");
