## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef muon_model_result < muon_result
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{M} =} muon_model_result (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{M})
  ## The result of @code{muon_model}: a @code{muon_result} (classdef) with one property per
  ## field of the struct @var{S} it is made from (@code{name}, @code{model_type},
  ## @code{family}, @code{source}, @code{config}, @code{options}, @code{published}, @code{checkpoint},
  ## @code{params}, @code{counts}), which shows itself at the prompt as a compact summary
  ## instead of every row of the parameter table (over 3,000 lines for a small model).
  ##
  ## Fields are read as in a struct: @code{M.counts.total}, @code{M.params.name@{3@}},
  ## @code{M.params.rows(k)}.  It is not a struct: @code{isstruct (M)} is false,
  ## @code{isobject (M)} true, @code{isfield (M, name)} is false (use @code{isprop}), and
  ## Octave's @code{save} cannot write it; @code{struct (M)} gives the plain struct with
  ## the same fields and values.  @code{zero_cost} and @code{muon_export} take @var{M} as
  ## it is.
  ##
  ## Typing @var{M} (or @code{disp (M)}) prints: the model, its type and family; the file
  ## read; the options; the number of parameters and of distinct shapes; the counts (total,
  ## Muon, AdamW, embedding, activated, stored, MTP); one line per kind of parameter (how
  ## many, distinct shapes, elements, how many go to Muon); one line per published count,
  ## saying whether it counts the MTP layers and beside it the count of @var{M} it compares
  ## with (@code{counts.total - counts.mtp} for a published total without MTP of a model
  ## built with them); and the field names: K + N + 8 lines for K kinds and N published
  ## counts.
  ## @seealso{muon_model, muon_result}
  ## @end deftypefn

  properties
    name = "";
    model_type = "";
    family = "";
    source = "";
    config = struct ();
    options = struct ();
    published = struct ([]);
    params = struct ();
    counts = struct ();
    checkpoint = struct ();
  endproperties

  methods
    function M = muon_model_result (S)
      if (nargin > 0)
        M = from_struct (M, S);
      endif
    endfunction

    function disp (M)
      T = M.params;
      C = M.counts;
      printf ("  muon_model result: %s (model_type %s, family %s)\n", M.name, M.model_type,
              M.family);
      printf ("  source: %s\n", M.source);
      K = M.checkpoint;
      if (isstruct (K) && isfield (K, "method") && ! strcmp (K.method, "none"))
        printf ("  checkpoint (%s): %.0f parameters, %s the config's\n", K.method, K.count,
                merge (K.matches, "as", "NOT as"));
      endif
      if (isstruct (K) && isfield (K, "note") && ! isempty (K.note))
        printf ("  checkpoint: %s\n", K.note);
      endif
      o = M.options;
      opts = cellfun (@(f) sprintf ("%s %s", f, val_str (o.(f))), fieldnames (o).',
                      "UniformOutput", false);
      printf ("  options: %s\n", strjoin (opts, ", "));
      shp = unique ([T.rows T.cols], "rows");
      printf ("  %d parameters (%d to Muon), %d distinct shapes\n", C.nparams, C.nmuon,
              rows (shp));
      printf (["  elements: total %s, Muon %s, AdamW %s, embedding %s, activated %s, " ...
               "stored %s, MTP %s\n"],
              big (C.total), big (C.muon), big (C.adamw), big (C.embedding),
              big (C.activated), big (C.stored), big (C.mtp));
      printf ("  %-14s %8s %8s %10s %8s\n", "kind", "params", "shapes", "elements", "to Muon");
      kinds = unique (T.kind, "stable");
      for k = 1:numel (kinds)
        m = strcmp (T.kind, kinds{k});
        printf ("  %-14s %8d %8d %10s %8d\n", kinds{k}, sum (m),
                rows (unique ([T.rows(m) T.cols(m)], "rows")), big (sum (T.numel(m))),
                sum (m & strcmp (T.route, "muon")));
      endfor
      has_mtp = C.mtp > 0 || any ([M.published.mtp]);   # say "without" where it can matter
      for p = M.published(:).'
        src = p.source;
        if (numel (src) > 50)
          src = [src(1:47) "..."];
        endif
        printf ("  published: %s%s (here %s; %s)\n", big (p.count),
                merge (p.mtp, " with MTP", merge (has_mtp, " without MTP", "")),
                comparable (p, C), src);
      endfor
      printf ("  fields: %s\n", strjoin (properties (M).', ", "));
      printf ("  (M.params: one row per parameter, columns %s)\n",
              strjoin (fieldnames (T).', ", "));
    endfunction
  endmethods
endclassdef

## The count of C that the published count P is comparable with, in words: the field it
## names, less the MTP layers where P counts none and C holds them (for counts.total).
function s = comparable (p, C)
  if (! isfield (C, p.counts))
    s = sprintf ("no counts.%s", p.counts);
  elseif (! p.mtp && C.mtp > 0 && strcmp (p.counts, "total"))
    s = sprintf ("counts.total - counts.mtp = %s", big (C.total - C.mtp));
  elseif (! p.mtp && C.mtp > 0)
    s = sprintf ("counts.%s = %s, with MTP: compare muon_model (..., \"MTP\", false)",
                 p.counts, big (C.(p.counts)));
  elseif (p.mtp && C.mtp == 0 && ! strcmp (p.counts, "stored"))   # stored: MTP always
    s = sprintf ("counts.%s = %s, without MTP: compare muon_model (..., \"MTP\", true)",
                 p.counts, big (C.(p.counts)));
  else
    s = sprintf ("counts.%s = %s", p.counts, big (C.(p.counts)));
  endif
endfunction

## n elements, with its size in words: 8.03B (8030261248)
function s = big (n)
  if (n >= 1e9)
    s = sprintf ("%.2fB", n / 1e9);
  elseif (n >= 1e6)
    s = sprintf ("%.2fM", n / 1e6);
  elseif (n >= 1e4)
    s = sprintf ("%.1fK", n / 1e3);
  else
    s = sprintf ("%d", round (n));
  endif
endfunction

function s = val_str (v)
  if (ischar (v))
    s = v;
  elseif (islogical (v) && isscalar (v))
    s = merge (v, "true", "false");
  else
    s = mat2str (v);
  endif
endfunction

%!test
%! ## issue 18: a model shown at the prompt is a few lines, its fields read as before
%! M = muon_model ("deepseek-v3");
%! txt = evalc ("disp (M)");
%! nk = numel (unique (M.params.kind));
%! assert (nk, 10);
%! assert (numel (strfind (txt, "\n")), nk + numel (M.published) + 8);
%! assert (! isempty (strfind (txt, "muon_model result: deepseek-v3 (model_type deepseek_v3")));
%! assert (! isempty (strfind (txt, sprintf ("%d parameters (%d to Muon)", M.counts.nparams,
%!                                           M.counts.nmuon))));
%! ## the published counts, each beside the count it compares with (with or without MTP):
%! ## 671B without the MTP layers against total - mtp, 685B with them against stored
%! assert (! isempty (strfind (txt, sprintf ("published: 671.00B without MTP (here counts.total - counts.mtp = %.2fB;", (M.counts.total - M.counts.mtp) / 1e9))));
%! assert (! isempty (strfind (txt, sprintf ("published: 685.00B with MTP (here counts.stored = %.2fB;", M.counts.stored / 1e9))));
%! M0 = muon_model ("deepseek-v3", "MTP", false);
%! assert (M0.counts.total, M.counts.total - M.counts.mtp);     # what "less MTP" is
%! for p = M.published(:).'
%!   assert (abs ({M.counts.total - M.counts.mtp, M.counts.stored}{1 + p.mtp} / p.count - 1) < 1e-3);
%! endfor
%! txt0 = evalc ("disp (M0)");
%! ## counts.stored is what the checkpoint holds, MTP layer included, with "MTP" false too
%! assert (M0.counts.stored, M.counts.stored);
%! assert (! isempty (strfind (txt0, sprintf ("with MTP (here counts.stored = %.2fB;", M.counts.stored / 1e9))));
%! ## the struct it was made from: the same fields and values
%! S = struct (M);
%! assert (isstruct (S) && ! isstruct (M));
%! assert (M.counts, S.counts);
%! assert (M.params.name{3}, S.params.name{3});
%! assert ([M.counts.nparams, M.counts.nmuon],
%!         [numel(S.params.name), sum(strcmp (S.params.route, "muon"))]);

%!test
%! ## a small model: one line per kind and the shapes of its table
%! c = struct ("model_type", "llama", "vocab_size", 100, "hidden_size", 8,
%!             "intermediate_size", 16, "num_hidden_layers", 2, "num_attention_heads", 2);
%! M = muon_model (c);
%! txt = evalc ("M");
%! assert (numel (strfind (txt, "\n")), 2 + 5 + 8 + 1);   # "M =", blank, ..., blank
%! assert (! isempty (strfind (txt, "21 parameters (14 to Muon), 5 distinct shapes")));
%! assert (! isempty (strfind (txt, "elements: total 2920, Muon 1280, AdamW 1640")));
%! assert (! isempty (strfind (txt, "attention             8        1        512        8")));

%!demo
%! M = muon_model ("llama-3.1-8b")
%! ## the parameter table is a field as in a struct
%! M.params.name(2:4)

%!error <muon_model_result: S must be a scalar struct.> muon_model_result (1)
