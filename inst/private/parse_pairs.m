## -*- texinfo -*-
## @deftypefn {} {[@var{vals}, @var{rest}, @var{given}] =} parse_pairs (@var{fname}, @var{defaults}, @var{args})
## @deftypefnx {} {[@dots{}] =} parse_pairs (@var{fname}, @var{defaults}, @var{args}, @var{names})
## Match NAME, VALUE pairs in the cell @var{args} case-insensitively against the fields of
## the struct @var{defaults}.  Matched values replace the defaults in @var{vals}; pairs whose
## name is not a field are returned in @var{rest} (a cell of pairs), so that a caller can
## hand them to another parser or reject them.  @var{given} is a logical row, one per field
## of @var{defaults} in its order: true where a pair set it.  @var{names}, when given, is
## @code{fieldnames (@var{defaults})} computed once by the caller (a cached table).
## @end deftypefn

function [vals, rest, given] = parse_pairs (fname, defaults, args, names)
  if (mod (numel (args), 2) != 0)
    error ("muonlab:badArg", "%s: options must be NAME, VALUE pairs.", fname);
  endif
  vals = defaults;
  if (nargin < 4)
    names = fieldnames (defaults);
  endif
  rest = {};
  given = false (1, numel (names));
  for i = 1:2:numel (args)
    name = args{i};
    if (! ischar (name) || ! isrow (name))
      error ("muonlab:badArg", "%s: option names must be strings.", fname);
    endif
    k = find (strcmpi (name, names), 1);
    if (isempty (k))
      rest(end+1:end+2) = args(i:i+1);
    else
      vals.(names{k}) = args{i+1};
      given(k) = true;
    endif
  endfor
endfunction
