## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_zero_cost_time - zero_cost's time model and its profile (split from test_zero_cost.m,
## the plan's counters against the simulator):
##  * bytes scale with ElementBytes; the step time is the sum of its phases;
##  * the profile: every field out of its range or unknown is refused, naming it, and so is
##    a path that is not a regular file or is too large or too deep;
##  * its numbers enter the step time as the ring model written here says; the two
##    all-to-alls are timed call by call; peak memory past memory_bytes is marked, not
##    ranked out; the designs without all-to-all keep their times exactly.
## Run: `test test_zero_cost_time` with inst/ and build/mex on the path.

function test_zero_cost_time ()
  help test_zero_cost_time
endfunction

%!test
%! ## bytes scale with the element size; the step is the sum of its phases
%! M = muon_model ("moonlight-16b-a3b");
%! C8 = zero_cost (M, 64, "ElementBytes", 8, "Design", "zero2_multi_owner");
%! C2 = zero_cost (M, 64, "ElementBytes", 2, "Design", "zero2_multi_owner");
%! assert (C8.sent, 4 * C2.sent);
%! assert (C2.ranks.ns_flops, C8.ranks.ns_flops);
%! t = C2.time;
%! assert (t.step, t.comm + t.ns + t.memory + t.overhead, 1e-12 * t.step);
%! assert (t.comm, t.reduce_scatter + t.allreduce, 1e-12 * t.comm);

%!test
%! ## every profile field is checked: each bad value is refused, naming the field
%! P = jsondecode (fileread (fullfile (fileparts (which ("zero_cost")), "profiles",
%!                                     "h100_node.json")));
%! bad = {"devices_per_node", "x", "a positive integer (at most 65536)";
%!        "devices_per_node", 2.5, "a positive integer (at most 65536)";
%!        "devices_per_node", 65537, "a positive integer (at most 65536)";
%!        "devices_per_node", 1e300, "a positive integer (at most 65536)";
%!        "mem_bw", "fast", "a positive finite number";
%!        "mem_bw", Inf, "a positive finite number";
%!        "memory_bytes", -1, "a positive finite number";
%!        "mem_efficiency", [1 2], "a number in (0, 1]";
%!        "gemm_efficiency", 0, "a number in (0, 1]";
%!        "gemm_efficiency", 1.5, "a number in (0, 1]";
%!        "ns_call_overhead", -1, "a finite number >= 0";
%!        "step_overhead", NaN, "a finite number >= 0";
%!        "step_overhead", 1i, "a finite number >= 0";
%!        "gemm_peak.fp16", 0, "a positive finite number";
%!        "gemm_peak", 1, "a struct of GEMM rates: double, single, bf16 and fp16";
%!        "intra.bandwidth", [], "a positive finite number";
%!        "intra.latency", "x", "a finite number >= 0";
%!        "inter.efficiency", 0, "a number in (0, 1]";
%!        "intra.allreduce", "x", "a struct of bandwidth and / or latency";
%!        "intra.allreduce.bandwidth", -5e9, "a positive finite number";
%!        "inter.all_to_all.latency", "x", "a finite number >= 0";
%!        "name", 3, "a string";
%!        "sources", {1}, "a string or a list of strings"};
%! for k = 1:rows (bad)
%!   Q = P;
%!   path = strsplit (bad{k,1}, ".");
%!   Q = setfield (Q, path{:}, bad{k,2});
%!   try
%!     zero_cost ([64 64; 32 64], 4, "Profile", Q);
%!     error ("test:noError", "%s = %s: accepted", bad{k,1}, disp (bad{k,2}));
%!   catch err
%!     assert (err.message, sprintf ("zero_cost: profile field '%s' must be %s.", bad{k,1},
%!                                   bad{k,3}));
%!     assert (err.identifier, "muonlab:badArg");
%!   end_try_catch
%! endfor
%! ## unknown fields are refused by name, missing ones too
%! Q = P;
%! Q.intra.broadcast = struct ("latency", 1e-6);
%! fail ("zero_cost ([4 4], 2, \"Profile\", Q)", "unknown profile field 'intra.broadcast'");
%! Q = P;
%! Q.mem_bandwidth = 1e12;
%! fail ("zero_cost ([4 4], 2, \"Profile\", Q)", "unknown profile field 'mem_bandwidth'");
%! Q = P;
%! Q.intra = rmfield (Q.intra, "latency");
%! fail ("zero_cost ([4 4], 2, \"Profile\", Q)", "the profile has no field 'intra.latency'");
%! ## a GEMM rate per precision of the core (core_lists), each required
%! for p = __muon_lists__ ().lists.precision
%!   Q = P;
%!   Q.gemm_peak = rmfield (Q.gemm_peak, p{1});
%!   fail ("zero_cost ([4 4], 2, \"Profile\", Q)",
%!         sprintf ("the profile has no field 'gemm_peak.%s'", p{1}));
%! endfor

%!test
%! ## a profile path that is not a regular file is refused before a byte is read (a FIFO
%! ## blocked fileread for ever, /dev/zero ate all memory), and so is one over 16 MiB
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   fail ("zero_cost ([4 4], 2, \"Profile\", d)",
%!         sprintf ("zero_cost: cannot read '%s': it is a folder\\.", d));
%!   fail ("zero_cost ([4 4], 2, \"Profile\", \"/dev/null\")",
%!         ["zero_cost: cannot read '/dev/null': not a regular file ", ...
%!          "\\(a FIFO, a device or a socket\\)\\."]);
%!   big = fullfile (d, "big.json");
%!   fid = fopen (big, "w");
%!   fwrite (fid, zeros (1, 2^24 + 1, "uint8"));    # one byte over max_config_bytes
%!   fclose (fid);
%!   fail ("zero_cost ([4 4], 2, \"Profile\", big)",
%!         sprintf ("zero_cost: '%s' is 16777217 bytes; at most 16777216 bytes", big));
%!   deep = fullfile (d, "deep.json");
%!   fid = fopen (deep, "w");
%!   fprintf (fid, "%s", repmat ("[", 1, 300));
%!   fclose (fid);
%!   fail ("zero_cost ([4 4], 2, \"Profile\", deep)",
%!         sprintf ("zero_cost: '%s' nests 300 deep; at most 200", deep));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## the profile's numbers enter the time as the flat ring model says (closed form here)
%! Q = struct ("devices_per_node", int32 (8), "mem_bw", 1e11,
%!             "gemm_peak", struct ("double", 1e12, "single", 2e12, "bf16", 4e12, "fp16", 4e12),
%!             "intra", struct ("bandwidth", 1e10, "latency", 1e-6, "efficiency", 0.5,
%!                              "allreduce", struct ("latency", 3e-6)),
%!             "inter", struct ("bandwidth", 1e9, "latency", 1e-5),
%!             "gemm_efficiency", 0.25, "ns_call_overhead", 1e-4, "step_overhead", 2e-3);
%! W = 4;
%! C = zero_cost ([64 64; 32 64], W, "Design", "zero12_allreduce", "Profile", Q);
%! N = C.padded_total;
%! assert (C.time.allreduce, 2 * (W - 1) * 3e-6 + 2 * (W - 1) / W * N * 2 / (0.5 * 1e10),
%!         1e-12);
%! assert (C.time.ns, max (C.ranks.ns_flops / (0.25 * 4e12) + C.ranks.ns_calls * 1e-4),
%!         1e-15);
%! assert (C.time.overhead, 2e-3);
%! C = zero_cost ([64 64; 32 64], 16, "Design", "zero12_allreduce", "Profile", Q);
%! N = C.padded_total;
%! assert (C.time.allreduce, 2 * 15 * 1e-5 + 2 * 15 / 16 * N * 2 / 1e9, 1e-12);

%!test
%! ## the two all-to-alls (to the owners, NS, back) run in sequence: the bandwidth term is
%! ## each call's busiest rank, summed over the two calls, not the busiest rank's total
%! ## (costmodel review F1).  One 4096 x 4096 matrix on 8 ranks (one H100 node: 3 us,
%! ## 450 GB/s x 0.8): every rank holds 512 rows; the owner (rank 0; LPT's, and
%! ## expert_parallel's partition is the same 512 rows a rank) receives 7 x 512 x 4096 bf16
%! ## elements in the first call and sends them in the second
%! one = 7 * 512 * 4096 * 2;                             # bytes of one call's busiest rank
%! want = 2 * 7 * 3e-6 + 2 * one / (450e9 * 0.8);       # 205.1 us (the review's figure)
%! assert (round (want * 1e7), 2051);
%! d = {"alltoall_owner", "muon_bp", "expert_parallel"};
%! S = struct (zero_cost ([4096 4096], 8, "Design", d));
%! for c = S
%!   assert (c.time.all_to_all, want, 1e-15);
%!   assert ([c.calls(1,6) c.sent(1,6) c.recv(1,6)], [2 one one]);   # the counters' totals
%! endfor
%! ## the ranking it changes: [3136 3072; 512 2432] on 8 ranks.  alltoall_owner: rank 0 owns
%! ## the large matrix and gathers 7 of its 8 shards of 392 rows; expert_parallel: its
%! ## stage-2 partition S = total / 8 (16 | total), rank 0 (the LPT owner of the large one)
%! ## lacks all of it but its S, rank 1 owns the small one
%! a2a = @(b) 2 * 7 * 3e-6 + 2 * b * 2 / (450e9 * 0.8);
%! tot = 3136 * 3072 + 512 * 2432;
%! S = struct (zero_cost ([3136 3072; 512 2432], 8, "Design",
%!                        {"alltoall_owner", "muon_bp", "expert_parallel", "moonlight_gather"}));
%! assert (arrayfun (@(c) c.time.all_to_all, S(1:3)),
%!         [a2a(7 * 392 * 3072), a2a(7 * 392 * 3072), a2a(3136 * 3072 - tot / 8)], 1e-15);
%! assert (S(1).time.step > S(4).time.step);             # moonlight_gather is cheaper now
%! txt = evalc ("disp (zero_cost_result (S([1 4])))");
%! assert (! isempty (strfind (txt, "cheapest: moonlight_gather,")));
%! ## a profile of its own: latency and bandwidth of the all-to-all, efficiency
%! Q = struct ("devices_per_node", int32 (8), "mem_bw", 1e11,
%!             "gemm_peak", struct ("double", 1e12, "single", 2e12, "bf16", 4e12, "fp16", 4e12),
%!             "intra", struct ("bandwidth", 1e10, "latency", 1e-6, "efficiency", 0.5,
%!                              "all_to_all", struct ("latency", 5e-6, "bandwidth", 2e10)),
%!             "inter", struct ("bandwidth", 1e9, "latency", 1e-5),
%!             "gemm_efficiency", 0.25, "ns_call_overhead", 1e-4, "step_overhead", 2e-3);
%! c = zero_cost ([64 48; 40 48; 8 48], 4, "Design", "alltoall_owner", "Profile", Q);
%! ## owners 0, 1, 2 (size order); shards of 16, 10 and 2 rows; rank 0 receives 3 x 16 x 48,
%! ## rank 1 3 x 10 x 48, rank 3 sends 16 + 10 + 2 rows: the busiest call moves rank 0's
%! ## 48 rows (its total, 48 + 12 rows, is not a call's)
%! assert (c.time.all_to_all, 2 * 3 * 5e-6 + 2 * 48 * 48 * 2 / (0.5 * 2e10), 1e-18);

%!test
%! ## peak memory past the profile's memory_bytes: summary.memory_over and "over memory" in
%! ## the display; the ranking ignores it (a profile of its own with 72 kB a device)
%! Q = struct ("devices_per_node", 8, "mem_bw", 1e11, "memory_bytes", 72e3,
%!             "gemm_peak", struct ("double", 1e12, "single", 2e12, "bf16", 4e12, "fp16", 4e12),
%!             "intra", struct ("bandwidth", 1e10, "latency", 1e-6),
%!             "inter", struct ("bandwidth", 1e9, "latency", 1e-5));
%! d = {"zero12_allreduce", "zero2_slice_only", "alltoall_owner", "layerwise_lpt"};
%! S = struct (zero_cost ({[64 64], [32 64], [96 32]}, 4, "Design", d, "Profile", Q));
%! s = [S.summary];
%! over = [s.memory_max] > 72e3;
%! assert (any (over) && ! all (over));
%! assert ([s.memory_over], over);
%! txt = evalc ("disp (zero_cost_result (S))");
%! for k = 1:numel (d)
%!   row = regexp (txt, ["\n  " d{k} " [^\n]*"], "match", "once");
%!   assert (! isempty (strfind (row, "over memory")), over(k), d{k});
%! endfor
%! assert (! isempty (strfind (txt, "over memory: past the profile's device memory, still ranked")));
%! t = arrayfun (@(c) c.time.step, S);
%! ok = ! ismember (d, zero_cost_result.wrong_designs ());
%! t(! ok) = Inf;
%! [~, b] = min (t);
%! assert (! isempty (strfind (txt, ["cheapest: " d{b} ","])));
%! ## without memory_bytes nothing is over; the H100 profile's is 80 GB
%! Q = rmfield (Q, "memory_bytes");
%! S = struct (zero_cost ({[64 64], [32 64], [96 32]}, 4, "Design", d, "Profile", Q));
%! assert ([[S.summary].memory_over], false (1, 4));
%! C = zero_cost ([4096 4096], 8, "Design", "alltoall_owner");
%! assert (C.summary.memory_over, C.summary.memory_max > 80e9);

%!test
%! ## the designs without all-to-all keep their times exactly (the values before the
%! ## costmodel review's F1 fix): their calls are balanced, one busiest rank for all
%! S = struct (zero_cost ([3136 3072; 512 2432], 8, "Design",
%!                        {"zero3_round_robin", "moonlight_gather", "zero2_multi_owner"}));
%! assert ([S(1).time.allreduce S(1).time.all_gather S(1).time.step], ...
%!         [0.00014776782222222223 0.00086517884444444447 0.0026833045338788171]);
%! assert ([S(2).time.reduce_scatter S(2).time.all_gather],
%!         [7.3883911111111115e-05 7.3883911111111115e-05]);
%! assert ([S(3).time.allreduce S(3).time.step], [0.00013566186666666668 0.0018290808095684907]);
%! S = struct (zero_cost ([123 1850; 660 389; 132 2811], 8, "Design", "layerwise_lpt"));
%! assert ([S.time.reduce_scatter S.time.step], [3.5430577777777781e-05 6.4025088538759614e-05]);
%! S = struct (zero_cost ([1000 300; 77 512; 4096 11; 5 5], 24, "Design", "zero12_allreduce"));
%! assert ([S.time.allreduce S.time.step], [0.00049685060000000006 0.00054245297604276984]);
