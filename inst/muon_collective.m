## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {[@var{Y}, @var{info}] =} muon_collective (@var{comm}, @qcode{"allreduce"}, @var{X})
## @deftypefnx {muonlab} {[@var{Y}, @var{info}] =} muon_collective (@var{comm}, @qcode{"reduce_scatter"}, @var{X})
## @deftypefnx {muonlab} {[@var{Y}, @var{info}] =} muon_collective (@var{comm}, @qcode{"all_gather"}, @var{X})
## @deftypefnx {muonlab} {[@var{Y}, @var{info}] =} muon_collective (@var{comm}, @qcode{"broadcast"}, @var{X})
## @deftypefnx {muonlab} {[@var{Y}, @var{info}] =} muon_collective (@var{comm}, @qcode{"all_to_all"}, @var{X})
## @deftypefnx {muonlab} {@var{info} =} muon_collective (@var{comm}, @qcode{"barrier"})
## @deftypefnx {muonlab} {@var{S} =} muon_collective (@var{comm}, @qcode{"counters"})
## @deftypefnx {muonlab} {@dots{} =} muon_collective (@dots{}, @var{name}, @var{value})
## Run one collective of the communicator @var{comm} (from @code{muon_comm}) on double or
## single arrays.
##
## @var{comm} is a handle from @code{muon_comm}, or the name @qcode{"self"} or
## @qcode{"sim"} (one simulated rank); an @qcode{"mpi"} or @qcode{"nccl"} communicator
## must be a handle (the name alone is @code{muonlab:badArg}).
##
## @var{X} holds one array per rank this process drives: a 1 x W cell for a
## @qcode{"sim"} communicator of W ranks, the rank's own array for @qcode{"self"},
## @qcode{"mpi"} and @qcode{"nccl"} (a 1 x 1 cell is accepted too).  Every rank passes the
## same class and number of elements.  @var{Y} comes back in the same form, each rank's
## shaped from its own @var{X} (under @qcode{"sim"} too):
## @table @asis
## @item @qcode{"allreduce"}
## the sum (or average) over the ranks, shaped like @var{X}.
## @item @qcode{"reduce_scatter"}
## rank r's block of the sum: the elements @code{r*c+1 : (r+1)*c} of @code{X(:)} with
## @code{c = numel (X) / W} (which must be an integer), shaped m x n/W when W divides the
## columns n of an m x n @var{X} (the columns @code{r*n/W+1 : (r+1)*n/W}), else a column.
## @item @qcode{"all_gather"}
## every rank's @var{X} side by side, rank 0 first: m x (n W), or a column for arrays of
## more than two dimensions.
## @item @qcode{"broadcast"}
## the root rank's @var{X} (option @qcode{"Root"}, default 0).
## @item @qcode{"all_to_all"}
## the personalized exchange: @code{X(:)} is cut into W blocks of @code{c = numel (X) / W}
## elements (which must be an integer; the columns @code{q*n/W+1 : (q+1)*n/W} of an m x n
## @var{X} when W divides n), block q goes to rank q, and @var{Y}, shaped like @var{X},
## holds in its block q what rank q sent this rank.  The core's all-to-all also takes
## blocks of different sizes (@code{zero_muon_step}'s all-to-all owner design uses it).
## @end table
## Reductions add in rank order 0..W-1 in the class of @var{X} and divide once by W for an
## average (option @qcode{"Op"}, @qcode{"sum"} (default) or @qcode{"avg"}): see
## @code{muon_comm}.
##
## @var{info} (a @code{muon_comm_info}: typing it prints a row per local rank, its title
## saying which rank each row is (under MPI and NCCL, one line naming this process's rank),
## @code{struct (info)} gives the plain struct; the same for the counters) describes this call: @code{coll}, @code{counts} (@qcode{"measured"} or
## @qcode{"modelled"}) and, one entry per local rank (column vectors), @code{calls},
## @code{sent} and @code{recv} (bytes), and @code{model_sent} / @code{model_recv}, the
## model of the same call (an all-reduce of n elements is a reduce-scatter over W chunks
## then an all-gather, what the simulator moves: a rank whose chunk has len elements sends
## and receives (n - len) + (W-1) len, the ring's 2 (W-1)/W n when W divides n; (W-1) c
## for reduce-scatter and all-gather of c per rank, and for an all-to-all of blocks of c;
## a chain for broadcast).
##
## @qcode{"counters"} returns, per collective kind, the @code{calls}, @code{sent} and
## @code{recv} of the process's @qcode{"mpi"} or @qcode{"nccl"} communicator since it was
## made, as counted by this function (zero for @qcode{"self"} and @qcode{"sim"}, which are
## made for each call; handles of either @qcode{"Reduction"} share the process's
## communicator, so its counters count both); option @qcode{"Reset"}, true clears them.
##
## Options (names are case-insensitive; each used by the collectives named):
## @table @asis
## @item "Op"
## @qcode{"sum"} (default) or @qcode{"avg"}: allreduce, reduce_scatter.
## @item "Root"
## the rank whose @var{X} is sent (default 0): broadcast.
## @item "Reset"
## false (default); true clears the counters after reading them: counters.
## @end table
##
## Under MPI and NCCL the ranks first agree (one small all-gather on the process's
## communicator of the kind, whatever the handle's reduction): every rank must pass the
## same collective, class of @var{X}, number of elements, root, op and communicator (its
## kind and @qcode{"Reduction"}), else every rank raises the same @code{muonlab:badArg}
## naming what differs, and a rank whose own checks failed makes the others raise too
## (one whose @var{comm} is no communicator at all, such as @code{[]} or a number, joins
## them on the process's MPI communicator when MPI is live in it, and waits there for the
## others' next agreement rather than pair with a later call).
## Each rank must still make the same calls in the same order, or the job waits forever
## (use @code{muon_mpirun}, which ends every rank when one fails).
##
## @example
## [Y, info] = muon_collective (muon_comm ("sim", 2), "reduce_scatter", @{[1 2], [3 4]@})
## # Y = @{4, 6@}; info.sent = [8; 8]
## @end example
## @seealso{muon_comm, muon_mpirun}
## @end deftypefn

function [Y, info] = muon_collective (comm, coll, varargin)
  fname = "muon_collective";
  try                                    # (a rank whose checks fail joins the agreement)
    if (nargin < 2)
      print_usage ();
    endif
    if (! comm_form (comm))
      error ("muonlab:badArg", "muon_collective: COMM must be a communicator from muon_comm.");
    endif
    if (ischar (comm) && ! any (strcmpi (comm, {"self", "sim"})))
      ## a name resolves to the process's communicator, but only a handle says which
      ## reduction the ranks use, and a name of "mpi" looks like a local communicator
      hint = "";                        # a call that makes one, for the names it takes
      if (any (strcmpi (comm, {"mpi", "nccl"})))
        hint = sprintf (" (use muon_comm (\"%s\"))", lower (comm));
      endif
      error ("muonlab:badArg",
             "muon_collective: COMM must be \"self\", \"sim\" or a handle from muon_comm, not the name '%s'%s.",
             comm, hint);
    endif
    coll = choose_option (fname, "COLL", coll, [core_lists().lists.coll, {"counters"}]);
    takes_x = ! any (strcmp (coll, {"barrier", "counters"}));
    X = [];
    if (takes_x)
      if (isempty (varargin))
        error ("muonlab:badArg", "muon_collective: X must be given for %s.", coll);
      endif
      X = varargin{1};
      varargin(1) = [];
      if (iscell (X))
        ok = all (cellfun (@is_float_array, X(:)));
      else
        ok = is_float_array (X);
      endif
      if (! ok)
        error ("muonlab:badType",
               "muon_collective: X must be a real double or single array, or a cell of them.");
      endif
    endif
    o = parse_options (fname, "muon_collective", varargin);
    if (! takes_x && nargout > 1)          # barrier and counters have one output
      print_usage ();
    endif
    ## the gateway's own checks of X (its shape, its cells) before the ranks agree (a rank
    ## that failed them after would pair its next call's agreement with the others'
    ## collective); on every communicator: whether it spans several processes is the
    ## gateway's to know, not the handle's editable fields
    if (takes_x)
      __muon_comm__ ("check", comm, X, coll);
    endif
  catch err
    if (nargin < 2)
      coll = "";
    endif
    if (nargin < 1 || ! comm_form (comm))
      comm = {};                         # no communicator ([] too): comm_agree joins on the
    endif                                # process's MPI one when MPI is live
    agree (fname, comm, coll);
    rethrow (err);
  end_try_catch
  agree (fname, comm, coll, takes_x, X, o);
  switch (coll)
    case {"allreduce", "reduce_scatter"}
      [Y, info] = __muon_comm__ (coll, comm, X, o.op);
    case {"all_gather", "all_to_all"}
      [Y, info] = __muon_comm__ (coll, comm, X);
    case "broadcast"
      [Y, info] = __muon_comm__ (coll, comm, X, o.root);
    case "barrier"
      Y = __muon_comm__ (coll, comm);
    otherwise
      Y = __muon_comm__ (coll, comm, o.reset);
  endswitch
  ## typed, they print a row per rank, from this process's first (its own under MPI / NCCL)
  first = 0;
  if (isstruct (comm) && isfield (comm, "rank") && isnumeric (comm.rank)
      && isscalar (comm.rank) && isreal (comm.rank) && comm.rank >= 0
      && comm.rank == fix (comm.rank))
    first = comm.rank;
  endif
  if (nargout > 1)
    info = muon_comm_info (info, first);
  elseif (isstruct (Y))
    Y = muon_comm_info (Y, first);
  endif
endfunction

## A scalar struct or a name: a COMM the gateway may read.
function ok = comm_form (comm)
  ok = (isstruct (comm) && isscalar (comm)) || (ischar (comm) && isrow (comm));
endfunction

## Under MPI / NCCL every rank must call the same collective with the same class, count,
## root and reduction (all_to_all's blocks are checked by the collective itself): else
## one error on every rank, where MPI would hang, truncate, or pair unlike data.
## Called with three arguments by a rank whose own checks failed: it joins the agreement.
function agree (fname, comm, coll, takes_x, X, o)
  if (strcmp (coll, "counters"))
    return;
  endif
  names = {"collective", "class of X", "number of elements of X", "ROOT", "OP"};
  if (nargin == 3)
    comm_agree (fname, comm, [], names);
    return;
  endif
  colls = core_lists ().lists.coll;
  sig = [find(strcmp (coll, colls)), -1, -1, -1, -1];
  if (takes_x)                          # (all_to_all's blocks may differ in size, never
    x = X;                              # in class)
    if (iscell (x) && ! isempty (x))
      x = x{1};
    endif
    sig(2:3) = [1 + isa(x, "single"), merge(strcmp (coll, "all_to_all"), -1, numel (x))];
  endif
  if (strcmp (coll, "broadcast"))
    sig(4) = o.root;
  elseif (any (strcmp (coll, {"allreduce", "reduce_scatter"})))
    sig(5) = find (strcmpi (o.op, core_lists ().lists.reduce_op));
  endif
  comm_agree (fname, comm, sig, names,
              {colls, {"double", "single"}, [], [], core_lists().lists.reduce_op});
endfunction

function ok = is_float_array (x)
  ok = (isa (x, "double") || isa (x, "single")) && isreal (x) && ! issparse (x);
endfunction

%!demo
%! ## four simulated ranks: an all-reduce, a reduce-scatter and what each rank sent
%! comm = muon_comm ("sim", 4);
%! Y = muon_collective (comm, "allreduce", {1, 2, 3, 4})        # {10, 10, 10, 10}
%! [Y, info] = muon_collective (comm, "reduce_scatter", {1:4, 5:8, 9:12, 13:16});
%! Y                                                            # rank r gets element r of the sum
%! info.sent.'                                                  # bytes per rank

%!shared c2, c4
%! c2 = muon_comm ("sim", 2);
%! c4 = muon_comm ("sim", 4);

%!test
%! [Y, info] = muon_collective (c4, "allreduce", {1, 2, 3, [4]});
%! assert (Y, {10, 10, 10, 10});
%! assert (info.coll, "allreduce");
%! assert (info.calls, ones (4, 1));
%! Y = muon_collective (c4, "allreduce", {1, 2, 3, 4}, "Op", "AVG");
%! assert (Y, {2.5, 2.5, 2.5, 2.5});

%!test
%! ## the fixed order: (((x0 + x1) + x2) + x3) in single, not a pairwise sum
%! x = single ([1e8, 1, -1e8, 1]);
%! Y = muon_collective (c4, "allreduce", num2cell (x));
%! assert (Y{1}, ((x(1) + x(2)) + x(3)) + x(4));
%! assert (class (Y{1}), "single");

%!test
%! [Y, info] = muon_collective (c2, "reduce_scatter", {[1 2; 3 4], [10 20; 30 40]});
%! assert (Y, {[11; 33], [22; 44]});
%! assert (info.sent, [16; 16]);
%! assert (info.sent, info.model_sent);
%! Y = muon_collective (c2, "reduce_scatter", {1:6, 1:6}, "Op", "avg");
%! assert (Y, {1:3, 4:6});

%!test
%! [Y, info] = muon_collective (c2, "all_gather", {[1; 2], [3; 4]});
%! assert (Y, {[1 3; 2 4], [1 3; 2 4]});
%! assert (info.recv, [16; 16]);
%! assert (info.recv, info.model_recv);

%!test
%! [Y, info] = muon_collective (c4, "broadcast", {1, 2, 3, 4}, "Root", 2);
%! assert (Y, {3, 3, 3, 3});
%! assert (info.sent, [8; 0; 8; 8]);   # the chain 2 -> 3 -> 0 -> 1
%! assert (info.recv, [8; 8; 0; 8]);
%! assert ([info.sent info.recv], [info.model_sent info.model_recv]);

%!test
%! ## all-to-all: block q of rank r's X lands in block r of rank q's Y (a transpose of blocks)
%! randn ("state", 5);
%! X = arrayfun (@(r) randn (3, 8), 1:4, "UniformOutput", false);
%! [Y, info] = muon_collective (c4, "all_to_all", X);
%! for r = 1:4
%!   for q = 1:4
%!     assert (Y{q}(:, 2*r-1:2*r), X{r}(:, 2*q-1:2*q));
%!   endfor
%! endfor
%! assert (info.coll, "all_to_all");
%! assert (info.calls, ones (4, 1));
%! assert (info.sent, repmat (3 * 6 * 8, 4, 1));   # three blocks of 6 doubles to the others
%! assert ([info.sent info.recv], [info.model_sent info.model_recv]);
%! Y = muon_collective (c2, "all_to_all", {single(1:4), single(5:8)});
%! assert (Y, {single([1 2 5 6]), single([3 4 7 8])});
%! assert (muon_collective ("self", "all_to_all", [1 2; 3 4]), [1 2; 3 4]);

%!test
%! info = muon_collective (c2, "barrier");
%! assert (info.calls, [1; 1]);
%! S = muon_collective ("self", "counters");
%! assert (S.allreduce.calls, 0);

%!test
%! ## allreduce bytes: 2 (W-1)/W n elements each way when W divides n
%! [~, info] = muon_collective (c4, "allreduce", repmat ({zeros(8, 1)}, 1, 4));
%! assert (info.sent, repmat (2 * 3 / 4 * 8 * 8, 4, 1));
%! assert (info.counts, "measured");

%!error <Invalid call> muon_collective (c2)
%!error <muon_collective: X must be a 1 x 3 cell, one array per local rank.> muon_collective (muon_comm ("sim", 3), "allreduce", {})
%!error <muon_collective: X must be a 1 x 1 cell, one array per local rank.> muon_collective (muon_comm ("self"), "all_to_all", cell (1, 0))
%!error <muon_collective: COMM must be a communicator from muon_comm.> muon_collective (2, "barrier")
%!error <muon_collective: COMM must be "self", "sim" or a handle from muon_comm, not the name 'foo'\.> muon_collective ("foo", "allreduce", {1, 2})
%!error <muon_collective: COMM must be "self", "sim" or a handle from muon_comm, not the name 'MPI' \(use muon_comm \("mpi"\)\)\.> muon_collective ("MPI", "barrier")
%!error <muon_collective: COMM must be "self", "sim" or a handle from muon_comm, not the name 'nccl' \(use muon_comm \("nccl"\)\)\.> muon_collective ("nccl", "barrier")
%!error <muon_collective: COLL must be 'allreduce', 'reduce_scatter', 'all_gather', 'broadcast', 'barrier', 'all_to_all' or 'counters'; did you mean 'all_gather'\?> muon_collective (c2, "gather", {1, 2})
%!error <muon_collective: X must be given for allreduce.> muon_collective (c2, "allreduce")
%!error <muon_collective: X must be a real double or single array, or a cell of them.> muon_collective (c2, "allreduce", {1, int8(2)})
%!error <muon_collective: OP must be 'sum' or 'avg'.> muon_collective (c2, "allreduce", {1, 2}, "Op", "max")
%!error <muon_collective: ROOT must be a non-negative integer.> muon_collective (c2, "broadcast", {1, 2}, "Root", -1)
%!error <^muon_collective: unknown option 'Foo'\. Options: .*\.$> muon_collective (c2, "barrier", "Foo", 1)
%!error <muon_collective: RESET must be true or false.> muon_collective (c2, "counters", "Reset", "avg")
%!error <Invalid call> [s, t] = muon_collective (c2, "counters")
%!error <muon_collective: X must be a 1 x 2 cell, one array per local rank.> muon_collective (c2, "allreduce", {1, 2, 3})
%!error <muon_collective: every rank's X must have the same class and number of elements.> muon_collective (c2, "allreduce", {1, [2 3]})
%!error <muon_collective: X must have a multiple of 2 elements \(the world size\), not 3.> muon_collective (c2, "reduce_scatter", {1:3, 1:3})
%!error <muon_collective: X must have a multiple of 2 elements \(the world size\), not 3.> muon_collective (c2, "all_to_all", {1:3, 1:3})
%!error <muon_collective: broadcast: root 5 out of range \(world 2\).> muon_collective (c2, "broadcast", {1, 2}, "Root", 5)
%!error <muon_collective: unknown communicator kind 'tcp'\.> muon_collective (struct ("kind", "tcp"), "barrier")
%!error id=muonlab:badArg muon_collective (struct ("kind", "tcp"), "barrier")
%!test
%! ## each sim rank's Y is shaped from its own X, as under MPI (where every rank has only its
%! ## own): all_gather m x (n W), reduce_scatter m x n/W, else a column (they took rank 0's)
%! c = muon_comm ("sim", 2);
%! A = reshape (1:6, 2, 3); B = reshape (11:16, 3, 2);
%! Y = muon_collective (c, "all_gather", {A, B});
%! assert (Y, {[A, reshape(B, 2, 3)], reshape([A(:); B(:)], 3, 4)});
%! A = reshape (1:8, 2, 4); B = reshape (11:18, 4, 2);
%! Y = muon_collective (c, "reduce_scatter", {A, B});
%! S = A(:) + B(:);
%! assert (Y, {reshape(S(1:4), 2, 2), S(5:8)});
%! Y = muon_collective (c, "reduce_scatter", {1:4, (1:4)'});
%! assert (Y, {[2 4], [6; 8]});

%!test
%! ## an m x 0 X is a matrix: all_gather gives m x 0, reduce_scatter m x 0 (W divides 0)
%! c = muon_comm ("sim", 2);
%! Y = muon_collective (c, "all_gather", {zeros(3, 0), zeros(3, 0)});
%! assert (size (Y{1}), [3 0]);
%! Y = muon_collective (c, "reduce_scatter", {zeros(3, 0), zeros(3, 0)});
%! assert (size (Y{2}), [3 0]);
