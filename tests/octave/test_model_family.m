## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_model_family ()
## Suite (run with @code{test test_model_family}): a torch user's model loads (issue 25).
## The llama family's model_types build the parameters their config.json describes, checked
## against totals worked out by hand from the configs (per layer: attention q, k, v, o;
## three MLP matrices per expert; the norms; embedding and head, tied for Gemma) that equal
## the published counts: Mistral-7B-v0.1 7,241,732,096; Mixtral-8x7B 46,702,792,704;
## Gemma-7B 8,537,680,896; Gemma-2-9B 9,241,705,984; Gemma-3-1B 999,885,952.  A snapshot
## folder loads by its path, and the parameter count of the checkpoint beside the config
## (the safetensors headers, or model.safetensors.index.json's total_size) is checked
## against the config's: equal, or a muonlab:modelCount warning naming both.
## zero_layout, zero_cost and muon_optimizer take the model itself, the dotted torch names
## mapped to valid field names (M.params.field) and kept (M.params.name, L.names).
## @end deftypefn

function test_model_family ()
  help test_model_family
endfunction

%!function c = cfg (mt, V, h, inter, nl, nh, nkv, varargin)
%!  c = struct ("model_type", mt, "vocab_size", V, "hidden_size", h, "intermediate_size",
%!              inter, "num_hidden_layers", nl, "num_attention_heads", nh,
%!              "num_key_value_heads", nkv, varargin{:});
%!endfunction

%!function write_safetensors (file, names, shapes)
%!  parts = cell (1, numel (names));
%!  off = 0;
%!  for k = 1:numel (names)
%!    n = 2 * prod (shapes{k});
%!    parts{k} = sprintf ('"%s":{"dtype":"BF16","shape":[%s],"data_offsets":[%d,%d]}', names{k},
%!                        strjoin (arrayfun (@num2str, shapes{k}, "UniformOutput", false), ","),
%!                        off, off + n);
%!    off += n;
%!  endfor
%!  hdr = ["{" strjoin(parts, ",") "}"];
%!  fid = fopen (file, "w", "ieee-le");
%!  fwrite (fid, numel (hdr), "uint64");
%!  fwrite (fid, hdr, "char");
%!  fclose (fid);
%!endfunction

%!function put_text (file, txt)
%!  fid = fopen (file, "w");
%!  fputs (fid, txt);
%!  fclose (fid);
%!endfunction

%!test
%! ## Mistral: llama's architecture (GQA 32 / 8 heads, untied head)
%! M = muon_model (cfg ("mistral", 32000, 4096, 14336, 32, 32, 8, "tie_word_embeddings", false));
%! layer = 2 * 4096^2 + 2 * 1024 * 4096 + 3 * 14336 * 4096 + 2 * 4096;
%! assert (M.counts.total, 32 * layer + 2 * 32000 * 4096 + 4096);
%! assert (M.counts.total, 7241732096);
%! assert (M.family, "llama");

%!test
%! ## Mixtral: every layer 8 experts (w1, w2, w3 as the checkpoint names them) and a router
%! M = muon_model (cfg ("mixtral", 32000, 4096, 14336, 32, 32, 8, "num_local_experts", 8,
%!                      "num_experts_per_tok", 2, "tie_word_embeddings", false));
%! layer = 2 * 4096^2 + 2 * 1024 * 4096 + 8 * 3 * 14336 * 4096 + 8 * 4096 + 2 * 4096;
%! assert (M.counts.total, 32 * layer + 2 * 32000 * 4096 + 4096);
%! assert (M.counts.total, 46702792704);
%! k = find (strcmp (M.params.name, "model.layers.0.block_sparse_moe.experts.7.w2.weight"));
%! assert ([M.params.rows(k), M.params.cols(k)], [4096 14336]);
%! assert (M.params.route{k}, "muon");
%! assert (M.counts.activated, M.counts.non_embedding - 32 * 6 * 3 * 14336 * 4096);

%!test
%! ## Gemma (tied embedding, head_dim 256 > hidden / heads), Gemma 2 (pre/post feedforward
%! ## norms), Gemma 3 (q/k norms; the multimodal config's text_config)
%! M = muon_model (cfg ("gemma", 256000, 3072, 24576, 28, 16, 16, "head_dim", 256));
%! assert (M.counts.total, 28 * (4 * 4096 * 3072 + 3 * 24576 * 3072 + 2 * 3072) + 256000 * 3072 + 3072);
%! assert (M.counts.total, 8537680896);
%! assert (! any (strcmp (M.params.name, "lm_head.weight")));
%! M = muon_model (cfg ("gemma2", 256000, 3584, 14336, 42, 16, 8, "head_dim", 256));
%! assert (M.counts.total, 42 * (2 * 4096 * 3584 + 2 * 2048 * 3584 + 3 * 14336 * 3584 + 4 * 3584)
%!                         + 256000 * 3584 + 3584);
%! assert (M.counts.total, 9241705984);
%! t = cfg ("gemma3_text", 262144, 1152, 6912, 26, 4, 1, "head_dim", 256);
%! M = muon_model (struct ("model_type", "gemma3", "text_config", t));
%! assert (M.counts.total, 26 * (2 * 1024 * 1152 + 2 * 256 * 1152 + 3 * 6912 * 1152 + 4 * 1152 + 2 * 256)
%!                         + 262144 * 1152 + 1152);
%! assert (M.counts.total, 999885952);

%!test
%! ## a snapshot folder: its config.json, and its checkpoint's count checked
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   c = cfg ("llama", 64, 16, 32, 2, 4, 2);
%!   fid = fopen (fullfile (d, "config.json"), "w");
%!   fputs (fid, jsonencode (c));
%!   fclose (fid);
%!   M = muon_model (d);
%!   assert (M.checkpoint.method, "none");
%!   ## the headers of two shards, every tensor: the count matches
%!   T = M.params;
%!   sh = arrayfun (@(r, c) [r c](1:1 + (c > 1)), T.rows, T.cols, "UniformOutput", false);
%!   h = floor (numel (T.name) / 2);
%!   write_safetensors (fullfile (d, "model-00001-of-00002.safetensors"), T.name(1:h), sh(1:h));
%!   write_safetensors (fullfile (d, "model-00002-of-00002.safetensors"), T.name(h+1:end), sh(h+1:end));
%!   M = muon_model (d);
%!   assert ([M.checkpoint.count, M.checkpoint.expected], [1 1] * sum (T.rows .* T.cols));
%!   assert (M.checkpoint.matches && strcmp (M.checkpoint.method, "safetensors"));
%!   ## a shard without its last tensor: a warning that names both counts
%!   write_safetensors (fullfile (d, "model-00002-of-00002.safetensors"), T.name(h+1:end-1), sh(h+1:end-1));
%!   lastwarn ("");
%!   evalc ("M = muon_model (d);");     # (the warning, kept off the test's output)
%!   [msg, id] = lastwarn ();
%!   assert (id, "muonlab:modelCount");
%!   assert (msg(end), ".");
%!   assert (M.checkpoint.count, sum (T.rows .* T.cols) - T.rows(end) * T.cols(end));
%!   assert (! M.checkpoint.matches);
%!   assert (! isempty (strfind (msg, sprintf ("holds %d parameters, the config gives %d",
%!                                             M.checkpoint.count, M.checkpoint.expected))));
%!   ## no shards, only the index: total_size bytes of bf16
%!   delete (fullfile (d, "*.safetensors"));
%!   fid = fopen (fullfile (d, "model.safetensors.index.json"), "w");
%!   fprintf (fid, '{"metadata": {"total_size": %d}, "weight_map": {}}', 2 * sum (T.rows .* T.cols));
%!   fclose (fid);
%!   M = muon_model (d);
%!   assert (M.checkpoint.method, "index");
%!   assert (M.checkpoint.count, sum (T.rows .* T.cols));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## a malformed checkpoint beside the config: muonlab:badArg errors, not Octave's; tensor
%! ## names that differ only by "." and "_" are two tensors
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   fid = fopen (fullfile (d, "config.json"), "w");
%!   fputs (fid, jsonencode (cfg ("llama", 64, 16, 32, 2, 4, 2)));
%!   fclose (fid);
%!   idx = fullfile (d, "model.safetensors.index.json");
%!   bad = {'{"metadata": {"total_size": 12', "is not valid JSON";
%!          '[1, 2]', "has no metadata.total_size";
%!          '{"metadata": {"total_size": "16060522496"}}', "metadata.total_size must be a number of bytes"};
%!   for k = 1:rows (bad)
%!     fid = fopen (idx, "w");
%!     fputs (fid, bad{k,1});
%!     fclose (fid);
%!     try
%!       muon_model (d);
%!       error ("no error");
%!     catch err
%!       assert (err.identifier, "muonlab:badArg");
%!       assert (! isempty (strfind (err.message, bad{k,2})), err.message);
%!     end_try_catch
%!   endfor
%!   delete (idx);
%!   st = fullfile (d, "model.safetensors");
%!   fid = fopen (st, "w", "ieee-le");
%!   fwrite (fid, 7, "uint64");
%!   fwrite (fid, "[1,2,3]", "char");
%!   fclose (fid);
%!   fail ("muon_model (d)", "not a JSON object of tensors");
%!   write_safetensors (st, {"x.w", "x_w"}, {[4 4], [4 4]});
%!   evalc ("M = muon_model (d);");        # (the count differs from the config's: a warning)
%!   assert (M.checkpoint.count, 32);
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## the checkpoint beside the config read with limits, before the parser sees it: a FIFO
%! ## or a folder named *.safetensors, an index or a header nested past max_json_depth, and
%! ## a shape that is no list of non-negative integers are muonlab:badArg naming the file
%! ## (and the tensor); "__metadata__" is no tensor.  A folder whose name holds [ ] is
%! ## listed, not globbed (its check was skipped)
%! d = [tempname() "[1]*"];
%! mkdir (d);
%! unwind_protect
%!   put_text (fullfile (d, "config.json"), jsonencode (cfg ("llama", 64, 16, 32, 1, 4, 2)));
%!   st = fullfile (d, "model.safetensors");
%!   hdr = @(t) put_text (st, [typecast(uint64 (numel (t)), "char") t]);
%!   ## 1 layer: embedding 64x16, norm, q 16x16, k 8x16, v 8x16, o 16x16, norm, 3 of 32x16,
%!   ## final norm, head 64x16
%!   n = 2*64*16 + 3*16 + 2*16*16 + 2*8*16 + 3*32*16;
%!   hdr (sprintf ('{"__metadata__": {"format": "pt"}, "a": {"dtype": "BF16", "shape": [%d], "data_offsets": [0, 1]}}', n));
%!   M = muon_model (d);
%!   assert ({M.checkpoint.method, M.checkpoint.count, M.checkpoint.matches},
%!           {"safetensors", n, true});
%!   msg = sprintf ("muon_model: '%s': the shape of tensor 'a' must be a list of non-negative integers.", st);
%!   for v = {"[-16, 8]", '["16", "8"]', "[16.5, 8]", "[[16], [8]]", "[[16, 8]]", "[16, [8]]",  ...
%!            "[[5]]", "5", "null", '{"x": 1}', "[16, null]", "[true]", '"16"'}
%!     hdr (['{"a": {"dtype": "BF16", "shape": ' v{1} ', "data_offsets": [0, 1]}}']);
%!     try
%!       muon_model (d);
%!       error ("no error: %s", v{1});
%!     catch err
%!       assert ({err.identifier, err.message}, {"muonlab:badArg", msg}, v{1});
%!     end_try_catch
%!   endfor
%!   hdr (['{"a": {"dtype": "BF16", "shape": [1], "x": ' repmat("[", 1, 300) repmat("]", 1, 300) '}}']);
%!   fail ("muon_model (d)", "nests 302 deep; at most 200 \\(the limit max_json_depth\\)");
%!   unlink (st);
%!   mkdir (st);
%!   fail ("muon_model (d)", "it is a folder");
%!   rmdir (st);
%!   assert (mkfifo (st, 600), 0);     # (its mode as octal digits)
%!   fail ("muon_model (d)", "not a regular file \\(a FIFO, a device or a socket\\)");
%!   unlink (st);
%!   idx = fullfile (d, "model.safetensors.index.json");
%!   put_text (idx, ['{"metadata": {"total_size": 2}, "x": ' repmat("[", 1, 300) repmat("]", 1, 300) '}']);
%!   fail ("muon_model (d)", "model.safetensors.index.json' nests 301 deep");
%!   unlink (idx);
%!   assert (mkfifo (idx, 600), 0);
%!   fail ("muon_model (d)", "not a regular file \\(a FIFO, a device or a socket\\)");
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## a header with bytes that are no UTF-8 (latin-1 in the metadata and in a tensor name)
%! ## is read and counted (it was regexprep's error "the input string is invalid UTF-8",
%! ## with no identifier); a bad shape names the tensor with its bytes as written; an
%! ## escaped name is shown without its backslashes, as before
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   put_text (fullfile (d, "config.json"), jsonencode (cfg ("llama", 64, 16, 32, 1, 4, 2)));
%!   st = fullfile (d, "model.safetensors");
%!   hdr = @(t) put_text (st, [typecast(uint64 (numel (t)), "char") t]);
%!   n = 2*64*16 + 3*16 + 2*16*16 + 2*8*16 + 3*32*16;   # by hand, as above
%!   e = char (233);
%!   hdr (sprintf (['{"__metadata__": {"note": "caf' e '"}, "a' e '": {"dtype": "F32", "shape": [%d, 1], "data_offsets": [0, 1]}, "b": {"dtype": "F32", "shape": [], "data_offsets": [1, 2]}}'], n - 1));
%!   M = muon_model (d);
%!   assert ({M.checkpoint.method, M.checkpoint.count, M.checkpoint.matches},
%!           {"safetensors", n, true});
%!   hdr (['{"__metadata__": {"note": "caf' e '"}, "ok": {"shape": [1]}, "x' e '\"y": {"dtype": "F32", "shape": [[1]], "data_offsets": [0, 1]}}']);
%!   try
%!     muon_model (d);
%!     err = struct ("identifier", "", "message", "no error");
%!   catch err
%!   end_try_catch
%!   assert ({err.identifier, double(err.message)}, {"muonlab:badArg", double(sprintf("muon_model: '%s': the shape of tensor 'x%sy' must be a list of non-negative integers.", st, e))});
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## a file whose name is no UTF-8 beside the checkpoint (caf\xe9.txt) does not matter: the
%! ## folder's safetensors file is read and counted (regexp on the listed names failed:
%! ## "the input string is invalid UTF-8", with no identifier); caf\xe9.safetensors is a
%! ## checkpoint file as any other
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   put_text (fullfile (d, "config.json"), jsonencode (cfg ("llama", 64, 16, 32, 1, 4, 2)));
%!   n = 2*64*16 + 3*16 + 2*16*16 + 2*8*16 + 3*32*16;   # by hand, as above
%!   write_safetensors (fullfile (d, "model.safetensors"), {"a"}, {[n 1]});
%!   e = char (233);
%!   put_text ([d "/caf" e ".txt"], "x");      # (fullfile refuses such a name)
%!   M = muon_model (d);
%!   assert ({M.checkpoint.method, M.checkpoint.count, M.checkpoint.matches},
%!           {"safetensors", n, true});
%!   write_safetensors ([d "/caf" e ".safetensors"], {"b"}, {[4 4]});
%!   evalc ("M = muon_model (d);");        # (the count differs from the config's: a warning)
%!   assert ({M.checkpoint.method, M.checkpoint.count}, {"safetensors", n + 16});
%!   ## the snapshot folder's own name no UTF-8 (fullfile's "invalid UTF-8", no identifier)
%!   d2 = [d "/snap" e];
%!   mkdir (d2);
%!   put_text ([d2 "/config.json"], jsonencode (cfg ("llama", 64, 16, 32, 1, 4, 2)));
%!   write_safetensors ([d2 "/model.safetensors"], {"a"}, {[n 1]});
%!   M = muon_model (d2);
%!   assert ({M.checkpoint.method, M.checkpoint.count, M.checkpoint.matches},
%!           {"safetensors", n, true});
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## the index's bytes per element from the config's dtype (newer transformers), else its
%! ## torch_dtype (dtype float32 was taken as bf16: half the count, a false warning); a
%! ## dtype of no known size skips the check with a note (it counted 2 bytes)
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   c = cfg ("llama", 64, 16, 32, 1, 4, 2);
%!   n = 2*64*16 + 3*16 + 2*16*16 + 2*8*16 + 3*32*16;   # by hand, as above
%!   put_text (fullfile (d, "model.safetensors.index.json"),
%!             sprintf ('{"metadata": {"total_size": %d}, "weight_map": {}}', 4 * n));
%!   c.dtype = "float32";
%!   put_text (fullfile (d, "config.json"), jsonencode (c));
%!   lastwarn ("");
%!   M = muon_model (d);
%!   assert ({lastwarn(), M.checkpoint.method, M.checkpoint.count, M.checkpoint.matches},
%!           {"", "index", n, true});
%!   c.torch_dtype = "bfloat16";          # both: dtype wins
%!   put_text (fullfile (d, "config.json"), jsonencode (c));
%!   assert (muon_model (d).checkpoint.count, n);
%!   c = rmfield (c, "dtype");
%!   c.torch_dtype = "float32";
%!   put_text (fullfile (d, "config.json"), jsonencode (c));
%!   assert (muon_model (d).checkpoint.count, n);
%!   c.torch_dtype = "float4_e2m1";
%!   put_text (fullfile (d, "config.json"), jsonencode (c));
%!   M = muon_model (d);
%!   assert ({lastwarn(), M.checkpoint.method, M.checkpoint.count, M.checkpoint.matches},
%!           {"", "none", NaN, true});
%!   assert (M.checkpoint.note, "not checked: the config's dtype 'float4_e2m1' has no known size, so total_size gives no parameter count");
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## a multimodal Gemma 3 snapshot: its headers' vision tower and projector are left out of
%! ## the count (as transformers saves it, language_model.model.*, or the newer
%! ## model.language_model.*); its index, which counts them, is not checked (it warned
%! ## modelCount for the vision tensors)
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   t = cfg ("gemma3_text", 40, 8, 16, 1, 2, 1, "head_dim", 4);
%!   put_text (fullfile (d, "config.json"),
%!             jsonencode (struct ("model_type", "gemma3", "text_config", t,
%!                                 "vision_config", struct ("hidden_size", 8))));
%!   M = muon_model (d);
%!   T = M.params;
%!   sh = arrayfun (@(r, c) [r c](1:1 + (c > 1)), T.rows, T.cols, "UniformOutput", false);
%!   st = fullfile (d, "model.safetensors");
%!   for pre = {"language_model.", "model.language_model."}
%!     names = regexprep (T.name, '^model\.', pre{1});
%!     vis = regexprep ({"vision_tower.vision_model.embeddings.patch_embedding.weight";
%!                       "multi_modal_projector.mm_input_projection_weight"}, '^',
%!                      regexprep (pre{1}, 'language_model\.$', ""));
%!     write_safetensors (st, [names; vis], [sh; {[8 3 14 14]; [8 8]}]);
%!     lastwarn ("");
%!     M = muon_model (d);
%!     assert (lastwarn (), "");
%!     assert ({M.checkpoint.method, M.checkpoint.count, M.checkpoint.matches},
%!             {"safetensors", sum(T.rows .* T.cols), true});
%!     assert (M.checkpoint.note, "the language model's tensors only: 4768 elements under vision_tower and multi_modal_projector not counted");
%!   endfor
%!   unlink (st);
%!   put_text (fullfile (d, "model.safetensors.index.json"), '{"metadata": {"total_size": 10}}');
%!   M = muon_model (d);
%!   assert ({M.checkpoint.method, M.checkpoint.matches}, {"none", true});
%!   assert (M.checkpoint.note, "not checked: the index's total_size counts the vision tower too, which is not modelled");
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## a quantized checkpoint: fp8 weights take a byte per element (DeepSeek-V3's Hugging Face
%! ## weights: torch_dtype bfloat16, quantization_config fp8 in 128 x 128 blocks), other
%! ## quantizations are not checked
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   fp8 = struct ("activation_scheme", "dynamic", "fmt", "e4m3", "quant_method", "fp8",
%!                 "weight_block_size", [128 128]);
%!   idx = fullfile (d, "model.safetensors.index.json");
%!   ## DeepSeek-V3: its index's total_size (688,586,727,753 bytes) against 684,489,845,504
%!   ## parameters stored (671B + the 14B MTP module); bf16 bytes would count half of them
%!   c = muon_model ("deepseek-v3").config;
%!   c.torch_dtype = "bfloat16";
%!   c.quantization_config = fp8;
%!   put_text (fullfile (d, "config.json"), jsonencode (c));
%!   put_text (idx, '{"metadata": {"total_size": 688586727753}, "weight_map": {}}');
%!   lastwarn ("");
%!   M = muon_model (d);
%!   assert (lastwarn (), "");
%!   assert (M.checkpoint.method, "index");
%!   assert (M.checkpoint.expected, 684489845504);
%!   assert (M.checkpoint.count, 684489845504, 1e-4 * 684489845504);
%!   assert (M.checkpoint.matches);
%!   ## leaving the MTP module out of the model: the checkpoint still stores it, the same
%!   ## check, no warning
%!   K = M.checkpoint;
%!   M = muon_model (d, "MTP", false);
%!   assert (lastwarn (), "");
%!   assert (M.counts.total, 671026419200);
%!   assert (M.checkpoint, K);
%!   ## a small llama (hidden 16, MLP 32, 4 heads of 4, 2 KV heads, 2 layers, vocabulary 64),
%!   ## counted here: per layer q 16x16, k 8x16, v 8x16, o 16x16, gate and up 32x16, down 16x32
%!   ## at a byte each and one float32 scale each (one block); embedding, head, 2 norms per
%!   ## layer and the final norm at 2 bytes
%!   c = cfg ("llama", 64, 16, 32, 2, 4, 2, "tie_word_embeddings", false,
%!            "quantization_config", fp8);
%!   put_text (fullfile (d, "config.json"), jsonencode (c));
%!   lin = 2 * (256 + 128 + 128 + 256 + 3 * 512);
%!   plain = 2 * 64 * 16 + 2 * 2 * 16 + 16;
%!   put_text (idx, sprintf ('{"metadata": {"total_size": %d}}', lin + 2 * plain + 4 * 2 * 7));
%!   M = muon_model (d);
%!   assert ([M.checkpoint.count, M.checkpoint.expected], [1 1] * (lin + plain));
%!   ## its headers: the scale tensors are not parameters
%!   T = M.params;
%!   sh = arrayfun (@(r, c) [r c](1:1 + (c > 1)), T.rows, T.cols, "UniformOutput", false);
%!   lin = T.rows > 1 & T.cols > 1 & ! strcmp (T.kind, "embedding") & ! strcmp (T.kind, "head");
%!   sc = strcat (T.name(lin), "_scale_inv");
%!   write_safetensors (fullfile (d, "model.safetensors"), [T.name; sc],
%!                      [sh; repmat({[1 1]}, numel (sc), 1)]);
%!   M = muon_model (d);
%!   assert ([M.checkpoint.count, M.checkpoint.expected], [1 1] * sum (T.rows .* T.cols));
%!   delete (fullfile (d, "model.safetensors"));
%!   ## GPTQ (int4 packed in int32): the size gives no count; not checked, and said so
%!   c.quantization_config = struct ("quant_method", "gptq", "bits", 4);
%!   put_text (fullfile (d, "config.json"), jsonencode (c));
%!   lastwarn ("");
%!   M = muon_model (d);
%!   assert (lastwarn (), "");
%!   assert (M.checkpoint.method, "none");
%!   assert (M.checkpoint.matches);
%!   assert (M.checkpoint.note, "not checked: the checkpoint is quantized (quant_method 'gptq'), so its size gives no parameter count");
%!   assert (! isempty (strfind (evalc ("disp (M)"), M.checkpoint.note)));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## zero_layout, zero_cost, muon_optimizer take the model; torch's names kept beside
%! M = muon_model (cfg ("mistral", 64, 16, 32, 2, 4, 2));
%! mu = strcmp (M.params.route, "muon");
%! L = zero_layout (M, 4);
%! assert (L.names, M.params.name(mu));
%! assert ([[L.params.rows]; [L.params.cols]].', [M.params.rows(mu), M.params.cols(mu)]);
%! C = zero_cost (M, 4, "Design", "layerwise_lpt");
%! assert (C.nmatrices, sum (mu));
%! [opt, P] = muon_optimizer (M);
%! assert (fieldnames (P), M.params.field);
%! for k = 1:numel (M.params.name)
%!   assert (size (P.(M.params.field{k})), [M.params.rows(k), M.params.cols(k)]);
%!   assert (opt.route.(M.params.field{k}), M.params.route{k});
%! endfor
%! assert (M.params.field{1}, "model_embed_tokens_weight");

%!error <muon_optimizer: the model has 6.71e\+11 parameters, more than 2\^27 to hold as arrays here; plan it with zero_cost \(M, W\) or use a smaller config.> muon_optimizer (muon_model ("deepseek-v3", "MTP", false))
%!error <muon_model: the folder '/' holds no config.json.> muon_model ("/")
%!error <muon_model: config field 'text_config' must be a JSON object \(a gemma3 config's language model\).> muon_model (struct ("model_type", "gemma3", "vocab_size", 10))
%!error <muon_model: config field 'text_config' must be a JSON object \(a gemma3 config's language model\).> muon_model (struct ("model_type", "gemma3", "text_config", {{1}}))
