## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {} gpu_memcheck_workload ()
## @deftypefnx {} {} gpu_memcheck_workload (@var{device})
## What @code{gpu_memcheck} runs under compute-sanitizer: one call of each device path on
## small shapes, so that every kernel and cuBLAS call of the back end runs at least once.
## @var{device} is @qcode{"cuda"} (default) or @qcode{"cpu"} (the stand-in, to try the
## workload itself without a GPU).  Prints "memcheck workload: done" at the end; any error
## propagates.
## @end deftypefn

function gpu_memcheck_workload (device)
  if (nargin < 1)
    device = "cuda";
  endif
  randn ("state", 61);
  dev = {"Device", device};
  ## NS on device arrays: every precision and method, eager and fused, on a stack of 4 (lanes
  ## and graphs, or batched); an unaligned 1100 x 1024 page; on CUDA a bf16 stack of 4 at
  ## n = 2048 (X X' as three blocks of its upper triangle)
  D = muon_gpu (single (randn (96, 160, 4)), "Device", device);
  for prec = {"double", "single", "bf16", "fp16"}
    for m = {"standard", "gram"}
      for fused = [false true]
        for batched = [false true]
          X = muon_ns (D, dev{:}, "Precision", prec{1}, "Method", m{1}, "Fused", fused,
                       "Batched", batched);
          gather (X);
        endfor
      endfor
    endfor
  endfor
  gather (muon_ns (muon_gpu (single (randn (1100, 1024)), "Device", device), dev{:},
                   "Precision", "bf16"));
  if (strcmp (device, "cuda"))
    B = muon_gpu ("randn", [2048 2112 4], "Device", device, "Class", "bf16");
    for fused = [false true]
      gather (muon_ns (B, dev{:}, "Fused", fused, "Batched", fused, "Steps", 1));
    endfor
    gather (muon_ns (B, dev{:}, "Fused", true, "SymBlocks", 5, "Steps", 1));  # 5 x 5 blocks
    clear B
  endif
  ## a host stack through the pinned staging, both storage classes
  muon_ns (randn (160, 96, 3), dev{:}, "Precision", "bf16", "Method", "gram");
  muon_ns (single (randn (160, 96, 3)), dev{:}, "Fused", true);
  ## three chained updates on device arrays, with experts and split rows
  s = [];
  for k = 1:3
    [U, s] = muon_update (muon_gpu (single (randn (128, 96)), "Device", device), s, dev{:},
                          "Experts", 4, "SplitRows", [12 20]);
  endfor
  gather (U);
  ## muon_step on device parameters and gradients (the ew / sumsq kernels, AdamW)
  P = struct ("W", single (randn (64, 96)), "b", single (randn (64, 1)));
  opt = muon_optimizer (P, "LR", 0.02, "WeightDecay", 0.1, dev{:}, "Resident", true);
  up = @(S) struct ("W", muon_gpu (S.W, "Device", device), "b", muon_gpu (S.b, "Device", device));
  Pd = up (P);
  for k = 1:2
    [Pd, opt] = muon_step (opt, Pd, up (struct ("W", single (randn (64, 96)),
                                                "b", single (randn (64, 1)))));
  endfor
  gather (Pd.W);
  ## zero_muon_step on device gradients at one rank: the rm_copy, block_sum, momentum and
  ## update kernels, NCCL on device buffers in place (the MPI stand-in without a GPU)
  kind = merge (strcmp (device, "cuda"), "nccl", "mpi");
  reds = {"fixed", kind};
  if (! __muon_comm__ ("have_mpi") && strcmp (kind, "mpi"))
    kind = "self";
    reds = {"fixed"};
  endif
  L = zero_layout ({[24 16], [16 16], [8 16]}, 1);
  for v = {"zero12_allreduce", "alltoall_owner", "zero3_round_robin", "layerwise_lpt"}
    for red = reds
      comm = muon_comm (kind, "Reduction", red{1});
      st = [];
      for k = 1:2
        g = cellfun (@(sz) muon_gpu (randn (sz), "Device", device, "Class", "double"),
                     {[24 16], [16 16], [8 16]}, "UniformOutput", false);
        [R, st] = zero_muon_step (L, g, st, "Variant", v{1}, "Comm", comm, dev{:},
                                  "Precision", "bf16", "Assemble", true);
      endfor
      R.updates;
    endfor
  endfor
  printf ("memcheck workload: done\n");
endfunction

%!test
%! ## the workload itself runs on the CPU stand-in
%! out = evalc ("gpu_memcheck_workload ('cpu')");
%! assert (! isempty (strfind (out, "memcheck workload: done")));
