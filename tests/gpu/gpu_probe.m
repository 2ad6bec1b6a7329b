## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {[@var{ok}, @var{skip}, @var{why}] =} gpu_probe ()
## @deftypefnx {} {@var{ok} =} gpu_probe (@var{tool})
## Whether the CUDA back end runs here: one @code{muon_ns} call on a tiny matrix with
## @qcode{"Device", "cuda"}, inside try/catch.  @var{ok} is true when it ran.  Otherwise
## @var{why} is one line naming the cause, muon_ns's message and its error identifier, and
## @var{skip} is true when the identifier says there is nothing to test here
## (@code{muonlab:noDevice}: no GPU or driver; @code{muonlab:notBuilt}: libmuon_cuda.so not
## built or not loadable) and false for any other error (a device that is present but
## fails is a failure, not a skip).
##
## With @var{tool} (the make target's name, e.g. @qcode{"bench-gpu"}) it also says so, the
## same way for every tool: a skip prints one line "@var{tool}: skipped, @var{why}" and
## returns false; a failing device raises "@var{tool}: @var{why}".
## @end deftypefn

function [ok, skip, why] = gpu_probe (tool)
  ok = true;
  skip = false;
  why = "";
  try
    muon_ns ([1 2 3; 4 5 6], "Device", "cuda");
  catch err
    ok = false;
    switch (err.identifier)
      case "muonlab:noDevice"
        what = "no CUDA device";
        skip = true;
      case "muonlab:notBuilt"
        what = "the CUDA back end is not built";
        skip = true;
      otherwise
        what = "the CUDA back end failed";
    endswitch
    why = sprintf ("%s: %s [%s]", what, err.message, err.identifier);
  end_try_catch
  if (nargin == 1 && ! ok && skip)
    printf ("%s: skipped, %s\n", tool, why);
  elseif (nargin == 1 && ! ok)
    error ("%s: %s", tool, why);
  endif
endfunction

%!test
%! [ok, skip, why] = gpu_probe ();
%! info = muon_info ();
%! assert (ok, logical (info.cuda_usable));
%! if (! ok)
%!   assert (skip);
%!   if (info.cuda_built)
%!     assert (strncmp (why, "no CUDA device: muon_ns: ", 25), why);
%!     assert (strcmp (why(end-17:end), "[muonlab:noDevice]"), why);
%!   else
%!     assert (strncmp (why, "the CUDA back end is not built: muon_ns: ", 41), why);
%!   endif
%! endif
%! if (! ok)
%!   out = evalc ("r = gpu_probe ('bench-gpu');");
%!   assert (r, false);
%!   assert (out, sprintf ("bench-gpu: skipped, %s\n", why));
%! endif
