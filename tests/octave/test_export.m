## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_export ()
## Suite (run with @code{test test_export}): what @code{muon_export} writes,
## @code{muon_import} reads back as it was.
## @itemize
## @item CSV: every double bit for bit (realmax, the subnormals, random bit patterns), where
## 16 digits turned realmax into a number past it that read back as NaN; a number past the
## largest double in a file reads as +-Inf, not NaN.
## @item JSON that is no table (a struct, nested, with cells and matrices): every double
## bit for bit, where @code{jsondecode} read about one in five 1 ulp off; out again to the
## same bytes.
## @item Strings whose bytes are no UTF-8: out to CSV and JSON and back as the same bytes,
## where both stopped on Octave's "invalid UTF-8" error.
## @end itemize
## @end deftypefn

function test_export ()
  help test_export
endfunction

## the doubles of the tests: the extremes, the subnormals, and random ones over the whole
## range, by exponent and by bit pattern
%!function x = awkward_doubles ()
%!  rand ("seed", 11);
%!  e = (rand (300, 1) - 0.5) .* 10 .^ (rand (300, 1) * 616 - 308);
%!  b = typecast (uint32 (floor (rand (600, 1) * 2^32)), "double");
%!  b = b(isfinite (b));
%!  x = [realmax; -realmax; realmin - eps(0); -(realmin - eps(0)); eps(0); realmin;
%!       1e-320; 0.1; 0.1 + 0.2; 1/3; 2^53 + 2; 1e300; e; b];
%!endfunction

%!function u = bits (x)
%!  u = typecast (double (x(:)), "uint64");
%!endfunction

%!test
%! ## CSV: every double bit for bit, an all-numeric table and one beside text; realmax in
%! ## the 17 digits that read back as it; out again to the same bytes
%! x = awkward_doubles ();
%! n = numel (x);
%! f = [tempname() ".csv"];
%! unwind_protect
%!   muon_export (struct ("x", x, "v", [-x, x / 3]), f);
%!   lines = strsplit (fileread (f), "\n");
%!   assert (lines{1}, "x,v_1,v_2");
%!   assert (strncmp (lines{2}, "1.7976931348623157e+308,-1.7976931348623157e+308,", 49));
%!   assert (strncmp (lines{4}, "2.225073858507201e-308,-2.225073858507201e-308,", 47));
%!   first = regexprep (lines(2:13), ',.*', "");     # the fewest digits that read back
%!   assert (first, {"1.7976931348623157e+308", "-1.7976931348623157e+308", ...
%!                   "2.225073858507201e-308", "-2.225073858507201e-308", ...
%!                   "4.94065645841247e-324", "2.2250738585072014e-308", ...
%!                   "9.99988867182683e-321", "0.1", "0.30000000000000004", ...
%!                   "0.3333333333333333", "9007199254740994", "1e+300"});
%!   T = muon_import (f);
%!   assert (bits (T.x), bits (x));
%!   assert (bits ([T.v_1, T.v_2]), bits ([-x, x / 3]));
%!   txt = fileread (f);
%!   muon_export (T, f);
%!   assert (fileread (f), txt);
%!   s = repmat ({"a,b"; "c"}, ceil (n / 2), 1)(1:n);
%!   muon_export (struct ("s", {s}, "x", x, "nf", repmat ([NaN; Inf; -Inf; -0], ceil (n / 4), 1)(1:n)), f);
%!   T = muon_import (f);
%!   assert (T.s, s);
%!   assert (bits (T.x), bits (x));
%!   assert (bits (T.nf(1:4)), bits ([NaN; Inf; -Inf; -0]));
%!   txt = fileread (f);
%!   muon_export (T, f);
%!   assert (fileread (f), txt);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## CSV: a number past the largest double reads as the infinity of its sign (as strtod
%! ## rounds it), not as NaN; one below the smallest subnormal as 0; by hand
%! f = [tempname() ".csv"];
%! unwind_protect
%!   fid = fopen (f, "w");
%!   fputs (fid, "a,b\n1e+999,1\n-1e+999,2\n1.797693134862316e+308,3\n-1.797693134862316e+308,4\n1e-999,5\nNaN,6\n,7\n1.7976931348623157e+308,8\n");
%!   fclose (fid);
%!   T = muon_import (f);
%!   assert (bits (T.a), bits ([Inf; -Inf; Inf; -Inf; 0; NaN; NaN; realmax]));
%!   assert (T.b, (1:8).');
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## JSON that is no table: every double bit for bit, in a struct's fields, nested, a
%! ## matrix, a cell, a struct array; out again to the same bytes
%! rand ("seed", 4);
%! S.a = rand (50, 1) * 1e-5;
%! S.name = "x";
%! x = awkward_doubles ();
%! S.in.deep.x = x;
%! S.in.m = reshape (x(1:40), 8, 5);
%! S.c = {x(5), "s", x(6:9)};
%! S.r = struct ("v", {x(10), x(11)}, "w", {"p", "q"});
%! g = [tempname() ".json"];
%! unwind_protect
%!   muon_export (S, g);
%!   J = muon_import (g);
%!   assert (bits (J.a), bits (S.a));
%!   assert (J.name, "x");
%!   assert (bits (J.in.deep.x), bits (x));
%!   assert (bits (J.in.m), bits (S.in.m));
%!   assert (size (J.in.m), [8 5]);
%!   assert (bits (J.c{1}), bits (x(5)));
%!   assert (J.c{2}, "s");
%!   assert (bits (J.c{3}), bits (x(6:9)));
%!   assert (bits ([J.r.v]), bits (x(10:11)));
%!   assert ({J.r.w}, {"p", "q"});
%!   txt = fileread (g);
%!   muon_export (J, g);
%!   assert (fileread (g), txt);
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## JSON by hand, numbers jsondecode reads 1 ulp off where they land: a struct's fields,
%! ## nested, a matrix, an N-d array, a cell, a struct array; NaN, -Infinity as jsondecode
%! ## reads them, null as NaN also where it is an object's member (jsondecode: []), the
%! ## NaN that jsonencode wrote; -0 and -0.0 as -0; a string that holds digits and escapes
%! x = [1.1615161616437899e-62, 9.2951589074644489e+270, -2.9753440343423507e-213];
%! s = sprintf ("%.17g,", x)(1:end-1);
%! txt = ['{"a":' sprintf("%.17g", x(1)) ',"s":"1,2\"3\\","b":{"c":[' s ']},' ...
%!        '"m":[[' s '],[' s ']],"k":[[[1,2],[3,4]],[[5,6],[7,' sprintf("%.17g", x(2)) ']]],' ...
%!        '"e":[[' s '],"x",[[' s ']]],"r":[{"v":' s(1:find(s == ",", 1)-1) '},{"v":[1,2]}],' ...
%!        '"n":[null,' s ',NaN,-Infinity],"z":null,"o":[],"neg":[-0,-0.0]}'];
%! g = [tempname() ".json"];
%! unwind_protect
%!   fid = fopen (g, "w");
%!   fputs (fid, txt);
%!   fclose (fid);
%!   D = muon_import (g);
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect
%! J = jsondecode (txt, "makeValidName", false);
%! assert (fieldnames (D), fieldnames (J));
%! assert (bits (D.a), bits (x(1)));
%! assert (D.s, '1,2"3\');
%! assert (bits (D.b.c), bits (x));
%! assert (bits (D.m), bits ([x; x]));
%! assert (size (D.k), [2 2 2]);
%! assert ([D.k(1,2,1), D.k(2,2,1)], [3, 7]);
%! assert (bits (D.k(2,2,2)), bits (x(2)));
%! assert (bits (D.e{1}), bits (x));
%! assert (D.e{2}, "x");
%! assert (bits (D.e{3}), bits (x));
%! assert (bits (D.r(1).v), bits (x(1)));
%! assert (D.r(2).v, [1; 2]);
%! assert (bits (D.n), bits ([NaN, x, NaN, -Inf]));
%! assert (D.z, NaN);
%! assert (J.z, []);
%! assert (D.o, []);
%! assert (1 ./ D.neg, [-Inf; -Inf]);
%! assert (nnz (bits (J.b.c) != bits (x)) > 0);     # (what jsondecode alone reads)

%!test
%! ## NUL characters in strings (jsondecode cuts a string at \u0000) and NaN members of
%! ## nested structs and struct arrays (jsondecode: []) come back as written, and writing
%! ## what was read gives the same bytes
%! T.s = {char([0 65]); char([255 254 0 1]); 'a\u0000b'; char([92 0 0 92])};
%! X = struct ("a", NaN, "d", struct ("e", NaN), "t", struct ("x", {1, 2}, "y", {NaN, 3}),
%!             "c", {{NaN, "x"}});
%! f = {[tempname() ".json"], [tempname() ".json"]};
%! unwind_protect
%!   for v = {T, X}
%!     muon_export (v{1}, f{1});
%!     I = muon_import (f{1});
%!     muon_export (I, f{2});
%!     assert (fileread (f{2}), fileread (f{1}));
%!   endfor
%!   assert (isequaln ({I.a, I.d.e, [I.t.y], I.c{1}}, {NaN, NaN, [NaN 3], NaN}));
%!   muon_export (T, f{1});
%!   assert (muon_import (f{1}).s, T.s);
%! unwind_protect_cleanup
%!   cellfun (@(g) exist (g, "file") && unlink (g), f);
%! end_unwind_protect

%!test
%! ## JSON errors as jsondecode's, for the text as given
%! g = [tempname() ".json"];
%! unwind_protect
%!   bad = {"[1,2", "[01]", "[1e999]", "{\"a\":-}"};
%!   msgs = cell (size (bad));
%!   for t = bad
%!     fid = fopen (g, "w");
%!     fputs (fid, t{1});
%!     fclose (fid);
%!     try
%!       muon_import (g);
%!       msg = "no error";
%!     catch err
%!       assert (err.identifier, "muonlab:badArg");
%!       msg = err.message;
%!     end_try_catch
%!     assert (regexp (msg, '^muon_import: .* is no valid JSON \(jsondecode: parse error at offset \d+: .*[^.]\)\.$', "once"), 1, t{1});
%!     msgs(strcmp (bad, t{1})) = {msg};
%!   endfor
%!   assert (! isempty (strfind (msgs{3}, "parse error at offset 2: Number too big to be stored in double)")));
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## strings whose bytes are no UTF-8 (Latin-1 é, a lone 200) beside UTF-8 ones, quoted
%! ## where they hold a comma or a quote: out to CSV and JSON, back as the same bytes, out
%! ## again to the same bytes
%! T.s = {["caf" char(233)]; ["a," char(200) '"q"']; "日本"; ""; char([255 10 254])};
%! T.x = [1; 2.5; -3; 0.1; realmax];
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   muon_export (T, f);
%!   assert (fileread (f), ["s,x\ncaf" char(233) ",1\n\"a," char(200) '""q"""' ",2.5\n" ...
%!                          "日本,-3\n,0.1\n\"" char([255 10 254]) "\",1.7976931348623157e+308\n"]);
%!   assert (muon_import (f), T);
%!   muon_export (T, g);
%!   assert (muon_import (g), T);
%!   txt = fileread (g);
%!   muon_export (muon_import (g), g);
%!   assert (fileread (g), txt);
%!   S = struct ("o", struct ("s", ["caf" char(233)], "v", 0.1));   # no table
%!   muon_export (S, g);
%!   assert (muon_import (g), S);
%!   muon_export (struct ("h", {{["caf" char(233) ","]; "b"}}), f);  # one text column
%!   assert (muon_import (f), struct ("h", {{["caf" char(233) ","]; "b"}}));
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## quotes in strings: each doubled in the CSV file and read back one for one (Octave's
%! ## strrep replaces overlapping pairs: four quotes came back as three)
%! c = {"say \"\"hi\"\""; "\"\""; "\""; "x\"\"y"; "\"\"\"\""; "a,\"b\"\n"; "ok"};
%! f = [tempname(), ".csv"];
%! unwind_protect
%!   muon_export (struct ("s", {c}), f);
%!   txt = fileread (f);
%!   assert (! isempty (strfind (txt, "\"say \"\"\"\"hi\"\"\"\"\"")));
%!   R = muon_import (f);
%!   assert (R.s, c);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## struct arrays and cells are written a field at a time (a model's 45,868 parameters
%! ## took minutes a value at a time): the same layout as Octave's jsonencode for values it
%! ## writes exactly (small integers, halves, strings), field by field and element by
%! ## element: scalars, rows, columns, matrices, empties of any shape, mixed classes in one
%! ## field, logicals, integers, strings with escapes, nested structs and cells
%! s = struct ("a", {1, 2.5, -3, 4, 0.5}, ...
%!             "b", {"x", "", "q\"z", ["a" char(9) "b"], "\\"}, ...
%!             "c", {int8(3), int8(-4), int8(5), int8(0), int8(1)}, ...
%!             "d", {true, false, true, true, false}, ...
%!             "e", {[1 2], [], {}, struct("z", 1), "w"}, ...
%!             "f", {1, int8(2), true, 7, 3}, ...
%!             "g", {[1;2], 2, [1 2; 3 4], zeros(0, 3), [5 6 7]}, ...
%!             "h", {[1 2; 3 4; 5 6], [1 2], ones(2, 2), zeros(1, 0), 9}, ...
%!             "k", {{1, "a"}, {}, {[1 2]}, {struct("y", {1, 2})}, {{}}});
%! X = struct ("s", s, "m", {reshape(s(1:4), 2, 2)}, "c", {{1, 2; 3, 4}}, ...
%!             "cs", {{"a", "b\"c", ""}}, "cm", {{[1 2; 3 4], [5 6], 7, []}});
%! f = [tempname() ".json"];
%! unwind_protect
%!   muon_export (X, f);
%!   assert (fileread (f), jsonencode (X));
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

## the tables of results (moved from inst/muon_export.m)
%!test
%! ## the per-rank table of a ZeRO step: a row per rank, its counters, not its update
%! L = zero_layout ({[8 8], [8 8], [4 8]}, 3);
%! R = zero_muon_step (L, repmat ({ones(8), ones(8), ones(4, 8)}, 3, 1), []);
%! f = [tempname() ".csv"];
%! unwind_protect
%!   assert (muon_export (R, f, "Table", "ranks"), 3);
%!   T = muon_import (f);
%!   assert (T.rank, [R.ranks.rank].');
%!   assert (T.ns_calls, [R.ranks.ns_calls].');
%!   assert (T.bytes_sent, [R.ranks.bytes_sent].');
%!   assert ([T.calls_1, T.calls_2], vertcat (R.ranks.calls)(:,1:2));
%!   assert (! isfield (T, "update") && ! isfield (T, "update_1"));
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## a zero_cost result of one design is led by its fields as one of several designs is
%! ## (the same columns; its rows those of that design); a scalar struct (a plain one, as
%! ## struct (C(1)) is) has its table written alone
%! sh = {[8 8], [4 8]};
%! C2 = zero_cost (sh, 2, "Design", {"zero12_allreduce", "layerwise_lpt"});
%! C1 = zero_cost (sh, 2, "Design", "zero12_allreduce");
%! f = [tempname() ".csv"];
%! g = [tempname() ".csv"];
%! unwind_protect
%!   assert (muon_export (C2, f, "Table", "ranks"), 4);
%!   assert (muon_export (C1, g, "Table", "ranks"), 2);
%!   a = strsplit (strtrim (fileread (f)), "\n");
%!   b = strsplit (strtrim (fileread (g)), "\n");
%!   assert (strncmp (b{1}, "design,world,", 13));
%!   assert (b, a(1:3));                    # the header and design 1's two ranks
%!   assert (muon_export (C2(1), g, "Table", "ranks"), 2);
%!   assert (strsplit (strtrim (fileread (g)), "\n"), a(1:3));
%!   T = muon_import (g);
%!   assert (T.design, {"zero12_allreduce"; "zero12_allreduce"});
%!   assert (T.world, [2; 2]);
%!   assert (T.rank, [0; 1]);
%!   muon_export (struct (C1), g, "Table", "ranks");
%!   c = strsplit (strtrim (fileread (g)), "\n");
%!   assert (c{1}, regexprep (a{1}, '^.*?,rank,', 'rank,'));
%!   ## a plain scalar struct: its table alone, a column named as one of its fields is
%!   ## no clash (the field is not written)
%!   assert (muon_export (struct ("n", 1, "t", struct ("n", [5; 6])), g, "Table", "t"), 2);
%!   assert (fileread (g), "n\n5\n6\n");
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect
