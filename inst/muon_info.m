## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {} muon_info ()
## @deftypefnx {muonlab} {@var{info} =} muon_info ()
## Report which muonlab back ends are built and usable.
##
## Without an output, print a short report: the CPU reference back end (always), the
## CUDA/cuBLAS back end (@qcode{"not built"}, @qcode{"built, no device"} with the runtime's
## message, or the device name), the BLAS, and the coefficient schedules.  With an output,
## return the same as a struct with fields @code{cpu}, @code{cuda_built},
## @code{cuda_usable}, @code{cuda_devices}, @code{cuda_message}, @code{cuda}, @code{blas}
## and @code{schedules}.
## @seealso{muon_ns}
## @end deftypefn

function info = muon_info ()
  s = __muon_info__ ();
  s.cpu = "CPU reference (C99 + CBLAS)";
  if (s.cuda_usable)
    s.cuda = sprintf ("CUDA: %s", s.cuda_message);
  elseif (s.cuda_built)
    s.cuda = sprintf ("CUDA: built, no device (%s)", s.cuda_message);
  else
    s.cuda = sprintf ("CUDA: not built (%s)", s.cuda_message);
  endif
  if (nargout > 0)
    info = s;
  else
    printf ("muonlab back ends\n  %s\n  %s\n  BLAS: %s\n  schedules: %s\n", s.cpu,
            s.cuda, s.blas, strjoin (s.schedules, ", "));
  endif
endfunction

%!test
%! s = muon_info ();
%! assert (islogical (s.cuda_built) && islogical (s.cuda_usable));
%! assert (ischar (s.cuda) && ! isempty (s.cuda));
%! assert (any (strcmp (s.schedules, "keller")));
%! if (! s.cuda_usable)
%!   assert (s.cuda_devices, 0);
%! endif

%!test
%! ## with no GPU, 'Device', 'cuda' is a clean error naming which is missing
%! s = muon_info ();
%! if (! s.cuda_usable)
%!   try
%!     muon_ns (randn (4, 8), "Device", "cuda");
%!     error ("no error raised");
%!   catch err
%!     if (s.cuda_built)
%!       assert (err.identifier, "muonlab:noDevice");
%!     else
%!       assert (err.identifier, "muonlab:notBuilt");
%!     endif
%!     assert (strncmp (err.message, "muon_ns: ", 9));
%!   end_try_catch
%! endif

%!test
%! str = evalc ("muon_info ()");
%! assert (! isempty (strfind (str, "CPU reference")));
