## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {[@var{names}, @var{sources}, @var{pairs}, @var{ns}] =} family_presets ()
## @deftypefnx {} {@var{args} =} family_presets ("expand", @var{fname}, @var{args})
## The one table of the @qcode{"Preset"} option (issue 27): each reference implementation of
## the Muon family as the @code{muon_update} options that reproduce it.
##
## With no argument: @var{names} (1 x P cell), @var{sources} (1 x P cell, one line each:
## where the preset comes from) and @var{pairs} (1 x P cell of NAME, VALUE rows).  Every
## preset sets the algorithm and every convention (the @code{BASE} list below, then its own
## values), so that options given after it override one convention at a time.  @var{ns}
## (3 x 2 cell) names the Newton-Schulz variants the sources cite (NS_K, NS_PE, NS_EO)
## with the options each stands for, as text.
##
## With @qcode{"expand"}: @var{args} with each @qcode{"Preset"}, NAME pair replaced, in
## place, by that preset's pairs (the option parser lets a later value win).  An unknown
## name is the option table's error, @qcode{"@var{fname}: PRESET must be 'keller', @dots{}
## or 'dion2'."}.
## @end deftypefn

function varargout = family_presets (what, fname, args)
  ## the NS variants (issue 27): NS_K Keller, NS_PE dion's Polar Express, NS_EO
  ## Emerging-Optimizers' coefficient_type="quintic" with F.normalize's max (||X||, eps)
  NS_K = {"Coefficients", "keller", "Eps", 1e-7, "NormScale", 1, "EpsPlacement", "add"};
  NS_PE = {"Coefficients", "polar_express_dion", "Eps", 1e-8, "NormScale", 1.02, ...
           "EpsPlacement", "add"};
  NS_EO = {"Coefficients", "eo_quintic", "Eps", 1e-15, "NormScale", 1, "EpsPlacement", "max"};
  ## every convention a preset sets, at muonlab's defaults; each preset overrides some
  BASE = [{"Algorithm", "muon", "Method", "standard", "Beta", 0.95, "Nesterov", true, ...
           "MomentumForm", "ema", "Scale", "keller", "ScaleFactor", 1, "Beta2", 0.95, ...
           "NormAxis", "row", "SignBeforeNS", false, "VEps", 1e-8, "VEpsPlacement", "add", ...
           "RMSMatch", "none", "RMSShape", "matrix", "RMSEps", 1e-8, "RMSEpsPlacement", "add", "Fraction", 0.25, ...
           "EFDecay", 0.95, "DecayFirst", true, "ConvScale", "flattened"}, NS_K];
  EO = {"Nesterov", false, "MomentumForm", "ema"};      # EO's base class: lerp, no Nesterov
  T = {
  ## name                 where it comes from                                   its values
    "keller",             "KellerJordan/Muon muon.py: EMA + Nesterov, NS_K, scale max(1, m/n)^0.5 (of a conv weight's last two dimensions)", ...
                          {"ConvScale", "last_two"}
    "normuon_zichongli5", "zichongli5/NorMuon normuon.py: NS_K, per-row V, /(sqrt(V)+1e-10), keeps ||O||, Keller scale (a conv weight: V per (out, in, kh) over kw, ||O|| kept per kh x kw kernel, scale of kh x kw)", ...
                          {"Algorithm", "normuon", "NormAxis", "conv_kernel", "VEps", 1e-10, ...
                           "RMSMatch", "keep", "RMSEps", 1e-10, "ConvScale", "last_two"}
    "normuon_dion",       "microsoft/dion dion/normuon.py: M = mu M + G, NS_PE, /(sqrt(V)+1e-8), ||O||/max(||O2||, 1e-8), sqrt(m/n)", ...
                          [{"Algorithm", "normuon", "Nesterov", false, "MomentumForm", "sgd", ...
                            "RMSMatch", "keep", "RMSEpsPlacement", "max", "Scale", "unit_rms"}, NS_PE]
    "normuon_eo",         "NVIDIA Emerging-Optimizers adaptive_muon.py (normuon): NS_EO, V along the shorter side, rsqrt(max(V, 1e-8)), ||O||/max(||O2||, 1e-8) (its PR 187), sqrt(max(m, n))", ...
                          [{"Algorithm", "normuon", "NormAxis", "shorter", "VEpsPlacement", "max", ...
                            "RMSMatch", "keep", "RMSEpsPlacement", "max", "Scale", "spectral"}, ...
                           EO, NS_EO]
    "adamuon_official",   "Chongjie-Si/AdaMuon gpt2/models/optimizers/adamuon.py (paper Algorithm 1): NS_K of sign(U), elementwise V, RMS matched to 0.2 of sqrt(min(shape) max(shape)) (a conv weight: its smallest and largest sides)", ...
                          {"Algorithm", "adamuon", "NormAxis", "element", "SignBeforeNS", true, ...
                           "RMSMatch", 0.2, "RMSShape", "min_max", "Scale", "none"}
    "adamuon_eo",         "NVIDIA Emerging-Optimizers adaptive_muon.py (adamuon): NS_EO, elementwise V, no sign, no RMS matching, sqrt(max(m, n))", ...
                          [{"Algorithm", "adamuon", "NormAxis", "element", "Scale", "spectral"}, ...
                           EO, NS_EO]
    "namo_eo",            "NVIDIA Emerging-Optimizers NAMO: scalar v of ||G||^2, alpha = ||M||/(sqrt(v)+1e-8), NS_EO, sqrt(max(m, n))", ...
                          [{"Algorithm", "namo", "Scale", "spectral"}, EO, NS_EO]
    "polargrad_eo",       "NVIDIA Emerging-Optimizers polargrad.py: <NS_EO(M), M> NS_EO(M), no shape factor", ...
                          [{"Algorithm", "polargrad", "Scale", "none"}, EO, NS_EO]
    "scion_eo",           "NVIDIA Emerging-Optimizers scion.py: decay with wd = 1, NS_EO(M), sqrt(m/n)", ...
                          [{"Algorithm", "scion", "Scale", "unit_rms"}, EO, NS_EO]
    "dion_reference",     "microsoft/dion dion_reference.py: rank-r power iteration with error feedback, sqrt(m/n)", ...
                          {"Algorithm", "dion", "Nesterov", false, "MomentumForm", "sgd", ...
                           "Scale", "unit_rms"}
    "dion2",              "microsoft/dion dion/dion2.py: top 25% rows/columns by L1 norm, EF decay 0.95, NS_PE, sqrt(m/n)", ...
                          [{"Algorithm", "dion2", "Nesterov", false, "MomentumForm", "sgd", ...
                            "Scale", "unit_rms"}, NS_PE]
  };
  names = T(:,1).';
  if (nargin == 0)
    pairs = cellfun (@(p) [BASE, p], T(:,3).', "UniformOutput", false);
    ns = {"NS_K", NS_K; "NS_PE", NS_PE; "NS_EO", NS_EO};
    for i = 1:rows (ns)
      v = cellfun (@(x) merge (ischar (x), x, num2str (x)), ns{i,2}, "UniformOutput", false);
      ns{i,2} = strjoin (strcat (v(1:2:end), {" "}, v(2:2:end)), ", ");
    endfor
    varargout = {names, T(:,2).', pairs, ns};
    return;
  endif
  ## expand: each "Preset", NAME pair becomes the preset's pairs, where it stood
  out = {};
  n = numel (args);
  for i = 1:2:n
    if (i < n && ischar (args{i}) && strcmpi (args{i}, "Preset"))
      v = args{i+1};
      k = [];
      if (ischar (v) && isrow (v))
        k = find (strcmpi (v, names), 1);
      endif
      if (isempty (k))
        list = sprintf ("'%s', ", names{1:end-1});
        error ("muonlab:badArg", "%s: PRESET must be %s or '%s'.", fname, list(1:end-2),
               names{end});
      endif
      out = [out, BASE, T{k,3}];
    else
      out = [out, args(i:min (i + 1, n))];    # a pair (or a lone last item: the parser's error)
    endif
  endfor
  varargout = {out};
endfunction
