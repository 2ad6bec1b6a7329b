## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef ns_trace_result < muon_result
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{t} =} ns_trace_result (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{t})
  ## The per-step record of a traced @code{muon_ns} run (@code{stats.trace} with
  ## @qcode{"Trace", true}): a @code{muon_result} with the columns of the struct @var{S}
  ## (one row per iterate, 0 the normalized input: @code{step}, @code{sv_min},
  ## @code{sv_max}, @code{polar_error}, @code{r_min_eig}, @code{q_cond}), the flag
  ## @code{gram} and the arrays @code{iterates}, @code{R} and @code{Q}.
  ##
  ## Typing @var{t} prints a line with the method and the polar error from first to last
  ## iterate, then one row per step with the scalars, and the sizes of the arrays (which it
  ## never prints): at most 35 lines (beyond 31 steps the first and last 15 rows, with a
  ## line saying how many were left out).  @code{t.iterates(:,:,k+1)} is iterate k, @code{t.polar_error}
  ## the column, @code{struct (t)} the plain struct.
  ## @seealso{muon_ns, muon_result}
  ## @end deftypefn

  properties
    step = [];
    sv_min = [];
    sv_max = [];
    polar_error = [];
    r_min_eig = [];
    q_cond = [];
    gram = false;
    iterates = [];
    R = [];
    Q = [];
  endproperties

  methods
    function t = ns_trace_result (S)
      if (nargin > 0)
        if (isstruct (S) && isscalar (S))
          result_fields ("ns_trace_result", S,
                         {"step", "sv_min", "sv_max", "polar_error", "r_min_eig", "q_cond"},
                         {"gram", "iterates", "R", "Q"});
        endif
        t = from_struct (t, S);
      endif
    endfunction

    function disp (t)
      n = numel (t.step);
      if (n == 0)
        printf ("  muon_ns trace: no steps\n");
        return;
      endif
      printf ("  muon_ns trace: %d steps, %s; polar error %.4g -> %.4g, singular values [%.4g, %.4g] at the end\n",
              n - 1, merge (t.gram, "gram", "standard"), t.polar_error(1), t.polar_error(end),
              t.sv_min(end), t.sv_max(end));
      printf ("  %5s %11s %11s %12s %12s %11s\n", "step", "sv_min", "sv_max", "polar_error",
              "r_min_eig", "q_cond");
      show = 1:n;
      if (n > 32)
        show = [1:15, n-14:n];
      endif
      for i = 1:numel (show)
        k = show(i);
        if (i > 1 && k != show(i-1) + 1)
          printf ("  ... %d steps left out\n", k - show(i-1) - 1);
        endif
        printf ("  %5d %11.4g %11.4g %12.4g %12.4g %11.4g\n", t.step(k), t.sv_min(k),
                t.sv_max(k), t.polar_error(k), t.r_min_eig(k), t.q_cond(k));
      endfor
      printf ("  arrays (not shown): iterates %s, R %s, Q %s\n", dims (t.iterates), dims (t.R),
              dims (t.Q));
    endfunction
  endmethods
endclassdef

function s = dims (x)
  s = strjoin (arrayfun (@(d) sprintf ("%d", d), size (x), "UniformOutput", false), " x ");
endfunction

%!test
%! ## the scalars of every step, the arrays' sizes only: 3 + steps + 1 lines
%! randn ("state", 3);
%! G = randn (16, 48);
%! [~, st] = muon_ns (G, "Method", "gram", "Trace", true);
%! t = st.trace;
%! assert (isa (t, "ns_trace_result"));
%! txt = evalc ("disp (t)");
%! ln = strsplit (strtrim (txt), "\n");
%! assert (numel (ln), 3 + numel (t.step));
%! assert (! isempty (strfind (ln{end}, "iterates 16 x 48 x 6")));
%! v = sscanf (ln{end-1}, "%f").';          # the last step's row, as the columns hold it
%! assert (v(1:4), [t.step(end) t.sv_min(end) t.sv_max(end) t.polar_error(end)], -1e-3);
%! S = struct (t);
%! assert (S.iterates, t.iterates);

%!test
%! ## a long run leaves out the middle steps and stays within 40 lines
%! randn ("state", 4);
%! [~, st] = muon_ns (randn (8, 16), "Steps", 60, "Trace", true);
%! txt = evalc ("st.trace");
%! assert (numel (strfind (txt, "\n")) <= 40);
%! assert (! isempty (strfind (txt, "... 31 steps left out")));

%!demo
%! randn ("state", 1);
%! [~, st] = muon_ns (randn (64, 192), "Method", "gram", "Precision", "bf16", "Trace", true);
%! st.trace

%!test
%! ## made empty, it says so; made from a struct, it needs the trace's fields
%! assert (evalc ("disp (ns_trace_result ())"), "  muon_ns trace: no steps\n");
%! [~, st] = muon_ns (randn (4, 8), "Steps", 2, "Trace", true);
%! S = struct (st.trace);
%! assert (struct (ns_trace_result (S)), S);

%!error <ns_trace_result: S must be a scalar struct.> ns_trace_result (1)
%!error <ns_trace_result: S must have the field 'step'.> ns_trace_result (struct ())
%!error <ns_trace_result: S must have the field 'Q'.> ...
%! [~, st] = muon_ns (randn (4, 8), "Trace", true); ns_trace_result (rmfield (struct (st.trace), "Q"))
%!error <ns_trace_result: S.q_cond must have as many elements as S.step \(6, one per row\), not 5.> ...
%! [~, st] = muon_ns (randn (4, 8), "Trace", true); S = struct (st.trace); S.q_cond(end) = [];
%! ns_trace_result (S)
