## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {muonlab} {} muon_save_state (@var{file}, @var{opt})
## Save the optimizer state @var{opt} (from @code{muon_optimizer} / @code{muon_step}) to
## @var{file}, in Octave's binary format.
##
## The file holds one variable, @code{muonlab_state}, a struct with the fields
## @code{format} (@qcode{"muonlab-optimizer-state"}), @code{version} (1), @code{names},
## @code{shapes} and @code{classes} of the parameters, and @code{opt}, the whole state:
## routing, options, learning rates, Muon momenta, AdamW moments and step counts,
## pending gradient-accumulation buffers and the loss-scaler state.  Every array is
## stored exactly, so loading it with @code{muon_load_state} and taking a step gives the
## same bits as taking the step without the round trip.
##
## @seealso{muon_load_state, muon_optimizer, muon_step}
## @end deftypefn

function muon_save_state (file, opt)
  if (nargin != 2)
    print_usage ();
  endif
  fname = "muon_save_state";
  if (! (ischar (file) && isrow (file)))
    error ("muonlab:badArg", "%s: FILE must be a file name.", fname);
  endif
  if (! (isstruct (opt) && isscalar (opt) && isfield (opt, "type")
         && strcmp (opt.type, "muonlab.optimizer")))
    error ("muonlab:badArg", "%s: OPT must be an optimizer state made by muon_optimizer.",
           fname);
  endif
  muonlab_state = struct ("format", "muonlab-optimizer-state", "version", 1);
  muonlab_state.names = opt.names;
  muonlab_state.shapes = opt.shapes;
  muonlab_state.classes = opt.classes;
  muonlab_state.opt = opt;
  try
    save ("-binary", file, "muonlab_state");
  catch err
    error ("muonlab:badArg", "%s: cannot write '%s': %s", fname, file, err.message);
  end_try_catch
endfunction

%!test
%! P = struct ("W", randn (4, 3), "b", randn (4, 1));
%! opt = muon_optimizer (P);
%! f = [tempname() ".bin"];
%! unwind_protect
%!   muon_save_state (f, opt);
%!   S = load (f);
%!   assert (S.muonlab_state.format, "muonlab-optimizer-state");
%!   assert (S.muonlab_state.version, 1);
%!   assert (S.muonlab_state.names, {"W"; "b"});
%!   assert (S.muonlab_state.shapes, {[4 3]; [4 1]});
%!   assert (S.muonlab_state.opt, opt);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!error <Invalid call> muon_save_state ("x")
%!error <muon_save_state: FILE must be a file name.> muon_save_state (1, struct ())
%!error <muon_save_state: OPT must be an optimizer state made by muon_optimizer.> muon_save_state ("x", struct ())
%!error id=muonlab:badArg muon_save_state ("x", 1)
