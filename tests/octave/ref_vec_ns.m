## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## ref_vec_ns - muon_ns of a vector (1 x n, n x 1 or 1 x 1) by its closed form: the one
## singular value s_0 = ||X|| / (||X|| + 1e-7) mapped 5 times by Keller's triple
## (3.4445, -4.7750, 2.0315), O = s_5 X / ||X||.  The oracle of the vector tests
## (test_muon_update, test_optimizer).
function O = ref_vec_ns (X)
  s = norm (X) / (norm (X) + 1e-7);
  for k = 1:5
    s = 3.4445 * s - 4.7750 * s^3 + 2.0315 * s^5;
  endfor
  O = s * X / norm (X);
endfunction
