## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{B}, @var{D}, @var{extra}, @var{Bx}] =} model_blocks (@var{fname}, @var{cfg}, @var{family}, @var{mt}, @var{o})
## The parameters of @code{muon_model}'s model, read from its Hugging Face config
## @var{cfg} (model_type @var{mt} of @var{family} "llama", "qwen" or "deepseek"; @var{o}
## the call's options): @var{B} a cell of blocks for @code{muon_model}'s table, @var{D}
## the dimensions of one layer, @var{extra} the elements stored beyond the parameters (the
## MTP layers' copies of the embedding and head), @var{Bx} the blocks stored but not
## modelled (the MTP layers, with "MTP" false; @{@} otherwise).  Every config number is
## checked before any block is made: a whole number in its range (at least 1 where it
## divides or counts what must exist; a top-k at most the experts; layer indices below the
## layer count) and within the limits.
## @end deftypefn

function [B, D, extra, Bx] = model_blocks (fname, cfg, family, mt, o)
  B = {};
  Bx = {};                            # stored, not modelled: MTP layers left out
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
    D = llama_dims (fname, cfg, h, mt, nl);
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
  if (strcmp (family, "deepseek") && D.nmtp > 0)
    ## the MTP layers, one cell each, joined once; the checkpoint stores them whatever
    ## "MTP" says, and again the embedding and head for each (shared_head.head)
    mtp = cell (1, D.nmtp);
    for k = 0:D.nmtp-1
      l = nl + k;
      pre = sprintf ("model.layers.%d.", l);
      b = add ({}, {[pre "enorm.weight"]; [pre "hnorm.weight"]}, [h; h], [1; 1], l, "norm",
               "mtp", true);
      b = add (b, {[pre "eh_proj.weight"]}, h, 2 * h, l, "mtp_proj", "mtp", true);
      b = deepseek_layer (b, D, l, true, o);
      mtp{k+1} = add (b, {[pre "shared_head.norm.weight"]}, h, 1, l, "norm", "mtp", true);
    endfor
    mtp = [mtp{:}];
    if (o.mtp)
      B = [B, mtp];
    else
      Bx = mtp;
    endif
    extra = D.nmtp * 2 * V * h;       # embed_tokens and shared_head.head, stored again
  endif
endfunction

## ---- configuration fields ------------------------------------------------------------

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
  elseif (any (strcmp (field, {"num_experts", "n_routed_experts", "num_local_experts"})))
    key = "max_model_experts";
  else
    key = "max_model_dim";
  endif
  if (n > lim.(key))
    error ("muonlab:badArg", "%s: config field '%s' must be at most %d (the limit %s).",
           fname, field, lim.(key), key);
  endif
endfunction

## An optional integer field of at least lo, 0 (the default) or 1 (null or missing: dflt).
function n = opt_int (fname, cfg, field, dflt, lo)
  if (nargin < 5)
    lo = 0;
  endif
  n = dflt;
  if (isfield (cfg, field) && ! isempty (cfg.(field)))
    n = cfg.(field);
    if (! (isnumeric (n) && isscalar (n) && isreal (n) && n >= lo && n == fix (n)))
      error ("muonlab:badArg", "%s: config field '%s' must be a %s integer.", fname, field,
             merge (lo == 0, "non-negative", "positive"));
    endif
    n = double (n);
    at_most (fname, field, n);
  endif
endfunction

## The experts chosen per token, num_experts_per_tok: from 1 to the E experts of field
## efield (torch.topk of the router's E scores).
function k = top_k (fname, cfg, E, efield)
  k = pos_int (fname, cfg, "num_experts_per_tok");
  if (k > E)
    error ("muonlab:badArg",
           "%s: config field 'num_experts_per_tok' must be at most %s (%d).", fname,
           efield, E);
  endif
endfunction

## An optional list of 0-based layer indices (null, [] or missing: none), each below nl.
function v = layer_list (fname, cfg, field, nl)
  v = [];
  if (isfield (cfg, field))
    v = cfg.(field);
    if (! (isnumeric (v) && isreal (v)
           && (isempty (v) || (isvector (v) && all (v >= 0 & v < nl & v == fix (v))))))
      error ("muonlab:badArg",
             "%s: config field '%s' must be a list of layer indices from 0 to num_hidden_layers - 1 (%d).",
             fname, field, nl - 1);
    endif
    v = full (double (v(:).'));
  endif
endfunction

## An optional string field ("" when null or missing).
function s = opt_str (fname, cfg, field)
  s = "";
  if (isfield (cfg, field) && ! (isnumeric (cfg.(field)) && isempty (cfg.(field))))
    s = cfg.(field);
    if (! (ischar (s) && isrow (s)))
      error ("muonlab:badArg", "%s: config field '%s' must be a string.", fname, field);
    endif
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

function D = llama_dims (fname, cfg, h, mt, nl)
  D.h = h;
  D.nh = pos_int (fname, cfg, "num_attention_heads");
  D.nkv = opt_int (fname, cfg, "num_key_value_heads", D.nh, 1);
  if (mod (D.nh, D.nkv) != 0)         # each key/value head serves nh / nkv query heads
    error ("muonlab:badArg",
           "%s: num_attention_heads (%d) must be a multiple of num_key_value_heads (%d).",
           fname, D.nh, D.nkv);
  endif
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
  ## attention_bias: biases on q, k, v and o (transformers' llama, gemma, qwen3 attention);
  ## qwen2 and qwen2_moe always have q, k, v biases and never an o_proj bias
  qwen2 = any (strcmp (mt, {"qwen2", "qwen2_moe"}));
  D.o_bias = get_bool (fname, cfg, "attention_bias", false) && ! qwen2;
  D.qkv_bias = qwen2 || D.o_bias;
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
    D.topk = top_k (fname, cfg, D.E, "num_local_experts");
    D.moe_inter = D.inter;
    D.step = 1;
    D.mlp_only = [];
    D.shared_inter = 0;
  elseif (D.moe)
    D.E = pos_int (fname, cfg, "num_experts");
    D.topk = top_k (fname, cfg, D.E, "num_experts");
    D.moe_inter = pos_int (fname, cfg, "moe_intermediate_size");
    D.step = opt_int (fname, cfg, "decoder_sparse_step", 1, 1);   # (l + 1) % step
    D.mlp_only = layer_list (fname, cfg, "mlp_only_layers", nl);
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
  if (D.o_bias)
    B = add (B, {[pre "self_attn.o_proj.bias"]}, h, 1, l, "bias");
  endif
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
    D.topk = top_k (fname, cfg, D.E, "n_routed_experts");
  endif
  D.nshared = opt_int (fname, cfg, "n_shared_experts", 0);
  D.first_dense = opt_int (fname, cfg, "first_k_dense_replace", 0);
  D.freq = opt_int (fname, cfg, "moe_layer_freq", 1, 1);       # l % freq
  D.bias = strcmp (opt_str (fname, cfg, "topk_method"), "noaux_tc");
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
