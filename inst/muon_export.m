## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {} muon_export (@var{X}, @var{file})
## @deftypefnx {muonlab} {} muon_export (@var{X}, @var{file}, "Table", @var{name})
## @deftypefnx {muonlab} {@var{n} =} muon_export (@dots{})
## Write a result, or one of its tables, to a CSV or JSON file (chosen by the extension of
## @var{file}, @file{.csv} or @file{.json}), so that it can leave Octave.
##
## A @dfn{table} is what muonlab's functions return for one row per rank, per parameter or
## per configuration: a scalar struct whose fields are columns with one row each (numeric
## or logical n x k arrays, cellstr n x 1; e.g. @code{zero_cost}'s @code{ranks} and
## @code{params}, @code{muon_model}'s @code{params}), or a struct array whose fields are
## scalars, strings or numeric row vectors (one element per row, e.g. the rows a demo
## returns; picked by @qcode{"Table"}, such as the @code{ranks} of a @code{zero_muon_step}
## or @code{zero_train_step} result, its fields that hold a matrix per row, such as a
## rank's update, are left out).  A scalar struct that is no struct of columns is read as
## a struct array of one element: one row (@code{struct ("design", "x", "world", 8)}, the
## @code{ranks} of a step at world size 1).  A
## column of k > 1 numbers per row becomes k columns @code{name_1} @dots{} @code{name_k};
## a CSV header that would then name a column twice (a column @code{v} of two numbers per
## row beside a column @code{v_1}) is an error.
##
## @table @asis
## @item CSV
## a header line with the column names, then one line per row; every double with the
## fewest of 15, 16 or 17 significant digits that read back as it (as in JSON below:
## realmax as 1.7976931348623157e+308, where 16 digits give a number past it), NaN, Inf and
## -Inf as such, integers (int64 and uint64 too) with all their digits, logicals as 0 and
## 1, strings as their bytes (UTF-8 or not, as in JSON), quoted when they hold a comma, a
## quote or a line break (RFC 4180), and all quoted in a column of strings that would all
## read as numbers or empty (@code{"1"}, @code{""}: @code{muon_import} keeps a column with
## a quoted entry as text).  @code{muon_import} reads each double back bit for bit, and
## each string as written.  Only tables can be written as CSV; a field with no name is an
## error there.
## @item JSON
## a table becomes an array of row objects; anything else (a whole @code{zero_muon_step}
## result, a @code{zero_cost} struct array, a model) is written as it is, laid out as
## Octave's @code{jsonencode} lays it out (a struct an object, a struct array or a cell an
## array, a vector a flat array, a matrix an array of its rows), a result inside it (a
## @code{muon_result} or @code{muon_state}, also a state made before @code{clear
## functions}) as its plain struct.  Every number is written with the fewest of 15, 16 or
## 17 significant digits that read back as the same double, so
## a correctly rounded reader (@code{muon_import}, Python's @code{json}) gives each double
## back bit for bit (-0 is written @code{-0.0}; Octave 7's own @code{jsonencode} writes
## every positive number below eps as 0 and 0.1 + 0.2 as 0.30000000000000007); NaN and Inf
## become null, integers (int64 and uint64 too) are written with all their digits, single
## values as their double values, strings as their bytes (UTF-8 or not; a strict JSON
## reader wants UTF-8).
## @end table
##
## Complex values (in either format), a value JSON cannot hold (a function handle), a
## table column of n x 0 numbers and, with @qcode{"Table"}, a table column of the same
## name as a field of @var{X} that leads the rows (which would hide it) are errors.
##
## Options (names are case-insensitive):
## @table @asis
## @item "Table"
## @var{name} picks the table in field @var{name} of @var{X}; when @var{X} is a struct
## array (e.g. one @code{zero_cost} result per design), the tables of all its elements are
## stacked, each row led by its element's scalar fields (numbers and strings: the design
## name, the world size, @dots{}).  A list of records of @code{muon_rows} (a
## @code{zero_cost} result) is led so even when it holds one record (one design: the same
## columns as for several).  A scalar struct (a plain one, which a 1 x 1 struct array is
## in Octave, or a single result such as @code{zero_muon_step}'s or @code{muon_model}'s)
## has its table written alone, not led by its fields.
## @end table
##
## @var{n} is the number of rows written (for a non-table JSON, 1).  The file is written
## whole under a temporary name in a folder made for the call beside @var{file}, then
## renamed over it once its size on disk is checked (a full disk, where Octave's writes
## report success for bytes that never reached it, is a @code{muonlab:badArg}
## @qcode{"cannot write"} error leaving @var{file} as it was): a planted link is never
## followed, no shell sees @var{file}.  A process
## killed while writing (SIGKILL, or SIGTERM, which skips Octave's cleanup) leaves
## @var{file} as it was and that folder, @file{.muonlab-@var{pid}-*}, beside it, to delete.
##
## Reading a table back: @code{muon_import (file)} returns it, from CSV or JSON (numbers as
## numeric columns, text as cellstr columns; integers past 2^53 as the nearest double).
## Octave's @code{csvread} and @code{dlmread} read numbers only: they turn every text
## column (a design name, a parameter name) into 0 without a warning, so use them only on a
## table whose columns are all numeric (skip the header: @code{csvread (file, 1, 0)});
## @code{textscan} or the io package's @code{csv2cell} read the text too.  A JSON file also
## reads back with @code{jsondecode (fileread (file))} (a table as an array of row
## structs; Octave 7's @code{jsondecode} reads about one number in five 1 ulp off).
##
## @example
## C = zero_cost (muon_model ("llama-3.1-8b"), 64);
## muon_export (C, "ranks.csv", "Table", "ranks");    # one row per design and rank
## muon_export (C(2).params, "params.json");          # one object per matrix
## T = muon_import ("ranks.csv");                      # back: T.design@{1@}, T.bytes_sent
## L = zero_layout (@{[64 64], [64 64]@}, 4);
## R = zero_muon_step (L, repmat (@{randn(64)@}, 4, 2), []);
## muon_export (R, "step_ranks.csv", "Table", "ranks");  # a row per rank
## @end example
## @seealso{muon_import, zero_cost, muon_model, zero_muon_step, jsonencode, csvwrite}
## @end deftypefn

function n = muon_export (X, file, varargin)
  fname = "muon_export";
  if (nargin < 2)
    print_usage ();
  endif
  v = parse_options (fname, "muon_export", varargin);
  records = isa (X, "muon_rows");       # a list of records: led by its fields, even one
  if (isa (X, "muon_state"))
    X = state_plain (X);                # (also one made before `clear functions`)
  elseif (isa (X, "zero_layout_result") || isa (X, "muon_model_result"))
    X = layout_plain (X);               # (also one made before `clear functions`)
  elseif (isa (X, "muon_result"))
    X = struct (X);
  endif
  v.Table = v.table;
  if (! (ischar (file) && isrow (file)))
    error ("muonlab:badArg", "%s: FILE must be a file name ending in .csv or .json.", fname);
  endif
  [~, ~, ext] = fileparts (file);
  ext = lower (ext);
  if (! any (strcmp (ext, {".csv", ".json"})))
    error ("muonlab:badArg", "%s: FILE must end in .csv or .json (got '%s').", fname, file);
  endif

  if (! isempty (v.Table) && ! (ischar (v.Table) && isrow (v.Table)))
    error ("muonlab:badArg", "%s: TABLE must be a field name.", fname);
  endif
  [T, names, cols] = export_table (fname, X, v.Table, records);
  if (strcmp (ext, ".json"))
    if (isempty (T))
      text = json_encode (fname, X);
      n = 1;
    else
      text = json_encode (fname, T, "rows");
      n = rows (T.(fieldnames (T){1}));
    endif
    write_file (fname, file, text);
  else
    if (isempty (T))
      error ("muonlab:badArg",
             "%s: X is not a table (a struct of equal-length columns, or a struct array of scalar fields); write it as JSON, or pick a table with 'Table'.",
             fname);
    endif
    [u, i] = unique (names);
    if (numel (u) < numel (names))
      dup = names(setdiff (1:numel (names), i));
      error ("muonlab:badArg", "%s: X's CSV header would repeat the column name '%s'.",
             fname, dup{1});
    endif
    n = rows (cols{1});
    write_file (fname, file, @(tmp) csv_write (fname, tmp, names, cols, file));
  endif
endfunction

%!test
%! ## a table to CSV and JSON and back
%! T.rank = (0:3).';
%! T.bytes = [10; 20; 30.5; 1e12];
%! T.ok = logical ([1; 0; 1; 1]);
%! f = [tempname() ".csv"];
%! unwind_protect
%!   assert (muon_export (T, f), 4);
%!   txt = fileread (f);
%!   assert (strncmp (txt, "rank,bytes,ok\n", 14));
%!   assert (dlmread (f, ",", 1, 0), [T.rank T.bytes double(T.ok)]);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect
%! f = [tempname() ".json"];
%! unwind_protect
%!   muon_export (T, f);
%!   J = jsondecode (fileread (f));
%!   assert ([J.rank].', T.rank);
%!   assert ([J.bytes].', T.bytes);
%!   assert ([J.ok].', T.ok);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## strings (quoted when they must be), matrix columns split, struct arrays as rows
%! T.name = {"a"; "b,c"; 'say "hi"'};
%! T.v = [1 2; 3 4; 5 6];
%! f = [tempname() ".csv"];
%! unwind_protect
%!   muon_export (T, f);
%!   assert (fileread (f), "name,v_1,v_2\na,1,2\n\"b,c\",3,4\n\"say \"\"hi\"\"\",5,6\n");
%!   S = struct ("design", {"x", "y"}, "world", {8, 16});
%!   assert (muon_export (S, f), 2);
%!   assert (fileread (f), "design,world\nx,8\ny,16\n");
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## a plan: the ranks of every design stacked, led by the design's scalars
%! C = zero_cost ({[8 4], [6 6]}, 3, "Design", {"zero12_allreduce", "layerwise_lpt"});
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   assert (muon_export (C, f, "Table", "ranks"), 6);
%!   lines = strsplit (strtrim (fileread (f)), "\n");
%!   assert (numel (lines), 7);
%!   assert (strncmp (lines{1}, "design,world,stage,", 19));
%!   assert (strncmp (lines{5}, "layerwise_lpt,3,", 16));
%!   muon_export (C, g);                  # not a table: JSON as it is
%!   J = jsondecode (fileread (g));
%!   assert ({J.design}.', C.design);
%!   assert (J(2).ranks.ns_calls, C(2).ranks.ns_calls);
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## a muon_model result: its parameter table as CSV, the whole model as JSON (its empty
%! ## "published" table, a 0 x 0 struct array, as [])
%! c = struct ("model_type", "llama", "vocab_size", 100, "hidden_size", 8,
%!             "intermediate_size", 16, "num_hidden_layers", 2, "num_attention_heads", 2);
%! M = muon_model (c);
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   assert (muon_export (M, f, "Table", "params"), 21);
%!   lines = strsplit (strtrim (fileread (f)), "\n");
%!   assert (lines{1}, "name,rows,cols,numel,experts,split,route,kind,layer,expert,mtp,field");
%!   assert (lines{4}, "model.layers.0.self_attn.q_proj.weight,8,8,64,1,,muon,attention,0,-1,0,model_layers_0_self_attn_q_proj_weight");
%!   assert (muon_export (M, g), 1);
%!   J = jsondecode (fileread (g));
%!   assert (J.counts, M.counts);
%!   assert (J.params.name, M.params.name);
%!   assert (J.published, []);
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## a table of no rows: its header alone in CSV, an empty array in JSON
%! T = struct ("a", zeros (0, 1), "b", {cell(0, 1)});
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   assert (muon_export (T, f), 0);
%!   assert (fileread (f), "a,b\n");
%!   assert (muon_export (T, g), 0);
%!   assert (fileread (g), "[]");
%!   assert (muon_import (g), []);
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## single values are written as their double values to JSON (jsonencode has no single)
%! g = [tempname() ".json"];
%! unwind_protect
%!   x = single ([0.1; 0.2]);
%!   muon_export (struct ("a", x, "b", {{single(1.5); "s"}}), g);
%!   t = regexp (fileread (g), '^\[\{"a":([^,]*),"b":1\.5\},\{"a":([^,]*),"b":"s"\}\]$', "tokens");
%!   assert (str2double (t{1}).', double (x));
%!   muon_export (struct ("s", struct ("v", single ([1 2]))), g);
%!   assert (fileread (g), '{"s":{"v":[1,2]}}');
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## one-row tables: a scalar struct of a string and a number, a step's ranks at world 1
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   S = struct ("design", {"x", "y"}, "world", {8, 16});
%!   assert (muon_export (S(1), f), 1);
%!   assert (fileread (f), "design,world\nx,8\n");
%!   assert (muon_export (S(1), g), 1);
%!   assert (fileread (g), '[{"design":"x","world":8}]');
%!   muon_export (struct ("a", 1, "b", {{"x"}}, "v", [1 2]), g);   # as one row of several
%!   assert (fileread (g), '[{"a":1,"b":"x","v":[1,2]}]');
%!   assert (muon_import (g), struct ("a", 1, "b", {{"x"}}, "v", [1 2]));
%!   L = zero_layout ({[8 8], [4 8]}, 1);
%!   R = zero_muon_step (L, {ones(8), ones(4, 8)}, []);
%!   assert (muon_export (R, f, "Table", "ranks"), 1);
%!   T = muon_import (f);
%!   assert (T.rank, 0);
%!   assert (T.bytes_sent, R.ranks.bytes_sent);
%!   assert ([T.calls_1, T.calls_2], R.ranks.calls(1:2));
%!   assert (! isfield (T, "update_1") && ! isfield (T, "update") && ! isfield (T, "owned_1"));
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## JSON numbers are exact: each reads back (str2double: correctly rounded) as the double
%! ## written, in the fewest digits that do, also below eps (jsonencode wrote 0) and
%! ## subnormal; -0 as -0.0; NaN and Inf as null; through muon_import bit for bit
%! rand ("state", 3);
%! x = [(rand (300, 1) - 0.5) .* 10 .^ (rand (300, 1) * 600 - 300); 4.9e-18; -1.5e-16;
%!      5e-324; 1e-320; realmin; realmax; 0.1; 0.1 + 0.2; 1 / 3; 2^53 + 2; -0];
%! g = [tempname() ".json"];
%! unwind_protect
%!   muon_export (struct ("x", x), g);
%!   t = regexp (fileread (g), '\{"x":([^}]*)\}', "tokens");
%!   t = cellfun (@(c) c{1}, t, "UniformOutput", false).';
%!   assert (typecast (str2double (t), "uint64"), typecast (x, "uint64"));
%!   assert (t(end-10:end)([1 2 7:11]), {"4.9e-18"; "-1.5e-16"; "0.1"; "0.30000000000000004";
%!                                       "0.3333333333333333"; "9007199254740994"; "-0.0"});
%!   J = muon_import (g);
%!   assert (typecast (J.x, "uint64"), typecast (x, "uint64"));
%!   muon_export (struct ("rel_err", [1.5e-16; -1.5e-16; 3e-16], "v", [NaN 1; Inf -Inf; 2 0.5]), g);
%!   assert (fileread (g), ['[{"rel_err":1.5e-16,"v":[null,1]},{"rel_err":-1.5e-16,' ...
%!                          '"v":[null,null]},{"rel_err":3e-16,"v":[2,0.5]}]']);
%!   ## a whole result: a trace's smallest singular values, far below eps
%!   randn ("state", 7);
%!   [~, st] = muon_ns (randn (6, 2) * randn (2, 12), "Method", "gram", "Trace", true);
%!   assert (min (st.trace.sv_min) < 1e-16 && min (st.trace.sv_min) > 0);
%!   muon_export (st.trace, g);
%!   J = jsondecode (fileread (g));      # (Octave 7's jsondecode: 1 ulp off at times)
%!   assert (J.sv_min, st.trace.sv_min, -4 * eps);
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## int64 and uint64 past 2^53 with every digit, in CSV and JSON alike (double () would
%! ## write 2^53 + 1 as 2^53); a cell column too
%! a = [int64(2)^53 + 1; intmin("int64")];
%! u = [intmax("uint64"); uint64(7)];
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   muon_export (struct ("a", a, "u", u), f);
%!   assert (fileread (f), ["a,u\n9007199254740993,18446744073709551615\n" ...
%!                          "-9223372036854775808,7\n"]);
%!   muon_export (struct ("a", a, "u", u), g);
%!   assert (fileread (g), ['[{"a":9007199254740993,"u":18446744073709551615},' ...
%!                          '{"a":-9223372036854775808,"u":7}]']);
%!   muon_export (struct ("c", {{a(1); "x"}}, "n", [1; 2]), f);
%!   assert (fileread (f), "c,n\n9007199254740993,1\nx,2\n");
%!   muon_export (struct ("s", struct ("a", a)), g);
%!   assert (fileread (g), '{"s":{"a":[9007199254740993,-9223372036854775808]}}');
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## results inside a struct are written as their struct (), not their internals
%! C = zero_cost ({[8 8]}, 2, "Design", "zero12_allreduce");
%! [~, s] = muon_update (ones (2), []);
%! L = zero_layout ({[8 8], [4 8]}, 2);
%! g = [tempname() ".json"];
%! unwind_protect
%!   muon_export (struct ("plan", C, "state", s, "layout", L), g);
%!   J = jsondecode (fileread (g));
%!   assert (fieldnames (J.plan), fieldnames (struct (C)));
%!   assert (fieldnames (J.state), fieldnames (struct (s)));
%!   assert (fieldnames (J.layout), fieldnames (struct (L)));
%!   assert (J.state.momentum, s.momentum, -4 * eps);
%!   assert (J.plan.world, 2);
%!   assert (isempty (strfind (fileread (g), '"recs"')) && isempty (strfind (fileread (g), "Handle")));
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## a state made before `clear functions` (isa muon_result then false, isa muon_state
%! ## true) is written as its struct, alone, nested, and an optimizer's: the same bytes as
%! ## before the clear (it was "X is a muon_state, which JSON cannot hold"); in a child
%! ## Octave, as the clear unloads the MEX files and classes of this one
%! octave = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%! if (exist (octave, "file"))
%!   f = [tempname() ".json"];
%!   code = ["[~, s] = muon_update (reshape (sin (1:12), 4, 3), []); " ...
%!           "o = muon_optimizer (struct ('W', ones (4, 3))); m = struct (s).momentum; " ...
%!           "f = '" f "'; muon_export (s, f); t1 = fileread (f); " ...
%!           "muon_export (struct ('st', s, 'o', o), f); t2 = fileread (f); " ...
%!           "clear functions; r = isa (s, 'muon_result'); " ...
%!           "muon_export (s, f); J = jsondecode (fileread (f)); same1 = strcmp (fileread (f), t1); " ...
%!           "muon_export (struct ('st', s, 'o', o), f); same2 = strcmp (fileread (f), t2); " ...
%!           "printf ('result %d state %d same %d %d step %d m %d\\n', r, isa (s, 'muon_state'), " ...
%!           "same1, same2, J.step, isequal (J.momentum, m));"];
%!   unwind_protect
%!     [rc, out] = system (sprintf ("%s --no-gui --norc --silent --eval \"addpath ('%s', '%s'); %s\" 2>&1",
%!                                  octave, fileparts (which ("muon_export")),
%!                                  fileparts (which ("__muon_ns__")), code));
%!     assert (! isempty (strfind (out, "result 0 state 1 same 1 1 step 1 m 1")), out);
%!   unwind_protect_cleanup
%!     if (exist (f, "file"))
%!       unlink (f);
%!     endif
%!   end_unwind_protect
%! endif

%!test
%! ## strings as bytes: escaped quotes, backslashes and control characters, UTF-8 and bytes
%! ## that are no UTF-8 passed through
%! g = [tempname() ".json"];
%! unwind_protect
%!   muon_export (struct ("s", {{char([97 200 34 92]); "é\t\n"; char(1)}}), g);
%!   assert (fileread (g), ['[{"s":"a' char(200) '\"\\"},{"s":"é\t\n"},{"s":"\u0001"}]']);
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect

%!error <muon_export: X's column 'z' is complex; write its real and imaginary parts apart.> muon_export (struct ("z", [1+2i; 3]), [tempname() ".json"])
%!error <muon_export: X's column 'z' is complex; write its real and imaginary parts apart.> muon_export (struct ("z", [1+2i; 3]), [tempname() ".csv"])
%!error <muon_export: X's column 'c' is complex; write its real and imaginary parts apart.> muon_export (struct ("c", {{1+2i; 3}}, "n", [1; 2]), [tempname() ".csv"])
%!error <muon_export: X's column 'c' is complex; write its real and imaginary parts apart.> muon_export (struct ("c", {{1+2i; 3}}, "n", [1; 2]), [tempname() ".json"])
%!error <muon_export: X's column 'z' is complex; write its real and imaginary parts apart.> muon_export (struct ("z", {1i, 2}), [tempname() ".csv"])
%!error <muon_export: X.a.z is complex; write its real and imaginary parts apart.> muon_export (struct ("a", struct ("z", [1 2; 3 1i])), [tempname() ".json"])
%!error <muon_export: X.a\{2\} is a function_handle, which JSON cannot hold.> muon_export (struct ("a", {{1, @sin}}), [tempname() ".json"])
%!error <muon_export: X has a field with no name, which a CSV header cannot hold.> muon_export (setfield (struct ("b", 1), "", 2), [tempname() ".csv"])
%!test
%! ## a column of strings that would all read as numbers or empty is written quoted, and
%! ## comes back as the same text (it came back as numbers, "" as NaN); out again, the
%! ## same bytes
%! f = [tempname() ".csv"];
%! unwind_protect
%!   for v = {{"1"; "2"}, {"1"; ""}, {"-1.5"; "NaN"}, {"007"; "2"}, {""; ""}, {"1"; "x"}}
%!     muon_export (struct ("a", {v{1}}, "b", [1; 2]), f);
%!     txt = fileread (f);
%!     T = muon_import (f);
%!     assert (T.a, v{1});
%!     muon_export (T, f);
%!     assert (fileread (f), txt);
%!   endfor
%!   muon_export (struct ("a", {{"1"; ""}}), f);
%!   assert (fileread (f), "a\n\"1\"\n\n");
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect
%!error <muon_export: X's column 'b' is 2 x 0: it has no values to write.> muon_export (struct ("a", [1; 2], "b", zeros (2, 0)), [tempname() ".csv"])
%!error <muon_export: X's column 'b' is 2 x 0: it has no values to write.> muon_export (struct ("a", [1; 2], "b", zeros (2, 0)), [tempname() ".json"])
%!error <muon_export: the 't' table of X has a column 'n', which is a field of X too.> muon_export (struct ("n", {1, 2}, "t", {struct("n", [5; 6]), struct("n", [7; 8])}), [tempname() ".csv"], "Table", "t")

%!error <Invalid call> muon_export (1)
%!error <muon_export: FILE must end in .csv or .json \(got 'x.txt'\).> muon_export (struct ("a", 1), "x.txt")
%!error <muon_export: FILE must be a file name ending in .csv or .json.> muon_export (struct ("a", 1), 3)
%!error <muon_export: X is not a table \(a struct of equal-length columns, or a struct array of scalar fields\); write it as JSON, or pick a table with 'Table'\.> muon_export (struct ("a", [1 2 3], "b", [1; 2]), [tempname() ".csv"])
%!error <muon_export: X has no field 'ranks'.> muon_export (struct ("a", 1), [tempname() ".csv"], "Table", "ranks")
%!error <muon_export: field 'a' of X is not a table.> muon_export (struct ("a", {{1, [1 2; 3 4]}}), [tempname() ".csv"], "Table", "a")
%!error <muon_export: X's CSV header would repeat the column name 'v_1'.> muon_export (struct ("v", [1 2; 3 4], "v_1", [5; 6]), [tempname() ".csv"])
%!error <muon_export: cannot write '/nonexistent_dir/x\.csv': no such folder\.> muon_export (struct ("a", 1), "/nonexistent_dir/x.csv")
%!error <^muon_export: unknown option 'Foo'\. Options: .*\.$> muon_export (struct ("a", 1), "x.csv", "Foo", 1)
%!error id=muonlab:badArg muon_export (struct ("a", 1), "x.txt")

%!demo
%! ## a plan's per-rank table, as CSV and as JSON
%! C = zero_cost (muon_model ("llama-3.1-8b"), 8, "Design", {"zero12_allreduce", "layerwise_lpt"});
%! f = [tempname() ".csv"];
%! n = muon_export (C, f, "Table", "ranks");
%! printf ("%d rows; the first lines of %s:\n", n, f);
%! txt = strsplit (fileread (f), "\n");
%! printf ("  %s\n", txt{1:3});
%! unlink (f);
%! g = [tempname() ".json"];
%! muon_export (C(2).params, g);              # one object per matrix
%! J = jsondecode (fileread (g));
%! printf ("%d matrices; the first: %s\n", numel (J), jsonencode (J(1)));
%! unlink (g);
