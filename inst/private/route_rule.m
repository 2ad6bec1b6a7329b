## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{tf} =} route_rule (@var{names}, @var{rows}, @var{cols})
## The default Muon / AdamW routing, the one copy shared by @code{muon_optimizer} and
## @code{muon_model}: a parameter goes to Muon when it is a matrix with both of its first
## two dimensions > 1 and its lower-case name contains neither @qcode{"embed"} nor
## @qcode{"lm_head"}.  DeepSpeed's @code{set_optimizer_flags} tests @code{ndims >= 2}
## instead, which an Octave vector passes: here a 1 x n or n x 1 matrix goes to AdamW, also
## a torch Linear weight of one row that DeepSpeed gives Muon (qwen2_moe's
## @code{shared_expert_gate.weight}, 1 x hidden).  @var{names} is a string or a cellstr,
## @var{rows} and @var{cols} numbers or arrays of its size; @var{tf} is true for Muon (a
## column for a cellstr).
## @end deftypefn

function tf = route_rule (names, rows, cols)
  names = cellstr (names);
  n = numel (names);
  ## one pass over all the names joined by newlines (which neither pattern contains)
  s = lower (sprintf ("%s\n", names{:}));
  len = cellfun ("length", names(:)) + 1;
  starts = cumsum ([1; len(1:end-1)]);
  hit = [strfind(s, "embed"), strfind(s, "lm_head")];
  named = false (n, 1);
  named(lookup (starts, hit)) = true;
  tf = rows(:) > 1 & cols(:) > 1 & ! named;
endfunction
