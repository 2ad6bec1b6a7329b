## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_muon_model - muon_model against numbers from outside the code:
##  * the shipped models' parameter totals against their published counts (each count, what
##    it counts, whether an MTP layer is in it and where it was published are written below,
##    independently of the JSON files the function reads), within 0.5%;
##  * small Hugging Face style config.json files written for this test (tests/octave/configs/,
##    one per supported model_type) against totals computed here by hand from the formulas
##    of each architecture;
##  * the structure: names and shapes of chosen tensors, routing, fused options keeping the
##    totals, split rows summing to the rows.
## Run: `test test_muon_model` with inst/ and build/mex on the path.

function varargout = test_muon_model (name, varargin)
  if (nargin > 0)
    [varargout{1:nargout}] = feval (name, varargin{:});
  endif
endfunction

function f = cfg (name)
  f = fullfile (fileparts (mfilename ("fullpath")), "configs", [name ".json"]);
endfunction

%!shared cfg
%! cfg = @(n) test_muon_model ("cfg", n);

%!test
%! ## Published counts.  Each row: model, options, the count field compared, the published
%! ## number, and its source.
%! pub = {
%!  "llama-3.1-8b", {}, "total", 8030261248, ...
%!    "model.safetensors.index.json total_size 16060522496 bytes (bf16) / 2; no MTP"
%!  "llama-3.1-70b", {}, "total", 70553706496, ...
%!    "Llama-3.1-70B model.safetensors.index.json total_size 141107412992 bytes / 2; no MTP"
%!  "qwen3-30b-a3b", {}, "total", 30532122624, ...
%!    "Qwen3-30B-A3B model.safetensors.index.json total_size 61064245248 bytes / 2 (card: 30.5B); no MTP"
%!  "qwen3-30b-a3b", {}, "non_embedding", 29.9e9, ...
%!    "Qwen3-30B-A3B model card: 29.9B non-embedding parameters"
%!  "moonlight-16b-a3b", {}, "non_embedding", 15.29e9, ...
%!    "Moonlight paper arXiv:2502.16982: 15.29B total, embeddings excluded; no MTP"
%!  "moonlight-16b-a3b", {}, "activated", 2.24e9, ...
%!    "Moonlight paper arXiv:2502.16982: 2.24B activated, embeddings excluded"
%!  "deepseek-v3", {"MTP", false}, "total", 671e9, ...
%!    "DeepSeek-V3 README_WEIGHTS.md: main model 671B (no MTP module)"
%!  "deepseek-v3", {"MTP", true}, "stored", 685e9, ...
%!    "DeepSeek-V3 model card: 685B on Hugging Face = 671B main + 14B MTP module (stored with its copies of embedding and head)"
%!  "kimi-k2", {}, "stored", 1026.5e9, ...
%!    "Hugging Face safetensors metadata of moonshotai/Kimi-K2-Instruct: 1026.5B (incl. ~0.06B fp8 scales); no MTP layer"
%! };
%! for i = 1:rows (pub)
%!   M = muon_model (pub{i,1}, pub{i,2}{:});
%!   got = M.counts.(pub{i,3});
%!   err = abs (got - pub{i,4}) / pub{i,4};
%!   assert (err < 0.005, sprintf ("%s %s: %.6g vs published %.6g (%s)", pub{i,1},
%!           pub{i,3}, got, pub{i,4}, pub{i,5}));
%! endfor
%! ## DeepSeek-V3 README_WEIGHTS: 36.6B activated including the 0.9B output head
%! M = muon_model ("deepseek-v3", "MTP", false);
%! head = 129280 * 7168;
%! assert (abs (M.counts.activated + head - 36.6e9) / 36.6e9 < 0.005);
%! assert (abs (head - 0.9e9) / 0.9e9 < 0.05);

%!test
%! ## the shipped JSON holds the same published numbers as this test
%! for n = muon_model ()'
%!   M = muon_model (n{1});
%!   assert (! isempty (M.published), n{1});
%!   for k = 1:numel (M.published)
%!     P = M.published(k);
%!     C = muon_model (n{1}, "MTP", P.mtp).counts.(P.counts);
%!     assert (abs (C - P.count) / P.count < 0.005, sprintf ("%s: %s", n{1}, P.source));
%!   endfor
%! endfor

%!test
%! ## llama: tied embeddings, grouped-query attention
%! M = muon_model (cfg ("tiny_llama"));
%! V = 1000; h = 64; f = 176; q = 64; kv = 2 * 16;
%! layer = q*h + 2*kv*h + h*q + 3*h*f + 2*h;
%! assert (M.counts.total, V*h + 3*layer + h);
%! assert (M.family, "llama");
%! assert (! any (strcmp (M.params.name, "lm_head.weight")));
%! assert (M.counts.nmuon, 3 * 7);
%! k = strcmp (M.params.name, "model.layers.2.self_attn.v_proj.weight");
%! assert ([M.params.rows(k) M.params.cols(k)], [kv h]);

%!test
%! ## qwen2: q/k/v biases, untied head
%! M = muon_model (cfg ("tiny_qwen2"));
%! V = 500; h = 48; f = 96; q = 48; kv = 2 * 8;
%! layer = q*h + 2*kv*h + (q + 2*kv) + h*q + 3*h*f + 2*h;
%! assert (M.counts.total, 2*V*h + 2*layer + h);
%! k = strcmp (M.params.name, "model.layers.1.self_attn.k_proj.bias");
%! assert ([M.params.rows(k) M.params.cols(k)], [kv 1]);
%! assert (M.params.route(k), {"adamw"});
%! F = muon_model (cfg ("tiny_qwen2"), "Fuse", "qkv");
%! k = strcmp (F.params.name, "model.layers.0.self_attn.qkv_proj.weight");
%! assert (F.params.split{k}, [q kv kv]);
%! assert (sum (F.params.split{k}), F.params.rows(k));
%! assert (F.counts.total, M.counts.total);

%!test
%! ## attention_bias: q, k, v and o_proj biases (transformers' LlamaAttention builds all
%! ## four with bias=attention_bias); qwen2 has q/k/v biases only, whatever it says
%! c = struct ("model_type", "llama", "vocab_size", 100, "hidden_size", 8,
%!             "intermediate_size", 16, "num_hidden_layers", 2, "num_attention_heads", 2,
%!             "attention_bias", true);
%! layer = 4*8*8 + 4*8 + 3*8*16 + 2*8;
%! M = muon_model (c);
%! assert (M.counts.total, 2*100*8 + 2*layer + 8);
%! assert (M.counts.total, 2984);
%! k = strcmp (M.params.name, "model.layers.1.self_attn.o_proj.bias");
%! assert ([M.params.rows(k) M.params.cols(k)], [8 1]);
%! assert (M.params.route(k), {"adamw"});
%! assert (muon_model (c, "Fuse", "qkv").counts.total, M.counts.total);
%! c.model_type = "qwen2";
%! Q = muon_model (c);
%! assert (Q.counts.total, M.counts.total - 2*8);
%! assert (! any (strcmp (Q.params.name, "model.layers.0.self_attn.o_proj.bias")));

%!test
%! ## qwen3_moe: head_dim apart from hidden / heads, q/k norms, sparse step, mlp-only layer
%! M = muon_model (cfg ("tiny_qwen3_moe"));
%! V = 300; h = 32; f = 80; fe = 24; E = 4; q = 4 * 16; kv = 2 * 16;
%! attn = q*h + 2*kv*h + h*q + 2*16;
%! dense = 3*h*f;
%! experts = E*3*h*fe;
%! moe = E*h + experts;
%! assert (M.counts.total, 2*V*h + h + 4*(attn + 2*h) + 2*dense + 2*moe);
%! assert (M.counts.activated, M.counts.non_embedding - 2*experts + 2 * 2/E * experts);
%! assert (any (strcmp (M.params.name, "model.layers.3.mlp.experts.3.down_proj.weight")));
%! assert (any (strcmp (M.params.name, "model.layers.2.mlp.down_proj.weight")));
%! assert (! any (strcmp (M.params.name, "model.layers.0.mlp.gate.weight")));
%! F = muon_model (cfg ("tiny_qwen3_moe"), "Experts", "fused");
%! k = strcmp (F.params.name, "model.layers.1.mlp.experts.down_proj.weight");
%! assert ([F.params.rows(k) F.params.cols(k) F.params.experts(k)], [E*h fe E]);
%! assert (F.counts.total, M.counts.total);

%!test
%! ## qwen2_moe: shared expert and its 1 x h gate (AdamW: a row vector)
%! M = muon_model (cfg ("tiny_qwen2_moe"));
%! V = 200; h = 32; fe = 16; E = 6; q = 32; kv = 32;
%! attn = q*h + 2*kv*h + (q + 2*kv) + h*q;
%! moe = E*h + E*3*h*fe + 3*h*40 + h;
%! assert (M.counts.total, 2*V*h + h + 2*(attn + 2*h + moe));
%! k = strcmp (M.params.name, "model.layers.1.mlp.shared_expert_gate.weight");
%! assert ([M.params.rows(k) M.params.cols(k)], [1 h]);
%! assert (M.params.route(k), {"adamw"});

%!test
%! ## deepseek_v2: MLA without a query LoRA, greedy routing (no correction bias)
%! M = muon_model (cfg ("tiny_deepseek_v2"));
%! V = 400; h = 40; f = 72; fe = 12; E = 8; nh = 2; kvr = 16; nope = 8; rope = 4; vd = 6;
%! attn = nh*(nope + rope)*h + (kvr + rope)*h + kvr + nh*(nope + vd)*kvr + h*nh*vd;
%! moe = E*h + E*3*h*fe + 3*h*(2*fe);
%! assert (M.counts.total, 2*V*h + h + 3*(attn + 2*h) + 3*h*f + 2*moe);
%! assert (! any (strcmp (M.params.kind, "bias")));
%! k = strcmp (M.params.name, "model.layers.0.self_attn.q_proj.weight");
%! assert ([M.params.rows(k) M.params.cols(k)], [nh*(nope + rope) h]);

%!test
%! ## deepseek_v3: query LoRA, noaux_tc bias, one MTP layer
%! V = 256; h = 32; f = 64; fe = 8; E = 4; nh = 2; qr = 24; kvr = 16; nope = 8; rope = 4;
%! vd = 8;
%! attn = qr*h + qr + nh*(nope + rope)*qr + (kvr + rope)*h + kvr + nh*(nope + vd)*kvr + h*nh*vd;
%! moe = E*h + E + E*3*h*fe + 3*h*fe;
%! mtp = 2*h + 2*h*h + (attn + 2*h + moe) + h;
%! base = 2*V*h + h + (attn + 2*h + 3*h*f) + (attn + 2*h + moe);
%! M = muon_model (cfg ("tiny_deepseek_v3"));
%! assert (M.counts.total, base + mtp);
%! assert (M.counts.mtp, mtp);
%! assert (M.counts.stored, base + mtp + 2*V*h);
%! N = muon_model (cfg ("tiny_deepseek_v3"), "MTP", false);
%! assert ([N.counts.total N.counts.mtp N.counts.stored], [base 0 base + mtp + 2*V*h]);
%! k = strcmp (M.params.name, "model.layers.2.eh_proj.weight");
%! assert ([M.params.rows(k) M.params.cols(k)], [h 2*h]);
%! assert (M.params.route(k), {"muon"});
%! assert (M.params.mtp(k));
%! k = strcmp (M.params.name, "model.layers.1.mlp.gate.e_score_correction_bias");
%! assert (M.params.route(k), {"adamw"});
%! F = muon_model (cfg ("tiny_deepseek_v3"), "Fuse", "all", "Experts", "fused");
%! assert (F.counts.total, M.counts.total);
%! k = strcmp (F.params.name, "model.layers.1.self_attn.fused_qkv_a_proj_with_mqa.weight");
%! assert (F.params.split{k}, [qr kvr + rope]);
%! k = strcmp (F.params.name, "model.layers.2.mlp.experts.gate_up_proj.weight");
%! assert ([F.params.rows(k) F.params.experts(k)], [E*2*fe E]);
%! assert (F.params.split{k}, [fe fe]);

%!test
%! ## every split list sums to the rows of one expert
%! M = muon_model ("deepseek-v3", "Fuse", "all", "Experts", "fused");
%! s = ! cellfun ("isempty", M.params.split);
%! assert (any (s));
%! assert (cellfun (@sum, M.params.split(s)) .* M.params.experts(s), M.params.rows(s));

%!error <muon_model: 'x.json' is not valid JSON>
%! f = "x.json"; fid = fopen (f, "w"); fputs (fid, "{oops"); fclose (fid);
%! unwind_protect
%!   muon_model (f);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect
%!error <muon_model: config field 'num_key_value_heads' must be a positive integer.>
%! c = jsondecode (fileread (test_muon_model ("cfg", "tiny_llama")));
%! c.num_key_value_heads = 1.5;
%! muon_model (c);

%!test
%! ## MoE config keys at their edges, against totals by hand: top-k = E activates every
%! ## expert (activated = non_embedding); mlp_only_layers as jsondecode gives [0, 3] (a
%! ## column) makes layers 0 and 3 dense, null or [] none; moe_layer_freq 2 makes the even
%! ## layers past first_k_dense_replace sparse.
%! c = struct ("model_type", "mixtral", "vocab_size", 40, "hidden_size", 16,
%!             "intermediate_size", 24, "num_hidden_layers", 1, "num_attention_heads", 2,
%!             "num_key_value_heads", 1, "num_local_experts", 3, "num_experts_per_tok", 3);
%! M = muon_model (c);
%! assert (M.counts.activated, M.counts.non_embedding);
%! assert (M.counts.total, 2*40*16 + 16 + (16*16 + 2*8*16 + 16*16 + 2*16) + 3*16 + 3*3*16*24);
%! q = jsondecode (fileread (cfg ("tiny_qwen3_moe")));   # 4 layers, sparse step 2
%! h = 32; attn = 4*16*h + 2*2*16*h + h*4*16 + 2*16;
%! base = 2*300*h + h + 4*(attn + 2*h);
%! dense = 3*h*80;  moe = 4*h + 4*3*h*24;
%! q.mlp_only_layers = jsondecode ("[0, 3]");
%! assert (muon_model (q).counts.total, base + 3*dense + moe);
%! for v = {[], jsondecode("null")}
%!   q.mlp_only_layers = v{1};
%!   assert (muon_model (q).counts.total, base + 2*dense + 2*moe);
%! endfor
%! d = jsondecode (fileread (cfg ("tiny_deepseek_v2")));  # 3 layers, layer 0 dense
%! M1 = muon_model (d);
%! d.moe_layer_freq = 2;
%! M2 = muon_model (d);
%! assert (M1.counts.total - M2.counts.total, 8*40 + 8*3*40*12 + 3*40*24 - 3*40*72);

## impossible MoE configs: muonlab:badArg naming the key, before any block is made
%!error <muon_model: config field 'num_experts_per_tok' must be at most num_local_experts \(3\).>
%! muon_model (struct ("model_type", "mixtral", "vocab_size", 40, "hidden_size", 16,
%!                     "intermediate_size", 24, "num_hidden_layers", 1,
%!                     "num_attention_heads", 2, "num_key_value_heads", 1,
%!                     "num_local_experts", 3, "num_experts_per_tok", 30));
%!error <muon_model: config field 'num_experts_per_tok' must be at most num_experts \(4\).>
%! q = jsondecode (fileread (test_muon_model ("cfg", "tiny_qwen3_moe")));
%! q.num_experts_per_tok = 5;
%! muon_model (q);
%!error <muon_model: config field 'num_experts_per_tok' must be at most n_routed_experts \(8\).>
%! d = jsondecode (fileread (test_muon_model ("cfg", "tiny_deepseek_v2")));
%! d.num_experts_per_tok = 9;
%! muon_model (d);
%!error <muon_model: config field 'num_local_experts' must be at most 65536 \(the limit max_model_experts\).>
%! muon_model (struct ("model_type", "mixtral", "vocab_size", 40, "hidden_size", 16,
%!                     "intermediate_size", 24, "num_hidden_layers", 1,
%!                     "num_attention_heads", 2, "num_local_experts", 70000,
%!                     "num_experts_per_tok", 2));
%!test
%! ## mlp_only_layers: a list of whole layer indices 0 .. num_hidden_layers - 1 (HF: a list
%! ## of ints), else muonlab:badArg naming it; what jsondecode gives for [0, "x"] included
%! q = jsondecode (fileread (test_muon_model ("cfg", "tiny_qwen3_moe")));
%! msg = "muon_model: config field 'mlp_only_layers' must be a list of layer indices from 0 to num_hidden_layers - 1 (3).";
%! for v = {jsondecode('[0, "x"]'), struct("a", 0), [0 NaN 2.5 -3], [0 2.5], -1, 4, Inf, ...
%!          "0", true, [0 1; 2 3], 1i}
%!   q.mlp_only_layers = v{1};
%!   try
%!     muon_model (q);
%!     error ("no error");
%!   catch err
%!     assert ({err.identifier, err.message}, {"muonlab:badArg", msg});
%!   end_try_catch
%! endfor
%!test
%! ## divisors and counts that must be positive integers: 0, NaN, fractions, negatives and
%! ## what jsondecode gives for [1] in a scalar's place are muonlab:badArg naming the key
%! q = jsondecode (fileread (test_muon_model ("cfg", "tiny_qwen3_moe")));
%! d = jsondecode (fileread (test_muon_model ("cfg", "tiny_deepseek_v2")));
%! for k = {q, "decoder_sparse_step"; q, "num_key_value_heads"; d, "moe_layer_freq"}.'
%!   for v = {0, NaN, 1.5, -2, {1}, "1", true}
%!     c = k{1};
%!     c.(k{2}) = v{1};
%!     try
%!       muon_model (c);
%!       error ("no error");
%!     catch err
%!       assert ({err.identifier, err.message}, {"muonlab:badArg", ...
%!               sprintf("muon_model: config field '%s' must be a positive integer.", k{2})});
%!     end_try_catch
%!   endfor
%! endfor
%!error <muon_model: num_attention_heads \(4\) must be a multiple of num_key_value_heads \(3\).>
%! q = jsondecode (fileread (test_muon_model ("cfg", "tiny_qwen3_moe")));
%! q.num_key_value_heads = 3;
%! muon_model (q);

%!test
%! ## a config's own muonlab metadata (as the shipped JSON files hold it): its name and its
%! ## published counts, shown beside the count each compares with (2920: by hand, in
%! ## muon_model's tests); null for none
%! c = struct ("model_type", "llama", "vocab_size", 100, "hidden_size", 8,
%!             "intermediate_size", 16, "num_hidden_layers", 2, "num_attention_heads", 2);
%! c.muonlab = jsondecode ('{"name": "tiny", "published": [{"count": 2920, "counts": "total", "mtp": false, "source": "by hand"}]}');
%! M = muon_model (c);
%! assert (M.name, "tiny");
%! assert (M.published.count, 2920);
%! txt = evalc ("disp (M)");
%! assert (! isempty (strfind (txt, "published: 2920 (here counts.total = 2920; by hand)")));
%! c.muonlab = jsondecode ('{"name": null, "published": null}');
%! M = muon_model (c);
%! assert ({M.name, numel(M.published)}, {"config", 0});
%!test
%! ## malformed muonlab metadata: muonlab:badArg naming the key (the display failed with
%! ## Octave's indexing errors)
%! c = struct ("model_type", "llama", "vocab_size", 100, "hidden_size", 8,
%!             "intermediate_size", 16, "num_hidden_layers", 2, "num_attention_heads", 2);
%! msg = "muon_model: config field 'muonlab.published' must be a list of objects with count (a positive number), counts (a string), mtp (true or false) and source (a string).";
%! for v = {5, "x", {1}, struct("count", 1), jsondecode('{"count": 1, "counts": "total", "mtp": 2, "source": "s"}'), ...
%!          jsondecode('[{"count": 1, "counts": "total", "mtp": true, "source": "s"}, {"count": -1, "counts": "total", "mtp": true, "source": "s"}]'), ...
%!          jsondecode('{"count": 1, "counts": 3, "mtp": true, "source": "s"}')}
%!   c.muonlab = struct ("published", {v});
%!   try
%!     muon_model (c);
%!     error ("no error");
%!   catch err
%!     assert ({err.identifier, err.message}, {"muonlab:badArg", msg});
%!   end_try_catch
%! endfor
%!error <muon_model: config field 'muonlab.name' must be a string.>
%! muon_model (struct ("model_type", "llama", "vocab_size", 100, "hidden_size", 8,
%!                     "intermediate_size", 16, "num_hidden_layers", 2,
%!                     "num_attention_heads", 2, "muonlab", struct ("name", 5)));

%!test
%! ## a folder's config.json is read as a config file is (json_read): a folder, a FIFO, a
%! ## file nested past max_json_depth or not JSON give muonlab:badArg naming the file (they
%! ## were decoded unchecked: 100,000 deep crashed Octave, a FIFO hung, no error id)
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   f = fullfile (d, "config.json");
%!   c = '{"model_type": "llama", "vocab_size": 100, "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2';
%!   deep = [c ', "x": ' repmat("[", 1, 201) repmat("]", 1, 201) '}'];
%!   bad = {deep, sprintf("'%s' nests 202 deep; at most 200 (the limit max_json_depth).", f);
%!          [c ', }'], sprintf("'%s' is not valid JSON", f);
%!          [c ' /* comment */ }'], sprintf("'%s' is not valid JSON", f)};
%!   for k = 1:rows (bad)
%!     fid = fopen (f, "w"); fputs (fid, bad{k,1}); fclose (fid);
%!     try
%!       muon_model (d);
%!       error ("no error");
%!     catch err
%!       assert (err.identifier, "muonlab:badArg");
%!       assert (strncmp (err.message, ["muon_model: " bad{k,2}], 12 + numel (bad{k,2})),
%!               err.message);
%!     end_try_catch
%!   endfor
%!   fid = fopen (f, "w"); fputs (fid, [c '}']); fclose (fid);
%!   assert (muon_model (d).counts.total, 2920);
%!   unlink (f);
%!   mkdir (f);
%!   fail ("muon_model (d)", sprintf ("cannot read '%s': it is a folder.", regexptranslate ("escape", f)));
%!   rmdir (f);
%!   assert (mkfifo (f, 600), 0);   # (its mode written as octal digits)
%!   fail ("muon_model (d)", "not a regular file \\(a FIFO, a device or a socket\\)");
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## MTP layers are built as the decoder layers are, one cell each joined once (they were
%! ## appended one block at a time, quadratic: 4,000 took 40 s; now as long as as many
%! ## decoder layers, a speed this suite does not time): each the decoder layer plus enorm,
%! ## hnorm, eh_proj and shared_head.norm
%! c = muon_model ("moonlight-16b-a3b").config;
%! c.n_routed_experts = [];             # dense layers: the time is the layers'
%! h = c.hidden_size;
%! c.num_nextn_predict_layers = 0;
%! c.num_hidden_layers = 1;
%! L1 = muon_model (c).counts;
%! c.num_hidden_layers = 2;
%! L2 = muon_model (c).counts;
%! layer = L2.total - L1.total;           # one decoder layer: elements, parameters
%! np = L2.nparams - L1.nparams;
%! n = 300;
%! c.num_hidden_layers = n;
%! L = muon_model (c);
%! c.num_hidden_layers = 1;
%! c.num_nextn_predict_layers = n;
%! M = muon_model (c);
%! assert (M.counts.mtp, n * (layer + 2*h + 2*h*h + h));
%! assert (M.counts.nparams, L.counts.nparams + np + 4 * n);   # M: 1 + n layers, L: n
%! assert (M.params.name{end}, sprintf ("model.layers.%d.shared_head.norm.weight", n));

%!test
%! ## a folder (or file) named as a shipped model is read from disk, not shadowed by it
%! d = tempname ();
%! mkdir (d);
%! here = pwd ();
%! unwind_protect
%!   c = struct ("model_type", "llama", "vocab_size", 100, "hidden_size", 8,
%!               "intermediate_size", 16, "num_hidden_layers", 2, "num_attention_heads", 2);
%!   mkdir (fullfile (d, "llama-3.1-8b"));
%!   fid = fopen (fullfile (d, "llama-3.1-8b", "config.json"), "w");
%!   fputs (fid, jsonencode (c));
%!   fclose (fid);
%!   copyfile (fullfile (d, "llama-3.1-8b", "config.json"), fullfile (d, "LLAMA-3.1-70B"));
%!   cd (d);
%!   M = muon_model ("llama-3.1-8b");
%!   assert ({M.source, M.counts.total}, {fullfile("llama-3.1-8b", "config.json"), 2920});
%!   M = muon_model ("LLAMA-3.1-70B");
%!   assert ({M.source, M.counts.total}, {"LLAMA-3.1-70B", 2920});
%!   assert (muon_model ("llama-3.1-70b").counts.total, 70553706496);  # (case-sensitive file system)
%! unwind_protect_cleanup
%!   cd (here);
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## model_type and topk_method must be strings (a number was taken as no model_type, and
%! ## topk_method 5 silently as no noaux_tc bias); null topk_method: none
%! c = struct ("model_type", 3, "vocab_size", 100, "hidden_size", 8,
%!             "intermediate_size", 16, "num_hidden_layers", 2, "num_attention_heads", 2);
%! fail ("muon_model (c)", "muon_model: config field 'model_type' must be a string.");
%! d = jsondecode (fileread (test_muon_model ("cfg", "tiny_deepseek_v3")));
%! for v = {5, true, {"noaux_tc"}, struct("a", 1)}
%!   d.topk_method = v{1};
%!   try
%!     muon_model (d);
%!     error ("no error");
%!   catch err
%!     assert ({err.identifier, err.message},
%!             {"muonlab:badArg", "muon_model: config field 'topk_method' must be a string."});
%!   end_try_catch
%! endfor
%! d.topk_method = [];
%! M = muon_model (d);
%! assert (! any (strcmp (M.params.kind, "bias")));

%!test
%! ## a model table that routes a 1 x n head (and an n x 1) to Muon, as torch and DeepSpeed
%! ## may: muon_optimizer follows the table's routing (it re-derived it by the rule, so
%! ## the head went to AdamW while zero_layout counted it among the Muon matrices), and
%! ## zero_layout / zero_cost take it with the matrices
%! M = struct ("params", struct ("name", {{"w"; "head"; "b"; "t"}},
%!                               "route", {{"muon"; "muon"; "adamw"; "muon"}},
%!                               "rows", [6; 1; 8; 8], "cols", [8; 8; 1; 1],
%!                               "numel", [48; 8; 8; 8], "experts", [1; 1; 1; 1],
%!                               "split", {{[]; []; []; []}}));
%! [opt, P] = muon_optimizer (M);
%! assert (struct2cell (opt.route), {"muon"; "muon"; "adamw"; "muon"});
%! assert (size (P.head), [1 8]);
%! L = zero_layout (M, 2);
%! assert (L.names(:), {"w"; "head"; "t"});
%! assert ([L.params.rows; L.params.cols], [6 1 8; 8 8 1]);
%! C = zero_cost (M, 2, "Design", "zero12_allreduce");
%! assert (C.params.ns_flops(:).', ns_flops ([6 1 8], [8 8 1]).flops(:).', 1e-12);
