## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## run_all.m - the Octave test layer of `make check`.
##
##   cd tests/octave && MUON_RESULTS=<file> octave-cli --no-gui --norc --silent run_all.m
##
## Runs every suite tests/octave/test_*.m and the %! blocks of every inst/*.m file (both
## globbed at run time), one `test (file, "quiet", fid)` each, prints one line per file and
## a summary, writes the single line "octave <passed> <failed>" to the file named by the
## environment variable MUON_RESULTS (when set) and exits with status 1 if anything failed.
##
## Counting (Octave 7 `test`): n passed of nmax run; xtest failures (nxfail) and known
## bugs (nbug) are inside nmax but count as neither passed nor failed; skipped blocks
## (nskip, nrtskip) are outside nmax.  failed = nmax - n - nxfail - nbug (regressions count
## as failed).  A suite that errors out, or a test file with no tests, counts as 1 failed;
## a failing %!shared block that leaves no test failing counts 1 failed too.
##
## Environment: MUON_ONLY / MUON_SKIP, comma-separated file names (with or without .m):
## run only those / leave those out.  MUON_MEXDIR: the folder of the MEX files to test
## (default build/mex; `make check` points it at each build it tests).  MUON_TEST_MEXDIR:
## the folder of the test-only gateways (tests/mex/, built by the test layers, never in the
## package; default build/tests/mex), beside it on the path.  MUON_LAYER: the
## layer name written to MUON_RESULTS instead of "octave" (e.g. octave-avx2).  MUON_SHARD
## "k/n": of the files selected, only every n-th from the k-th (make check runs the octave
## layer as two shards side by side; the summary sums their result lines).

1;

function names = env_list (var)
  s = getenv (var);
  names = {};
  if (! isempty (s))
    names = strtrim (ostrsplit (s, ",;"));
    names = names(! cellfun (@isempty, names));
    names = regexprep (names, '\.m$', "");
  endif
endfunction


here = fileparts (mfilename ("fullpathext"));
if (isempty (here))
  here = pwd ();
endif
root = fileparts (fileparts (here));
addpath (fullfile (root, "inst"));
mexdir = getenv ("MUON_MEXDIR");
if (isempty (mexdir))
  mexdir = fullfile (root, "build", "mex");
endif
testmexdir = getenv ("MUON_TEST_MEXDIR");
if (isempty (testmexdir))
  testmexdir = fullfile (fileparts (mexdir), "tests", "mex");
endif
layer = getenv ("MUON_LAYER");
if (isempty (layer))
  layer = "octave";
endif
addpath (mexdir);
if (isfolder (testmexdir))
  addpath (testmexdir);
endif
addpath (here);
more off;
page_screen_output (false);

suites = sort (glob (fullfile (here, "test_*.m")));
insts = sort (glob (fullfile (root, "inst", "*.m")));
files = [suites(:); insts(:)];
only = env_list ("MUON_ONLY");
skip = env_list ("MUON_SKIP");

printf ("%s: octave %s, %s\n", layer, OCTAVE_VERSION, version ("-blas"));
printf ("%s: MEX files from %s\n", layer, fileparts (which ("__muon_ns__")));
shard = sscanf (getenv ("MUON_SHARD"), "%d/%d");
if (numel (shard) != 2 || shard(2) < 1 || shard(1) < 1 || shard(1) > shard(2))
  shard = [1; 1];
endif
tot_p = 0; tot_f = 0; nfiles = 0; nsel = 0;
t_all = tic ();
for i = 1:numel (files)
  [~, name] = fileparts (files{i});
  if ((! isempty (only) && ! any (strcmp (name, only))) || any (strcmp (name, skip)))
    continue;
  endif
  nsel++;
  if (mod (nsel - 1, shard(2)) != shard(1) - 1)
    continue;
  endif
  is_suite = i <= numel (suites);
  printf ("--- %s\n", name);
  fflush (stdout);
  t0 = tic ();
  [p, f, info] = run_test_file (files{i}, false);
  if (is_suite && p + f == 0)
    f = 1;                               # a suite that tests nothing is broken
  endif
  dt = toc (t0);
  printf ("%-28s %4d passed %3d failed  %6.1f s%s\n", name, p, f, dt,
          merge (isempty (info), "", ["  (" info ")"]));
  fflush (stdout);
  tot_p += p; tot_f += f; nfiles++;
endfor
if (nfiles == 0)
  printf ("run_all: no test file selected (MUON_ONLY='%s', MUON_SKIP='%s')\n",
          getenv ("MUON_ONLY"), getenv ("MUON_SKIP"));
  tot_f += 1;
endif
printf ("%s: %d files, %d passed, %d failed (%.1f s)\n", layer, nfiles, tot_p, tot_f,
        toc (t_all));

res = getenv ("MUON_RESULTS");
if (! isempty (res))
  fid = fopen (res, "w");
  if (fid < 0)
    printf ("run_all: cannot write %s\n", res);
    tot_f += 1;
  else
    fprintf (fid, "%s %d %d\n", layer, tot_p, tot_f);
    fclose (fid);
  endif
endif
fflush (stdout);
if (tot_f > 0)
  exit (1);
endif
exit (0);
