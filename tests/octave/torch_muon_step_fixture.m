## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

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
  C = torch_fixture_cases ("torch_muon_step", "adjust", {"P0"}, {"G", "P", "O"});
endfunction
