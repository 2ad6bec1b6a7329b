## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{K} =} model_checkpoint (@var{fname}, @var{source}, @var{cfg}, @var{counts}, @var{T}, @var{mm})
## What the checkpoint beside a model's config.json says about its size, checked against
## the parameters built from the config (@var{counts}.stored: as the checkpoint stores
## them; @var{T} the table of the stored parameters: the MTP layers in it whatever
## @qcode{"MTP"} says).  @var{K} has @code{method} (@qcode{"safetensors"}: the headers of
## the folder's *.safetensors files, each tensor's shape; @qcode{"index"}:
## model.safetensors.index.json's @code{metadata.total_size} bytes divided by the bytes of
## the config's @code{dtype} (newer transformers), else its @code{torch_dtype}, else
## bfloat16; a dtype of no known size skips the check, the note saying so; @qcode{"none"}:
## neither is there, the model is a shipped one or a struct, or the check was skipped;
## with @var{mm}, a multimodal model, the headers' tensors under vision_tower and
## multi_modal_projector are left out, the note saying how many, and the index, which
## counts them, is not read), @code{file} (what was read), @code{count} (parameters it
## holds; NaN for none), @code{expected}, @code{matches} (within 0.1%; true for none) and
## @code{note} (why the check was skipped or estimated; "" otherwise).  The folder is
## listed with @code{readdir} (its name may hold glob characters); the index is read by
## @code{json_read}, every *.safetensors must be a regular file, its header at most 2^27
## bytes and @code{max_json_depth} deep, each tensor's shape a list of non-negative
## integers (else @code{muonlab:badArg} naming the file and the tensor).  A mismatch warns
## (@code{muonlab:modelCount}): the config does not describe those weights.
##
## A config's @code{quantization_config}: with @code{quant_method} @qcode{"fp8"} (the
## DeepSeek-V3 and Kimi-K2 weights) the linear weights of the decoder layers (attention,
## MLP, expert and shared expert matrices, but no module of
## @code{modules_to_not_convert}) take a byte per element plus a float32 scale per
## @code{weight_block_size} block (one per matrix without it), every other tensor its
## @code{torch_dtype}: the index's count is its bytes less the scales' and the extra bytes
## of the unquantized tensors, and, as which tensors are quantized is inferred, it matches
## within 1%; the headers' count leaves out the scale tensors (names ending in
## @qcode{"_scale"} or @qcode{"_scale_inv"}).  Any other @code{quant_method} packs its
## weights in ways the sizes do not show: the check is skipped (@code{method}
## @qcode{"none"}, the @code{note} saying so).
## @end deftypefn

function K = model_checkpoint (fname, source, cfg, counts, T, mm)
  K = struct ("method", "none", "file", "", "count", NaN, "expected", counts.stored,
              "matches", true, "note", "");
  if (strcmp (source, "struct") || ! exist (source, "file"))
    return;
  endif
  dir = fileparts (source);
  if (isempty (dir))
    dir = ".";
  endif
  if (strcmp (canonicalize_file_name (dir),
              canonicalize_file_name (fullfile (fileparts (fileparts (mfilename ("fullpath"))),
                                                "models"))))
    return;                            # a shipped model: no weights beside it
  endif
  st = safetensors_files (fname, dir);
  idx = path_join (dir, "model.safetensors.index.json");
  if (isempty (st) && ! exist (idx, "file"))
    return;
  endif
  quant = "";                          # the quantization_config's quant_method
  if (isfield (cfg, "quantization_config"))
    q = cfg.quantization_config;
    quant = "(none given)";
    if (isstruct (q) && isscalar (q) && isfield (q, "quant_method")
        && ischar (q.quant_method))
      quant = lower (q.quant_method);
    endif
    if (! strcmp (quant, "fp8"))
      K.note = sprintf (["not checked: the checkpoint is quantized (quant_method '%s'), ", ...
                         "so its size gives no parameter count"], quant);
      return;
    endif
  endif
  tol = 1e-3;
  if (! isempty (st))
    n = 0;
    nv = 0;                            # a multimodal model's vision tensors, elements
    for k = 1:numel (st)
      [a, b] = safetensors_count (fname, st{k}, ! isempty (quant), mm);
      n += a;
      nv += b;
    endfor
    K.method = "safetensors";
    K.file = strjoin (st, ", ");
    K.count = n;
    if (mm)
      K.note = sprintf (["the language model's tensors only: %.0f elements under ", ...
                         "vision_tower and multi_modal_projector not counted"], nv);
    endif
  elseif (mm)
    K.note = ["not checked: the index's total_size counts the vision tower too, ", ...
              "which is not modelled"];
    return;
  else
    J = json_read (fname, idx);       # a regular file, size and depth checked first
    if (! (isstruct (J) && isscalar (J) && isfield (J, "metadata")
           && isstruct (J.metadata) && isscalar (J.metadata)
           && isfield (J.metadata, "total_size")))
      error ("muonlab:badArg", "%s: '%s' has no metadata.total_size.", fname, idx);
    endif
    t = J.metadata.total_size;
    if (! (isnumeric (t) && isreal (t) && isscalar (t) && isfinite (t) && t >= 0))
      error ("muonlab:badArg", "%s: '%s': metadata.total_size must be a number of bytes.",
             fname, idx);
    endif
    dt = "bfloat16";                   # dtype (newer transformers), else torch_dtype
    for f = {"torch_dtype", "dtype"}
      if (isfield (cfg, f{1}) && ! isempty (cfg.(f{1})))
        dt = cfg.(f{1});
      endif
    endfor
    b = dtype_bytes (dt);
    if (isempty (b))
      if (! (ischar (dt) && isrow (dt)))
        dt = "(not a string)";
      endif
      K.note = sprintf (["not checked: the config's dtype '%s' has no known size, so ", ...
                         "total_size gives no parameter count"], dt);
      return;
    endif
    K.method = "index";
    K.file = idx;
    if (isempty (quant))
      K.count = double (t) / b;
    else
      ## a byte per quantized element, b per other one (the MTP layers' copies of the
      ## embedding and head too), and the scales
      [plain, scales] = fp8_split (cfg.quantization_config, T);
      plain += counts.stored - sum (T.numel);
      K.count = double (t) - scales - (b - 1) * plain;
      tol = 1e-2;
      K.note = sprintf (["fp8: %.0f elements of %d bytes, the rest of one, %.0f bytes of ", ...
                         "scales (estimated: within 1%%)"], plain, b, scales);
    endif
  endif
  K.matches = abs (K.count - K.expected) <= tol * K.expected;
  if (! K.matches)
    warning ("muonlab:modelCount",
             "%s: the checkpoint (%s) holds %.0f parameters, the config gives %.0f: the config does not describe these weights.",
             fname, K.method, K.count, K.expected);
  endif
endfunction

## For an fp8 quantization_config Q and the parameters T: the elements of the tensors left
## in torch_dtype, and the bytes of the float32 scales of the quantized ones (the linear
## weights of the decoder layers, less modules_to_not_convert; one scale per
## weight_block_size block of each expert, or per matrix).
function [plain, scales] = fp8_split (Q, T)
  quantized = (ismember (T.kind, {"attention", "mlp", "expert", "shared_expert"})
               & T.rows > 1 & T.cols > 1);
  if (isfield (Q, "modules_to_not_convert") && iscellstr (Q.modules_to_not_convert))
    for m = Q.modules_to_not_convert(:).'
      quantized &= cellfun ("isempty", strfind (T.name, m{1}));
    endfor
  endif
  r = T.rows(quantized) ./ T.experts(quantized);     # one expert's rows
  c = T.cols(quantized);
  blk = [r c];
  if (isfield (Q, "weight_block_size") && isnumeric (Q.weight_block_size)
      && numel (Q.weight_block_size) == 2 && all (Q.weight_block_size(:) >= 1))
    blk = repmat (double (Q.weight_block_size(:).'), numel (r), 1);
  endif
  plain = sum (T.numel(! quantized));
  scales = 4 * sum (T.experts(quantized) .* ceil (r ./ blk(:,1)) .* ceil (c ./ blk(:,2)));
endfunction

## The *.safetensors files of folder DIR (a cellstr, sorted), each a regular file: the
## folder listed and its names matched here (glob would read DIR's own [ ] * ? as a
## pattern, and take a FIFO or a folder so named).
function st = safetensors_files (fname, dir)
  names = readdir (dir);
  ## a plain suffix test: regexp fails ("the input string is invalid UTF-8", no id) on a
  ## name that is no UTF-8, such as an unrelated caf\xe9.txt beside the checkpoint
  keep = cellfun (@(n) numel (n) > 12 && n(1) != "." && strcmp (n(end-11:end), ".safetensors"),
                  names);
  names = sort (names(keep));
  st = cell (1, numel (names));
  for k = 1:numel (st)
    st{k} = path_join (dir, names{k});
    regular_file (fname, st{k}, "");   # only its header is read: no size limit
  endfor
endfunction

## The elements of every tensor in the header of a .safetensors file (but a quantized
## checkpoint's scales when NOSCALES): 8 bytes (the header's length, little-endian, at
## most 2^27), then that much JSON nested at most max_json_depth deep: {name: {dtype,
## shape, data_offsets}, ...}, each shape a list of non-negative integers
## ("__metadata__" skipped).  With MM the tensors under vision_tower and
## multi_modal_projector (any prefix) are counted in NV, not N.
function [n, nv] = safetensors_count (fname, file, noscales, mm)
  regular_file (fname, file, "");      # a FIFO or a device is refused before it is opened
  fid = fopen (file, "r", "ieee-le");
  if (fid < 0)
    error ("muonlab:badArg", "%s: cannot read '%s'.", fname, file);
  endif
  unwind_protect
    len = fread (fid, 1, "uint64=>double");
    if (isempty (len) || len < 2 || len > 2^27)
      error ("muonlab:badArg", "%s: '%s' is not a safetensors file (header length).", fname,
             file);
    endif
    txt = fread (fid, len, "char=>char").';
  unwind_protect_cleanup
    fclose (fid);
  end_unwind_protect
  ## tensor names as they are ("a.b" and "a_b" differ)
  H = json_read (fname, file, txt, "makeValidName", false);
  if (! (isstruct (H) && isscalar (H)))
    error ("muonlab:badArg",
           "%s: '%s' has no valid safetensors header (not a JSON object of tensors).", fname,
           file);
  endif
  ## a shape that is no flat list of numbers, which jsondecode would hide ([[16], [8]]
  ## reads as [16, 8], 5 and [[5]] as [5], null as []): searched in a copy whose escapes
  ## are "__" and whose bytes > 127 are "x" (regexp refuses bytes that are no UTF-8: a
  ## latin-1 byte in the metadata was regexprep's error), the same length as TXT, so that
  ## a name is cut from TXT, its escapes removed (as the message has always shown it)
  t = txt;
  t(t > 127) = "x";
  t = regexprep (t, '\\.', "__");
  [bad, te] = regexp (t, '"([^"]*)"\s*:\s*\{[^{}]*?"shape"\s*:(?!\s*\[[^][{}"]*\])',
                      "tokens", "tokenExtents");
  bad = cellfun (@(c) c{1}, bad, "UniformOutput", false);    # (1 x 0 where none)
  te = te(! strcmp (bad, "__metadata__"));
  if (! isempty (te))
    bad_shape (fname, file, drop_escapes (txt(te{1}(1):te{1}(2))));
  endif
  n = 0;
  nv = 0;
  for f = fieldnames (H).'
    if (strcmp (f{1}, "__metadata__"))
      continue;
    endif
    t = H.(f{1});
    if (! (isstruct (t) && isscalar (t) && isfield (t, "shape")))
      error ("muonlab:badArg", "%s: '%s': tensor '%s' has no shape.", fname, file, f{1});
    endif
    s = t.shape;
    if (! (isnumeric (s) && isreal (s) && (isempty (s) || iscolumn (s))
           && all (isfinite (s) & s >= 0 & s == fix (s))))
      bad_shape (fname, file, f{1});
    endif
    a = f{1};
    a(a > 127) = "x";                   # (a name's bytes that are no UTF-8, as above)
    if (mm && ! isempty (regexp (a, '(^|\.)(vision_tower|multi_modal_projector)\.',
                                 "once")))
      nv += prod (double (s));
    elseif (! (noscales && ! isempty (regexp (a, '_scale(_inv)?$', "once"))))
      n += prod (double (s));
    endif
  endfor
endfunction

## S without its escapes: each backslash and the byte after it removed, from the left
## (what regexprep (S, '\\.', "") does, also for bytes that are no UTF-8)
function s = drop_escapes (s)
  k = 1;
  while (k <= numel (s))
    if (s(k) == "\\")
      s(k:min (k + 1, end)) = [];
    else
      k++;
    endif
  endwhile
endfunction

function bad_shape (fname, file, name)
  error ("muonlab:badArg",
         "%s: '%s': the shape of tensor '%s' must be a list of non-negative integers.",
         fname, file, name);
endfunction

## The bytes of a torch dtype's element, [] for a name not known (or not a string).
function b = dtype_bytes (dt)
  b = [];
  if (! (ischar (dt) && isrow (dt)))
    return;
  endif
  switch (lower (regexprep (dt, '^torch\.', "")))
    case {"float32", "fp32", "float"}
      b = 4;
    case {"float64", "fp64", "double"}
      b = 8;
    case {"bfloat16", "bf16", "float16", "fp16", "half"}
      b = 2;
    case {"float8_e4m3fn", "float8_e5m2", "fp8", "int8", "uint8"}
      b = 1;
  endswitch
endfunction
