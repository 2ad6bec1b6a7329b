## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {muonlab} {} muon_save_state (@var{file}, @var{opt})
## Save the optimizer state @var{opt} (from @code{muon_optimizer} / @code{muon_step}) to
## @var{file}, a checksummed muonlab checkpoint (format version 2).
##
## The whole state is saved: routing, options, learning rates, Muon momenta, AdamW
## moments and step counts, pending gradient-accumulation buffers and the loss-scaler
## state.  Every array is stored exactly, so loading it with @code{muon_load_state} and
## taking a step gives the same bits as taking the step without the round trip, and the
## same state gives the same file bytes.  @var{opt} is checked first, as
## @code{muon_load_state} checks it (a @code{muonlab:badState} error names the first
## field out of its domain; the values of a device-resident state are gathered and checked
## too), so a saved file always loads.  The file is written under a
## temporary name beside @var{file} and renamed over it once its size on disk is checked,
## so an interrupted save or a full disk (a @code{muonlab:badArg} @qcode{"cannot write"}
## error) leaves the previous file whole (a process killed while writing, by SIGKILL or
## SIGTERM, also leaves the call's folder @file{.muonlab-@var{pid}-*} beside it, to
## delete).  As with Octave's @code{save}, an existing @var{file} keeps its read and
## write permissions (a checkpoint made private with @code{chmod 600} stays 0600; a new
## file gets the umask's), and one the user could not write in place, e.g. a 0444 file of
## a user who is not root, is not replaced: a @code{muonlab:badArg} error
## @qcode{"cannot write '@var{file}': Permission denied."}, the file left as it was.
##
## @strong{File layout} (all integers little-endian), for reading it from another tool:
## @example
## offset  size  field
##      0     8  magic "MUONCKPT" (ASCII)
##      8     4  format version, uint32 (2)
##     12     4  reserved, zero
##     16     8  payload length N, uint64
##     24    40  kind, ASCII padded with NUL bytes: "muon_optimizer"
##     64     N  payload: a MAT-file version 5 (uncompressed, Octave's save -v6)
##               holding one variable, "payload": the struct OPT
##   64+N    32  SHA-256 of bytes 0 .. 64+N-1 (header and payload), raw bytes
## @end example
## The file is exactly 96 + N bytes.  In Python (numpy, scipy):
## @example
## import hashlib, io, struct, scipy.io
## data = open ("state.ckpt", "rb").read ()
## magic, version, reserved, n = struct.unpack_from ("<8sIIQ", data)
## kind = data[24:64].rstrip (b"\0").decode ()
## assert magic == b"MUONCKPT" and version == 2 and len (data) == 96 + n
## assert hashlib.sha256 (data[:64 + n]).digest () == data[64 + n:]
## opt = scipy.io.loadmat (io.BytesIO (data[64:64 + n]), squeeze_me = False,
##                         struct_as_record = False)["payload"][0, 0]
## opt.muon[0, 0].W[0, 0].momentum     # a numpy array, the shape of W: 1 x 8 is (1, 8)
## opt.adam[0, 0].b[0, 0].m            # AdamW's m of b (a scalar b: (1, 1))
## @end example
## Each struct is read as a 1 x 1 array of structs, hence the @code{[0, 0]}.
## @code{simplify_cells = True} gives nested dicts instead, but implies @code{squeeze_me =
## True}: singleton dimensions are dropped (a 1 x 8 momentum is (8,), a scalar's m a
## Python float), so reshape each with its parameter's size from @code{opt["shapes"]}
## (@code{opt["names"]} in the same order).
##
## Version 1 files (Octave's binary format, no checksum) are no longer read.
##
## @seealso{muon_load_state, muon_optimizer, muon_step}
## @end deftypefn

function muon_save_state (file, opt)
  if (nargin != 2)
    print_usage ();
  endif
  opt = state_plain (opt);
  fname = "muon_save_state";
  if (! (ischar (file) && isrow (file)))
    error ("muonlab:badArg", "%s: FILE must be a file name.", fname);
  endif
  if (! (isstruct (opt) && isscalar (opt) && isfield (opt, "type")
         && strcmp (opt.type, "muonlab.optimizer")))
    error ("muonlab:badArg", "%s: OPT must be an optimizer state made by muon_optimizer.",
           fname);
  endif
  msg = opt_check_state (opt, "full");    # the layout (device values are not read here)
  if (isempty (msg))
    ## gathered (device moments, a window's device gradients), the values are checked
    ## as muon_load_state checks them
    opt = opt_state_device (fname, opt, "");
    msg = opt_check_state (opt, "full");
  endif
  if (! isempty (msg))
    error ("muonlab:badState", "%s: %s.", fname, msg);
  endif
  state_write (fname, file, "muon_optimizer", opt);
endfunction

%!demo
%! ## the checkpoint file: a header, a MAT-file payload and its SHA-256
%! P = struct ("W", reshape (sin (1:128), 8, 16));
%! opt = muon_optimizer (P);
%! f = [tempname() ".ckpt"];
%! muon_save_state (f, opt);
%! fid = fopen (f, "r");
%! magic = char (fread (fid, 8, "uint8=>char").')
%! fclose (fid);
%! d = dir (f);
%! printf ("%d bytes\n", d.bytes);
%! delete (f);

%!test
%! P = struct ("W", randn (4, 3), "b", randn (4, 1));
%! opt = muon_optimizer (P);
%! f = [tempname() ".ckpt"];
%! unwind_protect
%!   muon_save_state (f, opt);
%!   fid = fopen (f, "r");
%!   b = fread (fid, Inf, "uint8=>uint8").';
%!   fclose (fid);
%!   assert (char (b(1:8)), "MUONCKPT");
%!   assert (typecast (b(9:12), "uint32"), uint32 (2));
%!   n = double (typecast (b(17:24), "uint64"));
%!   assert (numel (b), 96 + n);
%!   assert (char (b(25:38)), "muon_optimizer");
%!   assert (all (b(39:64) == 0));
%!   h = hash ("sha256", char (b(1:64+n)));
%!   assert (b(end-31:end), uint8 (hex2dec (reshape (h, 2, []).')).');
%!   ## the payload is a MAT-file holding OPT
%!   g = [tempname() ".mat"];
%!   fid = fopen (g, "w");
%!   fwrite (fid, b(65:64+n));
%!   fclose (fid);
%!   S = load (g);
%!   unlink (g);
%!   assert (isequal (S.payload, opt));
%!   ## the same state gives the same bytes
%!   muon_save_state (f, opt);
%!   fid = fopen (f, "r");
%!   assert (fread (fid, Inf, "uint8=>uint8").', b);
%!   fclose (fid);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!error <Invalid call> muon_save_state ("x")
%!error <muon_save_state: FILE must be a file name.> muon_save_state (1, struct ())
%!error <muon_save_state: OPT must be an optimizer state made by muon_optimizer.> muon_save_state ("x", struct ())
%!error <muon_save_state: OPT must be an optimizer state made by muon_optimizer\.> muon_save_state ("x", 1)
%!error id=muonlab:badArg muon_save_state ("x", 1)
%!error <muon_save_state: OPT.adam.b.v must not be negative.> muon_save_state ("x", setfield (muon_optimizer (struct ("b", ones (3, 1))), "adam", struct ("b", struct ("m", zeros (3, 1), "v", -ones (3, 1), "step", 1))))
%!error <muon_save_state: OPT.step must be a non-negative integer.> muon_save_state ("x", setfield (muon_optimizer (struct ("b", ones (3, 1))), "step", -1))
%!error <muon_save_state: OPT\.step must be a non-negative integer\.> muon_save_state ("x", setfield (muon_optimizer (struct ("b", ones (3, 1))), "step", NaN))
%!error id=muonlab:badState muon_save_state ("x", setfield (muon_optimizer (struct ("b", ones (3, 1))), "step", NaN))
%!error <muon_save_state: cannot write 'no_such_dir/x\.ckpt': no such folder\.> muon_save_state ("no_such_dir/x.ckpt", muon_optimizer (struct ("b", ones (3, 1))))

%!test
%! ## a re-save keeps the existing file's permissions, whatever the umask (Octave's save
%! ## writes in place and keeps them): 0600 under a umask of 022, 0640 under 077; a new
%! ## file gets the umask's; the caller's umask is left as it was
%! opt = muon_optimizer (struct ("W", randn (4, 3)));
%! d = tempname ();
%! mkdir (d);
%! u = umask (22);
%! unwind_protect
%!   perm = @(f) bitand (stat (f).mode, 511);
%!   f = fullfile (d, "a.ckpt");
%!   umask (77);
%!   muon_save_state (f, opt);
%!   assert (perm (f), 384);             # 0600, made under umask 077
%!   umask (22);
%!   muon_save_state (f, opt);
%!   assert (perm (f), 384);             # (before: 0644, the umask's)
%!   assert (umask (22), 22);
%!   g = fullfile (d, "b.ckpt");
%!   umask (27);
%!   muon_save_state (g, opt);
%!   assert (perm (g), 416);             # 0640
%!   umask (77);
%!   muon_save_state (g, opt);
%!   assert (perm (g), 416);
%!   assert (umask (77), 77);
%!   assert (numel (dir (d)), 4);        # ".", "..", a.ckpt, b.ckpt: no temporaries
%! unwind_protect_cleanup
%!   umask (u);
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## a write-protected (0444) file: root may write it in place, so it is replaced and stays
%! ## 0444; any other user gets Octave's save's refusal and the file is left as it was
%! ## (test_checkpoint runs this case as a user who is not root)
%! opt = muon_optimizer (struct ("W", randn (4, 3)));
%! f = [tempname() ".ckpt"];
%! u = umask (22);
%! unwind_protect
%!   muon_save_state (f, opt);
%!   b = fileread (f);
%!   unlink (f);
%!   umask (333);                        # (a 0444 copy: the save's own folder needs 0700)
%!   fid = fopen (f, "w");
%!   fwrite (fid, b);
%!   fclose (fid);
%!   umask (22);
%!   assert (bitand (stat (f).mode, 511), 292);    # 0444
%!   [~, opt2] = muon_step (opt, struct ("W", zeros (4, 3)), struct ("W", ones (4, 3)));
%!   if (geteuid () == 0)
%!     muon_save_state (f, opt2);
%!     assert (! strcmp (fileread (f), b));
%!     assert (bitand (stat (f).mode, 511), 292);
%!   else
%!     try
%!       muon_save_state (f, opt2);
%!       error ("the save did not fail");
%!     catch err
%!       assert (err.identifier, "muonlab:badArg");
%!       assert (err.message,
%!               sprintf ("muon_save_state: cannot write '%s': Permission denied.", f));
%!     end_try_catch
%!     assert (fileread (f), b);
%!   endif
%! unwind_protect_cleanup
%!   umask (u);
%!   if (exist (f, "file"))
%!     unlink (f);
%!   endif
%! end_unwind_protect

%!test
%! ## the help's Python recipe, as written there, on a 1 x 8 W (Muon) and a scalar b
%! ## (AdamW): the momentum has W's shape (1, 8) and b's m (1, 1), the momentum's values
%! ## those of the state bit for bit (simplify_cells squeezed them to (8,) and a float).
%! ## Run where a Python with scipy is found (MUON_PYTHON, else python3), else skipped
%! py = getenv ("MUON_PYTHON");
%! if (isempty (py))
%!   py = "python3";
%! endif
%! if (system (sprintf ("%s -c 'import scipy.io' > /dev/null 2>&1", py)) == 0)
%!   txt = fileread (which ("muon_save_state"));
%!   code = regexp (txt, '## @example\n(## [^\n]*\n)*?(?=## @end example\n)', "match");
%!   code = code{! cellfun ("isempty", strfind (code, "scipy.io.loadmat"))};
%!   code = regexprep (code, '^## ?(@example)?', "", "lineanchors");
%!   P = struct ("W", reshape (1:8, 1, 8), "b", 5);
%!   o = muon_optimizer (P, "Route", struct ("W", "muon"));
%!   [~, o] = muon_step (o, P, struct ("W", reshape (sin (1:8), 1, 8), "b", 0.5));
%!   d = tempname ();
%!   mkdir (d);
%!   unwind_protect
%!     f = fullfile (d, "state.ckpt");
%!     muon_save_state (f, o);
%!     fid = fopen (fullfile (d, "recipe.py"), "w");
%!     fputs (fid, [strrep(code, '"state.ckpt"', ['"' f '"']) ...
%!                  "W = opt.muon[0, 0].W[0, 0].momentum\n" ...
%!                  "print (W.shape, opt.adam[0, 0].b[0, 0].m.shape)\n" ...
%!                  "print (' '.join (repr (float (x)) for x in W.ravel (order = 'F')))\n"]);
%!     fclose (fid);
%!     [rc, out] = system (sprintf ("%s '%s' 2>&1", py, fullfile (d, "recipe.py")));
%!     assert (rc == 0, "exit %d: %s", rc, out);
%!     out = strsplit (strtrim (out), "\n");
%!     assert (out{1}, "(1, 8) (1, 1)");
%!     assert (str2double (strsplit (out{2}, " ")), o.muon.W.momentum);
%!   unwind_protect_cleanup
%!     confirm_recursive_rmdir (false, "local");
%!     rmdir (d, "s");
%!   end_unwind_protect
%! endif
