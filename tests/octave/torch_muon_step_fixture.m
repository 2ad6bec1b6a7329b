## -*- texinfo -*-
## @deftypefn {} {@var{C} =} torch_muon_step_fixture ()
## The cases of fixtures/torch_muon_step.txt (torch.optim.Muon's parameter trajectories, see
## its header): a struct array with fields @code{class} (@qcode{"single"} or
## @qcode{"double"}), @code{adjust} (torch's adjust_lr_fn), @code{nesterov}, @code{P0} (the
## first parameter), and @code{G}, @code{P}, @code{O} (cells of the steps' rows x cols
## matrices: the gradient and the parameter after the step in the case's class, torch's
## bf16 Newton-Schulz output before the scale as single).
## @end deftypefn

function C = torch_muon_step_fixture ()
  f = fullfile (fileparts (mfilename ("fullpath")), "fixtures", "torch_muon_step.txt");
  L = strsplit (fileread (f), "\n");
  L = L(! strncmp (L, "#", 1) & ! cellfun ("isempty", L));
  C = struct ("class", {}, "adjust", {}, "nesterov", {}, "P0", {}, "G", {}, "P", {}, "O", {});
  k = 1;
  while (k <= numel (L))
    w = strsplit (strtrim (L{k}));
    sz = str2double (w(4:5));
    steps = str2double (w{6});
    c = struct ("class", w{1}, "adjust", w{2}, "nesterov", str2double (w{3}) != 0,
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

## One row-major matrix of hex bits: 8 digits float32, 16 digits float64.
function A = bits (s, sz)
  h = strsplit (strtrim (s));
  A = reshape (hex2num (h, merge (numel (h{1}) == 16, "double", "single")), sz(2), sz(1)).';
endfunction
