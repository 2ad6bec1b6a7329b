## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_gpu_nccl ()
## Suite of the GPU layer (run by @code{make check-gpu}): a one-rank NCCL communicator
## (@code{muon_comm ("nccl")}; the kind is @code{gpu_target ().comm}, @qcode{"mpi"} in
## self-test mode).  With one rank every collective is the identity, exactly: all-reduce
## (sum and average), reduce-scatter, all-gather, broadcast and all-to-all return their input bit for
## bit, in double and single, with the fixed-order reduction and with the library's own;
## and @code{zero_muon_step} with @qcode{"Comm"} set to the handle gives the updates and
## the momentum of the simulated run (@qcode{"Comm", "sim"}) bit for bit, for several
## variants, two chained steps, with the Newton-Schulz on the CPU and on the device.
## With device-array gradients (@code{muon_gpu (G, "Device", t.array)}) the step runs on
## the device (@code{muon_zero_step_device}): the communicator moves the device buffers
## (NCCL on CUDA, no host staging; MPI on the self-test's stand-in), the average runs in the
## fixed order on the device; momenta and updates come back as device arrays, equal bit for
## bit to the simulated host run with the Newton-Schulz on the same device, with both
## reductions.  On CUDA the simulated communicator cannot move device memory: a clean
## @code{muonlab:unsupported}.
## @end deftypefn

function test_gpu_nccl ()
  help test_gpu_nccl
endfunction

%!shared t, c, cl
%! t = gpu_target ();
%! c = muon_comm (t.comm);
%! if (any (strcmp (t.comm, {"mpi", "nccl"})))
%!   cl = muon_comm (t.comm, "Reduction", t.comm);
%! else
%!   cl = c;
%! endif
%! printf ("    communicator: %s, %d rank(s)\n", c.kind, c.size);

%!test
%! assert (c.kind, t.comm);
%! assert ([c.size c.rank c.local_ranks], [1 0 1]);
%! assert (cl.size, 1);

%!test
%! ## every collective of one rank returns its input, for both reductions and classes
%! randn ("state", 31);
%! for comm = {c, cl}
%!   for cls = {"double", "single"}
%!     X = cast (randn (24, 40), cls{1});
%!     Y = muon_collective (comm{1}, "allreduce", X);
%!     assert (isequal (Y, X) && strcmp (class (Y), cls{1}));
%!     assert (isequal (muon_collective (comm{1}, "allreduce", X, "Op", "avg"), X));
%!     assert (isequal (muon_collective (comm{1}, "reduce_scatter", X), X));
%!     assert (isequal (muon_collective (comm{1}, "all_gather", X), X));
%!     assert (isequal (muon_collective (comm{1}, "broadcast", X), X));
%!     assert (isequal (muon_collective (comm{1}, "all_to_all", X), X));
%!     assert (isequal (muon_collective (comm{1}, "allreduce", {X}), {X}));
%!   endfor
%! endfor
%! muon_collective (c, "barrier");

%!test
%! ## a 3-D array and a large one (several staging pieces)
%! X = randn (16, 8, 3);
%! assert (isequal (muon_collective (c, "allreduce", X), X));
%! X = single (randn (1024, 1100));
%! assert (isequal (muon_collective (c, "allreduce", X), X));
%! assert (isequal (muon_collective (c, "all_gather", X), X));

%!test
%! ## the counters count what this communicator ran (self counts nothing)
%! if (strcmp (c.kind, "self"))
%!   return;
%! endif
%! muon_collective (c, "counters", "Reset", true);
%! muon_collective (c, "allreduce", ones (4, 5));
%! muon_collective (c, "allreduce", ones (4, 5));
%! S = muon_collective (c, "counters");
%! assert (S.allreduce.calls, 2);

%!function nfail = zero_case (t, comm, variant, ns)
%!  randn ("state", 32);
%!  L = zero_layout ({[64 48], [32 48], [8 48]}, 1, "Stage", 2);
%!  a = {"Variant", variant, "Precision", "bf16", ns{:}};
%!  sh = [];  sd = [];
%!  nfail = 0;
%!  for k = 1:2
%!    g = {randn(64, 48), randn(32, 48), randn(8, 48)};
%!    [Rs, sh] = zero_muon_step (L, g, sh, a{:}, "Comm", "sim");
%!    [Rd, sd] = zero_muon_step (L, g, sd, a{:}, "Comm", comm);
%!    ok = isequal (Rd.updates, Rs.updates) && isequal (sd.momentum, sh.momentum);
%!    where = sprintf ("%s/%s, NS %s", comm.kind, comm.reduction, strjoin (ns, " "));
%!    printf ("    zero_muon_step %-28s %-36s step %d: %s\n", variant, where, k,
%!            merge (ok, "equal to sim", "FAIL: differs from sim"));
%!    nfail += ! ok;
%!  endfor

%!test
%! nfail = 0;
%! for v = {"reference", "zero12_allreduce", "zero2_reduce_scatter_buggy", ...
%!          "zero3_round_robin", "layerwise_lpt", "moonlight_gather"}
%!   nfail += zero_case (t, c, v{1}, {"Device", "cpu"});
%! endfor
%! nfail += zero_case (t, cl, "zero12_allreduce", {"Device", "cpu"});
%! for v = {"zero12_allreduce", "zero3_round_robin"}
%!   nfail += zero_case (t, c, v{1}, t.dev);
%! endfor
%! assert (nfail, 0);

%!function nfail = zero_device_case (t, comm, variant)
%!  randn ("state", 33);
%!  L = zero_layout ({[64 48], [32 48], [8 48]}, 1, "Stage", 2);
%!  a = {"Variant", variant, "Precision", "bf16", "Period", 2, t.dev{:}};
%!  sh = [];  sd = [];
%!  nfail = 0;
%!  for k = 1:2
%!    g = {randn(64, 48), randn(32, 48), randn(8, 48)};
%!    gd = cellfun (@(x) muon_gpu (x, "Device", t.array, "Class", "double"), g,
%!                  "UniformOutput", false);
%!    [Rs, sh] = zero_muon_step (L, g, sh, a{:}, "Comm", "sim");
%!    [Rd, sd] = zero_muon_step (L, gd, sd, a{:}, "Comm", comm, "Assemble", true);
%!    ok = (isa (Rd.ranks.update, "muon_gpuarray") && isa (sd.momentum{1}, "muon_gpuarray")
%!          && isequal (Rd.updates, Rs.updates)
%!          && isequal (gather (sd.momentum{1}), sh.momentum{1})
%!          && isequal (gather (Rd.ranks.update), Rs.ranks.update));
%!    if (! strcmp (variant, "reference"))
%!      ok = ok && isequal (gather (sd.reference{1}), sh.reference{1});
%!    endif
%!    where = sprintf ("%s/%s, device arrays", comm.kind, comm.reduction);
%!    printf ("    zero_muon_step %-28s %-36s step %d: %s\n", variant, where, k,
%!            merge (ok, "equal to sim", "FAIL: differs from sim"));
%!    nfail += ! ok;
%!  endfor

%!test
%! ## the device step: device buffers moved by the communicator, bit for bit the simulator
%! nfail = 0;
%! for v = __muon_lists__ ().lists.zero_variant
%!   nfail += zero_device_case (t, c, v{1});
%! endfor
%! nfail += zero_device_case (t, cl, "alltoall_owner");
%! nfail += zero_device_case (t, cl, "zero12_allreduce");
%! nfail += zero_device_case (t, cl, "zero2_multi_owner");
%! assert (nfail, 0);

%!test
%! ## a non-finite update (fp16 overflow in the peers' cast-first order) warns on device
%! ## arrays as on host arrays, once per step (the reference's run says nothing more); the
%! ## device step dropped the warning before
%! L = zero_layout ({[4 4]}, 1);
%! g = 1e6 * magic (4);
%! a = {"Precision", "fp16", "NormalizeFirst", false, t.dev{:}};
%! sh = evalc ("Rh = zero_muon_step (L, {g}, [], a{:});");
%! d = muon_gpu (g, "Device", t.array, "Class", "double");
%! lastwarn ("");
%! sd = evalc ("Rd = zero_muon_step (L, {d}, [], a{:});");
%! [~, id] = lastwarn ();
%! assert (id, "muonlab:nonFiniteResult");
%! w = "zero_muon_step: non-finite values in an update from a finite input";
%! assert ([numel(strfind (sh, w)), numel(strfind (sd, w))], [1 1]);
%! assert (! any (isfinite (Rh.updates{1}(:))));
%! u = Rd.updates{1};
%! if (isobject (u)) u = gather (u); endif
%! assert (isequaln (u, Rh.updates{1}));
%! ## made an error (warning ("error", id)), it is raised after the step's buffers are
%! ## freed: the same error each time, nothing kept, the session goes on (it had freed
%! ## them twice, and Octave crashed); muon_ns on the device array likewise
%! clear Rd u;
%! n0 = __muon_gpu__ ("count");
%! warning ("error", "muonlab:nonFiniteResult", "local");
%! for k = 1:2
%!   try
%!     zero_muon_step (L, {d}, [], a{:}, "Reference", false);
%!     error ("no error");
%!   catch err
%!     assert ({err.identifier, err.message}, {"muonlab:nonFiniteResult", [w " (an overflow of its precision or state)."]});
%!   end_try_catch
%!   try
%!     muon_ns (d, a{1:4});
%!     error ("no error");
%!   catch err
%!     assert (err.identifier, "muonlab:nonFiniteResult");
%!   end_try_catch
%!   assert (__muon_gpu__ ("count"), n0);
%! endfor

%!test
%! ## on CUDA two simulated ranks cannot hold device buffers: a clean error, nothing left;
%! ## one rank alone is its own average, on any communicator
%! if (t.selftest)
%!   return;
%! endif
%! n0 = __muon_gpu__ ("count");
%! randn ("state", 34);
%! g = {randn(8, 6), randn(4, 6)};
%! d = cellfun (@(x) muon_gpu (x, "Device", "cuda", "Class", "double"), g, "UniformOutput", false);
%! Rs = zero_muon_step (zero_layout ({[8 6], [4 6]}, 1), g, [], t.dev{:});
%! Rd = zero_muon_step (zero_layout ({[8 6], [4 6]}, 1), d, [], t.dev{:});
%! assert (isequal (Rd.updates, Rs.updates));
%! L = zero_layout ({[8 6]}, 2);
%! g = repmat ({muon_gpu(randn (8, 6), "Device", "cuda", "Class", "double")}, 2, 1);
%! try
%!   zero_muon_step (L, g, [], "Comm", "sim");
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "muonlab:unsupported");
%!   assert (err.message, "zero_muon_step: the 'sim' communicator does not move CUDA device memory: device arrays on CUDA need 'nccl'.");
%! end_try_catch
%! clear g d;
%! assert (__muon_gpu__ ("count"), n0);
