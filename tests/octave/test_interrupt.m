## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_interrupt ()
## Ctrl-C stops a long @code{muon_ns}: the gateways' context polls Octave's pending
## interrupt between Newton-Schulz steps, so SIGINT ends the call at its next step instead
## of when the call ends (a 1000-step call on a 1024 x 2048 single ran on for minutes, its
## result then thrown away).  A child octave-cli reads its statements from a pipe, as a
## terminal session does, so that the session goes on after the interrupt; the test checks
## that the call stopped well before it could have ended (30 s after the signal: a hang
## check, not a speed test), assigned nothing, and that the next call gives the bits this
## session gives.
## @end deftypefn

function test_interrupt ()
  test ("test_interrupt");
endfunction

%!function s = sq (s)
%!  s = ["'" strrep(s, "'", "'\\''") "'"];

## Runs SCRIPT (Octave statements) in a child octave-cli reading them from a pipe, as a
## terminal session does; once the child prints "start", waits DELAY seconds and sends
## SIGINT.  RES: the shell's report ("rc=... t0=... t1=...", the signal's and the child's
## end times; "hung" when it was killed after 120 s), TXT: what the child printed.
%!function [res, txt] = interrupt_child (script, delay)
%!  in = tempname ();
%!  fid = fopen (in, "w");
%!  fputs (fid, script);
%!  fclose (fid);
%!  exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%!  out = [in ".out"];
%!  sh = sprintf (["export LC_ALL=C; '%s' --no-gui --norc --silent < '%s' > '%s' 2>&1 & pid=$!; " ...
%!                 "for i in $(seq 1200); do grep -q '^start' '%s' && break; sleep 0.1; done; " ...
%!                 "sleep %g; kill -INT $pid; t0=$EPOCHREALTIME; " ...
%!                 "for i in $(seq 1200); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done; " ...
%!                 "t1=$EPOCHREALTIME; kill -0 $pid 2>/dev/null && { kill -KILL $pid; echo hung; }; " ...
%!                 "wait $pid; echo \"rc=$? t0=$t0 t1=$t1\""], exe, in, out, out, delay);
%!  [~, res] = system (["bash -c " sq(sh)]);
%!  txt = fileread (out);
%!  unlink (in);
%!  unlink (out);

%!test
%! dirs = cellfun (@(f) fileparts (which (f)), {"muon_ns", "__muon_ns__"},
%!                 "UniformOutput", false);
%! A = reshape (sin (1:48), 6, 8);
%! U = muon_ns (A, "Precision", "double");
%! ## the call begins at "start"; SIGINT 2.5 s later
%! [res, txt] = interrupt_child ([sprintf("addpath ('%s', '%s');\n", dirs{:}) ...
%!              "G = randn (1024, 2048, 'single');\n" ...
%!              "printf ('start\\n'); fflush (stdout); X = muon_ns (G, 'Steps', 1000); printf ('finished\\n');\n" ...
%!              "printf ('assigned %d\\n', exist ('X', 'var'));\n" ...
%!              "A = reshape (sin (1:48), 6, 8);\n" ...
%!              "printf ('U %s\\n', strjoin (cellstr (num2hex (muon_ns (A, 'Precision', 'double')(:))), ''));\n"],
%!              2.5);
%! msg = [res txt];
%! assert (isempty (strfind (res, "hung")), msg);
%! t = str2double (regexp (res, 't0=([0-9.]+) t1=([0-9.]+)', "tokens", "once"));
%! secs = t(2) - t(1);
%! assert (secs < 30, msg);
%! assert (! isempty (strfind (txt, "start")), msg);
%! assert (isempty (strfind (txt, "finished")), msg);
%! assert (! isempty (strfind (txt, "assigned 0")), msg);
%! got = regexp (txt, '^U ([0-9a-f]+)$', "tokens", "once", "lineanchors");
%! assert (! isempty (got), msg);
%! assert (got{1}, strjoin (cellstr (num2hex (U(:))), ""), msg);

## Ctrl-C during muon_gpu ("randn", ...) (2 s here; the signal comes 0.2-0.3 s in): its
## MEX call does not poll, so it ends and the interrupt comes before the handle it returned
## is wrapped; the array is freed then (it stayed in the gateway's table, counted by
## muon_gpu ("info") with no variable holding it, until a reset)
%!test
%! dirs = cellfun (@(f) fileparts (which (f)), {"muon_gpu", "__muon_gpu__"},
%!                 "UniformOutput", false);
%! [res, txt] = interrupt_child ([sprintf("addpath ('%s', '%s');\n", dirs{:}) ...
%!              "n0 = muon_gpu ('info').arrays; K = muon_gpu (ones (2), 'Device', 'cpu');\n" ...
%!              "printf ('start\\n'); fflush (stdout); D = muon_gpu ('randn', [4096 8192 2], 'Device', 'cpu'); printf ('finished\\n');\n" ...
%!              "printf ('assigned %d\\n', exist ('D', 'var'));\n" ...
%!              "s = muon_gpu ('info'); printf ('left %d %d\\n', s.arrays - n0, s.cpu_bytes);\n"],
%!              0.2);
%! msg = [res txt];
%! assert (isempty (strfind (res, "hung")), msg);
%! assert (isempty (strfind (txt, "finished")), msg);
%! assert (! isempty (strfind (txt, "assigned 0")), msg);
%! ## only K is left: one array of 2 x 2 doubles
%! assert (! isempty (strfind (txt, "left 1 32")), msg);
