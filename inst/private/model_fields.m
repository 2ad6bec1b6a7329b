## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{f} =} model_fields (@var{names})
## Valid Octave field names for the dotted torch parameter names of a model
## (@qcode{"model.layers.0.self_attn.q_proj.weight"} becomes
## @qcode{"model_layers_0_self_attn_q_proj_weight"}), one per name and all distinct (a
## clash gets a suffix @qcode{"_2"}, @dots{}; a name too long for Octave is shortened and
## numbered).  @code{muon_model} keeps them beside the names (@code{M.params.field}), so
## that the map from a field of @code{muon_optimizer}'s PARAMS back to the checkpoint's
## name is the table itself.
## @end deftypefn

function f = model_fields (names)
  f = regexprep (names, '[^A-Za-z0-9_]', "_");
  bad = cellfun (@(s) isempty (s) || ! isletter (s(1)), f);
  f(bad) = strcat ("p_", f(bad));
  lim = namelengthmax ();
  long = cellfun ("numel", f) > lim;
  f(long) = cellfun (@(s, k) sprintf ("%s_%d", s(1:lim-8), k), f(long),
                     num2cell (find (long)), "UniformOutput", false);
  [u, ~, j] = unique (f);
  if (numel (u) < numel (f))
    seen = zeros (numel (u), 1);
    for i = 1:numel (f)
      seen(j(i))++;
      if (seen(j(i)) > 1)
        f{i} = sprintf ("%s_%d", f{i}, seen(j(i)));
      endif
    endfor
  endif
endfunction
