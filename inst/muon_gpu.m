## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{D} =} muon_gpu (@var{X})
## @deftypefnx {muonlab} {@var{D} =} muon_gpu (@var{X}, @var{name}, @var{value}, @dots{})
## @deftypefnx {muonlab} {@var{E} =} muon_gpu (@var{D}, "Class", @var{class})
## @deftypefnx {muonlab} {@var{D} =} muon_gpu ("randn", @var{size}, @var{class}, @dots{})
## @deftypefnx {muonlab} {@var{D} =} muon_gpu ("zeros", @var{size}, @dots{})
## @deftypefnx {muonlab} {@var{info} =} muon_gpu ("info")
## @deftypefnx {muonlab} {} muon_gpu ("reset")
## Make a device array (@code{muon_gpuarray}): data that stays on the device between calls.
##
## @code{muon_gpu (@var{X})} copies the real double or single M x N or M x N x E array
## @var{X} (vectors too: an optimizer keeps the AdamW moments of its biases on the device)
## to the device, staged through pinned host memory and converted to the storage class on
## the device.  @code{muon_gpu ("randn", [M N E])} and
## @code{muon_gpu ("zeros", [M N E])} make the data on the device, so a model-sized
## benchmark needs no host copy; the normal stream is a pure function of the seed and the
## element's index (the same on every device, up to an ulp of the device's log and cos in
## double).  @code{muon_gpu (@var{D}, "Class", @var{class})} of a device array @var{D}
## makes a new array of @var{D}'s size on its device, converted there as an upload
## converts (the bits of @code{muon_gpu (gather (@var{D}), "Class", @var{class})});
## without @qcode{"Class"}, a copy in @var{D}'s class.  A device array does not move to
## another device: gather it first.
##
## @code{muon_ns}, @code{muon_update} and @code{polar_metrics} take device arrays; the
## first two run where the data lives and return device arrays (@code{muon_update} runs
## Muon itself there, with @qcode{"NormScale"} 1 and @qcode{"EpsPlacement"}
## @qcode{"add"}: another @qcode{"Algorithm"} or normalization, given or set by a
## @qcode{"Preset"}, is a @code{muonlab:unsupported} error; gather for it).  @code{muon_step} takes
## device parameters and gradients and returns the new parameters as device arrays
## (@code{muon_optimizer}'s @qcode{"Resident"}).  @code{gather} copies one back.
##
## Options:
## @table @asis
## @item "Device"
## @qcode{"cuda"} (default) or @qcode{"cpu"}: the CPU as a stand-in device, which runs
## the CPU code on host memory (the same bits as the host path, @code{muon_step}'s
## @qcode{"MomentumArith"} @qcode{"torch"} fused apply included) so that everything built
## on device arrays can be tried and tested without a GPU.
## @item "Class"
## the storage class: @qcode{"double"}, @qcode{"single"}, @qcode{"bf16"} or
## @qcode{"fp16"}; default the class of @var{X}, single for data made on the device.  A
## 16-bit array holds @var{X} rounded to nearest even; the functions compute from fp32
## copies of it and store their results back in its class.
## @item "Seed"
## the seed of @qcode{"randn"}, an integer in [0, 2^53] (default 0); given to any other
## call, an error.
## @end table
##
## @code{muon_gpu ("info")} returns a struct: @code{arrays} (the device arrays alive),
## @code{cpu_bytes} (held by those on the CPU stand-in), and @code{cuda_in_use} and
## @code{cuda_cached} (bytes held by arrays and kept by the caching pool on the CUDA
## device, after giving its free blocks and the work and staging buffers of earlier calls
## back; 0 before the first CUDA call).  @code{muon_gpu ("reset")} frees every device array
## of the session (they become stale: @code{muonlab:staleHandle}) and gives the pool's
## memory, and the work and staging buffers the calls grew, back to the driver.  Both reach
## the buffers of calls on host arrays with @qcode{"Device"}, @qcode{"cuda"} too
## (@code{muon_ns}, @code{muon_update}), which each function keeps between its calls.  An
## allocation that fails (device memory, or pinned host memory for staging) first takes
## back what the pool and the other functions keep between calls and tries once more.
## @code{clear functions} frees them too, but also unloads the
## device-array class, so the old variables lose their methods until the next
## @code{muon_gpu} call (see @code{muon_gpuarray}); Octave 7's @code{clear mex} unloads
## nothing, so it frees nothing.  @code{save} does not store a device array (see
## @code{muon_gpuarray}): gather it first.
##
## Errors: @code{muonlab:noDevice} or @code{muonlab:notBuilt} where there is no CUDA
## device or back end (@code{muon_info} says which), @code{muonlab:outOfMemory} for an
## array larger than the device can hold (nothing is kept, the session goes on; on CUDA a
## function's work space that does not fit too), @code{muonlab:noMemory} when host memory
## runs out (pinned staging memory; on the CPU stand-in, a function's work space, such as
## @code{muon_ns}'s, which lives in host memory),
## @code{muonlab:unsupported} for a call that mixes arrays of two devices.
##
## Example (on the CPU stand-in where there is no GPU):
## @example
## dev = merge (muon_info ().cuda_usable, "cuda", "cpu");
## G = muon_gpu ("randn", [1024 4096], "Class", "bf16", "Device", dev);
## [X, st] = muon_ns (G);          % where G lives; st.device_ms
## norm (gather (X) * gather (X)' - eye (1024))
## @end example
##
## @seealso{muon_gpuarray, muon_ns, muon_update, muon_info}
## @end deftypefn

function D = muon_gpu (X, varargin)
  if (nargin < 1)
    print_usage ();
  endif
  if (ischar (X))
    D = command (X, varargin);
    return;
  endif
  if (isa (X, "muon_gpuarray"))
    D = convert (X, varargin);
    return;
  endif
  if (! (isfloat (X) && isreal (X)) || issparse (X))   # the gateway checks finiteness
    error ("muonlab:badType", "muon_gpu: X must be a real double or single array.");
  endif
  if (isempty (X) || ndims (X) > 3)
    error ("muonlab:badShape", "muon_gpu: X must be a non-empty array of 2 or 3 dimensions.");
  endif
  o = parse_options ("muon_gpu", "muon_gpu", varargin);
  no_seed (varargin);
  if (isempty (o.class))
    o.class = class (X);
  endif
  mark = __muon_gpu__ ("mark");
  unwind_protect
    D = muon_gpuarray (__muon_gpu__ ("upload", X, o.device, o.class), size (X), o.class,
                       o.device);
  unwind_protect_cleanup
    __muon_gpu__ ("drop", mark);         # an array an error or Ctrl-C left unwrapped
  end_unwind_protect
endfunction

## a device array X in another storage class (or a copy in its own), on its device
function D = convert (X, args)
  o = parse_options ("muon_gpu", "muon_gpu", args);
  no_seed (args);
  if (any (strcmpi ("Device", args(1:2:end))) && ! strcmp (o.device, X.Device))
    error ("muonlab:unsupported",
           "muon_gpu: X is a device array on %s; a device array stays on its device (gather it, then muon_gpu (..., \"Device\", \"%s\")).",
           X.Device, o.device);
  endif
  if (isempty (o.class))
    o.class = X.Storage;
  endif
  mark = __muon_gpu__ ("mark");
  unwind_protect
    D = muon_gpuarray (__muon_gpu__ ("convert", X.Handle, o.class), X.Size, o.class,
                       X.Device);
  unwind_protect_cleanup
    __muon_gpu__ ("drop", mark);         # an array an error or Ctrl-C left unwrapped
  end_unwind_protect
endfunction

## "Seed" (parsed already: ARGS are NAME, VALUE pairs) is randn's alone; elsewhere it
## would be taken and ignored
function no_seed (args)
  if (any (strcmpi ("Seed", args(1:2:end))))
    error ("muonlab:badArg", "muon_gpu: \"Seed\" applies to \"randn\" only.");
  endif
endfunction

function out = command (cmd, args)
  if (any (strcmp (cmd, {"reset", "info"})) && ! isempty (args))
    error ("muonlab:badArg", "muon_gpu: '%s' takes no other argument.", cmd);
  endif
  switch (cmd)
    case {"randn", "zeros"}
      if (isempty (args))
        error ("muonlab:badShape", "muon_gpu: SIZE must be [M N] or [M N E].");
      endif
      sz = args{1};
      if (! (isnumeric (sz) && isreal (sz) && any (numel (sz) == [2 3]) && all (sz >= 1)
             && all (isfinite (sz)) && all (sz == fix (sz))))
        error ("muonlab:badShape",
               "muon_gpu: SIZE must be [M N] or [M N E] of positive integers.");
      endif
      if (any (sz > flintmax ()))          # past what the gateway reads exactly: no device
        error ("muonlab:outOfMemory",      # holds that many elements
               "muon_gpu: %s elements do not fit in memory.",
               strjoin (arrayfun (@num2str, [double(sz(:).'), 1](1:3), "uniformoutput", false),
                        " x "));
      endif
      rest = args(2:end);
      if (! isempty (rest) && ischar (rest{1})
          && (any (strcmpi (rest{1}, core_lists ().lists.precision))   # as "Class" takes it
              || (mod (numel (rest), 2) == 1
                  && ! any (strcmpi (rest{1}, option_spec ("muon_gpu").names))
                  && (numel (rest) == 1        # (a misspelt NAME before its VALUE: the
                      || any (strcmpi (rest{2}, option_spec ("muon_gpu").names))))))  # pairs error
        rest = [{"Class"}, rest];                # muon_gpu ("randn", SIZE, CLASS, ...): a
      endif                                      # wrong CLASS gets the CLASS error
      o = parse_options ("muon_gpu", "muon_gpu", rest);
      if (strcmp (cmd, "zeros"))
        no_seed (rest);
      endif
      if (isempty (o.class))
        o.class = "single";
      endif
      dims = double (sz(:).');
      if (numel (dims) == 3 && dims(3) == 1)
        dims = dims(1:2);
      endif
      mark = __muon_gpu__ ("mark");
      unwind_protect
        ## the MEX call finishes before a Ctrl-C is seen: the cleanup frees its array
        ## when the interrupt comes before the wrap
        out = muon_gpuarray (__muon_gpu__ ("fill", cmd, double (sz(:).'), o.device, o.class,
                                           o.seed), dims, o.class, o.device);
      unwind_protect_cleanup
        __muon_gpu__ ("drop", mark);
      end_unwind_protect
    case "reset"
      __muon_gpu__ ("reset");
      out = [];
    case "info"
      [cpu_bytes, ~] = __muon_gpu__ ("trim", "cpu");
      [in_use, cached] = __muon_gpu__ ("trim", "cuda");
      out = struct ("arrays", __muon_gpu__ ("count"), "cpu_bytes", cpu_bytes,
                    "cuda_in_use", in_use, "cuda_cached", cached);
    otherwise
      error ("muonlab:badArg",
             "muon_gpu: unknown command '%s'; use 'randn', 'zeros', 'info' or 'reset'.", cmd);
  endswitch
endfunction

%!demo
%! ## NS on a device array (the CPU stand-in where there is no GPU)
%! dev = merge (muon_info ().cuda_usable, "cuda", "cpu");
%! G = muon_gpu ("randn", [256 1024], "bf16", "Device", dev);
%! [X, st] = muon_ns (G);
%! x = gather (X);
%! printf ("%s: %.3f ms on the device, ||X X' - I|| / ||I|| = %.3f\n", dev, st.device_ms,
%!         norm (double (x) * double (x)' - eye (256), "fro") / 16);

%!test
%! ## a round trip is exact in the array's own class; 16-bit classes round to nearest even
%! randn ("state", 1);
%! X = randn (6, 9, 2);
%! assert (gather (muon_gpu (X, "Device", "cpu")), X);
%! assert (gather (muon_gpu (single (X), "Device", "cpu")), single (X));
%! assert (gather (muon_gpu (X, "Device", "cpu", "Class", "single")), single (X));
%! assert (gather (muon_gpu (X, "Device", "cpu", "Class", "bf16")), single (muon_round (X, "bf16")));
%! assert (gather (muon_gpu (X, "Device", "cpu", "Class", "fp16")), single (muon_round (X, "fp16")));

%!test
%! ## a device array converted on its device: the bits of rounding the host data, once
%! randn ("state", 2);
%! X = randn (5, 7, 3) .* 10 .^ randi ([-6 6], 5, 7, 3);
%! X(1) = 1 + 2^-9 + 2^-40;                 # just above a bf16 tie: up, not via a false tie
%! X(2) = 70000;                            # past fp16's range: Inf there
%! D = muon_gpu (X, "Device", "cpu");
%! for c = {"single", "bf16", "fp16"}
%!   E = muon_gpu (D, "Class", c{1});
%!   assert ([E.Storage, E.Device], [c{1}, "cpu"]);
%!   assert (size (E), [5 7 3]);
%!   assert (gather (E), single (muon_round (X, c{1})));
%!   assert (gather (muon_gpu (E, "Class", "double")), double (muon_round (X, c{1})));
%! endfor
%! S = muon_gpu (D, "Class", "single");
%! assert (gather (muon_gpu (S, "Class", "bf16")), single (muon_round (single (X), "bf16")));
%! C = muon_gpu (D);                        # a copy: its own array, the same values
%! assert (gather (C), X);
%! assert (! isequal (C.Handle, D.Handle));
%! assert (gather (D), X);                  # the source is untouched
%!error <muon_gpu: "Seed" applies to "randn" only\.> muon_gpu ("zeros", [2 3], "Device", "cpu", "Seed", 1)
%!error <muon_gpu: "Seed" applies to "randn" only\.> muon_gpu (ones (2), "Device", "cpu", "seed", 1)
%!error <muon_gpu: "Seed" applies to "randn" only\.> muon_gpu (muon_gpu (ones (2), "Device", "cpu"), "Class", "single", "Seed", 1)
%!error <muon_gpu: X is a device array on cpu; a device array stays on its device \(gather it, then muon_gpu \(\.\.\., "Device", "cuda"\)\)\.>
%! muon_gpu (muon_gpu (1, "Device", "cpu"), "Device", "cuda")
%!error <muon_gpu: CLASS must be 'double', 'single', 'bf16' or 'fp16'\.>
%! muon_gpu (muon_gpu (1, "Device", "cpu"), "Class", "half")
## the positional CLASS of "randn" / "zeros" gets the same error (it said "options must be
## NAME, VALUE pairs"); a dangling option name still gets the pairs error
%!error <^muon_gpu: CLASS must be 'double', 'single', 'bf16' or 'fp16'\.$>
%! muon_gpu ("randn", [3 3], "half", "Device", "cpu")
%!error <^muon_gpu: CLASS must be 'double', 'single', 'bf16' or 'fp16'\.$>
%! muon_gpu ("zeros", [3 3], "int8")
%!error <^muon_gpu: options must be NAME, VALUE pairs\.$>
%! muon_gpu ("zeros", [3 3], "Device")
## a misspelt name before its value and a CLASS after them: not "unknown option 'cpu'"
%!error <^muon_gpu: options must be NAME, VALUE pairs\.$>
%! muon_gpu ("zeros", [3 3], "Devic", "cpu", "single")

%!test
%! ## randn: a pure function of the seed; zeros are +0
%! A = gather (muon_gpu ("randn", [300 400], "Device", "cpu", "Seed", 5));
%! B = gather (muon_gpu ("randn", [300 400], "Device", "cpu", "Seed", 5, "Class", "double"));
%! C = gather (muon_gpu ("randn", [300 400], "Device", "cpu", "Seed", 6));
%! assert (gather (muon_gpu ("randn", [300 400], "double", "Device", "cpu", "Seed", 5)), B);
%! assert (class (A), "single");
%! assert (A, single (B));
%! assert (! isequal (A, C));
%! ## N(0, 1): mean and variance within 5 standard errors of 1.2e5 draws
%! assert (abs (mean (B(:))) < 5 / sqrt (numel (B)));
%! assert (abs (var (B(:)) - 1) < 5 * sqrt (2 / numel (B)));
%! ## the normal CDF at -1, 0, 1 against the empirical one (Kolmogorov bound, 1e-3 level)
%! p = arrayfun (@(t) mean (B(:) <= t), [-1 0 1]);
%! assert (abs (p - 0.5 * erfc (-[-1 0 1] / sqrt (2))) < 1.95 / sqrt (numel (B)));
%! Z = gather (muon_gpu ("zeros", [4 5 3], "Device", "cpu", "Class", "fp16"));
%! assert (size (Z), [4 5 3]);
%! assert (all (Z(:) == 0 & ! signbit (Z(:))));

%!test
%! ## info and reset: arrays counted and freed; a reset leaves stale handles
%! D = muon_gpu (ones (8), "Device", "cpu");
%! s = muon_gpu ("info");
%! assert (s.arrays >= 1);
%! assert (s.cpu_bytes >= 512);
%! muon_gpu ("reset");
%! assert (muon_gpu ("info").arrays, 0);
%! assert (muon_gpu ("info").cpu_bytes, 0);
%! fail ("gather (D)", "a device array of an earlier session");
%! clear D                                    # its destructor ignores the stale handle

%!test
%! ## clear of the gateway (as clear functions does): the arrays are gone, their handles stale
%! D = muon_gpu (ones (4), "Device", "cpu");
%! clear __muon_gpu__
%! try
%!   gather (D);
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "muonlab:staleHandle");
%!   assert (err.message, ["gather: D is a device array of an earlier session (cleared by " ...
%!                         "clear functions or muon_gpu (\"reset\")); make it again."]);
%! end_try_catch

%!test
%! ## no CUDA device here (or no back end): a clean error, nothing held
%! if (! muon_info ().cuda_usable)
%!   n0 = muon_gpu ("info").arrays;
%!   try
%!     muon_gpu (ones (3));
%!     error ("no error");
%!   catch err
%!     assert (any (strcmp (err.identifier, {"muonlab:noDevice", "muonlab:notBuilt"})));
%!   end_try_catch
%!   assert (muon_gpu ("info").arrays, n0);
%! endif

%!test
%! ## larger than the device: outOfMemory, nothing kept, the session goes on (also where
%! ## the bytes pass what an address holds: 2^62 doubles)
%! n0 = muon_gpu ("info").arrays;
%! for sz = {[1e6 1e6 1e3], [2^31 2^31]}
%!   try
%!     muon_gpu ("zeros", sz{1}, "Device", "cpu", "Class", "double");
%!     error ("no error");
%!   catch err
%!     assert (err.identifier, "muonlab:outOfMemory");
%!   end_try_catch
%! endfor
%! assert (muon_gpu ("info").arrays, n0);
%! assert (gather (muon_gpu (eye (2), "Device", "cpu")), eye (2));

%!error <muon_gpu: X must be a real double or single array.> muon_gpu ({1})
%!error <muon_gpu: X must be a non-empty array of 2 or 3 dimensions.> muon_gpu (ones (2, 2, 2, 2), "Device", "cpu")
%!error <muon_gpu: X must be a non-empty array of 2 or 3 dimensions.> muon_gpu (zeros (0, 3), "Device", "cpu")
%!error <muon_gpu: X must not contain NaN or Inf.> muon_gpu ([1 NaN; 2 3], "Device", "cpu")
%!error <muon_gpu: SIZE must be \[M N\] or \[M N E\] of positive integers.> muon_gpu ("randn", [2 0], "Device", "cpu")
%!error <^muon_gpu: SIZE must be \[M N\] or \[M N E\] of positive integers\.$> muon_gpu ("zeros", [Inf 3], "Device", "cpu")
%!error <^muon_gpu: SIZE must be \[M N\] or \[M N E\] of positive integers\.$> muon_gpu ("randn", [3 NaN], "Device", "cpu")
%!error <^muon_gpu: 9007199254740994 x 1 x 1 elements do not fit in memory\.$> muon_gpu ("zeros", [2^53+2 1], "Device", "cpu")
%!test                                  # a CLASS by position takes any case, as "Class"
%! assert (classUnderlying (muon_gpu ("randn", [3 3], "BF16", "Device", "cpu")), "bf16");
%! assert (gather (muon_gpu ("zeros", [2 2], "Double", "Device", "cpu")), zeros (2));
%!error <^muon_gpu: 1e\+300 x 1e\+300 x 1 elements do not fit in memory\.$> muon_gpu ("zeros", [1e300 1e300], "Device", "cpu")
%!error <^muon_gpu: 2 x 3 x 1e\+20 elements do not fit in memory\.$> muon_gpu ("randn", [2 3 1e20], "Device", "cpu")
%!error id=muonlab:outOfMemory muon_gpu ("zeros", [2^53+2 1], "Device", "cpu")
%!error <muon_gpu: unknown command 'ones'; use 'randn', 'zeros', 'info' or 'reset'.> muon_gpu ("ones")
%!error <muon_gpu: 'info' takes no other argument.> muon_gpu ("info", 3)
%!error <muon_gpu: 'reset' takes no other argument.> muon_gpu ("reset", "cpu")
%!error <muon_gpu: DEVICE must be 'cpu' or 'cuda'; did you mean 'cpu'\?> muon_gpu (eye (2), "Device", "tpu")
%!error id=muonlab:badArg muon_gpu (eye (2), "Device", "tpu")
%!error <muon_gpu: CLASS must be 'double', 'single', 'bf16' or 'fp16'\.> muon_gpu (eye (2), "Class", "int8")
%!error id=muonlab:badArg muon_gpu (eye (2), "Class", "int8")
%!test                                  # CLASS alone: any of the core's precisions
%! for p = __muon_lists__ ().lists.precision
%!   D = muon_gpu ("zeros", [2 3], p{1}, "Device", "cpu");
%!   assert (classUnderlying (D), p{1});
%! endfor
%!error <^muon_gpu: CLASS must be 'double', 'single', 'bf16' or 'fp16'\.$> muon_gpu ("zeros", [2 3], "int8", "Device", "cpu")
