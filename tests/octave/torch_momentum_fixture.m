## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{C} =} torch_momentum_fixture ()
## The cases of fixtures/torch_momentum.txt (torch's Muon momentum bits, see its header):
## a struct array with fields @code{class} (@qcode{"single"}, @qcode{"double"} or
## @qcode{"bf16"}), @code{form}, @code{nesterov}, and @code{G}, @code{M}, @code{X} (cells
## of the steps' rows x cols matrices: single for single and bf16, whose values are bf16's,
## double for double) and @code{U} (torch's float64 update of each step's X).
## @end deftypefn

function C = torch_momentum_fixture ()
  C = torch_fixture_cases ("torch_momentum", "form", {}, {"G", "M", "X", "U"});
endfunction
