## -*- texinfo -*-
## @deftypefn {} {} reject_rest (@var{fname}, @var{rest})
## Raise muonlab:badArg naming the first unknown option in @var{rest}, if any.
## @end deftypefn

function reject_rest (fname, rest)
  if (! isempty (rest))
    error ("muonlab:badArg", "%s: unknown option '%s'.", fname, rest{1});
  endif
endfunction
