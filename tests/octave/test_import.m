## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_import ()
## Suite (run with @code{test test_import}): @code{muon_import}'s JSON numbers, tables
## with [] rows and mixed split lengths, malformed and hostile files and its size limit
## (moved from inst/muon_import.m, which keeps its first tests).
## @end deftypefn

function test_import ()
  help test_import
endfunction

%!test
%! ## JSON numbers bit for bit, also where Octave 7's jsondecode reads them 1 ulp off (these
%! ## three), beside strings that hold digits, escaped quotes and backslashes
%! x = [1.1615161616437899e-62; 9.2951589074644489e+270; -2.9753440343423507e-213];
%! T = struct ("s", {{'a"b:5,'; 'c\'; "\"1e5\""}}, "x", x, "b", [true; false; true],
%!             "v", [x, -x]);
%! g = [tempname() ".json"];
%! unwind_protect
%!   muon_export (T, g);
%!   J = muon_import (g);
%!   assert (J.s, T.s);
%!   assert (J.b, T.b);
%!   assert (typecast (J.x, "uint64"), typecast (x, "uint64"));
%!   assert (typecast (J.v(:), "uint64"), typecast (T.v(:), "uint64"));
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## JSON: a column whose rows hold [] (a model's split, [] where a matrix is not fused) is
%! ## a cell of the values as written, and out again to the same bytes (it was a row of
%! ## NaN, written [null,null,null]; an all-[] column NaN, written null)
%! g = [tempname() ".json"];
%! unwind_protect
%!   fid = fopen (g, "w");
%!   fputs (fid, '[{"n":1,"c":[8,8,8],"e":[]},{"n":2,"c":[],"e":[]},{"n":3,"c":[1.5,-0.0,1e-300],"e":[]}]');
%!   fclose (fid);
%!   txt = fileread (g);
%!   T = muon_import (g);
%!   assert (T, struct ("n", [1; 2; 3], "c", {{[8 8 8]; []; [1.5 0 1e-300]}}, "e", {{[]; []; []}}));
%!   muon_export (T, g);
%!   assert (fileread (g), txt);
%!   ## rows of several lengths beside [] (a split with Fuse "all": 0, 2 and 3 entries) are a
%!   ## cell as well (it was the decoded 3 x 1 struct array); without [] they are no n x k
%!   ## column, and the file is returned as decoded
%!   fid = fopen (g, "w");
%!   fputs (fid, '[{"n":1,"c":[8,8,8]},{"n":2,"c":[]},{"n":3,"c":[4,-0.5]}]');
%!   fclose (fid);
%!   txt = fileread (g);
%!   T = muon_import (g);
%!   assert (T, struct ("n", [1; 2; 3], "c", {{[8 8 8]; []; [4 -0.5]}}));
%!   muon_export (T, g);
%!   assert (fileread (g), txt);
%!   fid = fopen (g, "w");
%!   fputs (fid, '[{"n":1,"c":[8,8,8]},{"n":2,"c":[4,-0.5]}]');
%!   fclose (fid);
%!   assert (size (muon_import (g)), [2 1]);
%!   for fuse = {"all", "qkv", "none"}
%!     M = muon_model ("llama-3.1-8b", "Fuse", fuse{1});
%!     muon_export (M, g, "Table", "params");
%!     txt = fileread (g);
%!     if (strcmp (fuse{1}, "all"))
%!       assert (unique (cellfun ("numel", M.params.split)).', [0 2 3]);
%!     endif
%!     T = muon_import (g);
%!     assert (size (T), [1 1]);
%!     assert (T.name, M.params.name);
%!     assert (T.rows, M.params.rows);
%!     assert (T.split, M.params.split);
%!     muon_export (T, g);
%!     assert (fileread (g), txt);
%!   endfor
%!   assert (T.split, repmat ({[]}, numel (M.params.name), 1));
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## the help's size of a 10^6-row params table as JSON against a measured one: a
%! ## DeepSeek-V3-style model with 4096 routed experts (12,000-odd rows) takes about 248
%! ## bytes a row (983,113 rows of 65536 experts took 246,915,738 bytes, 251 a row); the
%! ## help said 230 MB, 8% low
%! c = struct ("model_type", "deepseek_v3", "vocab_size", 129280, "hidden_size", 7168,
%!             "intermediate_size", 18432, "moe_intermediate_size", 2048,
%!             "num_hidden_layers", 2, "num_nextn_predict_layers", 0,
%!             "num_attention_heads", 128, "num_key_value_heads", 128, "n_shared_experts", 1,
%!             "n_routed_experts", 4096, "num_experts_per_tok", 8, "first_k_dense_replace", 1,
%!             "moe_layer_freq", 1, "q_lora_rank", 1536, "kv_lora_rank", 512,
%!             "qk_nope_head_dim", 128, "qk_rope_head_dim", 64, "v_head_dim", 128,
%!             "tie_word_embeddings", false);
%! g = [tempname() ".json"];
%! unwind_protect
%!   n = muon_export (muon_model (c), g, "Table", "params");
%!   s = dir (g);
%!   assert (n > 12000);
%!   mb = str2double (regexp (get_help_text ("muon_import"), '10\^6, about (\d+) MB as JSON',
%!                            "tokens", "once"));
%!   assert (abs (s.bytes / n - mb) / mb < 0.03,
%!           sprintf ("%.1f B/row, help: %d MB", s.bytes / n, mb));
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## UTF-8 text (characters of several bytes) beside numbers, out and back
%! T = struct ("s", {{"héllo ü"; "日本"; "5é"}}, "v", [1; 2.5; -3]);
%! f = [tempname() ".csv"];
%! unwind_protect
%!   muon_export (T, f);
%!   assert (muon_import (f), T);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

## the error that reading TXT from a file with extension EXT gives, its file name as FILE
%!function [id, msg] = import_error (txt, ext)
%!  f = [tempname() ext];
%!  unwind_protect
%!    fid = fopen (f, "w");
%!    fwrite (fid, txt);
%!    fclose (fid);
%!    try
%!      muon_import (f);
%!      id = "";
%!      msg = "no error";
%!    catch err
%!      id = err.identifier;
%!      msg = strrep (err.message, f, "FILE");
%!    end_try_catch
%!  unwind_protect_cleanup
%!    unlink (f);
%!  end_unwind_protect
%!endfunction

%!test
%! ## malformed files: errors that say what is wrong
%! bad = {"a\n\"x\n1\n2\n", ".csv", "muon_import: 'FILE' has a quoted field that is not closed."
%!        "a,b\n1,\"x", ".csv", "muon_import: 'FILE' has a quoted field that is not closed."
%!        "", ".csv", "muon_import: 'FILE' has no header line."
%!        "\n", ".csv", "muon_import: 'FILE' has no header line."
%!        "\r\n\r\n", ".csv", "muon_import: 'FILE' has no header line."
%!        "a,,b\n1,2,3\n", ".csv", "muon_import: the header of 'FILE' has a column with no name."
%!        "a,b\n1,2\n3\n", ".csv", "muon_import: 'FILE' has rows of different lengths."
%!        "", ".json", "muon_import: 'FILE' is no valid JSON (jsondecode: parse error at offset 1: The document is empty)."
%!        [repmat("[", 1, 10000), repmat("]", 1, 10000)], ".json", "muon_import: 'FILE' nests 10000 deep; at most 200 (the limit max_json_depth)."
%!        ["{\"x\": \"caf", char(233), "\", \"y\": ", repmat("[", 1, 300)], ".json", "muon_import: 'FILE' nests 301 deep; at most 200 (the limit max_json_depth)."
%!        "[{\"a\":1}", ".json", ""};
%! for i = 1:rows (bad)
%!   [id, msg] = import_error (bad{i,1}, bad{i,2});
%!   assert (id, "muonlab:badArg");
%!   if (! isempty (bad{i,3}))
%!     assert (msg, bad{i,3});
%!   endif
%! endfor
%! pre = "muon_import: 'FILE' is no valid JSON (jsondecode: parse error";
%! assert (strncmp (msg, pre, numel (pre)));

%!test
%! ## a UTF-8 byte-order mark is skipped; blank lines at the end are ignored where a row
%! ## has more than one field, and are a row of "" where it has one
%! bom = char ([239 187 191]);
%! f = [tempname() ".csv"];
%! g = [tempname() ".json"];
%! unwind_protect
%!   fid = fopen (f, "w");
%!   fwrite (fid, [bom "a,b\n1,x\n\r\n\n"]);
%!   fclose (fid);
%!   assert (muon_import (f), struct ("a", 1, "b", {{"x"}}));
%!   fid = fopen (g, "w");
%!   fwrite (fid, [bom '[{"a":1,"b":"x"}]']);
%!   fclose (fid);
%!   assert (muon_import (g), struct ("a", 1, "b", {{"x"}}));
%!   muon_export (struct ("a", {{"x"; ""}}), f);
%!   assert (fileread (f), "a\nx\n\n");
%!   assert (muon_import (f), struct ("a", {{"x"; ""}}));
%! unwind_protect_cleanup
%!   unlink (f);
%!   unlink (g);
%! end_unwind_protect

%!test
%! ## a header that repeats a name is refused (a column would be lost)
%! [id, msg] = import_error ("a,a\n1,2\n", ".csv");
%! assert (id, "muonlab:badArg");
%! assert (msg, "muon_import: the header of 'FILE' repeats the column name 'a'.");
%! assert ({import_error("v_1,v_2,v_1\n1,2,5\n", ".csv")}, {"muonlab:badArg"});
%!error <muon_import: cannot read '/nonexistent_dir/x.csv': no such file.> muon_import ("/nonexistent_dir/x.csv")
%!error <muon_import: cannot read '/tmp': it is a folder.> muon_import ("/tmp")
%!error <muon_import: cannot read '/dev/null': not a regular file \(a FIFO, a device or a socket\).> muon_import ("/dev/null")

%!test
%! ## a file over max_import_mib is refused before it is read (a sparse file of zeros:
%! ## read whole, it was Octave:bad-alloc, with many times its size in memory)
%! lim = __muon_lists__ ().limits.max_import_mib;
%! assert (lim, 256);
%! f = [tempname() ".csv"];
%! unwind_protect
%!   fid = fopen (f, "w");
%!   fputs (fid, "a\n1\n");
%!   fclose (fid);
%!   assert (system (sprintf ("truncate -s %d '%s'", lim * 2^20 + 1, f)), 0);
%!   t0 = tic ();
%!   try
%!     muon_import (f);
%!     err = struct ("identifier", "", "message", "no error");
%!   catch err
%!   end_try_catch
%!   assert ({err.identifier, err.message}, {"muonlab:badArg", sprintf("muon_import: '%s' is 268435457 bytes; at most 268435456 bytes (256 MiB) are read (the limit max_import_mib).", f)});
%!   assert (toc (t0) < 2);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## a null touching a number is no JSON ("null2"): refused; its tag and the number's read
%! ## as one index gave another element's value (12), or Octave's index error
%! f = [tempname() ".json"];
%! unwind_protect
%!   for t = {'{"a":[null2,3,4,5,6,7,8,9,10,11,12,13,14,15]}', '{"a":[1,null2]}', ...
%!            '{"a":[2null]}'}
%!     fid = fopen (f, "w");
%!     fputs (fid, t{1});
%!     fclose (fid);
%!     try
%!       muon_import (f);
%!       error ("no error");
%!     catch err
%!       assert (err.identifier, "muonlab:badArg");
%!       assert (! isempty (strfind (err.message, "is no valid JSON")), err.message);
%!     end_try_catch
%!   endfor
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

