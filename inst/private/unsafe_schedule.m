## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {} unsafe_schedule (@var{fname}, @var{opts})
## @deftypefnx {} {} unsafe_schedule ()
## Warn (@code{muonlab:unsafeSchedule}) when the schedule that @var{opts} (a parsed
## @code{muon_ns} option struct: @code{coeffs}, @code{steps}, @code{schedule_mode}) runs
## has a composed map that goes negative on (0, 1] (on the audit grid of @code{ns_map}, or
## just above 0, from its exact sign there; the warning then says "from sigma = 0"): every
## singular value of the normalized input in that range comes out with its sign flipped, so
## the update reverses that direction.  Once per session and schedule (as expanded to its
## steps): the check and the warning are remembered in the root object's application data
## @qcode{"muonlab_unsafe_schedule_seen"} (field @code{seen}: the MD5 of each schedule
## checked, at most the last 1024 distinct ones, so a sweep over thousands of designed
## schedules keeps its memory and each lookup bounded; a schedule forgotten that way is
## checked, and warned about, once more), which a test sets to @code{[]} to forget them (a
## test cannot reach this private function's own persistent variables: called from the
## private folder, it is another instance; a global variable would be reported as leaked by
## @code{test}); with no argument, forget them.
## @end deftypefn

function unsafe_schedule (fname, opts)
  key = "muonlab_unsafe_schedule_seen";
  max_seen = 1024;
  S = [];
  if (nargin > 0 && isappdata (0, key))
    S = getappdata (0, key);
  endif
  if (isempty (S))
    S = struct ("last", {{[], 0, []}}, "seen", {{}}, "next", 1);
    setappdata (0, key, S);
    if (nargin == 0)
      return;
    endif
  endif
  c = opts.coeffs;                        # the common case: the same schedule again
  [lc, ls, lm] = deal (S.last{:});
  if (ischar (lm) && opts.steps == ls && strcmp (opts.schedule_mode, lm)
      && size_equal (c, lc) && ! any (c(:) != lc(:)))
    return;
  endif
  S.last = {c, opts.steps, opts.schedule_mode};
  C = expand_schedule (opts.coeffs, opts.steps, opts.schedule_mode);
  ## its key: the MD5 of its row count and bytes (C + 0: -0 as 0, as isequal had it)
  h = hash ("md5", [sprintf("%d:", rows (C)), char(typecast (C(:) + 0, "uint8").')]);
  if (any (strcmp (h, S.seen)))
    setappdata (0, key, S);
    return;
  endif
  S.seen{S.next} = h;                     # a ring of the last max_seen distinct schedules
  S.next = mod (S.next, max_seen) + 1;
  setappdata (0, key, S);
  [p, x, s0] = ns_map (C);
  k = find (p < 0, 1);
  if (! isempty (k) || s0 < 0)
    if (s0 < 0)                           # negative just above 0, below the grid
      x0 = 0;
    else
      x0 = x(k);
    endif
    warning ("muonlab:unsafeSchedule",
             ["%s: this coefficient schedule's composed map is negative from sigma = %.3g " ...
              "(p(1) = %.3g): singular directions of the normalized input there are " ...
              "reversed; see ns_schedule_audit."], fname, x0, p(end));
  endif
endfunction
