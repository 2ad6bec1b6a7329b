## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## test_zero_cost_wrap - zero_cost's transient buffers near 2^64 elements: a design that
## fails on bytes past 2^64 among several had its transient count wrap (zero3_round_robin
## of one 2^31 x 2^30 matrix on 2 ranks: 9 x 2^61 elements came out as 2^61); now such a
## count is 2^64 (the core's UINT64_MAX), with a reason of its own in why, and one below it
## is exact.  Split from the zero_cost suites to keep their files apart.
## Run: `test test_zero_cost_wrap` with inst/ and build/mex on the path.

function test_zero_cost_wrap ()
  help test_zero_cost_wrap
endfunction

%!test
%! ## zero3_round_robin holds 2 total + S W + 2 big + 2 big W elements (zero_step_rr.c):
%! ## 9 x 2^61 on 2 ranks, past 2^64; reference the flat buffer and G, M, U, 4 x 2^61
%! C = zero_cost ([2^31 2^30], 2, "Design", {"zero3_round_robin", "reference"});
%! rr = C(1);
%! assert (rr.design, "zero3_round_robin");
%! assert (rr.fails);
%! assert (rr.ranks.transient, [2^64; 2^64]);
%! assert (! isempty (strfind (rr.why, "; its transient elements reach 2^64 - 1 (rank 0)")));
%! assert (rr.calls, zeros (2, 6));
%! ref = C(2);
%! assert (ref.ranks.transient, [4 * 2^61; 4 * 2^61]);
%! assert (isempty (strfind (ref.why, "transient")));
%!test
%! ## on 1 rank 7 x 2^61, exact (the all-reduce's 2^64 bytes still fail the design)
%! C = zero_cost ([2^31 2^30], 1, "Design", {"zero3_round_robin", "reference"});
%! assert (C(1).ranks.transient, 7 * 2^61);
%! assert (isempty (strfind (C(1).why, "transient")));
%!test
%! ## every reason whole in why (the core's held 255 characters; these three are 260, then
%! ## zero_cost's own about the 2^53 elements): a mixed gather round, the all-reduce's bytes,
%! ## the transient elements
%! C = zero_cost ({[2^31 2^30], [2 3]}, 2, "Design", {"zero3_round_robin_aliased_pads", "reference"});
%! assert (C(1).why, ["gather round 1 mixes sizes: slot 1 holds matrix 1 (2147483648 x " ...
%!                    "1073741824) and slot 2 holds matrix 2 (2 x 3) (DeepSpeed PR 8628); " ...
%!                    "its allreduce of 2305843009213693958 elements is too many to count " ...
%!                    "(64-bit bytes); its transient elements reach 2^64 - 1 (rank 0); the " ...
%!                    "padded buffer (2.305843009213694e+18 elements) must hold fewer than " ...
%!                    "2^53 elements"]);
