## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{T} =} muon_import (@var{file})
## Read a table written by @code{muon_export} back, from a CSV or a JSON file (chosen by
## the extension of @var{file}, @file{.json} for JSON, anything else CSV).
##
## From a CSV file: a scalar struct of columns, one field per column of the header line,
## numeric (double) where every entry of the column is a number as @code{muon_export}
## writes one (a real number with no sign but a minus and no leading zero, such as 0.5,
## -12, 1.5e-07 or 1e+300, or @code{NaN}, @code{Inf}, @code{-Inf}) or empty (NaN), else
## a cellstr: a column that holds @qcode{"007"}, @qcode{"+1"}, @qcode{"1e3"} or
## @qcode{"i"} is text, and so is a column with a quoted entry (@qcode{"1,5"}) or whose
## entries are all empty (a cellstr of @qcode{""}, as @code{muon_export} writes an empty
## string, while it writes NaN as @code{NaN}).  Quoted fields (RFC 4180: commas, quotes and
## line breaks inside quotes) are read as written.  A
## header that names a column twice or has a column with no name, a quote that is not
## closed and rows of different lengths are errors; blank lines at the end of a file of
## more than one column are ignored (in a file of one column they are rows of an empty
## string).  Columns that @code{muon_export} split (@code{calls_1} @dots{}
## @code{calls_6}) stay separate.  A file with a header line and no rows gives a struct of
## empty (0 x 1) columns.  A UTF-8 byte-order mark at the start of the file (CSV or JSON)
## is skipped.
##
## From a JSON file (an error where it is no valid JSON): @code{jsondecode (fileread
## (file), "makeValidName", false)}, its numbers exact (below), each @code{null} NaN
## (@code{jsonencode} writes NaN so; @code{jsondecode} gives [] for a null member of an
## object), NUL characters in strings kept (@code{jsondecode} cuts a string there), and where
## that is an array of row objects (what @code{muon_export} writes for a table), the table
## again: one column per field, numeric (n x k for a vector of k numbers per row, NaN where
## the file has @code{null}), logical, a cellstr, or, where a row holds @code{[]} (a
## model's @code{split}: @code{[]} for a matrix that is not fused), an n x 1 cell of the
## rows' values (@code{[]} and row vectors of any lengths).  Anything else (a whole result that
## @code{muon_export} encoded as it is, or @code{[]} for a table of no rows) is returned as
## decoded.
##
## What comes back: every double bit for bit, from CSV (a numeric column's numbers) and
## from JSON (every number, wherever it is: a table's column, a field of a nested struct, a
## cell): @code{muon_export} writes each with the fewest of 15, 16 or 17 significant digits
## that read back as it, and this reads them correctly rounded (@code{str2double} for CSV;
## for JSON each number is read again from the text, as Octave 7's @code{jsondecode} reads
## about one in five 1 ulp off); writing the imported table (or struct) out again gives
## the same bytes.  A number in a CSV file past the largest double (@code{1e+999}, or
## @code{1.797693134862316e+308}, realmax rounded to 16 digits) reads as @code{Inf} or
## @code{-Inf}, the infinity of its sign that correct rounding gives (not NaN, as
## @code{str2double} has it), and one below the smallest subnormal (@code{1e-999}) as 0.
## In a JSON file a number past the largest double is an error (no valid JSON:
## @code{jsondecode} refuses it), and one below the smallest subnormal reads as 0 too.
## Integers past 2^53 come back as the nearest double.  A column that mixes @code{[]} and
## strings gives the decoded struct array.
## Strings come back as the bytes written, also bytes that are no UTF-8 and NUL (as
## @code{muon_export} writes them, in CSV and JSON alike).
##
## The field names are the file's column names as written, also where they are no valid
## variable names or are keywords (@code{T.("persistent")}, @code{T.("a b")}): Octave's
## dynamic fields hold any name, and nothing is renamed.
##
## Limit, checked before the file is opened (@code{muonlab:badArg} naming it): @var{file}
## must be a regular file (after links; not a FIFO, a device or a folder) of at most
## @code{max_import_mib} (256 MiB), what @code{muon_export} writes for a table of the most
## rows a model may have (@code{max_model_matrices}, 10^6, about 250 MB as JSON).  A file
## is read whole and parsed in memory, which takes some 50 to 80 times its size (a 32 MB
## CSV about 2.4 GB, and 20 s).
##
## Octave's @code{csvread} reads numbers only and turns a text column into zeros without a
## warning; this reads both.
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
  regular_file (fname, file, "max_import_mib"); # (a folder, a FIFO, too big: not read)
  [fid, msg] = fopen (file, "r");
  if (fid < 0)
    error ("muonlab:badArg", "%s: cannot read '%s': %s.", fname, file, msg);
  endif
  txt = fread (fid, Inf, "char=>char").';
  fclose (fid);
  if (numel (txt) >= 3 && isequal (double (txt(1:3)), [239 187 191]))
    txt(1:3) = [];                              # a UTF-8 byte-order mark
  endif
  [~, ~, ext] = fileparts (file);
  if (strcmpi (ext, ".json"))
    json_check_depth (fname, file, txt);        # (jsondecode crashes on deep nesting)
    [D, msg] = json_exact (txt, "makeValidName", false);   # every number exact
    if (! isempty (msg))
      error ("muonlab:badArg", "%s: '%s' is no valid JSON (%s).", fname, file,
             regexprep (strtrim (msg), '\.$', ""));
    endif
    T = json_table (D, txt);
    return;
  endif
  if (mod (nnz (txt == '"'), 2))
    error ("muonlab:badArg", "%s: '%s' has a quoted field that is not closed.", fname,
           file);
  endif
  [fields, nrow, plain] = csv_parse (txt);
  if (isempty (nrow) || (nrow(1) == 1 && isempty (fields{1})))
    error ("muonlab:badArg", "%s: '%s' has no header line.", fname, file);
  endif
  k = nrow(1);
  while (k > 1 && nrow(end) == 1 && isempty (fields{end}))
    nrow(end) = [];                             # a blank line at the end
    fields(end) = [];
    plain(end) = [];
  endwhile
  if (any (nrow != k))
    error ("muonlab:badArg", "%s: '%s' has rows of different lengths.", fname, file);
  endif
  head = fields(1:k);
  if (any (cellfun ("isempty", head)))
    error ("muonlab:badArg", "%s: the header of '%s' has a column with no name.", fname,
           file);
  endif
  [u, i] = unique (head);
  if (numel (u) < k)
    dup = head(setdiff (1:k, i));
    error ("muonlab:badArg", "%s: the header of '%s' repeats the column name '%s'.", fname,
           file, dup{1});
  endif
  C = reshape (fields(k+1:end), k, []).';     # n x k cells of text
  P = reshape (plain(k+1:end), k, []).';
  if (isempty (C))
    C = cell (0, k);
    P = false (0, k);
  endif
  T = struct ();
  for j = 1:k
    col = C(:,j);
    if (all (P(:,j)) && ! (all (cellfun ("isempty", col)) && ! isempty (col)))
      x = str2double (col);            # correctly rounded; NaN past the largest double:
      o = isnan (x) & ! strcmp (col, "NaN") & ! cellfun ("isempty", col);
      x(o) = Inf;                      # as the number it rounds to, +-Inf
      x(o & strncmp (col, "-", 1)) = -Inf;
      T.(head{j}) = x;
    else
      T.(head{j}) = col;
    endif
  endfor
endfunction

## The table of the rows that muon_export writes to JSON (D, an array of objects decoded to
## a struct array, its numbers exact, TXT the text): one column per field; D as it is when it is no such array.
function T = json_table (D, txt)
  T = D;
  if (! (isstruct (D) && ! isempty (D) && ! isempty (fieldnames (D))
         && txt(find (! isspace (txt), 1)) == "["))   # (no regexp: bytes of no UTF-8)
    return;
  endif
  C = struct ();
  for f = fieldnames (D).'
    v = {D.(f{1})}(:);
    r = cellfun ("size", v, 1);
    c = cellfun ("size", v, 2);
    if (all (cellfun ("isclass", v, "char") & r <= 1))
      C.(f{1}) = v;
      continue;
    endif
    n = cellfun ("numel", v);
    k = max ([n; 1]);
    ## vectors of one length k per row (an n x k column), or, where a row holds [], of any
    ## lengths (a cell column: a model's split with "Fuse" "all" mixes 2 and 3)
    if (! all ((cellfun ("isnumeric", v) | cellfun ("islogical", v)) & cellfun ("isreal", v)
               & cellfun ("ndims", v) == 2 & (r == 1 | c == 1 | n == 0)
               & (n == k | n == 0 | any (n == 0))))
      return;
    endif
    if (any (n == 0))
      ## a literal [] (json_exact reads each null as NaN): a cell column of the values as
      ## written, [] and row vectors (of any lengths), so that it is written out again to
      ## the same bytes (as NaN it was written null; [8 8 8] beside it, [] became
      ## [null,null,null])
      v(n > 0) = cellfun (@(x) x(:).', v(n > 0), "UniformOutput", false);
      C.(f{1}) = v;
      continue;
    endif
    if (k > 1)
      v = cellfun (@(x) x(:), v, "UniformOutput", false);
    endif
    C.(f{1}) = reshape ([v{:}], k, []).';
  endfor
  T = C;
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

%!test
%! ## JSON: the inverse of muon_export's rows (a vector per row back as n x k, null as NaN,
%! ## logicals, strings with quotes); the same table as the CSV round trip; and out again
%! ## to the same bytes, both formats
%! T.name = {"a"; "b,c"; 'say "hi"'; ""};
%! T.v = [1 2; 3 4; 5 NaN; 7 8];
%! T.x = [0.5; NaN; -1e300; 3];
%! T.ok = logical ([1; 0; 1; 1]);
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   muon_export (T, g);
%!   J = muon_import (g);
%!   assert (J, T);
%!   muon_export (T, f);
%!   Tc = muon_import (f);
%!   assert (Tc.name, T.name);
%!   assert ([Tc.v_1, Tc.v_2], T.v);
%!   assert (Tc.x, T.x);
%!   assert (Tc.ok, double (T.ok));
%!   txt = fileread (g);
%!   muon_export (J, g);
%!   assert (fileread (g), txt);
%!   txt = fileread (f);
%!   muon_export (Tc, f);
%!   assert (fileread (f), txt);
%!   ## a plan's ranks: the JSON and the CSV round trip give the same table
%!   C = zero_cost ({[64 64], [32 64]}, 4);
%!   muon_export (C, f, "Table", "ranks");
%!   muon_export (C, g, "Table", "ranks");
%!   Tc = muon_import (f);
%!   J = muon_import (g);
%!   assert (fieldnames (J), fieldnames (Tc));
%!   for c = fieldnames (J).'
%!     if (iscell (J.(c{1})))
%!       assert (J.(c{1}), Tc.(c{1}));
%!     else                         # logicals are 0 and 1 in the CSV, numbers exact
%!       assert (double (J.(c{1})), Tc.(c{1}));
%!     endif
%!   endfor
%!   R = [C.ranks];
%!   assert (J.bytes_sent, vertcat (R.bytes_sent));
%!   ## JSON that is no table comes back as decoded (its numbers exact, where jsondecode
%!   ## reads some 1 ulp off)
%!   muon_export (C, g);
%!   assert (muon_import (g), jsondecode (fileread (g), "makeValidName", false), -4 * eps);
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## a table of no rows: its columns, empty
%! f = [tempname() ".csv"];
%! unwind_protect
%!   assert (muon_export (struct ("a", zeros (0, 1), "b", {cell(0, 1)}), f), 0);
%!   assert (fileread (f), "a,b\n");
%!   T = muon_import (f);
%!   assert (fieldnames (T), {"a"; "b"});
%!   assert (size (T.a), [0 1]);
%!   assert (size (T.b), [0 1]);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## the header's names as written: keywords and names that are no variable names
%! f = [tempname() ".csv"];
%! unwind_protect
%!   fid = fopen (f, "w");
%!   fputs (fid, "persistent,a b,end\n1,x,2\n");
%!   fclose (fid);
%!   T = muon_import (f);
%!   assert (fieldnames (T), {"persistent"; "a b"; "end"});
%!   assert (T.("persistent"), 1);
%!   assert (T.("a b"), {"x"});
%!   C = zero_cost ({[64 64], [32 64]}, 4);
%!   muon_export (C, f, "Table", "ranks");
%!   T = muon_import (f);
%!   R = [C.ranks];
%!   assert (T.("persistent"), vertcat (R.persistent));
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## quotes, commas and empty fields together, CR LF line ends, a last line without one;
%! ## checked against the fields written out by hand
%! f = [tempname() ".csv"];
%! unwind_protect
%!   fid = fopen (f, "w");
%!   fputs (fid, ["s,t,n\r\n" '"x,""y""",,1' "\r\n" ',"",' "\r\n" '"""",'  '"a' "\r\n" 'b",2']);
%!   fclose (fid);
%!   T = muon_import (f);
%!   assert (T.s, {'x,"y"'; ""; '"'});
%!   assert (T.t, {""; ""; "a\r\nb"});
%!   assert (T.n, [1; NaN; 2]);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## a column of empty strings (a plan's "why", a model's "split") stays text: out again
%! ## to the same bytes
%! f = [tempname() ".csv"];
%! unwind_protect
%!   C = zero_cost ({[64 64], [32 64], [16 64]}, 3, "Design", {"zero12_allreduce", "layerwise_lpt"});
%!   muon_export (C, f, "Table", "ranks");
%!   txt = fileread (f);
%!   T = muon_import (f);
%!   assert (T.why, repmat ({""}, 6, 1));
%!   muon_export (T, f);
%!   assert (fileread (f), txt);
%!   M = muon_model ("llama-3.1-8b");
%!   muon_export (M, f, "Table", "params");
%!   txt = fileread (f);
%!   T = muon_import (f);
%!   assert (T.split, repmat ({""}, numel (M.params.name), 1));
%!   muon_export (T, f);
%!   assert (fileread (f), txt);
%!   ## by hand: an all-empty column is text; a number column with an empty entry is NaN
%!   fid = fopen (f, "w");
%!   fputs (fid, "a,b\n,1\n,\n");
%!   fclose (fid);
%!   T = muon_import (f);
%!   assert (T.a, {""; ""});
%!   assert (T.b, [1; NaN]);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## a column is numeric only where every entry is a number as muon_export writes one (or
%! ## empty); text that str2double would read as a number stays text, as does a quoted field
%! f = [tempname() ".csv"];
%! unwind_protect
%!   muon_export (struct ("label", {{"1,5"; "2,25"}}), f);
%!   assert (muon_import (f), struct ("label", {{"1,5"; "2,25"}}));
%!   muon_export (struct ("name", {{"i"; "j"}}), f);
%!   txt = fileread (f);
%!   T = muon_import (f);
%!   assert (T, struct ("name", {{"i"; "j"}}));
%!   muon_export (T, f);
%!   assert (fileread (f), txt);
%!   for s = {"007", "+1", "1e3", "--1", ".5", "5.", "1d3", "0x10", " 5", "5 ", "inf", "nan", ...
%!            "NA", "1.5E+10", "Infinity", "2i", "\"12\""}
%!     fid = fopen (f, "w");
%!     fprintf (fid, "a,b\n%s,1\n-2,2\n", s{1});
%!     fclose (fid);
%!     T = muon_import (f);
%!     assert (T.a, {strrep(s{1}, "\"", ""); "-2"}, s{1});
%!     assert (T.b, [1; 2]);
%!   endfor
%!   fid = fopen (f, "w");
%!   fputs (fid, "a\n0.5\n-12\n1.5e-07\n1e+300\nNaN\nInf\n-Inf\n-0\n0\n\n");
%!   fclose (fid);
%!   T = muon_import (f);
%!   assert (T.a, [0.5; -12; 1.5e-7; 1e300; NaN; Inf; -Inf; 0; 0; NaN]);
%!   assert (1 ./ T.a(8:9), [-Inf; Inf]);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!demo
%! C = zero_cost ({[64 64], [32 64]}, 4, "Design", {"zero12_allreduce", "layerwise_lpt"});
%! f = [tempname() ".csv"];
%! muon_export (C, f, "Table", "ranks");
%! T = muon_import (f);
%! printf ("%d rows; columns: %s\n", numel (T.rank), strjoin (fieldnames (T).', ", "));
%! printf ("  %-18s rank %d: %g bytes sent\n", T.design{1}, T.rank(1), T.bytes_sent(1));
%! delete (f);

%!error <muon_import: FILE must be a file name.> muon_import (1)
