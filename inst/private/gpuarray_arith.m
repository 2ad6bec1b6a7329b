## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{C} =} gpuarray_arith (@var{sym}, @var{names}, @var{A}, @var{B})
## The arithmetic of @code{muon_gpuarray}, a new array on the device of its operands:
## @var{sym} @qcode{"+"} or @qcode{"-"}, @code{@var{A} + @var{B}} or @code{@var{A} -
## @var{B}} of two device arrays of one size, class and device; @qcode{"*"} or
## @qcode{".*"}, a device array times a real scalar (either order); @qcode{"/"} or
## @qcode{"./"}, a device array divided by a real scalar (a double array and a single
## scalar: the array rounded to single first, a single result, as Octave computes double
## times single).  Other operands are a
## @code{muonlab:badArg} naming the rule (@var{B} missing: @code{plus (@var{D})} called
## with one argument).  @var{names} holds the operands' names as the caller wrote them
## (@code{inputname}: only a call by name has them, as @code{mtimes (G, 2)}; else the
## place, e.g. @qcode{"B in A * B"}), for the error of a deleted or stale array.
## @end deftypefn

function C = gpuarray_arith (sym, names, A, B)
  if (nargin < 4)
    B = [];
  endif
  ## Octave gives an operator's operands no names (inputname ""): its place in the rule
  fallback = {sprintf("A in A %s B", sym), sprintf("B in A %s B", sym)};
  names(cellfun ("isempty", names)) = fallback(cellfun ("isempty", names));
  if (any (strcmp (sym, {"+", "-"})))      # D + E, D - E
    if (! (isa (A, "muon_gpuarray") && isa (B, "muon_gpuarray")
           && isequal (A.Size, B.Size) && strcmp (A.Storage, B.Storage)
           && strcmp (A.Device, B.Device)))
      error ("muonlab:badArg",
             "muon_gpuarray: A %s B needs two device arrays of one size, class and device.",
             sym);
    endif
    op = merge (sym == "+", "add", "sub");
    args = {A.Handle, B.Handle, []};
  else                                     # D * s, s * D, D / s
    mul = (sym(end) == "*");
    if (mul && ! isa (A, "muon_gpuarray"))
      [A, B] = deal (B, A);                # s * D = D * s: IEEE products commute
      names = names([2 1]);
    endif
    if (! (isa (A, "muon_gpuarray") && (isa (B, "double") || isa (B, "single"))
           && isreal (B) && isscalar (B)))
      what = merge (mul, "a device array and a real scalar",
                    "a device array divided by a real scalar");
      error ("muonlab:badArg", "muon_gpuarray: A %s B needs %s.", sym, what);
    endif
    op = merge (mul, "mul", "div");
    if (strcmp (A.Storage, "double") && isa (B, "single"))
      ## Octave's double .* single: the double operand rounded to single, the product
      ## (quotient) in single; the device's conversion rounds as single () does
      A = convert_single (A, names{1});
    endif
    args = {A.Handle, [], double(B)};
  endif
  mark = __muon_gpu__ ("mark");
  unwind_protect
    try
      C = muon_gpuarray (__muon_gpu__ ("ew", op, args{:}), A.Size, A.Storage, A.Device);
    catch err                              # the gateway's X is A, its Y is B
      gpu_stale (err, "muon_gpuarray",
                 names{1 + strncmp (err.message, "muon_gpuarray: Y ", 17)});
    end_try_catch
  unwind_protect_cleanup
    __muon_gpu__ ("drop", mark);           # an array a Ctrl-C left unwrapped
  end_unwind_protect
endfunction

function S = convert_single (A, name)
  try
    S = muon_gpu (A, "Class", "single");
  catch err
    gpu_stale (err, "muon_gpuarray", name);
  end_try_catch
endfunction
