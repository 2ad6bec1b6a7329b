## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef zero_train_result < muon_result
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{R} =} zero_train_result (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{R})
  ## The result of @code{zero_train_step}: a @code{muon_result} with one property per field
  ## of the struct @var{S} (the fields in @code{zero_train_step}'s help), read as in a
  ## struct (@code{R.rel_err}, @code{R.updates@{2@}}, @code{[R.ranks.ns_calls]});
  ## @code{struct (R)} gives the plain struct.
  ##
  ## Typing @var{R} prints: a line with the design, world, micro-batch, whether the step
  ## was applied or skipped (and why), the loss scale, the global norm and the clip
  ## factor; a line per parameter (shape, error against the correct step, and
  ## "(DIVERGED: k block(s))" when @code{R.diverged} counts some) and per local
  ## rank (Newton-Schulz calls and bytes sent in this window, error of its elements), at
  ## most 14 of each with a line for the rest; and the field names: never the matrices.
  ## @seealso{zero_train_step, zero_step_result, muon_result}
  ## @end deftypefn

  properties
    variant = "";
    world = 0;
    comm = "";
    micro = 0;
    applied = false;
    skipped = false;
    skip_reason = "";
    step = 0;
    loss_scale = 1;
    global_norm = NaN;
    clip_coef = 1;
    updates = {};
    reference = {};
    rel_err = [];
    diverged = [];
    ranks = struct ([]);
  endproperties

  methods
    function R = zero_train_result (S)
      if (nargin > 0)
        R = from_struct (R, S);
      endif
    endfunction

    function disp (R)
      com = R.comm;
      if (! ischar (com))
        com = "comm";
      endif
      state = merge (R.applied, "step applied", "accumulating");
      if (R.skipped)
        state = ["SKIPPED: " R.skip_reason];
      endif
      printf ("  zero_train_step result: %s, world %d (%s), micro-batch %d, step %d: %s\n",
              R.variant, R.world, com, R.micro, R.step, state);
      printf ("  loss scale %g, global norm %.4g, clip factor %.4g\n", R.loss_scale,
              R.global_norm, R.clip_coef);
      P = numel (R.rel_err);
      printf ("  %-6s %-13s %s\n", "param", "shape", "rel_err vs the correct step");
      for p = 1:P
        if (p > 14 && P > 16)
          printf ("  ... %d more parameters (R.rel_err)\n", P - 14);
          break;
        endif
        u = [];
        if (numel (R.updates) >= p)
          u = R.updates{p};
        endif
        if (isempty (u) && numel (R.reference) >= p)
          u = R.reference{p};
        endif
        shp = "-";
        if (! isempty (u))
          shp = sprintf ("%d x %d", rows (u), columns (u));
        endif
        div = "";
        if (numel (R.diverged) >= p && R.diverged(p) > 0)
          div = sprintf ("  (DIVERGED: %d block(s))", R.diverged(p));
        endif
        printf ("  %-6d %-13s %.4g%s\n", p, shp, R.rel_err(p), div);
      endfor
      n = numel (R.ranks);
      if (n > 0)
        printf ("  %-5s %8s %12s %s\n", "rank", "ns_calls", "bytes_sent", "rel_err");
      endif
      for r = 1:n
        if (r > 14 && n > 16)
          printf ("  ... %d more ranks (R.ranks)\n", n - 14);
          break;
        endif
        q = R.ranks(r);
        e = NaN;
        if (isfield (q, "rel_err") && ! isempty (q.rel_err))
          e = q.rel_err;
        endif
        printf ("  %-5d %8d %12d %.4g\n", q.rank, q.ns_calls, q.bytes_sent, e);
      endfor
      printf ("  fields: %s\n", strjoin (properties (R).', ", "));
    endfunction
  endmethods
endclassdef

%!test
%! ## a line per parameter and rank, never the matrices; reads as the struct it came from
%! L = zero_layout ({[64 64], [64 32]}, 2);
%! g = arrayfun (@(k) randn (64, 64 / (1 + (k > 2))), [1 3; 1 3], "UniformOutput", false);
%! [R, st] = zero_train_step (L, g, []);
%! assert (isa (R, "zero_train_result"));
%! txt = evalc ("R");
%! assert (numel (strfind (txt, "\n")), 4 + 1 + 2 + 1 + 2 + 1 + 1);
%! assert (! isempty (strfind (txt, "64 x 32")));
%! S = struct (R);
%! assert (S.rel_err, R.rel_err);
%! assert ([R.ranks.ns_calls], [S.ranks.ns_calls]);

%!demo
%! L = zero_layout ({[32 32], [32 16]}, 2);
%! randn ("state", 1);
%! g = arrayfun (@(k) randn (32, 32 / (1 + (k > 2))), [1 3; 1 3], "UniformOutput", false);
%! R = zero_train_step (L, g, [], "ClipPolicy", "after_ns")

%!error <zero_train_result: S must be a scalar struct.> zero_train_result (1)
