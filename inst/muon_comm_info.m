## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef muon_comm_info < muon_rows
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{info} =} muon_comm_info (@var{S})
  ## @deftypefnx {muonlab} {@var{info} =} muon_comm_info (@var{S}, @var{first})
  ## @deftypefnx {muonlab} {@var{S} =} struct (@var{info})
  ## What @code{muon_collective} says about a call (@var{info}) and its
  ## @qcode{"counters"}: the fields of the struct @var{S} read as a struct's
  ## (@code{info.sent}, @code{C.allreduce.calls}); @code{struct (info)} gives the plain
  ## struct.  The per-rank fields hold one entry per rank the process drives, in rank
  ## order from rank @var{first} (default 0; @code{muon_collective} passes its
  ## communicator's rank: every rank of a @qcode{"sim"} communicator, this process's own
  ## under MPI and NCCL).  Typing it prints the scalars on a line, then a row per rank with
  ## the per-rank columns (at most 16 rows; the columns that are all zero are named, not
  ## shown): at most 25 lines.  The title says which rank each row is (@qcode{"row = rank
  ## + 1"} from rank 0); for one rank, whose values are all on the line, it names that
  ## rank.
  ## @seealso{muon_collective, muon_rows}
  ## @end deftypefn

  properties (Access = protected)
    first = 0;                           # the rank of the first entry
  endproperties

  methods
    function R = muon_comm_info (S, first)
      if (nargin > 0)                    # (none: an empty object, which Octave's classdef
        if (! (isstruct (S) && isscalar (S)))   # arrays need)
          error ("muonlab:badArg", "muon_comm_info: S must be a scalar struct.");
        endif
        R = from_records (R, S);
      endif
      if (nargin > 1)
        if (! (isnumeric (first) && isreal (first) && isscalar (first) && first >= 0
               && first == fix (first)))
          error ("muonlab:badArg", "muon_comm_info: FIRST must be a non-negative integer.");
        endif
        R.first = double (first);
      endif
    endfunction

    function disp (R)
      n = entries (R.recs);
      if (n == 1)
        title = sprintf ("muon_collective: rank %d; bytes", R.first);
      elseif (R.first == 0)
        title = "muon_collective: per rank (row = rank + 1); bytes";
      elseif (R.first == 1)
        title = "muon_collective: per rank (row = rank); bytes";
      else
        title = sprintf ("muon_collective: per rank (row = rank - %d); bytes", R.first - 1);
      endif
      disp_record (R, title);
    endfunction
  endmethods
endclassdef

## The entries of each per-rank field of S (a call's calls, the counters' allreduce.calls):
## the number of ranks its rows are.
function n = entries (S)
  n = 1;
  if (isfield (S, "calls"))
    n = numel (S.calls);
  elseif (isfield (S, "allreduce") && isstruct (S.allreduce) && isfield (S.allreduce, "calls"))
    n = numel (S.allreduce.calls);
  endif
endfunction

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

%!test
%! ## the title says which rank each row is: from rank 0, from another rank, one rank
%! c = muon_comm ("sim", 3);
%! [~, info] = muon_collective (c, "allreduce", {1, 2, 3});
%! assert (! isempty (strfind (evalc ("info"), "per rank (row = rank + 1)")));
%! S = struct (info);
%! assert (! isempty (strfind (evalc ("disp (muon_comm_info (S, 4))"), "per rank (row = rank - 3)")));
%! assert (! isempty (strfind (evalc ("disp (muon_comm_info (S, 1))"), "per rank (row = rank);")));
%! one = structfun (@(v) v(1), rmfield (S, {"coll", "counts"}), "UniformOutput", false);
%! one.coll = "allreduce";
%! txt = evalc ("disp (muon_comm_info (one, 1))");
%! assert (! isempty (strfind (txt, "muon_collective: rank 1; bytes")));
%! assert (isempty (strfind (txt, "row")));
%! [~, info] = muon_collective (muon_comm ("self"), "allreduce", 1);
%! assert (! isempty (strfind (evalc ("info"), "muon_collective: rank 0; bytes")));
%! C = muon_collective (c, "counters");
%! assert (! isempty (strfind (evalc ("C"), "per rank (row = rank + 1)")));

%!demo
%! [Y, info] = muon_collective (muon_comm ("sim", 4), "allreduce", {1, 2, 3, 4})

%!error <muon_comm_info: S must be a scalar struct.> muon_comm_info (1)
%!error <muon_comm_info: FIRST must be a non-negative integer.> muon_comm_info (struct (), -1)
%!error <muon_comm_info: function called with too many inputs> muon_comm_info (struct (), 0, 1)
