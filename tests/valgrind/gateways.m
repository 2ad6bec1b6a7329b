## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## gateways.m - the Octave session of the valgrind layer (tests/valgrind/run.sh runs it
## under valgrind; it also runs without, as a plain script):
##
##   cd tests/valgrind && octave-cli --no-gui --norc --silent gateways.m
##
## One section per MEX gateway (mex/__*__.c, and the test-only tests/mex/__*__.c), each calling its gateway directly on tiny
## inputs: the success paths, every output count from 0 to one past the most it has, too
## few and too many inputs, and every error path it has (bad class, bad shape, bad option
## struct, a failing core call, a bad communicator).  Not 'device', 'cuda': loading the CUDA
## libraries under valgrind is slow and reports their own internals (tests/gpu covers it).
## Expected errors must carry a "muonlab:*" identifier.  Each section prints one line
##
##   vg-section <gateway> PASS
##   vg-section <gateway> FAIL <what went wrong>
##
## and the session ends with "vg-done <n>" (n sections run).  run.sh pairs these lines with
## the errors and definite leaks valgrind reports in each gateway's code.  A gateway that is
## not built prints "vg-section <gateway> SKIP".  Sizes stay tiny: valgrind runs Octave
## about 30 times slower.  __muon_comm__ uses only the self and sim communicators (no
## MPI_Init under valgrind) and never its 'abort' command with a message.

1;

## The outcome of [out{1:nout}] = f (args{:}): ok, and the error's identifier and message.
function r = attempt (nout, f, args)
  r = struct ("ok", true, "id", "", "msg", "");
  try
    if (nout == 0)
      f (args{:});
    else
      out = cell (1, nout);
      [out{1:nout}] = f (args{:});
    endif
  catch err
    r.ok = false;
    r.id = err.identifier;
    r.msg = err.message;
  end_try_catch
endfunction

## Adds to the failure list fails when f (args{:}) with nout outputs does not succeed.
function fails = ok (fails, what, nout, f, varargin)
  r = attempt (nout, f, varargin);
  if (! r.ok)
    fails{end+1} = sprintf ("%s: unexpected error %s: %s", what, r.id, r.msg);
  endif
endfunction

## Adds to fails when the call does not raise a muonlab:* error (id: a particular one).
function fails = bad (fails, what, id, nout, f, varargin)
  r = attempt (nout, f, varargin);
  if (r.ok)
    fails{end+1} = sprintf ("%s: no error", what);
  elseif (! strncmp (r.id, "muonlab:", 8) || (! isempty (id) && ! strcmp (r.id, id)))
    fails{end+1} = sprintf ("%s: error id '%s' (%s), wanted %s", what, r.id, r.msg,
                            merge (isempty (id), "muonlab:*", id));
  endif
endfunction

## Calls with every output count 0 .. most+1 (the last must be the usage error, the others
## must succeed); what Octave does with outputs a gateway leaves unset is not judged.
function fails = outs (fails, what, most, f, varargin)
  for n = 0:most
    fails = ok (fails, sprintf ("%s with %d outputs", what, n), n, f, varargin{:});
  endfor
  fails = bad (fails, sprintf ("%s with %d outputs", what, most + 1), "muonlab:badArg",
               most + 1, f, varargin{:});
endfunction

##---- one section per gateway: gateway_sections.m ------------------------------------------

source (fullfile (fileparts (mfilename ("fullpathext")), "gateway_sections.m"));

##---- the session --------------------------------------------------------------------------

here = fileparts (mfilename ("fullpathext"));
if (isempty (here))
  here = pwd ();
endif
root = fileparts (fileparts (here));
addpath (fullfile (root, "build", "mex"));
addpath (fullfile (root, "build", "tests", "mex"));   # the test-only gateways (tests/mex/)
more off;
page_screen_output (false);

sections = {"__muon_ns__", @sec_muon_ns; "__muon_update__", @sec_muon_update;
            "__muon_coeffs__", @sec_muon_coeffs; "__muon_info__", @sec_muon_info;
            "__muon_ns_flops__", @sec_muon_ns_flops;
            "__muon_blas_threads__", @sec_muon_blas_threads; "__muon_fma__", @sec_muon_fma;
            "__muon_copy_out__", @sec_muon_copy_out;
            "__muon_zero_layout__", @sec_zero_layout; "__muon_zero_step__", @sec_zero_muon_step;
            "__muon_comm__", @sec_muon_comm; "__muon_lists__", @sec_muon_lists;
            "__muon_zero_cost__", @sec_zero_cost; "__muon_gpu__", @sec_muon_gpu};
## every gateway in mex/ (and the test-only ones of tests/mex/) must have a section
srcs = [glob(fullfile (root, "mex", "__*__.c")); glob(fullfile (root, "tests", "mex", "__*__.c"))];
for k = 1:numel (srcs)
  [~, name] = fileparts (srcs{k});
  if (! any (strcmp (name, sections(:,1))))
    printf ("vg-section %s FAIL no section in tests/valgrind/gateways.m\n", name);
  endif
endfor
n = 0;
for k = 1:rows (sections)
  name = sections{k,1};
  if (exist (name) != 3)
    printf ("vg-section %s SKIP not built\n", name);
    continue;
  endif
  t0 = tic ();
  try
    fails = sections{k,2} ();
  catch err
    fails = {sprintf("the section stopped: %s: %s", err.identifier, err.message)};
  end_try_catch
  n++;
  if (isempty (fails))
    printf ("vg-section %s PASS (%.1f s)\n", name, toc (t0));
  else
    printf ("vg-section %s FAIL %s\n", name, strjoin (fails, "; "));
  endif
  fflush (stdout);
endfor
printf ("vg-done %d\n", n);
