## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{C} =} torch_fixture_cases (@var{name}, @var{word}, @var{lead}, @var{per_step})
## The cases of fixtures/@var{name}.txt, numbers torch wrote (each file's header says how):
## per case a line @samp{class word nesterov rows cols steps}, then one line per name of the
## cellstr @var{lead}, then per step one line per name of @var{per_step}, each line a
## row-major rows x cols matrix of hex bits (8 digits float32, 16 digits float64).
## @var{C}: a struct array with fields @code{class}, @var{word} (the header's second word),
## @code{nesterov}, one matrix per name of @var{lead} and one cell of the steps' matrices
## per name of @var{per_step}.
## @end deftypefn

function C = torch_fixture_cases (name, word, lead, per_step)
  f = fullfile (fileparts (mfilename ("fullpath")), "fixtures", [name ".txt"]);
  L = strsplit (fileread (f), "\n");
  L = L(! strncmp (L, "#", 1) & ! cellfun ("isempty", L));
  C = {};
  k = 1;
  while (k <= numel (L))
    w = strsplit (strtrim (L{k}));
    sz = str2double (w(4:5));
    c = struct ("class", w{1}, word, w{2}, "nesterov", str2double (w{3}) != 0);
    k += 1;
    for n = lead
      c.(n{1}) = bits (L{k}, sz);
      k += 1;
    endfor
    for s = 1:str2double (w{6})
      for n = per_step
        c.(n{1}){s} = bits (L{k}, sz);
        k += 1;
      endfor
    endfor
    C{end+1} = c;
  endwhile
  C = [C{:}];
endfunction

## One row-major matrix of hex bits: 8 digits float32, 16 digits float64.
function A = bits (s, sz)
  h = strsplit (strtrim (s));
  A = reshape (hex2num (h, merge (numel (h{1}) == 16, "double", "single")), sz(2), sz(1)).';
endfunction
