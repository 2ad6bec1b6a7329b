## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_options.m - the option tables (inst/private/option_spec.m, read by parse_options.m)
## against the help texts.  The parser, the core's lists (__muon_lists__) against what inst/
## uses and the gateways' messages: test_options_parse.m, through this file's helper.
## Run: test test_options (tests/octave/run_all.m).
##
## The help walk reads the option table of every inst/*.m help text: the @table that follows
## the line "Options (...):", its top-level @item lines ("Name", @qcode{"Name"}, several
## names on one line; an item without a quoted name that names @code{f} stands for every
## option f documents).  Then:
##   - every function with such a table has an option table (option_spec) and the reverse;
##   - every documented option is accepted: the function is called with it at a valid value
##     (from its table row: the next name of an enum, the default of a number, ...; SAMPLES
##     below for the custom and free-form kinds) and must succeed, or fail only with
##     muonlab:notBuilt / muonlab:noDevice (e.g. "Device", "cuda" without a GPU);
##   - every option a function accepts is documented.
## muon_mpirun (an OPTS struct) and the LossScaler struct of muon_optimizer document their
## fields as @code{name}; the walk checks those mentions.
##
## test_options (WHAT, ...) is the helper of the blocks below:
##   D = test_options ("documented", FNAME)   documented names (inherited ones included)
##   S = test_options ("spec", KEY)           the compiled table (private option_spec)
##   K = test_options ("keys")                the tables' keys
##   V = test_options ("sample", KEY, NAME)   a valid value of option NAME of table KEY
##   test_options ("call", FNAME, NAME, V)    FNAME called with NAME, V (fixtures below)
##   varargout = test_options ("private", F, args...)   a private inst/ function's answer

function varargout = test_options (what, varargin)
  switch (what)
    case "documented"
      varargout{1} = documented (varargin{1});
    case "spec"
      varargout{1} = in_private ("option_spec", varargin{1});
    case "keys"
      varargout{1} = in_private ("option_spec");
    case "sample"
      varargout{1} = sample (varargin{:});
    case "call"
      call (varargin{:});
    case "private"
      [varargout{1:max (nargout, 1)}] = in_private (varargin{:});
    otherwise
      error ("test_options: unknown WHAT '%s'", what);
  endswitch
endfunction

## A private function of inst/ called from its folder (the load path cannot hold private/).
function varargout = in_private (f, varargin)
  here = pwd ();
  unwind_protect
    cd (fullfile (fileparts (which ("muon_ns")), "private"));
    [varargout{1:max (nargout, 1)}] = feval (f, varargin{:});
  unwind_protect_cleanup
    cd (here);
  end_unwind_protect
endfunction

## The names in the option table of FNAME's help, those of the functions an item refers to
## included.
function names = documented (fname)
  names = {};
  txt = get_help_text (fname);
  lines = ostrsplit (txt, "\n");
  start = find (! cellfun (@isempty, regexp (lines, '^\s*Options\>[^:]*:\s*$', "once")), 1);
  if (isempty (start))
    return;
  endif
  depth = 0;
  for i = start + 1:numel (lines)
    t = strtrim (lines{i});
    if (strncmp (t, "@table", 6))
      depth++;
    elseif (strncmp (t, "@end table", 10))
      depth--;
      if (depth == 0)
        break;
      endif
    elseif (depth == 1 && ! isempty (regexp (t, '^@itemx?\>', "once")))
      q = regexp (t, '"([A-Za-z_]\w*)"', "tokens");
      if (! isempty (q))
        names = [names, cellfun(@(c) c{1}, q, "UniformOutput", false)];
      else
        f = regexp (t, '@code\{(\w+)\}', "tokens", "once");
        if (isempty (f))
          error ("test_options: %s: option item without a name: %s", fname, t);
        endif
        ## every option f documents, but the ones f keeps to itself (muon_ns's Trace)
        names = [names, setdiff(documented(f{1}), OWN (f{1}), "stable")];
      endif
    endif
  endfor
  if (depth != 0)
    error ("test_options: %s: the option table does not end", fname);
  endif
endfunction

## Options a function documents that the functions referring to it do not inherit.
function names = OWN (fname)
  names = {};
  if (strcmp (fname, "muon_ns"))
    ## Trace: one page, on the CPU; NormScale, EpsPlacement: Octave-side (not ZeRO)
    names = {"Trace", "NormScale", "EpsPlacement"};
  endif
endfunction

## Values for the kinds the table cannot sample itself (custom, any) and for the options a
## fixture needs in a certain way.
function v = SAMPLES (name, key)
  zero = any (strcmp (key, {"zero_muon_step", "zero_train_step", "zero_cost"}));
  switch (name)
    case "Coefficients",    v = "polar_express";
    case "Resident",        v = false;                  # muon_optimizer: the host state
    case "Class",           v = "bf16";                 # muon_gpu: default "" (X's class)
    case "Precision",       v = "bf16";                 # (ns_plot_spectrum's: any)
    case {"Labels", "Names"}, v = {"w"};                # (one name: the one-matrix fixture)
    case "SplitRows"
      v = [4 4];                                    # the 8-row fixtures
      if (zero)
        v = {[2 2], [1 2 3]};                       # the [4 6], [6 4] layout
      endif
    case "Experts",         v = merge (zero, 2, []);   # else the table's (int / enum)
    case "MomentumArith",   v = merge (zero, "fp64", "torch");   # ZeRO: fp64 only
    case "AdamBetas",       v = [0.8 0.9];
    case "LossScaler",      v = "dynamic";
    case "Route",           v = struct ("b", "adamw");
    case "ParamOptions",    v = struct ("W", {{"Beta", 0.9}});
    case "Comm",            v = "sim";
    case "Reduction",       v = "fixed";
    case "GrowthInterval",  v = 10;
    case "File",            v = [tempname() ".png"];
    case "Design",          v = "zero12_allreduce";
    case "Variant",         v = "zero12_allreduce";
    case {"Stage", "AlignFactor"}, v = 2;
    case "Order",           v = "size_desc";
    case {"ElementBytes", "MomentumBytes", "MasterBytes", "AdamBytes"}, v = 4;
    case "Profile",         v = "h100";
    case "Table",           v = "t";
    case "MaxRestarts",     v = 1;
    case "Grid",            v = logspace (0, -3, 50);
    case "Shift",           v = -4e-4;
    case "Lower",           v = 1e-3;
    case "Cushion",         v = 0.02;
    case "Safety",          v = 1.01;
    case "SafetyMode",      v = "after";
    case "SafetyLast",      v = true;
    case "Steps",           v = 5;
    case "ScheduleMode",    v = "cycle";
    case "Heads",           v = 2;                  # qk_clip's fixtures (call)
    case "QueryGroups",     v = 1;
    case "QKHeadDim",       v = 3;
    case "RopeHeadDim",     v = 2;
    case "VHeadDim",        v = 4;
    case "QKClip",          v = {"W", "Wk", "Heads", 2};  # the optimizer's fixture P
    case "NormAxis",        v = "col";                  # the Muon family (issue 27)
    case "Preset",          v = "dion2";
    case "RMSMatch",        v = 0.2;
    case "DionQ0",          v = eye (8);
    case "Rank",            v = 2;
    otherwise,              v = [];
  endswitch
endfunction

## A valid value of option NAME of table KEY (or of the table it passes NAME on to); 1 for
## a name the table does not have.
function v = sample (key, name)
  S = in_private ("option_spec", key);
  j = find (strcmp (name, S.names(1:S.nown)), 1);
  if (isempty (j))
    if (! isempty (S.pass) && any (strcmp (name, S.names)))
      v = sample (S.pass, name);
    else
      v = 1;                            # not in the table: the call raises the function's error
    endif
    return;
  endif
  v = SAMPLES (name, key);
  if (! isempty (v))
    return;
  endif
  a = S.arg{j};
  d = S.defaults.(S.field{j});
  switch (S.kind(j))
    case 1                              # enum: the name after the default
      k = find (strcmp (d, a), 1);
      v = a{mod (k, numel (a)) + 1};
    case 2                              # int: one past the default, within the range
      v = max (a(1), min (a(2), d + 1));
    case 3                              # real: the default, or the low end
      v = d;
      if (isempty (v))
        v = a(1) + a(3);
      endif
    case 4                              # logical: the other value
      v = isempty (d) || ! d;
    case 5
      v = d;
    case 6                              # intvec: one entry, the lowest allowed
      v = a(1);
    otherwise
      error ("test_options: no sample value for %s (%s): add one to SAMPLES", name, key);
  endswitch
endfunction

## FNAME called with option NAME = V on small fixtures.
function call (fname, name, v)
  G = reshape (sin (1:128), 8, 16);
  P = struct ("W", G, "b", (1:8)');
  switch (fname)
    case "muon_ns"
      muon_ns (G, name, v);
    case "muon_gpu"                     # on the CPU stand-in unless Device is the option
      if (strcmp (name, "Device"))
        muon_gpu (G, name, v);
      elseif (strcmp (name, "Seed"))    # randn's alone
        muon_gpu ("randn", size (G), "Device", "cpu", name, v);
      else
        muon_gpu (G, "Device", "cpu", name, v);
      endif
    case "muon_update"                  # under an algorithm that reads NAME
      alg = {"Algorithm", "muon"};
      if (any (strcmp (name, {"SignBeforeNS", "Beta2", "NormAxis", "VEps", "VEpsPlacement", ...
                              "RMSMatch", "RMSShape", "RMSEps", "RMSEpsPlacement"})))
        alg{2} = "normuon";
      elseif (any (strcmp (name, {"Rank", "DionQ0"})))
        alg{2} = "dion";
      elseif (any (strcmp (name, {"Fraction", "EFDecay"})))
        alg{2} = "dion2";
      elseif (any (strcmp (name, {"Algorithm", "Preset"})))
        alg = {};
      endif
      muon_update (G, [], alg{:}, name, v);
    case "muon_optimizer"
      if (strcmp (name, "QKClip"))      # a key weight of W's width (8 rows: 2 heads of 4)
        P.Wk = G;
      endif
      muon_optimizer (P, name, v);
    case "zero_muon_step"
      L = zero_layout ({[4 6], [6 4]}, 2);
      g = {G(1:4,1:6), G(1:6,1:4); G(5:8,1:6), G(3:8,5:8)};
      zero_muon_step (L, g, [], name, v);
    case "zero_layout"
      zero_layout ({[4 6], [2 3]}, 2, name, v);
    case "zero_train_step"
      L = zero_layout ({[4 6], [6 4]}, 2);
      g = {G(1:4,1:6), G(1:6,1:4); G(5:8,1:6), G(3:8,5:8)};
      zero_train_step (L, g, [], name, v);
    case {"zero_save_state", "zero_load_state"}
      L = zero_layout ({[4 6], [6 4]}, 2);
      g = {G(1:4,1:6), G(1:6,1:4); G(5:8,1:6), G(3:8,5:8)};
      [~, s] = zero_muon_step (L, g, []);
      f = tempname ();
      unwind_protect
        if (strcmp (fname, "zero_save_state"))
          zero_save_state (f, L, s, name, v);
        else
          zero_save_state (f, L, s);
          zero_load_state (f, L, name, v);
        endif
      unwind_protect_cleanup
        for r = 0:1
          if (exist (sprintf ("%s.rank%d.ckpt", f, r), "file"))
            unlink (sprintf ("%s.rank%d.ckpt", f, r));
          endif
        endfor
      end_unwind_protect
    case "muon_comm"
      muon_comm ("sim", 2, name, v);
    case "muon_collective"
      muon_collective (muon_comm ("sim", 2), "allreduce", {1, 2}, name, v);
    case "ns_flops"
      ns_flops (8, 16, name, v);
    case "ns_plot_spectrum"
      h = ns_plot_spectrum (G, name, v);
      close (h);
      if (ischar (v) && exist (v, "file"))
        unlink (v);
      endif
    case "zero_plot_layout"
      h = zero_plot_layout (zero_layout ({[2 3]}, 2), name, v);
      close (h);
      if (ischar (v) && exist (v, "file"))
        unlink (v);
      endif
    case "muon_load_state"
      f = [tempname() ".mat"];
      unwind_protect
        muon_save_state (f, muon_optimizer (P));
        muon_load_state (f, P, name, v);
      unwind_protect_cleanup
        if (exist (f, "file"))
          unlink (f);
        endif
      end_unwind_protect
    case "ns_design_coeffs"
      ns_design_coeffs (3, name, v);
    case "ns_restart_autotune"
      ns_restart_autotune ("keller", "Grid", logspace (0, -3, 50), name, v);
    case "ns_restart_search"
      ns_restart_search (reshape (sin (1:320), 8, 40), "MaxRestarts", 1, name, v);
    case "muon_model"
      muon_model ("llama-3.1-8b", name, v);
    case "zero_cost"
      zero_cost (zero_layout ({[4 6], [6 4]}, 2), 2, name, v);
    case "muon_export"
      f = [tempname() ".json"];
      unwind_protect
        muon_export (struct ("t", struct ("a", [1; 2], "b", [3; 4])), f, name, v);
      unwind_protect_cleanup
        if (exist (f, "file"))
          unlink (f);
        endif
      end_unwind_protect
    case "qk_clip"                      # 2 heads: G is 2 x 4 rows; MLA dq 3, dr 2, dv 4
      if (any (strcmp (name, {"Layout", "QKHeadDim", "RopeHeadDim", "VHeadDim"})))
        qk_clip (reshape (sin (1:60), 10, 6), reshape (cos (1:42), 14, 3), [150 50],
                 "Layout", "mla", "QKHeadDim", 3, name, v);
      else
        qk_clip (G, G(1:4 * (1 + ! strcmp (name, "QueryGroups")),:), [150 50], name, v);
      endif
    otherwise
      error ("test_options: no fixture for %s: add one to call ()", fname);
  endswitch
endfunction

%!shared insts, keys, tables
%! insts = cellfun (@(f) regexprep (f, '^.*/|\.m$', ""), glob (fullfile (fileparts (which ("muon_ns")), "*.m")), "UniformOutput", false)';
%! keys = test_options ("keys");
%! tables = {};
%! for i = 1:numel (insts)
%!   if (! isempty (test_options ("documented", insts{i})))
%!     tables{end+1} = insts{i};
%!   endif
%! endfor

%!test
%! ## every documented option table belongs to a function with an option table, and the
%! ## reverse (muon_mpirun documents its OPTS fields as @code{}, see below)
%! for f = tables
%!   assert (any (strcmp (f{1}, keys)), "%s documents options but has no option table", f{1});
%! endfor
%! for k = keys
%!   if (any (strcmp (k{1}, insts)) && ! strcmp (k{1}, "muon_mpirun"))
%!     assert (any (strcmp (k{1}, tables)), "%s takes options but its help has no option table", k{1});
%!   endif
%! endfor
%! printf ("    %d functions document an option table: %s\n", numel (tables), strjoin (tables, ", "));

%!test
%! ## every documented option is accepted: one call each at a valid value
%! ncalls = 0;
%! for f = tables
%!   names = test_options ("documented", f{1});
%!   assert (numel (unique (names)) == numel (names), "%s documents an option twice", f{1});
%!   for n = names
%!     v = test_options ("sample", f{1}, n{1});
%!     try
%!       test_options ("call", f{1}, n{1}, v);
%!     catch err
%!       if (! any (strcmp (err.identifier, {"muonlab:notBuilt", "muonlab:noDevice"})))
%!         error ("%s with \"%s\": %s (%s)", f{1}, n{1}, err.message, err.identifier);
%!       endif
%!     end_try_catch
%!     ncalls++;
%!   endfor
%! endfor
%! printf ("    %d documented options called, none unknown\n", ncalls);

%!test
%! ## every accepted option is documented (same spelling)
%! for f = tables
%!   S = test_options ("spec", f{1});
%!   doc = test_options ("documented", f{1});
%!   undoc = setdiff (S.names, doc);
%!   assert (isempty (undoc), "%s accepts undocumented options: %s", f{1}, strjoin (undoc, ", "));
%!   unknown = setdiff (doc, S.names);
%!   assert (isempty (unknown), "%s documents options it does not accept: %s", f{1}, strjoin (unknown, ", "));
%! endfor

%!test
%! ## struct fields taken as options: muon_mpirun's OPTS, muon_optimizer's LossScaler
%! for c = {"muon_mpirun", "muon_mpirun"; "loss_scaler", "muon_optimizer"}'
%!   S = test_options ("spec", c{1});
%!   txt = get_help_text (c{2});
%!   for n = S.names
%!     assert (! isempty (strfind (txt, sprintf ("@code{%s}", n{1}))), "%s does not document the field %s", c{2}, n{1});
%!   endfor
%! endfor
%! S = test_options ("spec", "loss_scaler");
%! for n = S.names
%!   test_options ("call", "muon_optimizer", "LossScaler", struct (n{1}, test_options ("sample", "loss_scaler", n{1})));
%! endfor

%!test
%! ## a Newton-Schulz option works wherever muon_ns runs underneath
%! ns = setdiff (test_options ("spec", "muon_ns").names, {"Trace", "NormScale", "EpsPlacement"});
%! for f = {"muon_update", "muon_optimizer", "zero_muon_step"}
%!   assert (all (ismember (ns, test_options ("spec", f{1}).names)), "%s does not take every muon_ns option", f{1});
%!   assert (all (ismember (ns, test_options ("documented", f{1}))), "%s does not document every muon_ns option", f{1});
%! endfor
%! ## and zero_muon_step cuts matrices into expert pages and split row blocks as they do
%! assert (all (ismember ({"Experts", "SplitRows"}, test_options ("documented", "zero_muon_step"))));
