## -*- texinfo -*-
## @deftypefn {} {@var{C} =} torch_muon_step_fixture ()
## The cases of fixtures/torch_muon_step.txt (torch.optim.Muon's parameter trajectories, see
## its header): a struct array with fields @code{adjust} (torch's adjust_lr_fn),
## @code{nesterov}, @code{P0} (the first parameter), and @code{G}, @code{P}, @code{O}
## (cells of the steps' rows x cols single matrices: the gradient, the parameter after the
## step, torch's Newton-Schulz output before the scale).
## @end deftypefn

function C = torch_muon_step_fixture ()
  f = fullfile (fileparts (mfilename ("fullpath")), "fixtures", "torch_muon_step.txt");
  L = strsplit (fileread (f), "\n");
  L = L(! strncmp (L, "#", 1) & ! cellfun ("isempty", L));
  C = struct ("adjust", {}, "nesterov", {}, "P0", {}, "G", {}, "P", {}, "O", {});
  k = 1;
  while (k <= numel (L))
    w = strsplit (strtrim (L{k}));
    sz = str2double (w(4:5));
    steps = str2double (w{6});
    c = struct ("adjust", w{2}, "nesterov", str2double (w{3}) != 0,
                "P0", bits (L{k+1}, sz));
    for s = 1:steps
      r = L(k + 1 + 3 * (s - 1) + (1:3));
      c.G{s} = bits (r{1}, sz);
      c.P{s} = bits (r{2}, sz);
      c.O{s} = bits (r{3}, sz);
    endfor
    C(end+1) = c;
    k += 2 + 3 * steps;
  endwhile
endfunction

## One row-major matrix of float32 bits in hex.
function A = bits (s, sz)
  A = reshape (hex2num (strsplit (strtrim (s)), "single"), sz(2), sz(1)).';
endfunction
