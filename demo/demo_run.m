## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@dots{}] =} demo_run (@var{name}, @var{args}, @var{fn}, @dots{})
## Run the body of the demo @var{name}: read its options from the cell @var{args} with
## @code{demo_options}, call @var{fn} (a handle to the body) with the remaining arguments
## and the options struct last, and return its outputs.  With @qcode{"Display"}
## @qcode{"off"} the body runs under @code{evalc}, so that nothing it prints reaches the
## screen (the files it writes are still written).  Octave's own BLAS and LAPACK (the
## demos' references: @code{svd}, @code{eig}, products) run on one OpenBLAS thread for the
## call, as in polar_metrics: on two they sum in another order, and a demo's numbers would
## depend on the machine's threads.  muonlab's own calls set their threads themselves.
## @end deftypefn

function varargout = demo_run (name, args, fn, varargin)
  ## more outputs than the body has: refused before it runs, in the demo's name, as Octave
  ## refuses a function of declared outputs (the demos are varargout: Octave 7 loses the
  ## output of [~, T] = evalc ("demo (...)") when T is declared); an anonymous or varargout
  ## body (nargout -1) says for itself
  nmax = nargout (fn);
  if (nmax >= 0 && nargout > nmax)
    error ("Octave:invalid-fun-call", "%s: function called with too many outputs", name);
  endif
  o = demo_options (name, args);
  prev = 0;
  try
    prev = __muon_blas_threads__ (1);
  catch                                 # not OpenBLAS (or no gateway): nothing to pin
  end_try_catch
  restore = onCleanup (@() give_back_threads (prev));
  ## [varargout{1:nargout}] = ... assigns one output even when nargout is 0, which the
  ## prompt would print as "ans": call without outputs then
  if (o.final && nargout > 0)
    [varargout{1:nargout}] = fn (varargin{:}, o);
  elseif (o.final)
    fn (varargin{:}, o);
  elseif (nargout > 0)
    evalc ("[varargout{1:nargout}] = fn (varargin{:}, o);");
  else
    evalc ("fn (varargin{:}, o);");
  endif
endfunction

function give_back_threads (prev)
  if (prev > 0)
    __muon_blas_threads__ (prev);
  endif
endfunction
