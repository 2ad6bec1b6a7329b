## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{comm} =} muon_comm (@qcode{"self"})
## @deftypefnx {muonlab} {@var{comm} =} muon_comm (@qcode{"sim"}, @var{N})
## @deftypefnx {muonlab} {@var{comm} =} muon_comm (@qcode{"mpi"})
## @deftypefnx {muonlab} {@var{comm} =} muon_comm (@qcode{"nccl"})
## @deftypefnx {muonlab} {@var{comm} =} muon_comm (@dots{}, @qcode{"Reduction"}, @var{mode})
## A communicator handle for the distributed functions (@code{zero_muon_step},
## @code{muon_collective}).
##
## @table @asis
## @item @qcode{"self"}
## one rank; every collective is a copy.
## @item @qcode{"sim"}, @var{N}
## @var{N} simulated ranks in this process, deterministic; each rank's buffers are separate.
## @item @qcode{"mpi"}
## this process's rank of an MPI job (one rank per process, Open MPI).  Start the job with
## @code{muon_mpirun} or @code{mpirun -np 4 octave-cli ...}; the first use initializes MPI,
## and Octave finalizes it when it exits.  Outside @code{mpirun} it is a world of one rank.
## Under @code{muon_mpirun}, a rank that exits before its function returns ends every rank
## of the job.  Under a plain @code{mpirun}, a rank whose Octave exits with a nonzero status
## (an uncaught error, @code{exit (n)}, a Ctrl-C or a SIGTERM that Octave caught) ends the
## job with @code{MPI_Abort} and says so, since the other ranks may wait for it in a
## collective; status 0 is a normal end, which finalizes MPI and so waits for every rank: a
## rank that calls @code{exit (0)} while the others wait in a collective leaves the job
## waiting.
## @item @qcode{"nccl"}
## the same ranks over NCCL, one GPU each (device: the rank on its machine, from the
## launcher's OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID or SLURM_LOCALID, mod the
## devices it sees): host arrays are staged through device buffers, and the buffers of
## @code{zero_muon_step} on device arrays move in place, with no host copy (the device
## arrays live on the same GPU).  Without a GPU or driver it raises
## @code{muonlab:noDevice}, and when the NCCL library was not built @code{muonlab:notBuilt}.
## @end table
##
## Reductions follow one fixed order on every communicator: the sum over ranks 0, 1,
## @dots{}, W-1 in the data's class, then one division by W for an average, so MPI and NCCL
## results equal the simulated ones bit for bit.  The option @qcode{"Reduction"} is
## @qcode{"fixed"} (default) or, for @qcode{"mpi"} and @qcode{"nccl"}, the library's own
## reduction (@qcode{"mpi"}, @qcode{"nccl"}): less traffic for all-reduce, equal to round-off.
##
## What is collective: a process has one @qcode{"mpi"} and one @qcode{"nccl"} communicator
## (per MEX file that uses it), made at its first use, by @code{muon_comm} or by a function
## given a handle, which every rank must make at the same point of the job (a rank that makes
## it alone waits for the others).  Later @code{muon_comm} calls, with either
## @qcode{"Reduction"}, communicate nothing: the handle's reduction is applied to the process's
## communicator for each call that takes the handle.  Every call that takes a handle
## (@code{muon_collective}, @code{zero_muon_step}, @code{zero_train_step},
## @code{zero_save_state}, @code{zero_load_state}) is collective, and its ranks first agree on
## their arguments and on the communicator, its kind and @qcode{"Reduction"}: ranks whose
## @qcode{"mpi"} and @qcode{"nccl"} handles differ (in kind, or in @qcode{"Reduction"} only)
## raise the same @code{muonlab:badArg} ("@dots{}: every rank must pass the same
## communicator: @dots{}") instead of waiting for each other; a rank whose COMM is no
## communicator at all raises its own error, and the others are told.  A @qcode{"self"} or
## @qcode{"sim"} communicator is its rank's own and agrees with no other rank (a job may
## use one on some ranks only): a rank that passes one where the others pass an
## @qcode{"mpi"} or @qcode{"nccl"} handle is not detected, and the others wait for it as for
## a rank that skips the call (@code{muon_mpirun}'s @qcode{"timeout"} ends such a job).
## Pass the handle, not the name @qcode{"mpi"} or @qcode{"nccl"}: those functions refuse the
## name.
##
## Options (names are case-insensitive):
## @table @asis
## @item "Reduction"
## @qcode{"fixed"} (default), or the kind's name for an @qcode{"mpi"} or @qcode{"nccl"}
## communicator: the library's reduction.
## @end table
##
## @var{comm} is a plain struct, valid in the process that made it:
## @table @code
## @item kind
## @qcode{"self"}, @qcode{"sim"}, @qcode{"mpi"} or @qcode{"nccl"}.
## @item size
## the number of ranks W.
## @item rank
## this process's rank (0-based; 0 for @qcode{"self"} and @qcode{"sim"}, whose process
## drives every rank).
## @item local_ranks
## the ranks this process drives: W for @qcode{"sim"}, else 1.
## @item counts
## @qcode{"measured"} (self, sim: the bytes the simulation moves) or @qcode{"modelled"}
## (mpi, nccl: the model of @code{muon_collective}, the simulator's algorithm, a ring's
## bytes where W divides the count; the library hides what it moves).
## @item reduction
## @qcode{"fixed"}, @qcode{"mpi"} or @qcode{"nccl"}.
## @end table
##
## @example
## comm = muon_comm ("sim", 4);
## Y = muon_collective (comm, "allreduce", @{1, 2, 3, 4@});   # @{10, 10, 10, 10@}
## @end example
## @seealso{muon_collective, muon_mpirun}
## @end deftypefn

function comm = muon_comm (kind, varargin)
  fname = "muon_comm";
  if (nargin < 1)
    print_usage ();
  endif
  L = core_lists ();
  kind = choose_option (fname, "KIND", kind, L.lists.comm_kind);
  spec = struct ("kind", kind);
  if (strcmp (kind, "sim"))
    if (isempty (varargin))
      error ("muonlab:badArg", "muon_comm: N must be given for a 'sim' communicator.");
    endif
    N = varargin{1};
    varargin(1) = [];
    if (! (isnumeric (N) && isscalar (N) && isreal (N) && N == fix (N) && N >= 1))
      error ("muonlab:badArg", "muon_comm: N must be a positive integer.");
    endif
    if (N > L.limits.comm_max_world)
      error ("muonlab:badArg", "muon_comm: N must be at most %d.", L.limits.comm_max_world);
    endif
    spec.size = double (N);
  endif
  opts = parse_options (fname, "muon_comm", varargin);
  allowed = {"fixed"};                 # and the library's reduction, named as its kind
  if (any (strcmp (kind, {"mpi", "nccl"})))
    allowed{end+1} = kind;
  endif
  spec.reduction = choose_option (fname, "REDUCTION", opts.reduction, allowed);
  comm = __muon_comm__ ("create", spec);
endfunction

%!demo
%! ## a simulated communicator of 4 ranks; MPI and NCCL ones come from muon_mpirun / a GPU
%! comm = muon_comm ("sim", 4)
%! Y = muon_collective (comm, "allreduce", {1, 2, 3, 4})

%!test
%! c = muon_comm ("self");
%! assert (c.kind, "self");
%! assert ([c.size c.rank c.local_ranks], [1 0 1]);
%! assert (c.counts, "measured");
%! assert (c.reduction, "fixed");

%!test
%! c = muon_comm ("SIM", 4);
%! assert (c.kind, "sim");
%! assert ([c.size c.rank c.local_ranks], [4 0 4]);
%! assert (c.counts, "measured");

%!test
%! ## a handle is a plain struct: the collectives take it (and sim takes a bare string)
%! c = muon_comm ("sim", 3);
%! Y = muon_collective (c, "allreduce", {1, 2, 3});
%! assert (Y, {6, 6, 6});

%!test
%! ## outside mpirun, 'mpi' is a world of one rank (MPI singleton); Octave finalizes at exit
%! if (__muon_comm__ ("have_mpi"))
%!   c = muon_comm ("mpi");
%!   assert (c.kind, "mpi");
%!   if (isempty (getenv ("OMPI_COMM_WORLD_SIZE")))
%!     assert ([c.size c.rank c.local_ranks], [1 0 1]);
%!   endif
%!   assert (c.counts, "modelled");
%!   assert (c.reduction, "fixed");
%!   c2 = muon_comm ("mpi", "reduction", "MPI");
%!   assert (c2.reduction, "mpi");
%! else                                 # built without MPI: a clean notBuilt
%!   try
%!     muon_comm ("mpi");
%!     error ("no error raised");
%!   catch err
%!     assert (err.identifier, "muonlab:notBuilt");
%!     assert (strncmp (err.message, "muon_comm: the MPI communicator is not built", 44));
%!   end_try_catch
%! endif

%!test
%! ## NCCL: one rank on a GPU machine, else a clean noDevice (notBuilt without libmuon_nccl.so)
%! try
%!   c = muon_comm ("nccl");
%!   assert ([c.size c.local_ranks], [1 1]);
%!   assert (muon_collective (c, "allreduce", [1 2]), [1 2]);
%! catch err
%!   assert (any (strcmp (err.identifier, {"muonlab:noDevice", "muonlab:notBuilt"})),
%!           err.identifier);
%!   assert (strncmp (err.message, "muon_comm: nccl: ", 17), err.message);
%! end_try_catch

%!error <Invalid call> muon_comm ()
%!error <muon_comm: KIND must be 'self', 'sim', 'mpi' or 'nccl'.> muon_comm ("tcp")
%!error <muon_comm: N must be given for a 'sim' communicator.> muon_comm ("sim")
%!error <muon_comm: N must be a positive integer.> muon_comm ("sim", 0)
%!error <muon_comm: N must be a positive integer.> muon_comm ("sim", 2.5)
%!error <muon_comm: N must be at most 65536.> muon_comm ("sim", 65537)
%!error <muon_comm: REDUCTION must be 'fixed'.> muon_comm ("sim", 2, "Reduction", "mpi")
%!error <muon_comm: REDUCTION must be 'fixed' or 'mpi'.> muon_comm ("mpi", "Reduction", "nccl")
%!error <^muon_comm: unknown option 'Root': an option of muon_collective, not of muon_comm\. Options: Reduction\.$> muon_comm ("self", "Root", 1)
%!error <muon_comm: options must be NAME, VALUE pairs.> muon_comm ("self", "Reduction")
%!error <muon_comm: N must be a positive integer\.> muon_comm ("sim", -1)
%!error id=muonlab:badArg muon_comm ("sim", -1)
