## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef zero_layout_result < muon_result
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{L} =} zero_layout_result (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{L})
  ## The layout @code{zero_layout} returns: a @code{muon_result} (classdef) with one
  ## property per field of the layout struct (@code{stage}, @code{world},
  ## @code{align_factor}, @code{order_mode}, @code{order}, @code{total},
  ## @code{padded_total}, @code{partition_size}, @code{padding}, @code{params},
  ## @code{ranks}, and @code{names} and @code{blocks} for a model's layout, empty
  ## otherwise), which shows
  ## itself at the prompt as a short table instead of every parameter and piece.
  ##
  ## Fields are read as in a struct: @code{L.partition_size}, @code{L.params(3).owners},
  ## @code{[L.ranks.padding]}, @code{L.ranks(2).params(1).rows}.  @code{struct (L)} gives
  ## the plain struct (for @code{save}, @code{jsonencode} or to change it); every zero_*
  ## function takes either, and checks a struct against the layout it claims to be.
  ##
  ## Typing @var{L} (or @code{disp (L)}) prints: the stage, world and sizes; one line per
  ## rank (its flat range, pieces, padding and first and last parameter, by name for a
  ## model's layout, less the "model." and ".weight" they share), at most 16 and a line for
  ## the rest; how many parameters straddle a
  ## partition cut; and the field names: at most 24 lines.
  ##
  ## @example
  ## L = zero_layout (muon_model ("llama-3.1-8b"), 8)
  ## @end example
  ## @seealso{zero_layout, zero_plot_layout, muon_result}
  ## @end deftypefn

  properties
    stage = 0;
    world = 0;
    align_factor = 1;
    order_mode = "";
    order = [];
    total = 0;
    padded_total = 0;
    partition_size = 0;
    padding = 0;
    params = struct ([]);
    ranks = struct ([]);
    names = {};
    blocks = [];
  endproperties

  properties (Access = private)
    plan = [];        # its zero_plan (a handle, shared by copies): the C plans of its steps
  endproperties

  methods
    function L = zero_layout_result (S)
      if (nargin > 0)
        L = from_struct (L, S);
      endif
      L.plan = zero_plan ();
    endfunction

    ## The handle of this layout's C plans for these shapes, world and layout options
    ## (zero_plan), built on first use.
    function h = plan_handle (L, shapes, world, lopts)
      h = handle_for (L.plan, shapes, world, lopts);
    endfunction

    function disp (L)
      P = numel (L.params);
      W = numel (L.ranks);
      printf ("  zero_layout: ZeRO-%d over %d ranks, %d parameters, align %d, order %s\n",
              L.stage, L.world, P, L.align_factor, L.order_mode);
      printf ("  %d elements, %d padded (%d padding), %d per rank's partition\n", L.total,
              L.padded_total, L.padding, L.partition_size);
      printf ("  %5s %14s %14s %7s %8s  %s\n", "rank", "start", "stop", "pieces", "padding",
              "parameters");
      for r = 1:W
        if (r > 14 && W > 16)
          printf ("  ... %d more ranks (L.ranks)\n", W - 14);
          break;
        endif
        k = L.ranks(r);
        printf ("  %5d %14d %14d %7d %8d  %s\n", k.rank, k.start, k.stop, numel (k.params),
                k.padding, held (L, k.params));
      endfor
      s = sum ([L.params.straddles]);
      printf ("  %d of %d parameters straddle a partition cut (L.params(p).straddles, .owners)\n",
              s, P);
      printf ("  fields: %s\n", strjoin (properties (L).', ", "));
    endfunction
  endmethods
endclassdef

## the first and last parameter a rank holds part of: names (a model's layout) or indices
function s = held (L, pieces)
  if (isempty (pieces))
    s = "-";
    return;
  endif
  p = [pieces.param];
  ends = unique ([p(1), p(end)], "stable");
  if (! isempty (L.names))              # without the "model." and ".weight" every name has
    t = regexprep (L.names(ends), '^model\.|\.weight$', "");
  else
    t = arrayfun (@(q) sprintf ("p%d", q), ends, "UniformOutput", false);
  endif
  s = strjoin (t, " .. ");
  if (numel (p) > 2)
    s = sprintf ("%s (%d)", s, numel (p));
  endif
endfunction

%!test
%! ## reads like its struct; the display is bounded and names the parameters
%! L = zero_layout ({[64 128], [128 128], [300 1]}, 4);
%! S = struct (L);
%! assert (isa (L, "zero_layout_result") && ! isstruct (L) && isstruct (S));
%! assert (L.params(2).rows, 128);
%! assert ([L.ranks.rank], 0:3);
%! out = evalc ("disp (L)");
%! assert (! isempty (strfind (out, "ZeRO-2 over 4 ranks, 3 parameters")));
%! M = muon_model ("llama-3.1-8b");
%! out = evalc ("L = zero_layout (M, 64)");
%! assert (numel (strsplit (strtrim (out), "\n")) <= 26);
%! assert (! isempty (strfind (out, "... 50 more ranks")));
%! first = M.params.name{find (strcmp (M.params.route, "muon"), 1)};  # model.*.weight
%! assert (! isempty (strfind (out, first(7:end-7))));

%!test
%! ## a layout (and a model) made before `clear functions` (isa muon_result then false, and
%! ## true again but with methods that fail on it once a call loads the class): zero_muon_step
%! ## (twice: before and after the reload), zero_train_step, zero_cost, zero_plot_layout and
%! ## muon_export take it and give what they gave before the clear, with no "converting a classdef
%! ## object" warning (zero_muon_step: "'plan_handle' undefined"; the others: "L must be a
%! ## layout from zero_layout (the field set of L (plan) differs)"); in a child Octave, as
%! ## the clear unloads the MEX files and classes of this one
%! octave = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%! if (exist (octave, "file"))
%!   code = ["L = zero_layout ({[4 4], [2 4]}, 2); g = {ones(4), 2*ones(2,4); 3*ones(4), -ones(2,4)}; " ...
%!           "M = muon_model ('llama-3.1-8b'); S = struct (L); " ...
%!           "u = struct (zero_muon_step (L, g, [])).updates; " ...
%!           "t = struct (zero_train_step (L, g, [])).updates; " ...
%!           "c = struct (zero_cost (L, [])); cm = struct (zero_cost (M, 8)); " ...
%!           "f = [tempname() '.json']; muon_export (L, f); e1 = fileread (f); " ...
%!           "muon_export (M, f, 'Table', 'params'); e2 = fileread (f); " ...
%!           "clear functions; r = isa (L, 'muon_result'); " ...
%!           "muon_export (L, f); x1 = fileread (f); muon_export (M, f, 'Table', 'params'); " ...
%!           "printf ('export %d %d\\n', strcmp (x1, e1), strcmp (fileread (f), e2)); delete (f); " ...
%!           "u1 = struct (zero_muon_step (L, g, [])).updates; " ...
%!           "u2 = struct (zero_muon_step (L, g, [])).updates; " ...
%!           "t1 = struct (zero_train_step (L, g, [])).updates; " ...
%!           "c1 = struct (zero_cost (L, [])); cm1 = struct (zero_cost (M, 8)); " ...
%!           "h = zero_plot_layout (L); close (h); " ...
%!           "printf ('result %d same %d %d %d %d %d\\n', r, isequal (u1, u), isequal (u2, u), " ...
%!           "isequal (t1, t), isequal (c1, c), isequal (cm1, cm));"];
%!   [rc, out] = system (sprintf ("%s --no-gui --norc --silent --eval \"addpath ('%s', '%s'); %s\" 2>&1",
%!                                octave, fileparts (which ("zero_layout")),
%!                                fileparts (which ("__muon_ns__")), code));
%!   assert (! isempty (strfind (out, "result 0 same 1 1 1 1 1")), out);
%!   assert (! isempty (strfind (out, "export 1 1")), out);
%!   assert (isempty (strfind (out, "converting a classdef")), out);
%! endif

%!demo
%! ## a model's layout at the prompt: one line per rank, the parameters by name
%! L = zero_layout (muon_model ("qwen3-30b-a3b"), 8)
%! S = struct (L);                      # the plain struct, e.g. for save
%! printf ("rank 3 holds %d pieces; parameter 1 has owners %s\n", numel (L.ranks(4).params),
%!         mat2str (L.params(1).owners));
