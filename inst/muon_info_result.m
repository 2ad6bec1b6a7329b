## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef muon_info_result < muon_rows
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{info} =} muon_info_result (@var{S})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{info})
  ## What @code{info = muon_info ()} returns: the fields of @code{muon_info}'s report
  ## (@code{info.cuda_usable}, @code{info.gemm.provider.bf16}, @dots{}, listed by
  ## @code{fieldnames (info)}), which shows itself at the prompt as the same short report
  ## that @code{muon_info ()} prints, not as the struct's fields.  @code{struct (info)} gives
  ## the plain struct.
  ## @seealso{muon_info, muon_rows}
  ## @end deftypefn

  methods
    function R = muon_info_result (S)
      if (nargin > 0)
        if (! (isstruct (S) && isscalar (S)))
          error ("muonlab:badArg", "muon_info_result: S must be a scalar struct.");
        endif
        R = from_records (R, S);
      endif
    endfunction

    function disp (R)
      s = struct (R);
      printf ("  muonlab back ends\n    %s\n    %s\n    %s\n    BLAS: %s\n    GEMM: %s\n    schedules: %s\n",
              s.cpu, s.cuda, s.ranks, s.blas, strrep (s.gemm_text, "\n", "\n  "),
              strjoin (s.schedules, ", "));
    endfunction
  endmethods
endclassdef

%!test
%! ## the report, not the fields; the fields read as the struct's
%! info = muon_info ();
%! assert (isa (info, "muon_info_result"));
%! txt = evalc ("info");
%! assert (numel (strfind (txt, "\n")) <= 20);
%! assert (! isempty (strfind (txt, info.cpu)));
%! assert (struct (info).gemm, info.gemm);

%!demo
%! info = muon_info ()
%! info.gemm.provider

%!error <muon_info_result: S must be a scalar struct.> muon_info_result (1)
