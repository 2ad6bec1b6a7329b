## -*- texinfo -*-
## @deftypefn {} {@var{C} =} torch_momentum_fixture ()
## The cases of fixtures/torch_momentum.txt (torch's Muon momentum bits, see its header):
## a struct array with fields @code{class} (@qcode{"single"}, @qcode{"double"} or
## @qcode{"bf16"}), @code{form}, @code{nesterov}, and @code{G}, @code{M}, @code{X} (cells
## of the steps' rows x cols matrices: single for single and bf16, whose values are bf16's,
## double for double) and @code{U} (torch's float64 update of each step's X).
## @end deftypefn

function C = torch_momentum_fixture ()
  f = fullfile (fileparts (mfilename ("fullpath")), "fixtures", "torch_momentum.txt");
  L = strsplit (fileread (f), "\n");
  L = L(! strncmp (L, "#", 1) & ! cellfun ("isempty", L));
  C = struct ("class", {}, "form", {}, "nesterov", {}, "G", {}, "M", {}, "X", {}, "U", {});
  k = 1;
  while (k <= numel (L))
    w = strsplit (strtrim (L{k}));
    sz = str2double (w(4:5));
    steps = str2double (w{6});
    c = struct ("class", w{1}, "form", w{2}, "nesterov", str2double (w{3}) != 0);
    for s = 1:steps
      r = L(k + 4 * (s - 1) + (1:4));
      c.G{s} = bits (r{1}, sz);
      c.M{s} = bits (r{2}, sz);
      c.X{s} = bits (r{3}, sz);
      c.U{s} = bits (r{4}, sz);
    endfor
    C(end+1) = c;
    k += 1 + 4 * steps;
  endwhile
endfunction

## One row-major matrix of hex bits: 8 digits float32, 16 digits float64.
function A = bits (s, sz)
  h = strsplit (strtrim (s));
  if (numel (h{1}) == 16)
    v = hex2num (h, "double");
  else
    v = hex2num (h, "single");
  endif
  A = reshape (v, sz(2), sz(1)).';
endfunction
