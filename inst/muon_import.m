## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{T} =} muon_import (@var{file})
## Read a CSV table written by @code{muon_export} back: a scalar struct of columns, one
## field per column of the header line, numeric (double) where every entry of the
## column is a number (or empty: NaN), else a cellstr; quoted fields (RFC 4180: commas,
## quotes and line breaks inside quotes) are read as written.  Columns that
## @code{muon_export} split (@code{calls_1} @dots{} @code{calls_6}) stay separate.
##
## Octave's @code{csvread} reads numbers only and turns a text column into zeros without a
## warning; this reads both.  A @file{.json} file is read with
## @code{jsondecode (fileread (file))}.
##
## @example
## C = zero_cost (@{[64 64], [32 64]@}, 4);
## f = [tempname() ".csv"];
## muon_export (C, f, "Table", "ranks");
## T = muon_import (f);   # T.design: a cellstr, T.bytes_sent: numbers
## delete (f);
## @end example
## @seealso{muon_export, textscan, jsondecode}
## @end deftypefn

function T = muon_import (file)
  fname = "muon_import";
  if (nargin != 1)
    print_usage ();
  endif
  if (! (ischar (file) && isrow (file)))
    error ("muonlab:badArg", "%s: FILE must be a file name.", fname);
  endif
  [fid, msg] = fopen (file, "r");
  if (fid < 0)
    error ("muonlab:badArg", "%s: cannot read '%s': %s", fname, file, msg);
  endif
  txt = fread (fid, Inf, "char=>char").';
  fclose (fid);
  rows_ = parse_csv (txt);
  if (isempty (rows_))
    error ("muonlab:badArg", "%s: '%s' has no header line.", fname, file);
  endif
  head = rows_{1};
  body = rows_(2:end);
  n = numel (body);
  k = numel (head);
  if (any (cellfun ("numel", body) != k))
    error ("muonlab:badArg", "%s: '%s' has rows of different lengths.", fname, file);
  endif
  C = reshape ([body{:}], k, n).';      # n x k cells of text
  T = struct ();
  for j = 1:k
    col = C(:,j);
    name = matlab.lang.makeValidName (head{j});
    v = str2double (col);
    blank = cellfun ("isempty", col);
    if (all (! isnan (v) | blank | strcmpi (col, "nan")))
      T.(name) = v;
    else
      T.(name) = col;
    endif
  endfor
endfunction

## The records of a CSV text: a cell of rows, each a cell of its fields' text.
function R = parse_csv (t)
  R = {};
  row = {};
  fld = "";
  i = 1;
  n = numel (t);
  quoted = false;
  while (i <= n)
    ch = t(i);
    if (quoted)
      if (ch == '"')
        if (i < n && t(i+1) == '"')
          fld(end+1) = '"';
          i++;
        else
          quoted = false;
        endif
      else
        fld(end+1) = ch;
      endif
    elseif (ch == '"')
      quoted = true;
    elseif (ch == ",")
      row{end+1} = fld;
      fld = "";
    elseif (ch == "\n" || ch == "\r")
      if (ch == "\r" && i < n && t(i+1) == "\n")
        i++;
      endif
      row{end+1} = fld;
      R{end+1} = row;
      row = {};
      fld = "";
    else
      fld(end+1) = ch;
    endif
    i++;
  endwhile
  if (! isempty (fld) || ! isempty (row))
    row{end+1} = fld;
    R{end+1} = row;
  endif
endfunction

%!test
%! ## a plan's per-rank table: out with muon_export, back with the same columns and values
%! C = zero_cost ({[64 64], [32 64], [16 64]}, 3, "Design", {"zero12_allreduce", "layerwise_lpt"});
%! f = [tempname() ".csv"];
%! unwind_protect
%!   n = muon_export (C, f, "Table", "ranks");
%!   T = muon_import (f);
%!   assert (n, 6);
%!   assert (T.design, [repmat({"zero12_allreduce"}, 3, 1); repmat({"layerwise_lpt"}, 3, 1)]);
%!   assert (T.bytes_sent, [C(1).ranks.bytes_sent; C(2).ranks.bytes_sent]);
%!   assert (T.rank, [0; 1; 2; 0; 1; 2]);
%!   ## csvread loses the text: the design column reads as zeros
%!   M = csvread (f, 1, 0);
%!   assert (all (M(:,1) == 0));
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## quotes, commas and line breaks inside fields; empty numbers are NaN
%! f = [tempname() ".csv"];
%! unwind_protect
%!   fid = fopen (f, "w");
%!   fputs (fid, "name,x\n\"a, b\",1\n\"say \"\"hi\"\"\",\n\"two\nlines\",3.5\n");
%!   fclose (fid);
%!   T = muon_import (f);
%!   assert (T.name, {"a, b"; "say \"hi\""; "two\nlines"});
%!   assert (T.x, [1; NaN; 3.5]);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!demo
%! C = zero_cost ({[64 64], [32 64]}, 4, "Design", {"zero12_allreduce", "layerwise_lpt"});
%! f = [tempname() ".csv"];
%! muon_export (C, f, "Table", "ranks");
%! T = muon_import (f)
%! delete (f);

%!error <muon_import: FILE must be a file name.> muon_import (1)
%!error <muon_import: cannot read '/nonexistent_dir/x.csv'> muon_import ("/nonexistent_dir/x.csv")
