## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{opt} =} muon_load_state (@var{file}, @var{params})
## @deftypefnx {muonlab} {@var{opt} =} muon_load_state (@var{file}, @var{params}, "StatePrecision", @var{prec})
## @deftypefnx {muonlab} {@var{opt} =} muon_load_state (@dots{}, "Device", @var{device})
## Load an optimizer state saved by @code{muon_save_state}.
##
## The file is checked before anything is returned, and any failure is a
## @code{muonlab:badState} error, never a different state (a file that cannot be read at
## all, missing, a folder or not a regular file, is a @code{muonlab:badArg} error, and so
## is finding no folder for the temporary copy of its payload that Octave's @code{load}
## reads: @env{TMPDIR}, else @code{P_tmpdir}, then the file's folder, then @file{/tmp},
## the first that takes it whole):
## @enumerate
## @item the container (layout in @code{muon_save_state}): the magic, the format version
## (2; version 1 files, Octave's binary format without a checksum, are refused with a
## message saying how to convert one you trust), the length, the SHA-256 checksum over
## header and payload (a corrupt or truncated file), the kind (an optimizer state), and
## the MAT-file payload walked element by element before Octave's @code{load} reads it.
## The checksum detects corruption, not tampering: it is unkeyed, so anyone can change a
## file and reseal it; a crafted file is still a clean error (or, when every value is in
## its domain, a state), never a crash or a hang.  Only a regular file of at most 64 GiB
## (the limit @code{max_checkpoint_mib}) is opened;
## @item the domain of every value: the set of fields, the class and shape of every
## array, no NaN or Inf in the Muon momenta (except under @qcode{"PoisonMomentum"},
## which makes them so on purpose), the AdamW moments or any setting, AdamW second
## moments @code{v >= 0}, counters non-negative integers (@code{micro} below the
## accumulation steps), routing consistent with the shapes, the @code{muon_update}
## options of each Muon parameter valid (parsed as @code{muon_update} parses them),
## each momentum's form that of its options, and each Muon-family state of its options'
## algorithm, its buffer (NorMuon's or AdaMuon's V, Dion's Q, NAMO's v) of the size and
## class that @code{muon_update} requires (see its help);
## @item @var{params}, the struct of parameters the state is for: it must have the saved
## parameter names, sizes and classes (double or single).
## @end enumerate
## Gradient-accumulation buffers may hold NaN or Inf: an overflowing micro-batch waits
## there for the skip at the end of its window.
##
## Options (names are case-insensitive):
## @table @asis
## @item "StatePrecision"
## @qcode{"keep"} (default: the saved bits), @qcode{"double"},
## @qcode{"single"}, @qcode{"bf16"} or @qcode{"fp16"} rounds each optimizer buffer (every
## Muon momentum and Muon-family buffer, every AdamW @code{m} and @code{v}) once, from the
## stored value, to nearest-even (bf16/fp16 with subnormals, overflow to Inf): the correctly
## rounded value, as @code{muon_round} gives it.  torch's @code{.to (torch.bfloat16)} (or
## @code{float16}) of a float64 buffer rounds twice, through float32, and can differ near
## a tie: 1 + 2^-8 + 2^-40 is 1.0078125 here and 1.0 in torch, and 65519.999 in fp16 is
## 65504 here and Inf in torch (a single buffer rounds the same in both).
## The buffers keep their class and hold the rounded values; later steps compute in the
## class as before.  (An fp16 @code{v} flushes squared gradients under 6e-8 to zero.)  A
## buffer that overflows in the chosen precision is a @code{muonlab:badState} error.
## @item "Device"
## @qcode{"host"} (default) keeps the state in host arrays; @qcode{"cuda"} copies the
## Muon momenta and the AdamW moments to the CUDA device (device arrays, as
## @code{muon_optimizer}'s @qcode{"Resident"} keeps them), @qcode{"cpu"} to the CPU
## stand-in device.  Checkpoints always hold host arrays: @code{muon_save_state} gathers.
## A state whose Muon parameters run another algorithm, @qcode{"NormScale"} or
## @qcode{"EpsPlacement"} than the device's (given or set by a @qcode{"Preset"}; see
## @code{muon_optimizer}'s @qcode{"Resident"}) is a @code{muonlab:unsupported} error.
## @end table
##
## @seealso{muon_save_state, muon_optimizer, muon_step}
## @end deftypefn

function opt = muon_load_state (file, params, varargin)
  if (nargin < 2)
    print_usage ();
  endif
  fname = "muon_load_state";
  if (! (ischar (file) && isrow (file)))
    error ("muonlab:badArg", "%s: FILE must be a file name.", fname);
  endif
  o = parse_options (fname, "muon_load_state", varargin);
  prec = o.state_precision;
  opt_check_tree (fname, "PARAMS", params, {}, {}, false);

  opt = state_read (fname, file, "muon_optimizer");
  if (isstruct (opt) && isscalar (opt) && isfield (opt, "scaler"))
    opt.scaler = opt_scaler_upgrade (opt.scaler);   # an older muonlab's: no hysteresis
  endif
  msg = opt_check_state (opt, "full");
  if (! isempty (msg))
    error ("muonlab:badState", "%s: '%s' holds an invalid state: %s.", fname, file, msg);
  endif

  ## the parameter set must be the saved one
  names = fieldnames (params);
  missing = setdiff (opt.names, names);
  extra = setdiff (names, opt.names);
  if (! isempty (missing))
    error ("muonlab:badState", "%s: PARAMS lacks the saved parameter '%s'.", fname,
           missing{1});
  elseif (! isempty (extra))
    error ("muonlab:badState", "%s: PARAMS has '%s', which the saved state does not.",
           fname, extra{1});
  endif
  for i = 1:numel (opt.names)
    n = opt.names{i};
    x = params.(n);
    if (! isequal (size (x), opt.shapes{i}))
      error ("muonlab:badState", "%s: PARAMS.%s is %s but the saved state is for %s.",
             fname, n, dims (size (x)), dims (opt.shapes{i}));
    endif
    cls = class (x);
    if (isa (x, "muon_gpuarray"))
      cls = x.Storage;
    endif
    if (! strcmp (cls, opt.classes{i}))
      error ("muonlab:badState", "%s: PARAMS.%s is %s but the saved state is for %s.",
             fname, n, cls, opt.classes{i});
    endif
  endfor

  if (! strcmp (prec, "keep"))
    opt = opt_map_state (opt, @(x, ~) muon_round (x, prec), false);
    for i = 1:numel (opt.names)          # the Muon family's own buffers too (NorMuon's V,
      n = opt.names{i};                  # AdaMuon's moment, Dion's Q, NAMO's v)
      if (isfield (opt.muon, n) && isstruct (opt.muon.(n)) && isfield (opt.muon.(n), "family")
          && isstruct (opt.muon.(n).family) && isfield (opt.muon.(n).family, "buffer")
          && isfloat (opt.muon.(n).family.buffer))
        opt.muon.(n).family.buffer = muon_round (opt.muon.(n).family.buffer, prec);
      endif
    endfor
    msg = opt_check_state (opt, "step");
    if (! isempty (msg))
      error ("muonlab:badState", "%s: in STATEPRECISION '%s', %s.", fname, prec, msg);
    endif
  endif
  if (! strcmp (o.device, "host"))       # the state on the device, as Resident keeps it
    opt_device_algorithms (fname, opt);
    opt = opt_state_device (fname, opt, o.device);
  endif
  opt = muon_state ("optimizer", opt);
endfunction

function s = dims (sz)
  s = strjoin (arrayfun (@num2str, sz, "UniformOutput", false), " x ");
endfunction

%!demo
%! ## save an optimizer after a step, load it back, and check the next steps agree
%! P = struct ("W", reshape (sin (1:128), 8, 16), "b", ones (8, 1));
%! G = struct ("W", reshape (cos (1:128), 8, 16), "b", 0.1 * ones (8, 1));
%! opt = muon_optimizer (P, "LR", 0.02);
%! [P, opt] = muon_step (opt, P, G);
%! f = [tempname() ".ckpt"];
%! muon_save_state (f, opt);
%! opt2 = muon_load_state (f, P);
%! delete (f);
%! P1 = muon_step (opt, P, G);
%! P2 = muon_step (opt2, P, G);
%! printf ("next step after the reload identical: %d\n", isequal (P1, P2));

%!function b = file_bytes (file)
%!  fid = fopen (file, "r");
%!  b = fread (fid, Inf, "uint8=>uint8").';
%!  fclose (fid);

%!function put_bytes (file, b)
%!  fid = fopen (file, "w");
%!  fwrite (fid, b);
%!  fclose (fid);

%!shared P, f, g, opt
%! randn ("state", 4);
%! P = struct ("W", randn (4, 3), "b", randn (4, 1));
%! f = [tempname() ".ckpt"];
%! g = [tempname() ".ckpt"];
%! opt = muon_optimizer (P);
%! opt = struct (nthargout (2, @muon_step, opt, P, struct ("W", randn (4, 3), "b", randn (4, 1))));
%! muon_save_state (f, opt);

%!test
%! o = muon_load_state (f, P);
%! assert (isequal (o, opt));
%! assert (o.step, 1);
%! o2 = muon_load_state (f, P, "stateprecision", "bf16");
%! b = typecast (single (o2.muon.W.momentum(:)), "uint32");
%! assert (all (bitand (b, uint32 (65535)) == 0));
%! assert (o2.muon.W.momentum, double (single (o2.muon.W.momentum)));
%! assert (o2.muon.W.momentum, o.muon.W.momentum, 2^-8 * max (abs (o.muon.W.momentum(:))));

%!test
%! ## StatePrecision rounds a double buffer once, from the stored value (by hand: 1 + 2^-8
%! ## + 2^-40 is above bf16's tie 1 + 2^-8, so 1 + 2^-7; 65519.999 is below fp16's tie
%! ## 65520, so 65504), not through single as torch's cast of a float64 does (single
%! ## rounds them to the ties, which go to even: 1 and Inf)
%! x = [1 + 2^-8 + 2^-40; 65519.999];
%! assert (double (single (x)), [1 + 2^-8; 65520]);
%! o = opt;
%! o.muon.W.momentum(1:2) = x;
%! o.adam.b.m(1:2) = x;
%! unwind_protect
%!   muon_save_state (g, o);
%!   o2 = muon_load_state (g, P, "StatePrecision", "bf16");
%!   assert ([o2.muon.W.momentum(1), o2.adam.b.m(1)], [1 + 2^-7, 1 + 2^-7]);
%!   assert (class (o2.muon.W.momentum), "double");
%!   o2 = muon_load_state (g, P, "StatePrecision", "fp16");
%!   assert ([o2.muon.W.momentum(2), o2.adam.b.m(2)], [65504, 65504]);
%! unwind_protect_cleanup
%!   if (exist (g, "file"))
%!     unlink (g);
%!   endif
%! end_unwind_protect

%!error <Invalid call> muon_load_state ("x")
%!error <muon_load_state: FILE must be a file name.> muon_load_state (1, P)
%!error <muon_load_state: STATEPRECISION must be 'keep', 'double', 'single', 'bf16' or 'fp16'.> muon_load_state (f, P, "StatePrecision", "fp8")
%!error <^muon_load_state: unknown option 'Foo'\. Options: .*\.$> muon_load_state (f, P, "Foo", 1)
%!error <muon_load_state: cannot read 'no_such_file.bin': no such file.> muon_load_state ("no_such_file.bin", P)
%!error <muon_load_state: cannot read '.*': it is a folder.> muon_load_state (tempdir (), P)
%!error <muon_load_state: PARAMS lacks the saved parameter 'b'.> muon_load_state (f, rmfield (P, "b"))
%!error <muon_load_state: PARAMS has 'c', which the saved state does not.> muon_load_state (f, setfield (P, "c", 1))
%!error <muon_load_state: PARAMS.W is 3 x 4 but the saved state is for 4 x 3.> muon_load_state (f, setfield (P, "W", ones (3, 4)))
%!error <muon_load_state: PARAMS.W is single but the saved state is for double.> muon_load_state (f, setfield (P, "W", single (P.W)))
%!error <muon_load_state: PARAMS\.W is 3 x 4 but the saved state is for 4 x 3\.> muon_load_state (f, setfield (P, "W", ones (3, 4)))
%!error id=muonlab:badState muon_load_state (f, setfield (P, "W", ones (3, 4)))

## the container
%!error <muon_load_state: '.*' is corrupt \(checksum mismatch\)\.>
%! b = file_bytes (f);
%! b(200) = bitxor (b(200), 1);
%! put_bytes (g, b);
%! muon_load_state (g, P);
%!error <muon_load_state: '.*' is truncated or corrupt \([0-9]+ bytes; its header says [0-9]+\)\.>
%! b = file_bytes (f);
%! put_bytes (g, b(1:end-1));
%! muon_load_state (g, P);
%!test
%! ## the size the length field implies, exact past 2^53 (2^60 + 96 read as 2^60 in double),
%! ## and fields of 2^64 - 1 and 2^64 - 96 (the header's 96 bytes make 2^64)
%! b = file_bytes (f);
%! cases = {[zeros(1, 7, "uint8"), uint8(16)], "1152921504606847072"      # 2^60, little-endian
%!          uint8(255 * ones (1, 8)),           "at least 2^64"
%!          typecast(intmax ("uint64") - 95, "uint8"), "at least 2^64"};
%! for k = 1:rows (cases)
%!   b(17:24) = cases{k,1};
%!   put_bytes (g, b);
%!   try
%!     muon_load_state (g, P);
%!     error ("test:noError", "accepted");
%!   catch err
%!     assert (err.message, sprintf (["muon_load_state: '%s' is truncated or corrupt " ...
%!                                    "(%d bytes; its header says %s)."],
%!                                   g, numel (b), cases{k,2}));
%!     assert (err.identifier, "muonlab:badState");
%!   end_try_catch
%! endfor
%!error <muon_load_state: '.*' is truncated \(50 bytes\)\.>
%! b = file_bytes (f);
%! put_bytes (g, b(1:50));
%! muon_load_state (g, P);
%!error <muon_load_state: '.*' is not a muonlab checkpoint \(no MUONCKPT magic\)\.>
%! x = 1;
%! save ("-binary", g, "x");
%! muon_load_state (g, P);
%!error <muon_load_state: '.*' is a version 1 muonlab state \(Octave binary, no checksum\); this muonlab reads format version 2 only \(to convert a file you trust: S = load \(FILE\); muon_save_state \(NEWFILE, S.muonlab_state.opt\)\)\.>
%! muonlab_state = struct ("format", "muonlab-optimizer-state", "version", 1, "opt", opt);
%! save ("-binary", g, "muonlab_state");
%! muon_load_state (g, P);
%!error <muon_load_state: '.*' has format version 3; this muonlab reads version 2\.>
%! b = file_bytes (f);
%! b(9) = 3;
%! put_bytes (g, b);
%! muon_load_state (g, P);
## a file of another kind and the domain check of each field: tests/octave/test_checkpoint.m
## (its own writer of the container makes files whose checksum holds)

%!test
%! ## StatePrecision rounds the Muon family's buffer too (AdaMuon's moment, NorMuon's V)
%! Pf = struct ("W", reshape (sin (1:48), 6, 8));
%! Gf = struct ("W", reshape (cos (1:48), 6, 8));
%! for alg = {"adamuon", "normuon"}
%!   o = muon_optimizer (Pf, "Algorithm", alg{1});
%!   [~, o] = muon_step (o, Pf, Gf);
%!   ff = [tempname() ".bin"];              # (f and g are the shared files)
%!   unwind_protect
%!     muon_save_state (ff, o);
%!     o2 = muon_load_state (ff, Pf, "StatePrecision", "bf16");
%!   unwind_protect_cleanup
%!     unlink (ff);
%!   end_unwind_protect
%!   b = o.muon.W.family.buffer;
%!   assert (! isequal (b, muon_round (b, "bf16")));     # the test means something
%!   assert (isequal (o2.muon.W.family.buffer, muon_round (b, "bf16")), alg{1});
%!   assert (isequal (o2.muon.W.momentum, muon_round (o.muon.W.momentum, "bf16")));
%! endfor

%!error <muon_load_state: in STATEPRECISION 'fp16', OPT.muon.W.momentum must not contain NaN or Inf\.>
%! o = opt;
%! o.muon.W.momentum(1) = 1e6;
%! muon_save_state (g, o);
%! muon_load_state (g, P, "StatePrecision", "fp16");

%!test
%! unlink (f);
%! if (exist (g, "file"))
%!   unlink (g);
%! endif

%!test
%! ## a file that cannot be looked at says why, not "no such file" (a name longer than
%! ## NAME_MAX: ENAMETOOLONG, "File name too long" in English)
%! n = [repmat("a", 1, 300) ".ckpt"];
%! [~, e, why] = stat (n);
%! assert (e != 0 && ! isempty (why) && isempty (strfind (lower (why), "no such file")));
%! try
%!   muon_load_state (n, struct ("W", 1));
%!   error ("the load did not fail");
%! catch err
%!   assert (err.identifier, "muonlab:badArg");
%!   assert (err.message, sprintf ("muon_load_state: cannot read '%s': %s.", n, why));
%! end_try_catch
