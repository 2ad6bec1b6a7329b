## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {} muon_info ()
## @deftypefnx {muonlab} {@var{info} =} muon_info ()
## Report which muonlab back ends are built and usable.
##
## Without an output, print a short report: the CPU reference back end (always), the
## CUDA/cuBLAS back end (@qcode{"not built"}, @qcode{"built, no device"} with the runtime's
## message, or the device name), the BLAS, the CPU GEMM providers, and the coefficient
## schedules.  With an output, return the same as a struct with fields @code{cpu},
## @code{cuda_built}, @code{cuda_usable}, @code{cuda_devices}, @code{cuda_message},
## @code{cuda}, @code{blas}, @code{schedules} and @code{gemm}.
##
## @code{gemm} describes the providers of the CPU products (option @qcode{"Gemm"} of
## @code{muon_ns}): @code{default} (what @qcode{"auto"} picks: @qcode{"onednn"} when the
## build found oneDNN, else @qcode{"openblas"}), @code{onednn_built},
## @code{onednn_version}, @code{onednn_isa} (the instruction set oneDNN dispatches to),
## @code{onednn_impl_f32} and @code{onednn_impl_bf16} (the implementations oneDNN picks for
## an fp32 and a bf16 product, e.g. @qcode{"brg:avx512_core_bf16"}),
## @code{onednn_native_bf16} (bf16 products multiply bf16 natively; else the fp32 product of
## the same values), @code{openblas} (its configuration and core), @code{threads} (what
## @qcode{"Threads"}, 0 would use now: OMP_NUM_THREADS, else the cores not busy with other
## processes) and @code{cores}.
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
  g = s.gemm;
  if (g.onednn_built)
    bf = "fp32 products of bf16 values";
    if (g.onednn_native_bf16)
      bf = "native";
    endif
    s.gemm_text = sprintf (["oneDNN %s, ISA %s (fp32: %s, bf16: %s, %s); default %s, " ...
                            "%d threads of %d cores"], g.onednn_version, g.onednn_isa,
                           g.onednn_impl_f32, g.onednn_impl_bf16, bf, g.default, g.threads,
                           g.cores);
  else
    s.gemm_text = sprintf ("oneDNN not built; default %s, %d threads of %d cores",
                           g.default, g.threads, g.cores);
  endif
  if (nargout > 0)
    info = s;
  else
    printf ("muonlab back ends\n  %s\n  %s\n  BLAS: %s\n  GEMM: %s\n  schedules: %s\n",
            s.cpu, s.cuda, s.blas, s.gemm_text, strjoin (s.schedules, ", "));
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
%! assert (! isempty (strfind (str, "GEMM: ")));

%!test
%! g = muon_info ().gemm;
%! assert (islogical (g.onednn_built) && islogical (g.onednn_native_bf16));
%! assert (any (strcmp (g.default, {"onednn", "openblas"})));
%! assert (strcmp (g.default, "onednn"), g.onednn_built);
%! assert (g.threads >= 1 && g.threads <= g.cores);
%! if (g.onednn_built)
%!   assert (! isempty (regexp (g.onednn_version, '^\d+\.\d+\.\d+', "once")));
%!   assert (! isempty (g.onednn_isa) && ! isempty (g.onednn_impl_bf16));
%! else
%!   assert (g.onednn_version, "not built");
%! endif
