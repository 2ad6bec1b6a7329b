## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{M} =} muon_model (@var{name})
## @deftypefnx {muonlab} {@var{M} =} muon_model (@var{config_file})
## @deftypefnx {muonlab} {@var{M} =} muon_model (@var{folder})
## @deftypefnx {muonlab} {@var{M} =} muon_model (@var{config})
## @deftypefnx {muonlab} {@var{M} =} muon_model (@dots{}, @var{name}, @var{value}, @dots{})
## @deftypefnx {muonlab} {@var{names} =} muon_model ()
## The named parameters of a real model, with their shapes and the optimizer each goes to.
##
## @var{name} is one of the shipped models (case-insensitive; their Hugging Face ids work
## too): @qcode{"deepseek-v3"}, @qcode{"kimi-k2"}, @qcode{"moonlight-16b-a3b"},
## @qcode{"qwen3-30b-a3b"}, @qcode{"llama-3.1-8b"}, @qcode{"llama-3.1-70b"}.  Their
## architecture numbers are the public @file{config.json} files' (shipped as JSON in the
## package's @file{models} folder, with the published parameter counts and their sources).
## A file or folder at the path @var{name} wins over the shipped model of that name (a
## snapshot folder @file{llama-3.1-8b} is read from disk).
## @var{config_file} is any Hugging Face style @file{config.json} of the llama
## (@code{model_type} @qcode{"llama"}, and llama's architecture: @qcode{"mistral"},
## @qcode{"mixtral"} (block_sparse_moe experts w1, w2, w3), @qcode{"gemma"},
## @qcode{"gemma2"}, @qcode{"gemma3_text"} and the multimodal @qcode{"gemma3"}'s
## text_config (its vision tower not modelled)), qwen (@qcode{"qwen2"}, @qcode{"qwen3"},
## @qcode{"qwen2_moe"}, @qcode{"qwen3_moe"}) or deepseek (@qcode{"deepseek_v2"},
## @qcode{"deepseek_v3"}, @qcode{"kimi_k2"}) families, read with @code{jsondecode};
## @var{config} the struct @code{jsondecode} gives.  @var{folder} is a Hugging Face snapshot
## folder holding @file{config.json}: when the weights' safetensors files (their headers:
## each tensor's shape) or @file{model.safetensors.index.json} (its total_size bytes over
## those of the config's dtype or torch_dtype, bfloat16 if it has neither; a dtype of no
## known size skips the check, the note says so; with an fp8 @code{quantization_config}, as
## DeepSeek-V3's weights have, a byte per element of the decoder layers' linear weights plus
## their scales, estimated within 1%) are beside it, their parameter count is checked
## against @code{counts.stored} (@code{M.checkpoint}; a mismatch warns,
## @code{muonlab:modelCount}; another quantization is not checked, the note says so; for the
## multimodal @qcode{"gemma3"} the headers' tensors under @code{vision_tower} and
## @code{multi_modal_projector} are not counted, and the index, which counts them, is not
## checked).
## muonlab never downloads: for a hub id it does not ship, fetch the config.json (or the
## folder) and pass its path.  With no argument the shipped names come back as a cellstr.
##
## Limits, checked before any work (@code{muonlab:badArg} naming the limit): a config file
## (a folder's @file{config.json} too) must be a regular file of at most 16 MiB nested at
## most 200 deep (@code{max_config_bytes}, @code{max_json_depth}), and so must a folder's
## @file{model.safetensors.index.json}; each @file{*.safetensors} file there must be a
## regular file whose header is at most 2^27 bytes nested at most 200 deep, each tensor's
## shape a list of non-negative integers (@qcode{"__metadata__"} is no tensor);
## @code{num_hidden_layers} at most 10,000 (@code{max_model_layers}; the time is linear in
## it, about 1 ms a layer), expert counts at most 65,536 (@code{max_model_experts}), every
## other size at most 2^24 (@code{max_model_dim}), and at most 1e6 matrices in all
## (@code{max_model_matrices}).
## Every config number read is a whole number in its range, else @code{muonlab:badArg}
## naming the key: sizes and head counts positive (@code{num_key_value_heads} dividing
## @code{num_attention_heads}), @code{num_experts_per_tok} from 1 to the experts,
## @code{decoder_sparse_step} and @code{moe_layer_freq} positive, @code{mlp_only_layers} a
## list of layer indices from 0 to @code{num_hidden_layers} - 1.
##
## The parameters follow the checkpoint's module order and names (@code{model.embed_tokens},
## then each decoder layer, @code{model.norm}, @code{lm_head}, then the multi-token
## prediction (MTP) layers): RMSNorm weights and biases are vectors (rows x 1), a linear
## weight is (out x in) as torch stores it.  Multi-head latent attention (deepseek) gives
## @code{q_proj} (or @code{q_a_proj}, @code{q_a_layernorm}, @code{q_b_proj} with a query
## LoRA rank), @code{kv_a_proj_with_mqa}, @code{kv_a_layernorm}, @code{kv_b_proj} and
## @code{o_proj}; an MoE layer gives the router @code{mlp.gate.weight} (and its
## @code{e_score_correction_bias} when @code{topk_method} is @qcode{"noaux_tc"}), the routed
## experts and the shared experts (one MLP of @code{n_shared_experts} times the expert
## width).  Routing to Muon or AdamW is @code{muon_optimizer}'s rule: a matrix with both
## sizes > 1 whose name has neither @qcode{"embed"} nor @qcode{"lm_head"} (DeepSpeed's
## @code{ndims >= 2} would also give Muon a weight of one row, such as qwen2_moe's
## @code{shared_expert_gate.weight}, 1 x hidden).
##
## Options (names are case-insensitive):
## @table @asis
## @item "MTP"
## true (default): include the model's MTP layers (@code{num_nextn_predict_layers}: each an
## @code{enorm}, @code{hnorm}, @code{eh_proj}, one decoder layer and a
## @code{shared_head.norm}; its embedding and output head are the main model's, so they are
## not parameters of their own here, but they are stored again in the checkpoint and count
## in @code{counts.stored}).  false leaves them out of the parameters (and of every count
## but @code{counts.stored}: the checkpoint still holds them).
## @item "Experts"
## @qcode{"separate"} (default): one parameter per routed expert and projection, as the
## checkpoint stores them (@code{mlp.experts.E.gate_proj.weight}); @qcode{"fused"}: one
## parameter per layer and projection holding all E experts, (E*out) x in with expert e in
## rows (e-1)*out+1 : e*out (grouped GEMM / Megatron; @code{muon_update}'s
## @qcode{"Experts"}), whose @code{experts} column is E: Newton-Schulz runs per expert.
## @item "Fuse"
## @qcode{"none"} (default), @qcode{"qkv"}, @qcode{"gate_up"} or @qcode{"all"}: fuse
## projections into one parameter as vLLM and SGLang do, with the @code{split} column
## giving the row blocks that are orthogonalized separately (@code{muon_update}'s
## @qcode{"SplitRows"}): @code{qkv_proj} = [q; k; v] (llama and qwen), for multi-head
## latent attention with a query LoRA rank @code{fused_qkv_a_proj_with_mqa} (SGLang's
## name; vLLM's @code{fused_qkv_a_proj}) = [q_a; kv_a]; @code{gate_up_proj} = [gate; up]
## for dense MLPs, shared and routed experts (Megatron's order too).  Megatron's
## @code{linear_qkv} interleaves its rows by key-value group (q1 q2 k1 v1 | q3 q4 k2 v2
## | @dots{}) and its Muon regroups them: permute such a gradient's rows to [q; k; v]
## first, as contiguous row blocks cannot express the groups (applied to the interleaved
## rows, the split gives another update, 0.48 off on a 4-head, 2-group layer).
## @end table
##
## @var{M} is a @code{muon_model_result} object: its fields read as a struct's, typing
## @var{M} prints a summary of a dozen lines, @code{isstruct (M)} is false and
## @code{struct (M)} gives the plain struct.  Its fields are @code{name}, @code{model_type},
## @code{family}
## (@qcode{"llama"}, @qcode{"qwen"} or @qcode{"deepseek"}), @code{source} (the file read,
## or @qcode{"struct"}), @code{config} (the decoded configuration), @code{options},
## @code{checkpoint} (the check above: @code{method} @qcode{"safetensors"}, @qcode{"index"}
## or @qcode{"none"}, @code{file}, @code{count}, @code{expected}, @code{matches},
## @code{note}: why the check was estimated or skipped, "" otherwise),
## @code{published} (for a shipped model, or a config holding them in
## @code{muonlab.published} as the shipped JSON files do, a struct array of the published
## counts with fields @code{count}, @code{counts} (which field of @code{counts} it is
## comparable with), @code{mtp} and @code{source}; empty otherwise), and:
## @table @code
## @item params
## a table (a struct of P x 1 columns, one row per parameter): @code{name} (cellstr),
## @code{rows}, @code{cols}, @code{numel}, @code{experts} (1, or E for a fused expert
## weight), @code{split} (cell: [] or the row blocks of one expert), @code{route} (cellstr:
## @qcode{"muon"} or @qcode{"adamw"}), @code{kind} (cellstr: embedding, norm, bias,
## attention, mlp, router, expert, shared_expert, mtp_proj, head), @code{layer} (0-based
## decoder layer; -1 outside the layers; MTP layers follow the last one), @code{expert}
## (0-based routed expert, -1 otherwise), @code{mtp} (logical) and @code{field} (the name
## made a valid Octave field name: the fields of @code{muon_optimizer (M)}'s parameters).
## @code{zero_layout (M, W)}, @code{zero_cost (M, W)} and @code{muon_optimizer (M)} take
## the model itself.
## @item counts
## parameter counts: @code{total} (the parameters above), @code{muon}, @code{adamw},
## @code{embedding} (input embedding and output head), @code{non_embedding}, @code{mtp}
## (the MTP layers' own parameters), @code{stored} (what the checkpoint stores: the
## parameters, the MTP layers even with @qcode{"MTP"} false, and the MTP layers' copies of
## the embedding and head), @code{activated} (per token, embedding and
## head excluded: everything but the routed experts, plus top-k / E of those; MTP layers
## left out), @code{nparams} and @code{nmuon} (numbers of parameters).
## @end table
##
## @example
## M = muon_model ("llama-3.1-8b");
## M.counts.total                     # 8030261248
## M.params.name(2:4)'                # input_layernorm, q_proj, k_proj of layer 0
## K = muon_model ("deepseek-v3", "Experts", "fused");
## K.counts.nmuon                     # 733 Muon matrices instead of 45,868
## @end example
## @seealso{zero_cost, muon_optimizer, muon_export}
## @end deftypefn

function M = muon_model (what, varargin)
  fname = "muon_model";
  if (nargin == 0)
    M = shipped_list ();
    return;
  endif
  o = parse_options (fname, "muon_model", varargin);
  o.fuse_qkv = any (strcmp (o.fuse, {"qkv", "all"}));
  o.fuse_gu = any (strcmp (o.fuse, {"gate_up", "all"}));
  o.fused_experts = strcmp (o.experts, "fused");

  [cfg, source, meta] = read_config (fname, what);
  [cfg, mt, mm] = model_family_config (fname, cfg);   # gemma3: its text_config
  if (isempty (mt))                    # as for a missing size, not "'' is not supported"
    error ("muonlab:badArg", "%s: the config has no field 'model_type'.", fname);
  endif
  switch (mt)
    case {"llama", "mistral", "mixtral", "gemma", "gemma2", "gemma3_text"}
      family = "llama";
    case {"qwen2", "qwen3", "qwen2_moe", "qwen3_moe"}
      family = "qwen";
    case {"deepseek_v2", "deepseek_v3", "kimi_k2"}
      family = "deepseek";
    otherwise
      error ("muonlab:unsupported",
             "%s: model_type '%s' is not supported (llama, mistral, mixtral, gemma, gemma2, gemma3, gemma3_text, qwen2, qwen3, qwen2_moe, qwen3_moe, deepseek_v2, deepseek_v3, kimi_k2).",
             fname, mt);
  endswitch

  [B, D, extra, Bx] = model_blocks (fname, cfg, family, mt, o);

  T = table_of (B);
  Tck = T;                             # what the checkpoint stores: the MTP layers always
  if (! isempty (Bx))
    Tck = table_of ([B, Bx]);
    extra += sum (Tck.numel) - sum (T.numel);
  endif
  M.name = meta.name;
  M.model_type = mt;
  M.family = family;
  M.source = source;
  M.config = cfg;
  M.options = rmfield (o, {"fuse_qkv", "fuse_gu", "fused_experts"});
  M.published = meta.published;
  M.params = T;
  M.params.field = model_fields (T.name);   # valid Octave field names, for muon_optimizer
  M.counts = counts_of (T, extra, D);
  M.checkpoint = model_checkpoint (fname, source, cfg, M.counts, Tck, mm);
  M = muon_model_result (M);
endfunction

## ---- configuration ---------------------------------------------------------------------

function names = shipped_list ()
  d = dir (fullfile (models_dir (), "*.json"));
  names = regexprep ({d.name}, '\.json$', "");
  names = names(:);
endfunction

function d = models_dir ()
  d = fullfile (fileparts (mfilename ("fullpath")), "models");
endfunction

function [cfg, source, meta] = read_config (fname, what)
  meta = struct ("name", "", "published", struct ("count", {}, "counts", {}, "mtp", {},
                                                  "source", {}));
  if (isstruct (what) && isscalar (what))
    cfg = what;
    source = "struct";
  elseif (ischar (what) && isrow (what))
    file = "";
    names = shipped_list ();
    k = find (strcmpi (what, names), 1);
    [~, err] = stat (what);             # a path that exists wins over a shipped name
    if (err == 0 && isfolder (what))    # a Hugging Face snapshot folder
      file = path_join (what, "config.json");   # (what may be a name no UTF-8)
      if (! exist (file, "file"))
        error ("muonlab:badArg", "%s: the folder '%s' holds no config.json.", fname, what);
      endif
      cfg = json_read (fname, file);   # as a config file: regular, size and depth checked
    elseif (err != 0 && ! isempty (k))
      file = fullfile (models_dir (), [names{k} ".json"]);
    elseif (err == 0 || ! isempty (regexp (what, '\.json$', "once")))
      file = what;                     # (relative to the working folder, not the load path)
      if (err != 0)
        error ("muonlab:badArg", "%s: cannot read '%s': no such file.", fname, what);
      endif
      cfg = json_read (fname, file);   # a regular file, size and depth checked first
    else
      for i = 1:numel (names)          # a shipped model's Hugging Face id
        c = jsondecode (fileread (fullfile (models_dir (), [names{i} ".json"])));
        if (strcmpi (what, c.muonlab.hf_id))
          file = fullfile (models_dir (), [names{i} ".json"]);
          break;
        endif
      endfor
      if (isempty (file))
        list = sprintf ("'%s', ", names{:});
        hint = suggest (what, names);
        if (! isempty (hint))
          hint = sprintf (" Did you mean %s?", quoted_list (hint, "or"));
        else                            # a hub id muonlab does not ship: it never downloads
          hint = " For any other model, download its config.json (and model.safetensors.index.json) and pass the file or the folder.";
        endif
        error ("muonlab:badArg",
               "%s: NAME must be a shipped model (%s), a config.json file or a folder holding one; '%s' is neither.%s",
               fname, list(1:end-2), what, hint);
      endif
    endif
    if (! exist ("cfg", "var"))        # a shipped model
      cfg = jsondecode (fileread (file));
    endif
    if (! (isstruct (cfg) && isscalar (cfg)))
      error ("muonlab:badArg", "%s: '%s' must hold one JSON object.", fname, file);
    endif
    source = file;
  else
    error ("muonlab:badArg",
           "%s: the first argument must be a model name, a config.json file or a config struct.",
           fname);
  endif
  if (isfield (cfg, "muonlab") && isstruct (cfg.muonlab) && isscalar (cfg.muonlab))
    if (isfield (cfg.muonlab, "name"))
      meta.name = cfg.muonlab.name;
      if (! (isempty (meta.name) || (ischar (meta.name) && isrow (meta.name))))
        error ("muonlab:badArg", "%s: config field 'muonlab.name' must be a string.", fname);
      endif
    endif
    if (isfield (cfg.muonlab, "published"))
      meta.published = published_list (fname, cfg.muonlab.published);
    endif
  endif
  if (isempty (meta.name))
    if (strcmp (source, "struct"))
      meta.name = "config";
    else
      [~, meta.name] = fileparts (source);
    endif
  endif
endfunction

## The published counts of a config's muonlab metadata (what jsondecode gives for a list
## of objects): count a positive number, counts (the field of counts it compares with),
## mtp true or false, source a string; [] for none.
function P = published_list (fname, P)
  if (isnumeric (P) && isempty (P))
    P = struct ("count", {}, "counts", {}, "mtp", {}, "source", {});
    return;
  endif
  str = @(s) ischar (s) && (isrow (s) || isempty (s));
  ok = isstruct (P) && all (isfield (P, {"count", "counts", "mtp", "source"}));
  k = 0;
  while (ok && k < numel (P))
    k++;
    c = P(k).count;
    m = P(k).mtp;
    ok = (isnumeric (c) && isreal (c) && isscalar (c) && isfinite (c) && c > 0
          && str (P(k).counts) && isscalar (m) && (islogical (m) || any (m == [0 1]))
          && str (P(k).source));
    if (ok)
      P(k).count = double (c);
      P(k).mtp = logical (m);
    endif
  endwhile
  if (! ok)
    error ("muonlab:badArg",
           "%s: config field 'muonlab.published' must be a list of objects with count (a positive number), counts (a string), mtp (true or false) and source (a string).",
           fname);
  endif
  P = P(:);
endfunction

function T = table_of (B)
  B = [B{:}];
  T.name = vertcat (B.name);
  T.rows = vertcat (B.rows);
  T.cols = vertcat (B.cols);
  T.numel = T.rows .* T.cols;
  T.experts = vertcat (B.experts);
  T.split = vertcat (B.split);
  T.route = cell (numel (T.name), 1);
  T.route(:) = {"adamw"};
  T.route(route_rule (T.name, T.rows, T.cols)) = {"muon"};
  T.kind = vertcat (B.kind);
  T.layer = vertcat (B.layer);
  T.expert = vertcat (B.expert);
  T.mtp = vertcat (B.mtp);
endfunction

function C = counts_of (T, extra, D)
  C.total = sum (T.numel);
  ismuon = strcmp (T.route, "muon");
  C.muon = sum (T.numel(ismuon));
  C.adamw = C.total - C.muon;
  emb = strcmp (T.kind, "embedding") | strcmp (T.kind, "head");
  C.embedding = sum (T.numel(emb));
  C.non_embedding = C.total - C.embedding;
  C.mtp = sum (T.numel(T.mtp));
  C.stored = C.total + extra;
  routed = strcmp (T.kind, "expert") & ! T.mtp;
  C.activated = sum (T.numel(! emb & ! T.mtp & ! routed));
  if (D.E > 0)
    C.activated += D.topk / D.E * sum (T.numel(routed));
  endif
  C.nparams = numel (T.name);
  C.nmuon = sum (ismuon);
endfunction

%!test
%! ## Llama-3.1-8B: the safetensors total (bf16 bytes / 2), by hand from the shapes
%! M = muon_model ("llama-3.1-8b");
%! h = 4096; f = 14336; V = 128256; kv = 1024;
%! layer = 2 * h * h + 2 * kv * h + 3 * h * f + 2 * h;
%! assert (M.counts.total, 32 * layer + 2 * V * h + h);
%! assert (M.counts.total, 16060522496 / 2);
%! assert (M.counts.nparams, 1 + 32 * 9 + 2);
%! assert (M.params.name{3}, "model.layers.0.self_attn.q_proj.weight");
%! assert ([M.params.rows(4) M.params.cols(4)], [kv h]);
%! assert (M.params.route([1 2 3 end-1 end]), {"adamw"; "adamw"; "muon"; "adamw"; "adamw"});
%! assert (M.counts.nmuon, 32 * 7);
%! assert (M.counts.muon + M.counts.adamw, M.counts.total);

%!test
%! ## routing is muon_optimizer's
%! M = muon_model ("qwen3-30b-a3b");
%! k = [1 2 3 7 9 10 11 numel(M.params.name)];
%! P = struct ();
%! for i = k
%!   P.(sprintf ("p%d_%s", i, strrep (strrep (M.params.name{i}, ".", "_"), "model_", ""))) = ...
%!     zeros (min (M.params.rows(i), 3), min (M.params.cols(i), 2));
%! endfor
%! opt = muon_optimizer (P);
%! r = struct2cell (opt.route);
%! assert (r, M.params.route(k));

%!test
%! ## options: fused experts and fused projections keep the totals
%! A = muon_model ("moonlight-16b-a3b");
%! B = muon_model ("moonlight-16b-a3b", "Experts", "fused", "Fuse", "all");
%! assert (B.counts.total, A.counts.total);
%! assert (B.counts.activated, A.counts.activated);
%! k = find (strcmp (B.params.name, "model.layers.1.mlp.experts.gate_up_proj.weight"));
%! assert ([B.params.rows(k) B.params.cols(k) B.params.experts(k)], [64 * 2 * 1408, 2048, 64]);
%! assert (B.params.split{k}, [1408 1408]);
%! assert (A.counts.nparams - B.counts.nparams, 26 * (64 * 3 - 2) + 1 + 26);  # no q LoRA: no qkv fusion

%!test
%! ## MTP: DeepSeek-V3's layer 61 in or out
%! A = muon_model ("deepseek-v3");
%! B = muon_model ("deepseek-v3", "MTP", false);
%! assert (A.counts.total - B.counts.total, A.counts.mtp);
%! assert (B.counts.mtp, 0);
%! assert (A.counts.stored - A.counts.total, 2 * 129280 * 7168);
%! assert (B.counts.stored, A.counts.stored);     # the checkpoint holds layer 61 either way
%! assert (any (strcmp (A.params.name, "model.layers.61.eh_proj.weight")));
%! assert (numel (muon_model ()), 6);

%!test
%! ## a config struct and a config file
%! c = struct ("model_type", "llama", "vocab_size", 100, "hidden_size", 8,
%!             "intermediate_size", 16, "num_hidden_layers", 2, "num_attention_heads", 2);
%! M = muon_model (c);
%! assert (M.counts.total, 2 * (4 * 64 + 3 * 128 + 16) + 2 * 800 + 8);
%! f = [tempname() ".json"];
%! fid = fopen (f, "w"); fputs (fid, jsonencode (c)); fclose (fid);
%! unwind_protect
%!   assert (muon_model (f).counts.total, M.counts.total);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!error <muon_model: options must be NAME, VALUE pairs.> muon_model ("llama-3.1-8b", "MTP")
%!error <muon_model: NAME must be a shipped model \('deepseek-v3'.*\), a config.json file or a folder holding one; 'gpt5' is neither. For any other model, download its config.json \(and model.safetensors.index.json\) and pass the file or the folder.> muon_model ("gpt5")
%!error <muon_model: NAME must be a shipped model \('deepseek-v3'.*\), a config.json file or a folder holding one; 'llama-3.1-7b' is neither. Did you mean 'llama-3.1-70b' or 'llama-3.1-8b'\?> muon_model ("llama-3.1-7b")
%!error <muon_model: cannot read 'no_such_dir/x.json': no such file.> muon_model ("no_such_dir/x.json")
%!error <muon_model: NAME must be a shipped model .*'plot' is neither.> muon_model ("plot")
%!error <^muon_model: model_type 'gpt2' is not supported \(.*\)\.$> muon_model (struct ("model_type", "gpt2"))
%!error id=muonlab:unsupported muon_model (struct ("model_type", "gpt2"))
%!error <muon_model: the config has no field 'model_type'\.> muon_model (struct ())
%!error id=muonlab:badArg muon_model (struct ("hidden_size", 8))
%!error <muon_model: the config has no field 'hidden_size'.> muon_model (struct ("model_type", "llama", "vocab_size", 10))
%!error <muon_model: config field 'hidden_size' must be a positive integer.> muon_model (struct ("model_type", "llama", "vocab_size", 10, "hidden_size", -3))
%!error <muon_model: EXPERTS must be 'separate' or 'fused'.> muon_model ("llama-3.1-8b", "Experts", "x")
%!error <muon_model: FUSE must be 'none', 'qkv', 'gate_up' or 'all'.> muon_model ("llama-3.1-8b", "Fuse", 1)
%!error <muon_model: MTP must be true or false.> muon_model ("llama-3.1-8b", "MTP", 3)
%!error <^muon_model: unknown option 'Foo'\. Options: .*\.$> muon_model ("llama-3.1-8b", "Foo", 1)
%!error <muon_model: the first argument must be a model name, a config.json file or a config struct.> muon_model (3)
%!error <^muon_model: NAME must be a shipped model \(.*\), a config\.json file or a folder holding one; 'gpt5' is neither\. For any other model, download its config\.json \(and model\.safetensors\.index\.json\) and pass the file or the folder\.$> muon_model ("gpt5")
%!error id=muonlab:badArg muon_model ("gpt5")

%!demo
%! ## parameters and routing of the shipped models
%! for n = muon_model ()'
%!   M = muon_model (n{1});
%!   printf ("%-18s %8.2fB total, %7.2fB to Muon in %6d matrices, %6.2fB activated\n",
%!           n{1}, M.counts.total / 1e9, M.counts.muon / 1e9, M.counts.nmuon,
%!           M.counts.activated / 1e9);
%! endfor
