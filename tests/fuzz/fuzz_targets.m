## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## fuzz_targets - the calls tests/fuzz/fuzz_public.m mutates: for each public function, a
## valid argument list (MAKE, drawn afresh for each call with the script's choose), the
## option names and values it takes (OPTS), how many outputs (NOUT) and which arguments are
## opaque objects whose fields are mutated too (OPAQUE).  SCRATCH: a folder for the files
## the state functions write.  Uses the script's random stream (choose), so a seed gives the
## same calls.

function T = fuzz_targets (scratch)
  G = reshape (mod ((1:24) * 7, 11), 4, 6) / 5 - 1 + [eye(4), zeros(4, 2)];
  ns_opts = {"Method", {"standard", "gram"}, "Steps", {1, 3, 8}, ...
             "Coefficients", {"keller", "polar_express", [3 -3 1; 2 -1.5 0.5]}, ...
             "ScheduleMode", {"repeat_last", "cycle"}, ...
             "Precision", {"double", "single", "bf16", "fp16"}, "Restarts", {[], 2, [1 2]}, ...
             "GramMinAspect", {1, 2}, "Eps", {1e-7, 0}, "NormalizeFirst", {true, false}, ...
             "Fused", {false, true}, "Batched", {false, true}, "SymBlocks", {0, 1, 3}, ...
             "Device", {"cpu"}, "Gemm", {"auto", "openblas", "onednn"}, "Threads", {0, 1, 2}};
  upd_opts = [{"Beta", {0.9, 0}, "Nesterov", {true, false}, "MomentumForm", {"ema", "sgd"}, ...
               "Scale", {"keller", "rms", "spectral", "unit_rms", "none"}, ...
               "ScaleFactor", {1, 0.2}, "Experts", {1, 2}, "SplitRows", {[], [1 1]}, ...
               "ConvScale", {"flattened", "last_two"}}, ns_opts];
  params = struct ("W", G, "b", [1 2 3 4]);
  grads = struct ("W", G / 3, "b", [4 3 2 1]);
  opt = muon_optimizer (params);
  L = zero_layout ({[4 3], [2 5], [3 3]}, 2);
  rg = cell (2, 3);
  for k = 1:6
    [l, p] = ind2sub ([2 3], k);
    sz = [L.params(p).rows, L.params(p).cols];
    rg{k} = reshape (mod ((1:prod (sz)) * (k + 3), 7), sz) - 3;
  endfor
  [~, zst] = zero_muon_step (L, rg, []);
  [~, ust] = muon_update (G, []);
  state_file = fullfile (scratch, "fuzz_state.bin");
  muon_save_state (state_file, opt);
  sim = muon_comm ("sim", 2);
  shard_prefix = fullfile (scratch, "fuzz_shard");
  zero_save_state (shard_prefix, L, zst);
  [~, tst] = zero_train_step (L, rg, []);
  T = struct ("name", {}, "make", {}, "opts", {}, "nout", {}, "opaque", {});
  T(end+1) = struct ("name", "muon_ns", "make", @() {G}, "opts", {ns_opts}, "nout", 2,
                     "opaque", 0);
  T(end+1) = struct ("name", "muon_update", "make", @() {G, choose({[], ust})},
                     "opts", {upd_opts}, "nout", 2, "opaque", 0);
  T(end+1) = struct ("name", "muon_gpu",
                     "make", @() choose ({{G}, {"randn", [4 6]}, {"zeros", [3 2 2]}, ...
                                          {muon_gpu(G, "Device", "cpu")}}),
                     "opts", {{"Device", {"cpu"}, "Class", {"double", "single", "bf16", "fp16"}, ...
                               "Seed", {0, 7}}}, "nout", 1, "opaque", 0);
  T(end+1) = struct ("name", "muon_coeffs", "make", @() choose ({{}, {"keller"}, {"cans"}}),
                     "opts", {{}}, "nout", 1, "opaque", 0);
  T(end+1) = struct ("name", "muon_info", "make", @() {}, "opts", {{}}, "nout", 1,
                     "opaque", 0);
  T(end+1) = struct ("name", "muon_optimizer", "make", @() {params},
                     "opts", {[{"LR", {0.01}, "MuonLR", {0.02}, "AdamLR", {1e-3}, ...
                                "WeightDecay", {0, 0.1}, "MuonWeightDecay", {0.1}, ...
                                "AdamWeightDecay", {0.1}, "AdamBetas", {[0.9 0.95]}, ...
                                "AdamEps", {1e-8}, ...
                                "ClipPolicy", {"none", "before_ns", "after_ns", "skip_muon"}, ...
                                "ClipNorm", {1}, "LossScaler", {"none", "dynamic"}, ...
                                "PoisonMomentum", {false, true}, "AccumulationSteps", {1, 2}, ...
                                "PerMicroBatchNS", {false, true}, ...
                                "Route", {struct("b", "adamw"), {"W", "adamw"}}, ...
                                "ParamOptions", {struct("W", {{"Beta", 0.9}})}}, upd_opts]},
                     "nout", 1, "opaque", 0);
  T(end+1) = struct ("name", "muon_step", "make", @() {opt, params, grads}, "opts", {{}},
                     "nout", 3, "opaque", 1);
  ## the same on the CPU stand-in device: the state there, parameters and gradients too
  dev = @(S) structfun (@(x) muon_gpu (x, "Device", "cpu"), S, "UniformOutput", false);
  dopt = muon_optimizer (params, "Device", "cpu", "Resident", true);
  T(end+1) = struct ("name", "muon_step", "make",
                     @() {dopt, choose({params, dev(params)}), choose({grads, dev(grads)})},
                     "opts", {{}}, "nout", 3, "opaque", 1);
  T(end+1) = struct ("name", "zero_layout", "make", @() {{[4 3], [2 5], [3 3]}, 2},
                     "opts", {{"Stage", {1, 2, 3}, "AlignFactor", {1, 2, 4}, ...
                               "Order", {"given", "size_desc"}}}, "nout", 1, "opaque", 0);
  T(end+1) = struct ("name", "zero_muon_step", "make", @() {L, rg, choose({[], zst})},
                     "opts", {[{"Variant", {"reference", "zero12_allreduce", ...
                                            "zero2_reduce_scatter_buggy", "zero2_slice_only", ...
                                            "zero2_multi_owner", "zero3_round_robin", ...
                                            "zero3_round_robin_aliased_pads", "layerwise_lpt", ...
                                            "moonlight_gather"}, ...
                                "Comm", {"sim", sim}, "Reference", {true, false}, ...
                                "Assemble", {true, false}, "PadCount", {"deepspeed", "keller"}}, ...
                               upd_opts]}, "nout", 2, "opaque", [1 3]);
  ## the same on the CPU stand-in device (muon_zero_step_device): device gradients, a device
  ## or a host state
  drg = cellfun (@(x) muon_gpu (x, "Device", "cpu", "Class", "double"), rg,
                 "UniformOutput", false);
  [~, dzst] = zero_muon_step (L, drg, []);
  T(end+1) = struct ("name", "zero_muon_step", "make", @() {L, drg, choose({[], dzst, zst})},
                     "opts", {[{"Variant", __muon_lists__().lists.zero_variant, ...
                                "Comm", {"sim", sim}, "Reference", {true, false}, ...
                                "Assemble", {true, false}, "Period", {1, 2}, ...
                                "PadCount", {"deepspeed", "keller"}}, upd_opts]},
                     "nout", 2, "opaque", [1 3]);
  T(end+1) = struct ("name", "polar_metrics", "make", @() {G, muon_ns(G)}, "opts", {{}},
                     "nout", 1, "opaque", 0);
  ## muon_ns, muon_update and polar_metrics on the CPU stand-in's device arrays, of every
  ## class (the NaN and Inf ones made on the device, where muon_gpu would refuse them)
  D = @(x, c) muon_gpu (x, "Device", "cpu", "Class", c);
  classes = {"double", "single", "bf16", "fp16"};
  dG = @() choose ({D(G, choose (classes)), D(G, "double") * Inf, D(G, "single") * NaN});
  [~, dust] = muon_update (D(G, "single"), []);
  T(end+1) = struct ("name", "muon_ns", "make", @() {dG()}, "opts", {ns_opts}, "nout", 2,
                     "opaque", 0);
  T(end+1) = struct ("name", "muon_update", "make", @() {dG(), choose({[], dust, ust})},
                     "opts", {upd_opts}, "nout", 2, "opaque", 0);
  T(end+1) = struct ("name", "polar_metrics", "make", @() {dG(), choose({dG(), G})},
                     "opts", {{}}, "nout", 1, "opaque", 0);
  T(end+1) = struct ("name", "ns_flops", "make", @() {choose({64, 4}), choose({128, 6})},
                     "opts", {{"Steps", {5, 1}, "Restarts", {[], 2}, "Symmetric", {true, false}, ...
                               "Method", {"standard", "gram"}}}, "nout", 1, "opaque", 0);
  T(end+1) = struct ("name", "muon_round", "make",
                     @() {G * 1e3, choose({"double", "single", "bf16", "fp16"})},
                     "opts", {{}}, "nout", 1, "opaque", 0);
  T(end+1) = struct ("name", "muon_save_state", "make",
                     @() {fullfile(scratch, "fuzz_save.bin"), opt}, "opts", {{}}, "nout", 0,
                     "opaque", 2);
  T(end+1) = struct ("name", "muon_load_state", "make", @() {state_file, params},
                     "opts", {{"StatePrecision", {"keep", "double", "single", "bf16", "fp16"}}},
                     "nout", 1, "opaque", 0);
  T(end+1) = struct ("name", "muon_comm", "make", @() choose ({{"self"}, {"sim", 2}}),
                     "opts", {{"Reduction", {"fixed"}}}, "nout", 1, "opaque", 0);
  T(end+1) = struct ("name", "muon_collective", "make",
                     @() choose ({{sim, "allreduce", {[1 2], [3 4]}}, ...
                                  {sim, "reduce_scatter", {[1 2], [3 4]}}, ...
                                  {sim, "all_gather", {[1 2], [3 4]}}, ...
                                  {sim, "broadcast", {[1 2], [3 4]}}, {sim, "barrier"}, ...
                                  {sim, "counters"}}),
                     "opts", {{"Op", {"sum", "avg"}, "Root", {0, 1}, "Reset", {true, false}}},
                     "nout", 2, "opaque", 0);
  ## the layout L and the ZeRO states (opaque 2, 3) get their fields mutated, nested ones too;
  ## a profile JSON file as a path (another option's value, or a junk string, as the path)
  profile = fullfile (scratch, "fuzz_profile.json");
  copyfile (fullfile (fileparts (which ("zero_cost")), "profiles", "h100_node.json"), profile);
  T(end+1) = struct ("name", "zero_cost", "make",
                     @() choose ({{L, 2}, {{[4 3], [2 5]}, 2}, {{[4; 3], [2 5]}, 2}, ...
                                  {[4 3; 2 5], 4}}),
                     "opts", {{"Stage", {1, 2, 3}, "Order", {"given", "size_desc"}, ...
                               "AlignFactor", {1, 2}, "Profile", {"h100", profile}}},
                     "nout", 1, "opaque", 1);
  T(end+1) = struct ("name", "zero_save_state", "make",
                     @() {fullfile(scratch, "fuzz_saved"), L, zst}, "opts", {{}}, "nout", 1,
                     "opaque", [2 3]);
  T(end+1) = struct ("name", "zero_load_state", "make", @() {shard_prefix, L},
                     "opts", {{"Variant", {"reference", "zero12_allreduce", "zero2_slice_only"}}},
                     "nout", 1, "opaque", 2);
  T(end+1) = struct ("name", "zero_train_step", "make", @() {L, rg, choose({[], tst})},
                     "opts", {{"AccumulationSteps", {1, 2}, "LossScaler", {"none", "dynamic"}, ...
                               "ClipNorm", {1}, "Variant", {"reference", "zero12_allreduce"}}},
                     "nout", 2, "opaque", [1 3]);
  T(end+1) = struct ("name", "zero_plot_layout", "make", @() {L}, "opts", {{}}, "nout", 1,
                     "opaque", 1);
  T(end+1) = struct ("name", "ns_restart_autotune", "make", @() {"keller"},
                     "opts", {{"MaxRestarts", {0, 1, 2}, "Grid", {{}, [1 0.5 1e-3]}, ...
                               "Shift", {-4e-4, 0}, "Steps", {[], 3}}},
                     "nout", 2, "opaque", 0);
  ## the Newton-Schulz design and audit tools, qk_clip, the model tables and the CSV / JSON
  ## export (files in SCRATCH; a junk path lands there too)
  T(end+1) = struct ("name", "ns_design_coeffs", "make", @() {choose({3, 5})},
                     "opts", {{"Lower", {1e-3, 0.1}, "Cushion", {0, 0.02}, ...
                               "Safety", {1, 1.01}, "SafetyMode", {"construct", "after"}, ...
                               "SafetyLast", {true, false}, "Display", {"off"}}},
                     "nout", 2, "opaque", 0);
  T(end+1) = struct ("name", "ns_schedule_audit",
                     "make", @() choose ({{}, {"keller"}, {{"keller", "aol"}}, ...
                                          {[3 -3 1; 2 -1.5 0.5]}}),
                     "opts", {{}}, "nout", 1, "opaque", 0);
  T(end+1) = struct ("name", "ns_restart_search", "make", @() {G},
                     "opts", {{"MaxRestarts", {0, 1}, "Steps", {3, 5}, ...
                               "Coefficients", {"keller", "polar_express"}, ...
                               "Precision", {"single", "double"}, "Display", {"off"}}},
                     "nout", 2, "opaque", 0);
  Wq = reshape (mod ((1:48) * 5, 13), 8, 6) / 6 - 1;
  T(end+1) = struct ("name", "qk_clip",
                     "make", @() {Wq, Wq(1:4,:), [50 150 20 300], "QueryGroups", 2},
                     "opts", {{"Layout", {"gqa"}, "Heads", {4}, "Threshold", {100, 10}, ...
                               "Alpha", {0.5, 0, 1}}}, "nout", 3, "opaque", 0);
  T(end+1) = struct ("name", "muon_model",
                     "make", @() choose ({{"llama-3.1-8b"}, {"qwen3-30b-a3b"}}),
                     "opts", {{"MTP", {true, false}, "Experts", {"separate", "fused"}, ...
                               "Fuse", {"none", "qkv", "gate_up", "all"}}},
                     "nout", 1, "opaque", 0);
  X = struct ("n", [1; 2; 3], "loss", [0.5; -0; Inf], "name", {{"a"; "b,c"; "d"}});
  csv = fullfile (scratch, "fuzz_table.csv");
  muon_export (X, csv);
  T(end+1) = struct ("name", "muon_export",
                     "make", @() {X, fullfile(scratch, choose({"fuzz_out.csv", "fuzz_out.json"}))},
                     "opts", {{}}, "nout", 1, "opaque", 0);
  T(end+1) = struct ("name", "muon_import", "make", @() {csv}, "opts", {{}}, "nout", 1,
                     "opaque", 0);
endfunction
