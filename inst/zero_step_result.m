## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef zero_step_result < muon_result
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{R} =} zero_step_result (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{R})
  ## The result of @code{zero_muon_step}: a @code{muon_result} (classdef) with one property per
  ## field of the struct @var{S} it is made from, which shows itself at the prompt as a
  ## compact summary instead of every update matrix.
  ##
  ## Fields are read as in a struct: @code{R.rel_err}, @code{R.updates@{2@}},
  ## @code{R.ranks(3).bytes_sent}, @code{[R.ranks.ns_calls]}, and @code{fieldnames (R)}
  ## lists them.  It is not a struct: @code{isstruct (R)} is false, @code{isobject (R)} true,
  ## @code{isfield (R, name)} is false (use @code{isprop (R, name)}), no new field can be
  ## added, and Octave's @code{save} cannot write it; @code{struct (R)} gives the plain
  ## struct with the same fields and values (for @code{save}, @code{jsonencode}, or the
  ## return value of a function run by @code{muon_mpirun}, which converts a returned result
  ## itself).  @code{muon_export} takes @var{R} as it is.
  ##
  ## Typing @var{R} (or @code{disp (R)}) prints: one line with the variant, world size,
  ## communicator, step and whether the step was skipped; one line per parameter (its shape,
  ## "-" where R holds neither its update nor its reference, as under MPI without
  ## @qcode{"Assemble"}; the ranks owning elements of it, whether it straddles a partition cut, its relative
  ## error against the reference, and "(DIVERGED: k block(s))" when @code{R.diverged} counts
  ## any); one line per rank this process drives (Newton-Schulz
  ## calls, momentum and pad elements, bytes sent and received, calls per collective); and
  ## the field names: P + W + 5 lines for P parameters and W local ranks, at most 14 of each
## (and a line for the rest) beyond 16: at most 35 lines.
  ##
  ## @example
  ## L = zero_layout (@{[64 64], [64 64], [64 64]@}, 4);
  ## R = zero_muon_step (L, arrayfun (@@(k) randn (64), ones (4, 3), "UniformOutput", false), [])
  ## @end example
  ## @seealso{zero_muon_step, muon_result}
  ## @end deftypefn

  properties
    variant = "";
    world = 0;
    comm = "";
    counts = "";
    step = 0;
    plans_built = NaN;
    skipped = false;
    skip_reason = "";
    updates = {};
    reference = {};
    rel_err = [];
    owners = {};
    straddles = [];
    diverged = [];
    ranks = struct ([]);
  endproperties

  methods
    function R = zero_step_result (S)
      if (nargin > 0)
        R = from_struct (R, S);
      endif
    endfunction

    function disp (R)
      P = numel (R.updates);
      com = R.comm;
      if (! ischar (com))
        com = "comm";
      endif
      printf ("  zero_muon_step result: %s, world %d (%s, counts %s), step %d%s\n",
              R.variant, R.world, com, R.counts, R.step,
              merge (R.skipped, [", SKIPPED: " R.skip_reason], ""));
      printf ("  %-6s %-13s %-9s %-10s %s\n", "param", "shape", "straddles", "rel_err",
              "owner ranks");
      for p = 1:P
        if (p > 14 && P > 16)              # at most 40 lines: the rest in R.rel_err
          printf ("  ... %d more parameters (R.rel_err, R.owners)\n", P - 14);
          break;
        endif
        u = R.updates{p};
        if (isempty (u) && ! isempty (R.reference) && ! isempty (R.reference{p}))
          u = R.reference{p};
        endif
        if (isempty (u))
          shp = "-";
        else
          shp = sprintf ("%d x %d", rows (u), columns (u));
        endif
        own = "";
        if (numel (R.owners) >= p)
          own = sprintf ("%d ", R.owners{p});
        endif
        div = "";
        if (numel (R.diverged) >= p && R.diverged(p) > 0)
          div = sprintf ("  (DIVERGED: %d block(s))", R.diverged(p));
        endif
        printf ("  %-6d %-13s %-9s %-10.3g %s%s\n", p, shp,
                merge (numel (R.straddles) >= p && R.straddles(p), "yes", "no"),
                R.rel_err(p), strtrim (own), div);
      endfor
      printf ("  %-5s %8s %10s %8s %12s %12s  %s\n", "rank", "ns_calls", "momentum",
              "pads", "bytes_sent", "bytes_recv", "calls ar/rs/ag/bc/bar/a2a");
      for r = 1:numel (R.ranks)
        if (r > 14 && numel (R.ranks) > 16)
          printf ("  ... %d more ranks (R.ranks)\n", numel (R.ranks) - 14);
          break;
        endif
        q = R.ranks(r);
        printf ("  %-5d %8d %10d %8d %12d %12d  %s\n", q.rank, q.ns_calls,
                q.momentum_elements, q.pad_elements, q.bytes_sent, q.bytes_recv,
                strjoin (arrayfun (@num2str, q.calls, "UniformOutput", false), "/"));
      endfor
      printf ("  fields: %s\n", strjoin (properties (R).', ", "));
      printf ("  (R.updates{p}: the assembled update of parameter p; R.ranks(r).update: rank r's elements)\n");
    endfunction
  endmethods
endclassdef

%!test
%! ## fields read as in a struct; struct () gives them back unchanged
%! S = struct ("variant", "reference", "world", 2, "comm", "sim", "counts", "measured",
%!             "step", 1, "plans_built", 1, "skipped", false, "skip_reason", "", "updates", {{eye(2), ones(2, 3)}},
%!             "reference", {{eye(2), ones(2, 3)}}, "rel_err", [0 0], "owners", {{0, [0 1]}},
%!             "straddles", [false true], "diverged", [0 0],
%!             "ranks", struct ("rank", {0, 1}, "ns_calls", 2, "momentum_elements", 5,
%!                              "pad_elements", 0, "bytes_sent", 8, "bytes_recv", 8,
%!                              "calls", [1 0 0 0 0 0], "sent", 0, "recv", 0, "update", [],
%!                              "owned", zeros (2)));
%! R = zero_step_result (S);
%! assert (R.updates{2}, ones (2, 3));
%! assert ([R.ranks.rank], [0 1]);
%! assert (struct (R), S);
%! assert ([isstruct(R), isobject(R), isprop(R, "rel_err")], [false true true]);
%! txt = evalc ("disp (R)");
%! assert (numel (strfind (txt, "\n")), 2 + 2 + 5);
%! assert (! isempty (strfind (txt, "2 x 3")));
%! assert (isempty (strfind (txt, "DIVERGED")));
%! S.diverged = [0 2];                  # a diverged parameter is marked on its line
%! txt = evalc ("disp (zero_step_result (S))");
%! assert (numel (strfind (txt, "\n")), 2 + 2 + 5);
%! assert (! isempty (regexp (txt, '\n  2 [^\n]*\(DIVERGED: 2 block\(s\)\)\n')));

%!test
%! ## issue 18: a result over 3 parameters and 4 ranks, shown at the prompt, in <= 40 lines
%! ## (as a struct it printed every update matrix: over 5,000 lines for 64 x 64 matrices)
%! L = zero_layout ({[64 64], [64 64], [64 64]}, 4);
%! g = arrayfun (@(k) sin (k * (1:64)' + (1:64)), ones (4, 3) + (0:3)', "UniformOutput", false);
%! R = zero_muon_step (L, g, []);
%! txt = evalc ("R");
%! assert (numel (strfind (txt, "\n")) <= 40);
%! assert (numel (strfind (txt, "\n")), 3 + 4 + 8);
%! assert (! isempty (strfind (txt, "zero12_allreduce, world 4")));

%!test
%! ## 40 parameters on 32 ranks: 14 of each shown, a line for the rest
%! L = zero_layout (repmat ({[8 8]}, 1, 40), 32);
%! g = repmat ({ones(8)}, 32, 40);
%! R = zero_muon_step (L, g, [], "Variant", "layerwise_lpt");
%! txt = evalc ("R");
%! assert (numel (strfind (txt, "\n")), 3 + 14 + 1 + 14 + 1 + 5);
%! assert (! isempty (strfind (txt, "... 26 more parameters")));
%! assert (! isempty (strfind (txt, "... 18 more ranks")));

%!demo
%! L = zero_layout ({[64 64], [64 64], [64 64]}, 4);
%! randn ("state", 1);
%! g = arrayfun (@(k) randn (64), ones (4, 3), "UniformOutput", false);
%! R = zero_muon_step (L, g, [], "Variant", "zero2_reduce_scatter_buggy")
%! ## every parameter straddles a cut at world 4: the buggy variant is wrong on all three
%! R.rel_err

%!error <zero_step_result: S must be a scalar struct.> zero_step_result (1)
