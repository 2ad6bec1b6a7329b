## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{cfg}, @var{mt}, @var{mm}] =} model_family_config (@var{fname}, @var{cfg})
## The configuration @code{muon_model} builds from, and its model_type @var{mt} ("" when it
## has none; not a string: @code{muonlab:badArg}): a multimodal Gemma 3 (@code{model_type}
## @qcode{"gemma3"}) holds its language model in @code{text_config} (model_type
## @qcode{"gemma3_text"}), which is what comes back (its vision tower is not modelled;
## without a text_config object, @code{muonlab:badArg}); any other configuration as it
## is.  @var{mm} is true for the multimodal one (its checkpoint holds a vision tower too).
## @end deftypefn

function [cfg, mt, mm] = model_family_config (fname, cfg)
  mt = "";
  if (isfield (cfg, "model_type"))
    mt = cfg.model_type;
    if (! (ischar (mt) && isrow (mt)))
      error ("muonlab:badArg", "%s: config field 'model_type' must be a string.", fname);
    endif
  endif
  mm = strcmp (mt, "gemma3");
  if (mm)
    if (! (isfield (cfg, "text_config") && isstruct (cfg.text_config)
           && isscalar (cfg.text_config)))
      error ("muonlab:badArg",
             "%s: config field 'text_config' must be a JSON object (a gemma3 config's language model).",
             fname);
    endif
    t = cfg.text_config;
    for f = fieldnames (cfg).'           # what the text config leaves to the top level
      if (! isfield (t, f{1}) && ! strcmp (f{1}, "text_config"))
        t.(f{1}) = cfg.(f{1});
      endif
    endfor
    t.model_type = "gemma3_text";
    cfg = t;
    mt = "gemma3_text";
  endif
endfunction
