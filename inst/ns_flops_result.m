## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef ns_flops_result < muon_rows
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{F} =} ns_flops_result (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{F})
  ## What @code{ns_flops} returns: its fields (in @code{ns_flops}'s help) read as a
  ## struct's (@code{F.standard}, @code{F.gram_terms.z}); @code{struct (F)} gives the plain
  ## struct.  Typing @var{F} prints the answer first, the FLOPs of the chosen method, then
  ## a row per shape (at most 20, with a line for the rest) with both methods and their
  ## ratio, and the terms of each method for one shape: at most 30 lines.
  ## @seealso{ns_flops, muon_rows}
  ## @end deftypefn

  methods
    function F = ns_flops_result (S)
      if (nargin > 0)
        if (! (isstruct (S) && isscalar (S)))
          error ("muonlab:badArg", "ns_flops_result: S must be a scalar struct.");
        endif
        result_fields ("ns_flops_result", S,
                       {"flops", "m", "n", "alpha", "standard", "gram", "ratio"},
                       {"method", "steps", "restarts", "symmetric", "standard_terms", ...
                        "gram_terms"});
        F = from_records (F, S);
      endif
    endfunction

    function disp (F)
      s = struct (F);
      if (isempty (s))
        printf ("  ns_flops: no shapes\n");
        return;
      endif
      n = numel (s.flops);
      printf ("  ns_flops: %s Newton-Schulz, %d steps, restarts %s%s: %s FLOPs\n", s.method,
              s.steps, mat2str (s.restarts), merge (s.symmetric, ", symmetric products", ""),
              merge (n == 1, sprintf ("%.4g", s.flops), sprintf ("%d shapes, %.4g in all", n,
                                                                  sum (s.flops(:)))));
      printf ("  %10s %10s %8s %12s %12s %7s\n", "m", "n", "alpha", "standard", "gram", "ratio");
      m = s.m .* ones (size (s.flops));
      nn = s.n .* ones (size (s.flops));
      for k = 1:min (n, 20)
        printf ("  %10d %10d %8.4g %12.4g %12.4g %7.4f\n", m(k), nn(k), s.alpha(k),
                s.standard(k), s.gram(k), s.ratio(k));
      endfor
      if (n > 20)
        printf ("  ... %d more shapes\n", n - 20);
      endif
      if (n == 1)
        for t = {"standard_terms", "gram_terms"}
          T = s.(t{1});
          printf ("  %s: %s\n", t{1}, strjoin (cellfun (@(f) sprintf ("%s %.4g", f, T.(f)),
                                                        fieldnames (T).', "UniformOutput",
                                                        false), ", "));
        endfor
      endif
      printf ("  fields: %s\n", strjoin (fieldnames (s).', ", "));
    endfunction
  endmethods
endclassdef

%!test
%! ## the answer first; one row per shape; the fields read as the struct's
%! F = ns_flops (1024, 4096);
%! txt = strsplit (evalc ("disp (F)"), "\n");
%! assert (! isempty (strfind (txt{1}, sprintf ("standard Newton-Schulz, 5 steps, restarts 2: %.4g FLOPs",
%!                                              F.standard))));
%! assert (F.standard, 5 * (4 * 4096 * 1024^2 + 2 * 1024^3), -eps);
%! V = ns_flops (1:30, 64);
%! txt = evalc ("V");
%! assert (numel (strfind (txt, "\n")) <= 30);
%! assert (! isempty (strfind (txt, "... 10 more shapes")));
%! assert (struct (V).gram, V.gram);

%!demo
%! F = ns_flops (1024, 4096, "Method", "gram")

%!test
%! ## made empty, it says so; made from a struct, it needs ns_flops's fields
%! assert (evalc ("disp (ns_flops_result ())"), "  ns_flops: no shapes\n");
%! S = struct (ns_flops ([64 128], 256));
%! assert (struct (ns_flops_result (S)), S);

%!error <ns_flops_result: S must be a scalar struct.> ns_flops_result (1)
%!error <ns_flops_result: S must have the field 'flops'.> ns_flops_result (struct ("a", 1))
%!error <ns_flops_result: S must have the field 'flops'.> ns_flops_result (struct ())
%!error <ns_flops_result: S must have the field 'gram_terms'.> ns_flops_result (rmfield (struct (ns_flops (64, 256)), "gram_terms"))
%!error <ns_flops_result: S.ratio must have as many elements as S.flops \(2, one per row\), not 1.> ...
%! S = struct (ns_flops ([64 128], 256)); S.ratio = 1; ns_flops_result (S)
