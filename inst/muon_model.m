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
## @var{config_file} is any Hugging Face style @file{config.json} of the llama
## (@code{model_type} @qcode{"llama"}, and llama's architecture: @qcode{"mistral"},
## @qcode{"mixtral"} (block_sparse_moe experts w1, w2, w3), @qcode{"gemma"},
## @qcode{"gemma2"}, @qcode{"gemma3_text"} and the multimodal @qcode{"gemma3"}'s
## text_config (its vision tower not modelled)), qwen (@qcode{"qwen2"}, @qcode{"qwen3"},
## @qcode{"qwen2_moe"}, @qcode{"qwen3_moe"}) or deepseek (@qcode{"deepseek_v2"},
## @qcode{"deepseek_v3"}, @qcode{"kimi_k2"}) families, read with @code{jsondecode};
## @var{config} the struct @code{jsondecode} gives.  @var{folder} is a Hugging Face
## snapshot folder holding @file{config.json}: when the weights' safetensors files (their
## headers: each tensor's shape) or @file{model.safetensors.index.json} (its total_size
## bytes over the config's torch_dtype) are beside it, their parameter count is checked
## against @code{counts.stored} (@code{M.checkpoint}; a mismatch warns,
## @code{muonlab:modelCount}).  muonlab never downloads: for a hub id it does not ship,
## fetch the config.json (or the folder) and pass its path.  With no argument the shipped
## names come back as a cellstr.
##
## Limits, checked before any work (@code{muonlab:badArg} naming the limit): a config file
## must be a regular file of at most 16 MiB nested at most 200 deep
## (@code{max_config_bytes}, @code{max_json_depth}); @code{num_hidden_layers} at most
## 10,000 (@code{max_model_layers}; the time is linear in it, about 1 ms a layer), expert
## counts at most 65,536 (@code{max_model_experts}), every other size at most 2^24
## (@code{max_model_dim}), and at most 1e6 matrices in all (@code{max_model_matrices}).
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
## sizes > 1 whose name has neither @qcode{"embed"} nor @qcode{"lm_head"}.
##
## Options (names are case-insensitive):
## @table @asis
## @item "MTP"
## true (default): include the model's MTP layers (@code{num_nextn_predict_layers}: each an
## @code{enorm}, @code{hnorm}, @code{eh_proj}, one decoder layer and a
## @code{shared_head.norm}; its embedding and output head are the main model's, so they are
## not parameters of their own here, but they are stored again in the checkpoint and count
## in @code{counts.stored}).  false leaves them out.
## @item "Experts"
## @qcode{"separate"} (default): one parameter per routed expert and projection, as the
## checkpoint stores them (@code{mlp.experts.E.gate_proj.weight}); @qcode{"fused"}: one
## parameter per layer and projection holding all E experts, (E*out) x in with expert e in
## rows (e-1)*out+1 : e*out (grouped GEMM / Megatron; @code{muon_update}'s
## @qcode{"Experts"}), whose @code{experts} column is E: Newton-Schulz runs per expert.
## @item "Fuse"
## @qcode{"none"} (default), @qcode{"qkv"}, @qcode{"gate_up"} or @qcode{"all"}: fuse
## projections into one parameter as Megatron and vLLM do, with the @code{split} column
## giving the row blocks that are orthogonalized separately (@code{muon_update}'s
## @qcode{"SplitRows"}): @code{qkv_proj} = [q; k; v] (llama and qwen), for multi-head
## latent attention with a query LoRA rank @code{fused_qkv_a_proj_with_mqa} = [q_a;
## kv_a]; @code{gate_up_proj} = [gate; up] for dense MLPs, shared and routed experts.
## @end table
##
## @var{M} is a @code{muon_model_result} object: its fields read as a struct's, typing
## @var{M} prints a summary of a dozen lines, @code{isstruct (M)} is false and
## @code{struct (M)} gives the plain struct.  Its fields are @code{name}, @code{model_type},
## @code{family}
## (@qcode{"llama"}, @qcode{"qwen"} or @qcode{"deepseek"}), @code{source} (the file read,
## or @qcode{"struct"}), @code{config} (the decoded configuration), @code{options},
## @code{checkpoint} (the check above: @code{method} @qcode{"safetensors"}, @qcode{"index"}
## or @qcode{"none"}, @code{file}, @code{count}, @code{expected}, @code{matches}),
## @code{published} (for a shipped model, a struct array of the published counts with fields
## @code{count}, @code{counts} (which field of @code{counts} it is comparable with),
## @code{mtp} and @code{source}; empty otherwise), and:
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
## (the MTP layers' own parameters), @code{stored} (as the checkpoint stores them: with the
## MTP layers' copies of the embedding and head), @code{activated} (per token, embedding and
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
  [cfg, mt] = model_family_config (cfg);   # gemma3: its text_config
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

  B = {};
  h = pos_int (fname, cfg, "hidden_size");
  V = pos_int (fname, cfg, "vocab_size");
  nl = pos_int (fname, cfg, "num_hidden_layers");
  B = add (B, {"model.embed_tokens.weight"}, V, h, -1, "embedding");
  extra = 0;                          # elements stored beyond the parameters (MTP copies)
  ## each layer's blocks in a cell of its own, joined once: linear in the layer count
  layers = cell (1, nl);
  if (strcmp (family, "deepseek"))
    D = deepseek_dims (fname, cfg, h);
    check_size (fname, nl, D);
    for l = 0:nl-1
      layers{l+1} = deepseek_layer ({}, D, l, false, o);
    endfor
  else
    D = llama_dims (fname, cfg, h, mt);
    check_size (fname, nl, D);
    for l = 0:nl-1
      layers{l+1} = llama_layer ({}, D, l, o);
    endfor
  endif
  B = [B, layers{:}];
  B = add (B, {"model.norm.weight"}, h, 1, -1, "norm");
  if (! get_bool (fname, cfg, "tie_word_embeddings", strncmp (mt, "gemma", 5)))
    B = add (B, {"lm_head.weight"}, V, h, -1, "head");
  endif
  if (strcmp (family, "deepseek") && o.mtp)
    for k = 0:D.nmtp-1
      l = nl + k;
      pre = sprintf ("model.layers.%d.", l);
      B = add (B, {[pre "enorm.weight"]; [pre "hnorm.weight"]}, [h; h], [1; 1], l, "norm",
               "mtp", true);
      B = add (B, {[pre "eh_proj.weight"]}, h, 2 * h, l, "mtp_proj", "mtp", true);
      B = deepseek_layer (B, D, l, true, o);
      B = add (B, {[pre "shared_head.norm.weight"]}, h, 1, l, "norm", "mtp", true);
      extra += 2 * V * h;             # embed_tokens and shared_head.head, stored again
    endfor
  endif

  T = table_of (B);
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
  M.checkpoint = model_checkpoint (fname, source, cfg, M.counts);
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
    if (! isempty (k))
      file = fullfile (models_dir (), [names{k} ".json"]);
    elseif (isfolder (what))            # a Hugging Face snapshot folder
      file = fullfile (what, "config.json");
      if (! exist (file, "file"))
        error ("muonlab:badArg", "%s: the folder '%s' holds no config.json.", fname, what);
      endif
    elseif (! isempty (regexp (what, '\.json$', "once")) || exist (what, "file") == 2)
      file = what;
      if (! exist (file, "file"))
        error ("muonlab:badArg", "%s: cannot read '%s' (no such file).", fname, what);
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
  if (isfield (cfg, "muonlab") && isstruct (cfg.muonlab))
    if (isfield (cfg.muonlab, "name"))
      meta.name = cfg.muonlab.name;
    endif
    if (isfield (cfg.muonlab, "published"))
      meta.published = cfg.muonlab.published(:);
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

## A required positive integer field.
function n = pos_int (fname, cfg, field)
  if (! isfield (cfg, field))
    error ("muonlab:badArg", "%s: the config has no field '%s'.", fname, field);
  endif
  n = cfg.(field);
  if (! (isnumeric (n) && isscalar (n) && isreal (n) && n >= 1 && n == fix (n)))
    error ("muonlab:badArg", "%s: config field '%s' must be a positive integer.", fname,
           field);
  endif
  n = double (n);
  at_most (fname, field, n);
endfunction

## The limits of a config's numbers (core_lists, checked before any work): the layer count
## max_model_layers, the expert counts max_model_experts, every other size max_model_dim.
function at_most (fname, field, n)
  lim = core_lists ().limits;
  if (strcmp (field, "num_hidden_layers"))
    key = "max_model_layers";
  elseif (any (strcmp (field, {"num_experts", "n_routed_experts"})))
    key = "max_model_experts";
  else
    key = "max_model_dim";
  endif
  if (n > lim.(key))
    error ("muonlab:badArg", "%s: config field '%s' must be at most %d (the limit %s).",
           fname, field, lim.(key), key);
  endif
endfunction

## An optional non-negative integer field (null or missing: dflt).
function n = opt_int (fname, cfg, field, dflt)
  n = dflt;
  if (isfield (cfg, field) && ! isempty (cfg.(field)))
    n = cfg.(field);
    if (! (isnumeric (n) && isscalar (n) && isreal (n) && n >= 0 && n == fix (n)))
      error ("muonlab:badArg", "%s: config field '%s' must be a non-negative integer.",
             fname, field);
    endif
    n = double (n);
    at_most (fname, field, n);
  endif
endfunction

function b = get_bool (fname, cfg, field, dflt)
  b = dflt;
  if (isfield (cfg, field) && ! isempty (cfg.(field)))
    b = cfg.(field);
    if (! (isscalar (b) && (islogical (b) || (isnumeric (b) && any (b == [0 1])))))
      error ("muonlab:badArg", "%s: config field '%s' must be true or false.", fname, field);
    endif
    b = logical (b);
  endif
endfunction

## The parameter count, bounded above before any is made (at most 24 per layer besides the
## experts' 3 each), against the limit max_model_matrices.
function check_size (fname, nl, D)
  n = (nl + D.nmtp) * (24 + 3 * D.E);
  lim = core_lists ().limits.max_model_matrices;
  if (n > lim)
    error ("muonlab:badArg",
           "%s: the model would hold up to %.0f matrices; at most %d (the limit max_model_matrices).",
           fname, n, lim);
  endif
endfunction

## ---- families ------------------------------------------------------------------------

function D = llama_dims (fname, cfg, h, mt)
  D.h = h;
  D.nh = pos_int (fname, cfg, "num_attention_heads");
  D.nkv = opt_int (fname, cfg, "num_key_value_heads", D.nh);
  D.hd = opt_int (fname, cfg, "head_dim", 0);
  if (D.hd == 0)
    if (mod (h, D.nh) != 0)
      error ("muonlab:badArg",
             "%s: hidden_size (%d) must be a multiple of num_attention_heads (%d) without head_dim.",
             fname, h, D.nh);
    endif
    D.hd = h / D.nh;
  endif
  D.inter = pos_int (fname, cfg, "intermediate_size");
  D.qkv_bias = any (strcmp (mt, {"qwen2", "qwen2_moe"})) ...
               || get_bool (fname, cfg, "attention_bias", false);
  D.mlp_bias = get_bool (fname, cfg, "mlp_bias", false);
  D.qk_norm = any (strcmp (mt, {"qwen3", "qwen3_moe", "gemma3_text"}));
  D.ffn_norms = any (strcmp (mt, {"gemma2", "gemma3_text"}));   # pre/post feedforward
  D.mixtral = strcmp (mt, "mixtral");
  D.moe = any (strcmp (mt, {"qwen2_moe", "qwen3_moe", "mixtral"}));
  D.nmtp = 0;
  D.E = 0;
  D.topk = 0;
  if (D.mixtral)                        # every layer sparse, experts of intermediate_size
    D.E = pos_int (fname, cfg, "num_local_experts");
    D.topk = pos_int (fname, cfg, "num_experts_per_tok");
    D.moe_inter = D.inter;
    D.step = 1;
    D.mlp_only = [];
    D.shared_inter = 0;
  elseif (D.moe)
    D.E = pos_int (fname, cfg, "num_experts");
    D.topk = pos_int (fname, cfg, "num_experts_per_tok");
    D.moe_inter = pos_int (fname, cfg, "moe_intermediate_size");
    D.step = opt_int (fname, cfg, "decoder_sparse_step", 1);
    D.mlp_only = [];
    if (isfield (cfg, "mlp_only_layers"))
      D.mlp_only = double (cfg.mlp_only_layers(:).');
    endif
    D.shared_inter = opt_int (fname, cfg, "shared_expert_intermediate_size", 0);
  endif
endfunction

function B = llama_layer (B, D, l, o)
  pre = sprintf ("model.layers.%d.", l);
  h = D.h;
  q = D.nh * D.hd;
  kv = D.nkv * D.hd;
  B = add (B, {[pre "input_layernorm.weight"]}, h, 1, l, "norm");
  if (o.fuse_qkv)
    B = add (B, {[pre "self_attn.qkv_proj.weight"]}, q + 2 * kv, h, l, "attention",
             "split", [q kv kv]);
    if (D.qkv_bias)
      B = add (B, {[pre "self_attn.qkv_proj.bias"]}, q + 2 * kv, 1, l, "bias");
    endif
  else
    a = strcat (pre, "self_attn.", {"q_proj"; "k_proj"; "v_proj"}, ".weight");
    B = add (B, a, [q; kv; kv], [h; h; h], l, "attention");
    if (D.qkv_bias)
      a = strcat (pre, "self_attn.", {"q_proj"; "k_proj"; "v_proj"}, ".bias");
      B = add (B, a, [q; kv; kv], [1; 1; 1], l, "bias");
    endif
  endif
  B = add (B, {[pre "self_attn.o_proj.weight"]}, h, q, l, "attention");
  if (D.qk_norm)
    B = add (B, {[pre "self_attn.q_norm.weight"]; [pre "self_attn.k_norm.weight"]},
             [D.hd; D.hd], [1; 1], l, "norm");
  endif
  B = add (B, {[pre "post_attention_layernorm.weight"]}, h, 1, l, "norm");
  if (D.ffn_norms)
    B = add (B, {[pre "pre_feedforward_layernorm.weight"];
                 [pre "post_feedforward_layernorm.weight"]}, [h; h], [1; 1], l, "norm");
  endif
  sparse_layer = D.moe && ! any (D.mlp_only == l) && mod (l + 1, D.step) == 0;
  if (sparse_layer && D.mixtral)        # block_sparse_moe: gate, experts w1 w2 w3
    m = [pre "block_sparse_moe."];
    B = add (B, {[m "gate.weight"]}, D.E, h, l, "router");
    if (o.fused_experts || o.fuse_gu)
      B = experts (B, [m "experts."], D.E, h, D.moe_inter, l, o, false);
    else
      e = repelem (0:D.E-1, 3);
      names = ostrsplit (sprintf ([m "experts.%d.w1.weight\n" m "experts.%d.w2.weight\n" ...
                                   m "experts.%d.w3.weight\n"], e), "\n", true).';
      B = add (B, names, repmat ([D.inter; h; D.inter], D.E, 1),
               repmat ([h; D.inter; h], D.E, 1), l, "expert", "expert", e(:));
    endif
  elseif (! sparse_layer)
    B = mlp (B, [pre "mlp."], h, D.inter, l, "mlp", o, false, D.mlp_bias);
  else
    B = add (B, {[pre "mlp.gate.weight"]}, D.E, h, l, "router");
    B = experts (B, [pre "mlp.experts."], D.E, h, D.moe_inter, l, o, false);
    if (D.shared_inter > 0)
      B = mlp (B, [pre "mlp.shared_expert."], h, D.shared_inter, l, "shared_expert", o,
               false, false);
      B = add (B, {[pre "mlp.shared_expert_gate.weight"]}, 1, h, l, "router");
    endif
  endif
endfunction

function D = deepseek_dims (fname, cfg, h)
  D.h = h;
  D.nh = pos_int (fname, cfg, "num_attention_heads");
  D.qr = opt_int (fname, cfg, "q_lora_rank", 0);
  D.kvr = pos_int (fname, cfg, "kv_lora_rank");
  D.nope = pos_int (fname, cfg, "qk_nope_head_dim");
  D.rope = pos_int (fname, cfg, "qk_rope_head_dim");
  D.vd = pos_int (fname, cfg, "v_head_dim");
  D.inter = pos_int (fname, cfg, "intermediate_size");
  D.E = opt_int (fname, cfg, "n_routed_experts", 0);
  D.topk = 0;
  if (D.E > 0)
    D.moe_inter = pos_int (fname, cfg, "moe_intermediate_size");
    D.topk = pos_int (fname, cfg, "num_experts_per_tok");
  endif
  D.nshared = opt_int (fname, cfg, "n_shared_experts", 0);
  D.first_dense = opt_int (fname, cfg, "first_k_dense_replace", 0);
  D.freq = max (1, opt_int (fname, cfg, "moe_layer_freq", 1));
  D.bias = isfield (cfg, "topk_method") && strcmp (cfg.topk_method, "noaux_tc");
  D.nmtp = opt_int (fname, cfg, "num_nextn_predict_layers", 0);
endfunction

function B = deepseek_layer (B, D, l, is_mtp, o)
  pre = sprintf ("model.layers.%d.", l);
  h = D.h;
  m = {"mtp", is_mtp};
  qdim = D.nh * (D.nope + D.rope);
  B = add (B, {[pre "input_layernorm.weight"]}, h, 1, l, "norm", m{:});
  a = [pre "self_attn."];
  if (D.qr == 0)
    B = add (B, {[a "q_proj.weight"]}, qdim, h, l, "attention", m{:});
    B = add (B, {[a "kv_a_proj_with_mqa.weight"]}, D.kvr + D.rope, h, l, "attention", m{:});
  elseif (o.fuse_qkv)
    B = add (B, {[a "fused_qkv_a_proj_with_mqa.weight"]}, D.qr + D.kvr + D.rope, h, l,
             "attention", "split", [D.qr, D.kvr + D.rope], m{:});
    B = add (B, {[a "q_a_layernorm.weight"]}, D.qr, 1, l, "norm", m{:});
    B = add (B, {[a "q_b_proj.weight"]}, qdim, D.qr, l, "attention", m{:});
  else
    B = add (B, {[a "q_a_proj.weight"]}, D.qr, h, l, "attention", m{:});
    B = add (B, {[a "q_a_layernorm.weight"]}, D.qr, 1, l, "norm", m{:});
    B = add (B, {[a "q_b_proj.weight"]}, qdim, D.qr, l, "attention", m{:});
    B = add (B, {[a "kv_a_proj_with_mqa.weight"]}, D.kvr + D.rope, h, l, "attention", m{:});
  endif
  B = add (B, {[a "kv_a_layernorm.weight"]}, D.kvr, 1, l, "norm", m{:});
  B = add (B, {[a "kv_b_proj.weight"]}, D.nh * (D.nope + D.vd), D.kvr, l, "attention", m{:});
  B = add (B, {[a "o_proj.weight"]}, h, D.nh * D.vd, l, "attention", m{:});
  B = add (B, {[pre "post_attention_layernorm.weight"]}, h, 1, l, "norm", m{:});
  if (D.E > 0 && l >= D.first_dense && mod (l, D.freq) == 0)
    B = add (B, {[pre "mlp.gate.weight"]}, D.E, h, l, "router", m{:});
    if (D.bias)
      B = add (B, {[pre "mlp.gate.e_score_correction_bias"]}, D.E, 1, l, "bias", m{:});
    endif
    B = experts (B, [pre "mlp.experts."], D.E, h, D.moe_inter, l, o, is_mtp);
    if (D.nshared > 0)
      B = mlp (B, [pre "mlp.shared_experts."], h, D.nshared * D.moe_inter, l,
               "shared_expert", o, is_mtp, false);
    endif
  else
    B = mlp (B, [pre "mlp."], h, D.inter, l, "mlp", o, is_mtp, false);
  endif
endfunction

## A SwiGLU MLP: gate and up (hidden -> inter), down (inter -> hidden).
function B = mlp (B, pre, h, inter, l, kind, o, is_mtp, bias)
  m = {"mtp", is_mtp};
  if (o.fuse_gu)
    B = add (B, {[pre "gate_up_proj.weight"]}, 2 * inter, h, l, kind, "split",
             [inter inter], m{:});
    if (bias)
      B = add (B, {[pre "gate_up_proj.bias"]}, 2 * inter, 1, l, "bias", m{:});
    endif
  else
    B = add (B, {[pre "gate_proj.weight"]; [pre "up_proj.weight"]}, [inter; inter], [h; h],
             l, kind, m{:});
    if (bias)
      B = add (B, {[pre "gate_proj.bias"]; [pre "up_proj.bias"]}, [inter; inter], [1; 1],
               l, "bias", m{:});
    endif
  endif
  B = add (B, {[pre "down_proj.weight"]}, h, inter, l, kind, m{:});
  if (bias)
    B = add (B, {[pre "down_proj.bias"]}, h, 1, l, "bias", m{:});
  endif
endfunction

## E routed experts, each a SwiGLU MLP of width inter; separate or fused.
function B = experts (B, pre, E, h, inter, l, o, is_mtp)
  m = {"mtp", is_mtp};
  if (o.fused_experts)
    if (o.fuse_gu)
      B = add (B, {[pre "gate_up_proj.weight"]}, E * 2 * inter, h, l, "expert", "experts",
               E, "split", [inter inter], m{:});
    else
      B = add (B, {[pre "gate_proj.weight"]; [pre "up_proj.weight"]}, E * [inter; inter],
               [h; h], l, "expert", "experts", E, m{:});
    endif
    B = add (B, {[pre "down_proj.weight"]}, E * h, inter, l, "expert", "experts", E, m{:});
    return;
  endif
  if (o.fuse_gu)
    proj = {"gate_up_proj"; "down_proj"};
    r = [2 * inter; h];
    c = [h; inter];
  else
    proj = {"gate_proj"; "up_proj"; "down_proj"};
    r = [inter; inter; h];
    c = [h; h; inter];
  endif
  np = numel (proj);
  e = repmat (0:E-1, np, 1);
  fmt = sprintf ([strrep(pre, "%", "%%") "%%d.%s.weight\n"], proj{:});   # numbers only: fast
  names = ostrsplit (sprintf (fmt, e), "\n", true).';
  e = e(:);
  split = [];
  if (o.fuse_gu)
    split = repmat ({[inter inter]; []}, E, 1);
  endif
  B = add (B, names, repmat (r, E, 1), repmat (c, E, 1), l, "expert", "expert", e,
           "splitcell", split, m{:});
endfunction

## ---- the table -----------------------------------------------------------------------

## Appends a block of n parameters (names a cellstr column; rows, cols n x 1 or scalars).
function B = add (B, names, rows, cols, layer, kind, varargin)
  n = numel (names);
  b.name = names(:);
  b.rows = rows(:) .* ones (n, 1);
  b.cols = cols(:) .* ones (n, 1);
  b.experts = ones (n, 1);
  b.split = cell (n, 1);
  b.layer = layer * ones (n, 1);
  b.kind = cell (n, 1);
  b.kind(:) = {kind};
  b.expert = -ones (n, 1);
  b.mtp = false (n, 1);
  for i = 1:2:numel (varargin)
    val = varargin{i+1};
    switch (varargin{i})
      case "experts"
        b.experts(:) = val;
      case "split"
        b.split(:) = {val};
      case "splitcell"
        if (! isempty (val))
          b.split = val(:);
        endif
      case "expert"
        b.expert = val(:);
      case "mtp"
        b.mtp(:) = val;
    endswitch
  endfor
  B{end+1} = b;
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
%!error <muon_model: cannot read 'no_such_dir/x.json' \(no such file\).> muon_model ("no_such_dir/x.json")
%!error <muon_model: model_type 'gpt2' is not supported> muon_model (struct ("model_type", "gpt2"))
%!error id=muonlab:unsupported muon_model (struct ("model_type", "gpt2"))
%!error <muon_model: the config has no field 'hidden_size'.> muon_model (struct ("model_type", "llama", "vocab_size", 10))
%!error <muon_model: config field 'hidden_size' must be a positive integer.> muon_model (struct ("model_type", "llama", "vocab_size", 10, "hidden_size", -3))
%!error <muon_model: EXPERTS must be 'separate' or 'fused'.> muon_model ("llama-3.1-8b", "Experts", "x")
%!error <muon_model: FUSE must be 'none', 'qkv', 'gate_up' or 'all'.> muon_model ("llama-3.1-8b", "Fuse", 1)
%!error <muon_model: MTP must be true or false.> muon_model ("llama-3.1-8b", "MTP", 3)
%!error <muon_model: unknown option 'Foo'.> muon_model ("llama-3.1-8b", "Foo", 1)
%!error <muon_model: the first argument must be a model name, a config.json file or a config struct.> muon_model (3)
%!error id=muonlab:badArg muon_model ("gpt5")

%!demo
%! ## parameters and routing of the shipped models
%! for n = muon_model ()'
%!   M = muon_model (n{1});
%!   printf ("%-18s %8.2fB total, %7.2fB to Muon in %6d matrices, %6.2fB activated\n",
%!           n{1}, M.counts.total / 1e9, M.counts.muon / 1e9, M.counts.nmuon,
%!           M.counts.activated / 1e9);
%! endfor
