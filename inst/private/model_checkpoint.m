## -*- texinfo -*-
## @deftypefn {} {@var{K} =} model_checkpoint (@var{fname}, @var{source}, @var{cfg}, @var{counts})
## What the checkpoint beside a model's config.json says about its size, checked against
## the parameters built from the config (@var{counts}.stored: as the checkpoint stores
## them).  @var{K} has @code{method} (@qcode{"safetensors"}: the headers of the folder's
## *.safetensors files, each tensor's shape; @qcode{"index"}: model.safetensors.index.json's
## @code{metadata.total_size} bytes divided by the bytes of the config's
## @code{torch_dtype}; @qcode{"none"}: neither is there, or the model is a shipped one or
## a struct), @code{file} (what was read), @code{count} (parameters it holds; NaN for
## none), @code{expected} and @code{matches} (within 0.1%; true for none).  A mismatch
## warns (@code{muonlab:modelCount}): the config does not describe those weights.
## @end deftypefn

function K = model_checkpoint (fname, source, cfg, counts)
  K = struct ("method", "none", "file", "", "count", NaN, "expected", counts.stored,
              "matches", true);
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
  st = glob (fullfile (dir, "*.safetensors"));
  idx = fullfile (dir, "model.safetensors.index.json");
  if (! isempty (st))
    n = 0;
    for k = 1:numel (st)
      n += safetensors_count (fname, st{k});
    endfor
    K.method = "safetensors";
    K.file = strjoin (st, ", ");
    K.count = n;
  elseif (exist (idx, "file"))
    try
      J = jsondecode (fileread (idx));
    catch err
      error ("muonlab:badArg", "%s: '%s' is not valid JSON (%s).", fname, idx, err.message);
    end_try_catch
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
    dt = "bfloat16";
    if (isfield (cfg, "torch_dtype") && ischar (cfg.torch_dtype))
      dt = cfg.torch_dtype;
    endif
    K.method = "index";
    K.file = idx;
    K.count = double (J.metadata.total_size) / dtype_bytes (dt);
  else
    return;
  endif
  K.matches = abs (K.count - K.expected) <= 1e-3 * K.expected;
  if (! K.matches)
    warning ("muonlab:modelCount",
             "%s: the checkpoint (%s) holds %.0f parameters, the config gives %.0f: the config does not describe these weights",
             fname, K.method, K.count, K.expected);
  endif
endfunction

## The elements of every tensor in the header of a .safetensors file: 8 bytes (the header's
## length, little-endian), then that much JSON: {name: {dtype, shape, data_offsets}, ...}.
function n = safetensors_count (fname, file)
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
  try                                  # tensor names as they are ("a.b" and "a_b" differ)
    H = jsondecode (txt, "makeValidName", false);
  catch err
    error ("muonlab:badArg", "%s: '%s' has no valid safetensors header (%s).", fname, file,
           err.message);
  end_try_catch
  if (! (isstruct (H) && isscalar (H)))
    error ("muonlab:badArg",
           "%s: '%s' has no valid safetensors header (not a JSON object of tensors).", fname,
           file);
  endif
  n = 0;
  for f = fieldnames (H).'
    t = H.(f{1});
    if (isstruct (t) && isfield (t, "shape"))
      n += prod (double (t.shape));
    endif
  endfor
endfunction

function b = dtype_bytes (dt)
  switch (lower (dt))
    case {"float32", "fp32"}
      b = 4;
    case {"float64", "fp64"}
      b = 8;
    case {"float8_e4m3fn", "float8_e5m2", "fp8", "int8", "uint8"}
      b = 1;
    otherwise                          # bfloat16, float16
      b = 2;
  endswitch
endfunction
