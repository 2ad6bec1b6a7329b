## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef muon_comm_info < muon_rows
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{info} =} muon_comm_info (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{info})
  ## What @code{muon_collective} says about a call (@var{info}) and its
  ## @qcode{"counters"}: the fields of the struct @var{S} read as a struct's
  ## (@code{info.sent}, @code{C.allreduce.calls}); @code{struct (info)} gives the plain
  ## struct.  Typing it prints the scalars on a line, then a row per rank with the
  ## per-rank columns (at most 16 rows; the columns that are all zero are named, not
  ## shown): at most 25 lines.
  ## @seealso{muon_collective, muon_rows}
  ## @end deftypefn

  methods
    function R = muon_comm_info (S)
      if (nargin > 0)
        if (! (isstruct (S) && isscalar (S)))
          error ("muonlab:badArg", "muon_comm_info: S must be a scalar struct.");
        endif
        R = from_records (R, S);
      endif
    endfunction

    function disp (R)
      disp_record (R, "muon_collective: per rank (row = rank + 1); bytes");
    endfunction
  endmethods
endclassdef

%!test
%! ## a row per rank; the fields read as the struct's
%! c = muon_comm ("sim", 20);
%! [~, info] = muon_collective (c, "allreduce", num2cell (1:20));
%! assert (isa (info, "muon_comm_info"));
%! txt = evalc ("info");
%! assert (numel (strfind (txt, "\n")) <= 25);
%! assert (! isempty (strfind (txt, "... 4 more rows")));
%! assert (struct (info).sent, info.sent);
%! C = muon_collective (c, "counters");
%! assert (numel (strfind (evalc ("C"), "\n")) <= 25);
%! assert (size (C.allreduce.calls), [20 1]);
%! assert (C.allreduce.calls, struct (C).allreduce.calls);

%!demo
%! [Y, info] = muon_collective (muon_comm ("sim", 4), "allreduce", {1, 2, 3, 4})

%!error <muon_comm_info: S must be a scalar struct.> muon_comm_info (1)
