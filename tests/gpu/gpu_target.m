## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{t} =} gpu_target ()
## What the GPU layer (tests/gpu) tests: the device options under test, the reference
## options, and the communicator kind, as a struct with fields
## @table @code
## @item name
## a short description for the printed lines.
## @item dev
## the options that select the device under test, e.g. @code{@{"Device", "cuda"@}}.
## @item ref
## the options of the CPU reference, @code{@{"Device", "cpu", "Gemm", "openblas"@}}:
## OpenBLAS is always built, so the reference is the same on every machine.
## @item gemm
## what @code{[X, stats] = muon_ns (G, dev@{:@})} reports in @code{stats.gemm}:
## @qcode{"cublas"}.
## @item comm
## the communicator kind of the one-rank suite, @qcode{"nccl"}.
## @item array
## the device of the device arrays under test (@code{muon_gpu (X, "Device", t.array)}):
## @qcode{"cuda"}, or @qcode{"cpu"} (the CPU stand-in device) in self-test mode.
## @item selftest
## true in self-test mode.
## @end table
##
## Self-test mode (environment variable @env{MUONLAB_GPU_SELFTEST} set to anything but
## empty or 0) runs the same suites on a machine without a GPU, to show that the harness is
## sound: the "device" is then the CPU with the other product provider,
## @code{@{"Device", "cpu", "Gemm", "onednn"@}} when oneDNN is built (another summation
## order, as cuBLAS has; else OpenBLAS again, which makes the parity comparisons trivial), and
## the communicator kind @qcode{"mpi"} (a world of one outside mpirun; @qcode{"self"} when
## the MEX files were built without MPI).
## @end deftypefn

function t = gpu_target ()
  t.ref = {"Device", "cpu", "Gemm", "openblas"};
  t.selftest = is_selftest ();
  if (! t.selftest)
    t.name = "cuda";
    t.dev = {"Device", "cuda"};
    t.array = "cuda";
    t.gemm = "cublas";
    t.comm = "nccl";
  else
    if (muon_info ().gemm.onednn_built)
      gemm = "onednn";
    else
      gemm = "openblas";
    endif
    t.name = sprintf ("cpu/%s (self-test)", gemm);
    t.dev = {"Device", "cpu", "Gemm", gemm};
    t.array = "cpu";
    t.gemm = gemm;
    if (__muon_comm__ ("have_mpi"))
      t.comm = "mpi";
    else
      t.comm = "self";
    endif
  endif
endfunction

function tf = is_selftest ()
  s = strtrim (getenv ("MUONLAB_GPU_SELFTEST"));
  tf = ! (isempty (s) || strcmp (s, "0"));
endfunction

%!test
%! t = gpu_target ();
%! assert (t.ref, {"Device", "cpu", "Gemm", "openblas"});
%! assert (any (strcmp (t.comm, {"nccl", "mpi", "self"})));
%! assert (t.dev{1}, "Device");
%! assert (t.selftest == strcmp (t.dev{2}, "cpu"));
%! assert (t.array, t.dev{2});
