## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef muon_gpuarray < handle
  ## -*- texinfo -*-
  ## @deftypefn {muonlab} {@var{D} =} muon_gpuarray (@dots{})
  ## A device array: an M x N or M x N x E array that lives on a device, made by
  ## @code{muon_gpu}, never by calling this constructor (it refuses, as
  ## @code{muonlab:badArg}, a handle that a device array holds already or whose array has
  ## another size, class or device than the ones given).
  ##
  ## @code{muon_ns}, @code{muon_update} and @code{polar_metrics} take device arrays;
  ## @code{muon_ns} and @code{muon_update} compute where the data lives and return device
  ## arrays, with no copy to the host.  @code{gather (@var{D})} copies the data to the host
  ## (double for a double array, single otherwise: a bf16 or fp16 array holds 16-bit values,
  ## which single represents exactly).
  ##
  ## Methods: @code{gather}, @code{size}, @code{ndims}, @code{rows}, @code{columns},
  ## @code{classUnderlying} (the storage class: @qcode{"double"}, @qcode{"single"},
  ## @qcode{"bf16"} or @qcode{"fp16"}; @code{class (@var{D})} is
  ## @qcode{"muon_gpuarray"}), @code{device} (@qcode{"cuda"}, or @qcode{"cpu"}: the stand-in
  ## device of the self-tests) and @code{disp}.  The read-only properties @code{Handle},
  ## @code{Size}, @code{Storage} and @code{Device} hold the same.
  ##
  ## @code{numel (@var{D})} counts the elements on the device.  Indexing a device array,
  ## @code{@var{D}(@dots{})}, is the error @code{muonlab:unsupported}: @code{gather} first.
  ## So is assigning into one (@code{@var{D}(@dots{}) = @var{X}}, @code{@var{D}@{@dots{}@} =
  ## @var{X}}, and @code{@var{B}(2) = @var{D}}, which would make an array of device arrays):
  ## gather it, change it and make it again with @code{muon_gpu}.  Octave 7 refuses
  ## @code{@var{D}.Size = @var{X}} (any property) itself before asking the class, with its
  ## error @qcode{"invalid dot name structure assignment because the structure array is
  ## empty@dots{}"} and no identifier (the same @code{muonlab:unsupported} for a 1 x 1
  ## array).
  ##
  ## Arithmetic, what @code{muon_step} needs to keep parameters and gradients on the device:
  ## @code{@var{D} + @var{E}} and @code{@var{D} - @var{E}} (two device arrays of one size,
  ## class and device), @code{-@var{D}}, @code{@var{D} * s}, @code{s * @var{D}} and
  ## @code{@var{D} / s} (@code{.*}, @code{./} alike; s a real scalar).  Each gives a new
  ## array on @var{D}'s device, of the class Octave gives the same operation on host arrays,
  ## every element rounded as Octave rounds it: @var{D}'s class, but single for a double
  ## @var{D} and a single s (@var{D} rounded to single, then the operation in single, as
  ## Octave computes double times single); a double s is rounded to single for a single
  ## array, as Octave does; a bf16 / fp16 array computes in single and rounds once into
  ## its class.  A deleted or stale operand is named by its place in the rule
  ## (@qcode{"A in A * B"}: Octave gives an operator's operands no names).  @code{isequal} and @code{isequaln} compare the values (of device and host
  ## arrays alike) and @code{size_equal} the sizes; @code{+@var{D}} is @var{D}.  Indexing,
  ## concatenation, mixing with host arrays and Octave's common functions of arrays
  ## (@code{@var{D}'}, @code{@var{D} .^ 2}, @code{@var{D} == @var{E}}, @code{abs},
  ## @code{sum}, @code{any}, @code{mod}, @code{cos}, @code{svd}, @code{median},
  ## @code{double}, @code{int32} @dots{}: the methods list them) are the error
  ## @code{muonlab:unsupported} naming the function (or @code{muonlab:badArg} for an
  ## operator above with the wrong operands): @code{gather} first.  Concatenation written
  ## with brackets (@code{[@var{D} @var{D}]}, @code{[@var{D}; @var{D}]},
  ## @code{[@var{D}, 1]}) reaches the same error, but Octave 7 wraps it: the message is
  ## Octave's @qcode{"muon_gpuarray/horzcat method failed"} (or @code{vertcat}) with no
  ## identifier; @code{horzcat}, @code{vertcat} and @code{cat} called by name give
  ## @code{muonlab:unsupported}.  A function not listed
  ## gives Octave's own error for an object; @code{isnumeric}, @code{isfloat} and
  ## @code{isreal} answer false, as for any object (@code{classUnderlying} tells the class).
  ## A device array as a condition (@code{if @var{D}}, @code{@var{D} && @var{x}}) is
  ## false whatever its values, as any object is in Octave: gather it and test the values.
  ## @code{cellfun}'s names by string (@code{cellfun ("numel", @var{C})}, @qcode{"size"},
  ## @qcode{"ndims"}) do not call a class's methods in Octave 7 and answer for the object
  ## (1, 1 x 1, 2): give a function handle (@code{cellfun (@@numel, @var{C})}).  Inside a
  ## struct or a cell, Octave shows a device array as its properties (Size, Storage,
  ## Device).
  ##
  ## @code{save} cannot store a device array (Octave 7 does not call a class's
  ## @code{saveobj}): the text and binary formats (the default, @code{-binary},
  ## @code{-text}) give Octave's error @qcode{"wrong type argument 'object'"}, and the
  ## MAT-file formats (@code{-v6}, @code{-v7}) write a struct of its properties (a handle
  ## of this session, not the data).  Gather it and save the host array;
  ## @code{muon_save_state} gathers an optimizer state itself.
  ##
  ## A device array is a handle: copies of @var{D} share the data, which is freed when the
  ## last of them is cleared.  The functions never modify an array they are given; they
  ## return new ones.  After @code{muon_gpu ("reset")} every device array of the session is
  ## gone, and using one is the error @code{muonlab:staleHandle}; so is using @var{D} after
  ## @code{delete (@var{D})}, which frees its data at once (the error says it was
  ## deleted).  @code{clear functions} (or @code{clear all}) frees them too, but Octave 7
  ## then unloads this class as well: the
  ## old variables lose their methods (@code{size} says 1 x 1) until the next
  ## @code{muon_gpu} call loads it again, when they are stale.  Octave 7's @code{clear mex}
  ## unloads nothing: the arrays stay.
  ##
  ## @seealso{muon_gpu, muon_ns, muon_update}
  ## @end deftypefn

  properties (SetAccess = private)
    Handle = [];      # [SESSION ID] in __muon_gpu__'s table
    Size = [0 0];
    Storage = "";     # double | single | bf16 | fp16
    Device = "";      # cuda | cpu
  endproperties

  methods

    function D = muon_gpuarray (h, sz, storage, device)
      if (nargin != 4 || ! (isnumeric (h) && numel (h) == 2))
        error ("muonlab:badArg",
               "muon_gpuarray: make a device array with muon_gpu, e.g. muon_gpu (X).");
      endif
      ## the gateway refuses a handle whose array has another shape, class or device, or
      ## that a device array holds already (two owners: the first cleared frees the data
      ## of both), and marks it held; the handle last, so that an object holding it is
      ## complete (its destructor frees the array)
      if (numel (sz) == 3 && sz(3) == 1)  # as size () gives it: [m n], not [m n 1]
        sz = sz(1:2);
      endif
      D.Size = sz;
      D.Storage = storage;
      D.Device = device;
      D.Handle = __muon_gpu__ ("claim", h, sz, storage, device);
    endfunction

    function delete (D)
      if (! isempty (D.Handle))
        try
          __muon_gpu__ ("free", D.Handle);   # a stale handle is ignored there
        catch
        end_try_catch
      endif
    endfunction

    function X = gather (D)
      try
        X = reshape (__muon_gpu__ ("gather", D.Handle), D.Size);
      catch err
        gpu_stale (err, "gather", arg_name (inputname (1), "D"));   # gather: R is ...
      end_try_catch
    endfunction

    function varargout = size (D, varargin)
      sz = D.Size;
      if (nargin > 1)                  # size (D, 3) of a matrix is 1, as Octave's
        d = [varargin{:}];
        if (! (isnumeric (d) && isreal (d) && ! isempty (d) && all (d >= 1 & d == fix (d))))
          error ("muonlab:badArg",
                 "muon_gpuarray: size: DIM must be positive integers, e.g. size (D, 1).");
        endif
        v = ones (1, numel (d));       # no vector of length max (DIM): size (D, 1e12) is 1
        in = (d(:).' <= numel (sz));
        v(in) = sz(d(in));
        varargout = {v};
        if (nargout > 1 && nargout == numel (d))
          varargout = num2cell (v);
        endif
      elseif (nargout <= 1)
        varargout = {sz};
      else
        full = [sz, ones(1, nargout - numel (sz))];
        varargout = num2cell ([full(1:nargout-1), prod(full(nargout:end))]);
      endif
    endfunction

    function n = ndims (D)
      n = numel (D.Size);
    endfunction

    ## The elements on the device (a handle object would count 1).  With indices (Octave
    ## asks it before D{...} = X), 1: the assignment then reaches subsasgn's error.
    function n = numel (D, varargin)
      if (nargin > 1)
        n = 1;
      else
        n = prod (D.Size);
      endif
    endfunction

    ## As for an array of D's size: its longest dimension, 0 when it has no element.
    function n = length (D)
      n = max (D.Size) * all (D.Size > 0);
    endfunction

    ## D.Property and D.method () as for any object; D(...) and D{...} are an error, where
    ## an object would return itself: the elements are on the device.
    function varargout = subsref (D, s)
      if (! strcmp (s(1).type, "."))
        error ("muonlab:unsupported",
               "muon_gpuarray: a device array cannot be indexed; gather (D) first.");
      endif
      n = nargout;
      if (n == 0 && any (strcmp (s(1).subs, properties (D))))
        n = 1;                         # D.Size at the prompt shows its value
      endif
      [varargout{1:n}] = builtin ("subsref", D, s);
    endfunction

    ## D(...) = X, D{...} = X, D.Prop = X: the elements are on the device, the properties
    ## read-only (D(2) = E, which would grow an object array, lands here too).  Called as
    ## subsasgn (S, IDX, D) (setfield, a wrapper's subsasgn) for another S, which Octave
    ## dispatches here for the device array VALUE: Octave's own assignment.
    function D = subsasgn (D, s, varargin)
      if (! isa (D, "muon_gpuarray"))
        D = builtin ("subsasgn", D, s, varargin{:});
        return;
      endif
      error ("muonlab:unsupported",
             "muon_gpuarray: a device array cannot be assigned into; gather it, change it and make it again with muon_gpu.");
    endfunction

    function r = rows (D)
      r = D.Size(1);
    endfunction

    function c = columns (D)
      c = D.Size(2);
    endfunction

    function c = classUnderlying (D)
      c = D.Storage;
    endfunction

    function d = device (D)
      d = D.Device;
    endfunction

    ## Arithmetic for the optimizer's steps on device parameters, each a new array on
    ## the same device, every element rounded as Octave rounds the same operation on host
    ## arrays of the class (a 16-bit class: in single, rounded once into the class):
    ## D + E and D - E (two device arrays of one size, class and device), D * s, s * D
    ## and D / s (a real scalar s, rounded to single for a single array as Octave does; a
    ## double D with a single s gives a single result, as Octave's double .* single):
    ## private/gpuarray_arith.m.

    function C = plus (A, varargin)
      C = gpuarray_arith ("+", {inputname(1), inputname(2)}, A, varargin{:});
    endfunction

    function C = minus (A, varargin)
      C = gpuarray_arith ("-", {inputname(1), inputname(2)}, A, varargin{:});
    endfunction

    function C = times (A, varargin)
      C = gpuarray_arith (".*", {inputname(1), inputname(2)}, A, varargin{:});
    endfunction

    function C = mtimes (A, varargin)
      C = gpuarray_arith ("*", {inputname(1), inputname(2)}, A, varargin{:});
    endfunction

    function C = rdivide (A, varargin)
      C = gpuarray_arith ("./", {inputname(1), inputname(2)}, A, varargin{:});
    endfunction

    function C = mrdivide (A, varargin)
      C = gpuarray_arith ("/", {inputname(1), inputname(2)}, A, varargin{:});
    endfunction

    function C = uminus (A)
      C = gpuarray_arith ("*", {arg_name(inputname (1), "A in -A"), ""}, A, -1);  # exact
    endfunction

    ## Concatenation would need the elements: an error (Octave's own names no rule).
    function C = horzcat (varargin)
      C = not_here ("concatenated");
    endfunction

    function C = vertcat (varargin)
      C = not_here ("concatenated");
    endfunction

    function C = cat (varargin)
      C = not_here ("concatenated");
    endfunction

    ## The size predicates answer for the arrays (the handle objects would all be 1 x 1),
    ## isequal for their values, as for host arrays.
    function tf = size_equal (varargin)
      sizes = cellfun (@size, varargin, "uniformoutput", false);
      tf = (nargin < 2 || isequal (sizes{:}));
    endfunction

    function tf = isequal (varargin)
      names = cell (1, nargin);
      for k = 1:nargin
        names{k} = inputname (k);      # the caller's names, for a stale array's error
      endfor
      values = host_values ("isequal", varargin, names);
      tf = isequal (values{:});
    endfunction

    function tf = isequaln (varargin)
      names = cell (1, nargin);
      for k = 1:nargin
        names{k} = inputname (k);      # the caller's names, for a stale array's error
      endfor
      values = host_values ("isequaln", varargin, names);
      tf = isequaln (values{:});
    endfunction

    function D = uplus (D)
    endfunction

    ## The rest of what Octave does to arrays needs the elements: an error naming the
    ## function (Octave's own errors name no rule, and some answer for the handle object:
    ## any (D) would be false).
    function C = power (varargin), C = not_defined ("power"); endfunction
    function C = mpower (varargin), C = not_defined ("mpower"); endfunction
    function C = ldivide (varargin), C = not_defined ("ldivide"); endfunction
    function C = mldivide (varargin), C = not_defined ("mldivide"); endfunction
    function C = ctranspose (varargin), C = not_defined ("ctranspose"); endfunction
    function C = transpose (varargin), C = not_defined ("transpose"); endfunction
    function C = eq (varargin), C = not_defined ("eq"); endfunction
    function C = ne (varargin), C = not_defined ("ne"); endfunction
    function C = lt (varargin), C = not_defined ("lt"); endfunction
    function C = le (varargin), C = not_defined ("le"); endfunction
    function C = gt (varargin), C = not_defined ("gt"); endfunction
    function C = ge (varargin), C = not_defined ("ge"); endfunction
    function C = and (varargin), C = not_defined ("and"); endfunction
    function C = or (varargin), C = not_defined ("or"); endfunction
    function C = not (varargin), C = not_defined ("not"); endfunction
    function C = double (varargin), C = not_defined ("double"); endfunction
    function C = single (varargin), C = not_defined ("single"); endfunction
    function C = logical (varargin), C = not_defined ("logical"); endfunction
    function C = full (varargin), C = not_defined ("full"); endfunction
    function C = real (varargin), C = not_defined ("real"); endfunction
    function C = imag (varargin), C = not_defined ("imag"); endfunction
    function C = conj (varargin), C = not_defined ("conj"); endfunction
    function C = abs (varargin), C = not_defined ("abs"); endfunction
    function C = sign (varargin), C = not_defined ("sign"); endfunction
    function C = sqrt (varargin), C = not_defined ("sqrt"); endfunction
    function C = exp (varargin), C = not_defined ("exp"); endfunction
    function C = log (varargin), C = not_defined ("log"); endfunction
    function C = floor (varargin), C = not_defined ("floor"); endfunction
    function C = ceil (varargin), C = not_defined ("ceil"); endfunction
    function C = round (varargin), C = not_defined ("round"); endfunction
    function C = fix (varargin), C = not_defined ("fix"); endfunction
    function C = sum (varargin), C = not_defined ("sum"); endfunction
    function C = prod (varargin), C = not_defined ("prod"); endfunction
    function C = cumsum (varargin), C = not_defined ("cumsum"); endfunction
    function C = cumprod (varargin), C = not_defined ("cumprod"); endfunction
    function C = mean (varargin), C = not_defined ("mean"); endfunction
    function C = max (varargin), C = not_defined ("max"); endfunction
    function C = min (varargin), C = not_defined ("min"); endfunction
    function C = norm (varargin), C = not_defined ("norm"); endfunction
    function C = dot (varargin), C = not_defined ("dot"); endfunction
    function C = trace (varargin), C = not_defined ("trace"); endfunction
    function C = diag (varargin), C = not_defined ("diag"); endfunction
    function C = sort (varargin), C = not_defined ("sort"); endfunction
    function C = find (varargin), C = not_defined ("find"); endfunction
    function C = nnz (varargin), C = not_defined ("nnz"); endfunction
    function C = any (varargin), C = not_defined ("any"); endfunction
    function C = all (varargin), C = not_defined ("all"); endfunction
    function C = reshape (varargin), C = not_defined ("reshape"); endfunction
    function C = permute (varargin), C = not_defined ("permute"); endfunction
    function C = squeeze (varargin), C = not_defined ("squeeze"); endfunction
    function C = repmat (varargin), C = not_defined ("repmat"); endfunction
    function C = isfinite (varargin), C = not_defined ("isfinite"); endfunction
    function C = isnan (varargin), C = not_defined ("isnan"); endfunction
    function C = isinf (varargin), C = not_defined ("isinf"); endfunction
    function C = isdiag (varargin), C = not_defined ("isdiag"); endfunction
    function C = istril (varargin), C = not_defined ("istril"); endfunction
    function C = istriu (varargin), C = not_defined ("istriu"); endfunction
    function C = isbanded (varargin), C = not_defined ("isbanded"); endfunction
    function C = issymmetric (varargin), C = not_defined ("issymmetric"); endfunction
    function C = ishermitian (varargin), C = not_defined ("ishermitian"); endfunction
    function C = num2str (varargin), C = not_defined ("num2str"); endfunction
    function C = mat2str (varargin), C = not_defined ("mat2str"); endfunction
    function C = mod (varargin), C = not_defined ("mod"); endfunction
    function C = rem (varargin), C = not_defined ("rem"); endfunction
    function C = cos (varargin), C = not_defined ("cos"); endfunction
    function C = sin (varargin), C = not_defined ("sin"); endfunction
    function C = tan (varargin), C = not_defined ("tan"); endfunction
    function C = tanh (varargin), C = not_defined ("tanh"); endfunction
    function C = cosh (varargin), C = not_defined ("cosh"); endfunction
    function C = sinh (varargin), C = not_defined ("sinh"); endfunction
    function C = atan (varargin), C = not_defined ("atan"); endfunction
    function C = log2 (varargin), C = not_defined ("log2"); endfunction
    function C = log10 (varargin), C = not_defined ("log10"); endfunction
    function C = sumsq (varargin), C = not_defined ("sumsq"); endfunction
    function C = hypot (varargin), C = not_defined ("hypot"); endfunction
    function C = cummax (varargin), C = not_defined ("cummax"); endfunction
    function C = cummin (varargin), C = not_defined ("cummin"); endfunction
    function C = issorted (varargin), C = not_defined ("issorted"); endfunction
    function C = svd (varargin), C = not_defined ("svd"); endfunction
    function C = inv (varargin), C = not_defined ("inv"); endfunction
    function C = det (varargin), C = not_defined ("det"); endfunction
    function C = eig (varargin), C = not_defined ("eig"); endfunction
    function C = pinv (varargin), C = not_defined ("pinv"); endfunction
    function C = rank (varargin), C = not_defined ("rank"); endfunction
    function C = median (varargin), C = not_defined ("median"); endfunction
    function C = std (varargin), C = not_defined ("std"); endfunction
    function C = var (varargin), C = not_defined ("var"); endfunction
    function C = mode (varargin), C = not_defined ("mode"); endfunction
    function C = int8 (varargin), C = not_defined ("int8"); endfunction
    function C = int16 (varargin), C = not_defined ("int16"); endfunction
    function C = int32 (varargin), C = not_defined ("int32"); endfunction
    function C = int64 (varargin), C = not_defined ("int64"); endfunction
    function C = uint8 (varargin), C = not_defined ("uint8"); endfunction
    function C = uint16 (varargin), C = not_defined ("uint16"); endfunction
    function C = uint32 (varargin), C = not_defined ("uint32"); endfunction
    function C = uint64 (varargin), C = not_defined ("uint64"); endfunction

    ## disp (D) prints one line; str = disp (D) returns it, as for any Octave value.  An
    ## array freed (delete, muon_gpu ("reset"), clear functions) says so.
    function str = disp (D)
      bytes = gpuarray_bytes (D.Size, D.Storage);
      what = sprintf ("%s %s device array on %s",
                      strjoin (arrayfun (@num2str, D.Size, "uniformoutput", false), "x"),
                      D.Storage, D.Device);
      try
        __muon_gpu__ ("check", D.Handle);
        s = sprintf ("  %s (%s); gather () copies it to the host\n", what, bytes);
      catch
        s = sprintf ("  %s, freed (deleted or reset): make it again\n", what);
      end_try_catch
      if (nargout > 0)
        str = s;
      else
        fputs (stdout, s);
      endif
    endfunction

    function display (D)
      name = inputname (1);
      if (isempty (name))
        name = "ans";
      endif
      printf ("%s =\n\n", name);
      disp (D);
      printf ("\n");
    endfunction

  endmethods

endclassdef

## NAME as the caller wrote it (inputname), else FALLBACK (an expression)
function name = arg_name (name, fallback)
  if (isempty (name))
    name = fallback;
  endif
endfunction

## The arguments of FNAME gathered to the host; a stale device array among them is named
## as the caller wrote it (NAMES{k}), else "argument K"
function values = host_values (fname, args, names)
  values = args;
  for k = 1:numel (args)
    if (isa (args{k}, "muon_gpuarray"))
      try
        values{k} = reshape (__muon_gpu__ ("gather", args{k}.Handle), args{k}.Size);
      catch err
        if (strncmp (err.message, "gather: ", 8))     # out of memory: FNAME's, not gather's
          err.message = [fname, err.message(7:end)];
        endif
        gpu_stale (err, fname, arg_name (names{k}, sprintf ("argument %d", k)));
      end_try_catch
    endif
  endfor
endfunction

function C = not_defined (fname)
  error ("muonlab:unsupported",
         "muon_gpuarray: %s is not defined for a device array; gather (D) first.", fname);
endfunction

function C = not_here (what)
  error ("muonlab:unsupported", "muon_gpuarray: a device array cannot be %s; gather (D) first.",
         what);
endfunction

%!demo
%! D = muon_gpu (magic (4), "Device", "cpu", "Class", "bf16")
%! size (D)
%! classUnderlying (D)
%! gather (D)
