## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {} muon_info ()
## @deftypefnx {muonlab} {@var{info} =} muon_info ()
## @deftypefnx {muonlab} {} muon_info ("release")
## Report which muonlab back ends are built and usable.
##
## @code{muon_info ("release")} gives back the memory @code{muon_ns} and @code{muon_update}
## keep between calls (the Newton-Schulz workspace and the cached oneDNN primitives: it
## clears their gateways, whose contexts free everything).  A workspace larger than 64 MiB
## is given back when each call ends anyway, in every function, so a large call does not
## pin memory for the session; a smaller one is kept for the next call.  It returns
## nothing (asked for an output, it is a @code{muonlab:badArg} error).
##
## Without an output, print a short report: the CPU reference back end (always), the
## CUDA/cuBLAS back end (@qcode{"not built"}, @qcode{"built, no device"} with the runtime's
## message, or the device name), how ranks can run (simulated always; MPI and NCCL when
## built), the BLAS, the CPU GEMM providers, and the coefficient schedules; it returns nothing then, so a field is read from an output
## (@code{info = muon_info (); info.gemm.threads}), not from a statement
## @code{muon_info ().gemm.threads}, which prints the report and fails to index it.
## With an output, return the same as a @code{muon_info_result}, which prints
## that report when typed and whose fields read as a struct's (@code{struct (info)} gives
## the struct): @code{cpu},
## @code{cuda_built}, @code{cuda_usable}, @code{cuda_devices}, @code{cuda_message},
## @code{cuda}, @code{mpi_built} (the MPI gateways: @code{muon_comm ("mpi")},
## @code{muon_mpirun}), @code{nccl_built} (the NCCL plug-in libmuon_nccl.so, which also
## needs a CUDA device), @code{ranks} (the report's line about both), @code{blas},
## @code{schedules}, @code{gemm} and @code{gemm_text} (the
## report's line about the CPU products: oneDNN's version, ISA and implementations, the
## threads, cores and tile edge, and who runs each precision under @qcode{"Gemm", "auto"}).
##
## @code{gemm} describes the providers of the CPU products (option @qcode{"Gemm"} of
## @code{muon_ns}): @code{provider}, a struct with one field per precision
## (@code{double}, @code{single}, @code{bf16}, @code{fp16}) naming who runs that precision
## under @qcode{"Gemm", "auto"} here (@qcode{"openblas"} or @qcode{"onednn"}), and
## @code{reason}, the same fields saying why; @code{env} (the environment variable
## @env{MUONLAB_GEMM} as read now (every call reads it): @qcode{"auto"}, @qcode{"openblas"} or
## @qcode{"onednn"} changes what @qcode{"auto"} stands for, without rebuilding; any other
## value is ignored, and the report says so);
## @code{onednn_built}, @code{onednn_version}, @code{onednn_isa} (the instruction set
## oneDNN dispatches to), @code{onednn_impl_f32} and @code{onednn_impl_bf16} (the
## implementations oneDNN picks for an fp32 and a bf16 tile as Newton-Schulz runs them, a
## strided 64 x 64 x 64 product with one operand transposed, e.g. @qcode{"gemm:jit"}, or
## @qcode{"no: @dots{}"} with the reason where it has
## none: a probe never fails), @code{onednn_native_bf16} (bf16 products multiply bf16
## natively; else the fp32 product of the same values), @code{openblas} (its configuration
## and core), @code{threads} (what @qcode{"Threads"}, 0 uses: @env{OMP_NUM_THREADS}, else
## the cores, shared among the MPI ranks of this machine; never the machine load),
## @code{cores} and @code{tile} (the edge of the tiles every product is cut into, so that
## results are the same bits for any thread count).
##
## The probe behind this function is asked once per call of @code{muon_info}; no other
## function calls it.
## @seealso{muon_ns}
## @end deftypefn

function info = muon_info (what)
  if (nargin == 1)
    if (! (ischar (what) && strcmpi (what, "release")))
      error ("muonlab:badArg", "muon_info: the only argument is \"release\".");
    endif
    if (nargout > 0)
      error ("muonlab:badArg", "muon_info: \"release\" returns nothing; call it without an output.");
    endif
    clear __muon_ns__ __muon_update__;       # not the MPI gateways: that would end MPI
    return;
  endif
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
  runs = "";
  for p = fieldnames (g.provider)'       # the core's precisions
    runs = [runs sprintf("\n    %-6s %-8s (%s)", p{1}, g.provider.(p{1}), g.reason.(p{1}))];
  endfor
  if (g.onednn_built)
    s.gemm_text = sprintf ("oneDNN %s, ISA %s (fp32: %s; bf16: %s)", g.onednn_version,
                           g.onednn_isa, g.onednn_impl_f32, g.onednn_impl_bf16);
  else
    s.gemm_text = "oneDNN not built";
  endif
  env = "";
  if (! isempty (g.env))
    env = sprintf (", MUONLAB_GEMM=%s", g.env);
    if (! any (strcmp (g.env, core_lists ().lists.gemm)))   # (the core: exact spelling)
      env = sprintf ("%s (not recognised: ignored; %s)", env,
                     strjoin (core_lists ().lists.gemm, ", "));
    endif
  endif
  s.gemm_text = sprintf ("%s; %d threads of %d cores, tiles of %d%s; 'Gemm' auto runs:%s",
                         s.gemm_text, g.threads, g.cores, g.tile, env, runs);
  ## the ranks of a real multi-process run: MPI gateways and the NCCL plug-in, as built
  s.mpi_built = exist ("__muon_comm__") == 3 && __muon_comm__ ("have_mpi");
  s.nccl_built = ! isempty (file_in_loadpath ("libmuon_nccl.so"));
  s.ranks = sprintf ("ranks: simulated (muon_comm (\"sim\", W)); MPI %s; NCCL %s",
                     merge (s.mpi_built, "built (muon_comm (\"mpi\"), muon_mpirun)",
                            "not built"),
                     merge (s.nccl_built, ["built (" merge(s.cuda_usable, "", "needs a CUDA device; ") ...
                                           "muon_comm (\"nccl\") under muon_mpirun)"],
                            "not built"));
  info = muon_info_result (s);           # typing it prints the report
  if (nargout == 0)
    disp (info);
    clear info;
  endif
endfunction

%!demo
%! ## what this build has: CUDA, MPI and NCCL, the BLAS, the GEMM providers, the schedules
%! muon_info ();

%!test
%! s = muon_info ();
%! assert (islogical (s.cuda_built) && islogical (s.cuda_usable));
%! ## the help names every field of the result
%! txt = get_help_text ("muon_info");
%! named = cellfun (@(f) ! isempty (strfind (txt, ["@code{" f "}"])), fieldnames (s));
%! assert (fieldnames (s)(! named), cell (0, 1));
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
%! ## "release" clears what NS keeps; the next call works as before (the automatic release
%! ## of a workspace over 64 MiB is tested in tests/c/test_ctx.c)
%! G = randn (64, 128);
%! X = muon_ns (G);
%! muon_info ("release");
%! assert (isequal (muon_ns (G), X));

%!test
%! ## MUONLAB_GEMM (in a fresh Octave) with a value the core does not
%! ## know is ignored (auto stays the default), and the report says so
%! octave = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%! if (exist (octave, "file"))
%!   dirs = sprintf ("addpath ('%s', '%s');", fileparts (which ("muon_info")),
%!                   fileparts (which ("__muon_info__")));
%!   [st, out] = system (sprintf ("MUONLAB_GEMM=bogus %s --no-gui --norc --silent --eval \"%s muon_info ()\" 2>&1",
%!                                octave, dirs));
%!   assert (! isempty (strfind (out, "MUONLAB_GEMM=bogus (not recognised: ignored; auto, openblas, onednn)")), out);
%!   [st, out] = system (sprintf ("MUONLAB_GEMM=openblas %s --no-gui --norc --silent --eval \"%s muon_info ()\" 2>&1",
%!                                octave, dirs));
%!   assert (! isempty (strfind (out, "MUONLAB_GEMM=openblas;")), out);
%! endif

%!error <muon_info: the only argument is "release".> muon_info ("x")
%!error <muon_info: function called with too many inputs> muon_info (1, 2)
%!error <muon_info: "release" returns nothing; call it without an output.> x = muon_info ("release");
%!error <muon_info: "release" returns nothing; call it without an output\.> x = muon_info ("release");
%!error id=muonlab:badArg x = muon_info ("release");

%!test
%! str = evalc ("muon_info ()");
%! assert (! isempty (strfind (str, "CPU reference")));
%! assert (! isempty (strfind (str, "GEMM: ")));
%! ## MPI as muon_mpirun finds it; NCCL as muon_comm ("nccl") would open it
%! s = muon_info ();
%! assert (s.mpi_built, exist ("__muon_comm__") == 3 && __muon_comm__ ("have_mpi"));
%! assert (s.nccl_built, exist (fullfile (fileparts (which ("__muon_info__")), "libmuon_nccl.so"), "file") == 2);
%! assert (! isempty (strfind (str, ["ranks: simulated (muon_comm (\"sim\", W)); MPI " merge(s.mpi_built, "built", "not built")])));
%! assert (! isempty (strfind (str, ["; NCCL " merge(s.nccl_built, "built", "not built")])));

%!test
%! g = muon_info ().gemm;
%! assert (islogical (g.onednn_built) && islogical (g.onednn_native_bf16));
%! prec = {"double", "single", "bf16", "fp16"};
%! assert (fieldnames (g.provider)', prec);
%! for p = prec
%!   assert (any (strcmp (g.provider.(p{1}), {"onednn", "openblas"})));
%!   assert (ischar (g.reason.(p{1})) && ! isempty (g.reason.(p{1})));
%! endfor
%! ## double always OpenBLAS; oneDNN only where it multiplies bf16 natively (unless the
%! ## environment says otherwise)
%! assert (g.provider.double, "openblas");
%! if (isempty (g.env))
%!   assert (g.provider.single, "openblas");
%!   assert (strcmp (g.provider.bf16, "onednn"), g.onednn_native_bf16);
%! endif
%! assert (g.threads >= 1 && g.cores >= 1 && g.tile >= 1);
%! if (g.onednn_built)
%!   assert (! isempty (regexp (g.onednn_version, '^\d+\.\d+\.\d+', "once")));
%!   assert (! isempty (g.onednn_isa) && ! isempty (g.onednn_impl_bf16));
%!   ## a missing bf16 kernel is an answer, never an error
%!   if (g.onednn_native_bf16)
%!     assert (! strncmp (g.onednn_impl_bf16, "no: ", 4));
%!   endif
%! else
%!   assert (g.onednn_version, "not built");
%! endif
