## -*- texinfo -*-
## @deftypefn {} {[@dots{}] =} demo_run (@var{name}, @var{args}, @var{fn}, @dots{})
## Run the body of the demo @var{name}: read its options from the cell @var{args} with
## @code{demo_options}, call @var{fn} (a handle to the body) with the remaining arguments
## and the options struct last, and return its outputs.  With @qcode{"Display"}
## @qcode{"off"} the body runs under @code{evalc}, so that nothing it prints reaches the
## screen (the files it writes are still written).
## @end deftypefn

function varargout = demo_run (name, args, fn, varargin)
  o = demo_options (name, args);
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
