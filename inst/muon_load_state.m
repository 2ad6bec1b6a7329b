## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{opt} =} muon_load_state (@var{file}, @var{params})
## @deftypefnx {muonlab} {@var{opt} =} muon_load_state (@var{file}, @var{params}, "StatePrecision", @var{prec})
## Load an optimizer state saved by @code{muon_save_state}.
##
## @var{params} is the struct of parameters the state is for: it must have the saved
## parameter names and sizes, else the load is refused (@code{muonlab:badState}), as is
## a file that is not a muonlab optimizer state or has an unknown version.
##
## Options (names are case-insensitive):
## @table @asis
## @item "StatePrecision"
## @qcode{"keep"} (default: the saved bits), @qcode{"double"},
## @qcode{"single"}, @qcode{"bf16"} or @qcode{"fp16"} rounds each optimizer buffer (every
## Muon momentum, every AdamW @code{m} and @code{v}) once, to nearest-even (bf16/fp16 with
## subnormals, overflow to Inf), as loading a checkpoint written in that precision would.
## The buffers keep their class and hold the rounded values; later steps compute in the
## class as before.  (An fp16 @code{v} flushes squared gradients under 6e-8 to zero.)
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
  prec = parse_options (fname, "muon_load_state", varargin).state_precision;
  opt_check_tree (fname, "PARAMS", params, {}, {}, false);

  if (! exist (file, "file"))
    error ("muonlab:badArg", "%s: cannot read '%s': no such file.", fname, file);
  endif
  try
    S = load (file);
  catch err
    error ("muonlab:badState", "%s: '%s' is not a muonlab optimizer state (%s).", fname,
           file, err.message);
  end_try_catch
  if (! (isstruct (S) && isfield (S, "muonlab_state") && isstruct (S.muonlab_state)
         && isfield (S.muonlab_state, "format")
         && strcmp (S.muonlab_state.format, "muonlab-optimizer-state")
         && isfield (S.muonlab_state, "version")))
    error ("muonlab:badState", "%s: '%s' is not a muonlab optimizer state.", fname, file);
  endif
  st = S.muonlab_state;
  if (! isequal (st.version, 1))
    error ("muonlab:badState",
           "%s: '%s' has state version %s; this muonlab reads version 1.", fname, file,
           num2str (st.version));
  endif

  ## the parameter set must be the saved one
  names = fieldnames (params);
  missing = setdiff (st.names, names);
  extra = setdiff (names, st.names);
  if (! isempty (missing))
    error ("muonlab:badState", "%s: PARAMS lacks the saved parameter '%s'.", fname,
           missing{1});
  elseif (! isempty (extra))
    error ("muonlab:badState", "%s: PARAMS has '%s', which the saved state does not.",
           fname, extra{1});
  endif
  for i = 1:numel (st.names)
    n = st.names{i};
    if (! isequal (size (params.(n)), st.shapes{i}))
      error ("muonlab:badState", "%s: PARAMS.%s is %s but the saved state is for %s.",
             fname, n, dims (size (params.(n))), dims (st.shapes{i}));
    endif
  endfor

  opt = st.opt;
  if (! strcmp (prec, "keep"))
    for i = 1:numel (opt.names)
      n = opt.names{i};
      if (isfield (opt.muon, n) && ! isempty (opt.muon.(n)))
        opt.muon.(n).momentum = round_state (fname, file, ["muon." n ".momentum"],
                                             opt.muon.(n).momentum, prec);
      endif
      if (isfield (opt.adam, n))
        opt.adam.(n).m = round_state (fname, file, ["adam." n ".m"], opt.adam.(n).m, prec);
        opt.adam.(n).v = round_state (fname, file, ["adam." n ".v"], opt.adam.(n).v, prec);
      endif
    endfor
  endif
endfunction

## muon_round of a saved array, whose errors would otherwise name muon_round
function x = round_state (fname, file, what, x, prec)
  if (! (isfloat (x) && isreal (x)))
    error ("muonlab:badState",
           "%s: '%s' is not a muonlab optimizer state (%s is not a real floating-point array).",
           fname, file, what);
  endif
  x = muon_round (x, prec);
endfunction

function s = dims (sz)
  s = strjoin (arrayfun (@num2str, sz, "UniformOutput", false), " x ");
endfunction

%!shared P, f
%! randn ("state", 4);
%! P = struct ("W", randn (4, 3), "b", randn (4, 1));
%! f = [tempname() ".bin"];
%! opt = muon_optimizer (P);
%! opt = nthargout (2, @muon_step, opt, P, struct ("W", randn (4, 3), "b", randn (4, 1)));
%! muon_save_state (f, opt);

%!test
%! opt = muon_load_state (f, P);
%! assert (opt.step, 1);
%! o2 = muon_load_state (f, P, "stateprecision", "bf16");
%! b = typecast (single (o2.muon.W.momentum(:)), "uint32");
%! assert (all (bitand (b, uint32 (65535)) == 0));
%! assert (o2.muon.W.momentum, double (single (o2.muon.W.momentum)));
%! assert (o2.muon.W.momentum, opt.muon.W.momentum, 2^-8 * max (abs (opt.muon.W.momentum(:))));

%!error <Invalid call> muon_load_state ("x")
%!error <muon_load_state: FILE must be a file name.> muon_load_state (1, P)
%!error <muon_load_state: STATEPRECISION must be 'keep', 'double', 'single', 'bf16' or 'fp16'.> muon_load_state (f, P, "StatePrecision", "fp8")
%!error <muon_load_state: unknown option 'Foo'.> muon_load_state (f, P, "Foo", 1)
%!error <muon_load_state: cannot read 'no_such_file.bin': no such file.> muon_load_state ("no_such_file.bin", P)
%!error <muon_load_state: PARAMS lacks the saved parameter 'b'.> muon_load_state (f, rmfield (P, "b"))
%!error <muon_load_state: PARAMS has 'c', which the saved state does not.> muon_load_state (f, setfield (P, "c", 1))
%!error <muon_load_state: PARAMS.W is 3 x 4 but the saved state is for 4 x 3.> muon_load_state (f, setfield (P, "W", ones (3, 4)))
%!error id=muonlab:badState muon_load_state (f, setfield (P, "W", ones (3, 4)))
%!test
%! g = [tempname() ".bin"];
%! unwind_protect
%!   x = 1;
%!   save ("-binary", g, "x");
%!   fail ("muon_load_state (g, P)", "muon_load_state: '.*' is not a muonlab optimizer state.");
%!   muonlab_state = struct ("format", "muonlab-optimizer-state", "version", 2);
%!   save ("-binary", g, "muonlab_state");
%!   fail ("muon_load_state (g, P)", "has state version 2; this muonlab reads version 1.");
%!   S = load (f);
%!   S.muonlab_state.opt.muon.W.momentum = int8 (S.muonlab_state.opt.muon.W.momentum);
%!   save ("-binary", g, "-struct", "S");
%!   fail ("muon_load_state (g, P, 'StatePrecision', 'bf16')",
%!         "muon_load_state: '.*' is not a muonlab optimizer state \\(muon.W.momentum is not a real floating-point array\\).");
%! unwind_protect_cleanup
%!   unlink (g);
%! end_unwind_protect
%!test
%! unlink (f);
