## -*- texinfo -*-
## @deftypefn {} {[@var{vals}, @var{rest}] =} parse_pairs (@var{fname}, @var{defaults}, @var{args})
## Match NAME, VALUE pairs in the cell @var{args} case-insensitively against the fields of
## the struct @var{defaults}.  Matched values replace the defaults in @var{vals}; pairs whose
## name is not a field are returned in @var{rest} (a cell of pairs), so that a caller can
## hand them to another parser or reject them.
## @end deftypefn

function [vals, rest] = parse_pairs (fname, defaults, args)
  if (mod (numel (args), 2) != 0)
    error ("muonlab:badArg", "%s: options must be NAME, VALUE pairs.", fname);
  endif
  vals = defaults;
  names = fieldnames (defaults);
  rest = {};
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
    endif
  endfor
endfunction
