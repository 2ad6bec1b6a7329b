## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_options_parse.m - how options are parsed and checked (split from test_options.m, the
## option tables against the help texts): parse_options (any case, [] for the default, the
## last of a repeated name, pass-through, required options), the core's lists, limits and
## defaults (__muon_lists__) against what inst/ reads, the gateways' words for an unknown
## name and their messages, sparse option values taken as full, and a schedule of more than
## 1000 rows refused where it is parsed.  The private functions are called through
## test_options ("private", F, ...); the option tables through test_options ("spec", KEY).
## Run: test test_options_parse (tests/octave/run_all.m).

function test_options_parse ()
  help test_options_parse
endfunction

%!test
%! ## the parser: any case, [] for the default, the last of a repeated name, table order,
%! ## pass-through, the caller's default, required options
%! o = test_options ("private", "parse_options", "f", "muon_ns", {"method", "GRAM", "sTePs", 3});
%! assert ({o.method, o.steps}, {"gram", 3});
%! o = test_options ("private", "parse_options", "f", "muon_ns", {"Precision", []}, "precision", "bf16");
%! assert (o.precision, "bf16");
%! o = test_options ("private", "parse_options", "f", "muon_ns", {}, "precision", "fp16");
%! assert (o.precision, "fp16");
%! o = test_options ("private", "parse_options", "f", "muon_ns", {"Steps", 2, "Steps", 4});
%! assert (o.steps, 4);
%! o = test_options ("private", "parse_options", "f", "muon_ns", {"Restarts", []});
%! assert (o.restarts, zeros (1, 0));
%! d = test_options ("private", "core_lists").defaults.ns;
%! o = test_options ("private", "parse_options", "f", "muon_ns", {});
%! assert ({o.method, o.steps, o.restarts, o.eps, o.gemm}, {d.method, d.steps, d.restarts, d.eps, d.gemm});
%! try
%!   test_options ("private", "parse_options", "f", "muon_ns", {"Threads", -1, "Method", "x"});
%!   error ("no error");
%! catch err
%!   assert (err.message, "f: METHOD must be 'standard' or 'gram'.");
%! end_try_catch
%! [o, rest] = test_options ("private", "parse_options", "f", "muon_optimizer", {"beta", 0.5, "LR", 2, "Steps", 3});
%! assert (o.lr, 2);
%! assert (rest, {"beta", 0.5, "Steps", 3});
%! o = test_options ("private", "parse_options", "f", "zero_muon_step", {});
%! assert ({o.precision, o.variant, o.comm}, {"double", "zero12_allreduce", "sim"});
%! try
%!   test_options ("private", "parse_options", "f", "muon_mpirun", {"timeout", 5});
%!   error ("no error");
%! catch err
%!   assert (err.message, "f: NP must be an integer from 1 to 1024.");
%! end_try_catch

%!test
%! ## inst/ reads the core's lists, limits and defaults (__muon_lists__)
%! L = __muon_lists__ ();
%! assert (L, test_options ("private", "core_lists"));
%! assert (L.lists.precision, {"double", "single", "bf16", "fp16"});
%! assert (L.lists.gemm, {"auto", "openblas", "onednn"});
%! assert (L.lists.zero_variant{end}, "layerwise_ns_cost");
%! ## what each design runs Newton-Schulz on: slice-only its pieces' rows, MuonBP its row
%! ## shards on block steps, the rest whole blocks (zero_muon_step's divergence bound)
%! sc = L.ns_scope.zero_variant;
%! assert (numel (sc), numel (L.lists.zero_variant));
%! assert (sc(strcmp (L.lists.zero_variant, "zero2_slice_only")), {"piece_rows"});
%! assert (sc(strcmp (L.lists.zero_variant, "muon_bp")), {"block_step_shard_rows"});
%! assert (all (strcmp (sc(! ismember (L.lists.zero_variant, {"zero2_slice_only", "muon_bp"})), "blocks")));
%! assert ([L.limits.max_steps, L.limits.max_restarts, L.limits.max_threads], [1000 64 1024]);
%! assert ({L.defaults.ns.method, L.defaults.ns.coefficients, L.defaults.ns.restarts}, {"standard", "keller", 2});
%! assert ({L.defaults.update.beta, L.defaults.update.form, L.defaults.layout.stage, L.defaults.step.pad_count}, {0.95, "ema", 2, "deepspeed"});
%! for k = fieldnames (L.lists)'
%!   assert (iscellstr (L.lists.(k{1})) && numel (L.lists.(k{1})) >= 2, "%s", k{1});
%!   assert (ischar (L.what.(k{1})), true);
%! endfor
%! S = test_options ("spec", "muon_ns");
%! assert (S.arg{strcmp (S.names, "Method")}, L.lists.method);
%! assert (S.arg{strcmp (S.names, "Steps")}, [1 L.limits.max_steps]);
%! assert (muon_coeffs (), test_options ("private", "coeff_table"));

%!test
%! ## the gateways word an unknown name with the list's own word
%! G = magic (4);
%! for c = {"method", "method"; "precision", "precision"; "schedule_mode", "schedule mode";
%!          "device", "device"; "gemm", "GEMM provider"}'
%!   try
%!     __muon_ns__ (G, struct (c{1}, "x"));
%!     error ("no error");
%!   catch err
%!     assert (err.message, sprintf ("muon_ns: unknown %s 'x'.", c{2}));
%!     assert (err.identifier, "muonlab:badArg");
%!   end_try_catch
%! endfor

%!test
%! ## a sparse option value is taken as full: SplitRows, Coefficients and Restarts gave the
%! ## gateway's "option split_rows must be a real double array" (an internal name); checked
%! ## against per-block calls and the plain-Octave Newton-Schulz ref_ns
%! G = reshape (sin (1:96), 12, 8);
%! U = muon_update (G, [], "SplitRows", sparse ([4 8]));
%! assert (issparse (U), false);
%! assert (U, [muon_update(G(1:4,:), []); muon_update(G(5:12,:), [])], 1e-14);
%! C = [3.4445 -4.775 2.0315; 2 -1.5 0.5];
%! X = muon_ns (G, "Coefficients", sparse (C));
%! assert (X, ref_ns (G, "Coefficients", C), 1e-12);
%! H = reshape (cos (1:192), 8, 24);
%! X = muon_ns (H, "Method", "gram", "Restarts", sparse ([1 3]));
%! assert (X, ref_ns (H, "Method", "gram", "Restarts", [1 3]), 1e-12);

%!test
%! ## zero_muon_step takes a sparse SplitRows (for all or per parameter) as muon_update does
%! G = reshape (sin (1:96), 12, 8);
%! U = [muon_update(G(1:4,:), []); muon_update(G(5:12,:), [])];
%! L = zero_layout ({[12 8]}, 2);
%! for sr = {sparse([4 8]), {sparse([4 8])}}
%!   R = zero_muon_step (L, {G; G}, [], "SplitRows", sr{1});
%!   assert (R.updates{1}, U, 1e-14);
%! endfor

%!error <__muon_lists__: usage: L = __muon_lists__ \(\)\.> __muon_lists__ (1)
%!error <muon_update: unknown momentum form 'x'.> __muon_update__ (magic (4), [], struct ("form", "x"))
%!error <zero_muon_step: unknown variant 'x'.> __muon_zero_step__ ([4 4], 1, struct (), {magic(4)}, [], struct ("variant", "x"), "sim", false)
%!error <zero_muon_step: unknown pad count rule 'x'.> __muon_zero_step__ ([4 4], 1, struct (), {magic(4)}, [], struct ("pad_count", "x"), "sim", false)
%!error <muon_collective: OP must be 'sum' or 'avg'.> __muon_comm__ ("allreduce", "self", 1, "max")
%!error <muon_collective: unknown command 'gather'.> __muon_comm__ ("gather", "self", 1)
%!error <muon_comm: unknown communicator kind 'tcp'.> __muon_comm__ ("create", "tcp")
%!error <muon_comm: COMM must be 'self', 'sim', 'mpi', 'nccl', or a struct from muon_comm.> __muon_comm__ ("create", 3)
%!error <muon_comm: a sim communicator has only the 'fixed' reduction.> __muon_comm__ ("create", struct ("kind", "sim", "size", 2, "reduction", "mpi"))
%!error <muon_ns: COEFFICIENTS must be a K x 3 matrix with K from 1 to 1000\.> __muon_ns__ (magic (4), struct ("coeffs", ones (1001, 3)))
%!error <muon_ns: COEFFICIENTS must be a K x 3 matrix with K from 1 to 1000\.> muon_ns (magic (4), "Coefficients", repmat ([1.5 -0.5 0], 1001, 1))
%!error <muon_ns: RESTARTS must be integers from 0 to 2147483647\.> muon_ns (magic (4), "Method", "gram", "Restarts", 1e10)

%!test
%! ## K > 1000 is refused where the option is parsed, with the gateway's message and id,
%! ## before a schedule of 3e5 rows is expanded and mapped (that took 90 s in muon_ns, 10 s
%! ## for 1e5 rows in ns_schedule_audit); every caller parses it there
%! C = repmat ([3.4445 -4.775 2.0315], 3e5, 1);
%! calls = {"muon_ns", @() muon_ns (randn (4, 8), "Coefficients", C), "COEFFICIENTS";
%!          "muon_update", @() muon_update (randn (4, 8), [], "Coefficients", C), "COEFFICIENTS";
%!          "zero_cost", @() zero_cost ({[4 8]}, 2, "Coefficients", C), "COEFFICIENTS";
%!          "ns_schedule_audit", @() ns_schedule_audit (C), "COEFFS";
%!          "ns_restart_autotune", @() ns_restart_autotune (C), "COEFFS";
%!          "ns_restart_search", @() ns_restart_search (randn (4, 8), "Coefficients", C), ...
%!          "COEFFICIENTS"};
%! for k = 1:rows (calls)
%!   t0 = tic ();
%!   try
%!     calls{k,2} ();
%!     error ("test:noError", "%s accepted 3e5 rows", calls{k,1});
%!   catch err
%!     assert (err.message, sprintf ("%s: %s must be a K x 3 matrix with K from 1 to 1000.",
%!                                   calls{k,1}, calls{k,3}));
%!     assert (err.identifier, "muonlab:badShape");
%!   end_try_catch
%!   assert (toc (t0) < 2, "%s took %g s to refuse 3e5 rows", calls{k,1}, toc (t0));
%! endfor

## muon_optimizer's option errors carry the id (from its own file, kept under 500 lines)
%!error id=muonlab:badArg muon_optimizer (struct ("W", ones (4, 3)), "Coefficients", "foo")
%!error id=muonlab:badArg muon_optimizer (struct ("W", ones (4, 3)), "Foo", 1)

%!test
%! ## the communicator a rank whose options were refused joins with (comm_in_args): a
%! ## NAME position first; in a list that is no NAME, VALUE list any position, a "comm"
%! ## VALUE followed by a string only when that string is a kind of communicator; a
%! ## trailing "Comm" is none ({}); no "Comm" at all is the default ([])
%! c = struct ("kind", "mpi", "size", 2, "local_ranks", 1);
%! cia = @(a) test_options ("private", "comm_in_args", a);
%! assert (cia ({"Comm", c, "Beta", 1}), c);
%! assert (cia ({"Assemble", "Comm", c}), c);
%! assert (cia ({"Beta", "Comm", c, "Nesterov"}), c);
%! assert (cia ({"Beta", "Comm", "mpi", "Nesterov"}), "mpi");
%! assert (cia ({"Beta", 0.9, "Comm"}), {});
%! assert (cia ({"Comm", []}), {});
%! assert (cia ({"Coefficients", "comm", "Steps", 2}), []);
%! assert (cia ({"Beta", 1}), []);
