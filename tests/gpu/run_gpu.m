## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## run_gpu.m - the GPU layer, `make check-gpu` (never part of `make check`).
##
##   cd tests/gpu && octave-cli --no-gui --norc --silent run_gpu.m
##
## First asks whether the CUDA back end runs here (gpu_probe: one tiny muon_ns call with
## "Device", "cuda").  Without a device, or with the back end not built, it prints one line
## saying so, with muon_ns's message and error identifier, and exits 0.  Otherwise it runs
## every suite tests/gpu/test_*.m and the %! blocks of the helpers tests/gpu/gpu_*.m and of
## bench_gpu.m and bench_gpu_host.m (on the CPU, at small shapes), one `test (file, "quiet", fid)` each, prints
## one line per file, then "gpu: <files> files (<time>)" and as its last line
## "N passed, N failed", and exits 1 if anything failed.  Counting
## as tests/octave/run_all.m: failed = nmax - n - nxfail - nbug; a suite that errors out or
## tests nothing counts 1 failed.  test_gpu_nccl is skipped, with a line saying why, when
## the NCCL communicator is not built (muonlab:notBuilt); any other failure to make it
## fails that suite.
##
## MUONLAB_GPU_SKIP=check-gpu (gpu_skip) makes it print that it was skipped and exit 0.
##
## Self-test on a machine without a GPU (checks the harness itself):
##   MUONLAB_GPU_SELFTEST=1 make check-gpu
## runs the same suites with the CPU as the "device" (see gpu_target); make check runs it
## as its layer gpu-selftest, the line "gpu-selftest <passed> <failed>" written to the file
## MUON_RESULTS names.

1;

function [ok, why] = nccl_probe (kind)
  ok = true;
  why = "";
  try
    muon_comm (kind);
  catch err
    ok = ! strcmp (err.identifier, "muonlab:notBuilt");
    why = sprintf ("%s [%s]", err.message, err.identifier);
  end_try_catch
endfunction

here = fileparts (mfilename ("fullpathext"));
if (isempty (here))
  here = pwd ();
endif
root = fileparts (fileparts (here));
addpath (fullfile (root, "inst"));
addpath (fullfile (root, "build", "mex"));
addpath (here);
addpath (fullfile (root, "tests", "octave"));     # run_test_file
more off;
page_screen_output (false);

if (gpu_skip ("check-gpu"))
  exit (0);
endif
t = gpu_target ();
if (! t.selftest)
  [ok, skip, why] = gpu_probe ();
  if (! ok)
    if (skip)
      printf ("check-gpu: skipped, %s\n", why);
      exit (0);
    endif
    printf ("check-gpu: %s\n0 passed, 1 failed\n", why);
    exit (1);
  endif
endif

info = muon_info ();
if (t.selftest)
  printf ("check-gpu: SELF-TEST on the CPU (MUONLAB_GPU_SELFTEST=%s): the device is %s\n",
          getenv ("MUONLAB_GPU_SELFTEST"), t.name);
else
  printf ("check-gpu: %s\n", info.cuda);
endif
printf ("octave %s, %s\n", OCTAVE_VERSION, version ("-blas"));

files = [sort(glob (fullfile (here, "test_*.m"))); sort(glob (fullfile (here, "gpu_*.m")));
         {fullfile(here, "bench_gpu.m"); fullfile(here, "bench_gpu_host.m")}];
tot_p = 0; tot_f = 0; nfiles = 0;
t_all = tic ();
for i = 1:numel (files)
  [~, name] = fileparts (files{i});
  if (strcmp (name, "test_gpu_nccl"))
    [ok, why] = nccl_probe (t.comm);
    if (! ok)
      printf ("--- %s: skipped, the NCCL communicator is not built: %s\n", name, why);
      continue;
    endif
  endif
  printf ("--- %s\n", name);
  fflush (stdout);
  t0 = tic ();
  [p, f, note] = run_test_file (files{i}, true);
  if (isempty (note))
    note = "";
  else
    note = ["  (" note ")"];
  endif
  printf ("%-28s %4d passed %3d failed  %6.1f s%s\n", name, p, f, toc (t0), note);
  fflush (stdout);
  tot_p += p; tot_f += f; nfiles++;
endfor
printf ("gpu: %d files (%.1f s)\n", nfiles, toc (t_all));
res = getenv ("MUON_RESULTS");                  # make check's layer file (gpu-selftest)
if (! isempty (res))
  fid = fopen (res, "w");
  if (fid < 0)
    printf ("run_gpu: cannot write %s\n", res);
    tot_f += 1;
  else
    fprintf (fid, "gpu-selftest %d %d\n", tot_p, tot_f);
    fclose (fid);
  endif
endif
printf ("%d passed, %d failed\n", tot_p, tot_f);
fflush (stdout);
if (tot_f > 0)
  exit (1);
endif
exit (0);
